/**
 * A refund's reason (`requested_by_customer`, `duplicate`, `fraudulent`) and the merchant's note. Both may be
 * empty: refunds made before, and by the CLI or the library without one.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

const statements = [
  `ALTER TABLE refunds
     ADD COLUMN reason text CHECK (reason IN ('requested_by_customer', 'duplicate', 'fraudulent')),
     ADD COLUMN note text CHECK (reason IS NOT NULL OR note IS NULL)`
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
