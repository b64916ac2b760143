/** The operator commands: serve, migrate, accounts, keys, users, billing, refunds, deliveries, einvoices; and the developer loop (listen, trigger, clocks). */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Config, ConfigProvider, Console, DateTime, Effect, Layer, Option, Redacted, Schema } from "effect"
import { Accounts, revealKey } from "../../src/application/Accounts.js"
import { operator } from "../../src/domain/Account.js"
import { Billing } from "../../src/application/Billing.js"
import { Settings } from "../../src/application/Settings.js"
import { Deliveries } from "../../src/application/Deliveries.js"
import { EInvoices, type Listed } from "../../src/application/EInvoices.js"
import { paymentData } from "../../src/application/Events.js"
import { Payments } from "../../src/application/Payments.js"
import { Reconciliation } from "../../src/application/Reconciliation.js"
import { RequestLogs } from "../../src/application/RequestLogs.js"
import { Users } from "../../src/application/Users.js"
import { roles, signInLinkMillis } from "../../src/domain/DashboardUser.js"
import { ApiKeyId, parseId, PaymentId } from "../../src/domain/Ids.js"
import { noteProblem, RefundReason, type RefundWhy } from "../../src/domain/Refund.js"
import { InvalidRequest } from "../../src/domain/Errors.js"
import { ServerLive } from "../http/Server.js"
import { HostConfig, localUrl, PortConfig } from "../runtime/Settings.js"
import { checkedSettings, describeSettings, LoadedSettings, OwnerEmailConfig } from "./config.js"
import { clocksCommand } from "./clocks.js"
import { devLoopCommands } from "./devloop.js"
import { logsCommand } from "./logs.js"
import { ObservabilityLive } from "../observability/Observability.js"
import { EngineSql, MigrationsOnly } from "./runtime.js"
import { checkCommand } from "./check.js"
import { printResult, reportFailure, withProgress } from "./output.js"
import { secretsCommand } from "./secrets.js"
import { taxProfileCommand } from "./taxProfile.js"
import { accountIdOf } from "./ids.js"
import { integerWithin } from "./options.js"

// serve ------------------------------------------------------------------------------------------------------------

const port = Options.integer("port").pipe(
  Options.withFallbackConfig(PortConfig),
  Options.withDefault(4242),
  Options.withDescription("TCP port (FILS_PORT, else PORT)")
)
const host = Options.text("host").pipe(
  Options.withFallbackConfig(HostConfig),
  Options.withDefault("127.0.0.1"),
  Options.withDescription("Interface to listen on (FILS_HOST, else HOST)")
)

const announce = Effect.gen(function*() {
    const { publicUrl } = yield* Settings
    const created = yield* (yield* Accounts).ensureDefault()
    const lines = [
      "Fils is running.",
      `  API          ${publicUrl}/api/v1`,
      `  Reference    ${publicUrl}/docs`,
      `  OpenAPI      ${publicUrl}/api/v1/openapi.json`,
      `  Health       ${publicUrl}/health  ${publicUrl}/ready`
    ]
    const dashboard = yield* Config.boolean("FILS_DASHBOARD").pipe(Config.withDefault(true))
    if (dashboard) lines.push(`  Dashboard    ${publicUrl}/dashboard`)
    if (Option.isSome(created)) {
      const { account, keys } = created.value
      lines.push(
        "",
        `Created the default account ${account.account_id} on this empty store.`,
        `  Test key     ${Redacted.value(keys.test.secret)}`,
        "  (shown once: keep it; `fils keys create --account <id> --mode test` makes another)"
      )
      if (dashboard) {
        const email = yield* OwnerEmailConfig
        const owner = yield* (yield* Users).create(account.account_id, email, "owner")
        lines.push(
          `  Sign in      ${publicUrl}/dashboard/sign-in/${Redacted.value(owner.token)}`,
          `  (the owner ${owner.user.email} sets a password there; the link works once, for 24 hours)`
        )
      }
      lines.push("", `  curl -H "Authorization: Bearer ${Redacted.value(keys.test.secret)}" ${publicUrl}/api/v1/account`)
    }
    yield* Console.log(lines.join("\n"))
})

