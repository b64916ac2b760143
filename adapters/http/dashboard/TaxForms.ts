/**
 * The forms of who sells and who buys on a tax document (docs/tax-documents.md): the merchant's tax profile
 * (Settings) and a business customer's details (Customers). Each is read exactly as typed and decoded with the
 * domain's own Schema (`TaxProfile`, `Buyer`); a refusal is shown next to the field it is about. An empty optional
 * field is none; a field sent back as shown keeps its stored value byte for byte (`unchanged`).
 */
import { Either, ParseResult, Schema } from "effect"
import { Buyer, type Address, TaxProfile } from "../../../src/domain/TaxProfile.js"
import { unchanged } from "../html/Forms.js"
import { html, type Raw } from "../html/Html.js"
import { emirates } from "../documents/TaxDocumentPage.js"
import { checkboxField, emirateOptions, type FieldErrors, fieldErrorsOf, selectField, textField } from "./Fields.js"
import * as Pages from "./Pages.js"

const decodeProfile = Schema.decodeUnknownEither(TaxProfile, { errors: "all", onExcessProperty: "error" })
const decodeBuyer = Schema.decodeUnknownEither(Buyer, { errors: "all", onExcessProperty: "error" })

const orNull = (text: string) => (text === "" ? null : text)

/** A form's field as posted (empty when absent). */
export type Field = (name: string) => string

/** A checkbox as a browser sends it: `on` when ticked, absent when not; anything else is refused. */
const ticked = (value: string): boolean | undefined => (value === "on" ? true : value === "" ? false : undefined)

/** The page's language, and its catalogue. */
type Lang = Pick<Pages.Frame, "locale" | "t">

// The address's own lines as typed; its emirate in the page's language.
const addressText = (lang: Lang, a: Address) =>
  `${a.line1}${a.line2 === null ? "" : `, ${a.line2}`}, ${a.city}, ${emirates[a.emirate][lang.locale]}`

// The tax profile -------------------------------------------------------------------------------------------------

/** The tax profile form's fields, as shown or as typed. */
export interface ProfileForm {
  readonly legal_name: string
  readonly legal_name_ar: string
  readonly trn: string
  readonly line1: string
  readonly line2: string
  readonly city: string
  readonly emirate: string
  readonly licence_number: string
  readonly licence_authority: string
  readonly vat_registered: string
  readonly prices_include_vat: string
}

const profileFields = [
  "legal_name",
  "legal_name_ar",
  "trn",
  "line1",
  "line2",
  "city",
  "emirate",
  "licence_number",
  "licence_authority",
  "vat_registered",
  "prices_include_vat"
] as const

/** The form of a stored profile; with none, an empty one whose prices include VAT (the usual case in the UAE). */
export const profileForm = (p: TaxProfile | null): ProfileForm => ({
  legal_name: p?.legal_name ?? "",
  legal_name_ar: p?.legal_name_ar ?? "",
  trn: p?.trn ?? "",
  line1: p?.address.line1 ?? "",
  line2: p?.address.line2 ?? "",
  city: p?.address.city ?? "",
  emirate: p?.address.emirate ?? "",
  licence_number: p?.trade_licence?.number ?? "",
  licence_authority: p?.trade_licence?.authority ?? "",
  vat_registered: p === null ? "" : p.vat_registered ? "on" : "",
  prices_include_vat: p === null || p.prices_include_vat ? "on" : ""
})

export const typedProfile = (field: Field): ProfileForm =>
  Object.fromEntries(profileFields.map((name) => [name, field(name)])) as unknown as ProfileForm

/** The schema path of a profile's issue as the form field it is about; the profile's own rule is the TRN's. */
const profileFieldOf = (path: ReadonlyArray<string>): string | undefined =>
  path.length === 0 ? "trn" : path[0] === "address" ? path[1] : path[0] === "trade_licence" ? `licence_${path[1]}` : path[0]

/**
 * The typed form as a profile, or why not, by field, in the page's language. Text sent back as `stored` showed it
 * keeps the stored text.
 */
