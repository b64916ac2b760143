/**
 * Webhook deliveries (docs/webhooks.md "Deliveries", docs/decisions.md §7) over the memory store, on the TestClock, with a
 * fake WebhookTransport that records every request and answers as the test says.
 */
import { EInvoiceAdapters } from "../../adapters/einvoice/ProviderConfig.js"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, DateTime, Duration, Effect, Either, FastCheck, Fiber, Layer, Option, Redacted, TestClock } from "effect"
import { StoreMemory } from "../../adapters/memory/StoreMemory.js"
import { SignerNode } from "../../adapters/crypto/SignerNode.js"
import { verify } from "../../adapters/crypto/StandardWebhooks.js"
import { SimulatedProcessor } from "../../adapters/processor/SimulatedProcessor.js"
import { Accounts } from "../../src/application/Accounts.js"
import { Deliveries } from "../../src/application/Deliveries.js"
import { Engine } from "../../src/application/Engine.js"
import { Events, paymentData } from "../../src/application/Events.js"
import { Webhooks } from "../../src/application/Webhooks.js"
import { operator, type Scope } from "../../src/domain/Account.js"
import type { AttemptOutcome } from "../../src/domain/Delivery.js"
import * as Delivery from "../../src/domain/Delivery.js"
import type { EventType } from "../../src/domain/Event.js"
import type { WebhookCreate } from "../../src/domain/WebhookEndpoint.js"
import { type DeliveryFilter, Store } from "../../src/ports/Store.js"
import { type HostCheck, type OutboundRequest, WebhookTransport } from "../../src/ports/WebhookTransport.js"
import { cards, formWith, makeSession, pay } from "../support/checkout.js"
import { newAccount } from "./harness.js"

// A fake transport -------------------------------------------------------------------------------------------------

const answered = (status: number): AttemptOutcome => ({
  ok: status >= 200 && status < 300,
  statusCode: status,
  error: null,
  durationMillis: 3
})
const unanswered = (error: string): AttemptOutcome => ({ ok: false, statusCode: null, error, durationMillis: 3 })

interface FakeTransport {
  readonly layer: Layer.Layer<WebhookTransport>
  /** Every request sent, oldest first. */
  readonly requests: Array<OutboundRequest>
  /** How the next requests are answered (default: 200). */
  readonly answerWith: (f: (request: OutboundRequest) => AttemptOutcome) => void
  /** How hosts resolve (default `allowed`; `"never"` never answers); every check asked, as `host live|test`. */
  readonly hosts: Map<string, HostCheck | "never">
  readonly checks: Array<string>
}

const makeFake = (): FakeTransport => {
  const requests: Array<OutboundRequest> = []
  const hosts = new Map<string, HostCheck | "never">()
  const checks: Array<string> = []
  let answer: (request: OutboundRequest) => AttemptOutcome = () => answered(200)
  return {
    requests,
    hosts,
    checks,
    answerWith: (f) => {
      answer = f
    },
    layer: Layer.succeed(
      WebhookTransport,
      WebhookTransport.of({
        send: (request) =>
          Effect.sync(() => {
            requests.push(request)
            return answer(request)
          }),
        checkHost: (host, livemode) =>
          Effect.suspend(() => {
            checks.push(`${host} ${livemode ? "live" : "test"}`)
            const found = hosts.get(host) ?? "allowed"
            return found === "never" ? Effect.never : Effect.succeed(found)
          })
      })
    )
  }
}

/** The engine on a fresh memory store, the node signer, the simulated processor and `fake` instead of HTTP. */
const withFake = <A, E, R>(
  f: (fake: FakeTransport) => Effect.Effect<A, E, R>,
  config: ReadonlyArray<readonly [string, string]> = []
) => {
  const fake = makeFake()
  const layer = Engine.pipe(
    Layer.provideMerge(Layer.mergeAll(StoreMemory, SignerNode, SimulatedProcessor, fake.layer, EInvoiceAdapters)),
    Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(config))))
  )
  return Effect.provide(f(fake), layer)
}

// Helpers ----------------------------------------------------------------------------------------------------------

/** A realistic start for the TestClock (it starts at 1970). */
const start = Date.UTC(2026, 10, 21, 10, 0, 0)

const endpoint = (scope: Scope, input: Partial<WebhookCreate> = {}) =>
  Effect.flatMap(Webhooks, (w) => w.create(scope, { url: "https://hooks.example.com/fils", ...input }))

/** Pays a new one-line session with `card`; the payment. */
const paid = (scope: Scope, card: string = cards.visa) =>
  Effect.gen(function*() {
    const session = yield* makeSession(scope)
    const result = yield* pay(session.session_id, formWith(card))
    if (result._tag !== "Paid") return assert.fail("expected a payment")
    return result.payment
  })