/** The background workers of one server: they stop with it (SIGTERM interrupts them between passes). */
const Workers = Layer.scopedDiscard(Effect.gen(function*() {
  yield* Effect.forkScoped((yield* Billing).worker)
  yield* Effect.forkScoped((yield* Deliveries).worker)
  yield* Effect.forkScoped((yield* EInvoices).worker)
  yield* Effect.forkScoped((yield* RequestLogs).worker)
}))

const serve = Command.make("serve", { port, host }, (options) =>
  // Every setting is checked before anything starts (the database included): a bad one is one clear error naming it.
  Effect.zipRight(checkedSettings, Effect.configProviderWith((settings) => Layer.launch(
    Layer.mergeAll(ServerLive(options), Workers, Layer.effectDiscard(announce)).pipe(
      Layer.provide(EngineSql),
      // JSON logs on stdout, and traces when OTEL_EXPORTER_OTLP_ENDPOINT is set: for the engine's start-up too.
      Layer.provide(ObservabilityLive),
      // Without FILS_PUBLIC_URL, links point at this server itself (the port it was given).
      Layer.provide(Layer.setConfigProvider(ConfigProvider.orElse(
        settings,
        () => ConfigProvider.fromMap(new Map([["FILS_PUBLIC_URL", localUrl(options)]]))
      )))
    )
  ))).pipe(reportFailure)).pipe(Command.withDescription("Run the HTTP server and background workers"))

// config -----------------------------------------------------------------------------------------------------------

const config = Command.make("config", {}, () =>
  reportFailure(Effect.gen(function*() {
    yield* checkedSettings
    const loaded = yield* LoadedSettings
    yield* printResult({ env_file: loaded.envFile ?? null, settings: describeSettings(loaded) })
  }))).pipe(Command.withDescription(
    "Print the effective configuration (secrets redacted) and where each value came from: the environment, a " +
      "<NAME>_FILE, the .env file (FILS_ENV_FILE), or the default"
  ))

// migrate ----------------------------------------------------------------------------------------------------------

const migrate = Command.make("migrate", {}, () =>
  reportFailure(Effect.provide(printResult({ migrated: true }), MigrationsOnly))).pipe(
    Command.withDescription("Apply pending database migrations")
  )

// accounts ---------------------------------------------------------------------------------------------------------

const name = Options.text("name").pipe(Options.withDescription("Business name shown to customers"))
const supportEmail = Options.text("support-email").pipe(Options.optional)
const accountOption = Options.text("account").pipe(Options.withDescription("Account id (acct_…)"))

const accountJson = (a: {
  readonly account_id: string
  readonly business_name: string | null
  readonly support_email: string | null
  readonly live_payments_enabled: boolean
}) => ({
  account_id: a.account_id,
  business_name: a.business_name,
  support_email: a.support_email,
  live_payments_enabled: a.live_payments_enabled
})

const accountsCreate = Command.make("create", { name, supportEmail }, ({ name, supportEmail }) =>
  reportFailure(
    Effect.gen(function*() {
      const { account, keys } = yield* (yield* Accounts).create({
        business_name: name,
        support_email: Option.getOrNull(supportEmail)
      })
      yield* printResult({ ...accountJson(account), keys: { test: revealKey(keys.test), live: revealKey(keys.live) } })
    }).pipe(Effect.provide(EngineSql))
  )).pipe(Command.withDescription("Create an account with one test and one live key (printed once)"))

const accountsUpdate = Command.make(
  "update",
  {
    account: accountOption,
    name: Options.text("name").pipe(Options.optional),
    supportEmail,
    livePayments: Options.choice("live-payments", ["enabled", "disabled"]).pipe(
      Options.optional,
      Options.withDescription("Turn live payments on (a live processor, or the simulated one for staging) or off")
    )
  },
  ({ account, name, supportEmail, livePayments }) =>
    reportFailure(
      Effect.gen(function*() {
        const id = yield* accountIdOf(account)
        const updated = yield* (yield* Accounts).update(id, {
          business_name: Option.getOrUndefined(name),
          support_email: Option.getOrUndefined(supportEmail),
          live_payments_enabled: Option.getOrUndefined(Option.map(livePayments, (v) => v === "enabled"))
        })
        yield* printResult(accountJson(updated))
      }).pipe(Effect.provide(EngineSql))
    )
).pipe(Command.withDescription("Change an account's name, support e-mail or live payments"))

