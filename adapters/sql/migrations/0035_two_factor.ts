/**
 * Two-factor sign-in for dashboard users (`TwoFactor.ts`): each user's TOTP secret (sealed by the SecretBox like
 * webhook secrets, bound to the user's id), when it was confirmed, the last step a code was accepted for (a code
 * works once), and the digests of the recovery codes not used yet; the sessions that wait for a code after the
 * password; an account's choice to require it of every user.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

const statements = [
  `ALTER TABLE accounts ADD COLUMN two_factor_required boolean NOT NULL DEFAULT false`,
  `ALTER TABLE dashboard_sessions ADD COLUMN awaiting_code boolean NOT NULL DEFAULT false`,
  `CREATE TABLE dashboard_two_factor (
    user_id text COLLATE "C" PRIMARY KEY REFERENCES dashboard_users (user_id) ON DELETE CASCADE,
    secret text NOT NULL,
    enabled_at timestamptz(3),
    last_step bigint,
    recovery_codes text[] NOT NULL
  )`
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
