import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Either, Fiber, Option, Ref, TestClock } from "effect"
import { IdempotencyService } from "../../src/application/Idempotency.js"
import * as WorkKeys from "../../src/application/WorkKeys.js"
import { IdempotencyRepository } from "../../src/ports/repositories/IdempotencyRepository.js"
import { Signer } from "../../src/ports/Signer.js"
import { Products } from "../../src/application/Products.js"
import type { ProductId } from "../../src/domain/Ids.js"
import { Store } from "../../src/ports/Store.js"
import type { Scope } from "../../src/domain/Account.js"
import type { StoredResponse } from "../../src/domain/Idempotency.js"
import { fourScopes, withEngine } from "./harness.js"

const failureTag = <A, E extends { readonly _tag: string }>(e: Either.Either<A, E>) =>
  Either.isLeft(e) ? e.left._tag : "succeeded"

const post = (path: string, body: unknown) => `POST ${path}\n${JSON.stringify(body)}`

/** An `execute` that counts its runs and answers `status` with the run number in the body. */
const counted = (runs: Ref.Ref<number>, status = 200) =>
  Ref.updateAndGet(runs, (n) => n + 1).pipe(
    Effect.map((n): StoredResponse => ({ status, body: JSON.stringify({ run: n }) }))
  )

const setup = Effect.gen(function*() {
  const idem = yield* IdempotencyService
  const scopes = yield* fourScopes
  const runs = yield* Ref.make(0)
  return { idem, scope: scopes[0] as Scope, scopes, runs }
})

