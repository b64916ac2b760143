/** The dashboard's users, sign-in links, sessions and audit log on PostgreSQL (migrations 0012, 0017). */
import { DateTime, Effect } from "effect"
import type { AccountId, AuditId } from "../../../src/domain/Ids.js"
import type { AuditEntry, DashboardSession, DashboardUser, Role, SignInLink, UserId } from "../../../src/domain/DashboardUser.js"
import type { DashboardRepo } from "../../../src/ports/Store.js"
import type { Queries } from "../queries.js"
import { fromTimestamp, toTimestamp } from "../rows.js"
import { orUnavailable, uniqueViolation } from "../SqlErrors.js"

type Timestamp = Date | string

interface UserRow {
  readonly user_id: string
  readonly account_id: string
  readonly email: string
  readonly role: string
  readonly password_hash: string | null
  readonly created_at: Timestamp
  readonly updated_at: Timestamp
}
const userFromRow = (row: UserRow): DashboardUser => ({
  user_id: row.user_id as UserId,
  account_id: row.account_id as AccountId,
  email: row.email,
  role: row.role as Role,
  password_hash: row.password_hash,
  created_at: fromTimestamp(row.created_at),
  updated_at: fromTimestamp(row.updated_at)
})
const userToRow = (u: DashboardUser) => ({
  ...u,
  created_at: toTimestamp(u.created_at),
  updated_at: toTimestamp(u.updated_at)
})

interface LinkRow {
  readonly token_hash: string
  readonly user_id: string
  readonly expires_at: Timestamp
  readonly used_at: Timestamp | null
}
const linkFromRow = (row: LinkRow): SignInLink => ({
  token_hash: row.token_hash,
  user_id: row.user_id as UserId,
  expires_at: fromTimestamp(row.expires_at),
  used_at: row.used_at === null ? null : fromTimestamp(row.used_at)
})

interface SessionRow {
  readonly token_hash: string
  readonly user_id: string
  readonly account_id: string
  readonly csrf_token: string
  readonly created_at: Timestamp
  readonly last_seen_at: Timestamp
}
const sessionFromRow = (row: SessionRow): DashboardSession => ({
  token_hash: row.token_hash,
  user_id: row.user_id as UserId,
  account_id: row.account_id as AccountId,
  csrf_token: row.csrf_token,
  created_at: fromTimestamp(row.created_at),
  last_seen_at: fromTimestamp(row.last_seen_at)
})

interface AuditRow {
  readonly audit_id: string
  readonly account_id: string
  readonly user_id: string
  readonly email: string
  readonly action: string
  readonly object_id: string | null
  readonly livemode: boolean | null
  readonly address: string
  readonly at: Timestamp
}
const auditFromRow = (row: AuditRow): AuditEntry => ({
  ...row,
  audit_id: row.audit_id as AuditId,
  account_id: row.account_id as AccountId,
  user_id: row.user_id as UserId,
  at: fromTimestamp(row.at)
})

