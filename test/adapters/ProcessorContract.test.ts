/**
 * The PaymentProcessor contract (`fils/testing`'s `ProcessorContract`) against the simulated processor, on its
 * memory ledger and on its PostgreSQL ledger (its own schema in a fresh database). A check that fails names the
 * rule broken; the last test shows the checks can fail, on a processor that charges twice under one reference.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, ManagedRuntime, Option, Redacted } from "effect"
import { makeSimulatedProcessor, makeSimulatedProcessorMemory } from "../../adapters/processor/SimulatedProcessor.js"
import { SimulatedLedger } from "../../adapters/processor/SimulatedLedger.js"
import { makeSimulatedLedgerSql, SimulatedLedgerSql } from "../../adapters/processor/SimulatedLedgerSql.js"
import { MigratedPg } from "../../adapters/sql/Postgres.js"
import * as ProcessorContract from "../../adapters/testing/ProcessorContract.js"
import type { PaymentProcessorShape } from "../../src/ports/PaymentProcessor.js"
import { fileDatabaseUrl } from "../support/postgresStore.js"
import * as SqlClient from "@effect/sql/SqlClient"
import { afterAll, beforeAll } from "vitest"

const card = { number: Redacted.make("4242424242424242"), expMonth: 12, expYear: 2090, cvc: Redacted.make("123") }

describe("ProcessorContract: simulated processor, memory ledger", () => {
  for (const check of ProcessorContract.checks) {
    it.live(check.name, () => check.run({ processor: makeSimulatedProcessorMemory({ live: false }), card }))
  }
})

let sqlRuntime: ManagedRuntime.ManagedRuntime<SqlClient.SqlClient | SimulatedLedger, unknown>
let onSql: PaymentProcessorShape
beforeAll(async () => {
  sqlRuntime = ManagedRuntime.make(
    SimulatedLedgerSql.pipe(Layer.provideMerge(MigratedPg(await fileDatabaseUrl(), { maxConnections: 4 })), Layer.orDie)
  )
  // Two processors on one database answer as one: each check's charges, made by one (the layer's ledger, which
  // gathers concurrent charges into one statement), are looked up by the other (a ledger making each call alone).
  const [a, b] = await sqlRuntime.runPromise(Effect.all([SimulatedLedger, makeSimulatedLedgerSql]))
  const first = makeSimulatedProcessor({ live: false }, a)
  const second = makeSimulatedProcessor({ live: false }, b)
  onSql = { ...first, lookup: second.lookup, movements: second.movements }
}, 60_000)
afterAll(async () => {
  await sqlRuntime?.dispose()
})

describe("ProcessorContract: simulated processor, PostgreSQL ledger", () => {
  for (const check of ProcessorContract.checks) {
    it.live(check.name, () => check.run({ processor: Effect.sync(() => onSql), card }))
  }

  it.live("charges made at once, some under the same reference, are stored in one go: one charge per reference", () =>
    Effect.gen(function*() {
      const run = Date.now().toString(16)
      const references = Array.from({ length: 30 }, (_, i) => `pay_batch_${run}_${i % 10}`)
      const results = yield* Effect.forEach(
        references,
        (reference) => onSql.chargeCard({ reference, amount: 1_000, currency: "AED", livemode: false }, card),
        { concurrency: "unbounded" }
      )
      for (let i = 0; i < 10; i++) {
        const ids = new Set(results.filter((_, j) => references[j] === references[i]).map((r) => r.chargeId))
        assert.strictEqual(ids.size, 1, `one charge under ${references[i]}`)
        const moved = yield* onSql.lookup(references[i]!)
        assert.isTrue(Option.isSome(moved) && moved.value.amount === 1_000)
      }
      assert.strictEqual(new Set(results.map((r) => r.chargeId)).size, 10)
    }))
})

describe("ProcessorContract can fail", () => {
  it.live("a processor that ignores the reference on a retried charge breaks the idempotency check", () =>
    Effect.gen(function*() {
      const honest = yield* makeSimulatedProcessorMemory({ live: false })
      let calls = 0
      const careless: PaymentProcessorShape = {
        ...honest,
        // A new reference on every call: a retry charges again.
        chargeCard: (request, details) => honest.chargeCard({ ...request, reference: `${request.reference}_${calls++}` }, details),
        lookup: (reference) => Effect.map(honest.lookup(`${reference}_0`), Option.map((m) => ({ ...m, reference })))
      }
      const failures = yield* ProcessorContract.verify({ processor: Effect.succeed(careless), card })
      assert.include(failures.map((f) => f.check), "a second charge under the same reference moves no money: it answers with the first charge")
    }))
})
