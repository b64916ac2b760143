import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect, Either, Exit, FastCheck, Fiber, Layer, Option, TestClock } from "effect"
import { RateLimits } from "../../src/application/RateLimits.js"
import { StoreUnavailable } from "../../src/domain/Errors.js"
import * as RateLease from "../../src/domain/RateLease.js"
import { RateLimitRepository } from "../../src/ports/repositories/RateLimitRepository.js"
import { withEngine } from "./harness.js"

/** Time for the hits under way to run to their end (the memory store takes some hundreds of steps a hit). */
const settle = Effect.repeatN(Effect.yieldNow(), 2000)

const failure = <A, E extends { readonly _tag: string }>(e: Either.Either<A, E>) =>
  Either.isLeft(e) ? e.left : undefined

/**
 * A RateLimits of its own over this engine's store, each of its hits run after `gate` (which may hold it, or fail
 * it); the store itself, to read its counts directly.
 */
const limitsBehind = (gate: (args: Parameters<RateLimitRepository["Type"]["hit"]>) => Effect.Effect<void, StoreUnavailable>) =>
  Effect.gen(function*() {
    const store = yield* RateLimitRepository
    const gated = RateLimitRepository.of({ hit: (...args) => Effect.zipRight(gate(args), store.hit(...args)) })
    const limits = yield* Effect.provide(RateLimits, Layer.fresh(RateLimits.Default)).pipe(
      Effect.provideService(RateLimitRepository, gated)
    )
    return { store, limits }
  })

describe("RateLimits per key", () => {
  it.effect("reads FILS_RATE_LIMIT_PER_MIN; exactly that many per minute, then again after the window", () =>
    Effect.gen(function*() {
      const limits = yield* RateLimits
      assert.strictEqual(limits.perKey, 5)
      const decisions = []
      for (let i = 0; i < 5; i++) {
        decisions.push(yield* limits.consumeKey("key_a"))
        yield* TestClock.adjust("2 seconds")
      }
      assert.deepStrictEqual(decisions.map((d) => d.allowed), [true, true, true, true, true])
      assert.deepStrictEqual(decisions.map((d) => d.remaining), [4, 3, 2, 1, 0])
      assert.isTrue(decisions.every((d) => d.limit === 5))

      const refused = yield* limits.consumeKey("key_a")
      assert.isFalse(refused.allowed)
      assert.strictEqual(refused.remaining, 0)
      assert.isAtLeast(refused.resetSeconds, 1)
      const error = limits.limited(refused, "requests")
      assert.strictEqual(error._tag, "RateLimited")
      assert.strictEqual(error.code, "RATE_LIMITED")
      assert.strictEqual(error.retryAfterSeconds, refused.resetSeconds)

      // Another key has its own budget.
      assert.isTrue((yield* limits.consumeKey("key_b")).allowed)

      // Just before Retry-After: still refused. At Retry-After: allowed.
      yield* TestClock.adjust(`${refused.resetSeconds - 1} seconds`)
      assert.isFalse((yield* limits.consumeKey("key_a")).allowed)
      yield* TestClock.adjust("1 second")
      assert.isTrue((yield* limits.consumeKey("key_a")).allowed)
    }).pipe(withEngine([["FILS_RATE_LIMIT_PER_MIN", "5"]])))

  it.effect("a full burst frees entirely once the window has passed", () =>
    Effect.gen(function*() {
      const limits = yield* RateLimits
      for (let i = 0; i < 3; i++) assert.isTrue((yield* limits.consumeKey("k")).allowed)
      assert.isFalse((yield* limits.consumeKey("k")).allowed)
      yield* TestClock.adjust("30 seconds")
      assert.isFalse((yield* limits.consumeKey("k")).allowed)
      yield* TestClock.adjust("31 seconds")
      const after = [] as Array<boolean>
      for (let i = 0; i < 4; i++) after.push((yield* limits.consumeKey("k")).allowed)
      assert.deepStrictEqual(after, [true, true, true, false])
    }).pipe(withEngine([["FILS_RATE_LIMIT_PER_MIN", "3"]])))

  it.effect("defaults to 240 per minute", () =>
    Effect.gen(function*() {
      const limits = yield* RateLimits
      assert.strictEqual(limits.perKey, 240)
      let allowed = 0
      for (let i = 0; i < 250; i++) if ((yield* limits.consumeKey("k")).allowed) allowed++
      assert.strictEqual(allowed, 240)
    }).pipe(withEngine()))

  it.effect("refuses a limit that is not a positive integer", () =>
    Effect.gen(function*() {
      for (const value of ["0", "-1", "abc", "2.5"]) {
        const exit = yield* Effect.exit(RateLimits.pipe(withEngine([["FILS_RATE_LIMIT_PER_MIN", value]])))
        assert.isTrue(Exit.isFailure(exit), value)
      }
      const ok = yield* Effect.exit(RateLimits.pipe(withEngine([["FILS_RATE_LIMIT_PER_MIN", "7"]])))
      assert.isTrue(Exit.isSuccess(ok) && ok.value.perKey === 7)
    }))

  it.effect.prop(
    "whatever the pacing, no 60-second span holds more than the limit, and under the limit a request passes",
    [
      FastCheck.integer({ min: 1, max: 6 }),
      FastCheck.array(FastCheck.oneof(FastCheck.constant(0), FastCheck.integer({ min: 1, max: 30_000 })), {
        minLength: 1,
        maxLength: 60
      })
    ],
    ([limit, gaps]) =>
      Effect.gen(function*() {
        const limits = yield* RateLimits
        let now = 0
        const accepted: Array<number> = []
        for (const gap of gaps) {
          yield* TestClock.adjust(gap)
          now += gap
          const decision = yield* limits.consumeKey("key_p")
          const recent = accepted.filter((t) => t > now - 60_000).length
          // A slot's whole second counts as long as its latest request (no share at such limits: RateWindow.shareRoom):
          // under the limit over the last 61 seconds, a request passes.
          const window61 = accepted.filter((t) => t > now - 61_000).length
          if (window61 < limit) assert.isTrue(decision.allowed)
          if (recent >= limit) assert.isFalse(decision.allowed)
          if (decision.allowed) accepted.push(now)
          else assert.isAtLeast(decision.resetSeconds, 1)
        }
        for (const start of accepted) {
          assert.isAtMost(accepted.filter((t) => t >= start && t < start + 60_000).length, limit)
        }
      }).pipe(withEngine([["FILS_RATE_LIMIT_PER_MIN", String(limit)]])),
    { fastCheck: { numRuns: 30 } }
  )
})

