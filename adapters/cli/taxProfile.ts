/**
 * `fils accounts tax-profile show|set|remove ACCOUNT_ID`: the merchant's tax profile, the supplier of its tax
 * documents (docs/tax-documents.md). `set` replaces it whole, decoded with the domain's own Schema; a refusal names
 * the option to fix, in the merchant's words, and changes nothing.
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Effect, Option, ParseResult, Schema } from "effect"
import { Accounts } from "../../src/application/Accounts.js"
import { InvalidRequest } from "../../src/domain/Errors.js"
import { TaxProfile } from "../../src/domain/TaxProfile.js"
import { fieldErrorsOf } from "../http/dashboard/Fields.js"
import { accountIdOf } from "./ids.js"
import { printResult, reportFailure } from "./output.js"
import { EngineSql } from "./runtime.js"

const account = Args.text({ name: "ACCOUNT_ID" }).pipe(Args.withDescription("The account (acct_…)"))

const decodeProfile = Schema.decodeUnknownEither(TaxProfile, { errors: "all", onExcessProperty: "error" })
const encodeProfile = Schema.encodeSync(TaxProfile)

const printProfile = (accountId: string, profile: TaxProfile | null) =>
  printResult({ account_id: accountId, tax_profile: profile === null ? null : encodeProfile(profile) })

/** The option a profile's schema path is set by; the profile's own rule (a registered merchant's TRN) is `--trn`'s. */
const optionOf = (path: ReadonlyArray<string>): string =>
  path.length === 0
    ? "--trn"
    : path[0] === "address"
    ? `--${path[1]}`
    : path[0] === "trade_licence"
    ? `--licence-${path[1]}`
    : `--${path[0]!.replace(/_/g, "-")}`

const show = Command.make("show", { account }, ({ account }) =>
  reportFailure(
    Effect.gen(function*() {
      const id = yield* accountIdOf(account)
      const found = yield* (yield* Accounts).get(id)
      yield* printProfile(found.account_id, found.tax_profile)
    }).pipe(Effect.provide(EngineSql))
  )).pipe(Command.withDescription("Print an account's tax profile (null when it has none)"))

const text = (name: string, description: string) => Options.text(name).pipe(Options.withDescription(description))
const optionalText = (name: string, description: string) => text(name, description).pipe(Options.optional)

const set = Command.make(
  "set",
  {
    account,
    legalName: text("legal-name", "Legal name in English, as on the trade licence"),
    legalNameAr: optionalText("legal-name-ar", "Legal name in Arabic"),
    trn: optionalText("trn", "Tax Registration Number: 15 digits (needed when VAT registered)"),
    line1: text("line1", "Address, first line"),
    line2: optionalText("line2", "Address, second line"),
    city: text("city", "City"),
    emirate: text("emirate", "Emirate: AUH, DXB, SHJ, UAQ, FUJ, AJM or RAK"),
    licenceNumber: optionalText("licence-number", "Trade licence number (with --licence-authority)"),
    licenceAuthority: optionalText("licence-authority", "Authority that issued the trade licence"),
    notVatRegistered: Options.boolean("not-vat-registered", { negationNames: ["vat-registered"] }).pipe(
      Options.withDescription("Not VAT registered: no VAT is charged, no tax documents (default: registered)")
    ),
    pricesExcludeVat: Options.boolean("prices-exclude-vat").pipe(
      Options.withDescription("Prices exclude VAT: checkout adds it (default: prices include VAT)")
    )
  },
  (options) =>
    reportFailure(
      Effect.gen(function*() {
        const id = yield* accountIdOf(options.account)
        const number = Option.getOrNull(options.licenceNumber)
        const authority = Option.getOrNull(options.licenceAuthority)
        if ((number === null) !== (authority === null)) {
          return yield* new InvalidRequest({ message: "--licence-number and --licence-authority go together: give both or neither" })
        }
        const decoded = decodeProfile({
          legal_name: options.legalName,
          legal_name_ar: Option.getOrNull(options.legalNameAr),
          trn: Option.getOrNull(options.trn),
          address: {
            line1: options.line1,
            line2: Option.getOrNull(options.line2),
            city: options.city,
            emirate: options.emirate,
            country: "AE"
          },
          trade_licence: number === null || authority === null ? null : { number, authority },
          vat_registered: !options.notVatRegistered,
          prices_include_vat: !options.pricesExcludeVat
        })
        if (decoded._tag === "Left") {
          const errors = fieldErrorsOf(ParseResult.ArrayFormatter.formatErrorSync(decoded.left), optionOf)
          const message = Object.entries(errors).map(([option, why]) =>
            option === "--emirate" ? "--emirate must be one of AUH, DXB, SHJ, UAQ, FUJ, AJM, RAK" : `${option}: ${why}`
          ).join("; ")
          return yield* new InvalidRequest({ message: `The tax profile was not saved. ${message}` })
        }
        const updated = yield* (yield* Accounts).update(id, { tax_profile: decoded.right })
        yield* printProfile(updated.account_id, updated.tax_profile)
      }).pipe(Effect.provide(EngineSql))
    )
).pipe(Command.withDescription("Set an account's tax profile, replacing the one it has (VAT registered unless --not-vat-registered)"))

const remove = Command.make("remove", { account }, ({ account }) =>
  reportFailure(
    Effect.gen(function*() {
      const id = yield* accountIdOf(account)
      const updated = yield* (yield* Accounts).update(id, { tax_profile: null })
      yield* printProfile(updated.account_id, updated.tax_profile)
    }).pipe(Effect.provide(EngineSql))
  )).pipe(Command.withDescription("Remove an account's tax profile: no VAT is charged and no tax documents are issued from then on"))

export const taxProfileCommand = Command.make("tax-profile").pipe(
  Command.withSubcommands([show, set, remove]),
  Command.withDescription("An account's tax profile: the supplier named on its tax invoices and credit notes")
)
