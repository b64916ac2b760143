/** Request logs on PostgreSQL: written a batch per statement, listed newest first, deleted oldest first. */
import * as SqlClient from "@effect/sql/SqlClient"
import { DateTime, Effect, Option } from "effect"
import type { RequestLogsRepo } from "../../../src/ports/Store.js"
import type { Queries } from "../queries.js"
import * as Rows from "../rows.js"
import { copyRow, type PgCopy } from "../Copy.js"
import { orUnavailable } from "../SqlErrors.js"

const { columns } = Rows.RequestLogs

export const makeRequestLogsRepo = (
  { first, inScope, page, sql }: Queries,
  copy: Option.Option<PgCopy["Type"]>
): RequestLogsRepo => ({
  insertAll: Effect.fnUntraced(function*(lines) {
    if (lines.length === 0) return
    // By COPY a line costs the database half what it costs by the INSERT below (docs/performance.md, "Request logs").
    // COPY runs on a connection of its own: inside a transaction, the INSERT joins it instead.
    if (Option.isSome(copy) && Option.isNone(yield* Effect.serviceOption(SqlClient.TransactionConnection))) {
      let text = ""
      for (const line of lines) {
        const row = Rows.requestLogToRow(line)
        text += copyRow(columns.map((column) => row[column]))
      }
      return yield* copy.value.copyIn("request_logs", columns, text)
    }
    // One JSON parameter rather than a dozen per line: a batch of 500 binds in a fraction of the time. `json`, not
    // `jsonb`: read once, so the database need not build the binary form first.
    yield* sql`INSERT INTO request_logs
      SELECT * FROM json_populate_recordset(NULL::request_logs, ${JSON.stringify(lines.map(Rows.requestLogToRow))}::json)`
  }, orUnavailable),

  get: Effect.fnUntraced(function*(scope, id) {
    const rows = yield* sql<Rows.RequestLogRow>`SELECT * FROM request_logs WHERE request_log_id = ${id} AND ${inScope(scope)}`
    return first(rows, Rows.requestLogFromRow)
  }, orUnavailable),

  list: Effect.fnUntraced(function*(scope, filter, request) {
    const conditions = [inScope(scope)]
    if (filter.status !== undefined) conditions.push(sql`status BETWEEN ${filter.status.min} AND ${filter.status.max}`)
    if (filter.path !== undefined) conditions.push(sql`starts_with(path, ${filter.path})`)
    if (filter.key_id !== undefined) conditions.push(sql`key_id = ${filter.key_id}`)
    if (filter.request_id !== undefined) conditions.push(sql`request_id = ${filter.request_id}`)
    if (filter.since !== undefined) conditions.push(sql`created_at >= ${DateTime.toDate(filter.since)}`)
    if (filter.until !== undefined) conditions.push(sql`created_at < ${DateTime.toDate(filter.until)}`)
    return yield* page("request_logs", conditions, request, Rows.requestLogFromRow)
  }, orUnavailable),

  // The oldest first, along the primary key (ids sort by the time they were made).
  prune: Effect.fnUntraced(function*(bound, limit) {
    const [row] = yield* sql<{ readonly n: number }>`WITH gone AS (
        DELETE FROM request_logs WHERE request_log_id IN (
          SELECT request_log_id FROM request_logs WHERE request_log_id < ${bound} ORDER BY request_log_id LIMIT ${limit}
        ) RETURNING 1
      ) SELECT count(*)::int AS n FROM gone`
    return row?.n ?? 0
  }, orUnavailable)
})
