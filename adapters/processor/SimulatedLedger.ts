/**
 * Where the simulated processor keeps what it did: its charges and refunds by reference, so that it can answer
 * lookups, refuse what was refunded already, and list what moved. Not Fils' records: the processor's own, as a real
 * processor's would be. Two homes: memory (one process, for an embedded engine and tests) and PostgreSQL
 * (`SimulatedLedgerSql`: its own schema beside Fils' tables, so that several servers and the CLI agree).
 */
import { Context, type DateTime, Effect, Option } from "effect"
import type { CardOnFile } from "../../src/domain/Payment.js"

/** How a test card behaves; a saved card's token carries it, so renewals behave the same way. */
export type Behaviour =
  | "succeed"
  | "decline_later"
  | "settle_succeed"
  | "settle_fail"
  | "card_declined"
  | "insufficient_funds"
  | "expired_card"
  | "processing_error"
  | "answer_lost"
  | "unreachable"
  | "refunds_refused"
  | "first_refund_answer_lost"

export interface SimCharge {
  readonly reference: string
  readonly chargeId: string
  readonly amount: number
  readonly currency: string
  readonly livemode: boolean
  readonly behaviour: Behaviour
  /** How it ends: `void` is a reference closed by a lookup that found nothing (nothing can be charged under it). */
  readonly outcome: "succeeded" | "failed" | "void"
  readonly failureCode: string | null
  /** Until then the charge is `processing`; `null` for a charge answered at once. */
  readonly settlesAt: DateTime.Utc | null
  readonly card: CardOnFile | null
  readonly createdAt: DateTime.Utc
}

export interface SimRefund {
  readonly reference: string
  readonly refundId: string
  readonly chargeId: string
  readonly amount: number
  readonly currency: string
  readonly livemode: boolean
  readonly outcome: "succeeded" | "refused"
  readonly reason: string | null
  readonly createdAt: DateTime.Utc
}

/** The ledger could not be read or written (its database is down): to Fils, the processor is unavailable. */
export class LedgerUnavailable {
  readonly _tag = "LedgerUnavailable"
  constructor(readonly message: string) {}
}

type Op<A> = Effect.Effect<A, LedgerUnavailable>

export interface SimulatedLedgerShape {
  /**
   * Runs `effect` atomically against every other call holding one of `keys` (a reference, a charge id): the
   * read-then-write of an idempotent call cannot interleave with another under the same key.
   */
  readonly atomically: <A, E>(keys: ReadonlyArray<string>, effect: Effect.Effect<A, E>) => Effect.Effect<A, E | LedgerUnavailable>
  readonly chargeByReference: (reference: string) => Op<Option.Option<SimCharge>>
  readonly chargeById: (chargeId: string) => Op<Option.Option<SimCharge>>
  readonly refundByReference: (reference: string) => Op<Option.Option<SimRefund>>
  readonly refundsOf: (chargeId: string) => Op<ReadonlyArray<SimRefund>>
  /**
   * Stores `charge` unless its reference is taken, in one step: returns what is stored under the reference now (the
   * given charge, or the one already there). The reference's uniqueness is what makes a charge idempotent.
   */
  readonly putCharge: (charge: SimCharge) => Op<SimCharge>
  readonly insertRefund: (refund: SimRefund) => Op<void>
  /** Charges (voids left out) and refunds created at or after `since`, oldest first. */
  readonly since: (since: DateTime.Utc) => Op<{
    readonly charges: ReadonlyArray<SimCharge>
    readonly refunds: ReadonlyArray<SimRefund>
  }>
}

export class SimulatedLedger extends Context.Tag("fils/SimulatedLedger")<SimulatedLedger, SimulatedLedgerShape>() {}

const byCreation = <T extends { readonly createdAt: DateTime.Utc }>(a: T, b: T) =>
  a.createdAt.epochMillis - b.createdAt.epochMillis

/** The ledger in this process's memory: one call at a time. */
export const makeSimulatedLedgerMemory: Effect.Effect<SimulatedLedgerShape> = Effect.gen(function*() {
  const charges = new Map<string, SimCharge>()
  const chargesById = new Map<string, SimCharge>()
  const refunds = new Map<string, SimRefund>()
  const lock = yield* Effect.makeSemaphore(1)
  return {
    atomically: (_keys, effect) => lock.withPermits(1)(effect),
    chargeByReference: (reference) => Effect.sync(() => Option.fromNullable(charges.get(reference))),
    chargeById: (chargeId) => Effect.sync(() => Option.fromNullable(chargesById.get(chargeId))),
    refundByReference: (reference) => Effect.sync(() => Option.fromNullable(refunds.get(reference))),
    refundsOf: (chargeId) => Effect.sync(() => [...refunds.values()].filter((r) => r.chargeId === chargeId)),
    putCharge: (charge) =>
      Effect.sync(() => {
        const existing = charges.get(charge.reference)
        if (existing !== undefined) return existing
        charges.set(charge.reference, charge)
        chargesById.set(charge.chargeId, charge)
        return charge
      }),
    insertRefund: (refund) => Effect.sync(() => void refunds.set(refund.reference, refund)),
    since: (since) =>
      Effect.sync(() => ({
        charges: [...charges.values()]
          .filter((c) => c.outcome !== "void" && c.createdAt.epochMillis >= since.epochMillis)
          .sort(byCreation),
        refunds: [...refunds.values()].filter((r) => r.createdAt.epochMillis >= since.epochMillis).sort(byCreation)
      }))
  }
})