const eventsOf = (scope: Scope, type?: EventType) =>
  Effect.map(Effect.flatMap(Events, (e) => e.list(scope, { type, limit: 100 })), (l) => l.items)

const deliveriesOf = (filter: DeliveryFilter) => Effect.flatMap(Deliveries, (d) => d.list(filter))

const oneDelivery = (filter: DeliveryFilter) =>
  Effect.map(deliveriesOf(filter), (list) => {
    assert.strictEqual(list.length, 1, `one delivery for ${JSON.stringify(filter)}`)
    return list[0]!
  })

const dispatchOnce = Effect.flatMap(Deliveries, (d) => d.dispatchOnce())

const nowMillis = Effect.map(DateTime.now, DateTime.toEpochMillis)

const sorted = (xs: ReadonlyArray<string>) => [...xs].sort()

/** Verifies a request as a receiver would, at the request's own timestamp; returns the parsed body. */
const verified = (request: OutboundRequest, secret: Redacted.Redacted<string>): any =>
  verify({
    secret: Redacted.value(secret),
    headers: request.headers,
    body: request.body,
    now: Number(request.headers["webhook-timestamp"])
  })

// Tests ------------------------------------------------------------------------------------------------------------

describe("queueing", () => {
  it.effect("a paid checkout's payment.succeeded is queued for each subscribed enabled endpoint of its scope only", () =>
    withFake((fake) =>
      Effect.gen(function*() {
        yield* TestClock.setTime(start)
        const webhooks = yield* Webhooks
        const { live, test } = yield* newAccount
        const other = yield* newAccount

        const all = yield* endpoint(test, { url: "https://all.example.com/" })
        const exact = yield* endpoint(test, { url: "https://exact.example.com/", event_types: ["payment.succeeded"] })
        const otherTypes = yield* endpoint(test, {
          url: "https://other-types.example.com/",
          event_types: ["refund.succeeded", "payment.failed"]
        })
        const disabled = yield* endpoint(test, { url: "https://disabled.example.com/", disabled: true })
        const disabledLater = yield* endpoint(test, { url: "https://later.example.com/", event_types: ["payment.succeeded"] })
        yield* webhooks.update(test, disabledLater.webhook_id, { disabled: true })
        const liveMode = yield* endpoint(live, { url: "https://live.example.com/" })
        const otherAccount = yield* endpoint(other.test, { url: "https://other-account.example.com/" })

        const payment = yield* paid(test)
        const [event] = yield* eventsOf(test, "payment.succeeded")
        assert.strictEqual(event!.data.payment_id, payment.payment_id)

        const queued = yield* deliveriesOf({ event_id: event!.event_id })
        assert.deepStrictEqual(sorted(queued.map((d) => d.webhook_id)), sorted([all.webhook_id, exact.webhook_id]))
        for (const d of queued) {
          assert.strictEqual(d.status, "pending")
          assert.strictEqual(d.attempts, 0)
          assert.strictEqual(d.livemode, false)
          assert.strictEqual(d.account_id, test.accountId)
          assert.deepStrictEqual(d.next_attempt_at, event!.created_at, "due at once")
        }
        for (const nothing of [otherTypes, disabled, disabledLater, liveMode, otherAccount]) {
          assert.deepStrictEqual(yield* deliveriesOf({ webhook_id: nothing.webhook_id }), [], nothing.url)
        }

        assert.strictEqual(yield* dispatchOnce, 2)
        assert.deepStrictEqual(sorted(fake.requests.map((r) => r.url)), [all.url, exact.url])
        assert.strictEqual(yield* dispatchOnce, 0, "nothing left")
        assert.strictEqual(fake.requests.length, 2)
        for (const d of yield* deliveriesOf({ event_id: event!.event_id })) {
          assert.strictEqual(d.status, "succeeded")
          assert.strictEqual(d.attempts, 1)
          assert.strictEqual(d.last_status_code, 200)
          assert.isNull(d.next_attempt_at)
        }
      })
    ))

  it.effect("a declined card's payment.failed goes to the endpoints that subscribe to payment.failed", () =>
    withFake((fake) =>
      Effect.gen(function*() {
        yield* TestClock.setTime(start)
        const { test } = yield* newAccount
        const all = yield* endpoint(test, { url: "https://all.example.com/" })
        const failures = yield* endpoint(test, { url: "https://failures.example.com/", event_types: ["payment.failed"] })
        yield* endpoint(test, { url: "https://successes.example.com/", event_types: ["payment.succeeded"] })

        const payment = yield* paid(test, cards.declined)
        assert.strictEqual(payment.status, "failed")
        const [event] = yield* eventsOf(test, "payment.failed")
        const queued = yield* deliveriesOf({ event_id: event!.event_id })
        assert.deepStrictEqual(sorted(queued.map((d) => d.webhook_id)), sorted([all.webhook_id, failures.webhook_id]))
        assert.strictEqual(yield* dispatchOnce, 2)
        for (const request of fake.requests) assert.strictEqual(JSON.parse(request.body).type, "payment.failed")
      })
    ))

  it.effect("events are recorded whether or not any endpoint subscribes", () =>
    withFake((fake) =>
      Effect.gen(function*() {
        yield* TestClock.setTime(start)
        const { test } = yield* newAccount
        const first = yield* paid(test)
        const declined = yield* paid(test, cards.declined)
        const refundsOnly = yield* endpoint(test, { event_types: ["refund.succeeded"] })
        const second = yield* paid(test)

        const events = yield* eventsOf(test)
        assert.deepStrictEqual(
          events.map((e) => [e.type, e.data.payment_id]),
          [
            ["payment.succeeded", second.payment_id],
            ["payment.failed", declined.payment_id],
            ["payment.succeeded", first.payment_id]
          ]
        )
        for (const event of events) assert.deepStrictEqual(yield* deliveriesOf({ event_id: event.event_id }), [])
        assert.deepStrictEqual(yield* deliveriesOf({ webhook_id: refundsOnly.webhook_id }), [])
        assert.strictEqual(yield* dispatchOnce, 0)
        assert.deepStrictEqual(fake.requests, [])
      })
    ))
})

