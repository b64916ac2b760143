/**
 * The objects an event is about, as columns (`Event.subjects`): a payment's or a subscription's timeline is a query
 * by its id, however many events the account has had since; and a subscription's payments likewise.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

const statements = [
  `ALTER TABLE events ADD COLUMN payment_id text COLLATE "C", ADD COLUMN subscription_id text COLLATE "C"`,
  // Events written before: the same ids, read from their data as `Event.subjects` reads them.
  `UPDATE events SET
     payment_id = CASE WHEN jsonb_typeof(data -> 'payment_id') = 'string' THEN data ->> 'payment_id' END,
     subscription_id = CASE WHEN jsonb_typeof(data -> 'subscription_id') = 'string' THEN data ->> 'subscription_id' END`,
  `CREATE INDEX payments_by_subscription ON payments (account_id, livemode, subscription_id, created_at DESC, payment_id DESC)
     WHERE subscription_id IS NOT NULL`,
  `CREATE INDEX events_by_payment ON events (account_id, livemode, payment_id, created_at DESC, event_id DESC)
     WHERE payment_id IS NOT NULL`,
  `CREATE INDEX events_by_subscription ON events (account_id, livemode, subscription_id, created_at DESC, event_id DESC)
     WHERE subscription_id IS NOT NULL`
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
