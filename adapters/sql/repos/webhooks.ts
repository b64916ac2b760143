/**
 * Webhook endpoints on PostgreSQL (migration 0005). Deleting an endpoint removes its row and cancels its pending
 * deliveries in one transaction: the delete statement comes first, so it waits for any transaction that is queueing
 * deliveries to this endpoint (they lock it `FOR SHARE`, see deliveries.ts), and the cancel that follows, a new
 * statement, sees what they committed.
 */
import { SqlClient } from "@effect/sql"
import type { Statement } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Effect, Option } from "effect"
import type { EventType } from "../../../src/domain/Event.js"
import type { AccountId, WebhookId } from "../../../src/domain/Ids.js"
import type { Page, PageRequest } from "../../../src/domain/Pagination.js"
import type { WebhookEndpoint } from "../../../src/domain/WebhookEndpoint.js"
import type { WebhooksRepo } from "../../../src/ports/Store.js"
import type { Queries } from "../queries.js"
import { fromTimestamp, toTimestamp } from "../rows.js"
import { orUnavailable } from "../SqlErrors.js"

type Timestamp = Date | string

export interface WebhookEndpointRow {
  readonly webhook_id: string
  readonly account_id: string
  readonly livemode: boolean
  readonly url: string
  readonly description: string
  readonly event_types: ReadonlyArray<string>
  readonly disabled: boolean
  readonly secret: string
  readonly created_at: Timestamp
}

export const webhookFromRow = (row: WebhookEndpointRow): WebhookEndpoint => ({
  object: "webhook",
  webhook_id: row.webhook_id as WebhookId,
  account_id: row.account_id as AccountId,
  livemode: row.livemode,
  url: row.url,
  description: row.description,
  event_types: row.event_types as ReadonlyArray<EventType>,
  disabled: row.disabled,
  secret: row.secret,
  created_at: fromTimestamp(row.created_at)
})

/** The columns an update may change (id, owner, mode, secret and creation time never change). */
const webhookChanges = (w: WebhookEndpoint) => ({
  url: w.url,
  description: w.description,
  // A JS array is sent as a PostgreSQL array (text[]).
  event_types: [...w.event_types],
  disabled: w.disabled
})

const webhookToRow = (w: WebhookEndpoint) => ({
  webhook_id: w.webhook_id,
  account_id: w.account_id,
  livemode: w.livemode,
  ...webhookChanges(w),
  secret: w.secret,
  created_at: toTimestamp(w.created_at)
})

/**
 * Runs `effect` in the running transaction, or in a new one: the nested call joins rather than opening a savepoint,
 * as `StoreShape.transact` does.
 */
export const inTransaction = <A, E, R>(sql: SqlClient.SqlClient, effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(
    Effect.serviceOption(SqlClient.TransactionConnection),
    (running): Effect.Effect<A, E | SqlError, R> => Option.isSome(running) ? effect : sql.withTransaction(effect)
  )

export const makeWebhooksRepo = ({ first, inScope, sql }: Queries): WebhooksRepo => {
  /** Newest first from `request.after` (the keyset of every list); one row more tells whether there is more. */
  const page = (conditions: ReadonlyArray<Statement.Fragment>, request: PageRequest) => {
    const after = request.after === undefined
      ? []
      : [sql`(created_at, webhook_id) < (${new Date(request.after.createdAtMillis)}, ${request.after.id})`]
    return Effect.map(
      sql<WebhookEndpointRow>`SELECT * FROM webhook_endpoints WHERE ${sql.and([...conditions, ...after])}
        ORDER BY created_at DESC, webhook_id DESC LIMIT ${request.limit + 1}`,
      (rows): Page<WebhookEndpoint> => ({
        items: rows.slice(0, request.limit).map(webhookFromRow),
        hasMore: rows.length > request.limit
      })
    )
  }

  return {
    insert: Effect.fn("StoreSql.webhooks.insert")(function*(endpoint) {
      yield* sql`INSERT INTO webhook_endpoints ${sql.insert(webhookToRow(endpoint))}`
    }, orUnavailable),

    get: Effect.fn("StoreSql.webhooks.get")(function*(scope, id) {
      const rows = yield* sql<WebhookEndpointRow>`SELECT * FROM webhook_endpoints
        WHERE webhook_id = ${id} AND ${inScope(scope)}`
      return first(rows, webhookFromRow)
    }, orUnavailable),

    update: Effect.fn("StoreSql.webhooks.update")(function*(endpoint) {
      yield* sql`UPDATE webhook_endpoints SET ${sql.update(webhookChanges(endpoint))}
        WHERE webhook_id = ${endpoint.webhook_id}
          AND ${inScope({ accountId: endpoint.account_id, livemode: endpoint.livemode })}`
    }, orUnavailable),

    delete: Effect.fn("StoreSql.webhooks.delete")(function*(scope, id) {
      return yield* inTransaction(
        sql,
        Effect.gen(function*() {
          const deleted = yield* sql`DELETE FROM webhook_endpoints WHERE webhook_id = ${id} AND ${inScope(scope)}
            RETURNING webhook_id`
          if (deleted.length === 0) return false
          yield* sql`UPDATE webhook_deliveries SET status = 'cancelled', next_attempt_at = NULL, lease_until = NULL
            WHERE webhook_id = ${id} AND status = 'pending'`
          return true
        })
      )
    }, orUnavailable),

    list: Effect.fn("StoreSql.webhooks.list")(function*(scope, request) {
      return yield* page([inScope(scope)], request)
    }, orUnavailable),

    subscribed: Effect.fn("StoreSql.webhooks.subscribed")(function*(scope, type) {
      const rows = yield* sql<WebhookEndpointRow>`SELECT * FROM webhook_endpoints
        WHERE ${inScope(scope)} AND NOT disabled AND ${type} = ANY (event_types)
        ORDER BY webhook_id`
      return rows.map(webhookFromRow)
    }, orUnavailable)
  }
}
