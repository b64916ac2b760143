/**
 * A local webhook loop for developers, through the public API only, in test mode only:
 *
 * - `fils listen --forward-to URL`: follows a Fils server's events (`GET /events`) and POSTs each new one to a local
 *   URL exactly as a delivery is sent (Standard Webhooks headers, the delivery body), signed with a `whsec_` secret
 *   it prints at start (kept per account on this machine, or `--secret`), retried when it fails, never redirected.
 *   The server never reaches the developer's machine and no endpoint is registered.
 * - `fils trigger TYPE`: causes that event for real, through the API and the hosted checkout form, with test cards;
 *   a refund (`refund.succeeded`, `credit_note.issued`) is an operator's act, made on the server's database as
 *   `fils refunds create` makes it.
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Config, Console, DateTime, Duration, Effect, Option, ParseResult, Redacted, Schedule } from "effect"
import { deliveryBody, EventType, type EventResource } from "../../src/domain/Event.js"
import * as WebhookHealth from "../../src/domain/WebhookHealth.js"
import { InvalidRequest } from "../../src/domain/Errors.js"
import { operator } from "../../src/domain/Account.js"
import type { PaymentId } from "../../src/domain/Ids.js"
import { Payments } from "../../src/application/Payments.js"
import { secretProblem, sign } from "../crypto/StandardWebhooks.js"
import { cards } from "../processor/SimulatedProcessor.js"
import { FilsClient } from "../http/index.js"
import { LocalUrlConfig, orWhenMissing } from "../runtime/Settings.js"
import { listenHeader } from "../http/RequestLog.js"
import { describeDecodeError } from "../http/SchemaIssues.js"
import { keptSecret } from "./listenSecrets.js"
import { EngineSql } from "./runtime.js"
import { integerWithin } from "./options.js"
import { printResult, reportFailure } from "./output.js"

type ApiEvent = typeof EventResource.Type

const eventTypes = EventType.literals

export const api = Options.text("api").pipe(
  Options.withFallbackConfig(Config.string("FILS_API_URL").pipe(orWhenMissing(LocalUrlConfig))),
  Options.withDescription("The Fils server's URL (FILS_API_URL; default http://FILS_HOST:FILS_PORT, as fils serve listens)")
)
export const key = Options.redacted("key").pipe(
  Options.withFallbackConfig(Config.redacted("FILS_API_KEY")),
  Options.withDescription("A test-mode secret key, sk_test_… (FILS_API_KEY)")
)

/**
 * A refusal keeps its `{ code, message }`; a request the client's schema refuses before sending it (a value given with
 * `--override`) is `INVALID_REQUEST` in the API's words; a server that cannot be reached (or answers nonsense) is
 * `UNAVAILABLE`.
 */
const refusal = (root: string) => (error: unknown): { readonly code: string; readonly message: string } =>
  ParseResult.isParseError(error)
    ? { code: "INVALID_REQUEST", message: describeDecodeError({ issues: ParseResult.ArrayFormatter.formatErrorSync(error) }) }
    : typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"
    ? { code: error.code, message: String((error as { message?: unknown }).message) }
    : { code: "UNAVAILABLE", message: `${root}: ${error instanceof Error ? error.message : String(error)}` }

/** The typed API client (`fils/http`'s) for `base` and a test key; other keys are refused before any request. */
export const apiClient = (base: string, secret: Redacted.Redacted, headers: Readonly<Record<string, string>> = {}) =>
  Effect.gen(function*() {
    if (!Redacted.value(secret).startsWith("sk_test_")) {
      return yield* new InvalidRequest({ message: "This works in test mode only: use a test key (sk_test_…)" })
    }
    const root = base.replace(/\/+$/, "")
    const client = yield* FilsClient.makeFetch({
      baseUrl: root,
      apiKey: secret,
      transformClient: HttpClient.mapRequest(HttpClientRequest.setHeaders(headers))
    })
    return { client, root, reach: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.mapError(effect, refusal(root)) }
  })

