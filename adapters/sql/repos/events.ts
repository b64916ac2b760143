/** Events on PostgreSQL: written once, in the transaction of the change they record; listed newest first. */
import { Effect } from "effect"
import type { EventsRepo } from "../../../src/ports/Store.js"
import type { Queries } from "../queries.js"
import * as Rows from "../rows.js"
import { orUnavailable } from "../SqlErrors.js"

export const makeEventsRepo = ({ first, inScope, page, sql }: Queries): EventsRepo => ({
  insert: Effect.fnUntraced(function*(event) {
    yield* sql`INSERT INTO events ${sql.insert(Rows.eventToRow(event))}`
  }, orUnavailable),

  insertAll: Effect.fnUntraced(function*(events) {
    if (events.length === 0) return
    yield* sql`INSERT INTO events ${sql.insert(events.map(Rows.eventToRow))}`
  }, orUnavailable),

  insertTest: Effect.fnUntraced(function*(event) {
    const rows = yield* sql<Rows.EventRow>`INSERT INTO events ${sql.insert({ ...Rows.eventToRow(event), test: true })} RETURNING *`
    return Rows.eventFromRow(rows[0]!)
  }, orUnavailable),

  // Test events (migration 0026) are delivered, never part of the record.
  get: Effect.fnUntraced(function*(scope, id) {
    const rows = yield* sql<Rows.EventRow>`SELECT * FROM events WHERE event_id = ${id} AND ${inScope(scope)} AND NOT test`
    return first(rows, Rows.eventFromRow)
  }, orUnavailable),

  list: Effect.fnUntraced(function*(scope, filter, request) {
    const conditions = [inScope(scope), sql`NOT test`]
    if (filter.type !== undefined) conditions.push(sql`type = ${filter.type}`)
    if (filter.payment_id !== undefined) conditions.push(sql`payment_id = ${filter.payment_id}`)
    if (filter.subscription_id !== undefined) conditions.push(sql`subscription_id = ${filter.subscription_id}`)
    if (filter.request_id !== undefined) conditions.push(sql`request_id = ${filter.request_id}`)
    return yield* page("events", conditions, request, Rows.eventFromRow)
  }, orUnavailable)
})
