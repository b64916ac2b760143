/**
 * Performance, from profiles of `npm run bench`:
 *
 * - `rate_limits` becomes UNLOGGED. Every authenticated request takes its key's bucket row lock for one
 *   `fils_rate_limit_hit`; on a logged table each hit commits with a WAL flush while holding that lock, so all the
 *   requests of one key queued behind the disk. Unlogged rows write no WAL, so the lock is held for microseconds.
 *   The counters are still shared by every server on the database; what is given up is only their survival of a
 *   PostgreSQL crash (they restart empty, as after a minute of quiet), which a rolling one-minute limit can afford.
 * - `webhook_deliveries_due_by_webhook` and `webhook_deliveries_leased`: the delivery claim takes, per endpoint, its
 *   oldest due rows up to the in-flight cap minus the ones it has leased. Both are index probes per endpoint with
 *   these; without them every claim passed over the whole pending backlog.
 * - `webhook_deliveries_by_status`: `fils deliveries list --status` in keyset order (the other list filters have
 *   their index since 0005).
 *
 * (Numbered 0008: 0006 and 0007 were taken by the webhook-secret and rate-limit migrations written alongside.)
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

const statements = [
  `ALTER TABLE rate_limits SET UNLOGGED`,
  `CREATE INDEX webhook_deliveries_due_by_webhook ON webhook_deliveries (webhook_id, next_attempt_at, delivery_id)
    WHERE status = 'pending'`,
  `CREATE INDEX webhook_deliveries_leased ON webhook_deliveries (webhook_id)
    WHERE status = 'pending' AND lease_until IS NOT NULL`,
  `CREATE INDEX webhook_deliveries_by_status ON webhook_deliveries (status, created_at DESC, delivery_id DESC)`
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