describe("what is sent", () => {
  it.effect("body { id, type, livemode, created_at, data }; webhook-id = event id = body.id; a signature verify accepts", () =>
    withFake((fake) =>
      Effect.gen(function*() {
        yield* TestClock.setTime(start)
        const webhooks = yield* Webhooks
        const { test } = yield* newAccount
        const hook = yield* endpoint(test, { url: "http://127.0.0.1:4343/in" })
        const payment = yield* paid(test)
        const [event] = yield* eventsOf(test, "payment.succeeded")

        yield* TestClock.adjust("1500 millis")
        const sentAt = yield* nowMillis
        assert.strictEqual(yield* dispatchOnce, 1)
        const [request] = fake.requests
        assert.strictEqual(request!.url, "http://127.0.0.1:4343/in")
        assert.strictEqual(request!.livemode, false)
        assert.strictEqual(request!.timeoutMillis, 10_000)
        assert.strictEqual(request!.headers["content-type"], "application/json")

        const body = JSON.parse(request!.body)
        assert.deepStrictEqual(Object.keys(body).sort(), ["created_at", "data", "id", "livemode", "type"])
        assert.deepStrictEqual(body, {
          id: event!.event_id,
          type: "payment.succeeded",
          livemode: false,
          created_at: DateTime.formatIso(event!.created_at),
          data: JSON.parse(JSON.stringify(paymentData(payment)))
        })
        assert.match(body.id, /^evt_[0-9a-f]{32}$/)
        assert.strictEqual(body.data.object, "payment")
        assert.strictEqual(body.data.status, "succeeded")
        assert.deepStrictEqual(body.data, JSON.parse(JSON.stringify(event!.data)), "the same data as the event record")

        assert.strictEqual(request!.headers["webhook-id"], event!.event_id)
        assert.strictEqual(request!.headers["webhook-id"], body.id)
        assert.strictEqual(request!.headers["webhook-timestamp"], String(Math.floor(sentAt / 1000)))
        assert.match(request!.headers["webhook-signature"]!, /^v1,[A-Za-z0-9+/]{43}=$/)

        // The endpoint's secret (as returned on creation and by GET …/secret) verifies it.
        assert.strictEqual(Redacted.value((yield* webhooks.secret(test, hook.webhook_id)).secret), Redacted.value(hook.secret))
        assert.deepStrictEqual(verified(request!, hook.secret), body)
        // Another secret does not; neither does a changed body.
        const other = yield* endpoint(test)
        assert.throws(() => verified(request!, other.secret))
        assert.throws(() => verified({ ...request!, body: request!.body.replace("succeeded", "failed") }, hook.secret))
      })
    ))
})