const accountsList = Command.make("list", {}, () =>
  reportFailure(
    Effect.gen(function*() {
      const all = yield* (yield* Accounts).list()
      yield* printResult(all.map((a) => ({ ...accountJson(a), created_at: DateTime.formatIso(a.created_at) })))
    }).pipe(Effect.provide(EngineSql))
  )).pipe(Command.withDescription("List every account of the store, oldest first (ids, names, live payments)"))

const accounts = Command.make("accounts").pipe(
  Command.withSubcommands([accountsCreate, accountsList, accountsUpdate, taxProfileCommand]),
  Command.withDescription("Manage merchant accounts")
)

// keys -------------------------------------------------------------------------------------------------------------

const keysCreate = Command.make(
  "create",
  { account: accountOption, mode: Options.choice("mode", ["test", "live"]) },
  ({ account, mode }) =>
    reportFailure(
      Effect.gen(function*() {
        const id = yield* accountIdOf(account)
        yield* printResult(revealKey(yield* (yield* Accounts).createKey(id, mode)))
      }).pipe(Effect.provide(EngineSql))
    )
).pipe(Command.withDescription("Issue a new API key (the secret is printed once)"))

const keysRevoke = Command.make("revoke", { key: Args.text({ name: "KEY_ID" }) }, ({ key }) =>
  reportFailure(
    Effect.gen(function*() {
      const id = parseId(ApiKeyId)(key)
      if (id === undefined) return yield* new InvalidRequest({ message: `'${key}' is not a key id (key_…)` })
      const revoked = yield* (yield* Accounts).revokeKey(id)
      yield* printResult({
        key_id: revoked.key_id,
        account_id: revoked.account_id,
        mode: revoked.livemode ? "live" : "test",
        revoked_at: revoked.revoked_at
      })
    }).pipe(Effect.provide(EngineSql))
  )).pipe(Command.withDescription("Revoke an API key by its id; requests with it fail from then on"))

const keys = Command.make("keys").pipe(
  Command.withSubcommands([keysCreate, keysRevoke]),
  Command.withDescription("Manage API keys")
)

// refunds ----------------------------------------------------------------------------------------------------------

/** `--reason` and `--note` as the refund keeps them; a note without a reason, or either malformed, is refused. */
const refundWhy = (reason: string | undefined, note: string | undefined) =>
  Effect.gen(function*() {
    if (reason === undefined) {
      if (note !== undefined) return yield* new InvalidRequest({ message: "--note needs --reason" })
      return undefined
    }
    if (!Schema.is(RefundReason)(reason)) {
      return yield* new InvalidRequest({ message: `--reason must be one of ${RefundReason.literals.join(", ")}, not '${reason}'` })
    }
    const problem = note === undefined ? undefined : noteProblem(note)
    if (problem !== undefined) return yield* new InvalidRequest({ message: `--note ${problem}` })
    return { reason, note: note ?? null } satisfies RefundWhy
  })

