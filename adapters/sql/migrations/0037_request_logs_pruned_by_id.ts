/**
 * Request log lines are pruned along their primary key (ids sort by the time they were made,
 * `RequestLog.writtenFrom`), so the index by age only cost each insert a third index entry.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`DROP INDEX IF EXISTS request_logs_by_age`)
})
