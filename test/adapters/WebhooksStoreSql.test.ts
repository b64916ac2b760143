/**
 * The webhook store contract on PostgreSQL, plus what only a real database shows: dispatchers on separate pools
 * (servers) claiming at once, NOTIFY at commit reaching another pool's LISTEN, queueing racing a delete or a disable,
 * attempts recorded once whoever reports them, and a listener that recovers from a lost connection.
 */
import { assert, describe, it } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { SqlError } from "@effect/sql/SqlError"
import { PgClient } from "@effect/sql-pg"
import { Cause, Context, Deferred, Duration, Effect, Exit, Fiber, Layer, Option, Redacted } from "effect"
import { PgLive } from "../../adapters/sql/Postgres.js"
import { makeDeliveryWakeups } from "../../adapters/sql/repos/deliveries.js"
import { StoreSql } from "../../adapters/sql/StoreSql.js"
import type { Scope as AccountScope } from "../../src/domain/Account.js"
import type { StoreUnavailable } from "../../src/domain/Errors.js"
import type { WebhookEndpoint } from "../../src/domain/WebhookEndpoint.js"
import { type Delivery, Store, type StoreShape } from "../../src/ports/Store.js"
import { FreshDatabase, migratedDatabaseUrl, waitsForLock } from "../support/database.js"
import { storeOn } from "../support/postgresStore.js"
import {
  at,
  getDelivery,
  ids,
  makeDelivery,
  makeEndpoint,
  makeEvent,
  millis,
  newAccount,
  ok,
  quiet,
  refused,
  same,
  serverError,
  startWaiting,
  T0,
  webhookStoreContract
} from "./webhookStoreContract.js"

webhookStoreContract("StoreSql (PostgreSQL)", StoreSql.pipe(Layer.provide(FreshDatabase())))

/** A plain connection to look at the database from outside the stores. */
const monitorOn = (url: Redacted.Redacted) =>
  Effect.map(Layer.build(PgLive(url, { maxConnections: 1 })), Context.get(SqlClient.SqlClient))

/** A migrated database with `n` stores on it (each its own pool), one account and one endpoint. */
const servers = (n: number) =>
  Effect.gen(function*() {
    const url = yield* migratedDatabaseUrl
    const stores = yield* Effect.all(Array.from({ length: n }, () => storeOn(url, { maxConnections: 4 })))
    const account = yield* newAccount
    yield* stores[0]!.accounts.insert(account)
    const scope: AccountScope = { accountId: account.account_id, livemode: false }
    const endpoint = yield* makeEndpoint(scope)
    yield* stores[0]!.webhooks.insert(endpoint)
    return { url, stores, scope, endpoint, monitor: yield* monitorOn(url) }
  })

/** The SQLSTATE and constraint of the database error behind a defect. */
const refusal = (exit: Exit.Exit<unknown, unknown>): readonly [string | undefined, string | undefined] => {
  if (Exit.isSuccess(exit)) return assert.fail("expected the database to refuse the statement")
  const defect = Cause.dieOption(exit.cause)
  assert.isTrue(Option.isSome(defect), `a defect, not ${Cause.pretty(exit.cause)}`)
  const error = Option.getOrThrow(defect)
  assert.instanceOf(error, SqlError)
  const cause = (error as SqlError).cause as { code?: string; constraint?: string }
  return [cause.code, cause.constraint]
}

const refuses = <A, E>(code: string, constraint: string, effect: Effect.Effect<A, E>) =>
  Effect.map(Effect.exit(effect), (exit) => assert.deepStrictEqual(refusal(exit), [code, constraint]))

