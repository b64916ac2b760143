/**
 * Request logs (docs/api.md, "Request logs"): one row per API request an account's key made, written in batches
 * off the requests' path and deleted once older than the retention. Events carry the request that caused them.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

const statements = [
  `CREATE TABLE request_logs (
    request_log_id text COLLATE "C" PRIMARY KEY,
    account_id text COLLATE "C" NOT NULL,
    livemode boolean NOT NULL,
    request_id text NOT NULL,
    key_id text COLLATE "C" NOT NULL,
    method text NOT NULL,
    path text NOT NULL,
    status smallint NOT NULL,
    duration_ms double precision NOT NULL,
    idempotency_key text,
    error_code text,
    created_at timestamptz(3) NOT NULL
  )`,
  // The list, newest first; and a request's line (a filter of its own, and an event's link to it).
  `CREATE INDEX request_logs_by_scope ON request_logs (account_id, livemode, created_at DESC, request_log_id DESC)`,
  `CREATE INDEX request_logs_by_request ON request_logs (account_id, livemode, request_id)`,
  // Pruning, by age across accounts.
  `CREATE INDEX request_logs_by_age ON request_logs (created_at)`,
  `ALTER TABLE events ADD COLUMN request_id text`,
  `CREATE INDEX events_by_request ON events (account_id, livemode, request_id) WHERE request_id IS NOT NULL`
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
