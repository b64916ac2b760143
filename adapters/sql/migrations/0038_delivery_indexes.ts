/**
 * Fewer index entries on `webhook_deliveries`, the table a delivery is inserted into and then updated twice (its
 * claim, its outcome). Each update changes an indexed column, so PostgreSQL writes a new entry into every index whose
 * predicate the new row meets (docs/performance.md, "Webhook deliveries").
 *
 * - `webhook_deliveries_due` goes: claims probe `webhook_deliveries_due_by_webhook` per endpoint (0008), and nothing
 *   else reads the pending rows in due order across endpoints.
 * - `webhook_deliveries_by_status`, over every row, becomes `webhook_deliveries_unsucceeded`, over the rows not (yet)
 *   delivered: `fils deliveries list --status pending|failed|cancelled` still reads its rows newest first from an
 *   index, however many succeeded ones are newer (a backlog behind an outage), and the rows delivered, most of the
 *   table, leave it. A `--status succeeded` list walks the list's own index (0005), where nearly every row is one.
 *
 * The new index is built before the old ones are dropped: its scan holds a lock that lets reads go on, and the
 * drops' exclusive lock comes last.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

const statements = [
  `CREATE INDEX IF NOT EXISTS webhook_deliveries_unsucceeded ON webhook_deliveries (status, created_at DESC, delivery_id DESC)
    WHERE status <> 'succeeded'`,
  `DROP INDEX IF EXISTS webhook_deliveries_due`,
  `DROP INDEX IF EXISTS webhook_deliveries_by_status`
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
