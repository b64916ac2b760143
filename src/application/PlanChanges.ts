/**
 * Plan changes (docs/subscriptions.md, "Changing the plan"): preview, change, and cancel a scheduled change. The price
 * is `PlanChange.price`'s, pure, for preview and change alike; a preview's quote pins the instant it priced at, so the
 * change made with it charges exactly what the preview showed, or is refused when anything it priced has changed.
 *
 * An immediate change with a charge goes reserve → charge → record, as a renewal does: one transaction locks the
 * subscription, checks and prices the change, and records it as waiting for its `processing` payment (so a second
 * change, a renewal or a cancellation waits for the outcome); the saved card is charged after the commit under the
 * payment's id (`Renewals.chargeOne`), and `ChargeOutcomes.record` makes the change from the charge's outcome, whoever
 * learns it (this request, or the lookup pass after a crash or a lost answer). With an `Idempotency-Key` the key is
 * claimed in the reserving transaction with the payment's id as its answer, so a retry after any crash carries on
 * that payment instead of reserving another: never two charges for one request.
 */
import { DateTime, Effect, Option, Schema } from "effect"
import type { Scope } from "../domain/Account.js"
import * as Account from "../domain/Account.js"
import * as Discount from "../domain/Discount.js"
import { ChargeDeclined, InvalidRequest, notFound } from "../domain/Errors.js"
import * as Idempotency from "../domain/Idempotency.js"
import { type PaymentId, prefixes, type ProductId as ProductIdType, ProductId, parseId, type SubscriptionId } from "../domain/Ids.js"
import type * as Pagination from "../domain/Pagination.js"
import * as Payment from "../domain/Payment.js"
import * as PlanChange from "../domain/PlanChange.js"
import * as Subscription from "../domain/Subscription.js"
import { Signer } from "../ports/Signer.js"
import { Transactions } from "../ports/Transactions.js"
import { AccountRepository } from "../ports/repositories/AccountRepository.js"
import { DiscountRepository } from "../ports/repositories/DiscountRepository.js"
import { IdempotencyRepository } from "../ports/repositories/IdempotencyRepository.js"
import { PaymentRepository } from "../ports/repositories/PaymentRepository.js"
import { ProductRepository } from "../ports/repositories/ProductRepository.js"
import { SubscriptionRepository } from "../ports/repositories/SubscriptionRepository.js"
import { redeemableCode } from "./Discounts.js"
import { EventRecorder } from "./Events.js"
import { newId } from "./Ids.js"
import { Renewals } from "./Renewals.js"
import { saveTransition } from "./Subscriptions.js"

/** A preview: what the change would charge now, the subscription as it would be, and the quote to change at. */
export interface PlanChangePreview {
  readonly immediate_charge: typeof PlanChange.ImmediateCharge.Type
  readonly new_plan: Subscription.Subscription
  readonly quote_id: string
  /** How the change is made: its direction and the modes used (the request's, else the product's policy). Pages show them; the API does not. */
  readonly terms: {
    readonly direction: PlanChange.Direction
    readonly proration_billing_mode: PlanChange.ProrationBillingMode
    readonly effective_at: PlanChange.EffectiveAt
    readonly on_payment_failure: PlanChange.OnPaymentFailure
  }
}

/** A change made: the subscription after it, and the payment of its immediate charge (null when none). */
export interface PlanChangeResult {
  readonly subscription: Subscription.Subscription
  readonly payment: Payment.Payment | null
}

const encodeCharge = Schema.encodeSync(PlanChange.ImmediateCharge)
const encodeSubscription = Schema.encodeSync(Subscription.SubscriptionResource)
const parseProductId = parseId(ProductId)

/** The codes a change names, each once (compared as codes are) and at most `PlanChange.maxDiscountCodes`. */
const checkCodes = (codes: ReadonlyArray<string>) => {
  if (codes.length > PlanChange.maxDiscountCodes) {
    return Effect.fail(new InvalidRequest({ message: `discount_codes: at most ${PlanChange.maxDiscountCodes} codes a change` }))
  }
  const twice = codes.findIndex((c, i) => codes.findIndex((o) => Discount.codeKey(o) === Discount.codeKey(c)) !== i)
  return twice === -1
    ? Effect.void
    : Effect.fail(new InvalidRequest({ message: `discount_codes.${twice}: ${[...codes[twice]!].slice(0, 40).join("")} is named twice` }))
}

