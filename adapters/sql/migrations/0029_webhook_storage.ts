/**
 * Webhook delivery log and health, made lean and safe under concurrency (docs/webhooks.md "Delivery log",
 * "Endpoint health").
 *
 * - `webhook_attempts.request_body` is no longer written: the body is the same on every attempt and is made again
 *   from the event when listed (`Delivery.requestBody`). Attempts that kept one keep it, and it is shown as sent.
 * - `webhook_health.since` may be null: an endpoint whose last attempt succeeded keeps its row (written once), so two
 *   recordings at once always queue on that row and each computes the streak from what the other wrote
 *   (`webhook_streak_after`, used inside ON CONFLICT DO UPDATE), instead of one deleting nothing from its snapshot
 *   while the other inserts.
 * - `webhook_streak_after` is `WebhookHealth.failingSinceAfter` for a batch summed up as its last success (`ok_at`)
 *   and its first failure after it (`failed_at`): a success at or after the streak's start clears it, an earlier
 *   failure moves it back; the streak of an endpoint Fils disabled is never cleared (it says why).
 * - Rows of endpoints deleted before their delete removed them go.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

const statements = [
  `ALTER TABLE webhook_health ALTER COLUMN since DROP NOT NULL`,
  `CREATE FUNCTION webhook_streak_after(since timestamptz, disabled_at timestamptz, ok_at timestamptz,
     failed_at timestamptz) RETURNS timestamptz LANGUAGE sql IMMUTABLE AS $$
     SELECT CASE WHEN disabled_at IS NOT NULL THEN coalesce(n.since, webhook_streak_after.since) ELSE n.since END
     FROM (SELECT least(CASE WHEN ok_at IS NULL OR webhook_streak_after.since > ok_at
       THEN webhook_streak_after.since END, failed_at) AS since) n
   $$`,
  `DELETE FROM webhook_health h WHERE NOT EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.webhook_id = h.webhook_id)`
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