const refundsCreate = Command.make(
  "create",
  {
    payment: Args.text({ name: "PAYMENT_ID" }),
    // Text, parsed here: a malformed amount is then a `{ code, message }` refusal like every other.
    amount: Options.text("amount").pipe(
      Options.optional,
      Options.withDescription("Fils to refund, a positive whole number (default: all that remains)")
    ),
    reason: Options.text("reason").pipe(
      Options.optional,
      Options.withDescription(`Why, kept on the refund and its credit note: ${RefundReason.literals.join(", ")}`)
    ),
    note: Options.text("note").pipe(
      Options.optional,
      Options.withDescription("A note beside the reason, up to 500 characters (needs --reason)")
    )
  },
  ({ amount, note, payment, reason }) =>
    reportFailure(
      Effect.gen(function*() {
        const id = parseId(PaymentId)(payment)
        if (id === undefined) return yield* new InvalidRequest({ message: `'${payment}' is not a payment id (pay_…)` })
        const fils = Option.getOrUndefined(amount)
        if (fils !== undefined && !/^\d{1,15}$/.test(fils)) {
          return yield* new InvalidRequest({ message: `--amount must be a whole number of fils, not '${fils}'` })
        }
        const why = yield* refundWhy(Option.getOrUndefined(reason), Option.getOrUndefined(note))
        const result = yield* (yield* Payments).refund(operator, id, fils === undefined ? undefined : Number(fils), undefined, why)
        // The payment as refund.succeeded carries it, and the refund: `pending` when the processor's answer was
        // lost and a lookup could not tell yet (the lookup pass of a running server ends it).
        yield* printResult({
          ...paymentData(result.payment, result.refundAmount),
          refund: {
            refund_id: result.refund.refund_id,
            status: result.refund.status,
            amount: result.refund.amount,
            reason: result.refund.reason,
            note: result.refund.note
          }
        })
        if (result.refund.status === "pending") {
          yield* Console.error(
            `The processor's answer about refund ${result.refund.refund_id} was lost: it is pending, and a running ` +
              "server looks it up until the processor says what became of it."
          )
        }
      }).pipe(Effect.provide(EngineSql))
    )
).pipe(Command.withDescription(
  "Refund a payment, wholly or in part, through the processor; emits refund.succeeded once the processor confirms"
))

const refunds = Command.make("refunds").pipe(
  Command.withSubcommands([refundsCreate]),
  Command.withDescription("Operational refunds (there is no public refund endpoint)")
)

// users ------------------------------------------------------------------------------------------------------------

const usersCreate = Command.make(
  "create",
  {
    account: accountOption,
    email: Options.text("email").pipe(Options.withDescription("The user's e-mail: how they sign in")),
    role: Options.choice("role", roles).pipe(
      Options.withDefault("admin" as const),
      Options.withDescription("owner, admin, developer or viewer (default admin)")
    )
  },
  ({ account, email, role }) =>
    reportFailure(
      Effect.gen(function*() {
        const accountId = yield* accountIdOf(account)
        const { token, user } = yield* (yield* Users).create(accountId, email, role)
        yield* printSignInLink(user, token, DateTime.add(user.created_at, { millis: signInLinkMillis }))
      }).pipe(Effect.provide(EngineSql))
    )
).pipe(Command.withDescription("Add a dashboard user to an account; prints a one-time sign-in link (24 h)"))

/** A dashboard user and the one-time link that sets their password, as `users create` and `sign-in-link` print. */
const printSignInLink = (
  user: { readonly user_id: string; readonly account_id: string; readonly email: string; readonly role: string },
  token: Redacted.Redacted<string>,
  expiresAt: DateTime.Utc
) =>
  Effect.flatMap(Settings, ({ publicUrl }) =>
    printResult({
      user_id: user.user_id,
      account_id: user.account_id,
      email: user.email,
      role: user.role,
      sign_in_url: `${publicUrl}/dashboard/sign-in/${Redacted.value(token)}`,
      sign_in_url_expires_at: DateTime.formatIso(expiresAt)
    }))

const usersSignInLink = Command.make(
  "sign-in-link",
  {
    email: Options.text("email").pipe(Options.withDescription("The user's e-mail")),
    account: accountOption.pipe(
      Options.optional,
      Options.withDescription("The account (acct_…): needed for an invitation not accepted yet (no password set)")
    )
  },
  ({ account, email }) =>
    reportFailure(
      Effect.gen(function*() {
        const accountId = Option.isSome(account) ? yield* accountIdOf(account.value) : undefined
        const { expires_at, token, user } = yield* (yield* Users).signInLink(email, accountId)
        yield* printSignInLink(user, token, expires_at)
      }).pipe(Effect.provide(EngineSql))
    )
).pipe(Command.withDescription(
  "A new one-time link (24 h) where a dashboard user sets a new password; the old one works until then"
))

const users = Command.make("users").pipe(
  Command.withSubcommands([usersCreate, usersSignInLink]),
  Command.withDescription("Manage dashboard users")
)

// billing ----------------------------------------------------------------------------------------------------------

/**
 * An instant written in full ISO 8601 with an offset; `undefined` for anything else, including dates that do not
 * exist (30 February would otherwise roll over into March).
 */
