/**
 * The dashboard's users, sign-in links, sessions, two-factor sign-in and audit log on PostgreSQL (migrations 0012,
 * 0017, 0035). A TOTP secret rests as the SecretBox writes it (sealed, bound to its user's id), as webhook secrets do.
 */
import { DateTime, Effect, Either, Option, Redacted } from "effect"
import type { UserId } from "../../../src/domain/Ids.js"
import type { TwoFactor } from "../../../src/domain/TwoFactor.js"
import type { SecretBoxShape } from "../../../src/ports/SecretBox.js"
import type { DashboardRepo } from "../../../src/ports/Store.js"
import type { Queries } from "../queries.js"
import {
  type AuditRow,
  auditFromRow,
  auditToRow,
  type DashboardSessionRow,
  dashboardSessionFromRow,
  dashboardSessionToRow,
  type DashboardUserRow,
  dashboardUserFromRow,
  dashboardUserToRow,
  type SignInLinkRow,
  signInLinkFromRow,
  signInLinkToRow,
  toTimestamp
} from "../rows.js"
import { orUnavailable, uniqueViolation } from "../SqlErrors.js"

interface TwoFactorRow {
  readonly user_id: string
  readonly secret: string
  readonly enabled_at: Date | null
  readonly last_step: number | string | null
  readonly recovery_codes: ReadonlyArray<string>
}

