/** The operator commands: serve, migrate, accounts, keys. */
import { Args, Command, Options } from "@effect/cli"
import { Config, Console, Effect, Layer, Option } from "effect"
import { Accounts } from "../../src/application/Accounts.js"
import { Billing } from "../../src/application/Billing.js"
import { paymentData } from "../../src/application/Events.js"
import { Payments } from "../../src/application/Payments.js"
import { AccountId, ApiKeyId, parseId, PaymentId } from "../../src/domain/Ids.js"
import { InvalidRequest } from "../../src/domain/Errors.js"
import { ServerLive } from "../http/Server.js"
import { EngineSql, MigrationsOnly } from "./runtime.js"
import { printJson, reportFailure } from "./output.js"

const accountIdOf = (raw: string) => {
  const id = parseId(AccountId)(raw)
  return id === undefined
    ? Effect.fail(new InvalidRequest({ message: `'${raw}' is not an account id (acct_…)` }))
    : Effect.succeed(id)
}

// serve ------------------------------------------------------------------------------------------------------------

const port = Options.integer("port").pipe(
  Options.withFallbackConfig(Config.integer("FILS_PORT")),
  Options.withDefault(4242),
  Options.withDescription("TCP port (FILS_PORT)")
)
const host = Options.text("host").pipe(
  Options.withFallbackConfig(Config.string("FILS_HOST")),
  Options.withDefault("127.0.0.1"),
  Options.withDescription("Interface to listen on (FILS_HOST)")
)

const announce = (options: { readonly port: number; readonly host: string }) =>
  Effect.gen(function*() {
    const publicUrl = yield* Config.string("FILS_PUBLIC_URL").pipe(
      Config.withDefault(`http://${options.host === "0.0.0.0" ? "127.0.0.1" : options.host}:${options.port}`)
    )
    const created = yield* (yield* Accounts).ensureDefault()
    const lines = [
      "Fils is running.",
      `  API          ${publicUrl}/api/v1`,
      `  Reference    ${publicUrl}/docs`,
      `  OpenAPI      ${publicUrl}/api/v1/openapi.json`,
      `  Health       ${publicUrl}/health  ${publicUrl}/ready`
    ]
    if (Option.isSome(created)) {
      const { account, keys } = created.value
      lines.push(
        "",
        `Created the default account ${account.account_id} on this empty store.`,
        `  Test key     ${keys.test.secret}`,
        "  (shown once: keep it; `fils keys create --account <id> --mode test` makes another)",
        "",
        `  curl -H "Authorization: Bearer ${keys.test.secret}" ${publicUrl}/api/v1/account`
      )
    }
    yield* Console.log(lines.join("\n"))
  })

/** The background workers of one server: they stop with it (SIGTERM interrupts them between passes). */
const Workers = Layer.scopedDiscard(Effect.flatMap(Billing, (billing) => Effect.forkScoped(billing.worker)))

const serve = Command.make("serve", { port, host }, (options) =>
  Layer.launch(
    Layer.mergeAll(ServerLive(options), Workers, Layer.effectDiscard(announce(options))).pipe(
      Layer.provide(EngineSql)
    )
  )).pipe(Command.withDescription("Run the HTTP server and background workers"))

// migrate ----------------------------------------------------------------------------------------------------------

const migrate = Command.make("migrate", {}, () =>
  reportFailure(Effect.provide(printJson({ migrated: true }), MigrationsOnly))).pipe(
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
      yield* printJson({ ...accountJson(account), keys })
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
        yield* printJson(accountJson(updated))
      }).pipe(Effect.provide(EngineSql))
    )
).pipe(Command.withDescription("Change an account's name, support e-mail or live payments"))

const accounts = Command.make("accounts").pipe(
  Command.withSubcommands([accountsCreate, accountsUpdate]),
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
        yield* printJson(yield* (yield* Accounts).createKey(id, mode))
      }).pipe(Effect.provide(EngineSql))
    )
).pipe(Command.withDescription("Issue a new API key (the secret is printed once)"))

const keysRevoke = Command.make("revoke", { key: Args.text({ name: "KEY_ID" }) }, ({ key }) =>
  reportFailure(
    Effect.gen(function*() {
      const id = parseId(ApiKeyId)(key)
      if (id === undefined) return yield* new InvalidRequest({ message: `'${key}' is not a key id (key_…)` })
      const revoked = yield* (yield* Accounts).revokeKey(id)
      yield* printJson({
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

const refundsCreate = Command.make(
  "create",
  {
    payment: Args.text({ name: "PAYMENT_ID" }),
    amount: Options.integer("amount").pipe(
      Options.optional,
      Options.withDescription("Fils to refund (default: all that remains)")
    )
  },
  ({ amount, payment }) =>
    reportFailure(
      Effect.gen(function*() {
        const id = parseId(PaymentId)(payment)
        if (id === undefined) return yield* new InvalidRequest({ message: `'${payment}' is not a payment id (pay_…)` })
        const result = yield* (yield* Payments).refund(id, Option.getOrUndefined(amount))
        yield* printJson(paymentData(result.payment, result.refundAmount))
      }).pipe(Effect.provide(EngineSql))
    )
).pipe(Command.withDescription("Refund a payment, wholly or in part; emits refund.succeeded"))

const refunds = Command.make("refunds").pipe(
  Command.withSubcommands([refundsCreate]),
  Command.withDescription("Operational refunds (there is no public refund endpoint)")
)

// billing ----------------------------------------------------------------------------------------------------------

const billingRun = Command.make("run", {}, () =>
  reportFailure(
    Effect.gen(function*() {
      yield* printJson(yield* (yield* Billing).runOnce())
    }).pipe(Effect.provide(EngineSql))
  )).pipe(Command.withDescription("One pass of the background work: expire sessions, settle processing charges"))

const billing = Command.make("billing").pipe(
  Command.withSubcommands([billingRun]),
  Command.withDescription("Run background billing work on demand")
)

export const fils = Command.make("fils").pipe(
  Command.withSubcommands([serve, migrate, accounts, keys, refunds, billing]),
  Command.withDescription("Fils: payments for merchants who sell in AED")
)
