/** The batching writer: every item written once, in batches of at most `max`, each caller told its own batch's outcome. */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, FastCheck, Ref } from "effect"
import { batched, batchedCalls } from "../../src/application/Batched.js"

describe("batched", () => {
  it.scoped("any number of concurrent callers: each item written exactly once, batches within max, more than one item per batch under load", () =>
    Effect.gen(function*() {
      const runs = FastCheck.sample(FastCheck.tuple(FastCheck.integer({ min: 1, max: 300 }), FastCheck.integer({ min: 1, max: 64 })), 25)
      for (const [count, max] of runs) {
        const batches = yield* Ref.make<ReadonlyArray<ReadonlyArray<number>>>([])
        const write = batched((items: ReadonlyArray<number>) => Ref.update(batches, (all) => [...all, items]), { max })
        const results = yield* Effect.scoped(Effect.flatMap(write, (one) =>
          Effect.forEach(Array.from({ length: count }, (_, i) => i), (i) => Effect.as(one(i), i), { concurrency: "unbounded" })))
        const written = yield* Ref.get(batches)
        assert.deepStrictEqual(results, Array.from({ length: count }, (_, i) => i))
        assert.deepStrictEqual(written.flat().sort((a, b) => a - b), Array.from({ length: count }, (_, i) => i), "each once")
        assert.isTrue(written.every((b) => b.length >= 1 && b.length <= max), `batches within ${max}`)
        if (count >= 2 && max >= 2) assert.isBelow(written.length, count, "items that arrive together share a write")
      }
    }))

  it.scoped("batchedCalls: each caller gets the result of its own item, whichever batch carried it", () =>
    Effect.gen(function*() {
      const calls = yield* Ref.make(0)
      const square = yield* batchedCalls((items: ReadonlyArray<number>) =>
        Effect.as(Ref.update(calls, (n) => n + 1), items.map((i) => i * i)), { max: 7 })
      const inputs = Array.from({ length: 50 }, (_, i) => i)
      const results = yield* Effect.forEach(inputs, square, { concurrency: "unbounded" })
      assert.deepStrictEqual(results, inputs.map((i) => i * i))
      assert.isAtLeast(yield* Ref.get(calls), Math.ceil(50 / 7))
      assert.isBelow(yield* Ref.get(calls), 50, "callers that arrive together share a call")
    }))

  it.scoped("a failed write fails exactly the callers whose items were in it; later items are written", () =>
    Effect.gen(function*() {
      const calls = yield* Ref.make(0)
      const one = yield* batched((items: ReadonlyArray<string>) =>
        Effect.flatMap(Ref.getAndUpdate(calls, (n) => n + 1), (n) =>
          n === 0 ? Effect.fail(`refused ${items.join(",")}`) : Effect.void), { max: 10 })
      const first = yield* Effect.forEach(["a", "b", "c"], (item) => Effect.either(one(item)), { concurrency: "unbounded" })
      assert.deepStrictEqual(first.map(Either.isLeft), [true, true, true])
      assert.deepStrictEqual(first.map((e) => Either.isLeft(e) ? e.left : ""), ["refused a,b,c", "refused a,b,c", "refused a,b,c"])
      assert.isTrue(Either.isRight(yield* Effect.either(one("d"))))
      assert.strictEqual(yield* Ref.get(calls), 2)
    }))
})
