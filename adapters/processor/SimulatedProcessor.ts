/**
 * The simulated processor with the test cards of decisions.md §4. It keeps no state: a charge id and a saved-card
 * token carry what the simulation needs (how the charge settles, and when), so settlements survive restarts and
 * several servers agree. Time comes from Effect's Clock, so TestClock drives asynchronous settlement.
 */
import { Clock, Config, Duration, Effect, Layer, Random } from "effect"
import type { ChargeOutcome } from "../../src/domain/Payment.js"
import { type CardDetails, type ChargeSettlement, PaymentProcessor } from "../../src/ports/PaymentProcessor.js"

/** How long a `processing` test charge takes to settle. */
export const settleAfterMillis = 2_000

type Behaviour = "succeed" | "decline_later" | "settle_succeed" | "settle_fail" | "card_declined" |
  "insufficient_funds" | "expired_card" | "processing_error"

/** The test cards, by number. Any other Luhn-valid number succeeds. */
export const testCards: Readonly<Record<string, Behaviour>> = {
  "4242424242424242": "succeed",
  "5555555555554444": "succeed",
  "4000000000000002": "card_declined",
  "4000000000009995": "insufficient_funds",
  "4000000000000069": "expired_card",
  "4000000000000341": "decline_later",
  "4000000000000259": "settle_succeed",
  "4000000000000267": "settle_fail",
  "4000000000000119": "processing_error"
}

export const brandOf = (digits: string): string => {
  if (/^4/.test(digits)) return "visa"
  if (/^(5[1-5]|2(2[2-9]|[3-6][0-9]|7[01]|720))/.test(digits)) return "mastercard"
  if (/^3[47]/.test(digits)) return "amex"
  return "unknown"
}

const randomHex = Effect.map(Random.nextIntBetween(0, 0x100000000), (n) => n.toString(16).padStart(8, "0"))

const immediate = (behaviour: Behaviour): ChargeOutcome | undefined => {
  switch (behaviour) {
    case "succeed":
    case "decline_later":
      return { _tag: "Succeeded" }
    case "card_declined":
    case "insufficient_funds":
    case "expired_card":
    case "processing_error":
      return { _tag: "Failed", code: behaviour }
    default:
      return undefined
  }
}

/** A charge id: `ch_sim_<s|f>_<settle-at millis>_<random>` for pending ones, `ch_sim_done_<random>` otherwise. */
const pendingChargeId = (succeeds: boolean, settleAt: number) =>
  Effect.map(randomHex, (r) => `ch_sim_${succeeds ? "s" : "f"}_${settleAt}_${r}`)

export const makeSimulatedProcessor = (options: { readonly live: boolean; readonly delay?: Duration.Duration }) => {
  // A processor's latency, for fault tests (FILS_SIMULATED_DELAY): each charge answers that much later.
  const slow = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    options.delay === undefined || Duration.toMillis(options.delay) <= 0 ? effect : Effect.delay(effect, options.delay)
  return PaymentProcessor.of({
    supportsLive: options.live,
    chargeCard: (_request, card: CardDetails) =>
      slow(Effect.gen(function*() {
        const digits = card.number.replace(/[\s-]/g, "")
        const behaviour = testCards[digits] ?? "succeed"
        const saved = {
          brand: brandOf(digits),
          last4: digits.slice(-4),
          exp_month: card.expMonth,
          exp_year: card.expYear,
          // Only a card that renewals should decline says so in its token; all others renew.
          token: `tok_sim_${behaviour === "decline_later" ? "decline" : "ok"}_${yield* randomHex}${yield* randomHex}`
        }
        const outcome = immediate(behaviour)
        if (outcome !== undefined) {
          return { chargeId: `ch_sim_done_${yield* randomHex}`, outcome, card: saved }
        }
        const now = yield* Clock.currentTimeMillis
        return {
          chargeId: yield* pendingChargeId(behaviour === "settle_succeed", now + settleAfterMillis),
          outcome: { _tag: "Processing" as const },
          card: saved
        }
      })),
    chargeToken: (_request, token) =>
      slow(Effect.gen(function*() {
        const outcome: ChargeOutcome = token.startsWith("tok_sim_decline_")
          ? { _tag: "Failed", code: "card_declined" }
          : token.startsWith("tok_sim_ok_")
          ? { _tag: "Succeeded" }
          : { _tag: "Failed", code: "invalid_token" }
        return { chargeId: `ch_sim_done_${yield* randomHex}`, outcome, card: null }
      })),
    settlements: (chargeIds) =>
      Effect.map(Clock.currentTimeMillis, (now) =>
        chargeIds.map((chargeId): ChargeSettlement => {
          const match = /^ch_sim_([sf])_(\d+)_/.exec(chargeId)
          if (match === null) return { chargeId, outcome: { _tag: "Processing" } }
          if (Number(match[2]) > now) return { chargeId, outcome: { _tag: "Processing" } }
          return {
            chargeId,
            outcome: match[1] === "s" ? { _tag: "Succeeded" } : { _tag: "Failed", code: "card_declined" }
          }
        }))
  })
}

/**
 * Test mode always; live mode only with `FILS_SIMULATED_LIVE=true` (staging). `FILS_SIMULATED_DELAY` (a duration,
 * default none) makes every charge answer that much later, to test a slow processor.
 */
export const SimulatedProcessor = Layer.effect(
  PaymentProcessor,
  Effect.map(
    Config.all({
      live: Config.boolean("FILS_SIMULATED_LIVE").pipe(Config.withDefault(false)),
      delay: Config.duration("FILS_SIMULATED_DELAY").pipe(Config.withDefault(Duration.zero))
    }),
    makeSimulatedProcessor
  )
)
