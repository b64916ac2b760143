/**
 * Invitations per account: a user who has not set a password yet is a pending invitation of
 * one account, so two accounts may invite the same e-mail and neither learns of the other. A person still signs in
 * as one user: the e-mail is unique among users who have set a password, and once within an account.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

const statements = [
  `DROP INDEX dashboard_users_email`,
  `CREATE UNIQUE INDEX dashboard_users_email ON dashboard_users (lower(email)) WHERE password_hash IS NOT NULL`,
  `CREATE UNIQUE INDEX dashboard_users_account_email ON dashboard_users (account_id, lower(email))`
]

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  for (const statement of statements) yield* sql.unsafe(statement)
})