describe("retries", () => {
  it.effect(
    "after failures the next attempt is due 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h later, never before; the 8th failure is final",
    () =>
      withFake((fake) =>
        Effect.gen(function*() {
          yield* TestClock.setTime(start)
          const deliveries = yield* Deliveries
          const { test } = yield* newAccount
          const hook = yield* endpoint(test)
          yield* paid(test)
          const [event] = yield* eventsOf(test, "payment.succeeded")
          const { delivery_id } = yield* oneDelivery({ webhook_id: hook.webhook_id })

          // Every kind of failure counts: an error status, no answer, a refused connection.
          const failures = [
            answered(500),
            unanswered("timeout"),
            answered(404),
            unanswered("connect ECONNREFUSED 10.0.0.1:443"),
            answered(503),
            answered(302),
            answered(410),
            answered(500)
          ]
          fake.answerWith(() => failures[fake.requests.length - 1]!)

          const waits = ["5 seconds", "5 minutes", "30 minutes", "2 hours", "5 hours", "10 hours", "10 hours"] as const
          assert.deepStrictEqual(Delivery.retrySchedule.map(Duration.toMillis), waits.map((w) => Duration.toMillis(w)))
          assert.strictEqual(Delivery.maxAttempts, 8)

          const sentAt: Array<number> = []
          assert.strictEqual(yield* dispatchOnce, 1, "first attempt at once")
          sentAt.push(yield* nowMillis)

          for (const [i, wait] of waits.entries()) {
            const attempt = i + 2
            const d = yield* deliveries.list({ webhook_id: hook.webhook_id }).pipe(Effect.map((l) => l[0]!))
            assert.strictEqual(d.status, "pending", `after attempt ${attempt - 1}`)
            assert.strictEqual(d.attempts, attempt - 1)
            assert.strictEqual(d.last_status_code, failures[attempt - 2]!.statusCode)
            assert.strictEqual(d.last_error, failures[attempt - 2]!.error)
            assert.strictEqual(
              DateTime.toEpochMillis(d.next_attempt_at!),
              sentAt[sentAt.length - 1]! + Duration.toMillis(wait),
              `attempt ${attempt} is due exactly ${wait} after attempt ${attempt - 1}`
            )

            // Not a millisecond early.
            yield* TestClock.adjust(Duration.toMillis(wait) - 1)
            assert.strictEqual(yield* dispatchOnce, 0, `attempt ${attempt} before it is due`)
            assert.strictEqual(fake.requests.length, attempt - 1)

            yield* TestClock.adjust(1)
            assert.strictEqual(yield* dispatchOnce, 1, `attempt ${attempt} when due`)
            assert.strictEqual(fake.requests.length, attempt)
            sentAt.push(yield* nowMillis)
          }

          const final = yield* oneDelivery({ webhook_id: hook.webhook_id })
          assert.strictEqual(final.status, "failed")
          assert.strictEqual(final.attempts, 8)
          assert.isNull(final.next_attempt_at)
          assert.strictEqual(final.last_status_code, 500)
          // Total span: 5 s + 5 min + 30 min + 2 h + 5 h + 10 h + 10 h ≈ 27.6 h.
          assert.strictEqual(sentAt[7]! - sentAt[0]!, (5 + 300 + 1800 + 7200 + 18000 + 36000 + 36000) * 1000)

          yield* TestClock.adjust("100 hours")
          assert.strictEqual(yield* dispatchOnce, 0, "nothing after the last attempt")
          assert.strictEqual(fake.requests.length, 8)

          // Eight attempts on record, one per request, with how each went.
          const attempts = yield* deliveries.attempts(delivery_id)
          assert.deepStrictEqual(attempts.map((a) => a.attempt), [1, 2, 3, 4, 5, 6, 7, 8])
          assert.deepStrictEqual(attempts.map((a) => DateTime.toEpochMillis(a.started_at)), sentAt)
          assert.deepStrictEqual(attempts.map((a) => a.status_code), failures.map((f) => f.statusCode))
          assert.deepStrictEqual(attempts.map((a) => a.error), failures.map((f) => f.error))

          // Each attempt: the same webhook-id and body, a fresh timestamp and signature, each one valid.
          const bodies = new Set(fake.requests.map((r) => r.body))
          assert.strictEqual(bodies.size, 1)
          assert.deepStrictEqual(fake.requests.map((r) => r.headers["webhook-id"]), new Array(8).fill(event!.event_id))
          assert.deepStrictEqual(
            fake.requests.map((r) => r.headers["webhook-timestamp"]),
            sentAt.map((ms) => String(Math.floor(ms / 1000)))
          )
          assert.strictEqual(new Set(fake.requests.map((r) => r.headers["webhook-signature"])).size, 8)
          for (const request of fake.requests) assert.strictEqual(verified(request, hook.secret).id, event!.event_id)
        })
      )
  )

  it.effect("a success on a later attempt ends the delivery", () =>
    withFake((fake) =>
      Effect.gen(function*() {
        yield* TestClock.setTime(start)
        const { test } = yield* newAccount
        const hook = yield* endpoint(test)
        yield* paid(test)
        fake.answerWith(() => (fake.requests.length < 3 ? answered(500) : answered(204)))
        assert.strictEqual(yield* dispatchOnce, 1)
        yield* TestClock.adjust("5 seconds")
        assert.strictEqual(yield* dispatchOnce, 1)
        yield* TestClock.adjust("5 minutes")
        assert.strictEqual(yield* dispatchOnce, 1)
        const d = yield* oneDelivery({ webhook_id: hook.webhook_id })
        assert.strictEqual(d.status, "succeeded")
        assert.strictEqual(d.attempts, 3)
        assert.strictEqual(d.last_status_code, 204)
        assert.isNull(d.next_attempt_at)
        yield* TestClock.adjust("1 day")
        assert.strictEqual(yield* dispatchOnce, 0)
        assert.strictEqual(fake.requests.length, 3)
      })
    ))
})

