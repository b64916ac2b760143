/**
 * A rolling-window rate limit made of one-second slots.
 *
 * A request is counted against every slot of the last `window + 1` seconds (the current, partial one included), so
 * whatever 60-second span of real time one looks at, the requests accepted in it never exceed the limit: that span
 * touches at most 61 whole-second slots, and the last request accepted in it saw all of them. The cost is a
 * slightly stricter limit near slot edges. The state is small and fixed-size, so the SQL store keeps it in one row.
 */

export interface RateWindowState {
  /** The second (Unix) each slot counts; slot `i` holds second `s` when `s % slots === i`. */
  readonly seconds: ReadonlyArray<number>
  readonly counts: ReadonlyArray<number>
}

export interface RateDecision {
  /** Whether every request counted was accepted (for one request: whether it was). */
  readonly allowed: boolean
  /** How many of the requests counted were accepted: the first `granted` of them, in order. */
  readonly granted: number
  readonly limit: number
  /** Requests still accepted now, after these. */
  readonly remaining: number
  /** Whole seconds until the oldest counted request leaves the window (at least 1 when limited). */
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
  const seconds = state?.seconds.length === slots ? [...state.seconds] : new Array<number>(slots).fill(0)
  const counts = state?.counts.length === slots ? [...state.counts] : new Array<number>(slots).fill(0)
  // Servers sharing a state reach it out of order: a request timed just before another that was counted first must
  // still see it, so the window's time never runs back (within a window; an older clock jump is ignored as before).
  let nowSecond = Math.floor(nowMillis / 1000)
  const clock = nowSecond
  for (let i = 0; i < slots; i++) {
    const s = seconds[i]!
    if (counts[i]! > 0 && s > nowSecond && s <= clock + windowSeconds) nowSecond = s
  }
  const oldest = nowSecond - windowSeconds
  let used = 0
  let earliest = Number.POSITIVE_INFINITY
  for (let i = 0; i < slots; i++) {
    const s = seconds[i]!
    if (s >= oldest && s <= nowSecond && counts[i]! > 0) {
      used += counts[i]!
      if (s < earliest) earliest = s
    }
  }
  const granted = Math.min(count, Math.max(0, limit - used))
  const allowed = granted === count
  if (granted > 0) {
    const i = nowSecond % slots
    counts[i] = seconds[i] === nowSecond ? counts[i]! + granted : granted
    seconds[i] = nowSecond
    if (nowSecond < earliest) earliest = nowSecond
  }
  const frees = earliest === Number.POSITIVE_INFINITY ? nowMillis : (earliest + windowSeconds + 1) * 1000
  const resetSeconds = Math.max(allowed ? 0 : 1, Math.ceil((frees - nowMillis) / 1000))
  return {
    allowed,
    granted,
    limit,
    remaining: Math.max(0, limit - used - granted),
    resetSeconds,
    state: { seconds, counts }
  }
}