// listen -------------------------------------------------------------------------------------------------------------

/**
 * How far below the previous look each look reaches, in wall-clock time: an event is committed a little after its
 * `created_at` (a slow transaction), and the server's clock may differ from this machine's.
 */
const lookBackMillis = 60_000

/** A forward that failed is tried again after these pauses (as a delivery is, on a developer's time scale). */
const retryPausesSeconds = [1, 2, 4, 8, 16] as const

const millisOf = (e: ApiEvent) => DateTime.toEpochMillis(e.created_at)

const listen = Command.make("listen", {
  forwardTo: Options.text("forward-to").pipe(
    Options.optional,
    Options.withDescription("The local URL each event is POSTed to (without it, --print-json only prints them)")
  ),
  printJson: Options.boolean("print-json").pipe(
    Options.withDescription("Print each event's JSON (the delivery body) as it arrives")
  ),
  api,
  key,
  events: Options.text("events").pipe(
    Options.optional,
    Options.withDescription(`Only these types, comma-separated (${eventTypes.join(", ")})`)
  ),
  secret: Options.redacted("secret").pipe(
    Options.optional,
    Options.withDescription(
      "The whsec_ secret to sign with (default: the one kept for the account on this machine, made on first use)"
    )
  ),
  interval: integerWithin("interval-ms", { min: 100, max: 3_600_000 }, "How often to look for new events").pipe(Options.withDefault(1000))
}, (options) =>
  reportFailure(Effect.gen(function*() {
    if (Option.isNone(options.forwardTo) && !options.printJson) {
      return yield* new InvalidRequest({ message: "Give --forward-to URL, --print-json, or both" })
    }
    const target = Option.isNone(options.forwardTo) ? undefined : yield* Effect.try({
      try: () => new URL(options.forwardTo.pipe(Option.getOrThrow)),
      catch: () => new InvalidRequest({ message: `--forward-to must be an absolute http(s) URL: '${Option.getOrThrow(options.forwardTo)}'` })
    })
    if (target !== undefined && target.protocol !== "http:" && target.protocol !== "https:") {
      return yield* new InvalidRequest({ message: `--forward-to must be an absolute http(s) URL: '${target.href}'` })
    }
    const types = Option.map(options.events, (text) => text.split(",").map((t) => t.trim()).filter((t) => t !== ""))
    // `--events ""` (or ",") would otherwise filter out every event: nothing would ever print.
    if (Option.exists(types, (ts) => ts.length === 0)) return yield* new InvalidRequest({ message: "--events names no event type: give one or more, separated by commas" })
    const unknown = Option.getOrElse(types, () => []).filter((t) => !(eventTypes as ReadonlyArray<string>).includes(t))
    if (unknown.length > 0) return yield* new InvalidRequest({ message: `Unknown event types: ${unknown.join(", ")}; choose from ${eventTypes.join(", ")}` })
    const wanted = (type: string) => Option.match(types, { onNone: () => true, onSome: (ts) => ts.includes(type) })
    if (Option.isSome(options.secret)) {
      const problem = secretProblem(Redacted.value(options.secret.value))
      if (problem !== undefined) return yield* new InvalidRequest({ message: `--secret ${problem}` })
    }
    // Its polls of the event list say they are `fils listen`'s, and stay out of the request logs.
    const { client, reach, root } = yield* apiClient(options.api, options.key, { [listenHeader.name]: listenHeader.value })
    const account = yield* reach(client.account.get())
    if (account.livemode) return yield* new InvalidRequest({ message: "This works in test mode only" })
    const signing = Option.isSome(options.secret)
      ? { secret: Redacted.value(options.secret.value), note: "(from --secret)" }
      : yield* Effect.map(keptSecret(account.account_id), (kept) => ({
        secret: kept.secret,
        note: `(${kept.made ? "made for" : "kept for"} ${account.account_id} in ${kept.file}; the same on every start)`
      }))
    const secret = signing.secret

    // Progress is the set of events seen, not a time: `fils billing run --at` writes events dated in the future,
    // which stay at the top of the newest-first list, and events of today keep arriving below them. Each look
    // walks the list from the top down to a floor in wall-clock time (the previous look's start less the
    // look-back) and takes the events it has not seen. Events dated before the floor when they are written (a
    // `billing run --at` in the past) are not forwarded.
    const seen = new Map<string, number>()
    /** Events not seen yet from the top of the list down to `floor`, oldest first. */
    const unseen = (floor: number) =>
      Effect.gen(function*() {
        const found: Array<ApiEvent> = []
        let cursor: string | undefined
        while (true) {
          const list = yield* reach(client.events.list({ urlParams: { limit: 100, ...(cursor === undefined ? {} : { cursor }) } }))
          const below = list.items.findIndex((e) => millisOf(e) < floor)
          found.push(...list.items.slice(0, below === -1 ? undefined : below).filter((e) => !seen.has(e.event_id)))
          if (below !== -1 || list.next_cursor === null) break
          cursor = list.next_cursor
        }
        return found.reverse()
      })
    /** The start of the last look that succeeded: the next one reaches back from there. */
    let lastLook = Date.now()
    const look = <A>(each: (e: ApiEvent) => Effect.Effect<A>) =>
      Effect.gen(function*() {
        const started = Date.now()
        const floor = lastLook - lookBackMillis
        for (const e of yield* unseen(floor)) {
          seen.set(e.event_id, millisOf(e))
          yield* each(e)
        }
        lastLook = started
        // What is older than the next floor is never walked again.
        for (const [id, at] of seen) if (at < lastLook - lookBackMillis) seen.delete(id)
      })
    // Only what happens from now on is forwarded.
    yield* look(() => Effect.void)
    const only = Option.isSome(types) ? ` (${types.value.join(", ")})` : ""
    yield* Console.log([
      target === undefined
        ? `Ready: printing test events from ${root}${only}.`
        : `Ready: forwarding test events from ${root} to ${target.href}${only}.`,
      `Webhook signing secret: ${secret} ${signing.note}`,
      "(Ctrl-C to stop)"
    ].join("\n"))

    /** One POST of `event` to `target`, signed now; `ok` only for a 2xx (a redirect is not followed: it is a failure). */
    const attempt = (target: URL) => (event: ApiEvent) =>
      Effect.gen(function*() {
        const body = JSON.stringify(deliveryBody(event))
        const timestamp = Math.floor(Date.now() / 1000)
        const started = Date.now()
        const outcome = yield* Effect.promise(() =>
          fetch(target, {
            method: "POST",
            redirect: "manual",
            headers: {
              "content-type": "application/json",
              "user-agent": "Fils-Webhooks/1.0 (fils listen)",
              "webhook-id": event.event_id,
              "webhook-timestamp": String(timestamp),
              "webhook-signature": sign({ secret, id: event.event_id, timestamp, body })
            },
            body,
            signal: AbortSignal.timeout(10_000)
          }).then(async (res) => {
            await res.arrayBuffer().catch(() => undefined)
            return { ok: res.status >= 200 && res.status < 300, text: String(res.status) }
          }, (error: Error) => ({ ok: false, text: `failed (${error.name === "TimeoutError" ? "timed out" : error.message})` }))
        )
        return { ...outcome, line: `${new Date().toISOString()}  ${event.type}  ${event.event_id}  → ${outcome.text} (${Date.now() - started} ms)` }
      })

    /** Tries again after each pause until a 2xx, in the background: later events are not held up. */
    const retry = (target: URL) => (event: ApiEvent) =>
      Effect.gen(function*() {
        for (const [i, pause] of retryPausesSeconds.entries()) {
          yield* Effect.sleep(Duration.seconds(pause))
          const tried = yield* attempt(target)(event)
          const next = retryPausesSeconds[i + 1]
          const retries = `retry ${i + 1} of ${retryPausesSeconds.length}`
          yield* Console.log(`${tried.line}  ${retries}${tried.ok ? "" : next === undefined ? "; given up" : `; again in ${next} s`}`)
          if (tried.ok) return
        }
      })

    /** Prints the event's JSON (with --print-json), then forwards it and prints the receiver's answer (with a URL). */
    const forward = (event: ApiEvent) =>
      Effect.gen(function*() {
        if (options.printJson) yield* Console.log(JSON.stringify(deliveryBody(event), null, 2))
        if (target === undefined) return yield* Console.log(`${new Date().toISOString()}  ${event.type}  ${event.event_id}`)
        const tried = yield* attempt(target)(event)
        yield* Console.log(`${tried.line}${tried.ok ? "" : `; again in ${retryPausesSeconds[0]} s`}`)
        if (!tried.ok) yield* Effect.fork(retry(target)(event))
      })

    const poll = look((e) => (wanted(e.type) ? forward(e) : Effect.void)).pipe(
      Effect.catchAll((e) => Console.error(`Could not read events: ${(e as { message?: string }).message ?? String(e)}`))
    )
    return yield* Effect.repeat(poll, Schedule.spaced(Duration.millis(options.interval)))
  }))).pipe(Command.withDescription(
    "Forward a server's new test events to a local URL as signed webhook deliveries (no endpoint registered)"
  ))

