/**
 * Plan changes (docs/subscriptions.md, "Changing the plan"): the price of moving a subscription to another recurring
 * product or quantity, and the transitions that move it. `price` is the one pricing rule, pure: the preview shows what
 * it says and the change charges what it says, at the same instant (the quote's), so the two never differ.
 *
 * The three immediate modes start a new period on the change date and charge the new plan's first period, less a
 * credit for the old plan: its unused time (`prorated_immediately`), its whole price (`difference_immediately`) or
 * nothing (`full_immediately`). The old plan's price is what its current period was charged (`periodCharge`), not its
 * list price: a discount or a free trial gave the customer that time for less, so its unused part is worth less. That credit joins the subscription's `credit_balance`; the charge spends what it can
 * of both (`Credit.lessCredit`) and what is left stays on the balance for the next renewals. So no amount is ever
 * negative: a downgrade charges nothing and leaves credit.
 *
 * Time is prorated to the second: the remaining whole seconds of the period over its length. A day would price a
 * change made in the period's last hour like one made at its start, and days have no single start (Dubai or UTC); a
 * second is as exact as the instants Fils keeps allow a merchant to reason about, and the quote pins the instant.
 */
import { DateTime, Either, Schema } from "effect"
import * as Calendar from "./Calendar.js"
import * as Credit from "./Credit.js"
import * as Discount from "./Discount.js"
import { InvalidRequest, InvalidState, NotFound } from "./Errors.js"
import type { DiscountId, PaymentId } from "./Ids.js"
import { Metadata } from "./Metadata.js"
import { Amount, formatAmount } from "./Money.js"
import * as Payment from "./Payment.js"
import { EffectiveAt, OnPaymentFailure, ProrationBillingMode } from "./PlanPolicy.js"
import type * as PlanPolicy from "./PlanPolicy.js"
import * as Product from "./Product.js"
import * as Subscription from "./Subscription.js"
import * as TaxDocument from "./TaxDocument.js"
import * as Vat from "./Vat.js"

export { EffectiveAt, OnPaymentFailure, ProrationBillingMode }

/** How many discount codes one change may redeem. */
export const maxDiscountCodes = 5

/** How many units a plan may have: as many as a cart line. */
export const maxQuantity = 1000

const requestFields = {
  // Any string: an unknown product is named in the error; documented with the id's shape.
  product_id: Schema.String.annotations({ jsonSchema: { type: "string", pattern: "^pdt_[0-9a-f]{32}$" } }),
  quantity: Schema.Int.pipe(Schema.between(1, maxQuantity)),
  proration_billing_mode: Schema.optional(ProrationBillingMode),
  effective_at: Schema.optional(EffectiveAt),
  on_payment_failure: Schema.optional(OnPaymentFailure),
  /** Codes to redeem on the new plan (docs/discounts.md, "Plan changes"): as many as `maxDiscountCodes`. */
  discount_codes: Schema.optional(Schema.Array(Schema.String)),
  /** The charge's metadata; the subscription's when left out. */
  metadata: Schema.optional(Metadata)
}

/** `POST /subscriptions/{id}/change-plan/preview`. */
export const PlanChangePreviewRequest = Schema.Struct(requestFields).annotations({ identifier: "SubscriptionChangePlanPreview" })
export type PlanChangePreviewRequest = typeof PlanChangePreviewRequest.Type

/** `POST /subscriptions/{id}/change-plan`: the preview's body, and the quote a preview gave. */
export const PlanChangeRequest = Schema.Struct({
  ...requestFields,
  quote_id: Schema.optional(Schema.String.annotations({
    jsonSchema: { type: "string", pattern: "^qt_[0-9]{13}_[0-9a-f]{32}$" },
    description: "The `quote_id` of a preview of this same change: the change charges exactly what that preview " +
      "showed, or is refused (409) when the subscription or the product changed since"
  }))
}).annotations({ identifier: "SubscriptionChangePlan" })
export type PlanChangeRequest = typeof PlanChangeRequest.Type