describe("RateLimits per key, over several servers sharing a store", () => {
  it.effect.prop(
    "bursts on any servers at random times: no 60 seconds of admissions hold more than the limit; a quiet key is admitted",
    [
      FastCheck.integer({ min: 20, max: 400 }),
      FastCheck.integer({ min: 2, max: 4 }),
      FastCheck.array(
        FastCheck.record({
          server: FastCheck.nat(3),
          // Gaps near the lease period and the minute, where a share used late meets a window that moved on.
          gap: FastCheck.oneof(
            FastCheck.constantFrom(0, 1, 250, 999, 1_000, 58_999, 59_001, 59_750, 60_000, 61_000),
            FastCheck.integer({ min: 1, max: 40_000 })
          ),
          burst: FastCheck.integer({ min: 1, max: 60 })
        }),
        { minLength: 1, maxLength: 80 }
      )
    ],
    ([limit, serverCount, steps]) =>
      Effect.gen(function*() {
        // Each server its own RateLimits (its own leases and queues), all on the one store of this engine.
        const servers = yield* Effect.forEach(
          Array.from({ length: serverCount }),
          () => Effect.provide(RateLimits, Layer.fresh(RateLimits.Default))
        )
        let now = 0
        const admitted: Array<number> = []
        for (const { burst, gap, server } of steps) {
          yield* TestClock.adjust(gap)
          now += gap
          const quiet = admitted.every((t) => t <= now - 61_000)
          const limits = servers[server % serverCount]!
          const decisions = yield* Effect.all(Array.from({ length: burst }, () => limits.consumeKey("key_shared")), { concurrency: "unbounded" })
          const passed = decisions.filter((d) => d.allowed).length
          for (let i = 0; i < passed; i++) admitted.push(now)
          if (quiet) assert.isAtLeast(passed, 1, `nothing admitted for 61 s, then none of ${burst} at ${now}`)
          for (const d of decisions) assert.isTrue(d.remaining >= 0 && d.remaining <= limit && d.limit === limit)
          for (const d of decisions) if (!d.allowed) assert.isTrue(d.resetSeconds >= 1 && d.resetSeconds <= 60, `Retry-After ${d.resetSeconds}`)
        }
        for (const start of admitted) {
          assert.isAtMost(admitted.filter((t) => t >= start && t < start + 60_000).length, limit)
        }
      }).pipe(withEngine([["FILS_RATE_LIMIT_PER_MIN", String(limit)]])),
    {
      // Each run is an engine and up to 80 bursts: more than the default 30 s on a busy machine.
      timeout: 120_000,
      fastCheck: {
        numRuns: 100,
        // The case the longer window is for: a share taken at 0 and spent at 0.999 s, then another server's whole
        // budget at 60 s (when a 60-second window would have forgotten the share).
        examples: [[400, 2, [
          { server: 0, gap: 0, burst: 30 },
          { server: 0, gap: 0, burst: 30 },
          { server: 0, gap: 999, burst: 18 },
          { server: 1, gap: 59_001, burst: 60 },
          { server: 1, gap: 0, burst: 60 },
          { server: 1, gap: 0, burst: 60 },
          { server: 1, gap: 0, burst: 60 },
          { server: 1, gap: 0, burst: 60 },
          { server: 1, gap: 0, burst: 60 },
          { server: 1, gap: 0, burst: 60 }
        ]]]
      }
    }
  )
})

