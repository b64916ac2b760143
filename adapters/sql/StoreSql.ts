/**
 * The Store port on PostgreSQL through @effect/sql (any SqlClient of the pg dialect; `Postgres.ts` builds one).
 *
 * Same contract as StoreMemory (the shared suite runs against both): every read and write of merchant data is
 * scoped by account and mode; lists are newest first with a `(created_at, id)` keyset; idempotency claims and
 * rate-limit hits are single atomic statements, so any number of servers can share the database. SQL errors stop
 * here: an unreachable database is `StoreUnavailable`, anything else a defect.
 *
 * The repositories' functions make no spans of their own (`Effect.fnUntraced`): each statement already has its
 * `sql.execute` span with its text, inside the use case's span. A span costs tens of microseconds under load, and
 * one per store call doubled the spans of every request.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import { Duration, Effect, Either, Layer, Option, Schedule, type Scope, Stream } from "effect"
import type { ApiKeyId } from "../../src/domain/Ids.js"
import type { StoreUnavailable } from "../../src/domain/Errors.js"
import type { Claim, IdempotencyRecord } from "../../src/domain/Idempotency.js"
import { idempotencyResponseContext, SecretBox } from "../../src/ports/SecretBox.js"
import { anyKey, layerStore, type Repositories, Store, type StoreShape } from "../../src/ports/Store.js"
import { PgCopy } from "./Copy.js"
import { listenService } from "./Listen.js"
import { makeQueries } from "./queries.js"
import { makeDeliveriesRepo, makeDeliveryWakeups } from "./repos/deliveries.js"
import { makeDiscountsRepo } from "./repos/discounts.js"
import { makeTestClocksRepo } from "./repos/testClocks.js"
import { makeEInvoicesRepo } from "./repos/einvoices.js"
import { makeEventsRepo } from "./repos/events.js"
import { makeRequestLogsRepo } from "./repos/requestLogs.js"
import { makePaymentsRepo } from "./repos/payments.js"
import { makeDocumentsRepo } from "./repos/documents.js"
import { makeRefundsRepo } from "./repos/refunds.js"
import { makeDashboardRepo } from "./repos/dashboard.js"
import { makePortalSessionsRepo } from "./repos/portal.js"
import { makeSessionsRepo } from "./repos/sessions.js"
import { makeStats } from "./repos/stats.js"
import { makeSubscriptionsRepo } from "./repos/subscriptions.js"
import { checkSecretKeys, makeWebhooksRepo, withOpenedSecrets } from "./repos/webhooks.js"
import * as Rows from "./rows.js"
import { isUnavailable, orUnavailable, unavailable } from "./SqlErrors.js"

/** Readiness must answer quickly even when an open connection hangs (the pool bounds only connecting). */
const pingTimeout = Duration.seconds(3)

/**
 * Scoped: the scope holds the LISTEN connection that wakes the webhook dispatcher (repos/deliveries.ts), opened by
 * the first `deliveries.awaitWork` when the context has a PgClient (without one, dispatchers poll).
 */
/** The channel `api_keys` revocations are announced on. */
export const revocationsChannel = "fils_api_key_revoked"

