/**
 * Monthly recurring revenue as it stood each day (the account's local day), written when the home page reads it: a
 * subscription's past plan and state are not kept, so the figure the home compares today's with is the one recorded
 * then. One row per scope and day, the day's latest reading (by when it was read: two readings at once keep the
 * later one, whichever is written last).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

const statements = [
  `CREATE TABLE monthly_revenue_days (
    account_id text COLLATE "C" NOT NULL REFERENCES accounts (account_id),
    livemode boolean NOT NULL,
    day date NOT NULL,
    mrr bigint NOT NULL CHECK (mrr >= 0),
    subscriptions integer NOT NULL CHECK (subscriptions >= 0),
    recorded_at timestamptz(3) NOT NULL,
    PRIMARY KEY (account_id, livemode, day)
  )`
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
