/** A scope's refunds newest first, by keyset (the dashboard's refunds export reads them a page at a time). */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`CREATE INDEX refunds_by_scope ON refunds (account_id, livemode, created_at DESC, refund_id DESC)`)
})
