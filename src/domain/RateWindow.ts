/**
 * A rolling-window rate limit made of one-second slots, each remembering when its latest request came.
 *
 * A slot's requests count until a full window has passed since its latest one, so whatever 60-second span of real
 * time one looks at, the requests accepted in it never exceed the limit (the last request accepted in it saw every
 * slot holding one of them). Counting a slot until its latest request leaves is at most one second stricter than a
 * log of every request, and it makes the wait exact and never longer than the window: a refused request is told
 * `resetSeconds` (1 to the window: 60 s, 61 for a key, see `RateLease`), and one sent that much later is accepted.
 * The state is small and fixed-size, so the SQL store keeps it in one row.
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
}

export interface RateDecision {
  /** Whether every request counted was accepted (for one request: whether it was). */
  readonly allowed: boolean
  /** How many of the requests counted were accepted: the first `granted` of them, in order. */
  readonly granted: number
  readonly limit: number
  /** Requests still accepted now, after these. */
  readonly remaining: number
  /** Whole seconds until the oldest counted slot leaves the window: 1 to the window when refused, when a request will be accepted again. */
  readonly resetSeconds: number
  readonly state: RateWindowState
}

export const slotCount = (windowSeconds: number) => windowSeconds + 1

/**
 * Counts `count` requests arriving together (one server's requests of one instant, decided at once) as far as the
 * window allows: the first `granted` are accepted, the rest refused, exactly as `count` single hits in a row.
 */
export const hit = (
  state: RateWindowState | undefined,
  nowMillis: number,
  limit: number,
  windowSeconds = 60,
  count = 1
): RateDecision => {
  const slots = slotCount(windowSeconds)
  const windowMillis = windowSeconds * 1000
  const sized = state?.seconds.length === slots && state.counts.length === slots
  const seconds = sized ? [...state.seconds] : new Array<number>(slots).fill(0)
  const counts = sized ? [...state.counts] : new Array<number>(slots).fill(0)
  // A slot's latest request lies within its second; where that is not known, its second's last millisecond.
  const lasts = seconds.map((s, i) => {
    const offset = sized ? state.offsets?.[i] : undefined
    return s * 1000 + (offset !== undefined && Number.isInteger(offset) && offset >= 0 && offset <= 999 ? offset : 999)
  })
  // Servers sharing a state reach it out of order: a request timed just before another that was counted first must
  // still see it, so the window's time never runs back (within a window; an older clock jump is ignored as before).
  let now = nowMillis
  for (let i = 0; i < slots; i++) {
    if (counts[i]! > 0 && lasts[i]! > now && lasts[i]! <= nowMillis + windowMillis) now = lasts[i]!
  }
  let used = 0
  let earliest = Number.POSITIVE_INFINITY
  for (let i = 0; i < slots; i++) {
    if (counts[i]! > 0 && lasts[i]! > now - windowMillis && lasts[i]! <= now) {
      used += counts[i]!
      if (lasts[i]! < earliest) earliest = lasts[i]!
    }
  }
  const granted = Math.min(count, Math.max(0, limit - used))
  const allowed = granted === count
  if (granted > 0) {
    const second = Math.floor(now / 1000)
    const i = second % slots
    const same = seconds[i] === second && counts[i]! > 0
    counts[i] = same ? counts[i]! + granted : granted
    lasts[i] = same ? Math.max(lasts[i]!, now) : now
    seconds[i] = second
    if (now < earliest) earliest = now
  }
  const frees = earliest === Number.POSITIVE_INFINITY ? nowMillis : earliest + windowMillis
  const resetSeconds = Math.min(windowSeconds, Math.max(allowed ? 0 : 1, Math.ceil((frees - nowMillis) / 1000)))
  return {
    allowed,
    granted,
    limit,
    remaining: Math.max(0, limit - used - granted),
    resetSeconds,
    state: { seconds, counts, offsets: lasts.map((last) => ((last % 1000) + 1000) % 1000) }
  }
}
