/**
 * The Store contract for webhook endpoints and the delivery outbox (`Store.webhooks`, `Store.deliveries`): one suite
 * that every Store adapter passes (memory and PostgreSQL), as the dispatcher (src/application/Deliveries.ts) and the
 * use cases rely on it. The store is shared by the whole suite: each test makes its own account, endpoints and
 * events, and cancels whatever it left pending when it ends, so a later test's claims see only its own deliveries.
 */
import { assert, layer } from "@effect/vitest"
import { DateTime, Effect, Exit, FastCheck, Fiber, type Layer, Option, Redacted } from "effect"
import { newId } from "../../src/application/Ids.js"
import type { Account, Scope } from "../../src/domain/Account.js"
import { type AttemptOutcome, inFlightPerAccount, inFlightPerEndpoint, requestBody } from "../../src/domain/Delivery.js"
import type { Event, EventType } from "../../src/domain/Event.js"
import type { AccountId, DeliveryId, EventId, WebhookId } from "../../src/domain/Ids.js"
import * as Pagination from "../../src/domain/Pagination.js"
import * as WebhookEndpoint from "../../src/domain/WebhookEndpoint.js"
import * as WebhookHealth from "../../src/domain/WebhookHealth.js"
import { type ClaimedAttempt, type DeliveriesRepo, type Delivery, Store, type StoreShape, type Repositories } from "../../src/ports/Store.js"

// Fixtures -----------------------------------------------------------------------------------------------------------

export const T0 = Date.UTC(2026, 10, 21, 10, 0, 0, 0)
export const at = (millis: number) => DateTime.unsafeMake(millis)
export const millis = (t: DateTime.Utc) => DateTime.toEpochMillis(t)

/** Domain values as plain JSON (DateTime → ISO string), for deep equality. */
/** A value as JSON, its `Redacted` secrets in clear (so that a secret stored and read back is compared too). */
export const plain = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value, function(this: Record<string, unknown>, key: string, json: unknown) {
    const original = this[key]
    return Redacted.isRedacted(original) ? { redacted: Redacted.value(original) } : json
  }))
export const same = (actual: unknown, expected: unknown, message?: string) =>
  assert.deepStrictEqual(plain(actual), plain(expected), message)

export const ok = (durationMillis = 12): AttemptOutcome => ({ ok: true, statusCode: 200, error: null, durationMillis })
export const serverError: AttemptOutcome = { ok: false, statusCode: 500, error: null, durationMillis: 31 }
export const refused: AttemptOutcome = { ok: false, statusCode: null, error: "connection refused", durationMillis: 2 }

export const newAccount = Effect.map(newId<AccountId>("acct"), (account_id): Account => ({
  account_id,
  business_name: "Souq Books",
  support_email: null,
  live_payments_enabled: false,
  tax_profile: null,
  time_zone: "Asia/Dubai",
  two_factor_required: false,
  created_at: at(T0)
}))

export const makeEndpoint = (scope: Scope, overrides: Partial<WebhookEndpoint.WebhookEndpoint> = {}) =>
  Effect.map(newId<WebhookId>("wh"), (id): WebhookEndpoint.WebhookEndpoint => ({
    object: "webhook",
    webhook_id: id,
    account_id: scope.accountId,
    livemode: scope.livemode,
    url: scope.livemode ? "https://hooks.souq.ae/fils" : "http://127.0.0.1:4242/fils",
    description: "Order fulfilment",
    event_types: ["payment.succeeded", "payment.failed", "refund.succeeded"],
    disabled: false,
    secret: Redacted.make(`whsec_${Buffer.from(id).toString("base64").slice(0, 32)}`),
    created_at: at(T0),
    ...overrides
  }))

export const makeEvent = (scope: Scope, overrides: Partial<Event> = {}) =>
  Effect.map(newId<EventId>("evt"), (id): Event => ({
    object: "event",
    event_id: id,
    account_id: scope.accountId,
    livemode: scope.livemode,
    type: "payment.succeeded",
    created_at: at(T0),
    data: { object: "payment", payment_id: `pay_${id.slice(4)}`, total_amount: 74800, status: "succeeded" },
    request_id: null,
    ...overrides
  }))

/** A delivery as `recordEvent` queues it: pending, no attempts, due when the event happened. */
export const makeDelivery = (event: Event, endpoint: WebhookEndpoint.WebhookEndpoint, overrides: Partial<Delivery> = {}) =>
  Effect.map(newId<DeliveryId>("dlv"), (id): Delivery => ({
    delivery_id: id,
    event_id: event.event_id,
    webhook_id: endpoint.webhook_id,
    account_id: event.account_id,
    livemode: event.livemode,
    status: "pending",
    attempts: 0,
    next_attempt_at: event.created_at,
    last_status_code: null,
    last_error: null,
    created_at: event.created_at,
    updated_at: event.created_at,
    ...overrides
  }))

export const getDelivery = (store: StoreShape, id: string) =>
  Effect.map(store.deliveries.get(id), (found) => Option.getOrElse(found, () => assert.fail(`no delivery ${id}`)))

export const ids = (claims: ReadonlyArray<ClaimedAttempt>) => claims.map((c) => `${c.delivery.delivery_id}#${c.attempt}`)

/**
 * One test's world: an account (test scope), and endpoints, events and deliveries made in it. Its endpoints'
 * pending deliveries are cancelled when the test's scope ends, pass or fail.
 */
export const world = Effect.gen(function*() {
  const store = yield* Store
  const account = yield* newAccount
  yield* store.accounts.insert(account)
  const scope: Scope = { accountId: account.account_id, livemode: false }
  const endpoints: Array<WebhookId> = []
  yield* Effect.addFinalizer(() =>
    Effect.forEach(endpoints, (id) => store.deliveries.cancelFor(id), { discard: true }).pipe(Effect.orDie)
  )
  const endpoint = (overrides: Partial<WebhookEndpoint.WebhookEndpoint> = {}, inScope: Scope = scope) =>
    Effect.gen(function*() {
      const w = yield* makeEndpoint(inScope, overrides)
      yield* store.webhooks.insert(w)
      endpoints.push(w.webhook_id)
      return w
    })
  const event = (overrides: Partial<Event> = {}) =>
    Effect.tap(makeEvent(scope, overrides), (e) => store.events.insert(e))
  /** Queues one delivery of `e` to each endpoint (in one enqueue, as recordEvent does). */
  const enqueue = (
    e: Event,
    to: ReadonlyArray<WebhookEndpoint.WebhookEndpoint>,
    overrides: Partial<Delivery> = {}
  ) =>
    Effect.gen(function*() {
      const queued = yield* Effect.forEach(to, (w) => makeDelivery(e, w, overrides))
      yield* store.deliveries.enqueue(queued)
      return queued
    })
  /** Claims at `now` and keeps only this test's deliveries (asserting nobody else's were due). */
  const claim = (now: number, limit = 100, leaseMillis = 30_000) =>
    Effect.gen(function*() {
      const claimed = yield* store.deliveries.claimDue(at(now), limit, leaseMillis)
      const own = claimed.filter((c) => c.delivery.account_id === account.account_id)
      assert.strictEqual(own.length, claimed.length, "claimed another test's deliveries")
      return own
    })
  return { store, account, scope, endpoint, event, enqueue, claim }
})