describe("disabling and deleting an endpoint", () => {
  it.effect("disabling cancels its pending deliveries (tried or not); others go on; enabling again does not revive them", () =>
    withFake((fake) =>
      Effect.gen(function*() {
        yield* TestClock.setTime(start)
        const webhooks = yield* Webhooks
        const { test } = yield* newAccount
        const stopped = yield* endpoint(test, { url: "https://stopped.example.com/" })
        const kept = yield* endpoint(test, { url: "https://kept.example.com/" })
        fake.answerWith(() => answered(500))

        yield* paid(test)
        assert.strictEqual(yield* dispatchOnce, 2, "both tried once and failed")
        yield* paid(test) // queued, not tried yet
        assert.strictEqual((yield* deliveriesOf({ webhook_id: stopped.webhook_id, status: "pending" })).length, 2)

        const updated = yield* webhooks.update(test, stopped.webhook_id, { disabled: true })
        assert.isTrue(updated.disabled)
        const cancelled = yield* deliveriesOf({ webhook_id: stopped.webhook_id })
        assert.deepStrictEqual(cancelled.map((d) => d.status), ["cancelled", "cancelled"])
        assert.strictEqual((yield* deliveriesOf({ webhook_id: kept.webhook_id, status: "pending" })).length, 2)

        fake.requests.length = 0
        yield* TestClock.adjust("1 minute")
        assert.strictEqual(yield* dispatchOnce, 2, "only the kept endpoint's two")
        assert.deepStrictEqual(fake.requests.map((r) => r.url), [kept.url, kept.url])

        // Nothing new while disabled.
        yield* paid(test)
        assert.strictEqual((yield* deliveriesOf({ webhook_id: stopped.webhook_id })).length, 2)

        // Enabled again: new events are delivered, the cancelled ones stay cancelled.
        yield* webhooks.update(test, stopped.webhook_id, { disabled: false })
        yield* paid(test)
        const after = yield* deliveriesOf({ webhook_id: stopped.webhook_id })
        assert.deepStrictEqual(sorted(after.map((d) => d.status)), ["cancelled", "cancelled", "pending"])
        fake.requests.length = 0
        fake.answerWith(() => answered(200))
        yield* TestClock.adjust("1 day")
        yield* dispatchOnce
        assert.strictEqual(fake.requests.filter((r) => r.url === stopped.url).length, 1)
        assert.deepStrictEqual(
          sorted((yield* deliveriesOf({ webhook_id: stopped.webhook_id })).map((d) => d.status)),
          ["cancelled", "cancelled", "succeeded"]
        )
      })
    ))

  it.effect("an update that leaves an endpoint enabled cancels nothing", () =>
    withFake((fake) =>
      Effect.gen(function*() {
        yield* TestClock.setTime(start)
        const webhooks = yield* Webhooks
        const { test } = yield* newAccount
        const hook = yield* endpoint(test)
        yield* paid(test)
        yield* webhooks.update(test, hook.webhook_id, { description: "renamed" })
        assert.strictEqual((yield* oneDelivery({ webhook_id: hook.webhook_id })).status, "pending")
        assert.strictEqual(yield* dispatchOnce, 1)
        assert.strictEqual(fake.requests.length, 1)
      })
    ))

  it.effect("deleting cancels its pending deliveries; nothing more is sent to it", () =>
    withFake((fake) =>
      Effect.gen(function*() {
        yield* TestClock.setTime(start)
        const webhooks = yield* Webhooks
        const { test } = yield* newAccount
        const gone = yield* endpoint(test, { url: "https://gone.example.com/" })
        const kept = yield* endpoint(test, { url: "https://kept.example.com/" })
        fake.answerWith(() => answered(500))
        yield* paid(test)
        assert.strictEqual(yield* dispatchOnce, 2)
        yield* paid(test)

        assert.deepStrictEqual(yield* webhooks.remove(test, gone.webhook_id), {
          object: "webhook",
          webhook_id: gone.webhook_id,
          deleted: true
        })
        assert.deepStrictEqual(
          (yield* deliveriesOf({ webhook_id: gone.webhook_id })).map((d) => d.status),
          ["cancelled", "cancelled"]
        )
        const again = yield* Effect.either(webhooks.remove(test, gone.webhook_id))
        assert.isTrue(Either.isLeft(again) && again.left._tag === "NotFound")

        fake.requests.length = 0
        yield* TestClock.adjust("1 day")
        yield* dispatchOnce
        yield* TestClock.adjust("1 day")
        yield* dispatchOnce
        assert.isTrue(fake.requests.length > 0)
        assert.isTrue(fake.requests.every((r) => r.url === kept.url), "nothing to the deleted endpoint")
      })
    ))

  it.effect("disabling unschedules what it cancels (next_attempt_at null)", () =>
    withFake(() =>
      Effect.gen(function*() {
        yield* TestClock.setTime(start)
        const { test } = yield* newAccount
        const hook = yield* endpoint(test)
        yield* paid(test)
        yield* (yield* Webhooks).update(test, hook.webhook_id, { disabled: true })
        const d = yield* oneDelivery({ webhook_id: hook.webhook_id })
        assert.strictEqual(d.status, "cancelled")
        assert.isNull(d.next_attempt_at)
      })
    ))

  // Regression, fixed (adapters/memory/StoreMemory.ts, webhooks.delete: `deliveries.set(d.delivery_id, { ...d, status: "cancelled" })`):
  // a deleted endpoint's cancelled deliveries keep their `next_attempt_at`, unlike `cancelFor` in the same file and
  // the PostgreSQL repo (adapters/sql/repos/webhooks.ts sets `next_attempt_at = NULL, lease_until = NULL`), so the
  // two stores disagree on the same operation. Fix: `{ ...d, status: "cancelled", next_attempt_at: null }` (or call
  // the cancelFor logic). Remove `.fails` once fixed.
  it.effect("deleting unschedules what it cancels (next_attempt_at null), as disabling does", () =>
    withFake(() =>
      Effect.gen(function*() {
        yield* TestClock.setTime(start)
        const { test } = yield* newAccount
        const hook = yield* endpoint(test)
        yield* paid(test)
        yield* (yield* Webhooks).remove(test, hook.webhook_id)
        const d = yield* oneDelivery({ webhook_id: hook.webhook_id })
        assert.strictEqual(d.status, "cancelled")
        assert.isNull(d.next_attempt_at)
      })
    ))
})

