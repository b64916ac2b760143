/**
 * Discount codes (docs/discounts.md): the `discounts` table, and the discounts each checkout session, payment and
 * subscription carries. A code is unique per account and mode whatever its case (an index on its upper case), and the
 * uses counted plus those held by charges at the processor never pass the usage limit (a CHECK): the rule holds
 * however many checkouts redeem a code at once. Tax lines priced before discounts get their `discount` (0), so every
 * stored line reads the same.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/** `tax_lines` with `"discount": 0` on each of its lines. */
const withLineDiscounts = `jsonb_set(tax_lines, '{lines}', (
  SELECT jsonb_agg(line || '{"discount": 0}'::jsonb ORDER BY n)
  FROM jsonb_array_elements(tax_lines -> 'lines') WITH ORDINALITY AS e(line, n)
))`

const statements = [
  `CREATE TABLE discounts (
    discount_id text COLLATE "C" PRIMARY KEY CHECK (discount_id ~ '^dsc_[0-9a-f]{32}$'),
    account_id text COLLATE "C" NOT NULL REFERENCES accounts (account_id),
    livemode boolean NOT NULL,
    code text NOT NULL CHECK (code ~ '^[A-Za-z0-9_-]{3,16}$'),
    name text,
    type text NOT NULL CHECK (type IN ('percentage', 'flat')),
    amount bigint NOT NULL CHECK (amount >= 1 AND (type = 'flat' OR amount <= 10000)),
    subscription_cycles integer CHECK (subscription_cycles >= 1),
    usage_limit bigint CHECK (usage_limit >= 1),
    times_used bigint NOT NULL CHECK (times_used >= 0),
    held integer NOT NULL CHECK (held >= 0),
    expires_at timestamptz(3),
    restricted_to text[] NOT NULL,
    preserve_on_plan_change boolean NOT NULL,
    metadata jsonb NOT NULL,
    created_at timestamptz(3) NOT NULL,
    CHECK (usage_limit IS NULL OR times_used + held <= usage_limit)
  )`,
  `CREATE UNIQUE INDEX discounts_code ON discounts (account_id, livemode, upper(code))`,
  `CREATE INDEX discounts_newest ON discounts (account_id, livemode, created_at DESC, discount_id DESC)`,
  `ALTER TABLE checkout_sessions ADD COLUMN discounts jsonb NOT NULL DEFAULT '[]'`,
  `ALTER TABLE payments ADD COLUMN discounts jsonb NOT NULL DEFAULT '[]'`,
  `ALTER TABLE subscriptions ADD COLUMN discounts jsonb NOT NULL DEFAULT '[]'`,
  `UPDATE checkout_sessions SET tax_lines = ${withLineDiscounts} WHERE tax_lines IS NOT NULL`,
  `UPDATE payments SET tax_lines = ${withLineDiscounts} WHERE tax_lines IS NOT NULL`,
  `UPDATE subscriptions SET tax_lines = ${withLineDiscounts} WHERE tax_lines IS NOT NULL`
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
