/**
 * Idempotency records: a keyed request's claim and its stored answer.
 *
 * One repository of the Store port (`../Store.ts`), a Tag of its own, so that a use case depends on the aggregates it
 * uses and nothing else.
 */
import type { DateTime } from "effect"
import { Context, type Option } from "effect"
import type { Claim, IdempotencyRecord, StoredResponse } from "../../domain/Idempotency.js"
import type { Op } from "./Op.js"

/** What `IdempotencyRepo.complete` takes, as one value. */
export interface IdempotencyCompletion {
  readonly scope: string
  readonly key: string
  readonly fingerprint: string
  readonly response: StoredResponse
}

/** What `IdempotencyRepo.answerAll` takes for one request: its response and the lease its claim took. */
export interface IdempotencyAnswer {
  readonly completion: IdempotencyCompletion
  readonly lockedUntil: DateTime.Utc
}

export interface IdempotencyRepo {
  /**
   * Atomically takes the key for a new request (see `Idempotency.canClaim`), recording its fingerprint with no
   * response; otherwise returns the record that holds the key.
   */
  readonly claim: (record: IdempotencyRecord, now: DateTime.Utc) => Op<Claim>
  /**
   * `claim` for many records at once, each answered as if claimed one after another in the given order (a key
   * given twice: the second meets the first's record).
   */
  readonly claimAll: (records: ReadonlyArray<IdempotencyRecord>, now: DateTime.Utc) => Op<ReadonlyArray<Claim>>
  /** The record that holds the key, if one does (claiming nothing). */
  readonly find: (scope: string, key: string) => Op<Option.Option<IdempotencyRecord>>
  /** Stores the finished request's response on the record it claimed. */
  readonly complete: (scope: string, key: string, fingerprint: string, response: StoredResponse) => Op<void>
  /** `complete` for many records at once (one statement), each as `complete` would. */
  readonly completeAll: (completions: ReadonlyArray<IdempotencyCompletion>) => Op<void>
  /**
   * Stores successful requests' responses, inside the transaction of their work (`transact`), each on the record it
   * still holds: same fingerprint, no response yet and its own lease (`lockedUntil`, as claimed). One statement for
   * all; for each, false when a retry took the key over after the lease ran out: its work must not be written, and
   * the retry's answer stands.
   */
  readonly answerAll: (answers: ReadonlyArray<IdempotencyAnswer>) => Op<ReadonlyArray<boolean>>
  /** Gives the key up (a response not worth replaying); a retry runs afresh. */
  readonly release: (scope: string, key: string, fingerprint: string) => Op<void>
}

/** Idempotency records: a keyed request's claim and its stored answer. */
export type IdempotencyRepositoryShape = IdempotencyRepo

export class IdempotencyRepository extends Context.Tag("fils/IdempotencyRepository")<IdempotencyRepository, IdempotencyRepositoryShape>() {}