const parseInstant = (text: string): number | undefined => {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/.exec(text)
  if (m === null) return undefined
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])]
  const calendar = new Date(Date.UTC(year, month - 1, day))
  if (calendar.getUTCFullYear() !== year || calendar.getUTCMonth() !== month - 1 || calendar.getUTCDate() !== day) {
    return undefined
  }
  if (Number(m[4]) > 23 || Number(m[5]) > 59 || Number(m[6] ?? 0) > 59) return undefined
  const millis = Date.parse(text)
  return Number.isNaN(millis) ? undefined : millis
}

/** An option's instant in milliseconds, or a `{ code, message }` refusal naming the option. */
const instantOption = (option: string, text: string) => {
  const millis = parseInstant(text)
  return millis === undefined
    ? Effect.fail(
      new InvalidRequest({ message: `${option} must be an ISO 8601 date-time with an offset, e.g. 2027-01-31T09:00:00Z` })
    )
    : Effect.succeed(millis)
}

const billingRun = Command.make(
  "run",
  {
    at: Options.text("at").pipe(
      Options.optional,
      Options.withDescription("Process test-mode work due by this ISO time, as if it were now (live data is refused)")
    )
  },
  ({ at }) =>
    reportFailure(
      Effect.gen(function*() {
        const billing = yield* Billing
        if (Option.isNone(at)) return yield* printResult(yield* withProgress("Billing")(billing.runOnce()))
        const millis = yield* instantOption("--at", at.value)
        const report = yield* withProgress(`Billing as of ${new Date(millis).toISOString()}`)(billing.runOnce({ livemode: false, asOf: millis }))
        yield* printResult({ at: new Date(millis).toISOString(), livemode: false, ...report })
      }).pipe(Effect.provide(EngineSql))
    )
).pipe(
  Command.withDescription(
    "One pass of the background work: renewals and retries, period-end cancellations, session expiry, settlements"
  )
)

// reconcile ---------------------------------------------------------------------------------------------------------

const reconcileCommand = Command.make(
  "reconcile",
  {
    since: Options.text("since").pipe(
      Options.optional,
      Options.withDescription("Compare only what moved and was recorded at or after this ISO time (default: everything)")
    )
  },
  ({ since }) =>
    reportFailure(
      Effect.gen(function*() {
        const millis = Option.isNone(since) ? 0 : yield* instantOption("--since", since.value)
        const report = yield* withProgress("Reconciling with the processor")((yield* Reconciliation).run(DateTime.unsafeMake(millis)))
        yield* printResult(report)
        if (!report.ok) {
          yield* Effect.sync(() => {
            process.exitCode = 2
          })
        }
      }).pipe(Effect.provide(EngineSql))
    )
).pipe(
  Command.withDescription(
    "Compare what the processor moved with what Fils recorded (read-only); exit 2 on any mismatch"
  )
)

const billing = Command.make("billing").pipe(
  Command.withSubcommands([billingRun]),
  Command.withDescription("Run background billing work on demand")
)

// deliveries -------------------------------------------------------------------------------------------------------

const deliveryJson = (d: {
  readonly delivery_id: string
  readonly event_id: string
  readonly webhook_id: string
  readonly livemode: boolean
  readonly status: string
  readonly attempts: number
  readonly next_attempt_at: DateTime.Utc | null
  readonly last_status_code: number | null
  readonly last_error: string | null
  readonly created_at: DateTime.Utc
}) => ({
  delivery_id: d.delivery_id,
  event_id: d.event_id,
  webhook_id: d.webhook_id,
  livemode: d.livemode,
  status: d.status,
  attempts: d.attempts,
  next_attempt_at: d.next_attempt_at === null ? null : DateTime.formatIso(d.next_attempt_at),
  last_status_code: d.last_status_code,
  last_error: d.last_error,
  created_at: DateTime.formatIso(d.created_at)
})

