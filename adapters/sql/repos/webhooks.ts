/**
 * Webhook endpoints on PostgreSQL (migration 0005). Deleting an endpoint removes its row and cancels its pending
 * deliveries in one transaction: the delete statement comes first, so it waits for any transaction that is queueing
 * deliveries to this endpoint (they lock it `FOR SHARE`, see deliveries.ts), and the cancel that follows, a new
 * statement, sees what they committed.
 *
 * The `secret` column holds what the SecretBox writes: sealed (`enc:v1:…`, AES-256-GCM, bound to the endpoint's id)
 * when `FILS_SECRET_KEY` is set, otherwise the `whsec_…` itself. Secrets are opened here, so the engine only ever
 * sees plaintext; every write seals under the current key, and `rotateWebhookSecrets` reseals every row.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Statement from "@effect/sql/Statement"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Either, Option, Redacted } from "effect"
import type { Page, PageRequest } from "../../../src/domain/Pagination.js"
import type { WebhookEndpoint } from "../../../src/domain/WebhookEndpoint.js"
import {
  idempotencyResponseContext,
  SecretBox,
  SecretBoxError,
  type SecretBoxShape
} from "../../../src/ports/SecretBox.js"
import type { DeliveriesRepo, WebhooksRepo } from "../../../src/ports/Store.js"
import type { Queries } from "../queries.js"
import * as WebhookHealth from "../../../src/domain/WebhookHealth.js"
import {
  fromTimestamp,
  toTimestamp,
  webhookChanges,
  type WebhookEndpointRow,
  webhookFromRow,
  webhookToRow
} from "../rows.js"
import { orUnavailable } from "../SqlErrors.js"

/** The endpoint with its secret opened. A secret the box cannot open is a configuration fault: a defect. */
export const openEndpoint = (box: SecretBoxShape) => (endpoint: WebhookEndpoint): Effect.Effect<WebhookEndpoint> =>
  Either.match(openSecret(box, endpoint), {
    onLeft: (error) => Effect.dieMessage(`webhook endpoint ${endpoint.webhook_id}: ${error.message}`),
    onRight: (secret) => Effect.succeed({ ...endpoint, secret })
  })

/** The endpoint's signing secret opened by the box, still `Redacted`. */
const openSecret = (box: SecretBoxShape, endpoint: WebhookEndpoint) =>
  Either.map(box.open(Redacted.value(endpoint.secret), endpoint.webhook_id), Redacted.make)

/** The endpoint with its signing secret sealed, as its row holds it. */
const sealSecret = (box: SecretBoxShape, endpoint: WebhookEndpoint) =>
  Effect.map(
    box.seal(Redacted.value(endpoint.secret), endpoint.webhook_id),
    (sealed): WebhookEndpoint => ({ ...endpoint, secret: Redacted.make(sealed) })
  )

/**
 * The deliveries repository with the secrets of the endpoints it claims for opened (signing needs them). A claim
 * whose secret cannot be opened (a key this process lacks: the start-up check makes that a rotation done out of
 * order) is left out and logged, so it holds up no other endpoint's deliveries; its lease runs out and it is claimed
 * again later.
 */
export const withOpenedSecrets = (deliveries: DeliveriesRepo, box: SecretBoxShape): DeliveriesRepo => ({
  ...deliveries,
  claimDue: (now, limit, leaseMillis) =>
    Effect.flatMap(deliveries.claimDue(now, limit, leaseMillis), (claims) =>
      Effect.map(
        Effect.forEach(claims, (claimed) =>
          Either.match(openSecret(box, claimed.endpoint), {
            onLeft: (error) =>
              Effect.as(
                Effect.logError(`webhook endpoint ${claimed.endpoint.webhook_id}: ${error.message}; delivery skipped`),
                Option.none()
              ),
            onRight: (secret) => Effect.succeed(Option.some({ ...claimed, endpoint: { ...claimed.endpoint, secret } }))
          })),
        (opened) => opened.flatMap(Option.toArray)
      ))
})

/**
 * Refuses to start on secrets this box cannot open (sealed under a key it does not hold, or sealed while it holds
 * none): better a clear failure now than every delivery failing later.
 */