// trigger ------------------------------------------------------------------------------------------------------------

/** The one type no trigger can cause at once, and what does. */
const elsewhere: Partial<Record<string, string>> = {
  "webhook.disabled": `only an endpoint whose ${WebhookHealth.ruleText("has")} causes it, which takes that long; \`POST /webhooks/{id}/test\` sends a signed example to an endpoint that names it`
}

/** Types a refund of the payment causes: made on the server's database (`fils refunds create`'s way). */
const byRefund: ReadonlySet<string> = new Set(["refund.succeeded", "credit_note.issued"])

/** Types only a VAT-registered account's payments cause (a tax invoice, then its credit note). */
const taxed: ReadonlySet<string> = new Set(["invoice.issued", "credit_note.issued"])

const noTaxProfile = "the account is not VAT-registered: set its tax profile (`fils accounts tax-profile set ACCOUNT_ID …`, docs/tax-documents.md) and trigger it again"

/**
 * Refunds the payment wholly, as `fils refunds create` does: through the engine on this machine's database, which
 * must be the server's (`DATABASE_URL`, or the embedded one in `FILS_DATA_DIR`).
 */
const refundOnServerDatabase = (paymentId: PaymentId) =>
  Effect.gen(function*() {
    const payments = yield* Payments
    // The reason a customer's own request gives: what the credit note states (Art. 60's brief reason).
    return yield* payments.refund(operator, paymentId, undefined, undefined, { reason: "requested_by_customer", note: "fils trigger" })
  }).pipe(
    Effect.catchTag("NotFound", () =>
      new InvalidRequest({
        message: `The payment ${paymentId} is not in this machine's database: a refund is an operator's act, so run ` +
          "fils trigger where the server's DATABASE_URL (or FILS_DATA_DIR) is set"
      })),
    Effect.provide(EngineSql)
  )