const deliveriesList = Command.make(
  "list",
  {
    event: Options.text("event").pipe(Options.optional),
    webhook: Options.text("webhook").pipe(Options.optional),
    status: Options.choice("status", ["pending", "succeeded", "failed", "cancelled"]).pipe(Options.optional),
    limit: integerWithin("limit", { min: 1, max: 1000 }, "How many, newest first").pipe(Options.withDefault(100))
  },
  ({ event, limit, status, webhook }) =>
    reportFailure(
      Effect.gen(function*() {
        const found = yield* (yield* Deliveries).list({
          event_id: Option.getOrUndefined(event) as never,
          webhook_id: Option.getOrUndefined(webhook) as never,
          status: Option.getOrUndefined(status)
        }, limit)
        yield* printResult(found.map(deliveryJson))
      }).pipe(Effect.provide(EngineSql))
    )
).pipe(Command.withDescription("List webhook deliveries, newest first (filters: --event, --webhook, --status)"))

const deliveriesRetry = Command.make("retry", { delivery: Args.text({ name: "DELIVERY_ID" }) }, ({ delivery }) =>
  reportFailure(
    Effect.gen(function*() {
      yield* printResult(deliveryJson(yield* (yield* Deliveries).retry(operator, delivery)))
    }).pipe(Effect.provide(EngineSql))
  )).pipe(Command.withDescription("Redeliver now (also after success); a running server sends it at once"))

const deliveries = Command.make("deliveries").pipe(
  Command.withSubcommands([deliveriesList, deliveriesRetry]),
  Command.withDescription("Inspect and redeliver webhook deliveries")
)

// einvoices -------------------------------------------------------------------------------------------------------

const einvoiceJson = (t: Listed) => ({
  document_id: t.document_id,
  kind: t.kind,
  number: t.number,
  account_id: t.account_id,
  livemode: t.livemode,
  status: t.status,
  attempts: t.attempts,
  next_attempt_at: t.next_attempt_at === null ? null : DateTime.formatIso(t.next_attempt_at),
  reference: t.reference,
  errors: t.errors,
  last_error: t.last_error,
  waiting: t.waiting,
  created_at: DateTime.formatIso(t.created_at),
  updated_at: DateTime.formatIso(t.updated_at)
})

const einvoicesList = Command.make(
  "list",
  {
    status: Options.choice("status", ["pending", "accepted", "rejected"]).pipe(Options.optional),
    account: Options.text("account").pipe(Options.optional, Options.withDescription("Account id (acct_…)")),
    mode: Options.choice("mode", ["test", "live"]).pipe(Options.optional),
    limit: integerWithin("limit", { min: 1, max: 1000 }, "How many, newest first").pipe(Options.withDefault(100))
  },
  ({ account, limit, mode, status }) =>
    reportFailure(
      Effect.gen(function*() {
        const accountId = Option.isSome(account) ? yield* accountIdOf(account.value) : undefined
        const found = yield* (yield* EInvoices).list(operator, {
          account_id: accountId,
          livemode: Option.getOrUndefined(Option.map(mode, (m) => m === "live")),
          status: Option.getOrUndefined(status)
        }, limit)
        yield* printResult(found.map(einvoiceJson))
      }).pipe(Effect.provide(EngineSql))
    )
).pipe(Command.withDescription(
  "List e-invoice transmissions to the ASP, newest first (filters: --status, --account, --mode)"
))

const einvoicesResend = Command.make("resend", { document: Args.text({ name: "DOCUMENT_ID" }) }, ({ document }) =>
  reportFailure(
    Effect.gen(function*() {
      yield* printResult(einvoiceJson(yield* (yield* EInvoices).resend(operator, document)))
    }).pipe(Effect.provide(EngineSql))
  )).pipe(Command.withDescription(
    "Send a rejected e-invoice again, with the account's current tax profile and the customer's current business " +
      "details (the document itself never changes); a running server sends it at once"
  ))

const einvoices = Command.make("einvoices").pipe(
  Command.withSubcommands([einvoicesList, einvoicesResend]),
  Command.withDescription("Inspect e-invoice transmissions and send rejected ones again")
)

export const fils = Command.make("fils").pipe(
  Command.withSubcommands([
    serve,
    config,
    migrate,
    accounts,
    keys,
    users,
    refunds,
    billing,
    deliveries,
    einvoices,
    checkCommand,
    reconcileCommand,
    secretsCommand,
    logsCommand,
    ...devLoopCommands,
    clocksCommand
  ]),
  Command.withDescription("Fils: payments for merchants who sell in AED")
)
