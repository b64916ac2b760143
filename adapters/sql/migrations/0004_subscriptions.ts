/**
 * Subscriptions and their renewal attempts (docs/decisions.md §6).
 *
 * The CHECK constraints state what `Subscription.start` and `Subscription.transition` (src/domain/Subscription.ts)
 * guarantee of every state they make, so a bug in a use case cannot store a subscription the machine could never
 * reach: the status decides which of `cancelled_at`/`cancellation_reason`, `next_retry_at` and `first_failure_at`
 * are set and how many failed attempts there can be; periods move forward from the anchor.
 *
 * `due_at` is what `Subscription.dueAt` computes (an active subscription's `next_billing_date`, an on-hold one's
 * `next_retry_at`, never for a cancelled one), kept by the database itself: one partial index serves the billing
 * claim earliest-due first.
 *
 * `subscription_attempts` is the rule that makes a double charge impossible with any number of servers
 * (docs/architecture.md, "How data flows" 4): one row per (subscription, period, attempt), taken before the card is
 * charged; a second claimant of the same attempt inserts nothing (`ON CONFLICT DO NOTHING`) and does not charge.
 *
 * References carry the scope, as in 0003: a subscription's customer, product and checkout session, and now a payment's
 * or session's subscription, belong to the same account and mode. The references to subscriptions are checked at
 * commit (DEFERRABLE INITIALLY DEFERRED): the first payment of a subscription checkout is updated with the id of the
 * subscription it starts before that subscription is inserted, in the same transaction; an attempt is recorded just
 * before its payment is inserted.
 *
 * The saved card is brand, last 4, expiry and the processor's token: there is no column for a card number.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

const maxAmount = "9007199254740991" // Number.MAX_SAFE_INTEGER: amounts round-trip exactly as JS numbers

const statements = [
  // Targets of the scoped foreign keys below.
  `ALTER TABLE products ADD CONSTRAINT products_scope UNIQUE (product_id, account_id, livemode)`,
  // An attempt's payment must be a payment of the attempt's subscription.
  `ALTER TABLE payments ADD CONSTRAINT payments_subscription_pair UNIQUE (payment_id, subscription_id)`,

  `CREATE TABLE subscriptions (
    subscription_id text COLLATE "C" PRIMARY KEY,
    account_id text COLLATE "C" NOT NULL REFERENCES accounts (account_id),
    livemode boolean NOT NULL,
    status text NOT NULL CHECK (status IN ('active', 'on_hold', 'cancelled')),
    -- The product and price as they were at checkout.
    product_id text COLLATE "C" NOT NULL,
    name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
    quantity integer NOT NULL CHECK (quantity >= 1),
    recurring_amount bigint NOT NULL CHECK (recurring_amount BETWEEN 0 AND ${maxAmount}),
    currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    billing_interval text NOT NULL CHECK (billing_interval IN ('day', 'week', 'month', 'year')),
    interval_count integer NOT NULL,
    -- The customer as it was at checkout.
    customer_id text COLLATE "C" NOT NULL,
    customer_name text,
    customer_email text NOT NULL CHECK (char_length(customer_email) <= 254),
    -- The saved card (payment_method): brand, last 4, expiry, and the processor's token. Never the number.
    card_brand text NOT NULL CHECK (char_length(card_brand) >= 1),
    card_last4 text NOT NULL CHECK (card_last4 ~ '^[0-9]{4}$'),
    card_exp_month integer NOT NULL CHECK (card_exp_month BETWEEN 1 AND 12),
    card_exp_year integer NOT NULL CHECK (card_exp_year BETWEEN 1000 AND 9999),
    card_token text NOT NULL CHECK (char_length(card_token) >= 1),
    -- Periods count from the anchor (the first payment): period n starts at anchor + n intervals.
    anchor timestamptz(3) NOT NULL,
    period integer NOT NULL CHECK (period >= 0),
    current_period_start timestamptz(3) NOT NULL,
    next_billing_date timestamptz(3) NOT NULL,
    cancel_at_period_end boolean NOT NULL,
    cancelled_at timestamptz(3),
    cancellation_reason text CHECK (cancellation_reason IN ('requested', 'payment_failed')),
    failed_payment_attempts integer NOT NULL CHECK (failed_payment_attempts BETWEEN 0 AND 4),
    next_retry_at timestamptz(3),
    first_failure_at timestamptz(3),
    checkout_session_id text COLLATE "C",
    metadata jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(metadata) = 'object'),
    created_at timestamptz(3) NOT NULL,
    -- Subscription.dueAt: when the next charge, retry or period-end cancellation is due; null once cancelled.
    due_at timestamptz(3) GENERATED ALWAYS AS (
      CASE status WHEN 'active' THEN next_billing_date WHEN 'on_hold' THEN next_retry_at END
    ) STORED,
    CONSTRAINT subscriptions_scope UNIQUE (subscription_id, account_id, livemode),
    CONSTRAINT subscriptions_customer FOREIGN KEY (customer_id, account_id, livemode)
      REFERENCES customers (customer_id, account_id, livemode),
    CONSTRAINT subscriptions_product FOREIGN KEY (product_id, account_id, livemode)
      REFERENCES products (product_id, account_id, livemode),
    CONSTRAINT subscriptions_checkout_session FOREIGN KEY (checkout_session_id, account_id, livemode)
      REFERENCES checkout_sessions (session_id, account_id, livemode),
    -- A checkout starts at most one subscription.
    CONSTRAINT subscriptions_one_per_session UNIQUE (checkout_session_id),
    -- The product's schedule (as products_schedule in 0001).
    CONSTRAINT subscriptions_schedule CHECK (
      interval_count >= 1 AND interval_count <=
        CASE billing_interval WHEN 'day' THEN 365 WHEN 'week' THEN 156 WHEN 'month' THEN 36 ELSE 3 END
    ),
    -- Periods move forward from the anchor; period 0 starts at it, later ones after it.
    CONSTRAINT subscriptions_period CHECK (
      next_billing_date > current_period_start AND current_period_start >= anchor
      AND (period = 0) = (current_period_start = anchor)
    ),
    -- cancelled, and only cancelled, says when and why.
    CONSTRAINT subscriptions_cancelled CHECK (
      (status = 'cancelled') = (cancelled_at IS NOT NULL)
      AND (status = 'cancelled') = (cancellation_reason IS NOT NULL)
    ),
    -- on_hold, and only on_hold, has a retry scheduled, after the failure that began the run.
    CONSTRAINT subscriptions_retry CHECK (
      (status = 'on_hold') = (next_retry_at IS NOT NULL) AND (next_retry_at IS NULL OR next_retry_at > first_failure_at)
    ),
    -- Failed attempts: none while active, one to three on hold (each retry), four when the last retry failed, which is
    -- exactly the cancellation for payment_failed. A run of failures has a start, and only while it lasts.
    CONSTRAINT subscriptions_failures CHECK (
      CASE status
        WHEN 'active' THEN failed_payment_attempts = 0
        WHEN 'on_hold' THEN failed_payment_attempts BETWEEN 1 AND 3
        ELSE true
      END
      AND (failed_payment_attempts = 4) = (cancellation_reason IS NOT DISTINCT FROM 'payment_failed')
      AND (failed_payment_attempts > 0) = (first_failure_at IS NOT NULL)
    )
  )`,
  // Billing claims: what is due, earliest first (cancelled subscriptions are not in the index).
  `CREATE INDEX subscriptions_due ON subscriptions (due_at, subscription_id) WHERE due_at IS NOT NULL`,
  // One index per list shape: the plain list and each filter, all in keyset order.
  `CREATE INDEX subscriptions_list ON subscriptions (account_id, livemode, created_at DESC, subscription_id DESC)`,
  `CREATE INDEX subscriptions_by_status
    ON subscriptions (account_id, livemode, status, created_at DESC, subscription_id DESC)`,
  `CREATE INDEX subscriptions_by_customer
    ON subscriptions (account_id, livemode, customer_id, created_at DESC, subscription_id DESC)`,

  // One row per charge of a period: attempt 0 the renewal, 1 to 3 the retries. The primary key is the rule.
  `CREATE TABLE subscription_attempts (
    subscription_id text COLLATE "C" NOT NULL REFERENCES subscriptions (subscription_id),
    period integer NOT NULL CHECK (period >= 1),
    attempt integer NOT NULL CHECK (attempt BETWEEN 0 AND 3),
    payment_id text COLLATE "C" NOT NULL UNIQUE,
    created_at timestamptz(3) NOT NULL DEFAULT now(),
    PRIMARY KEY (subscription_id, period, attempt),
    CONSTRAINT subscription_attempts_payment FOREIGN KEY (payment_id, subscription_id)
      REFERENCES payments (payment_id, subscription_id) DEFERRABLE INITIALLY DEFERRED
  )`,

  // The references the earlier tables could not have yet.
  `ALTER TABLE payments ADD CONSTRAINT payments_subscription FOREIGN KEY (subscription_id, account_id, livemode)
    REFERENCES subscriptions (subscription_id, account_id, livemode) DEFERRABLE INITIALLY DEFERRED`,
  `ALTER TABLE checkout_sessions ADD CONSTRAINT checkout_sessions_subscription_ref
    FOREIGN KEY (subscription_id, account_id, livemode)
    REFERENCES subscriptions (subscription_id, account_id, livemode) DEFERRABLE INITIALLY DEFERRED`
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