/** A card as the dashboard and the portal show one (`•••• 4242`): never the whole number, in any message. */
const cardEnding = (card: string) => `•••• ${card.replace(/\D/g, "").slice(-4)}`

/** Types caused by time passing: the subscription is made on a test clock, which is then advanced to its renewal. */
const onClock: ReadonlySet<string> = new Set(["subscription.renewed", "subscription.on_hold", "subscription.plan_changed"])

/** What `--override field=value` may set on what the trigger creates, and whether the value is a whole number. */
const overridable = {
  "product.name": "text",
  "product.description": "text",
  "product.price": "integer",
  "product.billing_interval": "text",
  "product.interval_count": "integer",
  "customer.email": "text",
  "customer.name": "text",
  "customer.phone_number": "text"
} as const
type Overridable = keyof typeof overridable

/**
 * `--override product.price=2500 --override customer.email=me@example.com`: the fields to set on the product and the
 * customer the trigger creates. An unknown field, one given twice, or a malformed value is refused; a value the API
 * refuses is refused with the API's message.
 */
const parseOverrides = (given: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const product: Record<string, string | number> = {}
    const customer: Record<string, string> = {}
    const seen = new Set<string>()
    for (const text of given) {
      const eq = text.indexOf("=")
      const field = eq === -1 ? text : text.slice(0, eq)
      if (eq === -1) return yield* new InvalidRequest({ message: `--override takes field=value, not '${text}'` })
      if (!Object.hasOwn(overridable, field)) {
        return yield* new InvalidRequest({
          message: `--override: unknown field '${field}'; choose from ${Object.keys(overridable).join(", ")}`
        })
      }
      if (seen.has(field)) return yield* new InvalidRequest({ message: `--override: ${field} is given twice` })
      seen.add(field)
      const value = text.slice(eq + 1)
      const [target, name] = field.split(".") as ["product" | "customer", string]
      if (overridable[field as Overridable] === "integer") {
        if (!/^[0-9]{1,15}$/.test(value)) {
          return yield* new InvalidRequest({ message: `--override: ${field} must be a whole number, not '${value}'` })
        }
        product[name] = Number(value)
      } else if (target === "product") product[name] = value
      else customer[name] = value
    }
    return { product, customer }
  })