/** A line the change prices: the new plan's first period, or the old plan's part credited. */
export const LineItem = Schema.Struct({
  type: Schema.Literal("new_plan", "unused_time"),
  product_id: Schema.String,
  name: Schema.String,
  quantity: Schema.Int,
  /** The product's price of one unit, as the catalog lists it. */
  unit_price: Amount,
  /** The share of a period priced: 1 for the new plan's period, the unused share for the old plan's. */
  proration_factor: Schema.Number,
  /** Fils with VAT: charged for `new_plan`, credited for `unused_time`. */
  amount: Amount,
  /** The VAT in `amount`; null when the merchant does not charge VAT. */
  tax: Schema.NullOr(Amount)
}).annotations({ identifier: "PlanChangeLineItem" })
export type LineItem = typeof LineItem.Type

export const ImmediateCharge = Schema.Struct({
  /** When the change takes effect: the change date, or the next billing date of a scheduled change. */
  effective_at: Schema.DateTimeUtc,
  line_items: Schema.Array(LineItem),
  /** What the subscription's discounts (those kept and the codes redeemed) take off the new plan's line, now. */
  discounts: Schema.Array(Discount.AppliedDiscount),
  summary: Schema.Struct({
    /** Fils charged to the card now. */
    total_amount: Amount,
    /** The VAT in `total_amount` (null when the merchant does not charge VAT). */
    tax: Schema.NullOr(Amount),
    /** Credit (the balance and the old plan's part) spent on this charge. */
    credit_applied: Amount,
    /** The subscription's `credit_balance` after the change. */
    credit_remaining: Amount
  }).annotations({ identifier: "PlanChangeSummary" })
}).annotations({ identifier: "PlanChangeImmediateCharge" })

/** The preview: what the change would charge now, the subscription as it would be, and the quote to change at. */
export const PlanChangePreview = Schema.Struct({
  immediate_charge: ImmediateCharge,
  new_plan: Subscription.SubscriptionResource,
  quote_id: Schema.String
}).annotations({ identifier: "SubscriptionChangePlanPreviewResult" })

/** The change: the subscription after it, and the payment of its immediate charge (null when nothing is charged). */
export const PlanChangeResult = Schema.Struct({
  subscription: Subscription.SubscriptionResource,
  payment: Schema.NullOr(Payment.PaymentResource)
}).annotations({ identifier: "SubscriptionChangePlanResult" })

/** Why a change is upgrade or downgrade: the new plan costs more per day, or not. */
export type Direction = "upgrade" | "downgrade"

/** A period's nominal length in 1/4800 of a day (a Gregorian year is 365.2425 days): exact integers for comparing. */
const nominalLength: Record<Product.BillingInterval, bigint> = { day: 4800n, week: 33600n, month: 146097n, year: 1753164n }

/** Upgrade when `next` costs more per day than `current` (by their nominal period lengths). */
export const direction = (
  current: Pick<Subscription.Plan, "recurring_amount" | "billing_interval" | "interval_count">,
  next: Pick<Subscription.Plan, "recurring_amount" | "billing_interval" | "interval_count">
): Direction =>
  BigInt(next.recurring_amount) * nominalLength[current.billing_interval] * BigInt(current.interval_count) >
      BigInt(current.recurring_amount) * nominalLength[next.billing_interval] * BigInt(next.interval_count)
    ? "upgrade"
    : "downgrade"

/** The plan a subscription is on. */
export const planOf = (s: Subscription.Subscription): Subscription.Plan => ({
  product_id: s.product_id,
  name: s.name,
  quantity: s.quantity,
  billing_interval: s.billing_interval,
  interval_count: s.interval_count,
  recurring_amount: s.recurring_amount,
  tax_lines: s.tax_lines
})

/** `quantity` of a recurring `product` as a plan, priced with VAT per line when the merchant charges it. */
export const newPlan = (
  product: Product.Product,
  quantity: number,
  vat: { readonly pricesIncludeVat: boolean } | null
): Either.Either<Subscription.Plan, InvalidRequest> => {
  if (product.billing_interval === null) {
    return Either.left(new InvalidRequest({ message: `Product ${product.product_id} is one-time: a subscription can change only to a recurring product` }))
  }
  const taxLines = vat === null ? null : TaxDocument.price([Product.lineInput(product, quantity)], vat.pricesIncludeVat)
  const amount = taxLines === null ? product.price * quantity : TaxDocument.totals(taxLines.lines).gross
  if (!Number.isSafeInteger(amount)) return Either.left(new InvalidRequest({ message: "The new plan's price is too large" }))
  return Either.right({
    product_id: product.product_id,
    name: product.name,
    quantity,
    billing_interval: product.billing_interval,
    interval_count: product.interval_count ?? 1,
    recurring_amount: amount,
    tax_lines: taxLines
  })
}

