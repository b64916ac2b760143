/**
 * Subscriptions on PostgreSQL. `find` (by id alone, for billing) locks the row inside `transact`; `claimDue` hands
 * each due subscription to one claimer (`SKIP LOCKED`), earliest due first, through the `due_at` column the database
 * computes (migration 0004), leaving out those whose due attempt is already reserved. `recordAttempt` is one
 * `INSERT … ON CONFLICT DO NOTHING` on the primary key (subscription, period, attempt): of any number of servers
 * recording one attempt, exactly one gets `true`, and a second insert waits for the first's transaction, so it cannot
 * slip in before the first commits or rolls back.
 */
import { DateTime, Effect, Option } from "effect"
import type { SubscriptionsRepo } from "../../../src/ports/Store.js"
import type { Queries } from "../queries.js"
import * as Rows from "../rows.js"
import { orUnavailable } from "../SqlErrors.js"

export const makeSubscriptionsRepo = (
  { findAll, first, forUpdateInTransaction, inScope, page, sql, updateAll }: Queries
): SubscriptionsRepo => ({
  insert: Effect.fnUntraced(function*(subscription) {
    yield* sql`INSERT INTO subscriptions ${sql.insert(Rows.subscriptionToRow(subscription))}`
  }, orUnavailable),

  get: Effect.fnUntraced(function*(scope, id) {
    const rows = yield* sql<Rows.SubscriptionRow>`SELECT * FROM subscriptions
      WHERE subscription_id = ${id} AND ${inScope(scope)}`
    return first(rows, Rows.subscriptionFromRow)
  }, orUnavailable),

  find: Effect.fnUntraced(function*(id) {
    const rows = yield* sql<Rows.SubscriptionRow>`SELECT * FROM subscriptions WHERE subscription_id = ${id}`
    return first(rows, Rows.subscriptionFromRow)
  }, orUnavailable),

  lock: Effect.fnUntraced(function*(id) {
    const lock = yield* forUpdateInTransaction
    const rows = yield* sql<Rows.SubscriptionRow>`SELECT * FROM subscriptions WHERE subscription_id = ${id} ${lock}`
    return first(rows, Rows.subscriptionFromRow)
  }, orUnavailable),

  findAll: Effect.fnUntraced(function*(ids) {
    return (yield* findAll<Rows.SubscriptionRow>("subscriptions", "subscription_id", ids, false)).map(Rows.subscriptionFromRow)
  }, orUnavailable),

  lockAll: Effect.fnUntraced(function*(ids) {
    return (yield* findAll<Rows.SubscriptionRow>("subscriptions", "subscription_id", ids, true)).map(Rows.subscriptionFromRow)
  }, orUnavailable),

  updateAll: Effect.fnUntraced(function*(subscriptions) {
    if (subscriptions.length === 0) return
    yield* updateAll(
      "subscriptions",
      "subscription_id",
      Rows.subscriptionColumns,
      subscriptions.map(Rows.subscriptionRecord)
    )
  }, orUnavailable),

  update: Effect.fnUntraced(function*(subscription) {
    yield* sql`UPDATE subscriptions SET ${sql.update(Rows.subscriptionChanges(subscription))}
      WHERE subscription_id = ${subscription.subscription_id}
        AND ${inScope({ accountId: subscription.account_id, livemode: subscription.livemode })}`
  }, orUnavailable),

  list: Effect.fnUntraced(function*(scope, filter, request) {
    const conditions = [inScope(scope)]
    if (filter.status !== undefined) conditions.push(sql`status = ${filter.status}`)
    if (filter.customer_id !== undefined) conditions.push(sql`customer_id = ${filter.customer_id}`)
    return yield* page("subscriptions", conditions, request, Rows.subscriptionFromRow)
  }, orUnavailable),

  claimDue: Effect.fnUntraced(function*(now, limit, livemode, clock) {
    const conditions = [
      sql`due_at <= ${Rows.toTimestamp(now)}`,
      // Its due attempt reserved: at the processor on some server (one lookup of the attempts' primary key).
      sql`NOT EXISTS (SELECT 1 FROM subscription_attempts AS a WHERE a.subscription_id = s.subscription_id
        AND a.period = s.period + 1 AND a.attempt = s.failed_payment_attempts)`,
      // A plan change's charge at the processor decides first (PlanChange.settle).
      sql`s.pending_change IS NULL`,
      // A test clock's subscriptions only with its advance (migration 0025).
      clock === undefined ? sql`s.test_clock_id IS NULL` : sql`s.test_clock_id = ${clock}`
    ]
    if (livemode !== undefined) conditions.push(sql`livemode = ${livemode}`)
    const rows = yield* sql<Rows.SubscriptionRow>`SELECT s.* FROM subscriptions AS s WHERE ${sql.and(conditions)}
      ORDER BY due_at, subscription_id
      LIMIT ${limit}
      FOR UPDATE OF s SKIP LOCKED`
    return rows.map(Rows.subscriptionFromRow)
  }, orUnavailable),

  recordAttempt: Effect.fnUntraced(function*(attempt) {
    const rows = yield* sql<{ readonly recorded: boolean }>`INSERT INTO subscription_attempts
        (subscription_id, period, attempt, payment_id)
      VALUES (${attempt.subscription_id}, ${attempt.period}, ${attempt.attempt}, ${attempt.payment_id})
      ON CONFLICT (subscription_id, period, attempt) DO NOTHING
      RETURNING true AS recorded`
    return rows.length > 0
  }, orUnavailable),

  recordAttempts: Effect.fnUntraced(function*(attempts) {
    if (attempts.length === 0) return []
    const rows = yield* sql<{ readonly subscription_id: string; readonly period: number; readonly attempt: number }>`
      INSERT INTO subscription_attempts (subscription_id, period, attempt, payment_id)
      SELECT subscription_id, period, attempt, payment_id
      FROM jsonb_to_recordset(${JSON.stringify(attempts)}::jsonb)
        AS a (subscription_id text, period integer, attempt integer, payment_id text)
      ON CONFLICT (subscription_id, period, attempt) DO NOTHING
      RETURNING subscription_id, period, attempt`
    const recorded = new Set(rows.map((r) => `${r.subscription_id}:${r.period}:${r.attempt}`))
    return attempts.map((a) => recorded.has(`${a.subscription_id}:${a.period}:${a.attempt}`))
  }, orUnavailable),

  attempts: Effect.fnUntraced(function*(id) {
    const rows = yield* sql<Rows.RenewalAttemptRow>`SELECT subscription_id, period, attempt, payment_id
      FROM subscription_attempts WHERE subscription_id = ${id}
      ORDER BY period, attempt`
    return rows.map(Rows.renewalAttemptFromRow)
  }, orUnavailable),

  // A range of subscriptions_list (account, mode, created_at): counted from the index, never the whole table.
  countCreated: Effect.fnUntraced(function*(scope, from, before) {
    const rows = yield* sql<{ readonly n: number }>`SELECT count(*)::int4 AS n FROM subscriptions
      WHERE ${inScope(scope)} AND created_at >= ${DateTime.toDate(from)} AND created_at < ${DateTime.toDate(before)}`
    return Number(rows[0]?.n ?? 0)
  }, orUnavailable),

  recurring: Effect.fnUntraced(function*(scope) {
    const rows = yield* sql<{
      readonly billing_interval: "day" | "week" | "month" | "year"
      readonly interval_count: number
      readonly subscriptions: number
      readonly amount: number
    }>`SELECT billing_interval, interval_count, count(*)::int AS subscriptions,
        sum(coalesce(period_revenue, recurring_amount))::int8 AS amount
      FROM subscriptions
      -- Subscription.inRecurringRevenue: active, past its trial.
      WHERE ${inScope(scope)} AND status = 'active' AND NOT (trial_ends_at IS NOT NULL AND period = 0)
      GROUP BY billing_interval, interval_count ORDER BY billing_interval COLLATE "C", interval_count`
    return rows.map((r) => ({ ...r, amount: Number(r.amount) }))
  }, orUnavailable),

  recordMonthlyRevenue: Effect.fnUntraced(function*(scope, reading, at) {
    yield* sql`INSERT INTO monthly_revenue_days (account_id, livemode, day, mrr, subscriptions, recorded_at)
      VALUES (${scope.accountId}, ${scope.livemode}, ${reading.day}::date, ${reading.mrr}, ${reading.subscriptions}, ${DateTime.toDate(at)})
      ON CONFLICT (account_id, livemode, day) DO UPDATE
        SET mrr = excluded.mrr, subscriptions = excluded.subscriptions, recorded_at = excluded.recorded_at
        WHERE monthly_revenue_days.recorded_at <= excluded.recorded_at`
  }, orUnavailable),

  monthlyRevenueOn: Effect.fnUntraced(function*(scope, day) {
    const rows = yield* sql<{ readonly day: string; readonly mrr: string; readonly subscriptions: number }>`
      SELECT to_char(day, 'YYYY-MM-DD') AS day, mrr::text AS mrr, subscriptions FROM monthly_revenue_days
      WHERE ${inScope(scope)} AND day <= ${day}::date ORDER BY day DESC LIMIT 1`
    const row = rows[0]
    return row === undefined ? Option.none() : Option.some({ day: row.day, mrr: Number(row.mrr), subscriptions: row.subscriptions })
  }, orUnavailable)
})