/**
 * Waits until nothing wakes `awaitWork` any more (a wake-up left from earlier writes, or the listener starting), so
 * the next call waits for something new: three waits in a row that run to their end. One is not enough: the first
 * `awaitWork` of a PostgreSQL store starts its listener, whose start wakes the waiters once LISTEN is in place, and
 * on a loaded machine that can come after a whole wait.
 */
export const quiet = (deliveries: Pick<DeliveriesRepo, "awaitWork">) =>
  Effect.gen(function*() {
    let undisturbed = 0
    for (let i = 0; i < 60; i++) {
      const started = Date.now()
      yield* deliveries.awaitWork(250)
      undisturbed = Date.now() - started >= 200 ? undisturbed + 1 : 0
      if (undisturbed === 3) return
    }
    assert.fail("awaitWork kept returning early: something keeps waking it")
  })

/**
 * Starts `awaitWork(timeoutMillis)` and checks it is still waiting 300 ms later. Joining the fiber gives the time
 * (`Date.now()`) it returned at.
 */
export const startWaiting = (deliveries: Pick<DeliveriesRepo, "awaitWork">, timeoutMillis: number) =>
  Effect.gen(function*() {
    const waiter = yield* Effect.fork(Effect.map(deliveries.awaitWork(timeoutMillis), () => Date.now()))
    yield* Effect.sleep("300 millis")
    assert.isTrue(Option.isNone(yield* Fiber.poll(waiter)), "awaitWork returned before anything happened")
    return waiter
  })

// The suite ------------------------------------------------------------------------------------------------------------