/** What `price` says of a change. */
export interface Priced {
  /** The instant the change is priced at (and made at, when immediate). */
  readonly at: DateTime.Utc
  readonly mode: ProrationBillingMode
  readonly effectiveAt: EffectiveAt
  readonly onPaymentFailure: OnPaymentFailure
  readonly direction: Direction
  readonly plan: Subscription.Plan
  readonly lineItems: ReadonlyArray<LineItem>
  /** Credit the old plan gives (its unused time, or its price): fils with VAT. */
  readonly unusedCredit: number
  /** The charge now; null when nothing is charged now (`do_not_bill`, or scheduled). */
  readonly charge: (Credit.Charge & { readonly description: string; readonly discounts: ReadonlyArray<Discount.AppliedDiscount> }) | null
  /** What the change does to the subscription's discounts (`discountsAfter`). */
  readonly discounts: PlanDiscounts
  /** `credit_balance` once the change is made. */
  readonly creditRemaining: number
}

/**
 * What `payment` paid toward a period of its subscription, before credit: its amount less what was refunded of it,
 * plus the credit it spent (the customer's money too). Undefined when it paid no period: not paid, or not a
 * subscription's checkout, renewal or plan change (an on-demand charge). The newest that paid one paid the current
 * period: a plan can change only while that period is paid (`changeRefusal`), and each later charge starts a period.
 */
export const periodPaidBy = (payment: Payment.Payment): number | undefined =>
  (payment.status === "succeeded" || payment.status === "partially_refunded" || payment.status === "refunded") &&
    (payment.billing_reason === "subscription_create" || payment.billing_reason === "subscription_renewal" ||
      payment.billing_reason === "subscription_update")
    ? payment.total_amount - payment.refunded_amount + payment.credit_applied
    : undefined

/** The part of [start, end) left at `at`, in whole seconds, and the period's length in seconds. */
export const remaining = (start: DateTime.Utc, end: DateTime.Utc, at: DateTime.Utc) => {
  const length = Math.floor((DateTime.toEpochMillis(end) - DateTime.toEpochMillis(start)) / 1000)
  const left = Math.floor((DateTime.toEpochMillis(end) - DateTime.toEpochMillis(at)) / 1000)
  return { left: Math.max(0, Math.min(left, length)), length }
}

/** `amount × left / length`, to the nearest fils (halves up). */
const prorate = (amount: number, left: number, length: number): number =>
  length === 0 ? 0 : Number(Vat.roundHalfUp(BigInt(amount) * BigInt(left), BigInt(length)))

const factor = (left: number, length: number): number => (length === 0 ? 0 : Math.round((left / length) * 1e6) / 1e6)

const sameSchedule = (s: Subscription.Subscription, plan: Subscription.Plan) =>
  s.billing_interval === plan.billing_interval && s.interval_count === plan.interval_count

/**
 * Why `s` cannot change plan now, whatever it changes to: it is not `active`, a change waits for its charge, or one
 * is scheduled (one change at a time). Undefined when it can. `price` refuses with it first; pages ask it to decide
 * whether to offer a change at all.
 */
export const changeRefusal = (s: Subscription.Subscription): InvalidState | undefined => {
  const id = s.subscription_id
  if (s.status !== "active") {
    return new InvalidState({
      message: s.status === "cancelled"
        ? `Subscription ${id} is cancelled; its plan cannot change`
        : `Subscription ${id} is on_hold; its plan can change once its overdue renewal is paid`
    })
  }
  if (s.pending_change !== null) {
    return new InvalidState({
      message: `A plan change of subscription ${id} is waiting for its payment (${s.pending_change.payment_id}); ` +
        "try again once that payment has an outcome"
    })
  }
  if (s.scheduled_change !== null) {
    return new InvalidState({
      message: `Subscription ${id} already has a plan change scheduled for ${DateTime.formatIso(s.scheduled_change.effective_at)}; ` +
        "cancel it first (DELETE /subscriptions/{id}/change-plan/scheduled)"
    })
  }
  return undefined
}

/**
 * Prices moving `subscription` to `quantity` of `product` at `at`: refused when the subscription or the product does
 * not allow it, with the merchant's words and nothing changed. `request` names the modes; a mode it leaves out is the
 * new product's `plan_change_policy` for the change's direction, then the default (`immediately`, `apply_change`).
 */
