import { assert, describe, it } from "@effect/vitest"
import { DateTime, Duration, FastCheck } from "effect"
import * as Idempotency from "../../src/domain/Idempotency.js"

const now = DateTime.unsafeMake("2026-11-21T10:00:00.000Z")
const at = (offsetMillis: number) => DateTime.unsafeMake(DateTime.toEpochMillis(now) + offsetMillis)

const record = (overrides: Partial<Idempotency.IdempotencyRecord> = {}): Idempotency.IdempotencyRecord => ({
  scope: "acct_x:test",
  key: "k1",
  fingerprint: "fp-a",
  response: null,
  lockedUntil: at(30_000),
  expiresAt: at(3_600_000),
  ...overrides
})
const done = { status: 200, body: "{\"ok\":true}" }

describe("constants", () => {
  it("24 hours of memory, 255 characters, a lease", () => {
    assert.strictEqual(Duration.toMillis(Idempotency.retention), 24 * 3600 * 1000)
    assert.strictEqual(Idempotency.maxKeyLength, 255)
    assert.isAbove(Duration.toMillis(Idempotency.lease), 0)
    assert.isBelow(Duration.toMillis(Idempotency.lease), Duration.toMillis(Idempotency.retention))
  })
})

describe("canClaim", () => {
  const cases: ReadonlyArray<readonly [string, Idempotency.IdempotencyRecord | undefined, string, boolean]> = [
    ["no record", undefined, "fp-a", true],
    ["running, same request, lease held", record(), "fp-a", false],
    ["running, other request, lease held", record(), "fp-b", false],
    ["running, same request, lease ran out", record({ lockedUntil: at(-1) }), "fp-a", true],
    ["running, same request, lease ends exactly now", record({ lockedUntil: now }), "fp-a", true],
    ["running, other request, lease ran out", record({ lockedUntil: at(-1) }), "fp-b", false],
    ["finished, same request", record({ response: done, lockedUntil: at(-1) }), "fp-a", false],
    ["finished, other request", record({ response: done, lockedUntil: at(-1) }), "fp-b", false],
    ["finished, expired", record({ response: done, lockedUntil: at(-10), expiresAt: at(-1) }), "fp-b", true],
    ["finished, expires exactly now", record({ response: done, expiresAt: now }), "fp-a", true],
    ["running, expired", record({ expiresAt: at(-1) }), "fp-b", true],
    ["finished, expires in 1 ms", record({ response: done, lockedUntil: at(-10), expiresAt: at(1) }), "fp-b", false]
  ]
  for (const [name, existing, fingerprint, expected] of cases) {
    it(`${name} → ${expected ? "claim" : "no claim"}`, () => {
      assert.strictEqual(Idempotency.canClaim(existing, fingerprint, now), expected)
    })
  }
})

describe("decide", () => {
  it("other parameters → IdempotencyKeyReused (422 code)", () => {
    for (const existing of [record(), record({ response: done })]) {
      const outcome = Idempotency.decide(existing, "fp-b")
      assert.strictEqual(outcome._tag, "Refuse")
      if (outcome._tag === "Refuse") {
        assert.strictEqual(outcome.error._tag, "IdempotencyKeyReused")
        assert.strictEqual(outcome.error.code, "IDEMPOTENCY_KEY_REUSED")
      }
    }
  })

  it("same parameters while running → IdempotencyKeyInUse", () => {
    const outcome = Idempotency.decide(record(), "fp-a")
    assert.strictEqual(outcome._tag, "Refuse")
    if (outcome._tag === "Refuse") {
      assert.strictEqual(outcome.error._tag, "IdempotencyKeyInUse")
      assert.strictEqual(outcome.error.code, "IDEMPOTENCY_KEY_IN_USE")
    }
  })

  it("same parameters once finished → Replay of the stored response", () => {
    const outcome = Idempotency.decide(record({ response: done }), "fp-a")
    assert.deepStrictEqual(outcome, { _tag: "Replay", response: done })
  })

  it.prop("canClaim and decide never both let a request through a held, unexpired key", [
    FastCheck.constantFrom("fp-a", "fp-b"),
    FastCheck.option(FastCheck.constantFrom(done, { status: 404, body: "{}" }), { nil: null }),
    FastCheck.integer({ min: -100_000, max: 100_000 }),
    FastCheck.integer({ min: -100_000, max: 100_000 })
  ], ([fingerprint, response, lockOffset, expiryOffset]) => {
    const existing = record({ response, lockedUntil: at(lockOffset), expiresAt: at(expiryOffset) })
    const claim = Idempotency.canClaim(existing, fingerprint, now)
    const expired = expiryOffset <= 0
    if (expired) {
      assert.isTrue(claim)
      return
    }
    const sameRequest = fingerprint === existing.fingerprint
    assert.strictEqual(claim, sameRequest && response === null && lockOffset <= 0)
    if (claim) return
    const outcome = Idempotency.decide(existing, fingerprint)
    if (!sameRequest) assert.strictEqual(outcome._tag === "Refuse" && outcome.error._tag, "IdempotencyKeyReused")
    else if (response === null) assert.strictEqual(outcome._tag === "Refuse" && outcome.error._tag, "IdempotencyKeyInUse")
    else assert.deepStrictEqual(outcome, { _tag: "Replay", response })
  }, { fastCheck: { numRuns: 200 } })
})

describe("isStorable", () => {
  it("stores 2xx, 3xx and 4xx except 401 and 429; never 5xx", () => {
    for (const status of [200, 201, 204, 303, 400, 403, 404, 409, 410, 413, 422]) {
      assert.isTrue(Idempotency.isStorable(status), String(status))
    }
    for (const status of [401, 429, 500, 502, 503, 504, 599]) {
      assert.isFalse(Idempotency.isStorable(status), String(status))
    }
  })
})

describe("commitsWork", () => {
  it("a success (2xx, or a redirect answering a form) commits its work with its answer; anything else rolls it back", () => {
    for (const status of [200, 201, 204, 303]) assert.isTrue(Idempotency.commitsWork(status), String(status))
    for (const status of [400, 401, 404, 409, 422, 429, 500, 503]) {
      assert.isFalse(Idempotency.commitsWork(status), String(status))
    }
  })
})

describe("validateKey", () => {
  it("1 to 255 characters", () => {
    assert.isUndefined(Idempotency.validateKey("a"))
    assert.isUndefined(Idempotency.validateKey("k".repeat(255)))
    assert.strictEqual(Idempotency.validateKey("k".repeat(256))?._tag, "InvalidRequest")
    assert.strictEqual(Idempotency.validateKey("")?._tag, "InvalidRequest")
    assert.strictEqual(Idempotency.validateKey("k".repeat(1000))?.code, "INVALID_REQUEST")
  })

  it.prop("accepted iff length 1..255", [FastCheck.string({ maxLength: 300 })], ([key]) => {
    assert.strictEqual(Idempotency.validateKey(key) === undefined, key.length >= 1 && key.length <= 255)
  }, { fastCheck: { numRuns: 100 } })
})
