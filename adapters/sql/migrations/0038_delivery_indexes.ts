/**
 * Fewer indexes on `webhook_deliveries`, the table a delivery updates twice (its claim, its outcome). Each update
 * changes an indexed column, so PostgreSQL writes a new entry into every index whose predicate the new row meets:
 * thirteen entries per delivery before, ten after (docs/performance.md, "Webhook deliveries").
 *
 * - `webhook_deliveries_due` goes: claims probe `webhook_deliveries_due_by_webhook` per endpoint (0008) and nothing
 *   else reads the pending rows in due order across endpoints.
 * - `webhook_deliveries_by_status` (every row) becomes `webhook_deliveries_ended_unsent`, the failed and cancelled
 *   rows alone, which a delivered row never enters. `fils deliveries list --status` still walks an index in keyset
 *   order for those; succeeded rows are most of the list's own index (0005), and the pending ones are in the
 *   partial indexes of the claim.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

const statements = [
  `DROP INDEX IF EXISTS webhook_deliveries_due`,
  `DROP INDEX IF EXISTS webhook_deliveries_by_status`,
  `CREATE INDEX IF NOT EXISTS webhook_deliveries_ended_unsent ON webhook_deliveries (status, created_at DESC, delivery_id DESC)
    WHERE status IN ('failed', 'cancelled')`
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
