/**
 * The first schema: accounts and keys, the catalogue (products, customers) and the request bookkeeping
 * (idempotency records, rate-limit buckets).
 *
 * Ids are `text COLLATE "C"` so that the database orders them byte-wise, exactly like the engine's string comparison
 * (keyset pagination tie-breaks on the id). Times are `timestamptz(3)`: the engine works in milliseconds, and a
 * keyset position must round-trip exactly. Amounts are `bigint` (minor units up to 2^53 - 1).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

const statements = [
  `CREATE TABLE accounts (
    account_id text COLLATE "C" PRIMARY KEY,
    business_name text,
    support_email text,
    live_payments_enabled boolean NOT NULL DEFAULT false,
    created_at timestamptz(3) NOT NULL
  )`,

  `CREATE TABLE api_keys (
    key_id text COLLATE "C" PRIMARY KEY,
    account_id text COLLATE "C" NOT NULL REFERENCES accounts (account_id),
    livemode boolean NOT NULL,
    hash text NOT NULL UNIQUE,
    last4 text NOT NULL,
    created_at timestamptz(3) NOT NULL,
    revoked_at timestamptz(3)
  )`,
  `CREATE INDEX api_keys_account ON api_keys (account_id, livemode)`,

  `CREATE TABLE products (
    product_id text COLLATE "C" PRIMARY KEY,
    account_id text COLLATE "C" NOT NULL REFERENCES accounts (account_id),
    livemode boolean NOT NULL,
    name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
    description text NOT NULL DEFAULT '',
    price bigint NOT NULL CHECK (price >= 0 AND price <= 9007199254740991),
    currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    billing text NOT NULL CHECK (billing IN ('one_time', 'recurring')),
    billing_interval text CHECK (billing_interval IN ('day', 'week', 'month', 'year')),
    interval_count integer,
    status text NOT NULL CHECK (status IN ('active', 'draft', 'archived')),
    metadata jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(metadata) = 'object'),
    created_at timestamptz(3) NOT NULL,
    updated_at timestamptz(3),
    -- docs/decisions.md §1: no schedule for one-time products; a recurring one has an interval and at most three years.
    CONSTRAINT products_schedule CHECK (
      (billing = 'one_time' AND billing_interval IS NULL AND interval_count IS NULL) OR
      (billing = 'recurring' AND billing_interval IS NOT NULL AND interval_count >= 1 AND interval_count <=
        CASE billing_interval WHEN 'day' THEN 365 WHEN 'week' THEN 156 WHEN 'month' THEN 36 ELSE 3 END)
    )
  )`,
  // One index per list shape: the plain list and each filter, all in keyset order.
  `CREATE INDEX products_list ON products (account_id, livemode, created_at DESC, product_id DESC)`,
  `CREATE INDEX products_by_status ON products (account_id, livemode, status, created_at DESC, product_id DESC)`,
  `CREATE INDEX products_by_billing ON products (account_id, livemode, billing, created_at DESC, product_id DESC)`,

  `CREATE TABLE customers (
    customer_id text COLLATE "C" PRIMARY KEY,
    account_id text COLLATE "C" NOT NULL REFERENCES accounts (account_id),
    livemode boolean NOT NULL,
    name text,
    email text NOT NULL CHECK (char_length(email) <= 254),
    phone_number text,
    metadata jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(metadata) = 'object'),
    created_at timestamptz(3) NOT NULL
  )`,
  `CREATE INDEX customers_list ON customers (account_id, livemode, created_at DESC, customer_id DESC)`,
  // The e-mail filter and the checkout's "reuse the customer with this e-mail" lookup ignore case.
  `CREATE INDEX customers_by_email ON customers (account_id, livemode, lower(email), created_at DESC, customer_id DESC)`,

  `CREATE TABLE idempotency_keys (
    scope text NOT NULL,
    key text NOT NULL,
    fingerprint text NOT NULL,
    response_status integer,
    response_body text,
    locked_until timestamptz(3) NOT NULL,
    expires_at timestamptz(3) NOT NULL,
    PRIMARY KEY (scope, key),
    CHECK ((response_status IS NULL) = (response_body IS NULL))
  )`,
  // For pruning expired records.
  `CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at)`,

  // One row per bucket: the fixed-size slot arrays of RateWindow (slot i counts second seconds[i]).
  `CREATE TABLE rate_limits (
    bucket text PRIMARY KEY,
    seconds bigint[] NOT NULL,
    counts integer[] NOT NULL,
    updated_at timestamptz(3) NOT NULL DEFAULT now(),
    CHECK (cardinality(seconds) = cardinality(counts))
  )`,
  `CREATE INDEX rate_limits_updated ON rate_limits (updated_at)`
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
