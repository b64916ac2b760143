/**
 * RateLease over RateWindow, purely: several servers, each with its own lease, counting one key's requests in one
 * shared window state the way RateLimits does (a request takes from its server's share, else its server hits the
 * store for it and a share; a share not handed out is given back by the next hit or when its period ends).
 */
import { assert, describe, it } from "@effect/vitest"
import { FastCheck } from "effect"
import * as RateLease from "../../src/domain/RateLease.js"
import * as RateWindow from "../../src/domain/RateWindow.js"

interface Step {
  readonly server: number
  readonly gap: number
  readonly burst: number
}

const stepArb = (maxGap: number) =>
  FastCheck.record({
    server: FastCheck.nat(2),
    gap: FastCheck.oneof(
      FastCheck.constantFrom(0, 0, 0, 1, 250, 999, 1_000, 1_001),
      FastCheck.integer({ min: 0, max: maxGap }),
      ...(maxGap > 1_500 ? [FastCheck.constantFrom(58_999, 59_001, 59_999, 60_000, 61_000)] : [])
    ),
    burst: FastCheck.integer({ min: 1, max: 40 })
  })

/** One shared store state and three servers' leases; every admission's time, and every refusal's decision. */
const simulate = (limit: number, steps: ReadonlyArray<Step>, start = 1_700_000_000_000) => {
  let state: RateWindow.RateWindowState | undefined
  const leases: Array<RateLease.Lease | undefined> = [undefined, undefined, undefined]
  const admitted: Array<number> = []
  const refused: Array<{ readonly at: number; readonly decision: RateWindow.RateDecision; readonly before: RateWindow.RateWindowState | undefined }> = []
  const store = (now: number, count: number, ask: RateWindow.ShareRequest) => {
    const before = state
    const decision = RateWindow.hit(state, now, limit, 60, count, ask)
    state = decision.state
    return { decision, before }
  }
  /** What a server's timer does at the end of its lease period: gives back what it did not hand out. */
  const expire = (now: number) => {
    leases.forEach((lease, s) => {
      if (lease === undefined || now < lease.until || RateLease.unused(lease) === 0) return
      store(now, 0, { share: 0, millis: RateLease.leaseMillis, giveBack: { countedAt: lease.decision.countedAt, count: RateLease.unused(lease) } })
      leases[s] = RateLease.spent(lease)
    })
  }
  let now = start
  for (const { burst, gap, server } of steps) {
    now += gap
    expire(now)
    for (let r = 0; r < burst; r++) {
      const taken = RateLease.fromLease(leases[server], now)
      leases[server] = taken.lease
      if (taken.decision !== undefined) {
        assert.isTrue(taken.decision.allowed)
        admitted.push(now)
        continue
      }
      const ask = RateLease.toAsk(leases[server], now)
      const { before, decision } = store(now, 1, ask)
      leases[server] = RateLease.leaseOf(decision, 1, now)
      const mine = RateLease.decisionInBatch(decision, 0)
      if (mine.allowed) admitted.push(now)
      else refused.push({ at: now, decision, before })
    }
  }
  return { admitted, refused, end: now, expire, single: (at: number) => store(at, 1, { share: 0, millis: RateLease.leaseMillis }).decision }
}

describe("RateLease over RateWindow, several servers on one state", () => {
  it.prop(
    "no 60 seconds of admissions hold more than the limit; a refusal's wait is 1 to 60 s, and enough",
    [FastCheck.integer({ min: 1, max: 300 }), FastCheck.array(stepArb(30_000), { minLength: 1, maxLength: 60 })],
    ([limit, steps]) => {
      const { admitted, refused } = simulate(limit, steps)
      for (const start of admitted) {
        assert.isAtMost(admitted.filter((t) => t >= start && t < start + 60_000).length, limit, `span from ${start}`)
      }
      for (const { at, before, decision } of refused) {
        assert.isTrue(Number.isInteger(decision.resetSeconds))
        assert.isAtLeast(decision.resetSeconds, 1)
        assert.isAtMost(decision.resetSeconds, 60, "Retry-After stays within the minute")
        const later = RateWindow.hit(before, at + decision.resetSeconds * 1000, limit, 60, 1, { share: 0, millis: RateLease.leaseMillis })
        assert.isTrue(later.allowed, "a request sent Retry-After later is accepted")
      }
    },
    {
      fastCheck: {
        numRuns: 300,
        // What a share's longer count is for: a share taken at 0 and handed out at 0.999 s, then another server's
        // whole budget at 60 s, when the minute of the hit that took the share has passed.
        examples: [[200, [
          { server: 0, gap: 0, burst: 12 },
          { server: 0, gap: 999, burst: 9 },
          ...Array.from({ length: 6 }, (_, i) => ({ server: 1, gap: i === 0 ? 59_001 : 0, burst: 40 }))
        ]]]
      }
    }
  )

  it.prop(
    "a share not handed out is given back: within one minute, the key gets exactly its limit",
    [FastCheck.integer({ min: 1, max: 300 }), FastCheck.array(stepArb(1_400), { minLength: 1, maxLength: 40 })],
    ([limit, steps]) => {
      const sim = simulate(limit, steps)
      // Past every lease period (the steps span under a minute), the servers' timers have given back what they
      // did not hand out; requests one at a time are then admitted up to the limit, not fewer.
      const at = sim.end + RateLease.leaseMillis
      sim.expire(at)
      let more = 0
      while (sim.single(at).allowed) more++
      assert.strictEqual(sim.admitted.length + more, limit, `${sim.admitted.length} admitted, then ${more}`)
    },
    { fastCheck: { numRuns: 300 } }
  )

  it("a share is taken only far from the limit, and a twentieth of what remains at most", () => {
    const first = RateWindow.hit(undefined, 1_000_000, 240, 60, 10, { share: 1_000, millis: RateLease.leaseMillis })
    assert.deepStrictEqual([first.granted, first.shared, first.remaining], [10, 11, 219])
    let state = first.state
    let shared = first.shared
    for (let i = 0; i < 20; i++) {
      const d = RateWindow.hit(state, 1_000_100 + i, 240, 60, 5, { share: 1_000, millis: RateLease.leaseMillis })
      state = d.state
      shared += d.shared
      assert.isAtMost(240 - d.remaining, 120 + 5 * (i + 1), "shares stop at half the limit")
    }
    assert.isAtMost(shared, 120)
    const none = RateWindow.hit(undefined, 1_000_000, 240, 60, 1)
    assert.strictEqual(none.shared, 0)
  })
})
