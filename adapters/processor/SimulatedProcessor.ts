/**
 * The simulated processor with the test cards of docs/decisions.md §4 and docs/checkout.md: a processor in test mode that
 * keeps the port's whole contract (PaymentProcessor.ts), and can be made to show every fault a real one can: a
 * lost answer after the money moved, an outage before it did, a refused refund. What it did lives in its ledger
 * (memory, or its own tables in PostgreSQL), so lookups, refunds and reconciliation see the same processor from
 * every server. Time comes from Effect's Clock, so TestClock drives asynchronous settlement.
 */
import { Clock, Config, DateTime, Duration, Effect, Layer, Option, Random, Redacted } from "effect"
import type { CardOnFile, ChargeOutcome } from "../../src/domain/Payment.js"
import {
  type CardDetails,
  type ChargeRequest,
  type ChargeResult,
  type Movement,
  PaymentProcessor,
  ProcessorUnavailable,
  type RefundResult,
  type SaveCardResult
} from "../../src/ports/PaymentProcessor.js"
import {
  type Behaviour,
  type LedgerUnavailable,
  makeSimulatedLedgerMemory,
  type SimCharge,
  SimulatedLedger,
  type SimulatedLedgerShape,
  type SimRefund
} from "./SimulatedLedger.js"
import { SimulatedLedgerSql } from "./SimulatedLedgerSql.js"

/** How long a `processing` test charge takes to settle. */
export const settleAfterMillis = 2_000

/** The simulated processor's test cards, by what they do: the one list (tests, the CLI and the docs use it). */
export const cards = {
  visa: "4242424242424242",
  mastercard: "5555555555554444",
  declined: "4000000000000002",
  insufficientFunds: "4000000000009995",
  expiredCard: "4000000000000069",
  /** Succeeds; its renewals are declined. */
  declineLater: "4000000000000341",
  /** Stays `processing`, then succeeds. */
  settleSucceeds: "4000000000000259",
  /** Stays `processing`, then fails. */
  settleFails: "4000000000000267",
  processingError: "4000000000000119",
  /** Taken, then the answer is lost: found by lookup. */
  answerLost: "4000000000001000",
  /** The processor cannot be reached and takes nothing. */
  unreachable: "4000000000001018",
  /** Charges succeed; every refund is refused. */
  refundsRefused: "4000000000005126",
  /** Charges succeed; the first refund's answer is lost after the money moved. */
  firstRefundAnswerLost: "4000000000001034"
} as const

/** The test cards, by number. Any other Luhn-valid number succeeds. */
export const testCards: Readonly<Record<string, Behaviour>> = {
  [cards.visa]: "succeed",
  [cards.mastercard]: "succeed",
  [cards.declined]: "card_declined",
  [cards.insufficientFunds]: "insufficient_funds",
  [cards.expiredCard]: "expired_card",
  [cards.declineLater]: "decline_later",
  [cards.settleSucceeds]: "settle_succeed",
  [cards.settleFails]: "settle_fail",
  [cards.processingError]: "processing_error",
  [cards.answerLost]: "answer_lost",
  [cards.unreachable]: "unreachable",
  [cards.refundsRefused]: "refunds_refused",
  [cards.firstRefundAnswerLost]: "first_refund_answer_lost"
}

export const brandOf = (digits: string): string => {
  if (/^4/.test(digits)) return "visa"
  if (/^(5[1-5]|2(2[2-9]|[3-6][0-9]|7[01]|720))/.test(digits)) return "mastercard"
  if (/^3[47]/.test(digits)) return "amex"
  return "unknown"
}

/**
 * What a saved card's token says about the renewals charged to it: `decline_later` cards decline, the fault cards
 * keep their fault, every other card renews.
 */
const tokenCodes: Partial<Record<Behaviour, string>> = {
  decline_later: "decline",
  insufficient_funds: "nofunds",
  answer_lost: "lost",
  unreachable: "down",
  refunds_refused: "norefund",
  first_refund_answer_lost: "refundlost"
}
const renewalBehaviour: Readonly<Record<string, Behaviour>> = {
  ok: "succeed",
  decline: "card_declined",
  nofunds: "insufficient_funds",
  lost: "answer_lost",
  down: "unreachable",
  norefund: "refunds_refused",
  refundlost: "first_refund_answer_lost"
}