export const price = (props: {
  readonly subscription: Subscription.Subscription
  readonly product: Product.Product
  readonly quantity: number
  readonly request: {
    readonly proration_billing_mode?: ProrationBillingMode | undefined
    readonly effective_at?: EffectiveAt | undefined
    readonly on_payment_failure?: OnPaymentFailure | undefined
  }
  readonly at: DateTime.Utc
  readonly vat: { readonly pricesIncludeVat: boolean } | null
  /** The subscription's discounts it keeps and the codes it redeems (found redeemable for the product); none: unchanged. */
  readonly discounts?: PlanDiscounts | undefined
  /**
   * Fils with VAT the current period was charged, before credit (credit is the customer's money) and after its
   * discounts (and 0 for a free trial): the old plan's price its credit is a share of (`periodCharge`).
   */
  readonly periodCharge: number
}): Either.Either<Priced, InvalidRequest | InvalidState> =>
  Either.gen(function*() {
    const { at, product, quantity, request, subscription: s } = props
    const id = s.subscription_id
    const refused = changeRefusal(s)
    if (refused !== undefined) return yield* Either.left(refused)
    if (product.status !== "active") {
      return yield* Either.left(new InvalidRequest({
        message: `Product ${product.product_id} is ${product.status}; a subscription can change only to an active product`
      }))
    }
    if (product.currency !== s.currency) {
      return yield* Either.left(new InvalidRequest({ message: `Product ${product.product_id} is priced in ${product.currency}, the subscription in ${s.currency}` }))
    }
    if (product.product_id === s.product_id && quantity === s.quantity) {
      return yield* Either.left(new InvalidRequest({
        message: `Subscription ${id} is already on product ${product.product_id} with quantity ${quantity}`
      }))
    }
    const plan = yield* newPlan(product, quantity, props.vat)
    const way = direction(s, plan)
    const policy: PlanPolicy.PlanChangeRule | undefined = product.plan_change_policy?.[way]
    const mode = request.proration_billing_mode ?? policy?.proration_billing_mode
    if (mode === undefined) {
      return yield* Either.left(new InvalidRequest({
        message: `proration_billing_mode is required: product ${product.product_id} has no plan_change_policy to take it from`
      }))
    }
    const effectiveAt = request.effective_at ?? policy?.effective_at ?? "immediately"
    const onPaymentFailure = request.on_payment_failure ?? "apply_change"
    const discounts = props.discounts ?? {}
    const base = { at, mode, effectiveAt, onPaymentFailure, direction: way, plan, discounts }
    if (effectiveAt === "next_billing_date") {
      if (s.cancel_at_period_end) {
        return yield* Either.left(new InvalidState({
          message: `Subscription ${id} ends at its period end (cancel_at_period_end), so a change scheduled for then would never apply`
        }))
      }
      return { ...base, lineItems: [], unusedCredit: 0, charge: null, creditRemaining: s.credit_balance }
    }
    const start = s.current_period_start
    const end = s.next_billing_date
    if (!DateTime.lessThan(at, end)) {
      return yield* Either.left(new InvalidState({
        message: `Subscription ${id}'s renewal is due; change its plan once the renewal has been charged`
      }))
    }
    // At the instant the period starts (a change right after subscribing, on a frozen test clock) all of it is unused.
    if (DateTime.lessThan(at, start)) {
      return yield* Either.left(new InvalidState({
        message: `Subscription ${id}'s current period starts after the change date; preview the change again`
      }))
    }
    if (mode === "do_not_bill") {
      return { ...base, lineItems: [], unusedCredit: 0, charge: null, creditRemaining: s.credit_balance }
    }
    const { left, length } = remaining(start, end, at)
    // Never more than the period's list price, should a charge have asked more (credit returns money, never adds it).
    const paid = Math.max(0, Math.min(props.periodCharge, s.recurring_amount))
    const unusedCredit = mode === "prorated_immediately"
      ? prorate(paid, left, length)
      : mode === "difference_immediately"
      ? paid
      : 0
    const pool = s.credit_balance + unusedCredit
    const oldLine = s.tax_lines?.lines[0]
    const currency = s.currency
    // The new plan's first period is a period of the subscription: its discounts come off as a renewal's would, then
    // the credit.
    const discounted = Subscription.lessDiscounts(plan, discountsAfter(s, discounts))
    const charge = Credit.lessCredit({
      amount: discounted.amount,
      taxLines: discounted.taxLines,
      credit: pool,
      note: (applied) => {
        const fromOld = Math.min(unusedCredit, applied)
        return `less ${formatAmount(applied, currency)} credit` + (fromOld > 0
          ? `, ${formatAmount(fromOld, currency)} of it for ${mode === "difference_immediately" ? "the price" : "the unused time"} of ${s.name}`
          : "")
      }
    })
    const newLine: LineItem = {
      type: "new_plan",
      product_id: plan.product_id,
      name: plan.name,
      quantity,
      unit_price: product.price,
      proration_factor: 1,
      amount: plan.recurring_amount,
      tax: plan.tax_lines === null ? null : TaxDocument.totals(plan.tax_lines.lines).vat
    }
    const oldItem: ReadonlyArray<LineItem> = mode === "full_immediately" ? [] : [{
      type: "unused_time",
      product_id: s.product_id,
      name: s.name,
      quantity: s.quantity,
      unit_price: oldLine?.unit_amount ?? Math.floor(s.recurring_amount / s.quantity),
      proration_factor: mode === "prorated_immediately" ? factor(left, length) : 1,
      amount: unusedCredit,
      // The VAT inside the credited amount, at the old plan's category.
      tax: props.vat === null
        ? null
        : Vat.line({ unitAmount: unusedCredit, quantity: 1, category: oldLine?.category ?? "S", pricesIncludeVat: true }).vat
    }]
    return {
      ...base,
      lineItems: [newLine, ...oldItem],
      unusedCredit,
      charge: {
        ...charge,
        discounts: discounted.discounts,
        description: `${describe(plan)} (plan change from ${describe(planOf(s))})`
      },
      creditRemaining: pool - charge.creditApplied
    }
  })

