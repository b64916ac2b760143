/**
 * The dashboard's users, with their sign-in links, sessions and audit log.
 *
 * One repository of the Store port (`../Store.ts`), a Tag of its own, so that a use case depends on the aggregates it
 * uses and nothing else.
 */
import type { DateTime, Option } from "effect"
import { Context } from "effect"
import type { AuditEntry, DashboardSession, DashboardUser, Role, SignInLink, UserId } from "../../domain/DashboardUser.js"
import type { AccountId } from "../../domain/Ids.js"
import type { TwoFactor } from "../../domain/TwoFactor.js"
import type { Op } from "./Op.js"

export interface DashboardRepo {
  /**
   * A user without a password is a pending invitation of its account. Refused (a defect) when the account already
   * has a user with the e-mail; insert and update are refused when the user has a password and another user with a
   * password has the e-mail: a person signs in as one user, of one account.
   */
  readonly insertUser: (user: DashboardUser) => Op<void>
  readonly updateUser: (user: DashboardUser) => Op<void>
  /**
   * Saves a user who sets a password (`user` with it), unless another user with a password has the e-mail: false
   * then, and nothing changed. Two of them at once: one is saved.
   */
  readonly setPassword: (user: DashboardUser) => Op<boolean>
  /**
   * Replaces the user's password hash, guarded by the one read (`expected`): false, and nothing changed, when it is
   * no longer that (changed meanwhile). Only the hash and `updated_at` are written.
   */
  readonly replacePassword: (id: UserId, expected: string, next: string, at: DateTime.Utc) => Op<boolean>
  /**
   * Replaces the user's e-mail, guarded by the one read (`expected`): false, and nothing changed, when it is no
   * longer that, or when `next` is taken (by a user of the same account, or by another user with a password while
   * this one has one). Only the e-mail and `updated_at` are written.
   */
  readonly replaceEmail: (id: UserId, expected: string, next: string, at: DateTime.Utc) => Op<boolean>
  /** Writes the user's role (and `updated_at`) only. */
  readonly setRole: (id: UserId, role: Role, at: DateTime.Utc) => Op<void>
  readonly deleteUser: (id: UserId) => Op<void>
  readonly getUser: (id: UserId) => Op<Option.Option<DashboardUser>>
  /** The user with this e-mail who has set a password (compared case-insensitively): the one who signs in with it. */
  readonly findUserByEmail: (email: string) => Op<Option.Option<DashboardUser>>
  /** An account's users, oldest first. */
  readonly listUsers: (accountId: AccountId) => Op<ReadonlyArray<DashboardUser>>
  readonly insertLink: (link: SignInLink) => Op<void>
  readonly findLink: (tokenHash: string) => Op<Option.Option<SignInLink>>
  /** Deletes the user's sign-in links not used yet (a new password or e-mail withdraws them). */
  readonly deleteUnusedLinks: (id: UserId) => Op<void>
  /**
   * Takes a sign-in link at `now`, atomically: marks it used and returns it when it is unused and unexpired; `None`
   * otherwise (a link works once, whoever is first).
   */
  readonly takeLink: (tokenHash: string, now: DateTime.Utc) => Op<Option.Option<SignInLink>>
  readonly insertSession: (session: DashboardSession) => Op<void>
  readonly findSession: (tokenHash: string) => Op<Option.Option<DashboardSession>>
  readonly touchSession: (tokenHash: string, at: DateTime.Utc) => Op<void>
  readonly deleteSession: (tokenHash: string) => Op<void>
  /** A user's sessions, newest first (expired ones too, until they are next found and deleted). */
  readonly listSessions: (id: UserId) => Op<ReadonlyArray<DashboardSession>>
  /** Signs a user out everywhere. */
  readonly deleteSessionsOf: (id: UserId) => Op<void>
  /** A user's two-factor sign-in (its secret opened), if they began enrolling. */
  readonly getTwoFactor: (id: UserId) => Op<Option.Option<TwoFactor>>
  /** Writes a user's two-factor sign-in whole (an enrolment begun or confirmed); its secret rests sealed. */
  readonly putTwoFactor: (twoFactor: TwoFactor) => Op<void>
  readonly deleteTwoFactor: (id: UserId) => Op<void>
  /**
   * Records that a code of `step` was accepted, atomically: false, and nothing changed, when one of that step or a
   * later one already was (a code is used once, whoever is first).
   */
  readonly useTotpStep: (id: UserId, step: number) => Op<boolean>
  /** Takes a recovery code by its digest, atomically: false when it is not (or no longer) one of the user's. */
  readonly useRecoveryCode: (id: UserId, digest: string) => Op<boolean>
  readonly insertAudit: (entry: AuditEntry) => Op<void>
  /** An account's audit log, newest first, at most `limit`. */
  readonly listAudit: (accountId: AccountId, limit: number) => Op<ReadonlyArray<AuditEntry>>
}

/** The dashboard's users, with their sign-in links, sessions and audit log. */
export type UserRepositoryShape = DashboardRepo

export class UserRepository extends Context.Tag("fils/UserRepository")<UserRepository, UserRepositoryShape>() {}