export class PlanChanges extends Effect.Service<PlanChanges>()("fils/PlanChanges", {
  effect: Effect.gen(function*() {
    const subscriptionRepo = yield* SubscriptionRepository
    const productRepo = yield* ProductRepository
    const paymentRepo = yield* PaymentRepository
    const accountRepo = yield* AccountRepository
    const discountRepo = yield* DiscountRepository
    const idempotencyRepo = yield* IdempotencyRepository
    const transactions = yield* Transactions
    const signer = yield* Signer
    const renewals = yield* Renewals
    const repos = { subscriptions: subscriptionRepo, recorder: yield* EventRecorder }

    const scoped = (scope: Scope, id: SubscriptionId) =>
      Effect.flatMap(subscriptionRepo.get(scope, id), Option.match({
        onNone: () => Effect.fail(notFound("subscription", id)),
        onSome: Effect.succeed
      }))

    /**
     * The discounts a change to `productId` keeps and redeems: the subscription's own kept when their discount (as it
     * is now) says `preserve_on_plan_change` and applies to the product; each code redeemable for it, as checkout
     * judges one (`redeemableCode`), locked when `locked` (the reserving transaction, which holds its use). None to
     * look up when the subscription has no discounts and the change names no codes.
     */
    const discountsFor = (scope: Scope, s: Subscription.Subscription, codes: ReadonlyArray<string>, productId: ProductIdType, locked: boolean) =>
      Effect.gen(function*() {
        if (codes.length === 0 && s.discounts.length === 0) return { change: undefined, redeemed: [] }
        const redeemed: Array<Discount.Discount> = []
        for (const code of codes) {
          const found = yield* redeemableCode(discountRepo, scope, code, [productId])
          if (!locked) {
            redeemed.push(found)
            continue
          }
          const current = yield* discountRepo.lock(scope, found.discount_id)
          if (Option.isNone(current)) return yield* new Discount.DiscountNotRedeemable({ discount_code: code, reason: "unknown" })
          redeemed.push(yield* Discount.redeemable(current.value, code, yield* DateTime.now, [productId]))
        }
        const own = yield* Effect.forEach(s.discounts, (d) => discountRepo.get(scope, d.discount_id))
        const change: PlanChange.PlanDiscounts = {
          keep_discounts: s.discounts
            .filter((_, i) => Discount.keptOnPlanChange(Option.getOrUndefined(own[i]!), productId))
            .map((d) => d.discount_id),
          new_discounts: redeemed.map(Discount.forPlanChange)
        }
        return { change, redeemed }
      })

    /**
     * What `s`'s current period was charged (`PlanChange.periodPaidBy`): the newest of its payments that paid a
     * period, a page at a time (on-demand charges may come between). 0 when none did: nothing paid, nothing credited.
     */
    const periodCharge = (scope: Scope, s: Subscription.Subscription) =>
      Effect.gen(function*() {
        let after: Pagination.Position | undefined = undefined
        for (;;) {
          const page: Pagination.Page<Payment.Payment> = yield* paymentRepo.list(scope, { subscription_id: s.subscription_id }, { limit: 10, after })
          for (const p of page.items) {
            const paid = PlanChange.periodPaidBy(p)
            if (paid !== undefined) return paid
          }
          const last = page.items.at(-1)
          if (!page.hasMore || last === undefined) return 0
          after = Payment.position(last)
        }
      })

    /**
     * Prices the change at `at`: the product the body names (in the scope, else 400), the merchant's VAT and the
     * discounts (`discountsFor`).
     */
    const priceAt = (scope: Scope, s: Subscription.Subscription, body: PlanChange.PlanChangePreviewRequest, at: DateTime.Utc, locked = false) =>
      Effect.gen(function*() {
        const codes = body.discount_codes ?? []
        yield* checkCodes(codes)
        const productId = parseProductId(body.product_id)
        const product = productId === undefined ? Option.none() : yield* productRepo.get(scope, productId)
        if (Option.isNone(product)) {
          return yield* new InvalidRequest({ message: `product_id: no product '${body.product_id}' in this account and mode` })
        }
        const account = yield* accountRepo.get(scope.accountId)
        const discounts = yield* discountsFor(scope, s, codes, product.value.product_id, locked)
        const priced = yield* PlanChange.price({
          subscription: s,
          product: product.value,
          quantity: body.quantity,
          request: body,
          at,
          vat: Option.match(account, { onNone: () => null, onSome: Account.vatPricing }),
          discounts: discounts.change,
          periodCharge: yield* periodCharge(scope, s)
        })
        return { ...priced, redeemed: discounts.redeemed }
      })

    /** The preview of a priced change, with its quote: the digest of what it shows, at the instant it priced at. */
    const previewOf = (s: Subscription.Subscription, body: PlanChange.PlanChangePreviewRequest, priced: PlanChange.Priced) =>
      Effect.gen(function*() {
        const immediate_charge = PlanChange.immediateCharge(s, priced)
        const new_plan = PlanChange.wouldBe(s, priced)
        const shown = { immediate_charge: encodeCharge(immediate_charge), new_plan: encodeSubscription(new_plan) }
        const digest = yield* signer.digest(PlanChange.quoteText(s.subscription_id, body, shown))
        const terms = {
          direction: priced.direction,
          proration_billing_mode: priced.mode,
          effective_at: priced.effectiveAt,
          on_payment_failure: priced.onPaymentFailure
        }
        return { immediate_charge, new_plan, quote_id: PlanChange.quoteId(priced.at, digest), terms } satisfies PlanChangePreview
      })

    const preview = Effect.fn("PlanChanges.preview")(function*(
      scope: Scope,
      id: SubscriptionId,
      body: PlanChange.PlanChangePreviewRequest
    ) {
      const s = yield* scoped(scope, id)
      return yield* previewOf(s, body, yield* priceAt(scope, s, body, yield* DateTime.now))
    })

    /**
     * Claims `key` for this change, in the reserving transaction, answered at once with the id the charge's payment
     * will have: the id answered earlier under it, if any (other parameters under one key are refused).
     */
    const claimKey = (scope: Scope, id: SubscriptionId, body: PlanChange.PlanChangeRequest, key: string, paymentId: PaymentId) =>
      Effect.gen(function*() {
        const invalid = Idempotency.validateKey(key)
        if (invalid) return yield* invalid
        const fingerprint = yield* signer.digest(`change-plan ${id} ${PlanChange.canonicalJson(body)}`)
        const now = yield* DateTime.now
        const claimed = yield* idempotencyRepo.claim({
          // A scope of their own: the API's record of the request's response is another.
          scope: `${Account.scopeKey(scope)}:plan_changes`,
          key,
          fingerprint,
          response: { status: 200, body: paymentId },
          lockedUntil: now,
          expiresAt: DateTime.addDuration(now, Idempotency.retention)
        }, now)
        if (claimed._tag === "Claimed") return undefined
        const outcome = Idempotency.decide(claimed.record, fingerprint)
        if (outcome._tag === "Refuse") return yield* outcome.error
        return outcome.response.body as PaymentId
      })

    /**
     * One transaction: the subscription locked, the change checked and priced (at the quote's instant when one is
     * given, which must still give the quote), then made at once (scheduled, or without a charge) or reserved with
     * its `processing` payment. Under a key already used, the payment reserved then.
     */
    const reserve = (scope: Scope, id: SubscriptionId, body: PlanChange.PlanChangeRequest, key: string | undefined) =>
      transactions.transact(Effect.gen(function*() {
        yield* scoped(scope, id)
        const s = Option.getOrThrow(yield* subscriptionRepo.lock(id))
        const paymentId = yield* newId<PaymentId>(prefixes.payment)
        if (key !== undefined) {
          const earlier = yield* claimKey(scope, id, body, key, paymentId)
          if (earlier !== undefined) return { _tag: "Earlier", paymentId: earlier } as const
        }
        const now = yield* DateTime.now
        const quote = body.quote_id === undefined ? undefined : yield* PlanChange.readQuote(body.quote_id, now)
        const priced = yield* priceAt(scope, s, body, quote?.at ?? now, true)
        if (quote !== undefined && (yield* previewOf(s, body, priced)).quote_id !== body.quote_id) {
          return yield* PlanChange.staleQuote()
        }
        // Each code redeemed: a use held for the charge (counted or given back by `ChargeOutcomes`), or counted now
        // when the change charges nothing now.
        const redeem = priced.charge === null ? Discount.redeem : Discount.hold
        yield* Effect.forEach(priced.redeemed, (d) => discountRepo.update(redeem(d)), { discard: true })
        if (priced.effectiveAt === "next_billing_date") {
          const scheduled = PlanChange.schedule(s, priced)
          yield* saveTransition(repos, scheduled)
          return { _tag: "Made", subscription: scheduled.next } as const
        }
        if (priced.charge === null) {
          const changed = PlanChange.changeWithoutCharge(s, priced)
          yield* saveTransition(repos, changed)
          return { _tag: "Made", subscription: changed.next } as const
        }
        const payment = PlanChange.changePayment(s, { ...priced, charge: priced.charge }, paymentId, body.metadata, now)
        yield* subscriptionRepo.update(PlanChange.awaitCharge(s, priced, paymentId))
        yield* paymentRepo.insert(payment)
        return { _tag: "Charge", payment } as const
      }))

    /**
     * `POST /subscriptions/{id}/change-plan`. A change made now with a charge answers once the charge has an outcome
     * (or, its answer lost, with the payment still `processing`: the change is made when it settles). A declined
     * charge with `prevent_change` is `ChargeDeclined` (the failed payment stays on record); with `apply_change` the
     * subscription is on the new plan and `on_hold`.
     */
    const change = Effect.fn("PlanChanges.change")(function*(
      scope: Scope,
      id: SubscriptionId,
      body: PlanChange.PlanChangeRequest,
      idempotencyKey?: string
    ) {
      const reserved = yield* reserve(scope, id, body, idempotencyKey)
      if (reserved._tag === "Made") return { subscription: reserved.subscription, payment: null } satisfies PlanChangeResult
      const reservedPayment = reserved._tag === "Charge"
        ? Option.some(reserved.payment)
        : yield* paymentRepo.get(scope, reserved.paymentId)
      // Under a key whose first request made its change without a charge: that change stands.
      if (Option.isNone(reservedPayment)) return { subscription: yield* scoped(scope, id), payment: null } satisfies PlanChangeResult
      const pending = reservedPayment.value
      // A retry meeting a charge still `processing` asks again under the same reference: the processor answers it
      // once, however many ask.
      if (pending.status === "processing" && pending.card !== null) yield* renewals.chargeOne(pending, pending.card.token)
      const payment = Option.getOrThrow(yield* paymentRepo.get(scope, pending.payment_id))
      if (payment.status === "failed" && (body.on_payment_failure ?? "apply_change") === "prevent_change") {
        const code = payment.failure_code ?? "card_declined"
        return yield* new ChargeDeclined({
          payment_id: payment.payment_id,
          decline_code: code,
          message: `The card was declined (${code}), so the plan was not changed; the failed charge is payment ${payment.payment_id}`
        })
      }
      return { subscription: yield* scoped(scope, id), payment } satisfies PlanChangeResult
    })

    /** `DELETE /subscriptions/{id}/change-plan/scheduled`: the subscription without its scheduled change. */
    const cancelScheduled = Effect.fn("PlanChanges.cancelScheduled")(function*(scope: Scope, id: SubscriptionId) {
      return yield* transactions.transact(Effect.gen(function*() {
        yield* scoped(scope, id)
        const s = Option.getOrThrow(yield* subscriptionRepo.lock(id))
        const next = yield* PlanChange.cancelScheduled(s)
        yield* subscriptionRepo.update(next)
        // The codes it redeemed were counted when it was scheduled: their uses are given back.
        for (const d of s.scheduled_change?.new_discounts ?? []) {
          const found = yield* discountRepo.lock(scope, d.discount_id)
          if (Option.isSome(found)) yield* discountRepo.update(Discount.giveBack(found.value))
        }
        return next
      }))
    })

    return { preview, change, cancelScheduled } as const
  }),
  dependencies: [EventRecorder.Default, Renewals.Default]
}) {}
