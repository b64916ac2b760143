/**
 * The PaymentProcessor port: charge a card (first payment) or a saved card token (renewals), and learn how
 * asynchronous charges settled. The card number passes through here and nowhere else: what comes back is only the
 * card's brand, last four digits, expiry and an opaque token.
 */
import type { Effect } from "effect"
import { Context } from "effect"
import type { CardOnFile, ChargeOutcome } from "../domain/Payment.js"

export interface CardDetails {
  readonly number: string
  readonly expMonth: number
  readonly expYear: number
  readonly cvc: string
}

export interface ChargeRequest {
  /** Our payment id: the processor's idempotency key, so a retried call never charges twice. */
  readonly reference: string
  readonly amount: number
  readonly currency: string
  readonly livemode: boolean
}

export interface ChargeResult {
  /** The processor's id of this charge; settlements of `processing` charges are asked for by it. */
  readonly chargeId: string
  readonly outcome: ChargeOutcome
  /** Present when the processor accepted the card, whatever the outcome. */
  readonly card: CardOnFile | null
}

export interface ChargeSettlement {
  readonly chargeId: string
  /** Still `Processing` when the charge has not settled yet. */
  readonly outcome: ChargeOutcome
}

/**
 * The processor could not be reached or answered nonsense: the charge's fate is unknown (it may have been taken). A
 * renewal's charge then stays `processing` and is asked again under the same reference; a checkout's fails, since
 * its card number is not kept. Return it for timeouts and dropped connections too, never a decline.
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
  /** Where `processing` charges stand now. */
  readonly settlements: (chargeIds: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<ChargeSettlement>, ProcessorUnavailable>
}

export class PaymentProcessor extends Context.Tag("fils/PaymentProcessor")<PaymentProcessor, PaymentProcessorShape>() {}
