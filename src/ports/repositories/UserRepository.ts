/**
 * The dashboard's users, with their sign-in links, sessions and audit log.
 *
 * One repository of the Store port (`../Store.ts`), a Tag of its own, so that a use case depends on the aggregates it
 * uses and nothing else.
 */
import type { DateTime, Option } from "effect"
import { Context } from "effect"
import type { AuditEntry, DashboardSession, DashboardUser, SignInLink, UserId } from "../../domain/DashboardUser.js"
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
  readonly deleteUser: (id: UserId) => Op<void>
  readonly getUser: (id: UserId) => Op<Option.Option<DashboardUser>>
  /** The user with this e-mail who has set a password (compared case-insensitively): the one who signs in with it. */
  readonly findUserByEmail: (email: string) => Op<Option.Option<DashboardUser>>
  /** An account's users, oldest first. */
  readonly listUsers: (accountId: AccountId) => Op<ReadonlyArray<DashboardUser>>
  readonly insertLink: (link: SignInLink) => Op<void>
  readonly findLink: (tokenHash: string) => Op<Option.Option<SignInLink>>
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