const describe = (plan: Pick<Subscription.Plan, "name" | "quantity">) =>
  plan.quantity > 1 ? `${plan.name} × ${plan.quantity}` : plan.name

// Transitions --------------------------------------------------------------------------------------------------------

const planFields = (plan: Subscription.Plan) => ({
  product_id: plan.product_id,
  name: plan.name,
  quantity: plan.quantity,
  billing_interval: plan.billing_interval,
  interval_count: plan.interval_count,
  recurring_amount: plan.recurring_amount,
  tax_lines: plan.tax_lines
})

const changed = (s: Subscription.Subscription) => Subscription.SubscriptionEvent.SubscriptionPlanChanged({ subscription_id: s.subscription_id })

/** A change that starts the new plan's period at `at` during a trial ends the trial there. */
const endTrial = (s: Subscription.Subscription, at: DateTime.Utc) => (Subscription.inTrial(s) ? { trial_ends_at: at } : {})

/** On `plan` from `at`, a new period started there (the period after the current one), paid. */
const restarted = (s: Subscription.Subscription, plan: Subscription.Plan, at: DateTime.Utc): Subscription.Subscription => ({
  ...s,
  ...planFields(plan),
  ...endTrial(s, at),
  anchor: at,
  anchor_period: s.period + 1,
  period: s.period + 1,
  current_period_start: at,
  next_billing_date: Calendar.periodStart(at, plan.billing_interval, plan.interval_count, 1),
  scheduled_change: null,
  pending_change: null
})

/** What a change does to a subscription's discounts: those it keeps, by id (absent: all), and the codes it redeems. */
export interface PlanDiscounts {
  readonly keep_discounts?: ReadonlyArray<DiscountId> | undefined
  readonly new_discounts?: ReadonlyArray<Discount.SubscriptionDiscount> | undefined
}

/**
 * The subscription's discounts once the plan changes: those kept (`Discount.keptOnPlanChange`, as they are then, with
 * the cycles they have left), then the codes redeemed (one redeemed again replaces its old entry).
 */
export const discountsAfter = (s: Subscription.Subscription, change: PlanDiscounts): ReadonlyArray<Discount.SubscriptionDiscount> => {
  const added = change.new_discounts ?? []
  const kept = change.keep_discounts === undefined
    ? s.discounts
    : s.discounts.filter((d) => change.keep_discounts!.includes(d.discount_id))
  return [...kept.filter((d) => !added.some((a) => a.discount_id === d.discount_id)), ...added]
}