const randomHex = Effect.map(Random.nextIntBetween(0, 0x100000000), (n) => n.toString(16).padStart(8, "0"))
const randomId = (prefix: string) =>
  Effect.map(Effect.all([randomHex, randomHex, randomHex]), (parts) => `${prefix}${parts.join("")}`)

const lost = new ProcessorUnavailable("the simulated processor's answer was lost (test card)")
const down = new ProcessorUnavailable("the simulated processor cannot be reached (test card)")

/** The charge's outcome as of `now`: a charge settling later is `Processing` until its time. */
const chargeOutcome = (charge: SimCharge, now: number): ChargeOutcome =>
  charge.settlesAt !== null && charge.settlesAt.epochMillis > now
    ? { _tag: "Processing" }
    : charge.outcome === "succeeded"
    ? { _tag: "Succeeded" }
    : { _tag: "Failed", code: charge.failureCode ?? "processing_error" }

const chargeMovement = (charge: SimCharge, now: number): Movement => ({
  _tag: "Charge",
  reference: charge.reference,
  chargeId: charge.chargeId,
  amount: charge.amount,
  currency: charge.currency,
  livemode: charge.livemode,
  outcome: chargeOutcome(charge, now),
  card: charge.card,
  createdAt: charge.createdAt
})

const refundMovement = (refund: SimRefund): Movement => ({
  _tag: "Refund",
  reference: refund.reference,
  refundId: refund.refundId,
  chargeId: refund.chargeId,
  amount: refund.amount,
  currency: refund.currency,
  livemode: refund.livemode,
  outcome: refund.outcome === "succeeded"
    ? { _tag: "Succeeded" }
    : { _tag: "Refused", reason: refund.reason ?? "refused" },
  createdAt: refund.createdAt
})

const refundResult = (refund: SimRefund): RefundResult => ({
  refundId: refund.refundId,
  outcome: refund.outcome === "succeeded"
    ? { _tag: "Succeeded" }
    : { _tag: "Refused", reason: refund.reason ?? "refused" }
})

/** What a charge does at once: its outcome, or how it settles later. */
const plan = (behaviour: Behaviour): { readonly outcome: "succeeded" | "failed"; readonly code: string | null; readonly later: boolean } => {
  switch (behaviour) {
    case "card_declined":
    case "insufficient_funds":
    case "expired_card":
    case "processing_error":
      return { outcome: "failed", code: behaviour, later: false }
    case "settle_succeed":
      return { outcome: "succeeded", code: null, later: true }
    case "settle_fail":
      return { outcome: "failed", code: "card_declined", later: true }
    default:
      return { outcome: "succeeded", code: null, later: false }
  }
}

export interface SimulatedOptions {
  readonly live: boolean
  /** A processor's latency, for fault tests: every call answers that much later. */
  readonly delay?: Duration.Duration | undefined
}

/** A test card's behaviour, and the card as a processor keeps it: a token that says how later charges behave. */
const onFile = (card: CardDetails) =>
  Effect.gen(function*() {
    // The one place the simulated processor reads the number: a real adapter reads it for its request alone.
    const digits = Redacted.value(card.number).replace(/[\s-]/g, "")
    const behaviour = testCards[digits] ?? "succeed"
    const saved: CardOnFile = {
      brand: brandOf(digits),
      last4: digits.slice(-4),
      exp_month: card.expMonth,
      exp_year: card.expYear,
      token: `tok_sim_${tokenCodes[behaviour] ?? "ok"}_${yield* randomHex}${yield* randomHex}`
    }
    return { behaviour, saved }
  })

