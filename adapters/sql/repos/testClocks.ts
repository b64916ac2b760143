/**
 * Test clocks on PostgreSQL (migration 0025). The clock of a session, payment or subscription is on its own row,
 * copied from its customer by a trigger, so the clock's work and its deletion are read by that column.
 */
import { Effect, Option } from "effect"
import type { CustomerId } from "../../../src/domain/Ids.js"
import type { BillingInterval } from "../../../src/domain/Product.js"
import type { TestClocksRepo } from "../../../src/ports/Store.js"
import type { Queries } from "../queries.js"
import * as Rows from "../rows.js"
import { orUnavailable } from "../SqlErrors.js"

export const makeTestClocksRepo = ({ first, forUpdateInTransaction, inScope, page, sql }: Queries): TestClocksRepo => ({
  insert: Effect.fnUntraced(function*(clock) {
    yield* sql`INSERT INTO test_clocks ${sql.insert(Rows.testClockToRow(clock))}`
  }, orUnavailable),

  get: Effect.fnUntraced(function*(scope, id) {
    const rows = yield* sql<Rows.TestClockRow>`SELECT * FROM test_clocks WHERE test_clock_id = ${id} AND ${inScope(scope)}`
    return first(rows, Rows.testClockFromRow)
  }, orUnavailable),

  lock: Effect.fnUntraced(function*(scope, id) {
    const lock = yield* forUpdateInTransaction
    const rows = yield* sql<Rows.TestClockRow>`SELECT * FROM test_clocks
      WHERE test_clock_id = ${id} AND ${inScope(scope)} ${lock}`
    return first(rows, Rows.testClockFromRow)
  }, orUnavailable),

  update: Effect.fnUntraced(function*(clock) {
    yield* sql`UPDATE test_clocks SET ${sql.update(Rows.testClockChanges(clock))}
      WHERE test_clock_id = ${clock.test_clock_id} AND ${inScope({ accountId: clock.account_id, livemode: clock.livemode })}`
  }, orUnavailable),

  list: Effect.fnUntraced(function*(scope, request) {
    return yield* page("test_clocks", [inScope(scope)], request, Rows.testClockFromRow)
  }, orUnavailable),

  ofCustomers: Effect.fnUntraced(function*(ids) {
    if (ids.length === 0) return []
    const rows = yield* sql<Rows.TestClockRow & { readonly customer_id: string }>`
      SELECT c.customer_id, t.* FROM customers AS c JOIN test_clocks AS t ON t.test_clock_id = c.test_clock_id
      WHERE c.customer_id IN ${sql.in(ids)}`
    return rows.map(({ customer_id, ...clock }) => ({
      customer_id: customer_id as CustomerId,
      clock: Rows.testClockFromRow(clock)
    }))
  }, orUnavailable),

  plans: Effect.fnUntraced(function*(id) {
    return yield* sql<{ readonly billing_interval: BillingInterval; readonly interval_count: number }>`
      SELECT DISTINCT billing_interval, interval_count FROM subscriptions
      WHERE test_clock_id = ${id} AND status <> 'cancelled'`
  }, orUnavailable),

  // What the claims would take, but for the time: `SubscriptionsRepo.claimDue`'s and `SessionsRepo.claimExpired`'s
  // rules on the clock's rows.
  nextDue: Effect.fnUntraced(function*(id) {
    const rows = yield* sql<{ readonly at: Date | string | null }>`SELECT least(
      (SELECT min(s.due_at) FROM subscriptions AS s
        WHERE s.test_clock_id = ${id} AND s.due_at IS NOT NULL AND s.pending_change IS NULL
          AND NOT EXISTS (SELECT 1 FROM subscription_attempts AS a WHERE a.subscription_id = s.subscription_id
            AND a.period = s.period + 1 AND a.attempt = s.failed_payment_attempts)),
      (SELECT min(c.expires_at) FROM checkout_sessions AS c
        WHERE c.test_clock_id = ${id} AND c.status = 'open'
          AND NOT EXISTS (SELECT 1 FROM payments AS p WHERE p.checkout_session_id = c.session_id AND p.status = 'processing'))
    ) AS at`
    const at = rows[0]?.at ?? null
    return at === null ? Option.none() : Option.some(Rows.fromTimestamp(at))
  }, orUnavailable),

  // Children first, as the foreign keys ask: what was written about the clock's payments (tax documents, their
  // e-invoice transmissions, refunds), renewal attempts, subscriptions, then sessions and payments, portal sessions,
  // the customers and the clock. The event record stays. Runs in the caller's transaction (the setting is local to it).
  delete: Effect.fnUntraced(function*(scope, id) {
    const found = yield* sql<{ readonly test_clock_id: string }>`SELECT test_clock_id FROM test_clocks
      WHERE test_clock_id = ${id} AND ${inScope(scope)} FOR UPDATE`
    if (found.length === 0) return false
    // In the lock order (docs/architecture.md, "Lock order"): the clock's payments, then its subscriptions and
    // sessions, each by key, before anything of theirs goes. A renewal running on the clock meanwhile holds a
    // subscription and never waits for a payment, so neither waits on the other in a circle.
    yield* sql`SELECT payment_id FROM payments WHERE test_clock_id = ${id} ORDER BY payment_id FOR UPDATE`
    yield* sql`SELECT subscription_id FROM subscriptions WHERE test_clock_id = ${id} ORDER BY subscription_id FOR UPDATE`
    yield* sql`SELECT session_id FROM checkout_sessions WHERE test_clock_id = ${id} ORDER BY session_id FOR UPDATE`
    const payments = sql`SELECT payment_id FROM payments WHERE test_clock_id = ${id}`
    const documents = sql`SELECT document_id FROM tax_documents WHERE payment_id IN (${payments})`
    yield* sql`DELETE FROM einvoice_transmissions WHERE document_id IN (${documents})`
    // Issued documents never go, but for test ones while this transaction deletes a clock (migration 0030).
    yield* sql`SELECT set_config('fils.deleting_test_clock', 'on', true)`
    // Credit notes before the invoices they correct.
    yield* sql`DELETE FROM tax_documents WHERE payment_id IN (${payments}) AND invoice_id IS NOT NULL`
    yield* sql`DELETE FROM tax_documents WHERE payment_id IN (${payments})`
    yield* sql`SELECT set_config('fils.deleting_test_clock', 'off', true)`
    yield* sql`DELETE FROM refunds WHERE payment_id IN (${payments})`
    yield* sql`DELETE FROM subscription_attempts WHERE subscription_id IN
      (SELECT subscription_id FROM subscriptions WHERE test_clock_id = ${id})`
    yield* sql`DELETE FROM subscriptions WHERE test_clock_id = ${id}`
    // A paid session and its payment name each other, and neither key can wait for the commit: one statement
    // deletes both, its keys checked at its end.
    yield* sql`WITH sessions AS (DELETE FROM checkout_sessions WHERE test_clock_id = ${id})
      DELETE FROM payments WHERE test_clock_id = ${id}`
    yield* sql`DELETE FROM customer_portal_sessions WHERE customer_id IN
      (SELECT customer_id FROM customers WHERE test_clock_id = ${id})`
    yield* sql`DELETE FROM customers WHERE test_clock_id = ${id}`
    yield* sql`DELETE FROM test_clocks WHERE test_clock_id = ${id}`
    return true
  }, orUnavailable)
})
