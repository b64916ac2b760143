/**
 * Dashboard users in memory: users, their sign-in links, sessions, second factors and the audit log, with the rules of
 * PostgreSQL's tables (migrations 0012, 0017 and 0035): an e-mail is unique within an account, and among users who
 * sign in with a password.
 */
import { DateTime, Option } from "effect"
import type { AuditEntry, DashboardSession, DashboardUser, SignInLink } from "../../src/domain/DashboardUser.js"
import type { TwoFactor } from "../../src/domain/TwoFactor.js"
import type { DashboardRepo } from "../../src/ports/repositories/UserRepository.js"
import { type Access, oldestFirst, Table, type Undo } from "./Table.js"

export const makeUsersMemory = (recordUndo: (undo: Undo) => void, { read, write }: Access): DashboardRepo => {
  const users = new Table<DashboardUser>(recordUndo)
  const signInLinks = new Table<SignInLink>(recordUndo)
  const dashboardSessions = new Table<DashboardSession>(recordUndo)
  const twoFactors = new Table<TwoFactor>(recordUndo)
  const audit = new Table<AuditEntry>(recordUndo)
  /** The user with a password who has `email`: the one who signs in with it (pending invitations have none). */
  const userByEmail = (email: string) => {
    for (const u of users.rows.values()) if (u.password_hash !== null && u.email.toLowerCase() === email.toLowerCase()) return u
    return undefined
  }
  /** The rules of PostgreSQL's unique indexes on the e-mail (migration 0017). */
  const checkUserEmail = (user: DashboardUser) => {
    const email = user.email.toLowerCase()
    for (const u of users.rows.values()) {
      if (u.user_id === user.user_id || u.email.toLowerCase() !== email) continue
      if (u.account_id === user.account_id) throw new Error(`the account already has a user with e-mail ${user.email}`)
      if (u.password_hash !== null && user.password_hash !== null) throw new Error(`a dashboard user with e-mail ${user.email} exists`)
    }
  }
  return {
    insertUser: (user) =>
      write(() => {
        checkUserEmail(user)
        users.set(user.user_id, user)
      }),
    updateUser: (user) =>
      write(() => {
        checkUserEmail(user)
        users.set(user.user_id, user)
      }),
    setPassword: (user) =>
      write(() => {
        const holder = userByEmail(user.email)
        if (holder !== undefined && holder.user_id !== user.user_id) return false
        users.set(user.user_id, user)
        return true
      }),
    replacePassword: (id, expected, next, at) =>
      write(() => {
        const user = users.get(id)
        if (user === undefined || user.password_hash !== expected) return false
        users.set(id, { ...user, password_hash: next, updated_at: at })
        return true
      }),
    replaceEmail: (id, expected, next, at) =>
      write(() => {
        const user = users.get(id)
        if (user === undefined || user.email !== expected) return false
        const changed = { ...user, email: next, updated_at: at }
        try {
          checkUserEmail(changed)
        } catch {
          return false
        }
        users.set(id, changed)
        return true
      }),
    setRole: (id, role, at) =>
      write(() => {
        const user = users.get(id)
        if (user !== undefined) users.set(id, { ...user, role, updated_at: at })
      }),
    deleteUser: (id) =>
      write(() => {
        users.delete(id)
        twoFactors.delete(id)
        for (const [hash, s] of dashboardSessions.rows) if (s.user_id === id) dashboardSessions.delete(hash)
      }),
    getUser: (id) => read(() => Option.fromNullable(users.get(id))),
    findUserByEmail: (email) => read(() => Option.fromNullable(userByEmail(email))),
    listUsers: (accountId) =>
      read(() =>
        oldestFirst(users.rows.values(), (u) => u.account_id === accountId, (u) => u.created_at, (u) => u.user_id)
      ),
    insertLink: (link) => write(() => signInLinks.set(link.token_hash, link)),
    findLink: (tokenHash) => read(() => Option.fromNullable(signInLinks.get(tokenHash))),
    deleteUnusedLinks: (id) =>
      write(() => {
        for (const [hash, l] of signInLinks.rows) if (l.user_id === id && l.used_at === null) signInLinks.delete(hash)
      }),
    takeLink: (tokenHash, now) =>
      write(() => {
        const link = signInLinks.get(tokenHash)
        if (link === undefined || link.used_at !== null || DateTime.lessThanOrEqualTo(link.expires_at, now)) {
          return Option.none()
        }
        const taken = { ...link, used_at: now }
        signInLinks.set(tokenHash, taken)
        return Option.some(taken)
      }),
    insertSession: (session) => write(() => dashboardSessions.set(session.token_hash, session)),
    findSession: (tokenHash) => read(() => Option.fromNullable(dashboardSessions.get(tokenHash))),
    touchSession: (tokenHash, at) =>
      write(() => {
        const s = dashboardSessions.get(tokenHash)
        if (s !== undefined) dashboardSessions.set(tokenHash, { ...s, last_seen_at: at })
      }),
    deleteSession: (tokenHash) => write(() => dashboardSessions.delete(tokenHash)),
    getTwoFactor: (id) => read(() => Option.fromNullable(twoFactors.get(id))),
    putTwoFactor: (twoFactor) => write(() => twoFactors.set(twoFactor.user_id, twoFactor)),
    deleteTwoFactor: (id) => write(() => twoFactors.delete(id)),
    useTotpStep: (id, step) =>
      write(() => {
        const found = twoFactors.get(id)
        if (found === undefined || (found.last_step !== null && found.last_step >= step)) return false
        twoFactors.set(id, { ...found, last_step: step })
        return true
      }),
    useRecoveryCode: (id, digest) =>
      write(() => {
        const found = twoFactors.get(id)
        if (found === undefined || !found.recovery_codes.includes(digest)) return false
        twoFactors.set(id, { ...found, recovery_codes: found.recovery_codes.filter((c) => c !== digest) })
        return true
      }),
    listSessions: (id) =>
      read(() =>
        oldestFirst(dashboardSessions.rows.values(), (s) => s.user_id === id, (s) => s.created_at, (s) => s.token_hash).reverse()
      ),
    deleteSessionsOf: (id) =>
      write(() => {
        for (const [hash, s] of dashboardSessions.rows) if (s.user_id === id) dashboardSessions.delete(hash)
      }),
    insertAudit: (entry) => write(() => audit.set(entry.audit_id, entry)),
    listAudit: (accountId, limit) =>
      read(() =>
        oldestFirst(audit.rows.values(), (e) => e.account_id === accountId, (e) => e.at, (e) => e.audit_id)
          .reverse()
          .slice(0, limit)
      )
  }
}