export const checkSecretKeys = (sql: SqlClient.SqlClient, box: SecretBoxShape) =>
  Effect.gen(function*() {
    const rows = yield* sql<{ key_id: string; n: number }>`
      SELECT key_id, count(*)::int AS n FROM (
        SELECT split_part(secret, ':', 3) AS key_id FROM webhook_endpoints WHERE secret LIKE 'enc:%'
        UNION ALL
        SELECT split_part(response_body, ':', 3) FROM idempotency_keys WHERE response_body LIKE 'enc:%'
        UNION ALL
        SELECT split_part(url, ':', 3) FROM customer_portal_sessions WHERE url LIKE 'enc:%'
        UNION ALL
        SELECT split_part(secret, ':', 3) FROM dashboard_two_factor WHERE secret LIKE 'enc:%'
      ) AS sealed GROUP BY 1 ORDER BY 1`
    const unknown = rows.filter((row) => !box.keyIds.includes(row.key_id))
    if (unknown.length === 0) return
    const held = box.keyIds.length === 0
      ? "FILS_SECRET_KEY is not set"
      : `FILS_SECRET_KEY and FILS_SECRET_KEY_PREVIOUS hold key ids ${box.keyIds.join(", ")}`
    return yield* new SecretBoxError({
      message: `Cannot open the stored secrets (webhook secrets, idempotent responses, customer portal links, two-factor secrets): ${
        unknown.map((row) => `${row.n} sealed under key id ${row.key_id}`).join(", ")
      }, but ${held}. Set FILS_SECRET_KEY (or FILS_SECRET_KEY_PREVIOUS) to the key they were sealed with.`
    })
  }).pipe(Effect.withSpan("StoreSql.webhooks.checkSecretKeys"))

export interface RotationReport {
  /** The key every secret is now sealed under; null when they are now plaintext (no FILS_SECRET_KEY). */
  readonly key_id: string | null
  readonly endpoints: number
  /** Customer portal sessions (their links). */
  readonly portal_links: number
  /** Stored idempotent responses (which may hold a new endpoint's secret). */
  readonly responses: number
  /** Dashboard users' TOTP secrets. */
  readonly two_factor_secrets: number
  readonly resealed: number
}

/**
 * `fils secrets rotate`: reseals every webhook secret, customer portal link, two-factor secret and stored idempotent response that is not yet as the current box writes it (under the
 * current key, or plaintext without one), in batches of short transactions; safe beside running servers (each row
 * is locked while it is resealed) and safe to run again.
 */
/**
 * Reseals `column` of every row of `table` (an id-keyed table whose values are sealed bound to the row's id) that is
 * not as the box writes now: batches of short transactions, each row locked while it is resealed. The rows seen and
 * how many were resealed.
 */
const resealById = (table: "webhook_endpoints" | "customer_portal_sessions" | "dashboard_two_factor", idColumn: string, column: string, what: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const box = yield* SecretBox
    const batch = 200
    let after = ""
    let seen = 0
    let resealed = 0
    for (;;) {
      const done = yield* sql.withTransaction(Effect.gen(function*() {
        const rows = yield* sql<{ id: string; value: string }>`SELECT ${sql(idColumn)} AS id, ${sql(column)} AS value
          FROM ${sql(table)} WHERE ${sql(idColumn)} > ${after} ORDER BY ${sql(idColumn)} LIMIT ${batch} FOR UPDATE`
        for (const row of rows) {
          seen++
          if (box.isCurrent(row.value)) continue
          const plain = yield* Either.mapLeft(
            box.open(row.value, row.id),
            (error) => new SecretBoxError({ message: `${what} ${row.id}: ${error.message}` })
          )
          const sealed = yield* box.seal(plain, row.id)
          yield* sql`UPDATE ${sql(table)} SET ${sql(column)} = ${sealed} WHERE ${sql(idColumn)} = ${row.id}`
          resealed++
        }
        if (rows.length > 0) after = rows[rows.length - 1]!.id
        return rows.length < batch
      }))
      if (done) break
    }
    return { seen, resealed }
  })

