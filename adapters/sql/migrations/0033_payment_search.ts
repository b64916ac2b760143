/**
 * The dashboard's payment search by amount and by the card's last 4 digits: each walks its own index newest first, so
 * a page of a rare amount is found without reading the account's other payments.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`CREATE INDEX payments_by_amount ON payments (account_id, livemode, total_amount, created_at DESC, payment_id DESC)`)
  yield* sql.unsafe(`CREATE INDEX payments_by_card ON payments (account_id, livemode, card_last4, created_at DESC, payment_id DESC)
    WHERE card_last4 IS NOT NULL`)
})