export const decodeProfileForm = (lang: Lang, typed: ProfileForm, stored: TaxProfile | null): Either.Either<TaxProfile, FieldErrors> => {
  const t = lang.t.tax
  const shown = profileForm(stored)
  const kept = (name: keyof ProfileForm) => unchanged(typed[name], stored === null ? null : shown[name], "input")
  const vatRegistered = ticked(typed.vat_registered)
  const pricesIncludeVat = ticked(typed.prices_include_vat)
  const boxes: Record<string, string> = {
    ...(vatRegistered === undefined ? { vat_registered: t.tickOrEmpty } : {}),
    ...(pricesIncludeVat === undefined ? { prices_include_vat: t.tickOrEmpty } : {})
  }
  const licence = typed.licence_number === "" && typed.licence_authority === ""
    ? null
    : { number: kept("licence_number"), authority: kept("licence_authority") }
  const decoded = decodeProfile({
    legal_name: kept("legal_name"),
    legal_name_ar: orNull(kept("legal_name_ar")),
    trn: orNull(typed.trn),
    address: { line1: kept("line1"), line2: orNull(kept("line2")), city: kept("city"), emirate: typed.emirate, country: "AE" },
    trade_licence: licence,
    vat_registered: vatRegistered ?? false,
    prices_include_vat: pricesIncludeVat ?? true
  })
  const errors: Record<string, string> = {
    ...(Either.isLeft(decoded) ? Pages.fieldErrorsIn(lang, fieldErrorsOf(ParseResult.ArrayFormatter.formatErrorSync(decoded.left), profileFieldOf)) : {}),
    ...boxes,
    // A licence is its number and the authority that issued it: the one left empty is what is missing.
    ...(licence !== null && typed.licence_number === "" ? { licence_number: t.licenceNeedsNumber } : {}),
    ...(licence !== null && typed.licence_authority === "" ? { licence_authority: t.licenceNeedsAuthority } : {})
  }
  return Either.isRight(decoded) && Object.keys(errors).length === 0 ? Either.right(decoded.right) : Either.left(errors)
}

/** The profile form's controls. */
export const profileControls = (lang: Lang, shown: ProfileForm, errors: FieldErrors): Raw => {
  const t = lang.t.tax.profile
  return html`${textField({ name: "legal_name", label: t.legalName, value: shown.legal_name, errors, attributes: "required" })}
${textField({ name: "legal_name_ar", label: t.legalNameAr, value: shown.legal_name_ar, errors, attributes: `dir="rtl" lang="ar"` })}
${textField({ name: "trn", label: t.trn, value: shown.trn, errors, attributes: `inputmode="numeric" autocomplete="off"` })}
${textField({ name: "line1", label: t.line1, value: shown.line1, errors, attributes: "required" })}
${textField({ name: "line2", label: t.line2, value: shown.line2, errors })}
${textField({ name: "city", label: t.city, value: shown.city, errors, attributes: "required" })}
${selectField({ name: "emirate", label: t.emirate, value: shown.emirate, options: [["", t.chooseEmirate], ...emirateOptions(lang.locale)], errors })}
${textField({ name: "licence_number", label: t.licenceNumber, value: shown.licence_number, errors })}
${textField({ name: "licence_authority", label: t.licenceAuthority, value: shown.licence_authority, errors })}
${checkboxField({ name: "vat_registered", label: t.vatRegistered, checked: shown.vat_registered === "on", errors })}
${checkboxField({ name: "prices_include_vat", label: t.pricesIncludeVat, checked: shown.prices_include_vat === "on", errors })}`
}

/** A saved profile, as a table. */
export const profileSummary = (lang: Lang, p: TaxProfile): Raw => {
  const t = lang.t.tax
  return html`<table aria-label="${t.summary.label}"><tbody>
<tr><th>${t.summary.legalName}</th><td>${p.legal_name}${p.legal_name_ar === null ? "" : html`<br><span dir="rtl" lang="ar">${p.legal_name_ar}</span>`}</td></tr>
<tr><th>${t.summary.trn}</th><td>${p.trn ?? t.none}</td></tr>
<tr><th>${t.summary.address}</th><td>${addressText(lang, p.address)}</td></tr>
<tr><th>${t.summary.tradeLicence}</th><td>${p.trade_licence === null ? t.none : t.licence(p.trade_licence.number, p.trade_licence.authority)}</td></tr>
<tr><th>${t.summary.vat}</th><td>${p.vat_registered ? t.summary.registered : t.summary.notRegistered}</td></tr>
<tr><th>${t.summary.prices}</th><td>${p.prices_include_vat ? t.summary.includeVat : t.summary.excludeVat}</td></tr>
</tbody></table>`
}

// A business customer ---------------------------------------------------------------------------------------------

/** A customer form's business fields, as shown or as typed. All empty: not a business (none, or removed). */
export interface BuyerForm {
  readonly business_name: string
  readonly business_trn: string
  readonly business_line1: string
  readonly business_line2: string
  readonly business_city: string
  readonly business_emirate: string
  readonly peppol_id: string
  readonly licence_number: string
  readonly licence_authority: string
}

const buyerFields = [
  "business_name",
  "business_trn",
  "business_line1",
  "business_line2",
  "business_city",
  "business_emirate",
  "peppol_id",
  "licence_number",
  "licence_authority"
] as const

export const buyerForm = (b: Buyer | null): BuyerForm => ({
  business_name: b?.business_name ?? "",
  business_trn: b?.trn ?? "",
  business_line1: b?.address?.line1 ?? "",
  business_line2: b?.address?.line2 ?? "",
  business_city: b?.address?.city ?? "",
  business_emirate: b?.address?.emirate ?? "",
  peppol_id: b?.peppol_endpoint?.id ?? "",
  licence_number: b?.trade_licence?.number ?? "",
  licence_authority: b?.trade_licence?.authority ?? ""
})

