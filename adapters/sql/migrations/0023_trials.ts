/**
 * Trials (docs/subscriptions.md#trials): a recurring product's trial and what a paid one charges, the trial a checkout
 * session starts (and a period's lines after it), and a subscription's trial with its end. The CHECKs state what
 * `Product.checkTrial`, `CheckoutSession.price` and `Subscription.start` guarantee: only a recurring product has a
 * trial and only a trial is paid; a session that completes without a payment is a free trial that started its
 * subscription; a subscription's trial ends after it starts, and every period after the trial starts at or after its
 * end. (A trial anchors its subscription's periods at its end, as period 1: `subscriptions_period`, restated in 0024,
 * allows a current period before the anchor's.)
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

const maxAmount = "9007199254740991" // Number.MAX_SAFE_INTEGER, as in 0004

const statements = [
  `ALTER TABLE products
     ADD COLUMN trial_period_days integer NOT NULL DEFAULT 0 CHECK (trial_period_days BETWEEN 0 AND 365),
     ADD COLUMN trial_amount bigint CHECK (trial_amount BETWEEN 1 AND ${maxAmount}),
     ADD CONSTRAINT products_trial CHECK (
       (billing = 'recurring' OR trial_period_days = 0) AND (trial_amount IS NULL OR trial_period_days > 0)
     )`,
  `ALTER TABLE checkout_sessions
     ADD COLUMN trial_period_days integer CHECK (trial_period_days BETWEEN 1 AND 365),
     ADD COLUMN period_tax_lines jsonb,
     ADD CONSTRAINT checkout_sessions_trial CHECK (
       (trial_period_days IS NULL OR kind = 'subscription') AND (period_tax_lines IS NULL OR trial_period_days IS NOT NULL)
     ),
     DROP CONSTRAINT checkout_sessions_completion,
     -- open → complete (a payment succeeded, or a free trial started its subscription: either is named) | expired.
     ADD CONSTRAINT checkout_sessions_completion CHECK (
       (status = 'complete') = (completed_at IS NOT NULL) AND (status <> 'complete' OR payment_id IS NOT NULL OR
         (trial_period_days IS NOT NULL AND total_amount = 0 AND subscription_id IS NOT NULL))
     )`,
  `ALTER TABLE subscriptions
     ADD COLUMN trial_period_days integer NOT NULL DEFAULT 0 CHECK (trial_period_days BETWEEN 0 AND 365),
     ADD COLUMN trial_ends_at timestamptz(3),
     ADD CONSTRAINT subscriptions_trial CHECK (
       (trial_period_days = 0) = (trial_ends_at IS NULL)
       AND (trial_ends_at IS NULL OR (trial_ends_at > created_at AND (period = 0 OR current_period_start >= trial_ends_at)))
     )`
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
