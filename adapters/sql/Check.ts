/**
 * `fils check`: the invariants of a Fils database, stated as SQL over the whole of it (every account and mode), each
 * query returning the rows that break one. Most of these are also CHECK constraints or follow from transactions
 * (migrations 0003–0005, ChargeOutcomes.record, Events.recordEvent); the checker says so independently, after a
 * crash, a restore from backup or a hand edit, without trusting the code that wrote the rows.
 *
 * The invariants:
 * - `payment_events`: a succeeded (or refunded) payment has exactly one `payment.succeeded` event, a failed one
 *   exactly one `payment.failed`, a processing one neither; its `refund.succeeded` events add up to `refunded_amount`.
 * - `session_complete`: a session with a succeeded payment is `complete` and names that payment; a session is paid
 *   at most once; a complete session names a paid payment, or is a free trial that names its subscription.
 * - `period_charged_twice`: at most one paid charge per (subscription, period); every renewal payment was reserved
 *   (has its `subscription_attempts` row).
 * - `delivery_missing`: every event has one delivery per endpoint that subscribed to it when it happened (an enabled
 *   endpoint of the same account and mode, created before the event, whose types include the event's).
 *   The history of an endpoint's edits is not kept, so an endpoint that is enabled and subscribed now is taken to
 *   have been so since its creation; `subscribeGrace` skips events that raced the endpoint's own creation.
 * - `delivery_stuck`: no pending delivery holds a lease that ended more than `leaseGrace` ago (a live dispatcher
 *   reclaims an expired lease within a poll interval).
 * - `delivery_attempts`: no more attempts recorded than claimed; a succeeded delivery has a 2xx attempt.
 * - `refunds`: a payment's confirmed refunds add up to no more than its `refunded_amount` (refunds made before
 *   migration 0011 have no row) and, with those still pending, to no more than its total; only a paid payment has
 *   refunds; a refund is ended with what its status needs (a refused one's reason, a succeeded one's processor id).
 * - `day_totals`: the daily payment totals the dashboard reads (migration 0013) equal the payments summed again.
 * - `amounts`: 0 ≤ refunded ≤ amount, fees within the amount, net = amount − fee − refunded; a session's total is the
 *   sum of its lines (their gross, priced with VAT; a trial's total is what it charges today, so its cart's lines,
 *   at the full price, do not say it); a checkout payment charges its session's total.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Duration, Effect } from "effect"
import { orUnavailable } from "./SqlErrors.js"

export type Invariant =
  | "payment_events"
  | "session_complete"
  | "period_charged_twice"
  | "delivery_missing"
  | "delivery_stuck"
  | "delivery_attempts"
  | "refunds"
  | "day_totals"
  | "amounts"

export const invariants: ReadonlyArray<Invariant> = [
  "payment_events",
  "session_complete",
  "period_charged_twice",
  "delivery_missing",
  "delivery_stuck",
  "delivery_attempts",
  "refunds",
  "day_totals",
  "amounts"
]

export interface Violation {
  readonly invariant: Invariant
  readonly object_id: string
  readonly detail: string
}

export interface CheckOptions {
  /** How long past its end a lease may stay on a pending delivery before it counts as stuck (default 60 s). */
  readonly leaseGrace?: Duration.DurationInput | undefined
  /** Events this close after an endpoint's creation are not required to have a delivery for it (default 2 s). */
  readonly subscribeGrace?: Duration.DurationInput | undefined
}

const paid = `('succeeded', 'partially_refunded', 'refunded')`