export const typedBuyer = (field: Field): BuyerForm =>
  Object.fromEntries(buyerFields.map((name) => [name, field(name)])) as unknown as BuyerForm

const buyerFieldOf = (path: ReadonlyArray<string>): string | undefined => {
  const [head, next] = path
  return path.length === 0
    ? "peppol_id"
    : head === "business_name"
    ? "business_name"
    : head === "trn"
    ? "business_trn"
    : head === "address"
    ? `business_${next ?? "line1"}`
    : head === "peppol_endpoint"
    ? "peppol_id"
    : head === "trade_licence"
    ? `licence_${next ?? "number"}`
    : undefined
}

/**
 * The business fields as what the customer's `business` becomes: `null` when all are empty (not a business), else a
 * `Buyer` (its address only when some address field is given), or why not, by field.
 */
export const decodeBuyerForm = (typed: BuyerForm, stored: Buyer | null): Either.Either<Buyer | null, FieldErrors> => {
  if (buyerFields.every((name) => typed[name] === "")) return Either.right(null)
  return decodeBusiness(typed, stored)
}

/** Whether a post carries any of the business fields (a post without them leaves the business as it is). */
export const sendsBusiness = (sent: (name: string) => boolean): boolean => buyerFields.some(sent)

const decodeBusiness = (typed: BuyerForm, stored: Buyer | null): Either.Either<Buyer, FieldErrors> => {
  const shown = buyerForm(stored)
  const kept = (name: keyof BuyerForm) => unchanged(typed[name], stored === null ? null : shown[name], "input")
  const addressGiven = typed.business_line1 !== "" || typed.business_line2 !== "" || typed.business_city !== "" ||
    typed.business_emirate !== ""
  const licenceGiven = typed.licence_number !== "" || typed.licence_authority !== ""
  const decoded = decodeBuyer({
    business_name: kept("business_name"),
    trn: orNull(typed.business_trn),
    address: addressGiven
      ? {
        line1: kept("business_line1"),
        line2: orNull(kept("business_line2")),
        city: kept("business_city"),
        emirate: typed.business_emirate,
        country: "AE"
      }
      : null,
    peppol_endpoint: typed.peppol_id === "" ? null : { scheme: "0235", id: typed.peppol_id },
    ...(licenceGiven ? { trade_licence: { number: kept("licence_number"), authority: kept("licence_authority") } } : {})
  })
  return Either.mapLeft(decoded, (error) => fieldErrorsOf(ParseResult.ArrayFormatter.formatErrorSync(error), buyerFieldOf))
}

/** The business fields of a customer form, in the page's language (`lang`: the page's frame). */
export const buyerControls = (shown: BuyerForm, errors: FieldErrors, lang: Lang): Raw => {
  const t = lang.t.tax.buyer
  return html`<fieldset><legend>${t.legend}</legend>
${textField({ name: "business_name", label: t.businessName, value: shown.business_name, errors })}
${textField({ name: "business_trn", label: t.trn, value: shown.business_trn, errors, attributes: `inputmode="numeric" autocomplete="off"` })}
${textField({ name: "business_line1", label: t.line1, value: shown.business_line1, errors })}
${textField({ name: "business_line2", label: t.line2, value: shown.business_line2, errors })}
${textField({ name: "business_city", label: t.city, value: shown.business_city, errors })}
${selectField({ name: "business_emirate", label: t.emirate, value: shown.business_emirate, options: [["", t.noEmirate], ...emirateOptions(lang.locale)], errors })}
${textField({ name: "peppol_id", label: t.peppolId, value: shown.peppol_id, errors, attributes: `inputmode="numeric" autocomplete="off"` })}
${textField({ name: "licence_number", label: t.licenceNumber, value: shown.licence_number, errors })}
${textField({ name: "licence_authority", label: t.licenceAuthority, value: shown.licence_authority, errors })}
</fieldset>`
}

/** A business customer's details, as a table's rows, in the page's language (`lang`: the page's frame). */
export const buyerRows = (b: Buyer, lang: Lang): Raw => {
  const t = lang.t.tax
  return html`<tr><th>${t.buyer.business}</th><td>${b.business_name}</td></tr>
<tr><th>${t.summary.trn}</th><td>${b.trn ?? t.none}</td></tr>
${b.address === null ? "" : html`<tr><th>${t.buyer.businessAddress}</th><td>${addressText(lang, b.address)}</td></tr>`}
${b.peppol_endpoint === null ? "" : html`<tr><th>${t.buyer.peppolEndpoint}</th><td><code>${b.peppol_endpoint.scheme}:${b.peppol_endpoint.id}</code></td></tr>`}
${b.trade_licence === undefined ? "" : html`<tr><th>${t.buyer.tradeLicence}</th><td>${t.licence(b.trade_licence.number, b.trade_licence.authority)}</td></tr>`}`
}