export const makeStoreSql: Effect.Effect<StoreShape, never, SqlClient.SqlClient | Scope.Scope> = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const wakeups = yield* makeDeliveryWakeups()
  // Webhook secrets at rest (plaintext unless a keyed SecretBox is provided); refuse keys that cannot open them.
  const box = yield* SecretBox
  yield* checkSecretKeys(sql, box).pipe(
    Effect.catchAll((error) =>
      error._tag === "SecretBoxError"
        ? Effect.dieMessage(error.message)
        : isUnavailable(error)
        ? Effect.logWarning("webhook secret keys not checked: database unavailable")
        : Effect.die(error)
    )
  )

  // Revocations from every process, on a LISTEN connection of their own. Listening again (a lost connection, a
  // failover) says `anyKey` first: what was revoked while nobody listened is unknown. The backoff stays under a
  // second, so a revocation reaches this process within about a second of the database coming back. Without a
  // LISTEN, the cache's TTL is all there is.
  const listener = yield* listenService
  const keyRevocations: Stream.Stream<ApiKeyId | typeof anyKey> = Option.match(listener, {
    onNone: () => Stream.never,
    onSome: (listen) =>
      Stream.concat(Stream.succeed(anyKey), listen.listen(revocationsChannel) as Stream.Stream<ApiKeyId, unknown>).pipe(
        Stream.retry(Schedule.exponential("50 millis").pipe(Schedule.union(Schedule.spaced("500 millis")))),
        Stream.orDie // the schedule never ends
      )
  })

  const queries = makeQueries(sql)
  const copy = yield* Effect.serviceOption(PgCopy)
  const { findAll, first, forUpdateInTransaction, inScope, page } = queries

  /** Nested calls join the running transaction (as in memory), instead of opening a savepoint. */
  const transact = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | StoreUnavailable, R> =>
    Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (running): Effect.Effect<A, E | StoreUnavailable, R> =>
      Option.isSome(running)
        ? effect
        : sql.withTransaction(effect).pipe(
          Effect.catchIf(
            (error): error is SqlError => error instanceof SqlError,
            (error) => isUnavailable(error) ? Effect.fail(unavailable()) : Effect.die(error)
          ),
          // @effect/sql makes a failed COMMIT or ROLLBACK a defect. A lost connection there is an unreachable store
          // like any other (a COMMIT's fate is then unknown: whoever must know reads again).
          Effect.catchSomeDefect((defect) =>
            defect instanceof SqlError && isUnavailable(defect) ? Option.some(Effect.fail(unavailable())) : Option.none()
          )
        ))

  const inTransaction = Effect.map(Effect.serviceOption(SqlClient.TransactionConnection), Option.isSome)

  const accounts: StoreShape["accounts"] = {
    insert: Effect.fnUntraced(function*(account) {
      yield* sql`INSERT INTO accounts ${sql.insert(Rows.accountToRow(account))}`
    }, orUnavailable),
    get: Effect.fnUntraced(function*(id) {
      return first(yield* sql<Rows.AccountRow>`SELECT * FROM accounts WHERE account_id = ${id}`, Rows.accountFromRow)
    }, orUnavailable),
    findAll: Effect.fnUntraced(function*(ids) {
      if (ids.length === 0) return []
      return (yield* sql<Rows.AccountRow>`SELECT * FROM accounts WHERE account_id IN ${sql.in(ids)}`).map(Rows.accountFromRow)
    }, orUnavailable),
    lock: Effect.fnUntraced(function*(id) {
      const lock = yield* forUpdateInTransaction
      return first(yield* sql<Rows.AccountRow>`SELECT * FROM accounts WHERE account_id = ${id} ${lock}`, Rows.accountFromRow)
    }, orUnavailable),
    update: Effect.fnUntraced(function*(account) {
      const { account_id, created_at: _, ...changes } = Rows.accountToRow(account)
      yield* sql`UPDATE accounts SET ${sql.update(changes)} WHERE account_id = ${account_id}`
    }, orUnavailable),
    // The change and the recount of the account's days are one function (migration 0031), its locking included.
    setTimeZone: Effect.fnUntraced(function*(id, zone) {
      const rows = yield* sql<{ readonly known: boolean }>`SELECT fils_set_time_zone(${id}, ${zone}) AS known`
      return rows[0]?.known === true
    }, orUnavailable),
    count: sql<{ n: number }>`SELECT count(*)::int AS n FROM accounts`.pipe(
      Effect.map((rows) => rows[0]?.n ?? 0),
      orUnavailable,
      Effect.withSpan("StoreSql.accounts.count")
    ),
    list: sql<Rows.AccountRow>`SELECT * FROM accounts ORDER BY created_at, account_id`.pipe(
      Effect.map((rows) => rows.map(Rows.accountFromRow)),
      orUnavailable,
      Effect.withSpan("StoreSql.accounts.list")
    )
  }

  const apiKeys: StoreShape["apiKeys"] = {
    insert: Effect.fnUntraced(function*(key) {
      yield* sql`INSERT INTO api_keys ${sql.insert(Rows.apiKeyToRow(key))}`
    }, orUnavailable),
    findByHash: Effect.fnUntraced(function*(hash) {
      return first(yield* sql<Rows.ApiKeyRow>`SELECT * FROM api_keys WHERE hash = ${hash}`, Rows.apiKeyFromRow)
    }, orUnavailable),
    get: Effect.fnUntraced(function*(id) {
      return first(yield* sql<Rows.ApiKeyRow>`SELECT * FROM api_keys WHERE key_id = ${id}`, Rows.apiKeyFromRow)
    }, orUnavailable),
    list: Effect.fnUntraced(function*(scope) {
      const rows = yield* sql<Rows.ApiKeyRow>`SELECT * FROM api_keys
        WHERE account_id = ${scope.accountId} AND livemode = ${scope.livemode} ORDER BY created_at DESC, key_id DESC`
      return rows.map(Rows.apiKeyFromRow)
    }, orUnavailable),
    touch: Effect.fnUntraced(function*(id, at) {
      yield* sql`INSERT INTO api_key_usage (key_id, last_used_at) VALUES (${id}, ${Rows.toTimestamp(at)})
        ON CONFLICT (key_id) DO UPDATE SET last_used_at = GREATEST(api_key_usage.last_used_at, EXCLUDED.last_used_at)`
    }, orUnavailable),
    lastUsed: Effect.fnUntraced(function*(ids) {
      if (ids.length === 0) return []
      const rows = yield* sql`SELECT key_id, last_used_at FROM api_key_usage WHERE key_id IN ${sql.in(ids)}`
      return rows.map(Rows.keyUsageFromRow)
    }, orUnavailable),
    // One statement: the first revocation time sticks, the key comes back as it is afterwards, and every process
    // listening hears of it when it commits.
    revoke: Effect.fnUntraced(function*(id, at) {
      const rows = yield* sql<Rows.ApiKeyRow>`WITH revoked AS (
          UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ${Rows.toTimestamp(at)}) WHERE key_id = ${id} RETURNING *
        )
        SELECT revoked.* FROM revoked, LATERAL (SELECT pg_notify(${revocationsChannel}, revoked.key_id)) AS notify`
      return first(rows, Rows.apiKeyFromRow)
    }, orUnavailable),
    revocations: keyRevocations
  }

  const insertProducts: StoreShape["products"]["insertAll"] = Effect.fnUntraced(function*(products) {
    if (products.length === 0) return
    yield* sql`INSERT INTO products ${sql.insert(products.map(Rows.productToRow))}`
  }, orUnavailable)
  const products: StoreShape["products"] = {
    insert: (product) => insertProducts([product]),
    insertAll: insertProducts,
    get: Effect.fnUntraced(function*(scope, id) {
      const rows = yield* sql<Rows.ProductRow>`SELECT * FROM products WHERE product_id = ${id} AND ${inScope(scope)}`
      return first(rows, Rows.productFromRow)
    }, orUnavailable),
    lock: Effect.fnUntraced(function*(scope, id) {
      const lock = yield* forUpdateInTransaction
      const rows = yield* sql<Rows.ProductRow>`SELECT * FROM products WHERE product_id = ${id} AND ${inScope(scope)} ${lock}`
      return first(rows, Rows.productFromRow)
    }, orUnavailable),
    getAll: Effect.fnUntraced(function*(scope, ids) {
      if (ids.length === 0) return []
      const rows = yield* sql<Rows.ProductRow>`SELECT * FROM products
        WHERE product_id IN ${sql.in(ids)} AND ${inScope(scope)}`
      return rows.map(Rows.productFromRow)
    }, orUnavailable),
    findAll: Effect.fnUntraced(function*(ids) {
      return (yield* findAll<Rows.ProductRow>("products", "product_id", ids, false)).map(Rows.productFromRow)
    }, orUnavailable),
    update: Effect.fnUntraced(function*(product) {
      yield* sql`UPDATE products SET ${sql.update(Rows.productChanges(product))}
        WHERE product_id = ${product.product_id} AND ${inScope({ accountId: product.account_id, livemode: product.livemode })}`
    }, orUnavailable),
    list: Effect.fnUntraced(function*(scope, filter, request) {
      const conditions = [inScope(scope)]
      if (filter.status !== undefined) conditions.push(sql`status = ${filter.status}`)
      if (filter.billing !== undefined) conditions.push(sql`billing = ${filter.billing}`)
      if (filter.offered_in_portal !== undefined) conditions.push(sql`offered_in_portal = ${filter.offered_in_portal}`)
      return yield* page("products", conditions, request, Rows.productFromRow)
    }, orUnavailable)
  }

  const customers: StoreShape["customers"] = {
    insert: Effect.fnUntraced(function*(customer) {
      yield* sql`INSERT INTO customers ${sql.insert(Rows.customerToRow(customer))}`
    }, orUnavailable),
    get: Effect.fnUntraced(function*(scope, id) {
      const rows = yield* sql<Rows.CustomerRow>`SELECT * FROM customers WHERE customer_id = ${id} AND ${inScope(scope)}`
      return first(rows, Rows.customerFromRow)
    }, orUnavailable),
    lock: Effect.fnUntraced(function*(scope, id) {
      const lock = yield* forUpdateInTransaction
      const rows = yield* sql<Rows.CustomerRow>`SELECT * FROM customers WHERE customer_id = ${id} AND ${inScope(scope)} ${lock}`
      return first(rows, Rows.customerFromRow)
    }, orUnavailable),
    update: Effect.fnUntraced(function*(customer) {
      yield* sql`UPDATE customers SET ${sql.update(Rows.customerChanges(customer))}
        WHERE customer_id = ${customer.customer_id} AND ${inScope({ accountId: customer.account_id, livemode: customer.livemode })}`
    }, orUnavailable),
    list: Effect.fnUntraced(function*(scope, filter, request) {
      const conditions = [inScope(scope)]
      // lower() on both sides, matching the customers_by_email index.
      if (filter.email !== undefined) conditions.push(sql`lower(email) = lower(${filter.email})`)
      return yield* page("customers", conditions, request, Rows.customerFromRow)
    }, orUnavailable),
    findByEmail: Effect.fnUntraced(function*(scope, email) {
      const rows = yield* sql<Rows.CustomerRow>`SELECT * FROM customers
        WHERE ${inScope(scope)} AND lower(email) = lower(${email}) AND test_clock_id IS NULL
        ORDER BY created_at DESC, customer_id DESC LIMIT 1`
      return first(rows, Rows.customerFromRow)
    }, orUnavailable)
  }

  const keyOf = (record: { readonly scope: string; readonly key: string }) => `${record.scope}\u0000${record.key}`

  // A stored response may hold a secret (a new webhook endpoint's `whsec_…`): it rests sealed like the endpoint's
  // own secret, bound to its record, whenever the box holds a key.
  const sealResponse = (record: { readonly scope: string; readonly key: string }, body: string) =>
    box.seal(body, idempotencyResponseContext(record.scope, record.key))
  const openResponse = (record: IdempotencyRecord): IdempotencyRecord =>
    record.response === null ? record : {
      ...record,
      response: {
        ...record.response,
        body: Either.getOrThrowWith(
          box.open(record.response.body, idempotencyResponseContext(record.scope, record.key)),
          (error) => new Error(`idempotency record ${record.key}: ${error.message}`)
        )
      }
    }

  /**
   * Takes each key (all distinct) in one statement when `Idempotency.canClaim` allows (no record, an expired one,
   * or an abandoned lease of the same request); the upsert's row lock makes concurrent claims take turns, so
   * exactly one wins. Rows go in byte order of their keys, so two batches that share keys lock them in the same
   * order and cannot deadlock. Returns the keys taken.
   */
  const tryClaimAll = (records: ReadonlyArray<IdempotencyRecord>, now: Date) =>
    Effect.flatMap(Effect.forEach(records, (r) =>
      Effect.map(r.response === null ? Effect.succeed(null) : sealResponse(r, r.response.body), (body) => ({
        scope: r.scope,
        key: r.key,
        fingerprint: r.fingerprint,
        response_status: r.response?.status ?? null,
        response_body: body,
        locked_until: Rows.toTimestamp(r.lockedUntil),
        expires_at: Rows.toTimestamp(r.expiresAt)
      }))), (values) => sql<{ scope: string; key: string }>`
      INSERT INTO idempotency_keys AS k
        (scope, key, fingerprint, response_status, response_body, locked_until, expires_at)
      SELECT v.scope, v.key, v.fingerprint, v.response_status, v.response_body, v.locked_until, v.expires_at
      FROM jsonb_to_recordset(${JSON.stringify(values)}::jsonb) AS v(scope text, key text, fingerprint text,
        response_status integer, response_body text, locked_until timestamptz, expires_at timestamptz)
      ORDER BY v.scope COLLATE "C", v.key COLLATE "C"
      ON CONFLICT (scope, key) DO UPDATE SET
        fingerprint = EXCLUDED.fingerprint, response_status = EXCLUDED.response_status,
        response_body = EXCLUDED.response_body, locked_until = EXCLUDED.locked_until, expires_at = EXCLUDED.expires_at
      WHERE k.expires_at <= ${now}
        OR (k.response_status IS NULL AND k.fingerprint = EXCLUDED.fingerprint AND k.locked_until <= ${now})
      RETURNING k.scope, k.key`)

  /**
   * The records named by the `(scope, key)` rows of the statement's `v`, locked in the order `tryClaimAll` takes
   * them in (byte order of their keys). A statement that writes several records locks them through this first: in
   * the order of its values it could hold one record while waiting for another, which a claim of both holds while
   * waiting for the first (a deadlock).
   */
  const lockInKeyOrder = sql`SELECT k.scope, k.key FROM idempotency_keys AS k
    WHERE (k.scope, k.key) IN (SELECT v.scope, v.key FROM v)
    ORDER BY k.scope COLLATE "C", k.key COLLATE "C" FOR UPDATE`

  /** The claims of `records` in order, as if made one after another (see `IdempotencyRepo.claimAll`). */
  const claimAll = (
    records: ReadonlyArray<IdempotencyRecord>,
    now: Date,
    attempts: number
  ): Effect.Effect<ReadonlyArray<Claim>, SqlError> =>
    Effect.gen(function*() {
      if (records.length === 0) return []
      // A key given twice: its later records wait for a round after the first's, whose record they then meet.
      const seen = new Set<string>()
      const first: Array<number> = []
      const later: Array<number> = []
      records.forEach((record, i) => {
        const key = keyOf(record)
        ;(seen.has(key) ? later : first).push(i)
        seen.add(key)
      })
      const results = new Array<Claim>(records.length)
      const taken = new Set((yield* tryClaimAll(first.map((i) => records[i]!), now)).map(keyOf))
      const held = first.filter((i) => !taken.has(keyOf(records[i]!)))
      for (const i of first) if (taken.has(keyOf(records[i]!))) results[i] = { _tag: "Claimed" }
      if (held.length > 0) {
        const keys = JSON.stringify(held.map((i) => ({ scope: records[i]!.scope, key: records[i]!.key })))
        const rows = yield* sql<Rows.IdempotencyRow>`SELECT * FROM idempotency_keys
          WHERE (scope, key) IN (SELECT v.scope, v.key FROM jsonb_to_recordset(${keys}::jsonb) AS v(scope text, key text))`
        const found = new Map(rows.map((row) => [keyOf(row), openResponse(Rows.idempotencyFromRow(row))]))
        // Released between the two statements: the key is free again, so try once more.
        const released = held.filter((i) => !found.has(keyOf(records[i]!)))
        if (released.length > 0 && attempts <= 1) return yield* Effect.dieMessage("idempotency claim kept losing its row")
        for (const i of held) {
          const record = found.get(keyOf(records[i]!))
          if (record !== undefined) results[i] = { _tag: "Existing", record }
        }
        const retried = yield* claimAll(released.map((i) => records[i]!), now, attempts - 1)
        released.forEach((i, j) => (results[i] = retried[j]!))
      }
      const rest = yield* claimAll(later.map((i) => records[i]!), now, attempts)
      later.forEach((i, j) => (results[i] = rest[j]!))
      return results
    })

  const idempotency: StoreShape["idempotency"] = {
    claim: Effect.fnUntraced(function*(record, now) {
      return (yield* claimAll([record], Rows.toTimestamp(now), 5))[0]!
    }, orUnavailable),
    claimAll: Effect.fnUntraced(function*(records, now) {
      return yield* claimAll(records, Rows.toTimestamp(now), 5)
    }, orUnavailable),
    find: Effect.fnUntraced(function*(scope, key) {
      const rows = yield* sql<Rows.IdempotencyRow>`SELECT * FROM idempotency_keys WHERE scope = ${scope} AND key = ${key}`
      return Option.map(Option.fromNullable(rows[0]), (row) => openResponse(Rows.idempotencyFromRow(row)))
    }, orUnavailable),
    complete: (scope, key, fingerprint, response) => idempotency.completeAll([{ scope, key, fingerprint, response }]),
    // A record is held by one request at a time. Should two completions of one batch still match one row (a lease
    // taken over by the same request), it takes one of them, as two single updates would leave one.
    completeAll: Effect.fnUntraced(function*(completions) {
      if (completions.length === 0) return
      const values = yield* Effect.forEach(completions, (c) =>
        Effect.map(sealResponse(c, c.response.body), (body) => ({
          scope: c.scope,
          key: c.key,
          fingerprint: c.fingerprint,
          status: c.response.status,
          body
        })))
      yield* sql`WITH v AS (
          SELECT * FROM jsonb_to_recordset(${JSON.stringify(values)}::jsonb)
            AS v(scope text, key text, fingerprint text, status integer, body text)
        ), locked AS (${lockInKeyOrder})
        UPDATE idempotency_keys AS k SET response_status = v.status, response_body = v.body
        FROM locked AS l JOIN v ON v.scope = l.scope AND v.key = l.key
        WHERE k.scope = l.scope AND k.key = l.key AND k.fingerprint = v.fingerprint`
    }, orUnavailable),
    // In the work's transaction: the row locks it takes make a claim of the same key wait for the commit, after
    // which the claim meets the answer. A lease taken over meanwhile has another `locked_until`: nothing matches.
    answerAll: Effect.fnUntraced(function*(answers) {
      if (answers.length === 0) return []
      const values = yield* Effect.forEach(answers, ({ completion: c, lockedUntil }, i) =>
        Effect.map(sealResponse(c, c.response.body), (body) => ({
          i,
          scope: c.scope,
          key: c.key,
          fingerprint: c.fingerprint,
          status: c.response.status,
          body,
          locked_until: Rows.toTimestamp(lockedUntil)
        })))
      const rows = yield* sql<{ readonly i: number }>`WITH v AS (
          SELECT * FROM jsonb_to_recordset(${JSON.stringify(values)}::jsonb) AS v(i integer, scope text, key text,
            fingerprint text, status integer, body text, locked_until timestamptz)
        ), locked AS (${lockInKeyOrder})
        UPDATE idempotency_keys AS k SET response_status = v.status, response_body = v.body
        FROM locked AS l JOIN v ON v.scope = l.scope AND v.key = l.key
        WHERE k.scope = l.scope AND k.key = l.key AND k.fingerprint = v.fingerprint AND k.response_status IS NULL
          AND k.locked_until = v.locked_until
        RETURNING v.i`
      const held = new Set(rows.map((row) => Number(row.i)))
      return answers.map((_, i) => held.has(i))
    }, orUnavailable),
    release: Effect.fnUntraced(function*(scope, key, fingerprint) {
      yield* sql`DELETE FROM idempotency_keys
        WHERE scope = ${scope} AND key = ${key} AND fingerprint = ${fingerprint} AND response_status IS NULL`
    }, orUnavailable)
  }

  const rateLimits: StoreShape["rateLimits"] = {
    // fils_rate_limit_lease (migration 0016) runs RateWindow.hit under the bucket's row lock: one round trip.
    hit: Effect.fnUntraced(function*(bucket, nowMillis, limit, windowSeconds, count = 1, lease) {
      const rows = yield* sql<Rows.RateRow>`SELECT granted, shared, counted_at, remaining, reset_seconds, seconds,
        counts, offsets, shares
        FROM fils_rate_limit_lease(${bucket}, ${nowMillis}, ${limit}, ${windowSeconds}, ${count}, ${lease?.share ?? 0},
          ${lease?.millis ?? 0}, ${lease?.giveBack?.countedAt ?? 0}, ${lease?.giveBack?.count ?? 0})`
      return Rows.rateDecisionFromRow(rows[0]!, limit, count)
    }, orUnavailable)
  }

  const ping: StoreShape["ping"] = sql`SELECT 1`.pipe(
    orUnavailable,
    Effect.asVoid,
    // Don't wait for the driver's cancellation of a hung query: readiness answers now.
    Effect.disconnect,
    Effect.timeoutFail({ duration: pingTimeout, onTimeout: unavailable }),
    Effect.withSpan("StoreSql.ping")
  )

  return Store.of({
    transact,
    inTransaction,
    ping,
    accounts,
    apiKeys,
    products,
    customers,
    discounts: makeDiscountsRepo(queries),
    sessions: makeSessionsRepo(queries),
    payments: makePaymentsRepo(queries),
    refunds: makeRefundsRepo(queries),
    documents: makeDocumentsRepo(queries),
    dashboard: makeDashboardRepo(queries, box),
    portalSessions: makePortalSessionsRepo(queries, box),
    events: makeEventsRepo(queries),
    subscriptions: makeSubscriptionsRepo(queries),
    testClocks: makeTestClocksRepo(queries),
    webhooks: makeWebhooksRepo(queries, box),
    deliveries: withOpenedSecrets(makeDeliveriesRepo(queries, wakeups.awaitWork), box),
    einvoices: makeEInvoicesRepo(queries),
    idempotency,
    rateLimits,
    requestLogs: makeRequestLogsRepo(queries, copy),
    stats: makeStats(queries)
  })
})

/** The Store on the context's SqlClient (migrated: see `Postgres.ts`); its PgClient, when there is one, for LISTEN. */
/** The PostgreSQL store, with each of its repositories under its own Tag. */
export const StoreSql: Layer.Layer<Store | Repositories, never, SqlClient.SqlClient> = layerStore(makeStoreSql)
