/**
 * Statements that lock many rows at once take them in one order (docs/architecture.md "Lock order"), so two of them
 * sharing rows never wait for each other in a cycle (a deadlock PostgreSQL breaks by failing one, 40P01). Within a
 * statement nothing can be paused, so each test lines the two up behind a third transaction that holds the first
 * row they share: the one that asked first gets it, and on the old orders it then waited for a row the second
 * already held while the second waited for it.
 */
import { assert, describe, it } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { SqlError } from "@effect/sql/SqlError"
import { Cause, Context, Duration, Effect, Exit, Fiber, Layer, Option } from "effect"
import { PgLive } from "../../adapters/sql/Postgres.js"
import { rotateWebhookSecrets } from "../../adapters/sql/repos/webhooks.js"
import * as Idempotency from "../../src/domain/Idempotency.js"
import type { StoreShape } from "../../src/ports/Store.js"
import { holdingLocks, migratedDatabaseUrl, waitsForLock } from "../support/database.js"
import { storeOn } from "../support/postgresStore.js"
import { at, getDelivery, makeDelivery, makeEndpoint, makeEvent, newAccount, ok, T0 } from "./webhookStoreContract.js"

/**
 * A migrated database with a store (a server's pool) and plain connections: one holds locks, one watches, one is
 * another process (`fils secrets rotate`).
 */
const database = Effect.gen(function*() {
  const url = yield* migratedDatabaseUrl
  const store = yield* storeOn(url, { maxConnections: 4 })
  const plain = () => Effect.map(Layer.build(PgLive(url, { maxConnections: 1 })), Context.get(SqlClient.SqlClient))
  return { store, holder: yield* plain(), monitor: yield* plain(), other: yield* plain() }
})

/** What an effect gave, if it ended well: not chosen as a deadlock's victim (the database's SQLSTATE otherwise). */
const succeeded = <A>(exit: Exit.Exit<A, unknown>): A => {
  if (Exit.isSuccess(exit)) return exit.value
  const error = Option.getOrUndefined(Option.orElse(Cause.dieOption(exit.cause), () => Cause.failureOption(exit.cause)))
  const database = error instanceof SqlError ? (error.cause as { code?: string; message?: string }) : undefined
  return assert.fail(database === undefined ? Cause.pretty(exit.cause) : `${database.code}: ${database.message}`)
}

/** `database` with an account in it, and its test mode's scope. */
const account = Effect.gen(function*() {
  const db = yield* database
  const a = yield* newAccount
  yield* db.store.accounts.insert(a)
  return { ...db, scope: { accountId: a.account_id, livemode: false } }
})