export const rotateWebhookSecrets = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const box = yield* SecretBox
  yield* checkSecretKeys(sql, box)
  const batch = 200
  const webhooks = yield* resealById("webhook_endpoints", "webhook_id", "secret", "webhook endpoint")
  const links = yield* resealById("customer_portal_sessions", "customer_portal_session_id", "url", "customer portal session")
  const totp = yield* resealById("dashboard_two_factor", "user_id", "secret", "two-factor secret of user")
  let resealed = webhooks.resealed + links.resealed + totp.resealed
  const endpoints = webhooks.seen
  let afterScope = ""
  let afterKey = ""
  let responses = 0
  for (;;) {
    const done = yield* sql.withTransaction(Effect.gen(function*() {
      const rows = yield* sql<{ scope: string; key: string; response_body: string }>`
        SELECT scope, key, response_body FROM idempotency_keys
        WHERE response_body IS NOT NULL AND (scope COLLATE "C", key COLLATE "C") > (${afterScope}, ${afterKey})
        ORDER BY scope COLLATE "C", key COLLATE "C" LIMIT ${batch} FOR UPDATE`
      for (const row of rows) {
        responses++
        if (box.isCurrent(row.response_body)) continue
        const context = idempotencyResponseContext(row.scope, row.key)
        const plain = yield* Either.mapLeft(
          box.open(row.response_body, context),
          (error) => new SecretBoxError({ message: `idempotency record ${row.key}: ${error.message}` })
        )
        const sealed = yield* box.seal(plain, context)
        yield* sql`UPDATE idempotency_keys SET response_body = ${sealed} WHERE scope = ${row.scope} AND key = ${row.key}`
        resealed++
      }
      const last = rows[rows.length - 1]
      if (last !== undefined) [afterScope, afterKey] = [last.scope, last.key]
      return rows.length < batch
    }))
    if (done) break
  }
  return {
    key_id: Option.getOrNull(box.keyId),
    endpoints,
    portal_links: links.seen,
    responses,
    two_factor_secrets: totp.seen,
    resealed
  } satisfies RotationReport
}).pipe(Effect.withSpan("StoreSql.webhooks.rotateSecrets"))

/**
 * Cancels the pending deliveries of an endpoint deleted or disabled; how many. Their rows are locked in id order, as
 * `recordAttempts` locks them (deliveries.ts): in any other order (newest first, as the endpoint's index reads them)
 * it could hold one while waiting for another that a recording holds while waiting for it (a deadlock).
 */
export const cancelPendingOf = (sql: SqlClient.SqlClient, webhookId: string): Effect.Effect<number, SqlError> =>
  Effect.map(
    sql`UPDATE webhook_deliveries SET status = 'cancelled', next_attempt_at = NULL, lease_until = NULL
      WHERE delivery_id IN (
        SELECT delivery_id FROM webhook_deliveries WHERE webhook_id = ${webhookId} AND status = 'pending'
        ORDER BY delivery_id FOR UPDATE
      ) AND status = 'pending'
      RETURNING delivery_id`,
    (rows) => rows.length
  )

/**
 * Runs `effect` in the running transaction, or in a new one: the nested call joins rather than opening a savepoint,
 * as `StoreShape.transact` does.
 */
