/**
 * A server's share of a key's rate limit: when it must ask the store anyway (its share is spent or stale), a server
 * asks for the requests waiting plus a share of the key's remaining minute, and counts that share out locally until
 * it is spent or a lease period has passed. Every request so admitted was counted in the store before it was
 * admitted, so the limit holds across any number of servers; a share not spent in time stays counted, which may
 * refuse a little early, never admit more.
 *
 * A request is admitted up to `leaseMillis` after its count was recorded, so the store counts keys over a window
 * that much longer than the minute (`keyWindowSeconds`): then no 60 seconds of admissions, on any servers, hold more
 * than the limit (a property test over several servers and random timings checks it).
 *
 * The share follows demand (the rate this server saw during its last lease) and is at most a twentieth of what remains:
 * a key far from its limit (a load test's) is counted mostly locally; one near it, or used a request at a time, is
 * counted in the store per request, exactly as before.
 */
import { type RateDecision } from "./RateWindow.js"

export const leaseMillis = 1000
export const keyWindowSeconds = 60 + leaseMillis / 1000

export interface Lease {
  /** The store's answer to the hit that took this lease: its first `granted` requests are admitted. */
  readonly decision: RateDecision
  /** How many of them were handed out (the waiting batch first). */
  readonly handed: number
  /** Until when (ms) its remaining requests may be handed out. */
  readonly until: number
  /** Requests this server saw for the key since the lease was taken: the next share's size. */
  readonly demand: number
}

/** What the `i`-th request of a batch was told, when the batch's hit answered `batch`. */
export const decisionInBatch = (batch: RateDecision, i: number): RateDecision =>
  i < batch.granted
    ? { ...batch, allowed: true, granted: 1, remaining: batch.remaining + (batch.granted - 1 - i) }
    : { ...batch, allowed: false, granted: 0, remaining: 0, resetSeconds: Math.max(1, batch.resetSeconds) }

/** One request against the lease at `now`: its decision from the share, or `undefined` (ask the store). */
export const fromLease = (
  lease: Lease | undefined,
  now: number
): { readonly decision: RateDecision | undefined; readonly lease: Lease | undefined } => {
  if (lease === undefined) return { decision: undefined, lease }
  const seen = { ...lease, demand: lease.demand + 1 }
  if (now >= lease.until || lease.handed >= lease.decision.granted) return { decision: undefined, lease: seen }
  return { decision: decisionInBatch(lease.decision, lease.handed), lease: { ...seen, handed: lease.handed + 1 } }
}

/**
 * How many to count in the store at `now` for `waiting` requests: those and, past the first lease, a share for the
 * next lease period at the rate the last one saw (at most a twentieth of what remains).
 */
export const toAsk = (previous: Lease | undefined, waiting: number, now: number): number => {
  if (previous === undefined) return waiting
  const elapsed = Math.max(1, Math.min(leaseMillis, now - (previous.until - leaseMillis)))
  const expected = Math.ceil(previous.demand * leaseMillis / elapsed)
  return waiting + Math.min(expected, Math.floor(previous.decision.remaining / 20))
}

/** The lease the store's answer to `toAsk` gives, the `waiting` requests handed out first. */
export const leaseOf = (decision: RateDecision, waiting: number, now: number): Lease => ({
  decision,
  handed: waiting,
  until: now + leaseMillis,
  demand: 0
})
