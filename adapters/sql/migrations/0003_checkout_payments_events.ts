/**
 * Checkout sessions, payments and events (docs/decisions.md §2, §5, §7).
 *
 * The payment invariants of §5 are CHECK constraints, equivalent to `violations` in src/domain/Payment.ts (the SQL
 * tests insert arbitrary payments and expect the database to refuse exactly those `violations` refuses), so a bug
 * in a use case cannot store a payment the domain calls impossible. A partial unique index allows at most one
 * `processing` payment per checkout session: a second charge of one session is refused by the store itself, not only
 * by the session lock the checkout takes.
 *
 * References carry the scope: a payment's customer and session, and a session's customer, must belong to the same
 * account and mode (composite foreign keys on `(id, account_id, livemode)`), so no row can point across tenants.
 * `subscription_id` has no foreign key yet: the subscriptions table comes with its own migration.
 *
 * The card on a payment is brand, last 4, expiry and the processor's token: there is no column for a card number.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

const maxAmount = "9007199254740991" // Number.MAX_SAFE_INTEGER: amounts round-trip exactly as JS numbers

const statements = [
  // Targets of the scoped foreign keys below.
  `ALTER TABLE customers ADD CONSTRAINT customers_scope UNIQUE (customer_id, account_id, livemode)`,

  `CREATE TABLE checkout_sessions (
    session_id text COLLATE "C" PRIMARY KEY,
    account_id text COLLATE "C" NOT NULL REFERENCES accounts (account_id),
    livemode boolean NOT NULL,
    kind text NOT NULL CHECK (kind IN ('payment', 'subscription')),
    status text NOT NULL CHECK (status IN ('open', 'complete', 'expired')),
    checkout_url text NOT NULL,
    total_amount bigint NOT NULL CHECK (total_amount BETWEEN 0 AND ${maxAmount}),
    currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    -- The priced cart as it was at creation (a snapshot: later price changes do not touch it).
    product_cart jsonb NOT NULL CHECK (jsonb_typeof(product_cart) = 'array'
      AND jsonb_array_length(product_cart) BETWEEN 1 AND 50),
    customer_id text COLLATE "C",
    -- The embedded customer: null until known (all three null), else at least an e-mail.
    customer_name text,
    customer_email text,
    customer_phone_number text,
    return_url text,
    payment_id text COLLATE "C",
    subscription_id text COLLATE "C",
    metadata jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(metadata) = 'object'),
    form_token text NOT NULL,
    created_at timestamptz(3) NOT NULL,
    expires_at timestamptz(3) NOT NULL,
    completed_at timestamptz(3),
    CONSTRAINT checkout_sessions_scope UNIQUE (session_id, account_id, livemode),
    CONSTRAINT checkout_sessions_customer FOREIGN KEY (customer_id, account_id, livemode)
      REFERENCES customers (customer_id, account_id, livemode),
    CONSTRAINT checkout_sessions_embedded_customer CHECK (
      customer_email IS NOT NULL OR (customer_name IS NULL AND customer_phone_number IS NULL)
    ),
    CONSTRAINT checkout_sessions_expiry CHECK (expires_at > created_at),
    -- open → complete (a payment succeeded: it is named, and when) | expired; nothing else.
    CONSTRAINT checkout_sessions_completion CHECK (
      (status = 'complete') = (completed_at IS NOT NULL) AND (status <> 'complete' OR payment_id IS NOT NULL)
    ),
    CONSTRAINT checkout_sessions_subscription CHECK (subscription_id IS NULL OR kind = 'subscription')
  )`,
  // Expiry claims: open sessions by expiry, oldest first (the only ones the claim looks at).
  `CREATE INDEX checkout_sessions_due ON checkout_sessions (expires_at, session_id) WHERE status = 'open'`,

  `CREATE TABLE payments (
    payment_id text COLLATE "C" PRIMARY KEY,
    account_id text COLLATE "C" NOT NULL REFERENCES accounts (account_id),
    livemode boolean NOT NULL,
    status text NOT NULL
      CHECK (status IN ('processing', 'succeeded', 'failed', 'refunded', 'partially_refunded')),
    total_amount bigint NOT NULL CHECK (total_amount BETWEEN 0 AND ${maxAmount}),
    refunded_amount bigint NOT NULL,
    fee_amount bigint NOT NULL,
    -- Negative after a full refund: fees are not returned.
    net_amount bigint NOT NULL,
    currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    description text NOT NULL,
    -- The customer as it was when the payment was made: null (all four) or an id and e-mail.
    customer_id text COLLATE "C",
    customer_name text,
    customer_email text,
    customer_phone_number text,
    checkout_session_id text COLLATE "C",
    subscription_id text COLLATE "C",
    billing_reason text NOT NULL CHECK (billing_reason IN ('payment', 'subscription_create', 'subscription_renewal')),
    metadata jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(metadata) = 'object'),
    -- The card used: all five or none. Never the number.
    card_brand text,
    card_last4 text CHECK (card_last4 ~ '^[0-9]{4}$'),
    card_exp_month integer CHECK (card_exp_month BETWEEN 1 AND 12),
    card_exp_year integer CHECK (card_exp_year BETWEEN 1000 AND 9999),
    card_token text,
    charge_id text,
    failure_code text,
    created_at timestamptz(3) NOT NULL,
    paid_at timestamptz(3),
    CONSTRAINT payments_customer FOREIGN KEY (customer_id, account_id, livemode)
      REFERENCES customers (customer_id, account_id, livemode),
    CONSTRAINT payments_checkout_session FOREIGN KEY (checkout_session_id, account_id, livemode)
      REFERENCES checkout_sessions (session_id, account_id, livemode),
    CONSTRAINT payments_embedded_customer CHECK (
      (customer_id IS NULL) = (customer_email IS NULL)
      AND (customer_id IS NOT NULL OR (customer_name IS NULL AND customer_phone_number IS NULL))
    ),
    CONSTRAINT payments_card CHECK (
      num_nulls(card_brand, card_last4, card_exp_month, card_exp_year, card_token) IN (0, 5)
    ),
    -- docs/decisions.md §5, as Payment.violations states them. "Paid" = succeeded, partially_refunded or refunded.
    CONSTRAINT payments_refunded_range CHECK (refunded_amount BETWEEN 0 AND total_amount),
    CONSTRAINT payments_fee_range CHECK (fee_amount BETWEEN 0 AND total_amount),
    CONSTRAINT payments_net CHECK (net_amount = total_amount - fee_amount - refunded_amount),
    CONSTRAINT payments_refunded_iff_all CHECK (
      (status = 'refunded') = (
        status IN ('succeeded', 'partially_refunded', 'refunded') AND refunded_amount = total_amount AND total_amount > 0
      )
    ),
    CONSTRAINT payments_partial_refund CHECK (
      status <> 'partially_refunded' OR (refunded_amount > 0 AND refunded_amount < total_amount)
    ),
    CONSTRAINT payments_unpaid_no_fee_or_refund CHECK (
      status IN ('succeeded', 'partially_refunded', 'refunded') OR (fee_amount = 0 AND refunded_amount = 0)
    ),
    CONSTRAINT payments_paid_at CHECK (
      (paid_at IS NOT NULL) = (status IN ('succeeded', 'partially_refunded', 'refunded'))
    ),
    CONSTRAINT payments_failure_code CHECK (failure_code IS NULL OR status = 'failed')
  )`,
  // A session's payment is one of the payments (added after both tables exist: they refer to each other).
  `ALTER TABLE checkout_sessions ADD CONSTRAINT checkout_sessions_payment
    FOREIGN KEY (payment_id) REFERENCES payments (payment_id)`,
  // At most one charge in flight per checkout session: a store-level guard against charging a session twice.
  `CREATE UNIQUE INDEX payments_one_processing_per_session ON payments (checkout_session_id)
    WHERE status = 'processing'`,
  // One index per list shape: the plain list and each filter, all in keyset order.
  `CREATE INDEX payments_list ON payments (account_id, livemode, created_at DESC, payment_id DESC)`,
  `CREATE INDEX payments_by_status ON payments (account_id, livemode, status, created_at DESC, payment_id DESC)`,
  `CREATE INDEX payments_by_customer ON payments (account_id, livemode, customer_id, created_at DESC, payment_id DESC)
    WHERE customer_id IS NOT NULL`,
  `CREATE INDEX payments_by_session
    ON payments (account_id, livemode, checkout_session_id, created_at DESC, payment_id DESC)
    WHERE checkout_session_id IS NOT NULL`,
  // Settlement claims: processing payments, oldest first.
  `CREATE INDEX payments_processing ON payments (created_at, payment_id) WHERE status = 'processing'`,

  `CREATE TABLE events (
    event_id text COLLATE "C" PRIMARY KEY,
    account_id text COLLATE "C" NOT NULL REFERENCES accounts (account_id),
    livemode boolean NOT NULL,
    type text NOT NULL CHECK (type IN (
      'payment.succeeded', 'payment.failed', 'refund.succeeded', 'subscription.active', 'subscription.renewed',
      'subscription.on_hold', 'subscription.cancelled'
    )),
    data jsonb NOT NULL CHECK (jsonb_typeof(data) = 'object'),
    created_at timestamptz(3) NOT NULL
  )`,
  `CREATE INDEX events_list ON events (account_id, livemode, created_at DESC, event_id DESC)`,
  `CREATE INDEX events_by_type ON events (account_id, livemode, type, created_at DESC, event_id DESC)`
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
