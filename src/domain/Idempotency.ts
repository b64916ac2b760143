/**
 * Idempotency records (docs/decisions.md §8): per account, mode and key, a fingerprint of the request and, once it has
 * finished, its response. A record whose request is still running holds a lease so that a crashed request does
 * not block its key for 24 hours. A successful request's response is written in the transaction of its work, so an
 * object exists if and only if its key's answer does (see `commitsWork`).
 */
import { DateTime, Duration } from "effect"
import { IdempotencyKeyInUse, IdempotencyKeyReused, InvalidRequest } from "./Errors.js"

export const maxKeyLength = 255
export const retention = Duration.hours(24)
/**
 * How long a running request holds its key before a retry with the same parameters may take over. A request is
 * answered within about 10 s (each statement is cut at 8 s), so a live one never loses its key to its own retry;
 * after a crash or a failover killed the first attempt, its retry runs within 15 s. Should a slow first attempt
 * still be running when taken over, its answer no longer matches the key's lease: it rolls back and is refused.
 */
export const lease = Duration.seconds(15)

export interface StoredResponse {
  readonly status: number
  readonly body: string
}

export interface IdempotencyRecord {
  readonly scope: string
  readonly key: string
  readonly fingerprint: string
  readonly response: StoredResponse | null
  readonly lockedUntil: DateTime.Utc
  readonly expiresAt: DateTime.Utc
}

export type Claim =
  | { readonly _tag: "Claimed" }
  | { readonly _tag: "Existing"; readonly record: IdempotencyRecord }

/**
 * Whether a new request may take the key: no record, an expired one, or an abandoned one (lease run out, no
 * response) for the same request. Stores apply this atomically.
 */
export const canClaim = (
  existing: IdempotencyRecord | undefined,
  fingerprint: string,
  now: DateTime.Utc
): boolean =>
  existing === undefined ||
  DateTime.lessThanOrEqualTo(existing.expiresAt, now) ||
  (existing.response === null && existing.fingerprint === fingerprint &&
    DateTime.lessThanOrEqualTo(existing.lockedUntil, now))

export type Outcome =
  | { readonly _tag: "Replay"; readonly response: StoredResponse }
  | { readonly _tag: "Refuse"; readonly error: IdempotencyKeyReused | IdempotencyKeyInUse }

/** The key is held by a request still running (or by a retry that took it over from this one). */
export const inUse = () =>
  new IdempotencyKeyInUse({ message: "A request with this Idempotency-Key is still being processed; retry later" })

/** What a request meets when the key is already taken. */
export const decide = (existing: IdempotencyRecord, fingerprint: string): Outcome =>
  existing.fingerprint !== fingerprint
    ? {
      _tag: "Refuse",
      error: new IdempotencyKeyReused({
        message: "This Idempotency-Key was already used with different parameters; use a new key for a new request"
      })
    }
    : existing.response === null
    ? { _tag: "Refuse", error: inUse() }
    : { _tag: "Replay", response: existing.response }

/**
 * Responses whose work commits, with the response in the same transaction: successes, a redirect answering a form
 * included. Any other outcome writes nothing of its work, so a refused request leaves nothing behind that a replay of
 * its refusal would hide.
 */
export const commitsWork = (status: number): boolean => status >= 200 && status < 400

/** Responses worth replaying: not server errors, not authentication or rate-limit refusals. */
export const isStorable = (status: number): boolean => status < 500 && status !== 401 && status !== 429

export const validateKey = (key: string): InvalidRequest | undefined =>
  key.length === 0 || key.length > maxKeyLength
    ? new InvalidRequest({ message: `Idempotency-Key must be 1 to ${maxKeyLength} characters` })
    : undefined