export const inTransaction = <A, E, R>(sql: SqlClient.SqlClient, effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(
    Effect.serviceOption(SqlClient.TransactionConnection),
    (running): Effect.Effect<A, E | SqlError, R> => Option.isSome(running) ? effect : sql.withTransaction(effect)
  )

export const makeWebhooksRepo = ({ first, forUpdateInTransaction, inScope, sql }: Queries, box: SecretBoxShape): WebhooksRepo => {
  const open = openEndpoint(box)

  /** Newest first from `request.after` (the keyset of every list); one row more tells whether there is more. */
  const page = (conditions: ReadonlyArray<Statement.Fragment>, request: PageRequest) => {
    const after = request.after === undefined
      ? []
      : [sql`(created_at, webhook_id) < (${new Date(request.after.createdAtMillis)}, ${request.after.id})`]
    return Effect.flatMap(
      sql<WebhookEndpointRow>`SELECT * FROM webhook_endpoints WHERE ${sql.and([...conditions, ...after])}
        ORDER BY created_at DESC, webhook_id DESC LIMIT ${request.limit + 1}`,
      (rows) =>
        Effect.map(
          Effect.forEach(rows.slice(0, request.limit), (row) => open(webhookFromRow(row))),
          (items): Page<WebhookEndpoint> => ({ items, hasMore: rows.length > request.limit })
        )
    )
  }

  return {
    insert: Effect.fnUntraced(function*(endpoint) {
      const sealed = yield* sealSecret(box, endpoint)
      yield* sql`INSERT INTO webhook_endpoints ${sql.insert(webhookToRow(sealed))}`
    }, orUnavailable),

    get: Effect.fnUntraced(function*(scope, id) {
      const rows = yield* sql<WebhookEndpointRow>`SELECT * FROM webhook_endpoints
        WHERE webhook_id = ${id} AND ${inScope(scope)}`
      return yield* Effect.transposeMapOption(first(rows, webhookFromRow), open)
    }, orUnavailable),

    lock: Effect.fnUntraced(function*(scope, id) {
      const lock = yield* forUpdateInTransaction
      const rows = yield* sql<WebhookEndpointRow>`SELECT * FROM webhook_endpoints
        WHERE webhook_id = ${id} AND ${inScope(scope)} ${lock}`
      return yield* Effect.transposeMapOption(first(rows, webhookFromRow), open)
    }, orUnavailable),

    update: Effect.fnUntraced(function*(endpoint) {
      // The secret is written again, so a secret sealed under an older key (or none) moves to the current one.
      const sealed = yield* sealSecret(box, endpoint)
      yield* sql`UPDATE webhook_endpoints SET ${sql.update(webhookChanges(sealed))}
        WHERE webhook_id = ${endpoint.webhook_id}
          AND ${inScope({ accountId: endpoint.account_id, livemode: endpoint.livemode })}`
    }, orUnavailable),

    delete: Effect.fnUntraced(function*(scope, id) {
      return yield* inTransaction(
        sql,
        Effect.gen(function*() {
          const deleted = yield* sql`DELETE FROM webhook_endpoints WHERE webhook_id = ${id} AND ${inScope(scope)}
            RETURNING webhook_id`
          if (deleted.length === 0) return false
          yield* cancelPendingOf(sql, id)
          // After the cancel, which waits for a recording that holds one of its deliveries: that recording's streak
          // is committed and goes too, and a later one finds its delivery cancelled and leaves the streak alone.
          yield* sql`DELETE FROM webhook_health WHERE webhook_id = ${id}`
          return true
        })
      )
    }, orUnavailable),

    list: Effect.fnUntraced(function*(scope, request) {
      return yield* page([inScope(scope)], request)
    }, orUnavailable),

    subscribed: Effect.fnUntraced(function*(scope, type) {
      const rows = yield* sql<WebhookEndpointRow>`SELECT * FROM webhook_endpoints
        WHERE ${inScope(scope)} AND NOT disabled AND ${type} = ANY (event_types)
        ORDER BY webhook_id`
      // This runs inside payments and refunds (queueing their events) and needs only the ids: a secret that cannot be
      // opened must not fail them. It stays as stored; the delivery is queued and waits in claimDue for the key.
      return rows.map((row) => {
        const endpoint = webhookFromRow(row)
        return Either.match(openSecret(box, endpoint), {
          onLeft: () => endpoint,
          onRight: (secret) => ({ ...endpoint, secret })
        })
      })
    }, orUnavailable),

    health: Effect.fnUntraced(function*(ids, since) {
      const found = new Map<string, WebhookHealth.Stored>(ids.map((id) => [id, { ...WebhookHealth.none }]))
      if (ids.length === 0) return found
      // One index range per endpoint (migration 0026's webhook_attempts_health), read from the index alone.
      // The streak's failed attempts are counted up to `WebhookHealth.minFailures` only (an index range of at most
      // that many rows): the rule needs no more, and an endpoint failing for days has thousands.
      const rows = yield* sql<{
        webhook_id: string
        attempts: number
        failed: number
        since: Date | string | null
        failures: number | null
        disabled_at: Date | string | null
      }>`SELECT w.id AS webhook_id, a.attempts, a.failed, h.since, f.failures, h.disabled_at
        FROM (SELECT value COLLATE "C" AS id FROM jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb)) AS w
        CROSS JOIN LATERAL (
          SELECT count(*)::int AS attempts, count(*) FILTER (WHERE NOT ok)::int AS failed
          FROM webhook_attempts WHERE webhook_id = w.id AND started_at > ${toTimestamp(since)}
        ) a
        LEFT JOIN webhook_health h ON h.webhook_id = w.id
        LEFT JOIN LATERAL (
          SELECT count(*)::int AS failures FROM (
            SELECT 1 FROM webhook_attempts
            WHERE webhook_id = w.id AND started_at >= h.since AND NOT ok
            LIMIT ${WebhookHealth.minFailures}
          ) streak
        ) f ON h.since IS NOT NULL`
      for (const row of rows) {
        found.set(row.webhook_id, {
          attempts: row.attempts,
          failed: row.failed,
          failingSince: row.since === null ? null : fromTimestamp(row.since),
          failures: row.failures ?? 0,
          autoDisabledAt: row.disabled_at === null ? null : fromTimestamp(row.disabled_at)
        })
      }
      return found
    }, orUnavailable),

    markAutoDisabled: Effect.fnUntraced(function*(id, at) {
      yield* sql`INSERT INTO webhook_health (webhook_id, since, disabled_at) VALUES (${id}, ${toTimestamp(at)}, ${toTimestamp(at)})
        ON CONFLICT (webhook_id) DO UPDATE SET disabled_at = EXCLUDED.disabled_at`
    }, orUnavailable),

    clearHealth: Effect.fnUntraced(function*(id) {
      yield* sql`DELETE FROM webhook_health WHERE webhook_id = ${id}`
    }, orUnavailable)
  }
}
