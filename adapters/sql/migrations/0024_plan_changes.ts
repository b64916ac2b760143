/**
 * Plan changes (docs/subscriptions.md, "Changing the plan"): a subscription's credit, its scheduled change and the
 * change waiting for its charge; periods that count from a new anchor after a change; the credit a charge spends;
 * a product's plan change policy and whether the portal offers it; and the `subscription.plan_changed` event type.
 *
 * `subscriptions_period` is restated for periods counted from an anchor that is not the first payment: the period
 * `anchor_period` starts at `anchor`, later ones after it. A period before `anchor_period` is one a change left:
 * the old plan's, still current until the new plan's first period (a change scheduled by `do_not_bill` with a new
 * schedule, or an immediate change whose charge failed with `apply_change`, due and on hold).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

const maxAmount = "9007199254740991" // Number.MAX_SAFE_INTEGER, as in 0004

// The event types as of this migration: those of 0019 and the plan change's.
const eventTypes = `ARRAY['payment.succeeded', 'payment.failed', 'refund.succeeded', 'subscription.active',
  'subscription.renewed', 'subscription.on_hold', 'subscription.cancelled', 'invoice.issued',
  'credit_note.issued', 'subscription.plan_changed']::text[]`

const statements = [
  `ALTER TABLE events DROP CONSTRAINT events_type_check,
     ADD CONSTRAINT events_type_check CHECK (type = ANY (${eventTypes}))`,
  `ALTER TABLE webhook_endpoints DROP CONSTRAINT webhook_endpoints_event_types_check,
     ADD CONSTRAINT webhook_endpoints_event_types_check CHECK (
       array_ndims(event_types) = 1 AND cardinality(event_types) >= 1 AND event_types <@ ${eventTypes}
     )`,
  `ALTER TABLE subscriptions
     ADD COLUMN credit_balance bigint NOT NULL DEFAULT 0 CHECK (credit_balance BETWEEN 0 AND ${maxAmount}),
     ADD COLUMN anchor_period integer NOT NULL DEFAULT 0 CHECK (anchor_period >= 0),
     ADD COLUMN scheduled_change jsonb CHECK (scheduled_change IS NULL OR jsonb_typeof(scheduled_change) = 'object'),
     ADD COLUMN pending_change jsonb CHECK (pending_change IS NULL OR jsonb_typeof(pending_change) = 'object'),
     DROP CONSTRAINT subscriptions_period,
     ADD CONSTRAINT subscriptions_period CHECK (
       next_billing_date > current_period_start AND anchor_period <= period + 1
       AND (period < anchor_period OR current_period_start >= anchor)
       AND (period = anchor_period) = (current_period_start = anchor)
     ),
     -- A change waits for its charge only while the subscription is active.
     ADD CONSTRAINT subscriptions_pending_change CHECK (pending_change IS NULL OR status = 'active')`,
  `ALTER TABLE payments
     ADD COLUMN credit_applied bigint NOT NULL DEFAULT 0 CHECK (credit_applied BETWEEN 0 AND ${maxAmount})`,
  `ALTER TABLE products
     ADD COLUMN plan_change_policy jsonb CHECK (plan_change_policy IS NULL OR jsonb_typeof(plan_change_policy) = 'object'),
     ADD COLUMN offered_in_portal boolean NOT NULL DEFAULT false,
     ADD CONSTRAINT products_plan_changes CHECK (
       billing = 'recurring' OR (plan_change_policy IS NULL AND NOT offered_in_portal)
     )`
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
