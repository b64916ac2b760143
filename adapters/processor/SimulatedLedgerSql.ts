/**
 * The simulated processor's ledger on PostgreSQL, in a schema of its own (`fils_sim`): the processor's records, not
 * Fils' (Fils' migrations and `fils check` never touch them). Created when first needed, under an advisory lock so
 * that servers starting together do not race. Every call runs in one transaction holding advisory locks on its keys
 * (a reference, a charge id), so the servers sharing the database answer as one processor.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import { DateTime, Effect, Layer, Option } from "effect"
import { batchedCalls } from "../../src/application/Batched.js"
import type { CardOnFile } from "../../src/domain/Payment.js"
import {
  type Behaviour,
  LedgerUnavailable,
  type SimCharge,
  SimulatedLedger,
  type SimulatedLedgerShape,
  type SimRefund
} from "./SimulatedLedger.js"

interface ChargeRow {
  readonly reference: string
  readonly charge_id: string
  readonly amount: string | number
  readonly currency: string
  readonly livemode: boolean
  readonly behaviour: string
  readonly outcome: string
  readonly failure_code: string | null
  readonly settles_at: Date | null
  readonly card: CardOnFile | string | null
  readonly created_at: Date
}

interface RefundRow {
  readonly reference: string
  readonly refund_id: string
  readonly charge_id: string
  readonly amount: string | number
  readonly currency: string
  readonly livemode: boolean
  readonly outcome: string
  readonly reason: string | null
  readonly created_at: Date
}

const fromChargeRow = (row: ChargeRow): SimCharge => ({
  reference: row.reference,
  chargeId: row.charge_id,
  amount: Number(row.amount),
  currency: row.currency,
  livemode: row.livemode,
  behaviour: row.behaviour as Behaviour,
  outcome: row.outcome as SimCharge["outcome"],
  failureCode: row.failure_code,
  settlesAt: row.settles_at === null ? null : DateTime.unsafeMake(row.settles_at),
  card: typeof row.card === "string" ? JSON.parse(row.card) as CardOnFile : row.card,
  createdAt: DateTime.unsafeMake(row.created_at)
})

const fromRefundRow = (row: RefundRow): SimRefund => ({
  reference: row.reference,
  refundId: row.refund_id,
  chargeId: row.charge_id,
  amount: Number(row.amount),
  currency: row.currency,
  livemode: row.livemode,
  outcome: row.outcome as SimRefund["outcome"],
  reason: row.reason,
  createdAt: DateTime.unsafeMake(row.created_at)
})

const unavailable = (error: SqlError) => new LedgerUnavailable(`the simulated processor's ledger: ${error.message}`)

/** The ledger, and its puts of many charges in one statement. */
const makeLedger = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.withTransaction(Effect.gen(function*() {
    yield* sql`SELECT pg_advisory_xact_lock(hashtextextended('fils_sim schema', 0))`
    yield* sql`CREATE SCHEMA IF NOT EXISTS fils_sim`
    yield* sql`CREATE TABLE IF NOT EXISTS fils_sim.charges (
      reference text PRIMARY KEY,
      charge_id text NOT NULL UNIQUE,
      amount bigint NOT NULL CHECK (amount >= 0),
      currency text NOT NULL,
      livemode boolean NOT NULL,
      behaviour text NOT NULL,
      outcome text NOT NULL CHECK (outcome IN ('succeeded', 'failed', 'void')),
      failure_code text,
      settles_at timestamptz,
      card jsonb,
      created_at timestamptz NOT NULL
    )`
    yield* sql`CREATE INDEX IF NOT EXISTS charges_created ON fils_sim.charges (created_at)`
    yield* sql`CREATE TABLE IF NOT EXISTS fils_sim.refunds (
      reference text PRIMARY KEY,
      refund_id text NOT NULL UNIQUE,
      charge_id text NOT NULL REFERENCES fils_sim.charges (charge_id),
      amount bigint NOT NULL CHECK (amount > 0),
      currency text NOT NULL,
      livemode boolean NOT NULL,
      outcome text NOT NULL CHECK (outcome IN ('succeeded', 'refused')),
      reason text,
      created_at timestamptz NOT NULL
    )`
    yield* sql`CREATE INDEX IF NOT EXISTS refunds_charge ON fils_sim.refunds (charge_id)`
    yield* sql`CREATE INDEX IF NOT EXISTS refunds_created ON fils_sim.refunds (created_at)`
  })).pipe(Effect.mapError(unavailable))

  const op = <A>(effect: Effect.Effect<A, SqlError>) => Effect.mapError(effect, unavailable)

  /**
   * Stores each charge unless its reference is taken, in one statement and no transaction (measured at twice the
   * rate of a transaction with `synchronous_commit = off`): what is stored under each reference, in order. A
   * reference given twice is stored once; both get what was stored.
   */
  const putCharges = (charges: ReadonlyArray<SimCharge>) =>
    op(Effect.gen(function*() {
      const inserted = yield* sql<ChargeRow>`INSERT INTO fils_sim.charges ${
        sql.insert(charges.map((c) => ({
          reference: c.reference,
          charge_id: c.chargeId,
          amount: c.amount,
          currency: c.currency,
          livemode: c.livemode,
          behaviour: c.behaviour,
          outcome: c.outcome,
          failure_code: c.failureCode,
          settles_at: c.settlesAt === null ? null : DateTime.toDate(c.settlesAt),
          card: c.card === null ? null : JSON.stringify(c.card),
          created_at: DateTime.toDate(c.createdAt)
        })))
      } ON CONFLICT (reference) DO NOTHING RETURNING *`
      const stored = new Map(inserted.map((row) => [row.reference, fromChargeRow(row)]))
      // The references that were taken (by a call under them, or a lookup that closed them): what is stored is the answer.
      const taken = [...new Set(charges.map((c) => c.reference).filter((r) => !stored.has(r)))]
      if (taken.length > 0) {
        const rows = yield* sql<ChargeRow>`SELECT * FROM fils_sim.charges WHERE reference IN ${sql.in(taken)}`
        for (const row of rows) stored.set(row.reference, fromChargeRow(row))
      }
      return charges.map((c) => stored.get(c.reference)!)
    }))

  const ledger = {
    atomically: <A, E>(keys: ReadonlyArray<string>, effect: Effect.Effect<A, E>) =>
      sql.withTransaction(Effect.gen(function*() {
        // In the given order, so two calls that share keys cannot deadlock (callers name the charge first).
        for (const key of keys) yield* sql`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))`
        return yield* effect
      })).pipe(
        Effect.mapError((e): E | LedgerUnavailable => e instanceof SqlError ? unavailable(e) : e as E)
      ),
    chargeByReference: (reference) =>
      op(sql<ChargeRow>`SELECT * FROM fils_sim.charges WHERE reference = ${reference}`).pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), fromChargeRow))
      ),
    chargeById: (chargeId) =>
      op(sql<ChargeRow>`SELECT * FROM fils_sim.charges WHERE charge_id = ${chargeId}`).pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), fromChargeRow))
      ),
    refundByReference: (reference) =>
      op(sql<RefundRow>`SELECT * FROM fils_sim.refunds WHERE reference = ${reference}`).pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), fromRefundRow))
      ),
    refundsOf: (chargeId) =>
      op(sql<RefundRow>`SELECT * FROM fils_sim.refunds WHERE charge_id = ${chargeId} ORDER BY created_at`).pipe(
        Effect.map((rows) => rows.map(fromRefundRow))
      ),
    putCharge: (c) => Effect.map(putCharges([c]), (stored) => stored[0]!),
    insertRefund: (r) =>
      op(sql`INSERT INTO fils_sim.refunds ${
        sql.insert({
          reference: r.reference,
          refund_id: r.refundId,
          charge_id: r.chargeId,
          amount: r.amount,
          currency: r.currency,
          livemode: r.livemode,
          outcome: r.outcome,
          reason: r.reason,
          created_at: DateTime.toDate(r.createdAt)
        })
      }`).pipe(Effect.asVoid),
    since: (since) =>
      op(Effect.all({
        charges: sql<ChargeRow>`SELECT * FROM fils_sim.charges
          WHERE created_at >= ${DateTime.toDate(since)} AND outcome <> 'void' ORDER BY created_at, reference`,
        refunds: sql<RefundRow>`SELECT * FROM fils_sim.refunds
          WHERE created_at >= ${DateTime.toDate(since)} ORDER BY created_at, reference`
      })).pipe(Effect.map(({ charges, refunds }) => ({
        charges: charges.map(fromChargeRow),
        refunds: refunds.map(fromRefundRow)
      })))
  } satisfies SimulatedLedgerShape
  return { ledger, putCharges }
})