describe("RateLimits per key, a share not handed out", () => {
  it.effect("is given back when its lease period ends: the key still gets its whole minute on another server", () =>
    Effect.gen(function*() {
      const [a, b] = yield* Effect.forEach([0, 1], () => Effect.provide(RateLimits, Layer.fresh(RateLimits.Default)))
      const burst = (limits: typeof a, n: number) =>
        Effect.all(Array.from({ length: n }, () => limits.consumeKey("key_given_back")), { concurrency: "unbounded" })
      // The second burst is busy enough for `a` to take a share with its hit, of which it hands out none.
      assert.strictEqual((yield* burst(a, 12)).filter((d) => d.allowed).length, 12)
      assert.strictEqual((yield* burst(a, 12)).filter((d) => d.allowed).length, 12)
      const seen = yield* b.consumeKey("key_given_back")
      assert.isBelow(seen.remaining, 240 - 25, "`a` holds a share beyond the 25 requests")
      yield* TestClock.adjust(RateLease.leaseMillis)
      const rest = yield* burst(b, 300)
      assert.strictEqual(rest.filter((d) => d.allowed).length, 240 - 25)
      assert.isTrue(rest.every((d) => d.allowed || (d.resetSeconds >= 1 && d.resetSeconds <= 60)))
    }).pipe(withEngine()))

  it.effect("is given back before the key's next hit is counted: a key used a request at a time is told exactly what remains", () =>
    Effect.gen(function*() {
      // Give-backs (hits of no request) wait at a gate while it is shut; the other hits pass.
      let shut = false
      const { limits } = yield* limitsBehind((args) => Effect.repeat(Effect.yieldNow(), { while: () => shut && args[4] === 0 }))
      // Two requests of one instant: the second's hit takes a share, which hands out nothing.
      assert.strictEqual((yield* limits.consumeKey("key_one_by_one")).remaining, 239)
      assert.strictEqual((yield* limits.consumeKey("key_one_by_one")).remaining, 238)
      // The lease ends: its give-back is at the store, slow, when the next request comes.
      shut = true
      yield* TestClock.adjust(RateLease.leaseMillis)
      const next = yield* Effect.fork(limits.consumeKey("key_one_by_one"))
      for (let i = 0; i < 20; i++) yield* Effect.yieldNow()
      shut = false
      assert.strictEqual((yield* Fiber.join(next)).remaining, 237)
    }).pipe(withEngine()))

  it.effect("is given back at its end while a renewal is out, when that renewal fails", () =>
    Effect.gen(function*() {
      // Renewals (hits of one request, none other is sent meanwhile) wait at a gate, then fail, while told to.
      let renewals: "pass" | "hold" | "fail" = "pass"
      const { limits, store } = yield* limitsBehind((args) =>
        args[4] !== 1 || renewals === "pass"
          ? Effect.void
          : Effect.zipRight(
            Effect.repeat(Effect.yieldNow(), { while: () => renewals === "hold" }),
            Effect.fail(new StoreUnavailable({ message: "the database is down" }))
          )
      )
      let admitted = 0
      // A request every 100 ms: the key's leases take shares.
      for (let i = 0; i < 9; i++) {
        if ((yield* limits.consumeKey("key_renewal_fails")).allowed) admitted++
        yield* TestClock.adjust(100)
        yield* settle
      }
      // This one's lease is due for renewal, which the store holds; the lease ends meanwhile; then the renewal fails.
      renewals = "hold"
      if ((yield* limits.consumeKey("key_renewal_fails")).allowed) admitted++
      yield* settle
      yield* TestClock.adjust(RateLease.leaseMillis)
      yield* settle
      renewals = "fail"
      yield* settle
      renewals = "pass"
      const now = yield* Clock.currentTimeMillis
      const left = yield* store.hit("key:key_renewal_fails", now, 240, 60, 0, { share: 0, millis: RateLease.leaseMillis })
      assert.strictEqual(left.remaining, 240 - admitted, "what the lease did not hand out is given back")
    }).pipe(withEngine()))
})

