/**
 * RateWindow.hit with requests that reach the shared state out of order, as they do when several servers share one
 * counter (each takes its time before the database's row lock decides): a request timed a moment before another
 * one that was counted first must still see it. Found by test/e2e/many-processes.test.ts (36 of 90 accepted with a
 * limit of 30); the SQL twin is migration 0007, and the store contract keeps the two equal.
 */
import { assert, describe, it } from "@effect/vitest"
import { FastCheck } from "effect"
import * as RateWindow from "../../src/domain/RateWindow.js"

/** Feeds the requests in arrival order; the state is kept only when the request is allowed (as the stores do). */
const acceptedOf = (times: ReadonlyArray<number>, limit: number): number => {
  let state: RateWindow.RateWindowState | undefined
  let accepted = 0
  for (const at of times) {
    const decision = RateWindow.hit(state, at, limit)
    if (decision.allowed) {
      state = decision.state
      accepted++
    }
  }
  return accepted
}

describe("RateWindow.hit out of order", () => {
  it("a request timed just before one already counted still counts it", () => {
    const first = RateWindow.hit(undefined, 101_000, 1)
    assert.isTrue(first.allowed)
    assert.isFalse(RateWindow.hit(first.state, 100_999, 1).allowed)
  })

  it.prop("requests timed within one minute, in any arrival order: never more accepted than the limit", [
    FastCheck.integer({ min: 0, max: 2_000_000_000_000 }),
    FastCheck.array(FastCheck.integer({ min: 0, max: 59_999 }), { minLength: 1, maxLength: 200 }),
    FastCheck.integer({ min: 1, max: 50 })
  ], ([start, offsets, limit]) => {
    const accepted = acceptedOf(offsets.map((o) => start + o), limit)
    assert.isAtMost(accepted, limit)
    assert.strictEqual(accepted, Math.min(limit, offsets.length)) // and not stricter than it within the minute
  })

  it.prop("in order, nothing changes: the clamp never moves time for increasing requests", [
    FastCheck.integer({ min: 0, max: 2_000_000_000_000 }),
    FastCheck.array(FastCheck.integer({ min: 0, max: 5_000 }), { minLength: 1, maxLength: 100 })
  ], ([start, gaps]) => {
    let at = start
    let state: RateWindow.RateWindowState | undefined
    for (const gap of gaps) {
      at += gap
      const decision = RateWindow.hit(state, at, 10)
      if (decision.allowed) {
        state = decision.state
        // The slot written is this request's own second.
        assert.include(decision.state.seconds, Math.floor(at / 1000))
      }
    }
  })
})