describe("Deliveries.retry", () => {
  it.effect("redelivers a delivered event at once, with the same webhook-id and a fresh signature", () =>
    withFake((fake) =>
      Effect.gen(function*() {
        yield* TestClock.setTime(start)
        const deliveries = yield* Deliveries
        const { test } = yield* newAccount
        const hook = yield* endpoint(test)
        yield* paid(test)
        assert.strictEqual(yield* dispatchOnce, 1)
        const done = yield* oneDelivery({ webhook_id: hook.webhook_id })
        assert.strictEqual(done.status, "succeeded")

        yield* TestClock.adjust("2 hours")
        const retried = yield* deliveries.retry(operator, done.delivery_id)
        assert.strictEqual(retried.status, "pending")
        assert.strictEqual(DateTime.toEpochMillis(retried.next_attempt_at!), yield* nowMillis, "due now")
        assert.strictEqual(yield* dispatchOnce, 1)
        assert.strictEqual(fake.requests.length, 2)
        const [first, second] = fake.requests
        assert.strictEqual(second!.headers["webhook-id"], first!.headers["webhook-id"])
        assert.strictEqual(second!.body, first!.body)
        assert.notStrictEqual(second!.headers["webhook-timestamp"], first!.headers["webhook-timestamp"])
        assert.notStrictEqual(second!.headers["webhook-signature"], first!.headers["webhook-signature"])
        verified(second!, hook.secret)
        const after = yield* deliveries.list({ webhook_id: hook.webhook_id }).pipe(Effect.map((l) => l[0]!))
        assert.strictEqual(after.status, "succeeded")
        assert.strictEqual(after.attempts, 2)
        assert.strictEqual((yield* deliveries.attempts(done.delivery_id)).length, 2)
      })
    ))

  it.effect("redelivers a delivery that failed for good", () =>
    withFake((fake) =>
      Effect.gen(function*() {
        yield* TestClock.setTime(start)
        const deliveries = yield* Deliveries
        const { test } = yield* newAccount
        const hook = yield* endpoint(test)
        yield* paid(test)
        fake.answerWith(() => answered(500))
        for (let i = 0; i < 8; i++) {
          assert.strictEqual(yield* dispatchOnce, 1)
          yield* TestClock.adjust("10 hours")
        }
        const failed = yield* oneDelivery({ webhook_id: hook.webhook_id })
        assert.strictEqual(failed.status, "failed")
        assert.strictEqual(yield* dispatchOnce, 0)

        fake.answerWith(() => answered(200))
        yield* deliveries.retry(operator, failed.delivery_id)
        assert.strictEqual(yield* dispatchOnce, 1)
        assert.strictEqual(fake.requests.length, 9)
        assert.strictEqual((yield* oneDelivery({ webhook_id: hook.webhook_id })).status, "succeeded")
      })
    ))

  it.effect("refuses a disabled endpoint's delivery (InvalidState) and changes nothing; enabled again, it redelivers", () =>
    withFake((fake) =>
      Effect.gen(function*() {
        yield* TestClock.setTime(start)
        const deliveries = yield* Deliveries
        const webhooks = yield* Webhooks
        const { test } = yield* newAccount
        const hook = yield* endpoint(test)
        yield* paid(test)
        assert.strictEqual(yield* dispatchOnce, 1)
        const done = yield* oneDelivery({ webhook_id: hook.webhook_id })
        yield* webhooks.update(test, hook.webhook_id, { disabled: true })

        yield* TestClock.adjust("1 hour")
        const refused = yield* Effect.either(deliveries.retry(operator, done.delivery_id))
        if (Either.isRight(refused)) return assert.fail("retried to a disabled endpoint")
        assert.strictEqual(refused.left._tag, "InvalidState")
        assert.include(refused.left.message, done.delivery_id)
        assert.match(refused.left.message, /endpoint .* is disabled/)
        assert.deepStrictEqual(yield* oneDelivery({ webhook_id: hook.webhook_id }), done, "unchanged")
        yield* TestClock.adjust("1 day")
        assert.strictEqual(yield* dispatchOnce, 0)
        assert.strictEqual(fake.requests.length, 1)

        // Enabled again, the same retry goes through.
        yield* webhooks.update(test, hook.webhook_id, { disabled: false })
        assert.strictEqual((yield* deliveries.retry(operator, done.delivery_id)).status, "pending")
        assert.strictEqual(yield* dispatchOnce, 1)
        assert.strictEqual(fake.requests.length, 2)
      })
    ))

  it.effect("an endpoint disabled after a retry was queued receives nothing: the claim skips it", () =>
    withFake((fake) =>
      Effect.gen(function*() {
        yield* TestClock.setTime(start)
        const store = yield* Store
        const { test } = yield* newAccount
        const hook = yield* endpoint(test)
        const other = yield* endpoint(test, { url: "https://other.example.com/" })
        yield* paid(test)
        assert.strictEqual(yield* dispatchOnce, 2)
        const done = yield* oneDelivery({ webhook_id: hook.webhook_id })
        yield* (yield* Deliveries).retry(operator, done.delivery_id)
        // The disable lands between the retry's check and the claim, without cancelling (as a race would leave it).
        yield* store.webhooks.update({ ...hook, disabled: true })
        yield* paid(test)
        assert.strictEqual(yield* dispatchOnce, 1, "only the enabled endpoint's new delivery")
        assert.strictEqual(fake.requests.filter((r) => r.url === hook.url).length, 1, "only before it was disabled")
        assert.strictEqual(fake.requests.filter((r) => r.url === other.url).length, 2)
        assert.strictEqual((yield* oneDelivery({ webhook_id: hook.webhook_id })).status, "pending")
      })
    ))

  it.effect("an unknown delivery is NotFound", () =>
    withFake(() =>
      Effect.gen(function*() {
        const r = yield* Effect.either((yield* Deliveries).retry(operator, `dlv_${"0".repeat(32)}`))
        assert.isTrue(Either.isLeft(r))
        if (Either.isLeft(r)) assert.strictEqual(r.left._tag, "NotFound")
      })
    ))
})

