/**
 * A server's share of a key's rate limit: when it must ask the store anyway (its share is spent or stale), a server
 * asks for the requests waiting plus a share for the next lease period, and counts that share out locally until it
 * is spent or the period has passed. Every request so admitted was counted in the store before it was admitted, so
 * the limit holds across any number of servers.
 *
 * The store counts a share for a lease period longer than the minute, since its requests are admitted up to that
 * much later (`RateWindow.hit`); so no 60 seconds of admissions, on any servers, hold more than the limit. What a
 * share did not hand out is given back with the server's next hit for the key, or when its period ends: a share not
 * used is not lost for the minute.
 *
 * The share follows demand (the rate this server saw during its last lease); the store grants it only far from the
 * limit (`RateWindow.shareRoom`): a key far from its limit (a load test's) is counted mostly locally; one near it,
 * or used a request at a time, is counted in the store per batch of requests, exactly.
 *
 * A lease holding a share is renewed ahead of its end (`dueForRenewal`), while it still hands requests out: a busy
 * key's requests never wait for the store's answer (at a thousand a second, the store's slowest answers had every
 * request of their time wait for them, once a second).
 */
import type { RateDecision, ShareRequest } from "./RateWindow.js"

export const leaseMillis = 1000

export interface Lease {
  /** The store's answer to the hit that took this lease. */
  readonly decision: RateDecision
  /**
   * What remains of the key's minute once this lease has handed out all it holds: the store's answer's, or a later
   * hit's (the give-back of the lease this one renewed, counted after it).
   */
  readonly remaining: number
  /** How many were counted for this server: the requests that were waiting, then the share. */
  readonly total: number
  /** How many of them were handed out (the waiting batch first). */
  readonly handed: number
  /** Until when (ms) its remaining requests may be handed out. */
  readonly until: number
  /** Requests this server saw for the key since the lease was taken: the next share's size. */
  readonly demand: number
}

/**
 * What the `i`-th request counted by the hit that answered `batch` (the waiting ones, then the share) was told, with
 * `remaining` left once all of them are handed out.
 */
export const decisionInBatch = (batch: RateDecision, i: number, remaining = batch.remaining): RateDecision => {
  const total = batch.granted + batch.shared
  return i < total
    ? { ...batch, allowed: true, granted: 1, shared: 0, remaining: remaining + (total - 1 - i) }
    : { ...batch, allowed: false, granted: 0, shared: 0, remaining: 0, resetSeconds: Math.max(1, batch.resetSeconds) }
}

/** Requests of the lease not handed out. */
export const unused = (lease: Lease): number => lease.total - lease.handed

/** One request against the lease at `now`: its decision from the share, or `undefined` (ask the store). */
export const fromLease = (
  lease: Lease | undefined,
  now: number
): { readonly decision: RateDecision | undefined; readonly lease: Lease | undefined } => {
  if (lease === undefined) return { decision: undefined, lease }
  const seen = { ...lease, demand: lease.demand + 1 }
  if (now >= lease.until || unused(lease) <= 0) return { decision: undefined, lease: seen }
  return {
    decision: decisionInBatch(lease.decision, lease.handed, lease.remaining),
    lease: { ...seen, handed: lease.handed + 1 }
  }
}

/** The lease with nothing left to hand out (what it held was given back), keeping its demand for the next share. */
export const spent = (lease: Lease): Lease => ({ ...lease, total: lease.handed })

/**
 * The share to ask for at `now`, past the first lease: the rate the last one saw over a lease period; and what that
 * one did not hand out, to give back with the same hit (the caller then keeps it `spent`).
 */
export const toAsk = (previous: Lease | undefined, now: number): ShareRequest => {
  if (previous === undefined) return { share: 0, millis: leaseMillis }
  const elapsed = Math.max(1, Math.min(leaseMillis, now - (previous.until - leaseMillis)))
  const left = unused(previous)
  return {
    share: Math.ceil(previous.demand * leaseMillis / elapsed),
    millis: leaseMillis,
    giveBack: left > 0 ? { countedAt: previous.decision.countedAt, count: left } : undefined
  }
}

/** How long before its end a lease holding a share is renewed. */
export const renewAheadMillis = 250

/**
 * Whether `lease`, which just handed a request out at `now`, is to be renewed: it holds a share (a busy key far from
 * its limit), and its end or the last quarter of what it holds is near.
 */
export const dueForRenewal = (lease: Lease, now: number): boolean =>
  lease.decision.shared > 0 && (now >= lease.until - renewAheadMillis || unused(lease) * 4 <= lease.total)

/**
 * The renewal's ask: one request and a share at the rate `lease` saw, all of it the new lease's to hand out. What
 * `lease` still holds is given back once the new lease replaces it (until then it keeps handing out).
 */
export const toRenew = (lease: Lease, now: number): ShareRequest => ({ share: toAsk(lease, now).share, millis: leaseMillis })

/** The lease with what the store said remains of the key's minute after a later hit of this server's own. */
export const remainingAfter = (lease: Lease, later: RateDecision): Lease => ({ ...lease, remaining: later.remaining })

/**
 * The lease the store's answer gives, the first `waiting` requests handed out at once. A renewal's lease tells its
 * requests what remains once the lease it replaces has given back the `returning` requests it did not hand out,
 * which it does at once: a request served between the two answers is told what will remain, not that less for each
 * request still out (the give-back's answer, or its failure, then sets `remaining` from the store's figure).
 */
export const leaseOf = (decision: RateDecision, waiting: number, now: number, returning = 0): Lease => ({
  decision,
  remaining: decision.remaining + returning,
  total: decision.granted + decision.shared,
  handed: Math.min(waiting, decision.granted),
  until: now + leaseMillis,
  demand: 0
})