describe("RateLimits per key, a busy key's lease", () => {
  it.effect("is renewed ahead of its end: past it, requests are handed out without waiting for the store", () =>
    Effect.gen(function*() {
      // The store behind a gate: while it is shut, a hit waits (and is counted as asked).
      let shut = false
      let asked = 0
      const { limits } = yield* limitsBehind(() =>
        Effect.zipRight(Effect.sync(() => void asked++), Effect.repeat(Effect.yieldNow(), { while: () => shut }))
      )
      const burst = (n: number) =>
        Effect.all(Array.from({ length: n }, () => limits.consumeKey("key_busy")), { concurrency: "unbounded" })
      // Two bursts: the second's hit takes a share beyond its requests (as in the give-back test above).
      assert.isTrue((yield* burst(12)).every((d) => d.allowed))
      assert.isTrue((yield* burst(12)).every((d) => d.allowed))

      // Near the lease's end a request is handed out at once, and the renewal is asked meanwhile.
      yield* TestClock.adjust(RateLease.leaseMillis - RateLease.renewAheadMillis)
      shut = true
      const before = asked
      assert.isTrue((yield* limits.consumeKey("key_busy")).allowed)
      for (let i = 0; i < 5; i++) yield* Effect.yieldNow()
      assert.strictEqual(asked, before + 1, "the renewal is asked")
      shut = false
      for (let i = 0; i < 20; i++) yield* Effect.yieldNow()

      // Past the old lease's end, the store shut again: the renewed lease hands requests out on its own.
      yield* TestClock.adjust(RateLease.renewAheadMillis + 50)
      shut = true
      const served = yield* Effect.fork(limits.consumeKey("key_busy"))
      for (let i = 0; i < 20; i++) yield* Effect.yieldNow()
      const answered = yield* Fiber.poll(served)
      shut = false
      assert.isTrue(Option.isSome(answered), "answered without the store")
      assert.isTrue((yield* Fiber.join(served)).allowed)
    }).pipe(withEngine()))

  it.effect("tells each request exactly what remains across its renewals, for a key used ten times a second", () =>
    Effect.gen(function*() {
      const { limits } = yield* limitsBehind(() => Effect.void)
      const told: Array<number> = []
      for (let i = 0; i < 40; i++) {
        told.push((yield* limits.consumeKey("key_ten_a_second")).remaining)
        yield* TestClock.adjust(100)
        yield* settle
      }
      assert.deepStrictEqual(told, Array.from({ length: 40 }, (_, i) => 240 - 1 - i))
    }).pipe(withEngine()))
})

describe("RateLimits per key, a renewed lease", () => {
  it.effect("tells a request served while the replaced lease's give-back is out what will remain", () =>
    Effect.gen(function*() {
      // Give-backs (a hit of no request that returns a share) wait while `hold` is set; renewals go through.
      let hold = false
      let waiting = 0
      const { limits } = yield* limitsBehind(([, , , , count, share]) =>
        count === 0 && share?.giveBack !== undefined
          ? Effect.acquireUseRelease(
            Effect.sync(() => void waiting++),
            () => Effect.repeat(Effect.yieldNow(), { while: () => hold }),
            () => Effect.sync(() => void waiting--)
          )
          : Effect.void
      )
      const told: Array<number> = []
      let servedMeanwhile = 0
      for (let i = 0; i < 20; i++) {
        hold = true
        told.push((yield* limits.consumeKey("key_give_back_out")).remaining)
        yield* settle
        // Any renewal that request started is in place; what the lease it replaced held may be on its way back.
        if (waiting > 0) servedMeanwhile++
        told.push((yield* limits.consumeKey("key_give_back_out")).remaining)
        hold = false
        yield* settle
        yield* TestClock.adjust(100)
      }
      assert.isAbove(servedMeanwhile, 0, "a request was served while a give-back was out")
      assert.deepStrictEqual(told, Array.from({ length: 40 }, (_, i) => 240 - 1 - i))
    }).pipe(withEngine()))
})

