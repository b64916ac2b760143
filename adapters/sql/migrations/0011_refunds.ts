/**
 * Refunds through the processor: each refund is a row, reserved `pending` before the processor is called
 * and ended once, `succeeded` or `refused`. Pending refunds count against what remains of their payment; a
 * payment's `refunded_amount` counts only succeeded ones. Refunds made before this migration have no row (their
 * amounts stay in `refunded_amount`).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

const statements = [
  `CREATE TABLE refunds (
    refund_id text COLLATE "C" PRIMARY KEY CHECK (refund_id ~ '^ref_[0-9a-f]{32}$'),
    payment_id text COLLATE "C" NOT NULL REFERENCES payments (payment_id),
    account_id text COLLATE "C" NOT NULL REFERENCES accounts (account_id),
    livemode boolean NOT NULL,
    amount bigint NOT NULL CHECK (amount > 0),
    status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'refused')),
    failure_reason text,
    processor_refund_id text,
    created_at timestamptz(3) NOT NULL,
    updated_at timestamptz(3) NOT NULL,
    CHECK ((status = 'refused') = (failure_reason IS NOT NULL)),
    CHECK (status <> 'succeeded' OR processor_refund_id IS NOT NULL)
  )`,
  `CREATE INDEX refunds_by_payment ON refunds (payment_id, created_at)`,
  `CREATE INDEX refunds_pending ON refunds (created_at, refund_id) WHERE status = 'pending'`,
  `CREATE INDEX refunds_by_creation ON refunds (created_at, refund_id)`,
  // Reconciliation reads every payment since an instant, oldest first, across accounts.
  `CREATE INDEX payments_by_creation ON payments (created_at, payment_id)`
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