/** The fields as stored: a key only when it has a value (the stored change's fields are exact). */
const discountFields = (d: PlanDiscounts): {
  readonly keep_discounts?: ReadonlyArray<DiscountId>
  readonly new_discounts?: ReadonlyArray<Discount.SubscriptionDiscount>
} => ({
  ...(d.keep_discounts === undefined ? {} : { keep_discounts: d.keep_discounts }),
  ...(d.new_discounts === undefined ? {} : { new_discounts: d.new_discounts })
})

/**
 * The discounts whose uses an immediate change's charge (`paymentId`) held: counted when it succeeds, given back when
 * it fails (`ChargeOutcomes`).
 */
export const redeemedBy = (s: Subscription.Subscription, paymentId: PaymentId): ReadonlyArray<DiscountId> =>
  s.pending_change?.payment_id === paymentId ? (s.pending_change.new_discounts ?? []).map((d) => d.discount_id) : []

/** A change scheduled for the next billing date: nothing changes until the renewal then applies it. */
export const schedule = (s: Subscription.Subscription, priced: Priced): Subscription.SubscriptionTransition => ({
  next: {
    ...s,
    scheduled_change: {
      product_id: priced.plan.product_id,
      quantity: priced.plan.quantity,
      effective_at: s.next_billing_date,
      created_at: priced.at,
      plan: priced.plan,
      ...discountFields(priced.discounts)
    }
  },
  events: []
})

/**
 * `do_not_bill`: the plan changes now and the billing date stays. A new schedule counts its periods from that date
 * (the next period is the first of the new plan's).
 */
export const changeWithoutCharge = (s: Subscription.Subscription, priced: Priced): Subscription.SubscriptionTransition => ({
  next: sameSchedule(s, priced.plan)
    ? { ...s, ...planFields(priced.plan), discounts: discountsAfter(s, priced.discounts) }
    : {
      ...s,
      ...planFields(priced.plan),
      anchor: s.next_billing_date,
      anchor_period: s.period + 1,
      discounts: discountsAfter(s, priced.discounts)
    },
  events: [changed(s)]
})

/** An immediate change whose charge (`paymentId`) is on its way: applied when the charge has an outcome (`settle`). */
export const awaitCharge = (s: Subscription.Subscription, priced: Priced, paymentId: PaymentId): Subscription.Subscription => ({
  ...s,
  pending_change: {
    payment_id: paymentId,
    plan: priced.plan,
    at: priced.at,
    on_payment_failure: priced.onPaymentFailure,
    unused_credit: priced.unusedCredit,
    credit_applied: priced.charge?.creditApplied ?? 0,
    ...discountFields(priced.discounts)
  }
})

/** The subscription once an immediate change is made (its charge paid): what a preview shows as `new_plan`. */
const made = (s: Subscription.Subscription, pending: Subscription.PendingChange): Subscription.Subscription => ({
  ...restarted(s, pending.plan, pending.at),
  credit_balance: s.credit_balance + pending.unused_credit - pending.credit_applied,
  // The charge paid the new plan's first period less these discounts: one cycle of each is used.
  discounts: Discount.afterRenewal(discountsAfter(s, pending))
})

/**
 * The outcome of an immediate change's charge, `paymentId`: paid, the change is made (a new period on the new plan
 * from the change date, the credit left over kept); declined, `prevent_change` drops it, `apply_change` makes it
 * unpaid: the new plan, its first period due and on hold, retried as a failed renewal is, with the old plan's credit
 * kept for the retries to spend. Undefined when the subscription is not waiting for that charge.
 */
export const settle = (
  s: Subscription.Subscription,
  paymentId: PaymentId,
  succeeded: boolean,
  now: DateTime.Utc
): Subscription.SubscriptionTransition | undefined => {
  const pending = s.pending_change
  if (pending === null || pending.payment_id !== paymentId) return undefined
  if (s.status === "cancelled") return { next: { ...s, pending_change: null }, events: [] }
  if (succeeded) return { next: made(s, pending), events: [changed(s)] }
  if (pending.on_payment_failure === "prevent_change") return { next: { ...s, pending_change: null }, events: [] }
  const unpaid: Subscription.Subscription = {
    ...s,
    ...planFields(pending.plan),
    ...endTrial(s, pending.at),
    anchor: pending.at,
    anchor_period: s.period + 1,
    next_billing_date: pending.at,
    scheduled_change: null,
    pending_change: null,
    credit_balance: s.credit_balance + pending.unused_credit,
    // The plan changed, so the discounts it does not keep go; the codes it redeemed were not paid for (their uses
    // are given back).
    discounts: discountsAfter(s, { keep_discounts: pending.keep_discounts })
  }
  const held = Either.getOrThrow(Subscription.transition(unpaid, { _tag: "ChargeFailed" }, now))
  return { next: held.next, events: [changed(s), ...held.events] }
}

