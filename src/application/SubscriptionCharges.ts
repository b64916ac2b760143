/**
 * On-demand charges of a subscription's saved card (`POST /subscriptions/{id}/charge`, `subscription_charge`), beside
 * its schedule: reserve → charge → record, the way renewals are (`callProcessor`, `ChargeOutcomes.record`), so a lost
 * answer is looked up and a crash leaves a `processing` payment for the lookup pass, never a second charge under a new
 * reference. The subscription's period and status do not change.
 *
 * With an Idempotency-Key the key is also claimed in the reserving transaction, in a scope of its own, with the
 * payment's id as its answer (as a plan change's and a refund's are): a retry after a crash anywhere, even between
 * the processor's answer and its record, meets that payment and carries it on (a payment still `processing` is asked
 * of the processor again under its own reference and card, which moves no money twice), never reserving another.
 */
import { DateTime, Effect, Option } from "effect"
import * as Account from "../domain/Account.js"
import { notFound, type StoreUnavailable } from "../domain/Errors.js"
import { type PaymentId, prefixes, type SubscriptionId } from "../domain/Ids.js"
import type * as Payment from "../domain/Payment.js"
import { canonicalJson } from "../domain/PlanChange.js"
import * as Subscription from "../domain/Subscription.js"
import { PaymentProcessor } from "../ports/PaymentProcessor.js"
import { Signer } from "../ports/Signer.js"
import { Transactions } from "../ports/Transactions.js"
import { AccountRepository } from "../ports/repositories/AccountRepository.js"
import { IdempotencyRepository } from "../ports/repositories/IdempotencyRepository.js"
import { PaymentRepository } from "../ports/repositories/PaymentRepository.js"
import { ProductRepository } from "../ports/repositories/ProductRepository.js"
import { SubscriptionRepository } from "../ports/repositories/SubscriptionRepository.js"
import { type ChargeReport, ChargeOutcomes, lookedUpCharge } from "./ChargeOutcomes.js"
import { ClockTime } from "./ClockTime.js"
import { newId } from "./Ids.js"
import { callProcessor, reserveThenCall } from "./ProcessorCall.js"
import * as WorkKeys from "./WorkKeys.js"

/** The charge's payment as it stands after, and whether it was made by an earlier request under the same key. */
export interface ChargeMade {
  readonly payment: Payment.Payment
  readonly replayed: boolean
}

