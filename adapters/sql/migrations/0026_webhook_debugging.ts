/**
 * Webhooks you can debug (docs/webhooks.md "Delivery log", "Test events", "Endpoint health").
 *
 * `webhook_attempts` keeps what each attempt sent (the headers Fils set, signatures as sent, and the exact body) and
 * the first 4 KiB of the answer (`Delivery.answerLimitBytes`), its endpoint and whether it succeeded: the endpoint's
 * failure share over a day is an index range (`webhook_attempts_health`), never a pass over its deliveries. Attempts
 * recorded before keep null for what was not kept then.
 *
 * `webhook_health` holds a row per endpoint whose last attempts failed: `since`, the start of its failing streak
 * (`WebhookHealth.failingSinceAfter`), and `disabled_at` once Fils disabled it for failing 3 days. A healthy endpoint
 * has no row, so recording successes writes nothing here.
 *
 * `events.test` marks the test events of `POST /webhooks/{id}/test`: delivered like any, left out of the record.
 * `webhook.disabled` joins the event types.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

// The event types as of this migration: those of 0024 and `webhook.disabled`.
const eventTypes = `ARRAY['payment.succeeded', 'payment.failed', 'refund.succeeded', 'subscription.active',
  'subscription.renewed', 'subscription.on_hold', 'subscription.cancelled', 'invoice.issued',
  'credit_note.issued', 'subscription.plan_changed', 'webhook.disabled']::text[]`

const statements = [
  `ALTER TABLE events DROP CONSTRAINT events_type_check,
     ADD CONSTRAINT events_type_check CHECK (type = ANY (${eventTypes})),
     ADD COLUMN test boolean NOT NULL DEFAULT false`,
  `ALTER TABLE webhook_endpoints DROP CONSTRAINT webhook_endpoints_event_types_check,
     ADD CONSTRAINT webhook_endpoints_event_types_check CHECK (
       array_ndims(event_types) = 1 AND cardinality(event_types) >= 1 AND event_types <@ ${eventTypes}
     )`,
  `ALTER TABLE webhook_attempts
     ADD COLUMN webhook_id text COLLATE "C",
     ADD COLUMN ok boolean,
     ADD COLUMN request_headers jsonb CHECK (request_headers IS NULL OR jsonb_typeof(request_headers) = 'object'),
     ADD COLUMN request_body text,
     ADD COLUMN response_body text CHECK (octet_length(response_body) <= 4096)`,
  `UPDATE webhook_attempts a SET webhook_id = d.webhook_id, ok = coalesce(a.status_code BETWEEN 200 AND 299, false)
     FROM webhook_deliveries d WHERE d.delivery_id = a.delivery_id`,
  `ALTER TABLE webhook_attempts ALTER COLUMN webhook_id SET NOT NULL, ALTER COLUMN ok SET NOT NULL`,
  `CREATE INDEX webhook_attempts_health ON webhook_attempts (webhook_id, started_at) INCLUDE (ok)`,
  `CREATE TABLE webhook_health (
    webhook_id text COLLATE "C" PRIMARY KEY,
    since timestamptz(3) NOT NULL,
    disabled_at timestamptz(3)
  )`
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
