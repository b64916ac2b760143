/**
 * Refunds on PostgreSQL. `find` locks the row inside `transact`, so a refund is ended once however many servers
 * learn its outcome.
 */
import { DateTime, Effect } from "effect"
import type { RefundsRepo } from "../../../src/ports/Store.js"
import type { Queries } from "../queries.js"
import * as Rows from "../rows.js"
import { orUnavailable } from "../SqlErrors.js"

export const makeRefundsRepo = ({ first, forUpdateInTransaction, inScope, page, since, sql }: Queries): RefundsRepo => ({
  insert: Effect.fnUntraced(function*(refund) {
    yield* sql`INSERT INTO refunds ${sql.insert(Rows.refundToRow(refund))}`
  }, orUnavailable),

  update: Effect.fnUntraced(function*(refund) {
    const { created_at: _, payment_id: __, refund_id, ...changes } = Rows.refundToRow(refund)
    yield* sql`UPDATE refunds SET ${sql.update(changes)} WHERE refund_id = ${refund_id}`
  }, orUnavailable),

  find: Effect.fnUntraced(function*(id) {
    const rows = yield* sql<Rows.RefundRow>`SELECT * FROM refunds WHERE refund_id = ${id}`
    return first(rows, Rows.refundFromRow)
  }, orUnavailable),

  lock: Effect.fnUntraced(function*(id) {
    const lock = yield* forUpdateInTransaction
    const rows = yield* sql<Rows.RefundRow>`SELECT * FROM refunds WHERE refund_id = ${id} ${lock}`
    return first(rows, Rows.refundFromRow)
  }, orUnavailable),

  ofPayment: Effect.fnUntraced(function*(id) {
    const rows = yield* sql<Rows.RefundRow>`SELECT * FROM refunds WHERE payment_id = ${id} ORDER BY created_at, refund_id`
    return rows.map(Rows.refundFromRow)
  }, orUnavailable),

  listPending: Effect.fnUntraced(function*(limit) {
    const rows = yield* sql<Rows.RefundRow>`SELECT * FROM refunds WHERE status = 'pending'
      ORDER BY created_at, refund_id LIMIT ${limit}`
    return rows.map(Rows.refundFromRow)
  }, orUnavailable),

  since: Effect.fnUntraced(function*(from, after, limit) {
    return (yield* since<Rows.RefundRow>("refunds", "refund_id", from, after, limit)).map(Rows.refundFromRow)
  }, orUnavailable),

  list: Effect.fnUntraced(function*(scope, filter, request) {
    const conditions = [inScope(scope)]
    if (filter.created_from !== undefined) conditions.push(sql`created_at >= ${DateTime.toDate(filter.created_from)}`)
    if (filter.created_before !== undefined) conditions.push(sql`created_at < ${DateTime.toDate(filter.created_before)}`)
    return yield* page("refunds", conditions, request, Rows.refundFromRow)
  }, orUnavailable)
})