describe("RateLimits per key, concurrent requests", () => {
  it.effect("of 40 requests at once with a limit of 5, exactly 5 pass, told 4, 3, 2, 1 and 0 remaining", () =>
    Effect.gen(function*() {
      const limits = yield* RateLimits
      const decisions = yield* Effect.all(
        Array.from({ length: 40 }, () => limits.consumeKey("key_burst")),
        { concurrency: "unbounded" }
      )
      const passed = decisions.filter((d) => d.allowed)
      assert.strictEqual(passed.length, 5)
      assert.deepStrictEqual(passed.map((d) => d.remaining).sort(), [0, 1, 2, 3, 4])
      const refused = decisions.filter((d) => !d.allowed)
      assert.isTrue(refused.every((d) => d.remaining === 0 && d.resetSeconds >= 1))
      // Batches are counted in full: the next minute has the whole budget again, not less.
      yield* TestClock.adjust("62 seconds")
      const next = yield* Effect.all(Array.from({ length: 7 }, () => limits.consumeKey("key_burst")), { concurrency: 7 })
      assert.strictEqual(next.filter((d) => d.allowed).length, 5)
    }).pipe(withEngine([["FILS_RATE_LIMIT_PER_MIN", "5"]])))
})

describe("RateLimits for failed authentications", () => {
  it.effect("blocks an address once its budget is spent, until Retry-After", () =>
    Effect.gen(function*() {
      const limits = yield* RateLimits
      const address = "203.0.113.7"
      yield* limits.checkAddress(address)
      for (let i = 0; i < 3; i++) {
        assert.isUndefined(yield* limits.recordAuthFailure(address), `failure ${i + 1} is within the budget`)
        yield* limits.checkAddress(address)
      }
      const refusal = yield* limits.recordAuthFailure(address)
      assert.isDefined(refusal)
      assert.strictEqual(refusal!._tag, "RateLimited")
      assert.isAtLeast(refusal!.retryAfterSeconds, 1)

      const blocked = failure(yield* Effect.either(limits.checkAddress(address)))
      assert.strictEqual(blocked?._tag, "RateLimited")
      assert.isAtLeast(blocked!.retryAfterSeconds, 1)
      assert.isAtMost(blocked!.retryAfterSeconds, refusal!.retryAfterSeconds)

      // Other addresses are not affected.
      yield* limits.checkAddress("198.51.100.1")
      assert.isUndefined(yield* limits.recordAuthFailure("198.51.100.1"))

      // Still blocked a second before Retry-After, free at it.
      yield* TestClock.adjust(`${refusal!.retryAfterSeconds - 1} seconds`)
      const stillBlocked = failure(yield* Effect.either(limits.checkAddress(address)))
      assert.strictEqual(stillBlocked?._tag, "RateLimited")
      assert.strictEqual(stillBlocked?.retryAfterSeconds, 1)
      yield* TestClock.adjust("1 second")
      yield* limits.checkAddress(address)
      assert.isUndefined(yield* limits.recordAuthFailure(address))
    }).pipe(withEngine([["FILS_AUTH_FAILURES_PER_MIN", "3"]])))

  it.effect("defaults to 30 failures per minute", () =>
    Effect.gen(function*() {
      const limits = yield* RateLimits
      const outcomes: Array<boolean> = []
      for (let i = 0; i < 31; i++) outcomes.push((yield* limits.recordAuthFailure("a")) === undefined)
      assert.strictEqual(outcomes.filter((x) => x).length, 30)
      assert.isFalse(outcomes[30])
      assert.strictEqual(failure(yield* Effect.either(limits.checkAddress("a")))?._tag, "RateLimited")
    }).pipe(withEngine()))

  it.effect("key requests and auth failures are separate budgets", () =>
    Effect.gen(function*() {
      const limits = yield* RateLimits
      assert.isUndefined(yield* limits.recordAuthFailure("x"))
      assert.isDefined(yield* limits.recordAuthFailure("x"))
      assert.isTrue((yield* limits.consumeKey("x")).allowed)
    }).pipe(withEngine([["FILS_AUTH_FAILURES_PER_MIN", "1"], ["FILS_RATE_LIMIT_PER_MIN", "1"]])))
})