describe("IdempotencyService.run", () => {
  it.effect("the same key and request replays the first response and runs once", () =>
    Effect.gen(function*() {
      const { idem, runs, scope } = yield* setup
      const request = post("/products", { name: "Coffee", price: 34900 })
      const first = yield* idem.run(scope, "key-1", request, counted(runs, 200))
      assert.deepStrictEqual(first, { response: { status: 200, body: "{\"run\":1}" }, replayed: false })
      for (let i = 0; i < 3; i++) {
        yield* TestClock.adjust("1 hour")
        const again = yield* idem.run(scope, "key-1", request, counted(runs, 200))
        assert.deepStrictEqual(again, { response: first.response, replayed: true })
      }
      assert.strictEqual(yield* Ref.get(runs), 1)
    }).pipe(withEngine()))

  it.effect("a different request with the same key is IdempotencyKeyReused and does not run", () =>
    Effect.gen(function*() {
      const { idem, runs, scope } = yield* setup
      const a = post("/products", { name: "Coffee" })
      yield* idem.run(scope, "key-1", a, counted(runs))
      for (const other of [post("/products", { name: "Tea" }), post("/customers", { name: "Coffee" }), ""]) {
        const result = yield* Effect.either(idem.run(scope, "key-1", other, counted(runs)))
        assert.strictEqual(failureTag(result), "IdempotencyKeyReused")
        if (Either.isLeft(result)) assert.strictEqual(result.left.code, "IDEMPOTENCY_KEY_REUSED")
      }
      assert.strictEqual(yield* Ref.get(runs), 1)
      // The original request still replays.
      assert.isTrue((yield* idem.run(scope, "key-1", a, counted(runs))).replayed)
    }).pipe(withEngine()))

  it.effect("the same key while the first request runs is IdempotencyKeyInUse; afterwards it replays", () =>
    Effect.gen(function*() {
      const { idem, runs, scope } = yield* setup
      const request = post("/checkout_sessions", { product_cart: [] })
      const started = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const slow = Deferred.succeed(started, undefined).pipe(
        Effect.zipRight(Deferred.await(release)),
        Effect.zipRight(counted(runs, 200))
      )
      const first = yield* Effect.fork(idem.run(scope, "key-1", request, slow))
      yield* Deferred.await(started)
      const concurrent = yield* Effect.either(idem.run(scope, "key-1", request, counted(runs)))
      assert.strictEqual(failureTag(concurrent), "IdempotencyKeyInUse")
      if (Either.isLeft(concurrent)) assert.strictEqual(concurrent.left.code, "IDEMPOTENCY_KEY_IN_USE")
      // Other parameters while it runs: reused.
      assert.strictEqual(
        failureTag(yield* Effect.either(idem.run(scope, "key-1", post("/x", {}), counted(runs)))),
        "IdempotencyKeyReused"
      )
      yield* Deferred.succeed(release, undefined)
      const done = yield* Fiber.join(first)
      assert.isFalse(done.replayed)
      const replay = yield* idem.run(scope, "key-1", request, counted(runs))
      assert.deepStrictEqual(replay, { response: done.response, replayed: true })
      assert.strictEqual(yield* Ref.get(runs), 1)
    }).pipe(withEngine()))

  it.effect("many concurrent requests with one key: exactly one runs", () =>
    Effect.gen(function*() {
      const { idem, runs, scope } = yield* setup
      const request = post("/products", { n: 1 })
      const gate = yield* Deferred.make<void>()
      const results = yield* Effect.all(
        Array.from({ length: 8 }, () =>
          Effect.either(idem.run(scope, "key-c", request, Deferred.await(gate).pipe(Effect.zipRight(counted(runs)))))),
        { concurrency: "unbounded" }
      ).pipe(
        Effect.fork,
        Effect.tap(() => Effect.repeatN(Effect.yieldNow(), 20)),
        Effect.tap(() => Deferred.succeed(gate, undefined)),
        Effect.flatMap(Fiber.join)
      )
      // One fresh run; every other request either met the key in use or (once it finished) got the replay.
      const fresh = results.filter((r) => Either.isRight(r) && !r.right.replayed)
      assert.strictEqual(fresh.length, 1)
      for (const r of results) {
        if (Either.isLeft(r)) assert.strictEqual(r.left._tag, "IdempotencyKeyInUse")
        else assert.strictEqual(r.right.response.body, "{\"run\":1}")
      }
      // The gate opened only after the others had met the running request.
      assert.isAtLeast(results.filter(Either.isLeft).length, 1)
      assert.strictEqual(yield* Ref.get(runs), 1)
    }).pipe(withEngine()))

  for (const status of [500, 502, 503, 401, 429]) {
    it.effect(`a ${status} response is not stored: a retry runs again`, () =>
      Effect.gen(function*() {
        const { idem, runs, scope } = yield* setup
        const request = post("/products", { name: "Coffee" })
        const first = yield* idem.run(scope, "key-1", request, counted(runs, status))
        assert.deepStrictEqual(first, { response: { status, body: "{\"run\":1}" }, replayed: false })
        const second = yield* idem.run(scope, "key-1", request, counted(runs, 200))
        assert.deepStrictEqual(second, { response: { status: 200, body: "{\"run\":2}" }, replayed: false })
        const third = yield* idem.run(scope, "key-1", request, counted(runs, 200))
        assert.isTrue(third.replayed)
        assert.strictEqual(third.response.body, "{\"run\":2}")
        // A different request may take the key after a non-stored response, too.
        yield* idem.run(scope, "key-2", request, counted(runs, status))
        const other = yield* idem.run(scope, "key-2", post("/customers", {}), counted(runs, 201))
        assert.isFalse(other.replayed)
        assert.strictEqual(yield* Ref.get(runs), 4)
      }).pipe(withEngine()))
  }

  for (const status of [400, 404, 409, 422]) {
    it.effect(`a ${status} response is stored and replayed`, () =>
      Effect.gen(function*() {
        const { idem, runs, scope } = yield* setup
        const request = post("/products", { name: "" })
        yield* idem.run(scope, "key-1", request, counted(runs, status))
        const again = yield* idem.run(scope, "key-1", request, counted(runs, 200))
        assert.deepStrictEqual(again, { response: { status, body: "{\"run\":1}" }, replayed: true })
        assert.strictEqual(yield* Ref.get(runs), 1)
      }).pipe(withEngine()))
  }

  it.effect("a request that dies releases its key: the retry runs", () =>
    Effect.gen(function*() {
      const { idem, runs, scope } = yield* setup
      const request = post("/products", {})
      const died = yield* Effect.exit(idem.run(scope, "key-1", request, Effect.die(new Error("boom"))))
      assert.isTrue(died._tag === "Failure")
      const retry = yield* idem.run(scope, "key-1", request, counted(runs))
      assert.isFalse(retry.replayed)
      assert.strictEqual(yield* Ref.get(runs), 1)
    }).pipe(withEngine()))

  it.effect("keys: 255 characters accepted; longer or empty is InvalidRequest and nothing runs", () =>
    Effect.gen(function*() {
      const { idem, runs, scope } = yield* setup
      const request = post("/products", {})
      const ok = yield* idem.run(scope, "k".repeat(255), request, counted(runs))
      assert.isFalse(ok.replayed)
      for (const key of ["k".repeat(256), "k".repeat(10_000), ""]) {
        const result = yield* Effect.either(idem.run(scope, key, request, counted(runs)))
        assert.strictEqual(failureTag(result), "InvalidRequest", `length ${key.length}`)
        if (Either.isLeft(result)) assert.strictEqual(result.left.code, "INVALID_REQUEST")
      }
      assert.strictEqual(yield* Ref.get(runs), 1)
    }).pipe(withEngine()))

  it.effect("after 24 hours the key is free again", () =>
    Effect.gen(function*() {
      const { idem, runs, scope } = yield* setup
      const request = post("/products", { name: "Coffee" })
      yield* idem.run(scope, "key-1", request, counted(runs))
      yield* idem.run(scope, "key-2", request, counted(runs))
      yield* TestClock.adjust("86399999 millis") // 24 h less 1 ms: still remembered
      assert.isTrue((yield* idem.run(scope, "key-1", request, counted(runs))).replayed)
      assert.strictEqual(
        failureTag(yield* Effect.either(idem.run(scope, "key-2", post("/customers", {}), counted(runs)))),
        "IdempotencyKeyReused"
      )
      assert.strictEqual(yield* Ref.get(runs), 2)
      yield* TestClock.adjust("1 millis") // exactly 24 h
      const fresh = yield* idem.run(scope, "key-1", request, counted(runs))
      assert.deepStrictEqual(fresh, { response: { status: 200, body: "{\"run\":3}" }, replayed: false })
      // A different request may use the expired key too.
      const other = yield* idem.run(scope, "key-2", post("/customers", {}), counted(runs))
      assert.isFalse(other.replayed)
      assert.strictEqual(yield* Ref.get(runs), 4)
      // And the new record is remembered for another 24 hours.
      yield* TestClock.adjust("23 hours")
      assert.deepStrictEqual(yield* idem.run(scope, "key-1", request, counted(runs)), { response: fresh.response, replayed: true })
    }).pipe(withEngine()))

  it.effect("keys are per account and mode", () =>
    Effect.gen(function*() {
      const { idem, runs, scopes } = yield* setup
      const request = post("/products", { name: "Coffee" })
      const results = []
      for (const scope of scopes) results.push(yield* idem.run(scope, "shared-key", request, counted(runs)))
      assert.deepStrictEqual(results.map((r) => r.replayed), [false, false, false, false])
      assert.deepStrictEqual(results.map((r) => r.response.body), [1, 2, 3, 4].map((n) => `{"run":${n}}`))
      // Another request under the same key in another scope is not "reused".
      const other = yield* idem.run(scopes[1], "key-x", request, counted(runs))
      const different = yield* idem.run(scopes[2], "key-x", post("/customers", {}), counted(runs))
      assert.isFalse(other.replayed)
      assert.isFalse(different.replayed)
      assert.strictEqual(yield* Ref.get(runs), 6)
    }).pipe(withEngine()))

  it.effect("a request abandoned while running gives its key up once the lease runs out", () =>
    Effect.gen(function*() {
      const { idem, runs, scope } = yield* setup
      const request = post("/products", {})
      const started = yield* Deferred.make<void>()
      const fiber = yield* Effect.fork(
        idem.run(scope, "key-1", request, Deferred.succeed(started, undefined).pipe(Effect.zipRight(Effect.never)))
      )
      yield* Deferred.await(started)
      yield* Fiber.interrupt(fiber)
      yield* TestClock.adjust("61 seconds")
      const retry = yield* idem.run(scope, "key-1", request, counted(runs))
      assert.isFalse(retry.replayed)
      assert.strictEqual(yield* Ref.get(runs), 1)
    }).pipe(withEngine()))

  // Regression: a request whose fiber is interrupted (the client hung up) must settle its record, so that an
  // immediate retry runs afresh instead of meeting 409 IDEMPOTENCY_KEY_IN_USE until the lease runs out.
  it.effect("an interrupted request releases its key at once", () =>
    Effect.gen(function*() {
      const { idem, runs, scope } = yield* setup
      const request = post("/products", {})
      const started = yield* Deferred.make<void>()
      const fiber = yield* Effect.fork(
        idem.run(scope, "key-1", request, Deferred.succeed(started, undefined).pipe(Effect.zipRight(Effect.never)))
      )
      yield* Deferred.await(started)
      yield* Fiber.interrupt(fiber)
      const retry = yield* idem.run(scope, "key-1", request, counted(runs))
      assert.isFalse(retry.replayed)
      assert.strictEqual(yield* Ref.get(runs), 1)
    }).pipe(withEngine()))

  describe("objects created under a key are written with its answer", () => {
    /** A product create answered with `status`, as the HTTP layer would; its id lands in `made`. */
    const createProduct = (scope: Scope, made: Ref.Ref<ReadonlyArray<ProductId>>, status = 200, wait = Effect.void) =>
      Effect.gen(function*() {
        const product = yield* (yield* Products).create(scope, { name: "Coffee", price: 34900, currency: "AED" })
        yield* Ref.update(made, (ids) => [...ids, product.product_id])
        yield* wait
        return { status, body: JSON.stringify({ product_id: product.product_id }) } satisfies StoredResponse
      }).pipe(Effect.orDie)
    const exists = (scope: Scope, id: ProductId) =>
      Effect.flatMap(Store, (store) => Effect.map(store.products.get(scope, id), (found) => found._tag === "Some"))

    it.effect("a success writes the product with its answer; a failure after creating it writes neither", () =>
      Effect.gen(function*() {
        const { idem, scope } = yield* setup
        const made = yield* Ref.make<ReadonlyArray<ProductId>>([])
        const ok = yield* idem.run(scope, "ok", post("/products", { n: 1 }), createProduct(scope, made))
        assert.isFalse(ok.replayed)
        for (const status of [500, 503, 422]) {
          yield* idem.run(scope, `failed-${status}`, post("/products", { status }), createProduct(scope, made, status))
        }
        const [written, ...refused] = yield* Ref.get(made)
        assert.lengthOf(refused, 3)
        assert.isTrue(yield* exists(scope, written!))
        for (const id of refused) assert.isFalse(yield* exists(scope, id))
      }).pipe(withEngine()))

    it.effect("a work whose lease was taken over by a retry writes nothing: the retry's product stands", () =>
      Effect.gen(function*() {
        const { idem, scope } = yield* setup
        const made = yield* Ref.make<ReadonlyArray<ProductId>>([])
        const request = post("/products", { name: "Coffee" })
        const gate = yield* Deferred.make<void>()
        const slow = yield* Effect.fork(Effect.either(idem.run(scope, "k", request, createProduct(scope, made, 200, Deferred.await(gate)))))
        yield* TestClock.adjust("16 seconds")
        const retry = yield* idem.run(scope, "k", request, createProduct(scope, made))
        yield* Deferred.succeed(gate, undefined)
        const first = yield* Fiber.join(slow)
        assert.strictEqual(failureTag(first), "IdempotencyKeyInUse")
        const [abandoned, kept] = yield* Ref.get(made)
        assert.isFalse(yield* exists(scope, abandoned!))
        assert.isTrue(yield* exists(scope, kept!))
        assert.strictEqual(JSON.parse(retry.response.body).product_id, kept)
      }).pipe(withEngine()))

    it.effect("concurrent keyed creates each write their own product once", () =>
      Effect.gen(function*() {
        const { idem, scope } = yield* setup
        const made = yield* Ref.make<ReadonlyArray<ProductId>>([])
        // Five keys sent twice at once: the second meets the first running (in use) or its answer (replayed).
        const results = yield* Effect.forEach(
          Array.from({ length: 25 }, (_, i) => i),
          (i) => Effect.either(idem.run(scope, `key-${i % 20}`, post("/products", { i: i % 20 }), createProduct(scope, made))),
          { concurrency: "unbounded" }
        )
        for (const result of results) assert.include(["succeeded", "IdempotencyKeyInUse"], failureTag(result))
        const answered = new Set(results.flatMap((r) => Either.isRight(r) ? [JSON.parse(r.right.response.body).product_id as ProductId] : []))
        assert.strictEqual(answered.size, 20)
        assert.lengthOf(yield* Ref.get(made), 20)
        for (const id of yield* Ref.get(made)) assert.isTrue(yield* exists(scope, id))
      }).pipe(withEngine()))
  })
})