describe("live mode", () => {
  it.effect("a live event goes to the live endpoints only, flagged live so the transport applies the public-address rule", () =>
    withFake((fake) =>
      Effect.gen(function*() {
        yield* TestClock.setTime(start)
        const accounts = yield* Accounts
        const { account, live, test } = yield* newAccount
        yield* accounts.update(account.account_id, { live_payments_enabled: true })
        const liveHook = yield* endpoint(live, { url: "https://live.example.com/" })
        const testHook = yield* endpoint(test, { url: "http://127.0.0.1:4343/" })

        yield* paid(live)
        const [event] = yield* eventsOf(live, "payment.succeeded")
        assert.strictEqual(event!.livemode, true)
        assert.deepStrictEqual((yield* deliveriesOf({ event_id: event!.event_id })).map((d) => d.webhook_id), [
          liveHook.webhook_id
        ])
        assert.strictEqual(yield* dispatchOnce, 1)
        const [request] = fake.requests
        assert.strictEqual(request!.url, "https://live.example.com/")
        assert.strictEqual(request!.livemode, true)
        assert.strictEqual(verified(request!, liveHook.secret).livemode, true)
        assert.deepStrictEqual(yield* deliveriesOf({ webhook_id: testHook.webhook_id }), [])
      })
    , [["FILS_SIMULATED_LIVE", "true"]]))
})