/**
 * The renewal of a subscription whose scheduled change is due applies it first: the new plan from the billing date
 * (its periods count from there), so the renewal charges the new plan. Undefined when none is due.
 */
export const applyScheduled = (s: Subscription.Subscription, now: DateTime.Utc): Subscription.SubscriptionTransition | undefined => {
  const scheduled = s.scheduled_change
  if (scheduled === null || s.status !== "active" || DateTime.greaterThan(scheduled.effective_at, now)) return undefined
  return {
    next: {
      ...s,
      ...planFields(scheduled.plan),
      anchor: s.next_billing_date,
      anchor_period: s.period + 1,
      scheduled_change: null,
      discounts: discountsAfter(s, scheduled)
    },
    events: [changed(s)]
  }
}

/** What the next renewal of `s` charges: its plan's, or the plan of a change scheduled for that date (`applyScheduled`). */
export const nextRenewalCharge = (s: Subscription.Subscription): Subscription.RenewalCharge =>
  Subscription.renewalCharge(applyScheduled(s, s.next_billing_date)?.next ?? s)

/** `DELETE /subscriptions/{id}/change-plan/scheduled`: 404 when there is none. */
export const cancelScheduled = (s: Subscription.Subscription): Either.Either<Subscription.Subscription, NotFound> =>
  s.scheduled_change === null
    ? Either.left(new NotFound({ message: `Subscription ${s.subscription_id} has no scheduled plan change` }))
    : Either.right({ ...s, scheduled_change: null })

/** The subscription as the change would leave it: what the preview calls `new_plan`. */
export const wouldBe = (s: Subscription.Subscription, priced: Priced): Subscription.Subscription =>
  priced.effectiveAt === "next_billing_date"
    ? schedule(s, priced).next
    : priced.charge === null
    ? changeWithoutCharge(s, priced).next
    : made(s, awaitCharge(s, priced, "pay_00000000000000000000000000000000" as PaymentId).pending_change!)

/** The preview's `immediate_charge`. */
export const immediateCharge = (s: Subscription.Subscription, priced: Priced): typeof ImmediateCharge.Type => ({
  effective_at: priced.effectiveAt === "next_billing_date" ? s.next_billing_date : priced.at,
  line_items: priced.lineItems,
  discounts: priced.charge?.discounts ?? [],
  summary: {
    total_amount: priced.charge?.amount ?? 0,
    tax: priced.charge?.taxLines != null
      ? TaxDocument.totals(priced.charge.taxLines.lines).vat
      : priced.plan.tax_lines === null
      ? null
      : 0,
    credit_applied: priced.charge?.creditApplied ?? 0,
    credit_remaining: priced.creditRemaining
  }
})

/** The `processing` payment of an immediate change's charge, on the subscription's saved card. */
export const changePayment = (
  s: Subscription.Subscription,
  priced: Priced & { readonly charge: NonNullable<Priced["charge"]> },
  paymentId: PaymentId,
  metadata: Metadata | undefined,
  now: DateTime.Utc
): Payment.Payment =>
  Payment.open({
    paymentId,
    accountId: s.account_id,
    livemode: s.livemode,
    amount: priced.charge.amount,
    currency: s.currency,
    description: priced.charge.description,
    customer: { ...s.customer, phone_number: null },
    checkoutSessionId: null,
    subscriptionId: s.subscription_id,
    billingReason: "subscription_update",
    metadata: metadata ?? s.metadata,
    card: { ...s.payment_method, token: s.card_token },
    taxLines: priced.charge.taxLines,
    creditApplied: priced.charge.creditApplied,
    discounts: priced.charge.discounts
  }, now)

// Quotes -------------------------------------------------------------------------------------------------------------