describe("lock order on PostgreSQL", () => {
  const record = (key: string, now: number): Idempotency.IdempotencyRecord => ({
    scope: "acct_lockorder:test",
    key,
    fingerprint: `POST /products ${key}`,
    response: null,
    lockedUntil: at(now + Duration.toMillis(Idempotency.lease)),
    expiresAt: at(now + Duration.toMillis(Idempotency.retention))
  })
  const created = { status: 201, body: "{}" }
  const refused = { status: 422, body: "{\"code\":\"INVALID_REQUEST\"}" }
  const completion = (r: Idempotency.IdempotencyRecord, response: Idempotency.StoredResponse) =>
    ({ scope: r.scope, key: r.key, fingerprint: r.fingerprint, response })

  /**
   * Two requests hold k1 and k0 (claimed in that order); their retries are claimed together (keys in byte order:
   * k0, k1) while the requests' responses are stored together in the order they finished (k1, k0).
   */
  const answersMeetRetries = (
    storeAll: (store: StoreShape, records: ReadonlyArray<Idempotency.IdempotencyRecord>) => Effect.Effect<unknown, unknown>
  ) =>
    Effect.gen(function*() {
      const { holder, monitor, store: s } = yield* database
      const [k1, k0] = [record("k1", T0), record("k0", T0)]
      assert.deepStrictEqual(yield* s.idempotency.claimAll([k1], at(T0)), [{ _tag: "Claimed" }])
      assert.deepStrictEqual(yield* s.idempotency.claimAll([k0], at(T0)), [{ _tag: "Claimed" }])

      const release = yield* holdingLocks(holder, holder`SELECT 1 FROM idempotency_keys WHERE key = 'k0' FOR UPDATE`)
      const retries = yield* Effect.fork(Effect.exit(s.idempotency.claimAll([k0, k1], at(T0 + 1_000))))
      yield* waitsForLock(monitor, "%INSERT INTO idempotency_keys%")
      const answers = yield* Effect.fork(Effect.exit(storeAll(s, [k1, k0])))
      yield* waitsForLock(monitor, "%UPDATE idempotency_keys%")
      yield* release

      const claimed = yield* Fiber.join(retries)
      const stored = yield* Fiber.join(answers)
      // The retries met the requests' records (still running when they asked): 409, not a second run.
      assert.deepStrictEqual(succeeded(claimed).map((c) => c._tag), ["Existing", "Existing"])
      return succeeded(stored)
    })

  it.scopedLive("responses stored together while retries of the same keys are claimed together", () =>
    Effect.gen(function*() {
      const stored = yield* answersMeetRetries((s, records) =>
        s.transact(s.idempotency.answerAll(records.map((r) => ({ completion: completion(r, created), lockedUntil: r.lockedUntil }))))
      )
      assert.deepStrictEqual(stored, [true, true])
    }), 30_000)

  it.scopedLive("refusals stored together while retries of the same keys are claimed together", () =>
    Effect.gen(function*() {
      yield* answersMeetRetries((s, records) => s.idempotency.completeAll(records.map((r) => completion(r, refused))))
    }), 30_000)

  it.scopedLive("an endpoint deleted while its deliveries' attempts are recorded", () =>
    Effect.gen(function*() {
      const { holder, monitor, scope, store } = yield* account
      const endpoint = yield* makeEndpoint(scope)
      yield* store.webhooks.insert(endpoint)
      const [e1, e2] = [yield* makeEvent(scope), yield* makeEvent(scope)]
      yield* store.events.insertAll([e1, e2])
      // `a` sorts first by id; `b` was queued and claimed first (a claim writes the row anew), is newer and due first:
      // however the delete's cancellation reads the endpoint's deliveries (the table in order, the endpoint's newest
      // first, by due time), it meets b first.
      const a = yield* makeDelivery(e1, endpoint, { created_at: at(T0), next_attempt_at: at(T0 + 1) })
      const b = yield* makeDelivery(e2, endpoint, { created_at: at(T0 + 1), next_attempt_at: at(T0) })
      assert.isTrue(a.delivery_id < b.delivery_id)
      yield* store.deliveries.enqueue([b])
      yield* store.deliveries.enqueue([a])
      for (const d of [b, a]) {
        const claimed = yield* store.deliveries.claimDue(at(T0 + 1_000), 1, 60_000)
        assert.deepStrictEqual(claimed.map((c) => c.delivery.delivery_id), [d.delivery_id])
      }

      const release = yield* holdingLocks(
        holder,
        holder`SELECT 1 FROM webhook_deliveries WHERE delivery_id = ${a.delivery_id} FOR UPDATE`
      )
      // Both attempts succeeded; the dispatcher records them together.
      const recording = yield* Effect.fork(Effect.exit(store.deliveries.recordAttempts([a, b].map((d) => ({
        deliveryId: d.delivery_id,
        attempt: 1,
        startedAt: at(T0 + 1_000),
        outcome: ok(),
        nextAttemptAt: undefined
      })))))
      yield* waitsForLock(monitor, "%INSERT INTO webhook_attempts%")
      const deleting = yield* Effect.fork(Effect.exit(store.webhooks.delete(scope, endpoint.webhook_id)))
      yield* waitsForLock(monitor, "%SET status = 'cancelled'%")
      yield* release

      const recorded = yield* Fiber.join(recording)
      const deleted = yield* Fiber.join(deleting)
      succeeded(recorded)
      assert.isTrue(succeeded(deleted))
      // Recorded first, the attempts stand: nothing was pending any more for the delete to cancel.
      for (const d of [a, b]) assert.strictEqual((yield* getDelivery(store, d.delivery_id)).status, "succeeded")
    }), 30_000)

  it.scopedLive("an event's deliveries queued while the webhook secrets are rotated", () =>
    Effect.gen(function*() {
      const { holder, monitor, other, scope, store } = yield* account
      // `a` sorts first by id, `b` was stored first: read in the table's order, b comes first.
      const a = yield* makeEndpoint(scope)
      const b = yield* makeEndpoint(scope)
      assert.isTrue(a.webhook_id < b.webhook_id)
      yield* store.webhooks.insert(b)
      yield* store.webhooks.insert(a)
      const event = yield* makeEvent(scope)
      yield* store.events.insert(event)
      const deliveries = [yield* makeDelivery(event, a), yield* makeDelivery(event, b)]

      const release = yield* holdingLocks(
        holder,
        holder`SELECT 1 FROM webhook_endpoints WHERE webhook_id = ${a.webhook_id} FOR UPDATE`
      )
      // `fils secrets rotate`, beside a running server.
      const rotating = yield* Effect.fork(Effect.exit(Effect.provideService(rotateWebhookSecrets, SqlClient.SqlClient, other)))
      yield* waitsForLock(monitor, `%FROM "webhook_endpoints"%FOR UPDATE%`)
      // The event's transaction queues a delivery to each endpoint (and holds them until it commits).
      const queueing = yield* Effect.fork(Effect.exit(store.transact(store.deliveries.enqueue(deliveries))))
      yield* waitsForLock(monitor, "%FOR SHARE%")
      yield* release

      const rotated = yield* Fiber.join(rotating)
      const queued = yield* Fiber.join(queueing)
      assert.strictEqual(succeeded(rotated).endpoints, 2)
      succeeded(queued)
      for (const d of deliveries) assert.strictEqual((yield* getDelivery(store, d.delivery_id)).status, "pending")
    }), 30_000)
})