/** One query per invariant; each returns `object_id` and `detail` of the rows that break it. */
const queries = (leaseGraceMs: number, subscribeGraceMs: number): ReadonlyArray<readonly [Invariant, string]> => [
  ["payment_events", `
    WITH ev AS (
      SELECT account_id, data->>'payment_id' AS payment_id,
        count(*) FILTER (WHERE type = 'payment.succeeded') AS succeeded,
        count(*) FILTER (WHERE type = 'payment.failed') AS failed,
        coalesce(sum((data->>'refund_amount')::numeric) FILTER (WHERE type = 'refund.succeeded'), 0) AS refunded,
        count(*) FILTER (WHERE type = 'refund.succeeded') AS refunds
      FROM events WHERE type IN ('payment.succeeded', 'payment.failed', 'refund.succeeded') AND NOT test
      GROUP BY account_id, data->>'payment_id'
    )
    SELECT p.payment_id AS object_id,
      format('%s payment has %s payment.succeeded, %s payment.failed and %s refund.succeeded events (refunded %s, events say %s)',
        p.status, coalesce(ev.succeeded, 0), coalesce(ev.failed, 0), coalesce(ev.refunds, 0), p.refunded_amount,
        coalesce(ev.refunded, 0)) AS detail
    FROM payments p LEFT JOIN ev ON ev.account_id = p.account_id AND ev.payment_id = p.payment_id
    WHERE CASE
      WHEN p.status IN ${paid} THEN coalesce(ev.succeeded, 0) <> 1 OR coalesce(ev.failed, 0) <> 0
        OR coalesce(ev.refunded, 0) <> p.refunded_amount
      WHEN p.status = 'failed' THEN coalesce(ev.failed, 0) <> 1 OR coalesce(ev.succeeded, 0) <> 0
        OR coalesce(ev.refunds, 0) <> 0
      ELSE coalesce(ev.succeeded, 0) + coalesce(ev.failed, 0) + coalesce(ev.refunds, 0) <> 0
    END
    UNION ALL
    SELECT e.event_id, format('%s event names payment %s, which does not exist', e.type, e.data->>'payment_id')
    FROM events e
    WHERE e.type IN ('payment.succeeded', 'payment.failed', 'refund.succeeded') AND NOT e.test
      AND NOT EXISTS (SELECT 1 FROM payments p WHERE p.payment_id = e.data->>'payment_id' AND p.account_id = e.account_id)
      -- Deleting a test clock deletes its customers and their payments, and keeps the events (docs/api.md, "Test
      -- clocks"); a customer goes no other way, so a test event whose customer is gone too names a deleted payment.
      AND (e.livemode OR e.data->'customer'->>'customer_id' IS NULL
        OR EXISTS (SELECT 1 FROM customers c WHERE c.customer_id = e.data->'customer'->>'customer_id'))`],

  ["session_complete", `
    SELECT s.session_id AS object_id,
      format('session is %s (payment_id %s) but payment %s succeeded', s.status, coalesce(s.payment_id, 'null'),
        p.payment_id) AS detail
    FROM payments p JOIN checkout_sessions s ON s.session_id = p.checkout_session_id
    WHERE p.status IN ${paid} AND (s.status <> 'complete' OR s.payment_id IS DISTINCT FROM p.payment_id)
    UNION ALL
    SELECT s.session_id, format('complete session names payment %s, which is %s', s.payment_id, coalesce(p.status, 'missing'))
    FROM checkout_sessions s LEFT JOIN payments p ON p.payment_id = s.payment_id
    WHERE s.status = 'complete' AND (p.payment_id IS NULL OR p.status NOT IN ${paid}
      OR p.checkout_session_id IS DISTINCT FROM s.session_id)
      -- A free trial charges nothing: it completes with its subscription and no payment.
      AND NOT (s.payment_id IS NULL AND s.trial_period_days IS NOT NULL AND s.total_amount = 0
        AND EXISTS (SELECT 1 FROM subscriptions u WHERE u.subscription_id = s.subscription_id))`],

  ["period_charged_twice", `
    SELECT a.subscription_id || ':' || a.period AS object_id,
      format('period %s of %s was charged %s times (%s)', a.period, a.subscription_id, count(*),
        string_agg(p.payment_id, ', ' ORDER BY p.payment_id)) AS detail
    FROM subscription_attempts a JOIN payments p ON p.payment_id = a.payment_id
    WHERE p.status IN ${paid}
    GROUP BY a.subscription_id, a.period HAVING count(*) > 1
    UNION ALL
    SELECT p.payment_id, format('renewal payment of %s has no reserved attempt', p.subscription_id)
    FROM payments p
    WHERE p.billing_reason = 'subscription_renewal'
      AND NOT EXISTS (SELECT 1 FROM subscription_attempts a WHERE a.payment_id = p.payment_id)`],

  ["delivery_missing", `
    SELECT e.event_id || ':' || w.webhook_id AS object_id,
      format('%s event has no delivery to endpoint %s (subscribed since %s)', e.type, w.webhook_id, w.created_at)
        AS detail
    FROM events e JOIN webhook_endpoints w ON w.account_id = e.account_id AND w.livemode = e.livemode
      AND NOT w.disabled AND e.type = ANY (w.event_types)
      AND w.created_at <= e.created_at - make_interval(secs => ${subscribeGraceMs / 1000})
    -- A test event goes to the one endpoint it was sent to.
    WHERE NOT e.test
      AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.event_id AND d.webhook_id = w.webhook_id)`],

  ["delivery_stuck", `
    SELECT delivery_id AS object_id,
      format('pending delivery still leased: the lease ended at %s (attempt %s)', lease_until, attempts) AS detail
    FROM webhook_deliveries
    WHERE status = 'pending' AND lease_until < now() - make_interval(secs => ${leaseGraceMs / 1000})`],

  ["delivery_attempts", `
    WITH att AS (
      SELECT delivery_id, count(*) AS recorded, max(attempt) AS last,
        bool_or(status_code BETWEEN 200 AND 299) AS ok
      FROM webhook_attempts GROUP BY delivery_id
    )
    SELECT d.delivery_id AS object_id,
      format('%s delivery claimed %s attempts, %s recorded (last %s, a 2xx: %s)', d.status, d.attempts,
        coalesce(att.recorded, 0), coalesce(att.last, 0), coalesce(att.ok, false)) AS detail
    FROM webhook_deliveries d LEFT JOIN att ON att.delivery_id = d.delivery_id
    WHERE coalesce(att.recorded, 0) > d.attempts OR coalesce(att.last, 0) > d.attempts
      OR (d.status = 'succeeded' AND NOT coalesce(att.ok, false))`],

  ["refunds", `
    WITH r AS (
      SELECT payment_id,
        coalesce(sum(amount) FILTER (WHERE status = 'succeeded'), 0) AS confirmed,
        coalesce(sum(amount) FILTER (WHERE status = 'pending'), 0) AS pending
      FROM refunds GROUP BY payment_id
    )
    SELECT p.payment_id AS object_id,
      format('%s payment of %s, refunded %s; its refunds: %s confirmed, %s pending', p.status, p.total_amount,
        p.refunded_amount, r.confirmed, r.pending) AS detail
    FROM payments p JOIN r ON r.payment_id = p.payment_id
    WHERE r.confirmed > p.refunded_amount OR p.refunded_amount + r.pending > p.total_amount OR p.status NOT IN ${paid}
    UNION ALL
    SELECT refund_id, format('%s refund (reason %s, processor id %s)', status, coalesce(failure_reason, 'none'),
      coalesce(processor_refund_id, 'none'))
    FROM refunds
    WHERE (status = 'refused') <> (failure_reason IS NOT NULL)
      OR (status = 'succeeded' AND processor_refund_id IS NULL)`],

  ["day_totals", `
    WITH kept AS (
      SELECT account_id, livemode, day, sum(gross) AS gross, sum(fees) AS fees, sum(refunded) AS refunded,
        sum(succeeded) AS succeeded, sum(failed) AS failed
      FROM payment_days GROUP BY 1, 2, 3
    ), actual AS (
      SELECT p.account_id, livemode, (p.created_at AT TIME ZONE a.time_zone)::date AS day,
        coalesce(sum(total_amount) FILTER (WHERE status IN ${paid}), 0) AS gross,
        coalesce(sum(fee_amount) FILTER (WHERE status IN ${paid}), 0) AS fees,
        coalesce(sum(refunded_amount) FILTER (WHERE status IN ${paid}), 0) AS refunded,
        count(*) FILTER (WHERE status IN ${paid}) AS succeeded, count(*) FILTER (WHERE status = 'failed') AS failed
      FROM payments p JOIN accounts a ON a.account_id = p.account_id GROUP BY 1, 2, 3
    )
    SELECT coalesce(k.account_id, a.account_id) || ':' || CASE WHEN coalesce(k.livemode, a.livemode) THEN 'live' ELSE 'test' END
        || ':' || coalesce(k.day, a.day) AS object_id,
      format('daily totals say gross %s, fees %s, refunded %s, %s succeeded, %s failed; the payments add up to %s, %s, %s, %s, %s',
        coalesce(k.gross, 0), coalesce(k.fees, 0), coalesce(k.refunded, 0), coalesce(k.succeeded, 0), coalesce(k.failed, 0),
        coalesce(a.gross, 0), coalesce(a.fees, 0), coalesce(a.refunded, 0), coalesce(a.succeeded, 0), coalesce(a.failed, 0)) AS detail
    FROM kept k FULL JOIN actual a ON a.account_id = k.account_id AND a.livemode = k.livemode AND a.day = k.day
    WHERE (coalesce(k.gross, 0), coalesce(k.fees, 0), coalesce(k.refunded, 0), coalesce(k.succeeded, 0), coalesce(k.failed, 0))
      IS DISTINCT FROM (coalesce(a.gross, 0), coalesce(a.fees, 0), coalesce(a.refunded, 0), coalesce(a.succeeded, 0), coalesce(a.failed, 0))`],

  ["amounts", `
    SELECT payment_id AS object_id,
      format('amount %s, fee %s, refunded %s, net %s', total_amount, fee_amount, refunded_amount, net_amount) AS detail
    FROM payments
    WHERE total_amount < 0 OR refunded_amount < 0 OR refunded_amount > total_amount OR fee_amount < 0
      OR fee_amount > total_amount OR net_amount <> total_amount - fee_amount - refunded_amount
    UNION ALL
    SELECT s.session_id, format('session total %s, its lines add up to %s', s.total_amount, lines.sum)
    FROM checkout_sessions s,
      -- Its lines: with their VAT, their gross; otherwise their prices less what its discount codes took off. A
      -- trial's total is what the trial charges, which its lines (a period's, at the full price) do not say.
      LATERAL (SELECT CASE
        WHEN s.tax_lines IS NOT NULL
          THEN (SELECT coalesce(sum((l->>'gross')::numeric), 0) FROM jsonb_array_elements(s.tax_lines->'lines') l)
        WHEN s.trial_period_days IS NULL
          THEN (SELECT coalesce(sum((l->>'quantity')::numeric * (l->>'unit_amount')::numeric), 0)
              FROM jsonb_array_elements(s.product_cart) l)
            - (SELECT coalesce(sum((d->>'amount_off')::numeric), 0) FROM jsonb_array_elements(s.discounts) d)
        END AS sum) lines
    WHERE s.total_amount < 0 OR lines.sum <> s.total_amount
    UNION ALL
    -- The payment that completed a session charged its total (an earlier declined one may have been priced with a
    -- discount code the customer took off since).
    SELECT p.payment_id, format('payment charged %s for session %s, whose total is %s', p.total_amount, s.session_id,
      s.total_amount)
    FROM payments p JOIN checkout_sessions s ON s.session_id = p.checkout_session_id AND s.payment_id = p.payment_id
    WHERE p.total_amount <> s.total_amount`]
]

/** Every violated invariant in the database, in the order of `invariants`, then by object id. */
export const check = Effect.fn("Check.check")(function*(options: CheckOptions = {}) {
  const sql = yield* SqlClient.SqlClient
  const leaseGraceMs = Duration.toMillis(Duration.decode(options.leaseGrace ?? Duration.seconds(60)))
  const subscribeGraceMs = Duration.toMillis(Duration.decode(options.subscribeGrace ?? Duration.seconds(2)))
  const found: Array<Violation> = []
  // One snapshot for all the queries, so rows committed between two of them cannot look inconsistent.
  yield* sql.withTransaction(Effect.gen(function*() {
    yield* sql.unsafe("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
    for (const [invariant, query] of queries(leaseGraceMs, subscribeGraceMs)) {
      const rows = yield* sql.unsafe<{ readonly object_id: string; readonly detail: string }>(
        `SELECT object_id, detail FROM (${query}) v ORDER BY object_id`
      )
      for (const row of rows) found.push({ invariant, object_id: row.object_id, detail: row.detail })
    }
  }))
  return found as ReadonlyArray<Violation>
}, orUnavailable)