/** The simulated processor over a ledger. */
export const makeSimulatedProcessor = (options: SimulatedOptions, ledger: SimulatedLedgerShape) => {
  const slow = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    options.delay === undefined || Duration.toMillis(options.delay) <= 0 ? effect : Effect.delay(effect, options.delay)
  // Its ledger unreadable: to Fils, the processor is down (nothing known about the call).
  const reachable = <A>(effect: Effect.Effect<A, LedgerUnavailable>) =>
    Effect.mapError(effect, (e) => new ProcessorUnavailable(e.message))

  /** The call's answer, or its fault (the answer lost after the ledger recorded what was done). */
  const answered = <A>(
    done: { readonly result: A | null; readonly fault: ProcessorUnavailable | null }
  ): Effect.Effect<A, ProcessorUnavailable> =>
    done.fault !== null ? Effect.fail(done.fault) : Effect.succeed(done.result as A)

  /**
   * A charge under `request.reference`: the one already made under it when there is one (idempotency), else a new
   * one behaving as `behaviour`. A card whose answer is lost records the charge, then fails as unavailable; an
   * unreachable one records nothing.
   */
  const charge = (request: ChargeRequest, behaviour: Behaviour, card: SimCharge["card"]) =>
    slow(Effect.flatMap(reachable(Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      /** The answer of a charge already stored under the reference (a retry, or a reference a lookup closed). */
      const replay = (existing: SimCharge) =>
        ({
          result: existing.outcome === "void"
            // Closed by a lookup that found nothing: nothing can be taken under this reference any more.
            ? { chargeId: existing.chargeId, outcome: { _tag: "Failed", code: "processing_error" }, card } as ChargeResult
            : { chargeId: existing.chargeId, outcome: chargeOutcome(existing, now), card: existing.card } as ChargeResult,
          fault: null
        }) as const
      if (behaviour === "unreachable") {
        const existing = yield* ledger.chargeByReference(request.reference)
        return Option.isSome(existing) ? replay(existing.value) : ({ result: null, fault: down } as const)
      }
      const { code, later, outcome } = plan(behaviour)
      const candidate: SimCharge = {
        reference: request.reference,
        chargeId: yield* randomId("ch_sim_"),
        amount: request.amount,
        currency: request.currency,
        livemode: request.livemode,
        behaviour,
        outcome,
        failureCode: code,
        settlesAt: later ? DateTime.unsafeMake(now + settleAfterMillis) : null,
        card,
        createdAt: DateTime.unsafeMake(now)
      }
      // One statement: the reference's uniqueness decides between this charge and one already made under it.
      const stored = yield* ledger.putCharge(candidate)
      if (stored.chargeId !== candidate.chargeId) return replay(stored)
      const result: ChargeResult = { chargeId: stored.chargeId, outcome: chargeOutcome(stored, now), card }
      return { result, fault: behaviour === "answer_lost" ? lost : null } as const
    })), answered))

  return PaymentProcessor.of({
    supportsLive: options.live,
    chargeCard: (request, card: CardDetails) =>
      Effect.flatMap(onFile(card), ({ behaviour, saved }) => charge(request, behaviour, saved)),
    saveCard: (card) =>
      slow(Effect.flatMap(onFile(card), ({ behaviour, saved }): Effect.Effect<SaveCardResult, ProcessorUnavailable> => {
        switch (behaviour) {
          // The issuer refuses these when asked to verify the card; every other card saves (`0341` and `9995`
          // decline later, when charged).
          case "card_declined":
          case "expired_card":
          case "processing_error":
            return Effect.succeed({ _tag: "Refused", code: behaviour })
          case "unreachable":
            return Effect.fail(down)
          case "answer_lost":
            return Effect.fail(lost)
          default:
            return Effect.succeed({ _tag: "Saved", card: saved })
        }
      })),
    chargeToken: (request, token) => {
      const code = /^tok_sim_([a-z]+)_[0-9a-f]+$/.exec(token)?.[1]
      const behaviour = code === undefined ? undefined : renewalBehaviour[code]
      return behaviour === undefined
        ? Effect.map(randomId("ch_sim_"), (chargeId): ChargeResult => ({
          chargeId,
          outcome: { _tag: "Failed", code: "invalid_token" },
          card: null
        }))
        : charge(request, behaviour, null)
    },
    refund: (chargeId, amount, reference) =>
      slow(Effect.flatMap(reachable(ledger.atomically([chargeId, reference], Effect.gen(function*() {
          const existing = yield* ledger.refundByReference(reference)
          if (Option.isSome(existing)) return { result: refundResult(existing.value), fault: null }
          const now = yield* Clock.currentTimeMillis
          const found = yield* ledger.chargeById(chargeId)
          const refuse = (reason: string) => ({ result: { refundId: "", outcome: { _tag: "Refused", reason } } as RefundResult, fault: null })
          if (Option.isNone(found)) return refuse(`no such charge: ${chargeId}`)
          const charged = found.value
          // A lookup found nothing under this reference and closed it: no refund can be made under it any more.
          if (Option.isSome(yield* ledger.chargeByReference(reference))) return refuse("this reference was closed")
          if (chargeOutcome(charged, now)._tag !== "Succeeded") return refuse("the charge did not succeed")
          const before = yield* ledger.refundsOf(chargeId)
          const returned = before.reduce((sum, r) => sum + (r.outcome === "succeeded" ? r.amount : 0), 0)
          if (!Number.isSafeInteger(amount) || amount <= 0 || returned + amount > charged.amount) {
            return refuse(`the amount exceeds what remains of the charge (${charged.amount - returned})`)
          }
          const refused = charged.behaviour === "refunds_refused"
          const stored: SimRefund = {
            reference,
            refundId: yield* randomId("re_sim_"),
            chargeId,
            amount,
            currency: charged.currency,
            livemode: charged.livemode,
            outcome: refused ? "refused" : "succeeded",
            reason: refused ? "the card's issuer refuses refunds (test card)" : null,
            createdAt: DateTime.unsafeMake(now)
          }
          yield* ledger.insertRefund(stored)
          const fault = charged.behaviour === "first_refund_answer_lost" && before.length === 0 ? lost : null
          return { result: refundResult(stored), fault }
        }))), answered)),
    lookup: (reference) =>
      reachable(ledger.atomically([reference], Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const refund = yield* ledger.refundByReference(reference)
        if (Option.isSome(refund)) return Option.some(refundMovement(refund.value))
        const charge = yield* ledger.chargeByReference(reference)
        if (Option.isSome(charge)) {
          return charge.value.outcome === "void" ? Option.none() : Option.some(chargeMovement(charge.value, now))
        }
        // Nothing under it: close the reference, so that a call still on its way cannot take money after this answer
        // (a charge that stored itself first is the answer instead).
        const closed = yield* ledger.putCharge({
          reference,
          chargeId: yield* randomId("ch_void_"),
          amount: 0,
          currency: "AED",
          livemode: false,
          behaviour: "unreachable",
          outcome: "void",
          failureCode: null,
          settlesAt: null,
          card: null,
          createdAt: DateTime.unsafeMake(now)
        })
        return closed.outcome === "void" ? Option.none<Movement>() : Option.some(chargeMovement(closed, now))
      }))),
    movements: (since) =>
      reachable(Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const { charges, refunds } = yield* ledger.since(since)
        return [...charges.map((c) => chargeMovement(c, now)), ...refunds.map(refundMovement)]
          .sort((a, b) => a.createdAt.epochMillis - b.createdAt.epochMillis)
      }))
  })
}