describe("endpoint hosts are resolved when an endpoint is created or re-pointed (SSRF)", () => {
  const failure = <A>(result: Either.Either<A, { readonly _tag: string; readonly message: string }>) =>
    Either.isLeft(result) ? result.left : assert.fail("accepted")

  it.effect("a name that resolves to an internal address is refused (InvalidRequest), by the endpoint's mode's rules", () =>
    withFake((fake) =>
      Effect.gen(function*() {
        const webhooks = yield* Webhooks
        const { live, test } = yield* newAccount
        fake.hosts.set("inside.example.com", "internal")

        const refusedLive = failure(yield* Effect.either(endpoint(live, { url: "https://inside.example.com/hook" })))
        assert.strictEqual(refusedLive._tag, "InvalidRequest")
        assert.strictEqual(
          refusedLive.message,
          "A live endpoint's url must reach a public host: inside.example.com resolves to an internal address"
        )
        const refusedTest = failure(yield* Effect.either(endpoint(test, { url: "http://inside.example.com:8080/" })))
        assert.strictEqual(refusedTest._tag, "InvalidRequest")
        assert.match(refusedTest.message, /^A test endpoint's url must reach a public host or this machine \(loopback\)/)
        // The transport was asked with the mode (it lets loopback through in test mode only); nothing was stored.
        assert.deepStrictEqual(fake.checks, ["inside.example.com live", "inside.example.com test"])
        assert.deepStrictEqual((yield* webhooks.list(live, {})).items, [])
        assert.deepStrictEqual((yield* webhooks.list(test, {})).items, [])
      })
    ))

  it.effect("a name that does not resolve, or not within 3 s, is accepted: deliveries resolve it again", () =>
    withFake((fake) =>
      Effect.gen(function*() {
        const { live } = yield* newAccount
        fake.hosts.set("not-yet.example.com", "unresolved")
        fake.hosts.set("slow-dns.example.com", "never")
        const created = yield* endpoint(live, { url: "https://not-yet.example.com/" })
        assert.strictEqual(created.url, "https://not-yet.example.com/")

        const slow = yield* Effect.fork(endpoint(live, { url: "https://slow-dns.example.com/" }))
        yield* TestClock.adjust("2999 millis")
        assert.isTrue(Option.isNone(yield* Fiber.poll(slow)), "still waiting for DNS")
        yield* TestClock.adjust("1 millis")
        assert.strictEqual((yield* Fiber.join(slow)).url, "https://slow-dns.example.com/")
      })
    ))

  it.effect("an IP literal is not resolved; a url change is resolved before it is stored, other changes are not", () =>
    withFake((fake) =>
      Effect.gen(function*() {
        const webhooks = yield* Webhooks
        const { live } = yield* newAccount
        yield* endpoint(live, { url: "https://93.184.215.14/hook" })
        yield* endpoint(live, { url: "https://[2606:4700:4700::1111]/hook" })
        assert.deepStrictEqual(fake.checks, [], "addresses are checked on their face")

        const hook = yield* endpoint(live, { url: "https://ok.example.com/" })
        yield* webhooks.update(live, hook.webhook_id, { description: "renamed", disabled: true })
        assert.deepStrictEqual(fake.checks, ["ok.example.com live"])

        fake.hosts.set("inside.example.com", "internal")
        const refused = failure(yield* Effect.either(webhooks.update(live, hook.webhook_id, { url: "https://inside.example.com/" })))
        assert.strictEqual(refused._tag, "InvalidRequest")
        assert.strictEqual((yield* webhooks.get(live, hook.webhook_id)).url, "https://ok.example.com/", "unchanged")
        const moved = yield* webhooks.update(live, hook.webhook_id, { url: "https://elsewhere.example.com/in" })
        assert.strictEqual(moved.url, "https://elsewhere.example.com/in")
        assert.deepStrictEqual(fake.checks, ["ok.example.com live", "inside.example.com live", "elsewhere.example.com live"])
        // An unknown endpoint is NotFound, whatever url it is given.
        const unknown = failure(yield* Effect.either(webhooks.update(live, `wh_${"0".repeat(32)}` as never, { url: "https://inside.example.com/" })))
        assert.strictEqual(unknown._tag, "NotFound")
      })
    ))

  it.effect.prop(
    "creation is refused exactly when the host resolves to an address the mode forbids",
    {
      found: FastCheck.constantFrom<HostCheck | "never">("allowed", "internal", "unresolved", "never"),
      livemode: FastCheck.boolean(),
      label: FastCheck.stringMatching(/^[a-z][a-z0-9-]{0,20}$/)
    },
    ({ found, label, livemode }) =>
      withFake((fake) =>
        Effect.gen(function*() {
          const account = yield* newAccount
          const host = `${label}.example.com`
          fake.hosts.set(host, found)
          const created = yield* Effect.fork(
            Effect.either(endpoint(livemode ? account.live : account.test, { url: `https://${host}/hook` }))
          )
          yield* TestClock.adjust("3 seconds")
          const result = yield* Fiber.join(created)
          assert.strictEqual(Either.isLeft(result), found === "internal", `${found} ${livemode}`)
          if (Either.isLeft(result)) assert.strictEqual(result.left._tag, "InvalidRequest")
          assert.deepStrictEqual(fake.checks, [`${host} ${livemode ? "live" : "test"}`])
        })
      ),
    { fastCheck: { numRuns: 30 } }
  )
})
