/**
 * The batching writer: every item written once, in batches of at most `max`, each caller told its own batch's
 * outcome. The batching reader: each caller gets what a scoped read would give, and sees what was written before it
 * asked.
 */
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Either, Fiber, FastCheck, Ref } from "effect"
import { batched, batchedCalls, batchedReads } from "../../src/application/Batched.js"
import type { Scope } from "../../src/domain/Account.js"
import type { AccountId } from "../../src/domain/Ids.js"

interface Row {
  readonly id: string
  readonly account_id: string
  readonly livemode: boolean
  readonly version: number
}

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

  it.effect("batchedReads: any concurrent asks across scopes get exactly the scoped read's rows, each once, in fewer reads", () =>
    Effect.gen(function*() {
      const scopes: ReadonlyArray<Scope> = [
        { accountId: "acct_a" as AccountId, livemode: false },
        { accountId: "acct_a" as AccountId, livemode: true },
        { accountId: "acct_b" as AccountId, livemode: false }
      ]
      const ids = Array.from({ length: 12 }, (_, i) => `id_${i}`)
      const arbitrary = FastCheck.tuple(
        // Which scope each id's row is in, or none (an unknown id).
        FastCheck.array(FastCheck.integer({ min: -1, max: 2 }), { minLength: ids.length, maxLength: ids.length }),
        FastCheck.array(
          FastCheck.tuple(FastCheck.integer({ min: 0, max: 2 }), FastCheck.array(FastCheck.constantFrom(...ids), { maxLength: 6 })),
          { minLength: 1, maxLength: 40 }
        ),
        FastCheck.integer({ min: 1, max: 16 })
      )
      for (const [owners, asks, max] of FastCheck.sample(arbitrary, 40)) {
        const table = new Map(ids.flatMap((id, i) => {
          const scope = scopes[owners[i]!]
          return scope === undefined ? [] : [[id, { id, account_id: scope.accountId, livemode: scope.livemode, version: 0 }] as const]
        }))
        const reads = yield* Ref.make(0)
        const results = yield* Effect.scoped(Effect.gen(function*() {
          const read = yield* batchedReads(
            (wanted: ReadonlyArray<string>) =>
              Effect.as(Ref.update(reads, (n) => n + 1), wanted.flatMap((id) => table.has(id) ? [table.get(id)!] : [])),
            (row) => row.id,
            { max }
          )
          return yield* Effect.forEach(asks, ([scope, wanted]) => read(scopes[scope]!, wanted), { concurrency: "unbounded" })
        }))
        asks.forEach(([scope, wanted], i) => {
          const expected = [...new Set(wanted)].flatMap((id) => {
            const row = table.get(id)
            return row !== undefined && row.account_id === scopes[scope]!.accountId && row.livemode === scopes[scope]!.livemode
              ? [row]
              : []
          })
          assert.deepStrictEqual(results[i], expected, `ask ${i}: ${scope} ${wanted.join(",")}`)
        })
        const asking = asks.filter(([, wanted]) => wanted.length > 0).length
        if (asking >= 2 && max >= 2) assert.isBelow(yield* Ref.get(reads), asking, "asks made together share a read")
      }
    }))

  it.scoped("batchedReads: an ask made while a read is under way waits for the next, so it sees what was written before it asked", () =>
    Effect.gen(function*() {
      const scope: Scope = { accountId: "acct_a" as AccountId, livemode: false }
      const table = yield* Ref.make<Row>({ id: "id_1", account_id: scope.accountId, livemode: false, version: 1 })
      const reading = yield* Deferred.make<void>()
      const gate = yield* Deferred.make<void>()
      const calls = yield* Ref.make(0)
      const read = yield* batchedReads(
        (_: ReadonlyArray<string>) =>
          Effect.gen(function*() {
            const row = yield* Ref.get(table)
            // The first read holds its snapshot until the test lets it answer.
            if ((yield* Ref.getAndUpdate(calls, (n) => n + 1)) === 0) {
              yield* Deferred.succeed(reading, undefined)
              yield* Deferred.await(gate)
            }
            return [row]
          }),
        (row) => row.id,
        { max: 10 }
      )
      const first = yield* Effect.fork(read(scope, ["id_1"]))
      yield* Deferred.await(reading)
      yield* Ref.update(table, (row) => ({ ...row, version: 2 }))
      const second = yield* Effect.fork(read(scope, ["id_1"]))
      yield* Deferred.succeed(gate, undefined)
      assert.strictEqual((yield* Fiber.join(first))[0]!.version, 1)
      assert.strictEqual((yield* Fiber.join(second))[0]!.version, 2, "written before it asked")
      assert.strictEqual(yield* Ref.get(calls), 2)
    }))
})