export class SubscriptionCharges extends Effect.Service<SubscriptionCharges>()("fils/SubscriptionCharges", {
  effect: Effect.gen(function*() {
    const accountRepo = yield* AccountRepository
    const idempotencyRepo = yield* IdempotencyRepository
    const paymentRepo = yield* PaymentRepository
    const productRepo = yield* ProductRepository
    const subscriptionRepo = yield* SubscriptionRepository
    const transactions = yield* Transactions
    const processor = yield* PaymentProcessor
    const outcomes = yield* ChargeOutcomes
    const signer = yield* Signer
    const clockTime = yield* ClockTime

    /**
     * Reserves the charge: a `processing` payment on the subscription's saved card, the subscription locked so that
     * a cancellation cannot slip in between the check and the reservation. Under a key already used, that request's
     * payment instead.
     */
    const reserve = (
      scope: Account.Scope,
      id: SubscriptionId,
      input: Subscription.SubscriptionCharge,
      key: string | undefined,
      alongside: Effect.Effect<void, StoreUnavailable> | undefined
    ) =>
      transactions.transact(Effect.gen(function*() {
        const paymentId = yield* newId<PaymentId>(prefixes.payment)
        const earlier = key === undefined ? undefined : yield* WorkKeys.claimAnswered(
          idempotencyRepo,
          yield* WorkKeys.workKey(signer, scope, "subscription_charges", key, `charge ${id} ${canonicalJson(input)}`),
          paymentId
        )
        if (earlier !== undefined) return { _tag: "Replayed", paymentId: earlier } as const
        const found = Option.filter(yield* subscriptionRepo.lock(id), (s) => Account.inScope(s, scope))
        if (Option.isNone(found)) return yield* notFound("subscription", id)
        const subscription = yield* Subscription.ensureChargeable(found.value)
        const merchant = yield* accountRepo.get(scope.accountId)
        const vat = Option.match(merchant, { onNone: () => null, onSome: Account.vatPricing })
        const product = vat === null ? Option.none() : yield* productRepo.get(scope, subscription.product_id)
        const taxation = Option.getOrElse(product, () => ({
          // The product is always there (a subscription refers to it); a standard-rated service otherwise.
          tax_category: "S", tax_exemption_code: null, item_type: "S", item_code: null
        } as const))
        const taxLines = yield* Subscription.chargeTaxLines(subscription, input, taxation, vat)
        const payment = Subscription.chargePayment(subscription, input, taxLines, paymentId, yield* DateTime.now)
        yield* paymentRepo.insert(payment)
        if (alongside !== undefined) yield* alongside
        return { _tag: "Reserved", payment, token: subscription.card_token } as const
      }))

    /**
     * Charges `input.product_price` to the subscription's saved card now. Refused (nothing changed) for a
     * subscription that is cancelled or not in the scope. Its outcome is the payment's: `succeeded`, `failed` (a
     * decline, with `payment.failed`) or still `processing` while the processor's answer is unknown. On the time the
     * subscription lives on (a test clock's, if it is on one: `ClockTime`; live mode never is). `alongside` is written
     * in the reserving transaction, only by the request that reserves (the dashboard's audit entry).
     */
    const charge = Effect.fn("SubscriptionCharges.charge")(function*(
      scope: Account.Scope,
      id: SubscriptionId,
      input: Subscription.SubscriptionCharge,
      idempotencyKey?: string,
      alongside?: Effect.Effect<void, StoreUnavailable>
    ) {
      const owner = scope.livemode ? Option.none() : yield* subscriptionRepo.get(scope, id)
      const work = reserveThenCall(reserve(scope, id, input, idempotencyKey, alongside), (reserved) =>
        Effect.gen(function*() {
          if (reserved._tag === "Reserved") {
            return { payment: yield* chargeAndRecord(reserved.payment, reserved.token), replayed: false } satisfies ChargeMade
          }
          const payment = Option.getOrThrow(yield* paymentRepo.get(scope, reserved.paymentId))
          // Its outcome still unknown (its request died, or is still at the processor): asked again under its reference.
          const card = payment.card
          return {
            payment: payment.status === "processing" && card !== null ? yield* chargeAndRecord(payment, card.token) : payment,
            replayed: true
          } satisfies ChargeMade
        }))
      return yield* Option.match(owner, {
        onNone: () => work,
        onSome: (s) => clockTime.onTimeOf({ livemode: s.livemode, customer_id: s.customer.customer_id })(work)
      })
    })

    /**
     * Charges a reserved payment on `token` (no transaction held), under the payment's id as the processor's
     * idempotency key, and records the outcome; a lost answer is looked up, and still unknown the payment stays
     * `processing` for the lookup pass.
     */
    const chargeAndRecord = (payment: Payment.Payment, token: string) =>
      callProcessor(Effect.map(
        processor.chargeToken({
          reference: payment.payment_id,
          amount: payment.total_amount,
          currency: payment.currency,
          livemode: payment.livemode
        }, token),
        (r): ChargeReport => ({ outcome: r.outcome, chargeId: r.chargeId, card: null })
      ))({
        lookup: Effect.map(processor.lookup(payment.payment_id), lookedUpCharge),
        record: (report) => outcomes.recordGathered(payment.payment_id, report),
        unknown: Effect.succeed(payment),
        what: "An on-demand charge",
        ids: { payment_id: payment.payment_id, subscription_id: payment.subscription_id ?? "" }
      })

    return { charge } as const
  }),
  dependencies: [ChargeOutcomes.Default, ClockTime.Default]
}) {}
