/**
 * Payments on PostgreSQL. `find` (by id alone) locks the row inside `transact`. The schema refuses a payment that breaks docs/decisions.md §5, and
 * a second `processing` payment of one checkout session (migration 0003): both are defects here.
 */
import { DateTime, Effect } from "effect"
import type { PaymentsRepo } from "../../../src/ports/Store.js"
import type { Queries } from "../queries.js"
import * as Rows from "../rows.js"
import { orUnavailable } from "../SqlErrors.js"

export const makePaymentsRepo = ({ findAll, first, forUpdateInTransaction, inScope, page, since, sql, updateAll }: Queries): PaymentsRepo => ({
  insert: Effect.fnUntraced(function*(payment) {
    yield* sql`INSERT INTO payments ${sql.insert(Rows.paymentToRow(payment))}`
  }, orUnavailable),

  insertAll: Effect.fnUntraced(function*(payments) {
    if (payments.length === 0) return
    yield* sql`INSERT INTO payments ${sql.insert(payments.map(Rows.paymentToRow))}`
  }, orUnavailable),

  get: Effect.fnUntraced(function*(scope, id) {
    const rows = yield* sql<Rows.PaymentRow>`SELECT * FROM payments WHERE payment_id = ${id} AND ${inScope(scope)}`
    return first(rows, Rows.paymentFromRow)
  }, orUnavailable),

  find: Effect.fnUntraced(function*(id) {
    const rows = yield* sql<Rows.PaymentRow>`SELECT * FROM payments WHERE payment_id = ${id}`
    return first(rows, Rows.paymentFromRow)
  }, orUnavailable),

  lock: Effect.fnUntraced(function*(id) {
    const lock = yield* forUpdateInTransaction
    const rows = yield* sql<Rows.PaymentRow>`SELECT * FROM payments WHERE payment_id = ${id} ${lock}`
    return first(rows, Rows.paymentFromRow)
  }, orUnavailable),

  findAll: Effect.fnUntraced(function*(ids) {
    return (yield* findAll<Rows.PaymentRow>("payments", "payment_id", ids, false)).map(Rows.paymentFromRow)
  }, orUnavailable),

  lockAll: Effect.fnUntraced(function*(ids) {
    return (yield* findAll<Rows.PaymentRow>("payments", "payment_id", ids, true)).map(Rows.paymentFromRow)
  }, orUnavailable),

  updateAll: Effect.fnUntraced(function*(payments) {
    if (payments.length === 0) return
    yield* updateAll("payments", "payment_id", Rows.paymentColumns, payments.map(Rows.paymentRecord))
  }, orUnavailable),

  update: Effect.fnUntraced(function*(payment) {
    yield* sql`UPDATE payments SET ${sql.update(Rows.paymentChanges(payment))}
      WHERE payment_id = ${payment.payment_id}
        AND ${inScope({ accountId: payment.account_id, livemode: payment.livemode })}`
  }, orUnavailable),

  list: Effect.fnUntraced(function*(scope, filter, request) {
    const conditions = [inScope(scope)]
    if (filter.status !== undefined) conditions.push(sql`status = ${filter.status}`)
    if (filter.customer_id !== undefined) conditions.push(sql`customer_id = ${filter.customer_id}`)
    if (filter.checkout_session_id !== undefined) {
      conditions.push(sql`checkout_session_id = ${filter.checkout_session_id}`)
    }
    if (filter.subscription_id !== undefined) conditions.push(sql`subscription_id = ${filter.subscription_id}`)
    if (filter.created_from !== undefined) conditions.push(sql`created_at >= ${DateTime.toDate(filter.created_from)}`)
    if (filter.created_before !== undefined) conditions.push(sql`created_at < ${DateTime.toDate(filter.created_before)}`)
    // The search's two, each on its own index (migration 0033), so a rare amount is found without reading the rest.
    if (filter.amount !== undefined) conditions.push(sql`total_amount = ${filter.amount}`)
    if (filter.card_last4 !== undefined) conditions.push(sql`card_last4 = ${filter.card_last4}`)
    return yield* page("payments", conditions, request, Rows.paymentFromRow)
  }, orUnavailable),

  // Each subscription's newest rows through payments_by_subscription (a LATERAL page per subscription); the keys
  // typed as the table's columns, so that they compare in its collation.
  newestOfSubscriptions: Effect.fnUntraced(function*(subscriptions, limit) {
    if (subscriptions.length === 0) return []
    const keys = JSON.stringify(subscriptions.map(({ scope, subscriptionId }) => ({
      account_id: scope.accountId,
      livemode: scope.livemode,
      subscription_id: subscriptionId
    })))
    const rows = yield* sql<Rows.PaymentRow>`SELECT p.*
      FROM jsonb_populate_recordset(NULL::payments, ${keys}::jsonb) WITH ORDINALITY AS k
      CROSS JOIN LATERAL (
        SELECT * FROM payments
        WHERE account_id = k.account_id AND livemode = k.livemode AND subscription_id = k.subscription_id
        ORDER BY created_at DESC, payment_id DESC LIMIT ${limit}
      ) AS p
      ORDER BY k.ordinality, p.created_at DESC, p.payment_id DESC`
    return rows.map(Rows.paymentFromRow)
  }, orUnavailable),

  hasProcessing: Effect.fnUntraced(function*(sessionId) {
    const rows = yield* sql<{ readonly found: boolean }>`SELECT EXISTS (
      SELECT 1 FROM payments WHERE checkout_session_id = ${sessionId} AND status = 'processing'
    ) AS found`
    return rows[0]?.found === true
  }, orUnavailable),

  listProcessing: Effect.fnUntraced(function*(limit, livemode, clock) {
    const conditions = [
      sql`status = 'processing'`,
      // A test clock's payments only with its advance (migration 0025).
      clock === undefined ? sql`test_clock_id IS NULL` : sql`test_clock_id = ${clock}`
    ]
    if (livemode !== undefined) conditions.push(sql`livemode = ${livemode}`)
    const rows = yield* sql<Rows.PaymentRow>`SELECT * FROM payments WHERE ${sql.and(conditions)}
      ORDER BY created_at, payment_id
      LIMIT ${limit}`
    return rows.map(Rows.paymentFromRow)
  }, orUnavailable),

  // From the daily totals the triggers of migration 0013 keep (16 rows a day at most), not from the payments.
  summary: Effect.fnUntraced(function*(scope, from) {
    const days = yield* sql<{
      readonly day: string
      readonly gross: number
      readonly fees: number
      readonly refunded: number
      readonly succeeded: number
      readonly failed: number
    }>`SELECT to_char(day, 'YYYY-MM-DD') AS day, sum(gross)::int8 AS gross, sum(fees)::int8 AS fees,
        sum(refunded)::int8 AS refunded, sum(succeeded)::int8 AS succeeded, sum(failed)::int8 AS failed
      FROM payment_days
      WHERE ${inScope(scope)} AND day >= ${from}::date
      GROUP BY day ORDER BY day`
    const total = (pick: (d: (typeof days)[number]) => number) => days.reduce((sum, d) => sum + Number(pick(d)), 0)
    return {
      gross: total((d) => d.gross),
      fees: total((d) => d.fees),
      refunded: total((d) => d.refunded),
      succeeded: total((d) => d.succeeded),
      failed: total((d) => d.failed),
      daily: days.filter((d) => Number(d.succeeded) > 0).map((d) => ({ day: d.day, gross: Number(d.gross) }))
    }
  }, orUnavailable),

  since: Effect.fnUntraced(function*(from, after, limit) {
    return (yield* since<Rows.PaymentRow>("payments", "payment_id", from, after, limit)).map(Rows.paymentFromRow)
  }, orUnavailable)
})
