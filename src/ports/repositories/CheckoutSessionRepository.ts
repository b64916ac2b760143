/**
 * Checkout sessions.
 *
 * One repository of the Store port (`../Store.ts`), a Tag of its own, so that a use case depends on the aggregates it
 * uses and nothing else.
 */
import type { DateTime, Option } from "effect"
import { Context } from "effect"
import type { Scope } from "../../domain/Account.js"
import type { CheckoutSession } from "../../domain/CheckoutSession.js"
import type { CheckoutSessionId, TestClockId } from "../../domain/Ids.js"
import type { Page, PageRequest } from "../../domain/Pagination.js"
import type { Op } from "./Op.js"

export interface SessionsRepo {
  readonly insert: (session: CheckoutSession) => Op<void>
  /** Many at once (one statement): all of them, or none on failure. */
  readonly insertAll: (sessions: ReadonlyArray<CheckoutSession>) => Op<void>
  readonly get: (scope: Scope, id: CheckoutSessionId) => Op<Option.Option<CheckoutSession>>
  /** By id alone, for the hosted page (the session id is the customer's capability). Never locks. */
  readonly find: (id: CheckoutSessionId) => Op<Option.Option<CheckoutSession>>
  /**
   * `find`, locking the row until the transaction ends (inside `transact`; outside, a plain read), so that two
   * submissions of one session take turns.
   */
  readonly lock: (id: CheckoutSessionId) => Op<Option.Option<CheckoutSession>>
  readonly update: (session: CheckoutSession) => Op<void>
  /** A scope's sessions, newest first (the dashboard's list). */
  readonly list: (scope: Scope, page: PageRequest) => Op<Page<CheckoutSession>>
  /**
   * Sessions still `open` whose `expires_at` is at or before `now` and that have no `processing` payment, oldest
   * first, at most `limit`, only of mode `livemode` when given. Inside `transact` they are locked and skipped by other claimers (`SKIP LOCKED`).
   * Only the sessions of test clock `clock` when given, else only those on the real time.
   */
  readonly claimExpired: (
    now: DateTime.Utc,
    limit: number,
    livemode?: boolean,
    clock?: TestClockId
  ) => Op<ReadonlyArray<CheckoutSession>>
}

/** Checkout sessions. */
export type CheckoutSessionRepositoryShape = SessionsRepo

export class CheckoutSessionRepository extends Context.Tag("fils/CheckoutSessionRepository")<CheckoutSessionRepository, CheckoutSessionRepositoryShape>() {}
