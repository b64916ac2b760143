/**
 * The PaymentProcessor contract (`fils/testing`'s `ProcessorContract`) against the simulated processor, on its
 * memory ledger and on its PostgreSQL ledger (its own schema in a fresh database). A check that fails names the
 * rule broken; the last test shows the checks can fail, on a processor that charges twice under one reference.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, ManagedRuntime, Option } from "effect"
import { makeSimulatedProcessor, makeSimulatedProcessorMemory } from "../../adapters/processor/SimulatedProcessor.js"
import { makeSimulatedLedgerSql } from "../../adapters/processor/SimulatedLedgerSql.js"
import { MigratedPg } from "../../adapters/sql/Postgres.js"
import * as ProcessorContract from "../../adapters/testing/ProcessorContract.js"
import type { PaymentProcessorShape } from "../../src/ports/PaymentProcessor.js"
import { fileDatabaseUrl } from "../support/postgresStore.js"
import * as SqlClient from "@effect/sql/SqlClient"
import { afterAll, beforeAll } from "vitest"

const card = { number: "4242424242424242", expMonth: 12, expYear: 2090, cvc: "123" }

describe("ProcessorContract: simulated processor, memory ledger", () => {
  for (const check of ProcessorContract.checks) {
    it.live(check.name, () => check.run({ processor: makeSimulatedProcessorMemory({ live: false }), card }))
  }
})

let sqlRuntime: ManagedRuntime.ManagedRuntime<SqlClient.SqlClient, unknown>
let onSql: PaymentProcessorShape
beforeAll(async () => {
  sqlRuntime = ManagedRuntime.make(MigratedPg(await fileDatabaseUrl(), { maxConnections: 4 }).pipe(Layer.orDie))
  // Two processors on one database answer as one: each check's charges, made by one, are looked up by the other.
  const [a, b] = await sqlRuntime.runPromise(Effect.all([makeSimulatedLedgerSql, makeSimulatedLedgerSql]))
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