const trigger = Command.make("trigger", {
  type: Args.text({ name: "TYPE" }).pipe(Args.withDescription(eventTypes.join(", "))),
  api,
  key,
  card: Options.text("card").pipe(Options.optional, Options.withDescription("The test card to pay with (default: one that gives the event)")),
  override: Options.text("override").pipe(
    Options.repeated,
    Options.withDescription(`Set a field of what is created, field=value (repeatable): ${Object.keys(overridable).join(", ")}`)
  )
}, (options) =>
  reportFailure(Effect.gen(function*() {
    if (!(eventTypes as ReadonlyArray<string>).includes(options.type)) {
      return yield* new InvalidRequest({ message: `Unknown event type '${options.type}'; choose from ${eventTypes.join(", ")}` })
    }
    const how = elsewhere[options.type]
    if (how !== undefined) return yield* new InvalidRequest({ message: `fils trigger cannot cause ${options.type} through the API: ${how}` })
    const overrides = yield* parseOverrides(options.override)
    const { client, reach } = yield* apiClient(options.api, options.key)
    const recurring = options.type.startsWith("subscription.")
    const card = Option.getOrElse(options.card, () =>
      options.type === "payment.failed" ? cards.declined : options.type === "subscription.on_hold" ? cards.declineLater : cards.visa)
    // Time passes on a clock of its own: a month goes by in one request, and nothing else of the account moves.
    const clock = onClock.has(options.type)
      ? yield* reach(client.testClocks.create({ headers: {}, payload: { frozen_time: yield* DateTime.now, name: `fils trigger ${options.type}` } }))
      : undefined
    const customer = yield* reach(client.customers.create({
      headers: {},
      payload: {
        email: "trigger@example.com",
        name: "Fils Trigger",
        ...overrides.customer,
        ...(clock === undefined ? {} : { test_clock_id: clock.test_clock_id })
      }
    }))
    const plan = { name: "fils trigger: monthly", price: 1000, currency: "AED", billing: "recurring", billing_interval: "month" } as const
    const product = yield* reach(client.products.create({
      headers: {},
      payload: { ...(recurring ? plan : { name: "fils trigger: one-time", price: 1000, currency: "AED" }), ...overrides.product }
    }))
    const session = yield* reach(client.checkoutSessions.create({
      headers: {},
      payload: { product_cart: [{ product_id: product.product_id }], customer: { customer_id: customer.customer_id } }
    }))
    // The hosted form, as a browser without JavaScript posts it.
    const status = yield* Effect.tryPromise({
      try: async () => {
        const page = await (await fetch(session.checkout_url)).text()
        const token = /name="form_token" value="([^"]*)"/.exec(page)?.[1] ?? ""
        const res = await fetch(session.checkout_url, {
          method: "POST",
          redirect: "manual",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({
            name: customer.name ?? "Fils Trigger",
            email: customer.email,
            card_number: card,
            exp_month: "12",
            exp_year: String(new Date().getUTCFullYear() + 5),
            cvc: "123",
            form_token: token
          }).toString()
        })
        await res.arrayBuffer()
        return res.status
      },
      catch: (e) => ({ code: "UNAVAILABLE", message: `the hosted checkout page: ${(e as Error).message}` })
    })
    const paid = yield* reach(client.checkoutSessions.get({ path: { id: session.session_id } }))
    if (recurring && options.type !== "subscription.active") {
      if (paid.subscription_id === null) return yield* new InvalidRequest({ message: `The card ${cardEnding(card)} did not start a subscription (the form answered ${status})` })
      const id = paid.subscription_id
      if (options.type === "subscription.cancelled") {
        yield* reach(client.subscriptions.update({ path: { id }, payload: { status: "cancelled" } }))
      }
      if (options.type === "subscription.plan_changed") {
        // Scheduled for the next billing date: the renewal the clock reaches applies it.
        const next = yield* reach(client.products.create({
          headers: {},
          payload: { ...plan, name: "fils trigger: monthly (new plan)", price: product.price + 1000 }
        }))
        yield* reach(client.subscriptions.changePlan({
          path: { id },
          headers: {},
          payload: { product_id: next.product_id, quantity: 1, proration_billing_mode: "full_immediately", effective_at: "next_billing_date" }
        }))
      }
      if (clock !== undefined) {
        const subscription = yield* reach(client.subscriptions.get({ path: { id } }))
        yield* reach(client.testClocks.advance({
          path: { id: clock.test_clock_id },
          headers: {},
          payload: { frozen_time: subscription.next_billing_date }
        }))
      }
    }
    const ofThisPayment = (type: EventType) =>
      Effect.map(reach(client.events.list({ urlParams: { type, limit: 20 } })), ({ items }) =>
        items.find((e) =>
          e.data.checkout_session_id === session.session_id ||
          (paid.payment_id !== null && e.data.payment_id === paid.payment_id) ||
          (paid.subscription_id !== null && e.data.subscription_id === paid.subscription_id)))
    if (taxed.has(options.type) && (yield* ofThisPayment("invoice.issued")) === undefined) {
      return yield* new InvalidRequest({ message: `No invoice came of the payment: ${noTaxProfile}` })
    }
    if (byRefund.has(options.type)) {
      if (paid.payment_id === null) return yield* new InvalidRequest({ message: `The card ${cardEnding(card)} made no payment to refund (the form answered ${status})` })
      yield* refundOnServerDatabase(paid.payment_id)
    }
    const ours = yield* ofThisPayment(options.type as EventType)
    if (ours === undefined) {
      return yield* new InvalidRequest({ message: `No ${options.type} came of it (the card ${cardEnding(card)}; the form answered ${status})` })
    }
    yield* printResult({
      type: options.type,
      event_id: ours.event_id,
      product_id: product.product_id,
      customer_id: customer.customer_id,
      session_id: session.session_id,
      // A declined try leaves the session open, without a payment_id: the failed payment is the event's.
      payment_id: paid.payment_id ?? (typeof ours.data.payment_id === "string" ? ours.data.payment_id : null),
      subscription_id: paid.subscription_id,
      test_clock_id: clock?.test_clock_id ?? null
    })
  }))).pipe(Command.withDescription(
    "Cause a test event for real, through the API and the hosted form, with test cards (renewals on a test clock; refunds on the server's database)"
  ))

export const devLoopCommands = [listen, trigger] as const