export const makeDashboardRepo = ({ first, sql }: Queries): DashboardRepo => ({
  insertUser: Effect.fnUntraced(function*(user) {
    yield* sql`INSERT INTO dashboard_users ${sql.insert(userToRow(user))}`
  }, orUnavailable),
  updateUser: Effect.fnUntraced(function*(user) {
    const { created_at: _, user_id, ...changes } = userToRow(user)
    yield* sql`UPDATE dashboard_users SET ${sql.update(changes)} WHERE user_id = ${user_id}`
  }, orUnavailable),
  // Another user's password on the e-mail, committed or at the same instant: the unique index refuses the second.
  setPassword: (user) =>
    Effect.gen(function*() {
      const { created_at: _, user_id, ...changes } = userToRow(user)
      const rows = yield* sql`UPDATE dashboard_users SET ${sql.update(changes)} WHERE user_id = ${user_id}
        AND NOT EXISTS (SELECT 1 FROM dashboard_users AS other WHERE lower(other.email) = lower(${user.email})
          AND other.password_hash IS NOT NULL AND other.user_id <> ${user_id})
        RETURNING 1`
      return rows.length > 0
    }).pipe(
      Effect.catchIf((error) => uniqueViolation(error) === "dashboard_users_email", () => Effect.succeed(false)),
      orUnavailable
    ),
  deleteUser: Effect.fnUntraced(function*(id) {
    yield* sql`DELETE FROM dashboard_users WHERE user_id = ${id}`
  }, orUnavailable),
  getUser: Effect.fnUntraced(function*(id) {
    return first(yield* sql<UserRow>`SELECT * FROM dashboard_users WHERE user_id = ${id}`, userFromRow)
  }, orUnavailable),
  findUserByEmail: Effect.fnUntraced(function*(email) {
    return first(yield* sql<UserRow>`SELECT * FROM dashboard_users
      WHERE lower(email) = lower(${email}) AND password_hash IS NOT NULL`, userFromRow)
  }, orUnavailable),
  listUsers: Effect.fnUntraced(function*(accountId) {
    const rows = yield* sql<UserRow>`SELECT * FROM dashboard_users WHERE account_id = ${accountId}
      ORDER BY created_at, user_id`
    return rows.map(userFromRow)
  }, orUnavailable),
  insertLink: Effect.fnUntraced(function*(link) {
    yield* sql`INSERT INTO dashboard_sign_in_links ${
      sql.insert({
        token_hash: link.token_hash,
        user_id: link.user_id,
        expires_at: toTimestamp(link.expires_at),
        used_at: link.used_at === null ? null : toTimestamp(link.used_at)
      })
    }`
  }, orUnavailable),
  findLink: Effect.fnUntraced(function*(tokenHash) {
    return first(yield* sql<LinkRow>`SELECT * FROM dashboard_sign_in_links WHERE token_hash = ${tokenHash}`, linkFromRow)
  }, orUnavailable),
  takeLink: Effect.fnUntraced(function*(tokenHash, now) {
    const at = DateTime.toDate(now)
    const rows = yield* sql<LinkRow>`UPDATE dashboard_sign_in_links SET used_at = ${at}
      WHERE token_hash = ${tokenHash} AND used_at IS NULL AND expires_at > ${at}
      RETURNING *`
    return first(rows, linkFromRow)
  }, orUnavailable),
  insertSession: Effect.fnUntraced(function*(session) {
    yield* sql`INSERT INTO dashboard_sessions ${
      sql.insert({
        ...session,
        created_at: toTimestamp(session.created_at),
        last_seen_at: toTimestamp(session.last_seen_at)
      })
    }`
  }, orUnavailable),
  findSession: Effect.fnUntraced(function*(tokenHash) {
    return first(yield* sql<SessionRow>`SELECT * FROM dashboard_sessions WHERE token_hash = ${tokenHash}`, sessionFromRow)
  }, orUnavailable),
  touchSession: Effect.fnUntraced(function*(tokenHash, at) {
    yield* sql`UPDATE dashboard_sessions SET last_seen_at = ${toTimestamp(at)} WHERE token_hash = ${tokenHash}`
  }, orUnavailable),
  deleteSession: Effect.fnUntraced(function*(tokenHash) {
    yield* sql`DELETE FROM dashboard_sessions WHERE token_hash = ${tokenHash}`
  }, orUnavailable),
  deleteSessionsOf: Effect.fnUntraced(function*(id) {
    yield* sql`DELETE FROM dashboard_sessions WHERE user_id = ${id}`
  }, orUnavailable),
  insertAudit: Effect.fnUntraced(function*(entry) {
    yield* sql`INSERT INTO dashboard_audit ${sql.insert({ ...entry, at: toTimestamp(entry.at) })}`
  }, orUnavailable),
  listAudit: Effect.fnUntraced(function*(accountId, limit) {
    const rows = yield* sql<AuditRow>`SELECT * FROM dashboard_audit WHERE account_id = ${accountId}
      ORDER BY at DESC, audit_id DESC LIMIT ${limit}`
    return rows.map(auditFromRow)
  }, orUnavailable)
})
