import { assert, describe, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { RateLimited } from "../../src/domain/Errors.js"
import * as RateWindow from "../../src/domain/RateWindow.js"

interface Step {
  readonly at: number
  readonly decision: RateWindow.RateDecision
  /** The state the decision was taken on. */
  readonly before: RateWindow.RateWindowState | undefined
}

/** Feeds the requests to `hit` the way a store does: the state is kept only when the request is allowed. */
const simulate = (times: ReadonlyArray<number>, limit: number, windowSeconds = 60): Array<Step> => {
  let state: RateWindow.RateWindowState | undefined
  const steps: Array<Step> = []
  for (const at of times) {
    const decision = RateWindow.hit(state, at, limit, windowSeconds)
    steps.push({ at, decision, before: state })
    if (decision.allowed) state = decision.state
  }
  return steps
}

/** Increasing request times (ties allowed), with gaps from 0 ms to a few minutes. */
const timesArb = (maxLength: number) =>
  FastCheck.tuple(
    FastCheck.integer({ min: 0, max: 2_000_000_000_000 }),
    FastCheck.array(
      FastCheck.oneof(
        { weight: 4, arbitrary: FastCheck.integer({ min: 0, max: 1500 }) },
        { weight: 2, arbitrary: FastCheck.integer({ min: 0, max: 20_000 }) },
        { weight: 1, arbitrary: FastCheck.integer({ min: 55_000, max: 130_000 }) },
        { weight: 1, arbitrary: FastCheck.constantFrom(0, 1, 999, 1000, 1001) }
      ),
      { minLength: 1, maxLength }
    )
  ).map(([start, gaps]) => {
    const out: Array<number> = []
    let t = start
    for (const gap of gaps) {
      t += gap
      out.push(t)
    }
    return out
  })
const limitArb = FastCheck.integer({ min: 1, max: 12 })

const acceptedTimes = (steps: ReadonlyArray<Step>) => steps.filter((s) => s.decision.allowed).map((s) => s.at)

describe("RateWindow.hit with a count", () => {
  it.prop(
    "a batch of n decides as n single hits in a row at that instant: the same state, granted and remaining",
    [
      FastCheck.array(FastCheck.record({ dt: FastCheck.integer({ min: 0, max: 3_000 }), n: FastCheck.integer({ min: 1, max: 9 }) }), { minLength: 1, maxLength: 30 }),
      FastCheck.integer({ min: 1, max: 12 })
    ],
    ([steps, limit]) => {
      let batched: RateWindow.RateWindowState | undefined
      let single: RateWindow.RateWindowState | undefined
      let now = 1_700_000_000_000
      for (const { dt, n } of steps) {
        now += dt
        const batch = RateWindow.hit(batched, now, limit, 60, n)
        if (batch.granted > 0) batched = batch.state
        const one = Array.from({ length: n }, () => {
          const d = RateWindow.hit(single, now, limit, 60)
          if (d.allowed) single = d.state
          return d
        })
        assert.strictEqual(batch.granted, one.filter((d) => d.allowed).length)
        assert.isTrue(one.every((d, i) => d.allowed === i < batch.granted), "the first ones are the accepted ones")
        assert.strictEqual(batch.allowed, batch.granted === n)
        assert.strictEqual(batch.remaining, one[n - 1]!.remaining)
        assert.strictEqual(batch.resetSeconds, one[n - 1]!.resetSeconds)
        assert.deepStrictEqual(batched, single)
      }
    }
  )
})

describe("RateWindow.hit", () => {
  it("allows exactly the limit in one second, then refuses until the window has passed", () => {
    const steps = simulate([0, 0, 0, 0], 3)
    assert.deepStrictEqual(steps.map((s) => s.decision.allowed), [true, true, true, false])
    assert.deepStrictEqual(steps.map((s) => s.decision.remaining), [2, 1, 0, 0])
    assert.deepStrictEqual(steps.map((s) => s.decision.limit), [3, 3, 3, 3])
    const refused = steps[3]!.decision
    assert.strictEqual(refused.resetSeconds, 60)
    const state = steps[2]!.decision.state
    assert.isFalse(RateWindow.hit(state, 59_999, 3).allowed)
    const again = RateWindow.hit(state, 60_000, 3)
    assert.isTrue(again.allowed)
    assert.strictEqual(again.remaining, 2)
  })

  it("a fresh window allows with remaining limit - 1", () => {
    const d = RateWindow.hit(undefined, 1_700_000_000_123, 240)
    assert.isTrue(d.allowed)
    assert.strictEqual(d.remaining, 239)
    assert.strictEqual(d.limit, 240)
    assert.strictEqual(d.state.seconds.length, RateWindow.slotCount(60))
    assert.strictEqual(RateWindow.slotCount(60), 61)
  })

  it("a refused request does not change the state", () => {
    const steps = simulate([5000, 5100, 5200], 2)
    assert.isFalse(steps[2]!.decision.allowed)
    assert.deepStrictEqual(steps[2]!.decision.state, steps[1]!.decision.state)
  })

  it("a state of the wrong size is treated as empty", () => {
    const d = RateWindow.hit({ seconds: [1, 2], counts: [100, 100] }, 2000, 1)
    assert.isTrue(d.allowed)
  })

  it.prop("in ANY 60-second span, accepted requests never exceed the limit (brute-force oracle)", [
    timesArb(200),
    limitArb
  ], ([times, limit]) => {
    const accepted = acceptedTimes(simulate(times, limit))
    // The densest 60-second span [a, a + 60 s) starts at an accepted request.
    for (let i = 0; i < accepted.length; i++) {
      let inSpan = 0
      for (let j = i; j < accepted.length && accepted[j]! < accepted[i]! + 60_000; j++) inSpan++
      assert.isAtMost(inSpan, limit, `span starting at ${accepted[i]}`)
    }
  }, { fastCheck: { numRuns: 200 } })

  it.prop("the same holds for any window length", [
    timesArb(120),
    limitArb,
    FastCheck.integer({ min: 1, max: 90 })
  ], ([times, limit, windowSeconds]) => {
    const accepted = acceptedTimes(simulate(times, limit, windowSeconds))
    for (let i = 0; i < accepted.length; i++) {
      let inSpan = 0
      for (let j = i; j < accepted.length && accepted[j]! < accepted[i]! + windowSeconds * 1000; j++) inSpan++
      assert.isAtMost(inSpan, limit)
    }
  }, { fastCheck: { numRuns: 100 } })

  it.prop("matches a brute-force model; remaining is never negative and counts down exactly", [timesArb(150), limitArb], ([times, limit]) => {
    const steps = simulate(times, limit)
    steps.forEach(({ at, decision }, k) => {
      assert.isAtLeast(decision.remaining, 0)
      assert.isAtMost(decision.remaining, limit - 1)
      assert.strictEqual(decision.limit, limit)
      if (!decision.allowed) assert.strictEqual(decision.remaining, 0)
      // Oracle: the requests accepted before this one in a second whose latest accepted request is under 60 s old.
      const accepted = steps.slice(0, k).filter((s) => s.decision.allowed)
      const latestOfSecond = new Map<number, number>()
      for (const s of accepted) latestOfSecond.set(Math.floor(s.at / 1000), Math.max(latestOfSecond.get(Math.floor(s.at / 1000)) ?? 0, s.at))
      const used = accepted.filter((s) => latestOfSecond.get(Math.floor(s.at / 1000))! > at - 60_000).length
      assert.strictEqual(decision.allowed, used < limit, `at ${at}: used ${used} of ${limit}`)
      if (decision.allowed) assert.strictEqual(decision.remaining, limit - used - 1)
    })
  }, { fastCheck: { numRuns: 150 } })

  it.prop("a request is allowed whenever fewer than `limit` were accepted in the 61 s before it", [
    timesArb(200),
    limitArb
  ], ([times, limit]) => {
    const steps = simulate(times, limit)
    steps.forEach((step, k) => {
      const recent = steps.slice(0, k).filter((s) => s.decision.allowed && s.at > step.at - 61_000).length
      if (recent < limit) assert.isTrue(step.decision.allowed, `at ${step.at}: ${recent} recent, limit ${limit}`)
      const lastMinute = steps.slice(0, k).filter((s) => s.decision.allowed && s.at > step.at - 60_000).length
      if (lastMinute >= limit) assert.isFalse(step.decision.allowed)
    })
  }, { fastCheck: { numRuns: 200 } })

  it.prop("when refused, resetSeconds is 1 to 60 and exact: refused one second earlier, allowed then", [
    timesArb(200),
    limitArb
  ], ([times, limit]) => {
    for (const { at, before, decision } of simulate(times, limit)) {
      if (decision.allowed) {
        assert.isAtLeast(decision.resetSeconds, 0)
        assert.isAtMost(decision.resetSeconds, 60, "RateLimit-Reset stays within the window")
        continue
      }
      assert.isAtLeast(decision.resetSeconds, 1)
      assert.isAtMost(decision.resetSeconds, 60)
      assert.isTrue(RateWindow.hit(before, at + decision.resetSeconds * 1000, limit).allowed, "allowed after Retry-After")
      assert.isFalse(
        RateWindow.hit(before, at + (decision.resetSeconds - 1) * 1000, limit).allowed,
        "Retry-After is not longer than needed"
      )
    }
  }, { fastCheck: { numRuns: 200 } })
})

describe("RateLimited.after: the one refusal of every limit", () => {
  it("says what was limited and when to try again, in whole seconds, at least one", () => {
    const refused = RateLimited.after("cards tried", 41)
    assert.deepStrictEqual([refused.code, refused.retryAfterSeconds], ["RATE_LIMITED", 41])
    assert.strictEqual(refused.message, "Too many cards tried; try again in 41 seconds")
    assert.strictEqual(RateLimited.after("requests", 0).retryAfterSeconds, 1, "never 'try again in 0 seconds'")
    assert.strictEqual(RateLimited.after("requests", 2.2).retryAfterSeconds, 3, "rounded up: never too early")
  })
})