export const webhookStoreContract = (name: string, storeLayer: Layer.Layer<Store | Repositories>) =>
  layer(storeLayer, { excludeTestServices: true, timeout: "60 seconds" })(`Webhook store contract: ${name}`, (it) => {
    // Health ---------------------------------------------------------------------------------------------------------

    it.scoped("health: each record moves the failing streak as WebhookHealth.failingSinceAfter says; counts attempts and failures since a time", () =>
      Effect.gen(function*() {
        const { endpoint, enqueue, event, store } = yield* world
        const w = yield* endpoint()
        const [d] = yield* enqueue(yield* event(), [w])
        const since = (m: number) => at(T0 + m)
        const healthOf = (after = 0) => Effect.map(store.webhooks.health([w.webhook_id], at(T0 + after)), (h) => h.get(w.webhook_id)!)
        let attempt = 0
        let expected: DateTime.Utc | null = null
        // Batches as a dispatcher records them: failures, successes, out of order, several in one statement.
        const batches: ReadonlyArray<ReadonlyArray<readonly [boolean, number]>> = [
          [[false, 10]],
          [[false, 20]],
          [[true, 5]],
          [[false, 25], [true, 30]],
          [[false, 40], [true, 35], [false, 45]],
          [[true, 50], [false, 60]],
          [[false, 55]]
        ]
        for (const batch of batches) {
          const outcomes = batch.map(([okay, m]) => ({ ok: okay, startedAt: since(m) }))
          yield* store.deliveries.recordAttempts(outcomes.map((o) => ({
            deliveryId: d!.delivery_id,
            attempt: ++attempt,
            startedAt: o.startedAt,
            outcome: o.ok ? ok() : serverError,
            nextAttemptAt: undefined
          })))
          expected = WebhookHealth.failingSinceAfter(expected, outcomes)
          same((yield* healthOf()).failingSince, expected, JSON.stringify(batch))
        }
        assert.strictEqual(millis(expected!) - T0, 55)
        // Counted over the attempts started after the time given.
        const all = yield* healthOf()
        assert.deepStrictEqual([all.attempts, all.failed], [11, 7])
        const late = yield* healthOf(40)
        assert.deepStrictEqual([late.attempts, late.failed], [4, 3])
        // Disabled by Fils: a later success leaves the streak and the mark; enabling clears both.
        yield* store.transact(store.webhooks.markAutoDisabled(w.webhook_id, since(70)))
        yield* store.deliveries.recordAttempt({ deliveryId: d!.delivery_id, attempt: ++attempt, startedAt: since(80), outcome: ok(), nextAttemptAt: undefined })
        const marked = yield* healthOf()
        same([marked.failingSince, marked.autoDisabledAt], [since(55), since(70)])
        yield* store.webhooks.clearHealth(w.webhook_id)
        const cleared = yield* healthOf()
        same([cleared.failingSince, cleared.autoDisabledAt], [null, null])
        // An endpoint without attempts.
        const quietOne = yield* endpoint()
        same((yield* store.webhooks.health([quietOne.webhook_id], at(T0))).get(quietOne.webhook_id), WebhookHealth.none)
      }))

    it.scoped("health: the streak's failed attempts are counted up to the rule's minimum; a deleted endpoint's streak goes with it, and a late attempt does not bring it back", () =>
      Effect.gen(function*() {
        const { endpoint, enqueue, event, store } = yield* world
        const w = yield* endpoint()
        const failures = WebhookHealth.minFailures + 2
        const queued = yield* Effect.forEach(Array.from({ length: failures }), () => Effect.flatMap(event(), (e) => enqueue(e, [w])))
        const healthOf = Effect.map(store.webhooks.health([w.webhook_id], at(T0)), (h) => h.get(w.webhook_id)!)
        yield* store.deliveries.recordAttempt({ deliveryId: queued[0]![0]!.delivery_id, attempt: 1, startedAt: at(T0 + 1), outcome: ok(), nextAttemptAt: undefined })
        for (const [i, [d]] of queued.entries()) {
          yield* store.deliveries.recordAttempt({ deliveryId: d!.delivery_id, attempt: 2, startedAt: at(T0 + 10 + i), outcome: serverError, nextAttemptAt: undefined })
          const h = yield* healthOf
          same([h.failingSince, h.failures], [at(T0 + 10), Math.min(i + 1, WebhookHealth.minFailures)], `after ${i + 1} failures`)
        }
        yield* store.transact(store.webhooks.markAutoDisabled(w.webhook_id, at(T0 + 100)))
        assert.isTrue(yield* store.webhooks.delete({ accountId: w.account_id, livemode: w.livemode }, w.webhook_id))
        const gone = yield* healthOf
        same([gone.failingSince, gone.failures, gone.autoDisabledAt], [null, 0, null])
        // An attempt in flight when it was deleted, recorded after: its delivery was cancelled, the streak stays gone.
        yield* store.deliveries.recordAttempt({ deliveryId: queued[0]![0]!.delivery_id, attempt: 3, startedAt: at(T0 + 200), outcome: refused, nextAttemptAt: undefined })
        same((yield* healthOf).failingSince, null)
      }))

    it.scoped("delivery log: the body is given once, byte for byte the one a claim sends; an attempt keeps only its headers", () =>
      Effect.gen(function*() {
        const { claim, endpoint, enqueue, event, store } = yield* world
        const w = yield* endpoint()
        // Keys out of order, nested, non-ASCII, a fraction: whatever the store does to JSON, both read it alike.
        const e = yield* event({ data: { z: 1, object: "payment", a: { "é": "مرحبا 😀", n: 1.5, list: [3, 1] }, payment_id: "pay_x" } })
        const [d] = yield* enqueue(e, [w])
        const [claimed] = yield* claim(T0 + 1)
        assert.strictEqual(claimed!.delivery.delivery_id, d!.delivery_id)
        const sentBody = requestBody(claimed!.event, claimed!.test)
        const headers = { "webhook-id": e.event_id, "webhook-timestamp": "1795255202", "webhook-signature": "v1,abc" }
        yield* store.deliveries.recordAttempt({
          deliveryId: d!.delivery_id,
          attempt: 1,
          startedAt: at(T0 + 1),
          outcome: { ...serverError, answer: "down" },
          nextAttemptAt: at(T0 + 5000),
          sent: { headers }
        })
        const page = yield* store.deliveries.pageOf(w.webhook_id, { limit: 10, after: undefined })
        assert.strictEqual(page.items.length, 1)
        assert.strictEqual(page.items[0]!.request_body, sentBody)
        same(page.items[0]!.attempts.map((a) => [a.request, a.response_body]), [[{ headers }, "down"]])
      }))

    // Endpoints -----------------------------------------------------------------------------------------------------

    it.scoped("endpoints: insert, get, update, delete; another account or mode sees none of it", () =>
      Effect.gen(function*() {
        const { endpoint, scope, store } = yield* world
        const other = yield* newAccount
        yield* store.accounts.insert(other)
        const otherScope: Scope = { accountId: other.account_id, livemode: false }
        const live: Scope = { ...scope, livemode: true }

        const w = yield* endpoint()
        same(yield* store.webhooks.get(scope, w.webhook_id), Option.some(w))
        assert.isTrue(Option.isNone(yield* store.webhooks.get(otherScope, w.webhook_id)))
        assert.isTrue(Option.isNone(yield* store.webhooks.get(live, w.webhook_id)))
        same(yield* store.transact(store.webhooks.lock(scope, w.webhook_id)), Option.some(w))
        assert.isTrue(Option.isNone(yield* store.transact(store.webhooks.lock(otherScope, w.webhook_id))))
        assert.isTrue(Option.isNone(yield* store.webhooks.get(scope, yield* newId<WebhookId>("wh"))))

        const updated: WebhookEndpoint.WebhookEndpoint = {
          ...w,
          url: "https://hooks.souq.ae/v2",
          description: "",
          event_types: ["subscription.on_hold", "subscription.cancelled"],
          disabled: true
        }
        yield* store.webhooks.update(updated)
        same(yield* store.webhooks.get(scope, w.webhook_id), Option.some(updated))

        assert.isFalse(yield* store.webhooks.delete(otherScope, w.webhook_id))
        assert.isFalse(yield* store.webhooks.delete(live, w.webhook_id))
        same(yield* store.webhooks.get(scope, w.webhook_id), Option.some(updated))
        assert.isTrue(yield* store.webhooks.delete(scope, w.webhook_id))
        assert.isTrue(Option.isNone(yield* store.webhooks.get(scope, w.webhook_id)))
        assert.isFalse(yield* store.webhooks.delete(scope, w.webhook_id))
      }))

    it.scoped("endpoints: listed newest first (id breaks ties), page by page, only the scope's", () =>
      Effect.gen(function*() {
        const { endpoint, scope, store } = yield* world
        const mine = [
          yield* endpoint({ created_at: at(T0 + 3_000) }),
          yield* endpoint({ created_at: at(T0 + 1_000) }),
          yield* endpoint({ created_at: at(T0 + 2_000) }),
          yield* endpoint({ created_at: at(T0 + 2_000) }),
          yield* endpoint({ created_at: at(T0) })
        ]
        yield* endpoint({ created_at: at(T0 + 2_500) }, { ...scope, livemode: true })
        const expected = [...mine].sort((a, b) =>
          Pagination.compare(WebhookEndpoint.position(a), WebhookEndpoint.position(b))
        )
        const seen: Array<WebhookEndpoint.WebhookEndpoint> = []
        let after: Pagination.Position | undefined = undefined
        for (let pages = 0; pages < 10; pages++) {
          const page: Pagination.Page<WebhookEndpoint.WebhookEndpoint> = yield* store.webhooks.list(scope, { limit: 2, after })
          seen.push(...page.items)
          if (!page.hasMore) break
          assert.strictEqual(page.items.length, 2)
          after = WebhookEndpoint.position(page.items[page.items.length - 1]!)
        }
        same(seen, expected)
        const live = yield* store.webhooks.list({ ...scope, livemode: true }, { limit: 10, after: undefined })
        assert.strictEqual(live.items.length, 1)
        assert.isFalse(live.hasMore)
      }))

    it.scoped("subscribed: the scope's enabled endpoints that subscribe to the type, by id", () =>
      Effect.gen(function*() {
        const { endpoint, scope, store } = yield* world
        const all = yield* endpoint({ event_types: ["payment.succeeded", "payment.failed", "refund.succeeded"] })
        const failures = yield* endpoint({ event_types: ["payment.failed"] })
        yield* endpoint({ event_types: ["payment.succeeded", "payment.failed"], disabled: true })
        const live = yield* endpoint({ event_types: ["payment.succeeded"] }, { ...scope, livemode: true })
        const subscribed = (type: EventType, s: Scope = scope) =>
          Effect.map(store.webhooks.subscribed(s, type), (ws) => ws.map((w) => w.webhook_id))
        assert.deepStrictEqual(yield* subscribed("payment.succeeded"), [all.webhook_id])
        assert.deepStrictEqual(yield* subscribed("payment.failed"), [all.webhook_id, failures.webhook_id].sort())
        assert.deepStrictEqual(yield* subscribed("subscription.renewed"), [])
        assert.deepStrictEqual(yield* subscribed("payment.succeeded", { ...scope, livemode: true }), [live.webhook_id])
        // The endpoints come whole (the dispatcher needs url and secret).
        same(yield* store.webhooks.subscribed(scope, "refund.succeeded"), [all])
      }))

    // Claims --------------------------------------------------------------------------------------------------------

    it.scoped("claimDue: oldest due first, attempts + 1 and a lease; nothing while leased; again after the lease", () =>
      Effect.gen(function*() {
        const { claim, endpoint, enqueue, event, store } = yield* world
        const w = yield* endpoint()
        const e = yield* event()
        const [d1] = yield* enqueue(e, [w], { next_attempt_at: at(T0 + 1_000) })
        const [d2] = yield* enqueue(e, [yield* endpoint()], { next_attempt_at: at(T0) })
        const [d3] = yield* enqueue(e, [yield* endpoint()], { next_attempt_at: at(T0 + 2_000) })
        const [later] = yield* enqueue(e, [yield* endpoint()], { next_attempt_at: at(T0 + 60_000) })
        const now = T0 + 5_000

        const first = yield* claim(now, 2, 30_000)
        assert.deepStrictEqual(ids(first), [`${d2!.delivery_id}#1`, `${d1!.delivery_id}#1`])
        const c1 = first[1]!
        same(c1.delivery, { ...d1!, attempts: 1, updated_at: at(now) })
        same(c1.event, e)
        same(c1.endpoint, w)
        same(yield* store.deliveries.get(d1!.delivery_id), Option.some(c1.delivery))

        // The rest of what is due; the leased two and the one not yet due stay.
        assert.deepStrictEqual(ids(yield* claim(now)), [`${d3!.delivery_id}#1`])
        assert.deepStrictEqual(ids(yield* claim(now + 29_999)), [])
        // The lease ends (a server died mid-attempt): claimed again, as the next attempt.
        assert.deepStrictEqual(ids(yield* claim(now + 30_000)), [
          `${d2!.delivery_id}#2`,
          `${d1!.delivery_id}#2`,
          `${d3!.delivery_id}#2`
        ])
        assert.strictEqual((yield* getDelivery(store, d1!.delivery_id)).attempts, 2)
        assert.strictEqual((yield* getDelivery(store, later!.delivery_id)).attempts, 0)
        assert.deepStrictEqual(ids(yield* claim(T0 + 60_000, 100, 1)), [`${later!.delivery_id}#1`])
      }))

    it.scoped("claimDue skips a disabled endpoint's pending deliveries (a retry by hand, a race) until it is enabled", () =>
      Effect.gen(function*() {
        const { claim, endpoint, enqueue, event, store } = yield* world
        const w = yield* endpoint()
        const other = yield* endpoint()
        const e = yield* event()
        const [d, kept] = yield* enqueue(e, [w, other])
        // Disabled in the store only (Webhooks.update also cancels; a retry or a race can still leave a row pending).
        yield* store.webhooks.update({ ...w, disabled: true })
        assert.deepStrictEqual(ids(yield* claim(T0 + 1_000)), [`${kept!.delivery_id}#1`])
        yield* store.deliveries.recordAttempt({
          deliveryId: kept!.delivery_id,
          attempt: 1,
          startedAt: at(T0 + 1_000),
          outcome: ok(),
          nextAttemptAt: undefined
        })
        yield* store.deliveries.retry(d!.delivery_id, at(T0 + 2_000))
        assert.deepStrictEqual(ids(yield* claim(T0 + 86_400_000)), [])
        same([(yield* getDelivery(store, d!.delivery_id)).status, (yield* getDelivery(store, d!.delivery_id)).attempts], [
          "pending",
          0
        ])
        // Enabled again: claimable (nothing was lost, nothing was sent meanwhile).
        yield* store.webhooks.update({ ...w, disabled: false })
        assert.deepStrictEqual(ids(yield* claim(T0 + 86_400_000)), [`${d!.delivery_id}#1`])
      }))

    it.scoped("claimDue: one account never has more than inFlightPerAccount attempts in flight; others are claimed", () =>
      Effect.gen(function*() {
        const { endpoint, enqueue, event, scope, store } = yield* world
        const other = yield* newAccount
        yield* store.accounts.insert(other)
        const otherScope: Scope = { accountId: other.account_id, livemode: false }
        // Busy: five endpoints with more due deliveries than the account's cap, and than it plus five (the
        // per-endpoint cap alone would allow them all at once).
        const busy = [yield* endpoint(), yield* endpoint(), yield* endpoint(), yield* endpoint(), yield* endpoint()]
        const perEndpoint = Math.ceil((inFlightPerAccount + 16) / busy.length)
        assert.isAtMost(perEndpoint, inFlightPerEndpoint)
        const backlog: Array<Delivery> = []
        for (let i = 0; i < perEndpoint; i++) backlog.push(...(yield* enqueue(yield* event({ created_at: at(T0 + i) }), busy)))
        // Calm: a live endpoint of the same account, and another account, with later deliveries.
        const liveEndpoint = yield* endpoint({}, { ...scope, livemode: true })
        const liveEvent = yield* makeEvent({ ...scope, livemode: true }, { created_at: at(T0 + 500) })
        yield* store.events.insert(liveEvent)
        const liveDelivery = yield* makeDelivery(liveEvent, liveEndpoint)
        const calm = yield* endpoint({}, otherScope)
        const calmDeliveries: Array<Delivery> = []
        for (let i = 0; i < 3; i++) {
          const e = yield* makeEvent(otherScope, { created_at: at(T0 + 1_000 + i) })
          yield* store.events.insert(e)
          calmDeliveries.push(yield* makeDelivery(e, calm))
        }
        yield* store.deliveries.enqueue([liveDelivery, ...calmDeliveries])
        const accounts = new Set<string>([scope.accountId, other.account_id])
        const claim = (now: number, limit = 100) =>
          Effect.map(store.deliveries.claimDue(at(now), limit, 30_000), (claimed) => {
            assert.isTrue(claimed.every((c) => accounts.has(c.delivery.account_id)), "claimed another test's deliveries")
            return claimed
          })
        const ofAccount = (claimed: ReadonlyArray<ClaimedAttempt>, accountId: string) =>
          claimed.filter((c) => c.delivery.account_id === accountId)

        // Claims go oldest due first, the id breaking ties.
        const oldestFirst = backlog.map((d) => [millis(d.next_attempt_at!), d.delivery_id] as const)
          .sort(([a, x], [b, y]) => a - b || (x < y ? -1 : 1))
          .map(([, id]) => id)

        const first = yield* claim(T0 + 10_000)
        const busyClaims = ofAccount(first, scope.accountId)
        assert.strictEqual(busyClaims.length, inFlightPerAccount)
        // The account's oldest, at most inFlightPerEndpoint per endpoint. Its live endpoint is idle, yet its (newer) delivery waits:
        // the cap is the account's, both modes together.
        assert.deepStrictEqual(busyClaims.map((c) => c.delivery.delivery_id), oldestFirst.slice(0, inFlightPerAccount))
        assert.isFalse(first.some((c) => c.delivery.delivery_id === liveDelivery.delivery_id))
        for (const w of busy) assert.isAtMost(busyClaims.filter((c) => c.endpoint.webhook_id === w.webhook_id).length, inFlightPerEndpoint)
        assert.deepStrictEqual(ofAccount(first, other.account_id).map((c) => c.delivery.delivery_id), calmDeliveries.map((d) => d.delivery_id))

        // Full: nothing more for the account while those run.
        assert.deepStrictEqual(ids(yield* claim(T0 + 10_000)), [])
        // Five finish: exactly five more, still the oldest.
        yield* store.deliveries.recordAttempts(busyClaims.slice(0, 5).map((c) => ({
          deliveryId: c.delivery.delivery_id,
          attempt: c.attempt,
          startedAt: at(T0 + 10_000),
          outcome: ok(),
          nextAttemptAt: undefined
        })))
        const next = yield* claim(T0 + 10_000)
        assert.deepStrictEqual(next.map((c) => c.delivery.delivery_id), oldestFirst.slice(inFlightPerAccount, inFlightPerAccount + 5))
        // Leases that ran out do not count: claimed again, up to the cap.
        const again = yield* claim(T0 + 40_000)
        assert.strictEqual(ofAccount(again, scope.accountId).length, inFlightPerAccount)
        assert.strictEqual(ofAccount(again, other.account_id).length, 3)
      }))

    it.effect.prop(
      "claimDue: whatever the backlog, claims respect both caps, skip disabled endpoints, take each endpoint's oldest, and leave nothing claimable behind",
      {
        accounts: FastCheck.array(
          FastCheck.record({
            events: FastCheck.integer({ min: 0, max: 12 }),
            endpoints: FastCheck.array(
              FastCheck.oneof({ weight: 4, arbitrary: FastCheck.constant(false) }, { weight: 1, arbitrary: FastCheck.constant(true) }),
              { minLength: 1, maxLength: 4 }
            )
          }),
          { minLength: 1, maxLength: 3 }
        ),
        steps: FastCheck.array(
          FastCheck.oneof(
            FastCheck.record({ claim: FastCheck.integer({ min: 1, max: 40 }) }),
            FastCheck.record({ finish: FastCheck.integer({ min: 0, max: 20 }) })
          ),
          { minLength: 1, maxLength: 8 }
        )
      },
      ({ accounts, steps }) => {
        const endpoints: Array<WebhookEndpoint.WebhookEndpoint> = []
        return Effect.gen(function*() {
          const store = yield* Store
          interface Row { readonly id: string; readonly webhook: string; readonly account: string; readonly due: number }
          const rows: Array<Row> = []
          const disabled = new Set<string>()
          let tick = 0
          for (const spec of accounts) {
            const account = yield* newAccount
            yield* store.accounts.insert(account)
            const scope: Scope = { accountId: account.account_id, livemode: false }
            const mine = yield* Effect.forEach(spec.endpoints, () => makeEndpoint(scope))
            yield* Effect.forEach(mine, store.webhooks.insert)
            endpoints.push(...mine)
            const queued: Array<Delivery> = []
            for (let i = 0; i < spec.events; i++) {
              const e = yield* makeEvent(scope, { created_at: at(T0 + tick++) })
              yield* store.events.insert(e)
              queued.push(...(yield* Effect.forEach(mine, (w) => makeDelivery(e, w))))
            }
            yield* store.deliveries.enqueue(queued)
            rows.push(...queued.map((d) => ({ id: d.delivery_id, webhook: d.webhook_id, account: d.account_id, due: millis(d.next_attempt_at!) })))
            // Disabled after queueing, in the store only: their rows stay pending and must not be claimed.
            for (const [i, off] of spec.endpoints.entries()) {
              if (!off) continue
              yield* store.webhooks.update({ ...mine[i]!, disabled: true })
              disabled.add(mine[i]!.webhook_id)
            }
          }
          const ours = new Set(rows.map((r) => r.id))
          const running = new Map<string, Row>()
          const finished = new Set<string>()
          const claimedEver = new Set<string>()
          const count = (key: (r: Row) => string) => {
            const n = new Map<string, number>()
            for (const r of running.values()) n.set(key(r), (n.get(key(r)) ?? 0) + 1)
            return n
          }
          for (const step of steps) {
            if ("finish" in step) {
              const done = [...running.values()].slice(0, step.finish)
              yield* store.deliveries.recordAttempts(done.map((r) => ({
                deliveryId: r.id,
                attempt: 1,
                startedAt: at(T0 + 100_000),
                outcome: ok(),
                nextAttemptAt: undefined
              })))
              for (const r of done) {
                running.delete(r.id)
                finished.add(r.id)
              }
              continue
            }
            const claimed = yield* store.deliveries.claimDue(at(T0 + 100_000), step.claim, 600_000)
            assert.isTrue(claimed.every((c) => ours.has(c.delivery.delivery_id)), "claimed another test's deliveries")
            assert.isAtMost(claimed.length, step.claim)
            for (const c of claimed) {
              const row = rows.find((r) => r.id === c.delivery.delivery_id)!
              assert.isFalse(running.has(row.id) || finished.has(row.id), "claimed while leased or done")
              assert.isFalse(disabled.has(row.webhook), "claimed for a disabled endpoint")
              running.set(row.id, row)
              claimedEver.add(row.id)
            }
            const perEndpoint = count((r) => r.webhook)
            const perAccount = count((r) => r.account)
            for (const n of perEndpoint.values()) assert.isAtMost(n, inFlightPerEndpoint)
            for (const n of perAccount.values()) assert.isAtMost(n, inFlightPerAccount)
            const waiting = rows.filter((r) => !claimedEver.has(r.id) && !disabled.has(r.webhook))
            if (claimed.length < step.claim) {
              // Whatever is still waiting is held back by a cap.
              for (const r of waiting) {
                assert.isTrue(
                  (perEndpoint.get(r.webhook) ?? 0) >= inFlightPerEndpoint || (perAccount.get(r.account) ?? 0) >= inFlightPerAccount,
                  "a claimable delivery was left behind"
                )
              }
            }
            // Each endpoint's oldest first: everything claimed is due no later than anything still waiting.
            for (const r of waiting) {
              for (const id of claimedEver) {
                const c = rows.find((x) => x.id === id)!
                if (c.webhook === r.webhook) assert.isTrue(c.due < r.due, "a newer delivery went first")
              }
            }
          }
        }).pipe(
          // This run's leftovers must not be claimable by the next run (or test).
          Effect.ensuring(Effect.flatMap(Store, (store) =>
            Effect.forEach(endpoints, (w) => store.deliveries.cancelFor(w.webhook_id), { discard: true }).pipe(Effect.orDie)))
        )
      },
      { fastCheck: { numRuns: 15 } }
    )

    // Attempts --------------------------------------------------------------------------------------------------------

    it.scoped("recordAttempt: success ends the delivery", () =>
      Effect.gen(function*() {
        const { claim, endpoint, enqueue, event, store } = yield* world
        const [d] = yield* enqueue(yield* event(), [yield* endpoint()])
        const [c] = yield* claim(T0 + 1_000)
        yield* store.deliveries.recordAttempt({
          deliveryId: d!.delivery_id,
          attempt: c!.attempt,
          startedAt: at(T0 + 1_010),
          outcome: ok(40),
          nextAttemptAt: undefined
        })
        same(yield* getDelivery(store, d!.delivery_id), {
          ...d!,
          status: "succeeded",
          attempts: 1,
          next_attempt_at: null,
          last_status_code: 200,
          last_error: null,
          updated_at: at(T0 + 1_010)
        })
        same(yield* store.deliveries.attemptsOf(d!.delivery_id), [
          { attempt: 1, started_at: at(T0 + 1_010), status_code: 200, error: null, duration_ms: 40 }
        ])
        assert.deepStrictEqual(ids(yield* claim(T0 + 86_400_000)), [])
      }))

    it.scoped("recordAttempt: a failure schedules the next attempt; the last failure is final", () =>
      Effect.gen(function*() {
        const { claim, endpoint, enqueue, event, store } = yield* world
        const [d] = yield* enqueue(yield* event(), [yield* endpoint()])
        const [first] = yield* claim(T0 + 1_000)
        yield* store.deliveries.recordAttempt({
          deliveryId: d!.delivery_id,
          attempt: first!.attempt,
          startedAt: at(T0 + 1_000),
          outcome: serverError,
          nextAttemptAt: at(T0 + 6_000)
        })
        const rescheduled = yield* getDelivery(store, d!.delivery_id)
        same(
          [rescheduled.status, rescheduled.attempts, rescheduled.next_attempt_at, rescheduled.last_status_code],
          ["pending", 1, at(T0 + 6_000), 500]
        )
        // Due again at the scheduled time (the lease went with the recorded attempt), not before.
        assert.deepStrictEqual(ids(yield* claim(T0 + 5_999)), [])
        const [second] = yield* claim(T0 + 6_000)
        assert.strictEqual(second?.attempt, 2)
        yield* store.deliveries.recordAttempt({
          deliveryId: d!.delivery_id,
          attempt: 2,
          startedAt: at(T0 + 6_000),
          outcome: refused,
          nextAttemptAt: undefined
        })
        same(yield* getDelivery(store, d!.delivery_id), {
          ...d!,
          status: "failed",
          attempts: 2,
          next_attempt_at: null,
          last_status_code: null,
          last_error: "connection refused",
          updated_at: at(T0 + 6_000)
        })
        same(yield* store.deliveries.attemptsOf(d!.delivery_id), [
          { attempt: 1, started_at: at(T0 + 1_000), status_code: 500, error: null, duration_ms: 31 },
          { attempt: 2, started_at: at(T0 + 6_000), status_code: null, error: "connection refused", duration_ms: 2 }
        ])
        assert.deepStrictEqual(ids(yield* claim(T0 + 86_400_000)), [])
        same(yield* store.deliveries.attemptsOf(yield* newId<DeliveryId>("dlv")), [])
      }))

    it.scoped("recordAttempt: an attempt overtaken by a later claim, or by a cancellation, changes nothing", () =>
      Effect.gen(function*() {
        const { claim, endpoint, enqueue, event, store } = yield* world
        const w = yield* endpoint()
        const e = yield* event()
        const [d, cancelled] = yield* enqueue(e, [w, yield* endpoint()])
        yield* claim(T0, 100, 1_000)
        // Attempt 1's server stalls past its lease; attempt 2 is claimed meanwhile.
        const again = yield* claim(T0 + 1_000, 100, 30_000)
        assert.deepStrictEqual(ids(again).sort(), [`${d!.delivery_id}#2`, `${cancelled!.delivery_id}#2`].sort())
        yield* store.deliveries.recordAttempt({
          deliveryId: d!.delivery_id,
          attempt: 1,
          startedAt: at(T0 + 2_000),
          outcome: ok(),
          nextAttemptAt: undefined
        })
        const after = yield* getDelivery(store, d!.delivery_id)
        same([after.status, after.attempts, after.last_status_code], ["pending", 2, null])
        // Still attempt 2's: not claimable before its lease ends.
        assert.deepStrictEqual(ids(yield* claim(T0 + 30_999)), [])
        // Attempt 1 is still on record (it did reach the receiver).
        assert.deepStrictEqual((yield* store.deliveries.attemptsOf(d!.delivery_id)).map((a) => a.attempt), [1])
        yield* store.deliveries.recordAttempt({
          deliveryId: d!.delivery_id,
          attempt: 2,
          startedAt: at(T0 + 2_100),
          outcome: serverError,
          nextAttemptAt: at(T0 + 7_100)
        })
        const recorded = yield* getDelivery(store, d!.delivery_id)
        same([recorded.status, recorded.next_attempt_at, recorded.last_status_code], ["pending", at(T0 + 7_100), 500])

        // Cancelled while its attempt runs: the outcome is kept as an attempt, the delivery stays cancelled.
        assert.strictEqual(yield* store.deliveries.cancelFor(cancelled!.webhook_id), 1)
        yield* store.deliveries.recordAttempt({
          deliveryId: cancelled!.delivery_id,
          attempt: 2,
          startedAt: at(T0 + 2_000),
          outcome: ok(),
          nextAttemptAt: undefined
        })
        const stillCancelled = yield* getDelivery(store, cancelled!.delivery_id)
        same([stillCancelled.status, stillCancelled.last_status_code], ["cancelled", null])
        assert.deepStrictEqual((yield* store.deliveries.attemptsOf(cancelled!.delivery_id)).map((a) => a.attempt), [2])
        // An unknown delivery: nothing happens.
        yield* store.deliveries.recordAttempt({
          deliveryId: yield* newId<DeliveryId>("dlv"),
          attempt: 1,
          startedAt: at(T0),
          outcome: ok(),
          nextAttemptAt: undefined
        })
      }))

    it.scoped("recordAttempts: a batch applies each record by the rules of one, and a duplicate once", () =>
      Effect.gen(function*() {
        const { claim, endpoint, enqueue, event, store } = yield* world
        const e = yield* event()
        const [succeeds, retries, fails, stale] = yield* enqueue(e, [
          yield* endpoint(),
          yield* endpoint(),
          yield* endpoint(),
          yield* endpoint()
        ])
        assert.strictEqual((yield* claim(T0 + 1_000)).length, 4)
        const done = { deliveryId: succeeds!.delivery_id, attempt: 1, startedAt: at(T0 + 1_010), outcome: ok(40), nextAttemptAt: undefined }
        yield* store.deliveries.recordAttempts([
          done,
          { deliveryId: retries!.delivery_id, attempt: 1, startedAt: at(T0 + 1_020), outcome: serverError, nextAttemptAt: at(T0 + 6_020) },
          { deliveryId: fails!.delivery_id, attempt: 1, startedAt: at(T0 + 1_030), outcome: refused, nextAttemptAt: undefined },
          // An attempt the delivery is not at: kept as an attempt, the delivery unchanged.
          { deliveryId: stale!.delivery_id, attempt: 7, startedAt: at(T0 + 1_040), outcome: ok(), nextAttemptAt: undefined },
          // The same report twice, and one for a delivery that does not exist.
          { ...done, startedAt: at(T0 + 1_050), outcome: serverError, nextAttemptAt: at(T0 + 9_000) },
          { ...done, deliveryId: yield* newId<DeliveryId>("dlv") }
        ])
        const summary = (d: Delivery) => [d.status, d.attempts, d.next_attempt_at, d.last_status_code, d.last_error]
        same(summary(yield* getDelivery(store, succeeds!.delivery_id)), ["succeeded", 1, null, 200, null])
        same(summary(yield* getDelivery(store, retries!.delivery_id)), ["pending", 1, at(T0 + 6_020), 500, null])
        same(summary(yield* getDelivery(store, fails!.delivery_id)), ["failed", 1, null, null, "connection refused"])
        same(summary(yield* getDelivery(store, stale!.delivery_id)), ["pending", 1, at(T0), null, null])
        same(yield* store.deliveries.attemptsOf(succeeds!.delivery_id), [
          { attempt: 1, started_at: at(T0 + 1_010), status_code: 200, error: null, duration_ms: 40 }
        ])
        assert.deepStrictEqual((yield* store.deliveries.attemptsOf(stale!.delivery_id)).map((a) => a.attempt), [7])
        // Only the retry is due again, at its time; an empty batch changes nothing.
        yield* store.deliveries.recordAttempts([])
        assert.deepStrictEqual(ids(yield* claim(T0 + 6_019)), [])
        assert.deepStrictEqual(ids(yield* claim(T0 + 6_020)), [`${retries!.delivery_id}#2`])
      }))

    // Cancelling, deleting, retrying ---------------------------------------------------------------------------------

    it.scoped("cancelFor cancels the endpoint's pending deliveries, and only those", () =>
      Effect.gen(function*() {
        const { claim, endpoint, enqueue, event, store } = yield* world
        const w = yield* endpoint()
        const other = yield* endpoint()
        const [done] = yield* enqueue(yield* event(), [w])
        yield* claim(T0)
        yield* store.deliveries.recordAttempt({
          deliveryId: done!.delivery_id,
          attempt: 1,
          startedAt: at(T0),
          outcome: ok(),
          nextAttemptAt: undefined
        })
        const [p1] = yield* enqueue(yield* event(), [w])
        const [p2] = yield* enqueue(yield* event(), [w], { next_attempt_at: at(T0 + 3_600_000) })
        const [kept] = yield* enqueue(yield* event(), [other])

        assert.strictEqual(yield* store.deliveries.cancelFor(w.webhook_id), 2)
        for (const d of [p1!, p2!]) assert.strictEqual((yield* getDelivery(store, d.delivery_id)).status, "cancelled")
        assert.strictEqual((yield* getDelivery(store, done!.delivery_id)).status, "succeeded")
        assert.strictEqual((yield* getDelivery(store, kept!.delivery_id)).status, "pending")
        assert.strictEqual(yield* store.deliveries.cancelFor(w.webhook_id), 0)
        assert.deepStrictEqual(ids(yield* claim(T0 + 86_400_000)), [`${kept!.delivery_id}#1`])
      }))

    it.scoped("deleting an endpoint cancels its pending deliveries; they stay, listed as cancelled", () =>
      Effect.gen(function*() {
        const { claim, endpoint, enqueue, event, scope, store } = yield* world
        const w = yield* endpoint()
        const [done] = yield* enqueue(yield* event({ created_at: at(T0) }), [w])
        yield* claim(T0)
        yield* store.deliveries.recordAttempt({
          deliveryId: done!.delivery_id,
          attempt: 1,
          startedAt: at(T0),
          outcome: ok(),
          nextAttemptAt: undefined
        })
        const [pending] = yield* enqueue(yield* event({ created_at: at(T0 + 1_000) }), [w])
        const [leased] = yield* enqueue(yield* event({ created_at: at(T0 + 2_000) }), [w])
        yield* claim(T0 + 2_000)

        assert.isTrue(yield* store.webhooks.delete(scope, w.webhook_id))
        const listed = yield* store.deliveries.list({ webhook_id: w.webhook_id }, 10)
        assert.deepStrictEqual(
          listed.map((d) => [d.delivery_id, d.status]),
          [[leased!.delivery_id, "cancelled"], [pending!.delivery_id, "cancelled"], [done!.delivery_id, "succeeded"]]
        )
        assert.deepStrictEqual(ids(yield* claim(T0 + 86_400_000)), [])
        // The attempt that was running when the endpoint went changes nothing.
        yield* store.deliveries.recordAttempt({
          deliveryId: leased!.delivery_id,
          attempt: 1,
          startedAt: at(T0 + 2_000),
          outcome: serverError,
          nextAttemptAt: at(T0 + 7_000)
        })
        assert.strictEqual((yield* getDelivery(store, leased!.delivery_id)).status, "cancelled")
      }))

    it.scoped("retry: pending and due at once again, whatever the status; attempts go on counting", () =>
      Effect.gen(function*() {
        const { claim, endpoint, enqueue, event, store } = yield* world
        const w = yield* endpoint()
        const [succeeded, failed, cancelled, inFlight] = yield* enqueue(yield* event(), [
          w,
          yield* endpoint(),
          yield* endpoint(),
          yield* endpoint()
        ])
        yield* claim(T0)
        yield* store.deliveries.recordAttempt({
          deliveryId: succeeded!.delivery_id,
          attempt: 1,
          startedAt: at(T0),
          outcome: ok(),
          nextAttemptAt: undefined
        })
        yield* store.deliveries.recordAttempt({
          deliveryId: failed!.delivery_id,
          attempt: 1,
          startedAt: at(T0),
          outcome: refused,
          nextAttemptAt: undefined
        })
        yield* store.deliveries.cancelFor(cancelled!.webhook_id)

        const now = T0 + 10_000
        for (const d of [succeeded!, failed!, cancelled!, inFlight!]) {
          const retried = Option.getOrThrow(yield* store.deliveries.retry(d.delivery_id, at(now)))
          same([retried.status, retried.next_attempt_at, retried.attempts, retried.updated_at], [
            "pending",
            at(now),
            1,
            at(now)
          ])
          same(yield* store.deliveries.get(d.delivery_id), Option.some(retried))
        }
        // All four are claimable now, the one still in flight too (its lease went with the retry).
        assert.deepStrictEqual(
          ids(yield* claim(now)).sort(),
          [succeeded!, failed!, cancelled!, inFlight!].map((d) => `${d.delivery_id}#2`).sort()
        )
        assert.isTrue(Option.isNone(yield* store.deliveries.retry(yield* newId<DeliveryId>("dlv"), at(now))))
      }))

    // Reading -------------------------------------------------------------------------------------------------------

    it.scoped("list: by event, endpoint and status, newest first, at most `limit`", () =>
      Effect.gen(function*() {
        const { claim, endpoint, enqueue, event, store } = yield* world
        const w1 = yield* endpoint()
        const w2 = yield* endpoint()
        const e1 = yield* event({ created_at: at(T0) })
        const e2 = yield* event({ created_at: at(T0 + 1_000) })
        const [a, b] = yield* enqueue(e1, [w1, w2])
        const [c, d] = yield* enqueue(e2, [w1, w2])
        yield* claim(T0 + 1_000)
        yield* store.deliveries.recordAttempt({
          deliveryId: c!.delivery_id,
          attempt: 1,
          startedAt: at(T0 + 1_000),
          outcome: ok(),
          nextAttemptAt: undefined
        })
        const list = (filter: Parameters<StoreShape["deliveries"]["list"]>[0], limit = 10) =>
          Effect.map(store.deliveries.list(filter, limit), (ds) => ds.map((x) => x.delivery_id))
        // Newest first: created_at descending, then id descending (a and b were made together).
        const byId = (x: Delivery, y: Delivery) => (x.delivery_id < y.delivery_id ? 1 : -1)
        assert.deepStrictEqual(yield* list({ event_id: e1.event_id }), [a!, b!].sort(byId).map((x) => x.delivery_id))
        assert.deepStrictEqual(yield* list({ webhook_id: w1.webhook_id }), [c!.delivery_id, a!.delivery_id])
        assert.deepStrictEqual(yield* list({ webhook_id: w1.webhook_id }, 1), [c!.delivery_id])
        assert.deepStrictEqual(yield* list({ webhook_id: w1.webhook_id, status: "succeeded" }), [c!.delivery_id])
        assert.deepStrictEqual(yield* list({ webhook_id: w1.webhook_id, status: "pending" }), [a!.delivery_id])
        assert.deepStrictEqual(yield* list({ event_id: e2.event_id, webhook_id: w2.webhook_id }), [d!.delivery_id])
        assert.deepStrictEqual(yield* list({ event_id: e2.event_id, status: "failed" }), [])
        same(
          (yield* store.deliveries.list({ event_id: e2.event_id, webhook_id: w2.webhook_id }, 10))[0],
          yield* getDelivery(store, d!.delivery_id)
        )
      }))

    // Transactions and wake-ups -------------------------------------------------------------------------------------

    it.scoped("enqueue in a transaction that fails leaves nothing behind", () =>
      Effect.gen(function*() {
        const { claim, endpoint, event, store } = yield* world
        const w = yield* endpoint()
        const e = yield* event()
        const d = yield* makeDelivery(e, w)
        const exit = yield* Effect.exit(store.transact(Effect.zipRight(
          store.deliveries.enqueue([d]),
          Effect.fail("the payment's write failed" as const)
        )))
        assert.isTrue(Exit.isFailure(exit))
        assert.isTrue(Option.isNone(yield* store.deliveries.get(d.delivery_id)))
        assert.deepStrictEqual(yield* store.deliveries.list({ event_id: e.event_id }, 10), [])
        assert.deepStrictEqual(ids(yield* claim(T0 + 86_400_000)), [])
        // The same delivery queued for real is there.
        yield* store.transact(store.deliveries.enqueue([d]))
        same(yield* store.deliveries.get(d.delivery_id), Option.some(d))
      }))

    it.scoped("awaitWork: waits out its timeout when nothing is queued", () =>
      Effect.gen(function*() {
        const { store } = yield* world
        yield* quiet(store.deliveries)
        const started = Date.now()
        yield* store.deliveries.awaitWork(600)
        const elapsed = Date.now() - started
        assert.isAtLeast(elapsed, 550)
        assert.isBelow(elapsed, 3_000)
      }))

    it.scoped("awaitWork: wakes when deliveries are queued, or retried, well before its timeout", () =>
      Effect.gen(function*() {
        const { claim, endpoint, enqueue, event, store } = yield* world
        const w = yield* endpoint()
        yield* quiet(store.deliveries)
        const waiter = yield* startWaiting(store.deliveries, 20_000)
        const queuedAt = Date.now()
        const [d] = yield* enqueue(yield* event(), [w])
        assert.isBelow((yield* Fiber.join(waiter)) - queuedAt, 3_000, "woken by the enqueue")

        yield* claim(T0)
        yield* store.deliveries.recordAttempt({
          deliveryId: d!.delivery_id,
          attempt: 1,
          startedAt: at(T0),
          outcome: ok(),
          nextAttemptAt: undefined
        })
        yield* quiet(store.deliveries)
        const again = yield* startWaiting(store.deliveries, 20_000)
        const retriedAt = Date.now()
        yield* store.deliveries.retry(d!.delivery_id, at(T0 + 1_000))
        assert.isBelow((yield* Fiber.join(again)) - retriedAt, 3_000, "woken by the retry")
      }))
  })