/** The ledger on PostgreSQL, each call on its own (the layer below also gathers concurrent puts). */
export const makeSimulatedLedgerSql: Effect.Effect<SimulatedLedgerShape, LedgerUnavailable, SqlClient.SqlClient> =
  Effect.map(makeLedger, ({ ledger }) => ledger)

/**
 * The ledger on the `SqlClient` of the context (the same database as the Store, in its own schema). Charges stored
 * outside a transaction at the same time (a billing run's renewals, checkouts paid together) go in one statement:
 * a put is a round trip and a commit, which bounded a billing run where the machine was half idle.
 */
export const SimulatedLedgerSql = Layer.scoped(
  SimulatedLedger,
  Effect.gen(function*() {
    const { ledger, putCharges } = yield* makeLedger
    const together = yield* batchedCalls(putCharges, { max: 100 })
    return {
      ...ledger,
      // Inside `atomically` a put belongs to the call's transaction; a batch runs on a connection of its own.
      putCharge: (charge) =>
        Effect.flatMap(
          Effect.serviceOption(SqlClient.TransactionConnection),
          (running) => Option.isSome(running) ? ledger.putCharge(charge) : together(charge)
        )
    } satisfies SimulatedLedgerShape
  }).pipe(Effect.orDieWith((e) => new Error(e.message)))
)