const options = Config.all({
  live: Config.boolean("FILS_SIMULATED_LIVE").pipe(Config.withDefault(false)),
  delay: Config.duration("FILS_SIMULATED_DELAY").pipe(Config.withDefault(Duration.zero))
})

/**
 * Test mode always; live mode only with `FILS_SIMULATED_LIVE=true` (staging). `FILS_SIMULATED_DELAY` (a duration,
 * default none) makes every call answer that much later, to test a slow processor. Its ledger comes from the
 * context (`SimulatedLedger`).
 */
export const SimulatedProcessorOnLedger = Layer.effect(
  PaymentProcessor,
  Effect.gen(function*() {
    return makeSimulatedProcessor(yield* options, yield* SimulatedLedger)
  })
)

/** The simulated processor with its ledger in this process's memory (an embedded engine, tests). */
export const SimulatedProcessor = SimulatedProcessorOnLedger.pipe(
  Layer.provide(Layer.effect(SimulatedLedger, makeSimulatedLedgerMemory))
)

/** The simulated processor with its ledger in PostgreSQL (`fils_sim` schema), on the context's `SqlClient`. */
export const SimulatedProcessorSql = SimulatedProcessorOnLedger.pipe(Layer.provide(SimulatedLedgerSql))

/** A simulated processor over a fresh memory ledger, for tests that build their own engine. */
export const makeSimulatedProcessorMemory = (options: SimulatedOptions) =>
  Effect.map(makeSimulatedLedgerMemory, (ledger) => makeSimulatedProcessor(options, ledger))