describe("WorkKeys.answeredEarlier", () => {
  it.effect("answers the id a claim of the same request stored, until the key expires; another request, nothing", () =>
    Effect.gen(function*() {
      const { scope } = yield* setup
      const repo = yield* IdempotencyRepository
      const signer = yield* Signer
      const key = yield* WorkKeys.workKey(signer, scope, "created_products", "token-1", "{\"name\":\"Dates\"}")
      assert.isTrue(Option.isNone(yield* WorkKeys.answeredEarlier(repo, key)))
      assert.isUndefined(yield* WorkKeys.claimAnswered(repo, key, "prod_1"))
      assert.deepStrictEqual(yield* WorkKeys.answeredEarlier(repo, key), Option.some("prod_1"))
      const other = yield* WorkKeys.workKey(signer, scope, "created_products", "token-1", "{\"name\":\"Figs\"}")
      assert.isTrue(Option.isNone(yield* WorkKeys.answeredEarlier(repo, other)))
      yield* TestClock.adjust("23 hours")
      assert.deepStrictEqual(yield* WorkKeys.answeredEarlier(repo, key), Option.some("prod_1"))
      yield* TestClock.adjust("1 hour")
      assert.isTrue(Option.isNone(yield* WorkKeys.answeredEarlier(repo, key)))
    }).pipe(withEngine()))
})