export const makeDashboardRepo = ({ first, sql }: Queries, box: SecretBoxShape): DashboardRepo => ({
  getTwoFactor: Effect.fnUntraced(function*(id) {
    const [row] = yield* sql<TwoFactorRow>`SELECT * FROM dashboard_two_factor WHERE user_id = ${id}`
    if (row === undefined) return Option.none<TwoFactor>()
    // A secret the box cannot open is a configuration fault (the start-up check makes it a rotation out of order).
    const secret = yield* Either.match(box.open(row.secret, row.user_id), {
      onLeft: (error) => Effect.dieMessage(`two-factor secret of ${row.user_id}: ${error.message}`),
      onRight: (opened) => Effect.succeed(Redacted.make(opened))
    })
    return Option.some<TwoFactor>({
      user_id: row.user_id as UserId,
      secret,
      enabled_at: row.enabled_at === null ? null : DateTime.unsafeMake(row.enabled_at),
      last_step: row.last_step === null ? null : Number(row.last_step),
      recovery_codes: row.recovery_codes
    })
  }, orUnavailable),
  putTwoFactor: Effect.fnUntraced(function*(t) {
    const secret = yield* box.seal(Redacted.value(t.secret), t.user_id)
    const enabled = t.enabled_at === null ? null : DateTime.toDate(t.enabled_at)
    yield* sql`INSERT INTO dashboard_two_factor (user_id, secret, enabled_at, last_step, recovery_codes)
      VALUES (${t.user_id}, ${secret}, ${enabled}, ${t.last_step}, ARRAY(SELECT jsonb_array_elements_text(${JSON.stringify(t.recovery_codes)}::jsonb)))
      ON CONFLICT (user_id) DO UPDATE SET secret = EXCLUDED.secret, enabled_at = EXCLUDED.enabled_at,
        last_step = EXCLUDED.last_step, recovery_codes = EXCLUDED.recovery_codes`
  }, orUnavailable),
  deleteTwoFactor: Effect.fnUntraced(function*(id) {
    yield* sql`DELETE FROM dashboard_two_factor WHERE user_id = ${id}`
  }, orUnavailable),
  useTotpStep: Effect.fnUntraced(function*(id, step) {
    const rows = yield* sql`UPDATE dashboard_two_factor SET last_step = ${step}
      WHERE user_id = ${id} AND (last_step IS NULL OR last_step < ${step}) RETURNING 1`
    return rows.length > 0
  }, orUnavailable),
  useRecoveryCode: Effect.fnUntraced(function*(id, digest) {
    const rows = yield* sql`UPDATE dashboard_two_factor SET recovery_codes = array_remove(recovery_codes, ${digest})
      WHERE user_id = ${id} AND ${digest} = ANY (recovery_codes) RETURNING 1`
    return rows.length > 0
  }, orUnavailable),
  insertUser: Effect.fnUntraced(function*(user) {
    yield* sql`INSERT INTO dashboard_users ${sql.insert(dashboardUserToRow(user))}`
  }, orUnavailable),
  updateUser: Effect.fnUntraced(function*(user) {
    const { created_at: _, user_id, ...changes } = dashboardUserToRow(user)
    yield* sql`UPDATE dashboard_users SET ${sql.update(changes)} WHERE user_id = ${user_id}`
  }, orUnavailable),
  // Another user's password on the e-mail, committed or at the same instant: the unique index refuses the second.
  setPassword: (user) =>
    Effect.gen(function*() {
      const { created_at: _, user_id, ...changes } = dashboardUserToRow(user)
      const rows = yield* sql`UPDATE dashboard_users SET ${sql.update(changes)} WHERE user_id = ${user_id}
        AND NOT EXISTS (SELECT 1 FROM dashboard_users AS other WHERE lower(other.email) = lower(${user.email})
          AND other.password_hash IS NOT NULL AND other.user_id <> ${user_id})
        RETURNING 1`
      return rows.length > 0
    }).pipe(
      Effect.catchIf((error) => uniqueViolation(error) === "dashboard_users_email", () => Effect.succeed(false)),
      orUnavailable
    ),
  replacePassword: Effect.fnUntraced(function*(id, expected, next, at) {
    const rows = yield* sql`UPDATE dashboard_users SET password_hash = ${next}, updated_at = ${toTimestamp(at)}
      WHERE user_id = ${id} AND password_hash = ${expected} RETURNING 1`
    return rows.length > 0
  }, orUnavailable),
  // Taken by another user: the unique indexes refuse it, committed or at the same instant.
  replaceEmail: (id, expected, next, at) =>
    Effect.gen(function*() {
      const rows = yield* sql`UPDATE dashboard_users SET email = ${next}, updated_at = ${toTimestamp(at)}
        WHERE user_id = ${id} AND email = ${expected} RETURNING 1`
      return rows.length > 0
    }).pipe(
      Effect.catchIf((error) => uniqueViolation(error)?.startsWith("dashboard_users_") === true, () => Effect.succeed(false)),
      orUnavailable
    ),
  setRole: Effect.fnUntraced(function*(id, role, at) {
    yield* sql`UPDATE dashboard_users SET role = ${role}, updated_at = ${toTimestamp(at)} WHERE user_id = ${id}`
  }, orUnavailable),
  deleteUser: Effect.fnUntraced(function*(id) {
    yield* sql`DELETE FROM dashboard_users WHERE user_id = ${id}`
  }, orUnavailable),
  getUser: Effect.fnUntraced(function*(id) {
    return first(yield* sql<DashboardUserRow>`SELECT * FROM dashboard_users WHERE user_id = ${id}`, dashboardUserFromRow)
  }, orUnavailable),
  findUserByEmail: Effect.fnUntraced(function*(email) {
    return first(yield* sql<DashboardUserRow>`SELECT * FROM dashboard_users
      WHERE lower(email) = lower(${email}) AND password_hash IS NOT NULL`, dashboardUserFromRow)
  }, orUnavailable),
  listUsers: Effect.fnUntraced(function*(accountId) {
    const rows = yield* sql<DashboardUserRow>`SELECT * FROM dashboard_users WHERE account_id = ${accountId}
      ORDER BY created_at, user_id`
    return rows.map(dashboardUserFromRow)
  }, orUnavailable),
  insertLink: Effect.fnUntraced(function*(link) {
    yield* sql`INSERT INTO dashboard_sign_in_links ${sql.insert(signInLinkToRow(link))}`
  }, orUnavailable),
  findLink: Effect.fnUntraced(function*(tokenHash) {
    const rows = yield* sql<SignInLinkRow>`SELECT * FROM dashboard_sign_in_links WHERE token_hash = ${tokenHash}`
    return first(rows, signInLinkFromRow)
  }, orUnavailable),
  takeLink: Effect.fnUntraced(function*(tokenHash, now) {
    const at = DateTime.toDate(now)
    const rows = yield* sql<SignInLinkRow>`UPDATE dashboard_sign_in_links SET used_at = ${at}
      WHERE token_hash = ${tokenHash} AND used_at IS NULL AND expires_at > ${at}
      RETURNING *`
    return first(rows, signInLinkFromRow)
  }, orUnavailable),
  insertSession: Effect.fnUntraced(function*(session) {
    yield* sql`INSERT INTO dashboard_sessions ${sql.insert(dashboardSessionToRow(session))}`
  }, orUnavailable),
  findSession: Effect.fnUntraced(function*(tokenHash) {
    const rows = yield* sql<DashboardSessionRow>`SELECT * FROM dashboard_sessions WHERE token_hash = ${tokenHash}`
    return first(rows, dashboardSessionFromRow)
  }, orUnavailable),
  deleteUnusedLinks: Effect.fnUntraced(function*(id) {
    yield* sql`DELETE FROM dashboard_sign_in_links WHERE user_id = ${id} AND used_at IS NULL`
  }, orUnavailable),
  touchSession: Effect.fnUntraced(function*(tokenHash, at) {
    yield* sql`UPDATE dashboard_sessions SET last_seen_at = ${toTimestamp(at)} WHERE token_hash = ${tokenHash}`
  }, orUnavailable),
  deleteSession: Effect.fnUntraced(function*(tokenHash) {
    yield* sql`DELETE FROM dashboard_sessions WHERE token_hash = ${tokenHash}`
  }, orUnavailable),
  listSessions: Effect.fnUntraced(function*(id) {
    const rows = yield* sql<DashboardSessionRow>`SELECT * FROM dashboard_sessions WHERE user_id = ${id}
      ORDER BY created_at DESC, token_hash COLLATE "C" DESC`
    return rows.map(dashboardSessionFromRow)
  }, orUnavailable),
  deleteSessionsOf: Effect.fnUntraced(function*(id) {
    yield* sql`DELETE FROM dashboard_sessions WHERE user_id = ${id}`
  }, orUnavailable),
  insertAudit: Effect.fnUntraced(function*(entry) {
    yield* sql`INSERT INTO dashboard_audit ${sql.insert(auditToRow(entry))}`
  }, orUnavailable),
  listAudit: Effect.fnUntraced(function*(accountId, limit) {
    const rows = yield* sql<AuditRow>`SELECT * FROM dashboard_audit WHERE account_id = ${accountId}
      ORDER BY at DESC, audit_id DESC LIMIT ${limit}`
    return rows.map(auditFromRow)
  }, orUnavailable)
})
