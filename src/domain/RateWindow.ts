/**
 * A rolling-window rate limit made of one-second slots, each remembering when its latest request came.
 *
 * A slot's requests count until a full window has passed since its latest one, so whatever 60-second span of real
 * time one looks at, the requests accepted in it never exceed the limit (the last request accepted in it saw every
 * slot holding one of them). Counting a slot until its latest request leaves is at most one second stricter than a
 * log of every request, and it makes the wait exact and never longer than the window: a refused request is told
 * `resetSeconds` (1 to the window), and one sent that much later is accepted.
 *
 * A hit that counts requests may also take a share for a server to hand out over the next `millis` (see
 * `RateLease`). Those requests are admitted up to `millis` after they were counted, so they count that much longer
 * than the window, and a slot remembers how many of its requests are such shares; a share not handed out is given
 * back. A share sits in its slot beside at least one request counted at its own time, which leaves after the window:
 * a refused request's wait stays 1 to the window, and exact. Shares are taken only while the window holds less than
 * half the limit, so near the limit every request is counted here, where all servers see it, and none is refused for
 * a share another server holds. The state is small and fixed-size, so the SQL store keeps it in one row.
 */

export interface RateWindowState {
  /** The second (Unix) each slot counts; slot `i` holds second `s` when `s % slots === i`. */
  readonly seconds: ReadonlyArray<number>
  readonly counts: ReadonlyArray<number>
  /**
   * The millisecond (0 to 999) within its second of each slot's latest request; absent (a state written before),
   * the end of its second. (An offset, not a Unix time: a 13-digit number would read like a card number at rest.)
   */
  readonly offsets?: ReadonlyArray<number> | undefined
  /** How many of each slot's `counts` are shares handed out later (absent: none). */
  readonly shares?: ReadonlyArray<number> | undefined
}

export interface RateDecision {
  /** Whether every request counted was accepted (for one request: whether it was). */
  readonly allowed: boolean
  /** How many of the requests counted were accepted: the first `granted` of them, in order. */
  readonly granted: number
  /** The share taken beyond them: 0 unless one was asked for, all of `count` (at least one) were accepted and the key is far from its limit. */
  readonly shared: number
  /** When (ms) they were counted: the share's slot, to give back what is not handed out. */
  readonly countedAt: number
  readonly limit: number
  /** Requests still accepted now, after these. */
  readonly remaining: number
  /** Whole seconds until the oldest counted slot leaves the window: 1 to the window when refused, when a request will be accepted again. */
  readonly resetSeconds: number
  readonly state: RateWindowState
}

/** A share asked for with a hit (`RateLease`). */
export interface ShareRequest {
  /** How many to take at most, beyond the requests counted. */
  readonly share: number
  /** How long after the hit the server may hand them out. */
  readonly millis: number
  /** A share taken before and not all handed out: the `countedAt` of its hit and how many to give back. */
  readonly giveBack?: { readonly countedAt: number; readonly count: number } | undefined
}

/** Slots for a window whose shares may be handed out `leaseMillis` late: every second a request may still count. */
export const slotCount = (windowSeconds: number, leaseMillis = 0) => windowSeconds + 1 + Math.ceil(leaseMillis / 1000)

/** At most a twentieth of what remains, and only while the window holds less than half the limit. */
export const shareRoom = (limit: number, used: number): number =>
  Math.max(0, Math.min(Math.floor((limit - used) / 20), Math.floor(limit / 2) - used))

/**
 * Counts `count` requests arriving together (one server's requests of one instant, decided at once) as far as the
 * window allows: the first `granted` are accepted, the rest refused, exactly as `count` single hits in a row. With a
 * `lease`, first gives back what an earlier share did not hand out, then takes up to `lease.share` more.
 */
export const hit = (
  state: RateWindowState | undefined,
  nowMillis: number,
  limit: number,
  windowSeconds = 60,
  count = 1,
  lease?: ShareRequest
): RateDecision => {
  const leaseMillis = Math.max(0, lease?.millis ?? 0)
  const slots = slotCount(windowSeconds, leaseMillis)
  const windowMillis = windowSeconds * 1000
  const sized = state?.seconds.length === slots && state.counts.length === slots
  const seconds = sized ? [...state.seconds] : new Array<number>(slots).fill(0)
  const counts = sized ? [...state.counts] : new Array<number>(slots).fill(0)
  const shares = seconds.map((_, i) => {
    const n = sized && state.shares?.length === slots ? state.shares[i] : undefined
    return n !== undefined && Number.isInteger(n) && n > 0 ? Math.min(n, counts[i]!) : 0
  })
  // A slot's latest request lies within its second; where that is not known, its second's last millisecond.
  const lasts = seconds.map((s, i) => {
    const offset = sized ? state.offsets?.[i] : undefined
    return s * 1000 + (offset !== undefined && Number.isInteger(offset) && offset >= 0 && offset <= 999 ? offset : 999)
  })
  const back = lease?.giveBack
  if (back !== undefined && back.count > 0) {
    const second = Math.floor(back.countedAt / 1000)
    const i = ((second % slots) + slots) % slots
    if (seconds[i] === second) {
      const n = Math.min(back.count, shares[i]!)
      shares[i] = shares[i]! - n
      counts[i] = counts[i]! - n
    }
  }
  // Servers sharing a state reach it out of order: a request timed just before another that was counted first must
  // still see it, so the window's time never runs back (within a window; an older clock jump is ignored as before).
  let now = nowMillis
  for (let i = 0; i < slots; i++) {
    if (counts[i]! > 0 && lasts[i]! > now && lasts[i]! <= nowMillis + windowMillis) now = lasts[i]!
  }
  let used = 0
  let frees = Number.POSITIVE_INFINITY
  for (let i = 0; i < slots; i++) {
    if (counts[i]! === 0 || lasts[i]! > now) continue
    const exact = counts[i]! - shares[i]!
    if (exact > 0 && lasts[i]! > now - windowMillis) {
      used += exact
      frees = Math.min(frees, lasts[i]! + windowMillis)
    }
    if (shares[i]! > 0 && lasts[i]! > now - windowMillis - leaseMillis) {
      used += shares[i]!
      frees = Math.min(frees, lasts[i]! + windowMillis + leaseMillis)
    }
  }
  const granted = Math.min(count, Math.max(0, limit - used))
  const allowed = granted === count
  const shared = allowed && count > 0 && lease !== undefined ? Math.min(Math.max(0, lease.share), shareRoom(limit, used + granted)) : 0
  if (granted + shared > 0) {
    const second = Math.floor(now / 1000)
    const i = second % slots
    const same = seconds[i] === second && counts[i]! > 0
    counts[i] = (same ? counts[i]! : 0) + granted + shared
    shares[i] = (same ? shares[i]! : 0) + shared
    lasts[i] = same ? Math.max(lasts[i]!, now) : now
    seconds[i] = second
    frees = Math.min(frees, now + windowMillis + (shared > 0 ? leaseMillis : 0))
  }
  const wait = frees === Number.POSITIVE_INFINITY ? 0 : Math.ceil((frees - nowMillis) / 1000)
  return {
    allowed,
    granted,
    shared,
    countedAt: now,
    limit,
    remaining: Math.max(0, limit - used - granted - shared),
    resetSeconds: Math.min(windowSeconds, Math.max(allowed ? 0 : 1, wait)),
    state: { seconds, counts, offsets: lasts.map((last) => ((last % 1000) + 1000) % 1000), shares }
  }
}
