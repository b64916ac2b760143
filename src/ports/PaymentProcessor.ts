/**
 * The PaymentProcessor port: the one boundary where money moves. Charge a card (a checkout) or a saved card's token
 * (renewals), save a card without charging it (the customer portal's card update), refund a charge, look up what was
 * done under a reference, and list what moved, for reconciliation. The card number passes through here and nowhere
 * else, `Redacted` (with the CVC) until the adapter reads it for the processor's request: what comes back is only the
 * card's brand, last four digits, expiry and an opaque token.
 *
 * The contract an adapter keeps (`fils/testing`'s `processorContract` checks it against any adapter):
 * 1. Every call that can move money carries Fils' reference (a payment id `pay_…` for a charge, a refund id `ref_…`
 *    for a refund) as the processor's idempotency key: a second call with a reference already used moves no money
 *    and answers with what the first did.
 * 2. A call whose outcome the adapter does not know (a timeout, a dropped connection, a 5xx, an answer it cannot
 *    read) fails with `ProcessorUnavailable`, never with a decline or a refusal: the money may have moved.
 * 3. `lookup(reference)` tells what was done under a reference: the charge or refund and its outcome now, or `None`.
 *    `None` is final: nothing was taken under it and nothing can be any more (an adapter whose calls may still be in
 *    flight waits them out, or closes the reference, before it says so). Fils fails a payment, or releases a
 *    refund, only on that answer.
 * 4. `movements(since)` lists every charge and refund made at or after `since`, each once, with its outcome now:
 *    what `fils reconcile` compares with Fils' records.
 * 5. A refund never returns more than the charge took, over all its refunds.
 */
import type { DateTime, Effect, Option, Redacted } from "effect"
import { Context } from "effect"
import type { CardOnFile, ChargeOutcome } from "../domain/Payment.js"

/** A card as the customer typed it. The number and CVC are secrets: `Redacted.value` reads them, in the adapter only. */
export interface CardDetails {
  readonly number: Redacted.Redacted<string>
  readonly expMonth: number
  readonly expYear: number
  readonly cvc: Redacted.Redacted<string>
}

export interface ChargeRequest {
  /** Our payment id: the processor's idempotency key, so a retried call never charges twice. */
  readonly reference: string
  readonly amount: number
  readonly currency: string
  readonly livemode: boolean
}

export interface ChargeResult {
  /** The processor's id of this charge: what a refund names. */
  readonly chargeId: string
  /** `Processing` when the charge settles later (`lookup` tells when it has). */
  readonly outcome: ChargeOutcome
  /** Present when the processor accepted the card, whatever the outcome. */
  readonly card: CardOnFile | null
}

/** What became of saving a card: its brand, last four, expiry and token to charge later, or the issuer's refusal. */
export type SaveCardResult =
  | { readonly _tag: "Saved"; readonly card: CardOnFile }
  | { readonly _tag: "Refused"; readonly code: string }

/** What became of a refund: the money went back, or the processor refused it (nothing moved). */
export type RefundOutcome =
  | { readonly _tag: "Succeeded" }
  | { readonly _tag: "Refused"; readonly reason: string }

export interface RefundResult {
  /** The processor's id of this refund (present when refused too, when the processor recorded the refusal). */
  readonly refundId: string
  readonly outcome: RefundOutcome
}

/** A charge or a refund as the processor holds it, with its outcome now. */
export type Movement =
  | {
    readonly _tag: "Charge"
    readonly reference: string
    readonly chargeId: string
    readonly amount: number
    readonly currency: string
    readonly livemode: boolean
    readonly outcome: ChargeOutcome
    readonly card: CardOnFile | null
    readonly createdAt: DateTime.Utc
  }
  | {
    readonly _tag: "Refund"
    readonly reference: string
    readonly refundId: string
    readonly chargeId: string
    readonly amount: number
    readonly currency: string
    readonly livemode: boolean
    readonly outcome: RefundOutcome
    readonly createdAt: DateTime.Utc
  }

/**
 * The processor could not be reached or answered nonsense: the call's outcome is unknown (the money may have
 * moved). Return it for timeouts and dropped connections too, never a decline or a refusal. Fils keeps the payment
 * or refund pending and resolves it with `lookup`.
 */
export class ProcessorUnavailable {
  readonly _tag = "ProcessorUnavailable"
  constructor(readonly message: string) {}
}

export interface PaymentProcessorShape {
  /** Whether this processor takes live-mode charges (the simulated one only when the operator says so). */
  readonly supportsLive: boolean
  readonly chargeCard: (request: ChargeRequest, card: CardDetails) => Effect.Effect<ChargeResult, ProcessorUnavailable>
  readonly chargeToken: (request: ChargeRequest, token: string) => Effect.Effect<ChargeResult, ProcessorUnavailable>
  /**
   * Saves a card for later charges without charging it (the processor verifies it with the issuer): a token for
   * `chargeToken`, or the refusal. It moves no money, so it carries no reference; a lost answer is retried by the
   * customer and at worst leaves a token unused.
   */
  readonly saveCard: (card: CardDetails, options: { readonly livemode: boolean }) => Effect.Effect<SaveCardResult, ProcessorUnavailable>
  /** Returns `amount` of the charge `chargeId`, under `reference` (our refund id) as its idempotency key. */
  readonly refund: (
    chargeId: string,
    amount: number,
    reference: string
  ) => Effect.Effect<RefundResult, ProcessorUnavailable>
  /** What was done under `reference`, as it stands now; `None` when nothing was, nor can be any more. */
  readonly lookup: (reference: string) => Effect.Effect<Option.Option<Movement>, ProcessorUnavailable>
  /** Every charge and refund made at or after `since`, oldest first. */
  readonly movements: (since: DateTime.Utc) => Effect.Effect<ReadonlyArray<Movement>, ProcessorUnavailable>
}

export class PaymentProcessor extends Context.Tag("fils/PaymentProcessor")<PaymentProcessor, PaymentProcessorShape>() {}
