/**
 * Resolving unknown outcomes: a charge or refund whose answer was lost is looked up by its reference,
 * never made again under a new one: once at once by the call that lost it (the customer or operator is still
 * waiting; a lookup that fails too leaves it to the lookup pass rather than holding the request), then by the
 * lookup pass, with a growing wait between asks while the processor cannot be reached (`LookupBackoff`).
 */

/** The first wait after an ask the processor did not answer, and the longest. */
const firstWaitMillis = 5_000
const longestWaitMillis = 5 * 60_000

/**
 * When this server may next ask about each reference the processor left unanswered: 5 s after the first miss, then
 * twice as long after each, up to 5 minutes. Only this server's asks count (another server keeps its own).
 */
export class LookupBackoff {
  private readonly waits = new Map<string, { readonly at: number; readonly wait: number }>()

  /** Whether `reference` may be asked about at `now`. */
  due(reference: string, now: number): boolean {
    const next = this.waits.get(reference)
    return next === undefined || next.at <= now
  }

  /** The processor did not answer about `reference` at `now`. */
  missed(reference: string, now: number): void {
    const previous = this.waits.get(reference)
    const wait = previous === undefined ? firstWaitMillis : Math.min(previous.wait * 2, longestWaitMillis)
    this.waits.set(reference, { at: now + wait, wait })
  }

  /** The processor answered (or the reference is settled): forget it. */
  answered(reference: string): void {
    this.waits.delete(reference)
  }

  /** Forgets references not asked about for long (settled elsewhere): the map stays small. */
  prune(now: number): void {
    for (const [reference, next] of this.waits) if (now - next.at > 2 * longestWaitMillis) this.waits.delete(reference)
  }
}