describe("StoreSql on PostgreSQL: webhooks", () => {
  it.scopedLive("migration 0005: the schema refuses what the domain never makes", () =>
    Effect.gen(function*() {
      const { monitor, scope, stores: [store] } = yield* servers(1)
      const applied = yield* monitor<{ name: string }>`SELECT name FROM effect_sql_migrations ORDER BY migration_id`
      assert.include(applied.map((r) => r.name), "webhooks")

      const endpoint = (overrides: Partial<WebhookEndpoint>, s: AccountScope = scope) =>
        Effect.flatMap(makeEndpoint(s, overrides), store!.webhooks.insert)
      yield* refuses("23514", "webhook_endpoints_event_types_check", endpoint({ event_types: [] }))
      yield* refuses(
        "23514",
        "webhook_endpoints_event_types_check",
        endpoint({ event_types: ["payment.succeeded", "payment.refunded" as never] })
      )
      yield* refuses("23514", "webhook_endpoints_live_https", endpoint({ url: "http://hooks.souq.ae/" }, { ...scope, livemode: true }))
      yield* refuses("23514", "webhook_endpoints_url_check", endpoint({ url: "ftp://hooks.souq.ae/" }))
      yield* refuses("23514", "webhook_endpoints_secret_check", endpoint({ secret: Redacted.make("s3cret") }))
      // Every one of the seven types is accepted.
      yield* endpoint({
        event_types: [
          "payment.succeeded",
          "payment.failed",
          "refund.succeeded",
          "subscription.active",
          "subscription.renewed",
          "subscription.on_hold",
          "subscription.cancelled"
        ]
      })

      const w = yield* makeEndpoint(scope)
      yield* store!.webhooks.insert(w)
      const e = yield* makeEvent(scope)
      yield* store!.events.insert(e)
      const queue = (overrides: Partial<Delivery>) =>
        Effect.flatMap(makeDelivery(e, w, overrides), (d) => store!.deliveries.enqueue([d]))
      yield* refuses("23514", "webhook_deliveries_status_check", queue({ status: "sent" as never, next_attempt_at: null }))
      yield* refuses("23514", "webhook_deliveries_schedule", queue({ next_attempt_at: null }))
      yield* refuses("23514", "webhook_deliveries_schedule", queue({ status: "succeeded" }))
      // An event of another account or mode: the reference carries the scope.
      yield* refuses("23503", "webhook_deliveries_event", queue({ livemode: true }))
      yield* queue({})
      yield* refuses("23505", "webhook_deliveries_one_per_endpoint", queue({}))
    }))

  it.scopedLive("two dispatchers on separate pools, 50 due deliveries: no (delivery, attempt) is claimed twice", () =>
    Effect.gen(function*() {
      const { endpoint, monitor, scope, stores } = yield* servers(2)
      const more = yield* Effect.forEach([1, 2, 3, 4], () => makeEndpoint(scope))
      yield* Effect.forEach(more, stores[0]!.webhooks.insert)
      const endpoints = [endpoint, ...more]
      const queued: Array<Delivery> = []
      for (let i = 0; i < 10; i++) {
        const e = yield* makeEvent(scope, { created_at: at(T0 + i) })
        yield* stores[0]!.events.insert(e)
        queued.push(...(yield* Effect.forEach(endpoints, (w) => makeDelivery(e, w))))
      }
      yield* stores[1]!.deliveries.enqueue(queued)
      assert.strictEqual(queued.length, 50)

      const NOW = T0 + 60_000
      const claims = new Map<string, number>()
      const duplicates: Array<string> = []
      const byWorker = [0, 0]
      // As the dispatcher does: claim a batch, "send" each (a few ms), record; attempts 1 and 2 fail and are due
      // again at once, attempt 3 succeeds. Stops when nothing is pending any more.
      const worker = (store: StoreShape, index: number) =>
        Effect.gen(function*() {
          for (;;) {
            const claimed = yield* store.deliveries.claimDue(at(NOW), 5, 60_000)
            if (claimed.length === 0) {
              if ((yield* store.deliveries.list({ status: "pending" }, 1)).length === 0) return
              yield* Effect.sleep("2 millis")
              continue
            }
            yield* Effect.forEach(claimed, (c) =>
              Effect.gen(function*() {
                const key = `${c.delivery.delivery_id}#${c.attempt}`
                if (claims.has(key)) duplicates.push(key)
                claims.set(key, index)
                byWorker[index]!++
                yield* Effect.sleep(Duration.millis(Math.floor(Math.random() * 4)))
                yield* store.deliveries.recordAttempt({
                  deliveryId: c.delivery.delivery_id,
                  attempt: c.attempt,
                  startedAt: at(NOW),
                  outcome: c.attempt < 3 ? serverError : ok(),
                  nextAttemptAt: c.attempt < 3 ? at(NOW) : undefined
                })
              }), { concurrency: 5, discard: true })
          }
        })
      yield* Effect.all(stores.map(worker), { concurrency: "unbounded" })

      assert.deepStrictEqual(duplicates, [], "claimed twice")
      assert.strictEqual(claims.size, 150)
      assert.isTrue(byWorker.every((n) => n > 0), `both dispatchers worked: ${byWorker.join(", ")}`)
      const recorded = yield* monitor<{ delivery_id: string; attempts: Array<number> }>`
        SELECT delivery_id, array_agg(attempt ORDER BY attempt) AS attempts FROM webhook_attempts GROUP BY delivery_id`
      assert.strictEqual(recorded.length, 50)
      assert.isTrue(recorded.every((r) => r.attempts.join(",") === "1,2,3"), "every attempt once per delivery")
      for (const d of queued) {
        const after = yield* getDelivery(stores[0]!, d.delivery_id)
        same([after.status, after.attempts], ["succeeded", 3])
      }
    }))

  it.scopedLive("a delivery queued as of a future instant (billing run --at) is due now, not then", () =>
    Effect.gen(function*() {
      const { endpoint, scope, stores } = yield* servers(1)
      const monthAhead = Date.now() + 30 * 24 * 3600_000
      const e = yield* makeEvent(scope, { created_at: at(monthAhead) })
      yield* stores[0]!.events.insert(e)
      const d = yield* makeDelivery(e, endpoint)
      yield* stores[0]!.deliveries.enqueue([d])
      const queued = yield* getDelivery(stores[0]!, d.delivery_id)
      assert.isAtMost(millis(queued.next_attempt_at!), Date.now(), "scheduled no later than the real now")
      const claimed = yield* stores[0]!.deliveries.claimDue(at(Date.now()), 10, 60_000)
      assert.deepStrictEqual(claimed.map((c) => c.delivery.delivery_id), [d.delivery_id])
    }))

  it.scopedLive("NOTIFY at commit: one pool's commit wakes another pool's awaitWork; rollbacks and claims wake nobody", () =>
    Effect.gen(function*() {
      const { endpoint, scope, stores: [a, b] } = yield* servers(2)
      const e = yield* makeEvent(scope)
      yield* a!.events.insert(e)

      // Queued in a transaction that commits 600 ms later: b wakes at the commit, not before.
      yield* quiet(b!.deliveries)
      const waiter = yield* startWaiting(b!.deliveries, 20_000)
      const d = yield* makeDelivery(e, endpoint)
      yield* a!.transact(Effect.zipRight(a!.deliveries.enqueue([d]), Effect.sleep("600 millis")))
      const committedAt = Date.now()
      const wokeAt = yield* Fiber.join(waiter)
      assert.isAtLeast(wokeAt, committedAt - 50, "woken only by the commit")
      assert.isBelow(wokeAt - committedAt, 3_000)

      /** `awaitWork(1500)` on b while `effect` runs on a: true when it waited the whole timeout. */
      const sleepsThrough = <A, E>(effect: Effect.Effect<A, E>) =>
        Effect.gen(function*() {
          yield* quiet(b!.deliveries)
          const started = Date.now()
          const waiting = yield* Effect.fork(b!.deliveries.awaitWork(1_500))
          yield* Effect.exit(effect)
          yield* Fiber.join(waiting)
          return Date.now() - started >= 1_450
        })
      const other = yield* makeEvent(scope)
      yield* a!.events.insert(other)
      const rolledBack = yield* makeDelivery(other, endpoint)
      assert.isTrue(
        yield* sleepsThrough(a!.transact(Effect.zipRight(a!.deliveries.enqueue([rolledBack]), Effect.fail("no")))),
        "a rollback wakes nobody"
      )
      assert.isTrue(Option.isNone(yield* a!.deliveries.get(rolledBack.delivery_id)))
      assert.isTrue(yield* sleepsThrough(a!.deliveries.claimDue(at(T0 + 1_000), 10, 30_000)), "a claim wakes nobody")
      assert.isTrue(yield* sleepsThrough(a!.deliveries.cancelFor(endpoint.webhook_id)), "a cancellation wakes nobody")
      assert.strictEqual((yield* getDelivery(a!, d.delivery_id)).status, "cancelled")
      // And a retry does wake it (the control: b is still listening).
      assert.isFalse(yield* sleepsThrough(a!.deliveries.retry(d.delivery_id, at(T0 + 2_000))), "a retry wakes it")
    }))

  it.scopedLive("queueing racing a delete or a disable of the endpoint leaves nothing pending for it", () =>
    Effect.gen(function*() {
      const { endpoint, monitor, scope, stores: [a, b] } = yield* servers(2)
      // One endpoint at a time subscribes below.
      assert.isTrue(yield* a!.webhooks.delete(scope, endpoint.webhook_id))

      /**
       * recordEvent's transaction on server a, in two halves: read the subscribed endpoints, then (after `between`)
       * queue one delivery for each and keep the transaction open until `end`.
       */
      const recordEvent = (between: Effect.Effect<unknown, StoreUnavailable>, end: Effect.Effect<void>) =>
        a!.transact(Effect.gen(function*() {
          const e = yield* makeEvent(scope)
          yield* a!.events.insert(e)
          const endpoints = yield* a!.webhooks.subscribed(scope, e.type)
          assert.strictEqual(endpoints.length, 1)
          yield* between
          const queued = yield* Effect.forEach(endpoints, (w) => makeDelivery(e, w))
          yield* a!.deliveries.enqueue(queued)
          yield* end
          return queued[0]!
        }))
      const freshEndpoint = Effect.tap(makeEndpoint(scope), (w) => a!.webhooks.insert(w))
      type Change = (w: WebhookEndpoint) => Effect.Effect<boolean | number, StoreUnavailable>
      const remove: Change = (w) => b!.webhooks.delete(scope, w.webhook_id)
      const disable: Change = (w) =>
        b!.transact(Effect.zipRight(b!.webhooks.update({ ...w, disabled: true }), b!.deliveries.cancelFor(w.webhook_id)))
      const expectCancelled = (d: Delivery) =>
        Effect.gen(function*() {
          const after = yield* getDelivery(a!, d.delivery_id)
          same([after.status, after.next_attempt_at], ["cancelled", null])
          assert.deepStrictEqual(ids(yield* a!.deliveries.claimDue(at(T0 + 86_400_000), 100, 30_000)), [])
        })

      // The delete (or disable) commits between the read and the enqueue: the delivery is queued cancelled.
      for (const change of [remove, disable]) {
        const w = yield* freshEndpoint
        const d = yield* recordEvent(change(w), Effect.void)
        yield* expectCancelled(d)
      }

      // The enqueue comes first: the delete (or disable) waits for the event's transaction, then cancels it.
      for (
        const [change, pattern] of [
          [remove, "DELETE FROM webhook_endpoints%"],
          [disable, "UPDATE webhook_endpoints%"]
        ] as const
      ) {
        const w = yield* freshEndpoint
        const queued = yield* Deferred.make<void>()
        const go = yield* Deferred.make<void>()
        const event = yield* Effect.fork(recordEvent(Effect.void, Effect.zipRight(Deferred.succeed(queued, undefined), Deferred.await(go))))
        yield* Deferred.await(queued)
        const changing = yield* Effect.fork(change(w))
        yield* waitsForLock(monitor, pattern)
        yield* Deferred.succeed(go, undefined)
        const d = yield* Fiber.join(event)
        const changed = yield* Fiber.join(changing)
        assert.isTrue(changed === true || changed === 1, `the change went through: ${changed}`)
        yield* expectCancelled(d)
      }
    }))

  it.scopedLive("recordAttempt: one attempt is recorded once, whoever reports it; a retry by hand overtakes one in flight", () =>
    Effect.gen(function*() {
      const { endpoint, scope, stores } = yield* servers(3)
      const e = yield* makeEvent(scope)
      yield* stores[0]!.events.insert(e)
      const second = yield* makeEndpoint(scope)
      yield* stores[0]!.webhooks.insert(second)
      const d = yield* makeDelivery(e, endpoint)
      const inFlight = yield* makeDelivery(e, second)
      yield* stores[0]!.deliveries.enqueue([d, inFlight])
      assert.strictEqual((yield* stores[1]!.deliveries.claimDue(at(T0), 10, 30_000)).length, 2)

      // Three servers report attempt 1 at once, with different outcomes: one report counts, entirely.
      const outcomes = [ok(5), serverError, refused]
      yield* Effect.all(
        stores.map((store, i) =>
          store.deliveries.recordAttempt({
            deliveryId: d.delivery_id,
            attempt: 1,
            startedAt: at(T0 + i),
            outcome: outcomes[i]!,
            nextAttemptAt: outcomes[i]!.ok ? undefined : at(T0 + 5_000)
          })
        ),
        { concurrency: "unbounded" }
      )
      const attempts = yield* stores[0]!.deliveries.attemptsOf(d.delivery_id)
      assert.strictEqual(attempts.length, 1)
      const winner = millis(attempts[0]!.started_at) - T0
      const after = yield* getDelivery(stores[0]!, d.delivery_id)
      same(
        [after.last_status_code, after.last_error, after.status],
        [outcomes[winner]!.statusCode, outcomes[winner]!.error, outcomes[winner]!.ok ? "succeeded" : "pending"]
      )

      // Retried by hand while attempt 1 runs: the attempt is kept on record but the delivery goes by the retry.
      yield* stores[0]!.deliveries.retry(inFlight.delivery_id, at(T0 + 1_000))
      yield* stores[1]!.deliveries.recordAttempt({
        deliveryId: inFlight.delivery_id,
        attempt: 1,
        startedAt: at(T0 + 500),
        outcome: ok(),
        nextAttemptAt: undefined
      })
      const retried = yield* getDelivery(stores[0]!, inFlight.delivery_id)
      same([retried.status, retried.next_attempt_at, retried.last_status_code], ["pending", at(T0 + 1_000), null])
      assert.deepStrictEqual((yield* stores[0]!.deliveries.attemptsOf(inFlight.delivery_id)).map((a) => a.attempt), [1])
      assert.deepStrictEqual(ids(yield* stores[2]!.deliveries.claimDue(at(T0 + 1_000), 10, 30_000)), [
        `${inFlight.delivery_id}#2`
      ])
    }))

  it.scopedLive("the failing streak under two recordings at once: a success recorded while another server records an earlier failure clears it, as one after the other would; attempts that kept their body show it", () =>
    Effect.gen(function*() {
      const { endpoint, monitor, scope, stores } = yield* servers(2)
      const [a, b] = stores
      const queued = yield* Effect.forEach([1, 2], () =>
        Effect.gen(function*() {
          const e = yield* makeEvent(scope)
          yield* a!.events.insert(e)
          return yield* makeDelivery(e, endpoint)
        }))
      yield* a!.deliveries.enqueue(queued)
      assert.strictEqual((yield* a!.deliveries.claimDue(at(T0), 10, 30_000)).length, 2)
      const [failed, succeeded] = queued

      // Server a records a failure (its streak's first row) and has not committed when server b records a later
      // success. Before, b's statement read no row in its snapshot, deleted nothing, and a's failure stood as a
      // streak though a success came after it. Now b queues on the row a is writing and computes from it.
      const go = yield* Deferred.make<void>()
      const recorded = yield* Deferred.make<void>()
      const first = yield* Effect.fork(a!.transact(Effect.gen(function*() {
        yield* a!.deliveries.recordAttempt({ deliveryId: failed!.delivery_id, attempt: 1, startedAt: at(T0 + 10), outcome: serverError, nextAttemptAt: at(T0 + 5_010) })
        yield* Deferred.succeed(recorded, undefined)
        yield* Deferred.await(go)
      })))
      yield* Deferred.await(recorded)
      const second = yield* Effect.fork(
        b!.deliveries.recordAttempt({ deliveryId: succeeded!.delivery_id, attempt: 1, startedAt: at(T0 + 20), outcome: ok(), nextAttemptAt: undefined })
      )
      // b waits for a's row (before, it did not wait at all: it finished on its own). Its statement is long: the start
      // of its text is what pg_stat_activity keeps.
      yield* Effect.raceFirst(waitsForLock(monitor, "%WITH input AS%"), Fiber.await(second))
      yield* Deferred.succeed(go, undefined)
      yield* Fiber.join(first)
      yield* Fiber.join(second)
      const health = (yield* a!.webhooks.health([endpoint.webhook_id], at(T0))).get(endpoint.webhook_id)!
      same([health.failingSince, health.attempts, health.failed], [null, 2, 1])

      // The row stays (its streak null) and moves on from there: a later failure starts a streak.
      yield* b!.deliveries.recordAttempt({ deliveryId: failed!.delivery_id, attempt: 2, startedAt: at(T0 + 30), outcome: refused, nextAttemptAt: undefined })
      same((yield* a!.webhooks.health([endpoint.webhook_id], at(T0))).get(endpoint.webhook_id)!.failingSince, at(T0 + 30))

      // The delivery log (on this database, to spare another): an attempt recorded with its body, before the body
      // was made again from the event, shows it as kept; recorded now, no body is stored.
      const bodies = monitor<{ n: number }>`SELECT count(*)::int AS n FROM webhook_attempts
        WHERE webhook_id = ${endpoint.webhook_id} AND request_body IS NOT NULL`
      assert.strictEqual((yield* bodies)[0]!.n, 0)
      yield* monitor`INSERT INTO webhook_attempts (delivery_id, attempt, webhook_id, started_at, status_code, ok, error,
          duration_ms, request_headers, request_body, response_body)
        VALUES (${succeeded!.delivery_id}, 2, ${endpoint.webhook_id}, ${new Date(T0 + 40)}, 200, true, NULL, 12,
          '{"webhook-id":"evt_x"}'::jsonb, '{"kept":"as sent"}', 'ok')`
      const page = yield* a!.deliveries.pageOf(endpoint.webhook_id, { limit: 5, after: undefined })
      const shown = page.items.find((d) => d.delivery_id === succeeded!.delivery_id)!
      same([shown.request_body, shown.attempts.map((x) => x.request)], ['{"kept":"as sent"}', [null, { headers: { "webhook-id": "evt_x" } }]])
    }))

  it.scopedLive("the listener notices a lost LISTEN connection and listens again on a new one", () =>
    Effect.gen(function*() {
      const url = yield* migratedDatabaseUrl
      const context = yield* Layer.build(PgLive(url, { maxConnections: 2 }))
      const wakeups = yield* makeDeliveryWakeups({ heartbeat: "200 millis", probeTimeout: "500 millis" }).pipe(
        Effect.provide(context)
      )
      const monitor = yield* monitorOn(url)
      const listeners = monitor<{ pid: number }>`SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND query = 'LISTEN "fils_deliveries"'`
      const notifyDue = monitor`SELECT pg_notify('fils_deliveries', 'due')`

      // The first call starts the listener and returns once it listens (what was queued meanwhile may be due).
      let started = Date.now()
      yield* wakeups.awaitWork(10_000)
      assert.isBelow(Date.now() - started, 5_000)
      const [first] = yield* listeners
      assert.isDefined(first)
      yield* quiet(wakeups)
      const waiter = yield* startWaiting(wakeups, 20_000)
      let notifiedAt = Date.now()
      yield* notifyDue
      assert.isBelow((yield* Fiber.join(waiter)) - notifiedAt, 3_000)

      // The connection is killed: the next heartbeat notices, a new connection listens, and waiters are woken.
      yield* monitor`SELECT pg_terminate_backend(${first!.pid})`
      started = Date.now()
      yield* wakeups.awaitWork(20_000)
      assert.isBelow(Date.now() - started, 10_000, "woken when it listened again")
      const again = yield* listeners
      assert.strictEqual(again.length, 1)
      assert.notStrictEqual(again[0]!.pid, first!.pid)
      yield* quiet(wakeups)
      const next = yield* startWaiting(wakeups, 20_000)
      notifiedAt = Date.now()
      yield* notifyDue
      assert.isBelow((yield* Fiber.join(next)) - notifiedAt, 3_000)
    }))

  it.scopedLive("without a PgClient (another SqlClient), awaitWork is its timeout and the store works", () =>
    Effect.gen(function*() {
      const { endpoint, scope, stores: [a], url } = yield* servers(1)
      const sqlOnly = Context.omit(PgClient.PgClient)(yield* Layer.build(PgLive(url, { maxConnections: 2 })))
      const store = Context.get(yield* Layer.build(StoreSql.pipe(Layer.provide(Layer.succeedContext(sqlOnly)))), Store)
      const e = yield* makeEvent(scope)
      yield* store.events.insert(e)
      const started = Date.now()
      const waiting = yield* Effect.fork(store.deliveries.awaitWork(800))
      yield* Effect.sleep("200 millis")
      const d = yield* makeDelivery(e, endpoint)
      yield* a!.deliveries.enqueue([d])
      yield* Fiber.join(waiting)
      assert.isAtLeast(Date.now() - started, 750)
      same(yield* store.deliveries.get(d.delivery_id), Option.some(d))
    }))
})
