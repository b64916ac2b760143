/**
 * When each API key was last used (the dashboard's key list), to the minute. Kept apart from `api_keys`:
 * it is operational bookkeeping, like the rate counters, written at most once a minute per key and process, and
 * never part of a request's own writes (a refused request still writes no object row).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`CREATE TABLE api_key_usage (
    key_id text COLLATE "C" PRIMARY KEY REFERENCES api_keys (key_id) ON DELETE CASCADE,
    last_used_at timestamptz(3) NOT NULL
  )`)
})
