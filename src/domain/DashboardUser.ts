/**
 * Dashboard users: people who run an account from the browser, each with a role. What a role may do is
 * one table (`can`); every page and form of the dashboard asks it, and adds no rule of its own.
 *
 *   owner      everything: the team, live keys, refunds
 *   admin      everything but the team
 *   developer  test keys and test webhook endpoints; reads the rest (live endpoints too, never their secrets); no refunds
 *   viewer     reads only, and never sees a secret
 */
import { DateTime, Redacted, Schema } from "effect"
import { AccountId, AuditId, UserId } from "./Ids.js"

export const Role = Schema.Literal("owner", "admin", "developer", "viewer")
export type Role = typeof Role.Type
export const roles: ReadonlyArray<Role> = ["owner", "admin", "developer", "viewer"]

export { UserId } from "./Ids.js"

export const DashboardUser = Schema.Struct({
  user_id: UserId,
  account_id: AccountId,
  email: Schema.String,
  role: Role,
  /** The KDF's output with its parameters; null until the user sets a password from their sign-in link. */
  password_hash: Schema.NullOr(Schema.String),
  created_at: Schema.DateTimeUtc,
  updated_at: Schema.DateTimeUtc
})
export type DashboardUser = typeof DashboardUser.Type

/** The user with a new password (its KDF output): set from a sign-in link, or rehashed with today's parameters. */
export const withPassword = (user: DashboardUser, passwordHash: string, now: DateTime.Utc): DashboardUser => ({
  ...user,
  password_hash: passwordHash,
  updated_at: now
})

/** The user in a new role (whether the account may lose an owner is the caller's rule, `Users`). */
export const withRole = (user: DashboardUser, role: Role, now: DateTime.Utc): DashboardUser => ({
  ...user,
  role,
  updated_at: now
})

/** What a user may do in the dashboard. */
export type Action =
  | "read"
  | "write" // products, customers, checkout sessions, subscriptions
  | "refund"
  | "keys" // test API keys and test webhook endpoints, secrets included
  | "live_keys" // live API keys and live webhook endpoints
  | "settings"
  | "team"
  | "audit"
  | "export" // CSV files of a mode's payments, refunds, subscriptions and customers

const allowed: Readonly<Record<Role, ReadonlySet<Action>>> = {
  owner: new Set<Action>(["read", "write", "refund", "keys", "live_keys", "settings", "team", "audit", "export"]),
  admin: new Set<Action>(["read", "write", "refund", "keys", "live_keys", "settings", "audit", "export"]),
  developer: new Set<Action>(["read", "keys"]),
  viewer: new Set<Action>(["read"])
}

export const can = (role: Role, action: Action): boolean => allowed[role].has(action)

/**
 * Whether `role` manages a mode's API keys and webhook endpoints (creating, changing, deleting, revealing or rotating
 * a secret): live ones follow live keys (`live_keys`: owners and admins), test ones `keys`.
 */
export const canManageMode = (role: Role, livemode: boolean): boolean => can(role, livemode ? "live_keys" : "keys")

/**
 * Passwords: at least 12 characters (code points), at most 200, not blanks only. Kept as typed (never trimmed), and
 * `Redacted` from the sign-in form to the hashing: the answer names the rule, never the password.
 */
export const passwordProblem = (secret: Redacted.Redacted<string>): string | undefined => {
  const password = Redacted.value(secret)
  const length = [...password].length
  if (length < 12) return "The password must be at least 12 characters"
  if (length > 200) return "The password must be at most 200 characters"
  if (/^\s*$/u.test(password)) return "The password must not be blank: use letters, digits or symbols too"
  return undefined
}

/** A session's limits: idle 12 hours, absolute 7 days. */
export const idleTimeoutMillis = 12 * 60 * 60 * 1000
export const absoluteTimeoutMillis = 7 * 24 * 60 * 60 * 1000
/** A sign-in link is valid for 24 hours, once. */
export const signInLinkMillis = 24 * 60 * 60 * 1000

/** A signed-in browser: the hash of its cookie's secret, whose it is, and when it was made and last used. */
export const DashboardSession = Schema.Struct({
  token_hash: Schema.String,
  user_id: UserId,
  account_id: AccountId,
  /** Every form of the session carries it. */
  csrf_token: Schema.String,
  created_at: Schema.DateTimeUtc,
  last_seen_at: Schema.DateTimeUtc,
  /**
   * A sign-in whose password was right, waiting for its two-factor code (`TwoFactor.pendingMillis` at most): it
   * opens no page, only the code's form.
   */
  awaiting_code: Schema.Boolean
})
export type DashboardSession = typeof DashboardSession.Type

/** Whether a session is still good at `now`: neither idle too long nor too old. */
export const sessionAlive = (session: DashboardSession, now: DateTime.Utc): boolean => {
  const at = DateTime.toEpochMillis(now)
  return at - DateTime.toEpochMillis(session.last_seen_at) < idleTimeoutMillis &&
    at - DateTime.toEpochMillis(session.created_at) < absoluteTimeoutMillis
}

/** A one-time link where a new user sets a password and is signed in. */
export const SignInLink = Schema.Struct({
  token_hash: Schema.String,
  user_id: UserId,
  expires_at: Schema.DateTimeUtc,
  used_at: Schema.NullOr(Schema.DateTimeUtc)
})
export type SignInLink = typeof SignInLink.Type

/** One change made through the dashboard: who, what, which object, when, from where. */
export const AuditEntry = Schema.Struct({
  audit_id: AuditId,
  account_id: AccountId,
  user_id: UserId,
  email: Schema.String,
  action: Schema.String,
  object_id: Schema.NullOr(Schema.String),
  livemode: Schema.NullOr(Schema.Boolean),
  address: Schema.String,
  at: Schema.DateTimeUtc
})
export type AuditEntry = typeof AuditEntry.Type