/** How long a preview's quote may be passed back. */
export const quoteLifetimeMillis = 30 * 60_000
/** How far ahead of this server's clock a quote may be dated (another server's clock). */
const quoteSkewMillis = 60_000

/** JSON with object keys sorted at every depth: the text a quote's digest is taken of. */
export const canonicalJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`
  if (value !== null && typeof value === "object") {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(",")}}`
  }
  return JSON.stringify(value) ?? "null"
}

/**
 * What a quote vouches for, as text: the subscription, the request's pricing fields and the preview it gave (what to
 * do should the card decline is not part of the price: a change may choose it). A change at the quote's instant that would show anything else (the subscription renewed, its credit or the product's
 * price changed) makes other text, so its digest differs and the quote is refused as stale.
 */
export const quoteText = (
  subscriptionId: string,
  request: Pick<PlanChangePreviewRequest, "product_id" | "quantity" | "proration_billing_mode" | "effective_at">,
  preview: unknown
): string =>
  canonicalJson({
    subscription_id: subscriptionId,
    product_id: request.product_id,
    quantity: request.quantity,
    proration_billing_mode: request.proration_billing_mode ?? null,
    effective_at: request.effective_at ?? null,
    preview
  })

/** `qt_<instant in ms>_<32 hex of the digest>`. */
export const quoteId = (at: DateTime.Utc, digest: string): string =>
  `qt_${String(DateTime.toEpochMillis(at)).padStart(13, "0")}_${digest.slice(0, 32)}`

/** A quote's instant and digest, if it is still good at `now`; why not otherwise. */
export const readQuote = (
  quote: string,
  now: DateTime.Utc
): Either.Either<{ readonly at: DateTime.Utc; readonly digest: string }, InvalidRequest | InvalidState> => {
  const match = /^qt_([0-9]{13})_([0-9a-f]{32})$/.exec(quote)
  if (match === null) return Either.left(new InvalidRequest({ message: "quote_id is not a quote_id a preview gave" }))
  const atMillis = Number(match[1])
  const age = DateTime.toEpochMillis(now) - atMillis
  if (age < -quoteSkewMillis) return Either.left(new InvalidRequest({ message: "quote_id is not a quote_id a preview gave" }))
  if (age > quoteLifetimeMillis) {
    return Either.left(new InvalidState({ message: "This quote has expired (a quote lasts 30 minutes); preview the change again" }))
  }
  return Either.right({ at: DateTime.unsafeMake(atMillis), digest: match[2]! })
}

/** The refusal of a quote whose preview the change no longer matches. */
export const staleQuote = () =>
  new InvalidState({
    message: "The subscription or the product changed since this quote was made (or the request differs from the " +
      "preview's); preview the change again"
  })

// The customer portal -------------------------------------------------------------------------------------------------

/**
 * Whether the customer portal offers `product` as a plan for `s` (docs/portal.md, "Changing the plan"): the merchant
 * offers it there (`offered_in_portal`), and it is an active recurring product in the subscription's currency.
 */
export const offeredInPortal = (product: Product.Product, s: Subscription.Subscription): boolean =>
  product.offered_in_portal && product.status === "active" && product.billing === "recurring" &&
  product.currency === s.currency

/**
 * How the portal changes plan where the product has no `plan_change_policy`: the new plan now, less the unused time
 * of the old one, both ways (a downgrade keeps the difference as credit). The customer never chooses the billing mode.
 */
export const portalDefaultRule: PlanPolicy.PlanChangeRule = { proration_billing_mode: "prorated_immediately", effective_at: "immediately" }

/** What the portal picks: an offered plan and its quantity. */
export const PortalPlanChoice = Schema.Struct({
  product_id: requestFields.product_id,
  quantity: requestFields.quantity
})
export type PortalPlanChoice = typeof PortalPlanChoice.Type

/**
 * The change a customer asks for in the portal: to `quantity` of `product`, as the product's policy says (else
 * `portalDefaultRule`); a declined charge changes nothing (`prevent_change`): a customer is never moved onto a plan
 * they did not pay for.
 */
export const portalRequest = (product: Product.Product, quantity: number): PlanChangePreviewRequest => ({
  product_id: product.product_id,
  quantity,
  ...(product.plan_change_policy === null ? portalDefaultRule : {}),
  on_payment_failure: "prevent_change"
})
