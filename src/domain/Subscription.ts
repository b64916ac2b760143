/**
 * Subscriptions (docs/decisions.md §6): a pure state machine.
 *
 *   active ──renewal fails──▶ on_hold ──a retry succeeds──▶ active
 *   on_hold ──the last retry (day 5) fails──▶ cancelled (payment_failed)
 *   active | on_hold ──cancel──▶ cancelled (requested)
 *   active ──period ends with cancel_at_period_end──▶ cancelled (requested, at the period end)
 *
 * `cancelled` is final. Periods are counted from the anchor (the first payment), so a retry never moves the
 * schedule and a period is identified by its index: the store keeps one charge per (subscription, period, attempt).
 * A subscription with a trial is `active` during it: the trial is period 0, and the periods after it count from its
 * end (`periodStartOf`), so the first renewal is at the trial's end.
 */
import { Data, DateTime, Either, Schema } from "effect"
import * as Calendar from "./Calendar.js"
import * as Credit from "./Credit.js"
import * as Discount from "./Discount.js"
import { InvalidRequest, SubscriptionNotChangeable } from "./Errors.js"
import { AccountId, CheckoutSessionId, CustomerId, DiscountId, PaymentId, ProductId, SubscriptionId } from "./Ids.js"
import { Metadata } from "./Metadata.js"
import * as Pagination from "./Pagination.js"
import { Amount, Currency } from "./Money.js"
import { Text } from "./Text.js"
import * as Payment from "./Payment.js"
import { BillingInterval, type Taxation } from "./Product.js"
import * as TaxDocument from "./TaxDocument.js"

export const SubscriptionStatus = Schema.Literal("active", "on_hold", "cancelled")
export type SubscriptionStatus = typeof SubscriptionStatus.Type
export const CancellationReason = Schema.Literal("requested", "payment_failed")
export type CancellationReason = typeof CancellationReason.Type

export const SubscriptionCustomer = Schema.Struct({
  customer_id: CustomerId,
  name: Schema.NullOr(Schema.String),
  email: Schema.String
}).annotations({ identifier: "SubscriptionCustomer" })

/**
 * A plan a subscription is on or changes to: the product and quantity, its schedule, and what a period costs
 * (`recurring_amount`, the gross of `tax_lines` when the merchant charges VAT), as priced when the plan was chosen.
 */
export const Plan = Schema.Struct({
  product_id: ProductId,
  name: Schema.String,
  quantity: Schema.Int,
  billing_interval: BillingInterval,
  interval_count: Schema.Int,
  recurring_amount: Amount,
  tax_lines: Schema.NullOr(TaxDocument.TaxLines)
}).annotations({ identifier: "SubscriptionPlan" })
export type Plan = typeof Plan.Type

/**
 * What a plan change does to a subscription's discounts (`PlanChange.discountsAfter`): the ones it keeps
 * (`preserve_on_plan_change`, by id; absent: all, as before discounts could change with the plan) and the codes it
 * redeemed, with their cycles.
 */
const planDiscountFields = {
  // Exact: a key present is a list; stored as JSON, an `undefined` value would not come back as written.
  keep_discounts: Schema.optionalWith(Schema.Array(DiscountId), { exact: true }),
  new_discounts: Schema.optionalWith(Schema.Array(Discount.SubscriptionDiscount), { exact: true })
}

/** A plan change waiting for the next billing date, as the API shows it. */
export const ScheduledChange = Schema.Struct({
  product_id: ProductId,
  quantity: Schema.Int,
  effective_at: Schema.DateTimeUtc,
  created_at: Schema.DateTimeUtc
}).annotations({ identifier: "ScheduledPlanChange" })

/** A scheduled change as stored: the plan it applies, priced when it was made. */
export const StoredScheduledChange = Schema.Struct({
  ...ScheduledChange.fields,
  plan: Plan,
  ...planDiscountFields
})
export type StoredScheduledChange = typeof StoredScheduledChange.Type

/**
 * An immediate plan change whose charge (`payment_id`) has no outcome yet: applied when it succeeds (or, with
 * `apply_change`, when it fails), dropped when it fails with `prevent_change`. `at` is the change date the price was
 * made for; `unused_credit` the credit the old plan's unused time gives; `credit_applied` what the charge spends.
 */
export const PendingChange = Schema.Struct({
  payment_id: PaymentId,
  plan: Plan,
  at: Schema.DateTimeUtc,
  on_payment_failure: Schema.Literal("prevent_change", "apply_change"),
  unused_credit: Amount,
  credit_applied: Amount,
  ...planDiscountFields
})
export type PendingChange = typeof PendingChange.Type

export const PaymentMethod = Schema.Struct({
  brand: Schema.String,
  last4: Schema.String,
  exp_month: Schema.Int,
  exp_year: Schema.Int
}).annotations({ identifier: "PaymentMethod" })

const resourceFields = {
  object: Schema.Literal("subscription"),
  subscription_id: SubscriptionId,
  status: SubscriptionStatus,
  product_id: ProductId,
  name: Schema.String,
  quantity: Schema.Int,
  recurring_amount: Amount,
  currency: Currency,
  billing_interval: BillingInterval,
  interval_count: Schema.Int,
  customer: SubscriptionCustomer,
  payment_method: PaymentMethod,
  current_period_start: Schema.DateTimeUtc,
  next_billing_date: Schema.DateTimeUtc,
  cancel_at_period_end: Schema.Boolean,
  /**
   * The trial it started with, in days (0: none), and when that trial ends (null without one; a plan change made
   * during it ends it on the change date).
   */
  trial_period_days: Schema.Int,
  trial_ends_at: Schema.NullOr(Schema.DateTimeUtc),
  cancelled_at: Schema.NullOr(Schema.DateTimeUtc),
  cancellation_reason: Schema.NullOr(CancellationReason),
  failed_payment_attempts: Schema.Int,
  next_retry_at: Schema.NullOr(Schema.DateTimeUtc),
  checkout_session_id: Schema.NullOr(CheckoutSessionId),
  /** Discount codes it was started with, and the renewals each still takes off (docs/discounts.md). */
  discounts: Schema.Array(Discount.SubscriptionDiscount),
  metadata: Metadata,
  livemode: Schema.Boolean,
  created_at: Schema.DateTimeUtc,
  /** A plan change waiting for the next billing date (docs/subscriptions.md, "Changing the plan"). */
  scheduled_change: Schema.NullOr(ScheduledChange),
  /** Fils of credit its next charges use before the card (a plan changed down): `Credit.ts`. */
  credit_balance: Amount
}

export const SubscriptionResource = Schema.Struct(resourceFields).annotations({ identifier: "Subscription" })
/**
 * The stored subscription: the resource plus its owner, the saved card's token, the anchor its periods count
 * from, the index of the current period, and when the current run of failures began.
 */
export const Subscription = Schema.Struct({
  ...resourceFields,
  account_id: AccountId,
  card_token: Schema.String,
  anchor: Schema.DateTimeUtc,
  period: Schema.Int,
  /** The index of the period that starts at `anchor`: a plan change starts its periods from a new anchor. */
  anchor_period: Schema.Int,
  first_failure_at: Schema.NullOr(Schema.DateTimeUtc),
  /**
   * A period's lines with their VAT, as priced at checkout (or a plan change) before any discount: each renewal charges
   * and invoices them, less the discounts still in effect and the credit (`renewalCharge`).
   */
  tax_lines: Schema.NullOr(TaxDocument.TaxLines),
  scheduled_change: Schema.NullOr(StoredScheduledChange),
  pending_change: Schema.NullOr(PendingChange)
})
export type Subscription = typeof Subscription.Type

export const SubscriptionUpdate = Schema.Struct({
  status: Schema.optional(Schema.Literal("cancelled")),
  cancel_at_period_end: Schema.optional(Schema.Boolean)
}).pipe(
  // Exactly one of the two (docs/decisions.md §6): the use case refuses the rest with its own message; the document says so.
  Schema.filter(() => true, {
    jsonSchema: { allOf: [{ oneOf: [{ required: ["status"] }, { required: ["cancel_at_period_end"] }] }] }
  })
).annotations({ identifier: "SubscriptionUpdate" })
export type SubscriptionUpdate = typeof SubscriptionUpdate.Type

export type SubscriptionEventType =
  | "subscription.active"
  | "subscription.renewed"
  | "subscription.on_hold"
  | "subscription.cancelled"
  | "subscription.plan_changed"

/** What happened to a subscription, by its id: each is recorded as an event whose `data` is the subscription after. */
export type SubscriptionEvent = Data.TaggedEnum<{
  /** Started, or back from on hold. */
  SubscriptionActivated: { readonly subscription_id: SubscriptionId }
  SubscriptionRenewed: { readonly subscription_id: SubscriptionId }
  SubscriptionOnHold: { readonly subscription_id: SubscriptionId }
  SubscriptionCancelled: { readonly subscription_id: SubscriptionId }
  /** Its product, quantity or price changed (a plan change, now or at the billing date it was scheduled for). */
  SubscriptionPlanChanged: { readonly subscription_id: SubscriptionId }
}>
export const SubscriptionEvent = Data.taggedEnum<SubscriptionEvent>()

/** The event's type on the wire (`GET /events`, webhooks). */
export const eventType: (event: SubscriptionEvent) => SubscriptionEventType = SubscriptionEvent.$match({
  SubscriptionActivated: () => "subscription.active" as const,
  SubscriptionRenewed: () => "subscription.renewed" as const,
  SubscriptionOnHold: () => "subscription.on_hold" as const,
  SubscriptionCancelled: () => "subscription.cancelled" as const,
  SubscriptionPlanChanged: () => "subscription.plan_changed" as const
})

export type SubscriptionCommand =
  /** The period ended with `cancel_at_period_end`: end it without charging. */
  | { readonly _tag: "EndAtPeriodEnd" }
  /** The renewal (or a retry) of the period after the current one was paid, `creditApplied` fils of it by credit. */
  | { readonly _tag: "ChargeSucceeded"; readonly creditApplied?: number }
  /** The renewal (or a retry) was declined. */
  | { readonly _tag: "ChargeFailed" }
  | { readonly _tag: "Cancel" }
  | { readonly _tag: "SetCancelAtPeriodEnd"; readonly value: boolean }
  /** The customer saved a new card: later charges (and a retry now, when on hold) use it. */
  | { readonly _tag: "ReplaceCard"; readonly card: Payment.CardOnFile }

export interface SubscriptionTransition {
  readonly next: Subscription
  readonly events: ReadonlyArray<SubscriptionEvent>
}

/** When the next charge (renewal or retry) or period-end cancellation is due; none once cancelled. */
export const dueAt = (s: Subscription): DateTime.Utc | null =>
  s.status === "active" ? s.next_billing_date : s.status === "on_hold" ? s.next_retry_at : null

/** What is due: a charge, or the end of a subscription set to cancel at period end. */
export const dueAction = (s: Subscription): "charge" | "end" | null =>
  s.status === "cancelled" ? null : s.cancel_at_period_end ? "end" : "charge"

/**
 * The charge due now, as billing records it (one per period and attempt, so a period is never charged twice): the
 * period after the paid one, and the attempt at it (0 the renewal, 1…3 the retries).
 */
export const dueAttempt = (s: Subscription): DueAttempt => dueAttemptOf(s.period + 1, s.failed_payment_attempts)

/** A charge of a subscription: the period it pays for, and its attempt (0 the renewal, then each retry). */
export interface DueAttempt {
  readonly period: number
  readonly attempt: number
}

/** A `DueAttempt`, compared by value (`Equal.equals`). */
export const dueAttemptOf = (period: number, attempt: number): DueAttempt => Data.struct({ period, attempt })

/**
 * When period `n` starts (docs/decisions.md §6): counted from the anchor, whose period is `anchor_period`, in calendar
 * terms. A trial is period 0 and anchors its subscription at its end as period 1, so the first renewal is at the
 * trial's end and every later one an interval after the one before; a plan change anchors anew.
 */
export const periodStartOf = (s: Pick<Subscription, "anchor" | "anchor_period" | "billing_interval" | "interval_count">, n: number) =>
  Calendar.periodStart(s.anchor, s.billing_interval, s.interval_count, n - s.anchor_period)
const period = periodStartOf

/** Whether the current period is a trial: period 0 of a subscription started with one. */
export const inTrial = (s: Pick<Subscription, "trial_ends_at" | "period">): boolean => s.trial_ends_at !== null && s.period === 0

/** When a trial of `days` started at `start` ends (whole days of 24 hours); null for none. */
export const trialEnd = (start: DateTime.Utc, days: number): DateTime.Utc | null =>
  days > 0 ? Calendar.addDays(start, days) : null

/**
 * The subscription a checkout starts: period 0 from `paidAt` (the first payment, or the saved card of a free trial).
 * With a trial (`trialDays` > 0), period 0 is the trial and the first renewal is at its end.
 */
export const start = (props: {
  readonly id: SubscriptionId
  readonly accountId: AccountId
  readonly livemode: boolean
  readonly product: {
    readonly product_id: ProductId
    readonly name: string
    readonly billing_interval: BillingInterval
    readonly interval_count: number
  }
  readonly quantity: number
  readonly unitAmount: number
  /** The period's lines with their VAT (the first payment's); their gross before discounts is a period's price. */
  readonly taxLines: TaxDocument.TaxLines | null
  /**
   * The discount codes the checkout redeemed: each takes off later renewals while it has cycles left (after a trial,
   * from the first renewal; otherwise the first payment used a cycle).
   */
  readonly discounts?: ReadonlyArray<Discount.AppliedDiscount> | undefined
  readonly currency: Currency
  readonly customer: typeof SubscriptionCustomer.Type
  readonly card: typeof PaymentMethod.Type & { readonly token: string }
  readonly checkoutSessionId: CheckoutSessionId | null
  readonly metadata: Metadata
  readonly paidAt: DateTime.Utc
  /** Days of trial; 0 (or absent) for none. */
  readonly trialDays?: number | undefined
}): SubscriptionTransition => {
  const { token, ...method } = props.card
  const periodLines = props.taxLines === null ? null : TaxDocument.undiscounted(props.taxLines)
  const trialDays = props.trialDays ?? 0
  const trialEndsAt = trialEnd(props.paidAt, trialDays)
  // Periods count from the first payment, or after a trial from its end, as period 1.
  const schedule = {
    anchor: trialEndsAt ?? props.paidAt,
    anchor_period: trialEndsAt === null ? 0 : 1,
    billing_interval: props.product.billing_interval,
    interval_count: props.product.interval_count
  }
  return {
    next: {
      object: "subscription",
      subscription_id: props.id,
      account_id: props.accountId,
      livemode: props.livemode,
      status: "active",
      product_id: props.product.product_id,
      name: props.product.name,
      quantity: props.quantity,
      recurring_amount: periodLines === null
        ? props.unitAmount * props.quantity
        : TaxDocument.totals(periodLines.lines).gross,
      currency: props.currency,
      billing_interval: props.product.billing_interval,
      interval_count: props.product.interval_count,
      customer: props.customer,
      payment_method: method,
      card_token: token,
      anchor: schedule.anchor,
      anchor_period: schedule.anchor_period,
      period: 0,
      current_period_start: props.paidAt,
      next_billing_date: periodStartOf(schedule, 1),
      trial_period_days: trialDays,
      trial_ends_at: trialEndsAt,
      cancel_at_period_end: false,
      cancelled_at: null,
      cancellation_reason: null,
      failed_payment_attempts: 0,
      next_retry_at: null,
      first_failure_at: null,
      checkout_session_id: props.checkoutSessionId,
      discounts: (props.discounts ?? []).map((d) => Discount.forSubscription(d, trialEndsAt === null)),
      metadata: props.metadata,
      created_at: props.paidAt,
      tax_lines: periodLines,
      scheduled_change: null,
      pending_change: null,
      credit_balance: 0
    },
    events: [SubscriptionEvent.SubscriptionActivated({ subscription_id: props.id })]
  }
}

const cancelled = (s: Subscription, at: DateTime.Utc, reason: CancellationReason): Subscription => ({
  ...s,
  status: "cancelled",
  cancelled_at: at,
  cancellation_reason: reason,
  next_retry_at: null,
  // What was to change at a billing date that will not come.
  scheduled_change: null
})

export const transition = (
  s: Subscription,
  command: SubscriptionCommand,
  now: DateTime.Utc
): Either.Either<SubscriptionTransition, SubscriptionNotChangeable | InvalidRequest> => {
  const id = { subscription_id: s.subscription_id }
  const refuse = (what: string) =>
    Either.left(new SubscriptionNotChangeable({ subscription_id: s.subscription_id, status: s.status, change: what }))
  switch (command._tag) {
    case "Cancel":
      return s.status === "cancelled"
        ? Either.right({ next: s, events: [] }) // cancelling twice is a no-op, not an error
        : Either.right({
          next: cancelled(s, now, "requested"),
          events: [SubscriptionEvent.SubscriptionCancelled(id)]
        })
    case "SetCancelAtPeriodEnd":
      if (s.status === "cancelled") return refuse("change cancel_at_period_end")
      // The other way round is refused too (PlanChange.price): a change scheduled for the period end would never
      // apply, and the codes it redeemed would be spent on nothing.
      if (command.value && !s.cancel_at_period_end && s.scheduled_change !== null) {
        return refuse("end at its period end while a plan change is scheduled for then (cancel the scheduled change first)")
      }
      return Either.right({ next: { ...s, cancel_at_period_end: command.value }, events: [] })
    case "ReplaceCard": {
      if (s.status === "cancelled") return refuse("change its card")
      const { token, ...method } = command.card
      return Either.right({ next: { ...s, payment_method: method, card_token: token }, events: [] })
    }
    case "EndAtPeriodEnd":
      if (s.status === "cancelled" || !s.cancel_at_period_end) return refuse("end at period end")
      // Ended by request at the end of the paid period; on_hold, whose paid period already ran out, ends at the
      // retry that would have charged again.
      return Either.right({
        next: cancelled(s, s.status === "active" ? s.next_billing_date : (s.next_retry_at ?? now), "requested"),
        events: [SubscriptionEvent.SubscriptionCancelled(id)]
      })
    case "ChargeSucceeded": {
      if (s.status === "cancelled") return refuse("be charged")
      const n = s.period + 1
      const next: Subscription = {
        ...s,
        status: "active",
        period: n,
        current_period_start: period(s, n),
        next_billing_date: period(s, n + 1),
        failed_payment_attempts: 0,
        next_retry_at: null,
        first_failure_at: null,
        credit_balance: s.credit_balance - (command.creditApplied ?? 0),
        // The renewal just paid took its discounts off (`renewalCharge`): one cycle of each is used, once per period.
        discounts: Discount.afterRenewal(s.discounts)
      }
      return Either.right({
        next,
        events: s.status === "on_hold"
          ? [SubscriptionEvent.SubscriptionActivated(id), SubscriptionEvent.SubscriptionRenewed(id)]
          : [SubscriptionEvent.SubscriptionRenewed(id)]
      })
    }
    case "ChargeFailed": {
      if (s.status === "cancelled") return refuse("be charged")
      const attempts = s.failed_payment_attempts + 1
      const firstFailure = s.first_failure_at ?? now
      if (attempts > Calendar.retryDays.length) {
        return Either.right({
          next: { ...cancelled(s, now, "payment_failed"), failed_payment_attempts: attempts },
          events: [SubscriptionEvent.SubscriptionCancelled(id)]
        })
      }
      return Either.right({
        next: {
          ...s,
          status: "on_hold",
          failed_payment_attempts: attempts,
          first_failure_at: firstFailure,
          next_retry_at: Calendar.addDays(firstFailure, Calendar.retryDays[attempts - 1]!)
        },
        events: s.status === "on_hold" ? [] : [SubscriptionEvent.SubscriptionOnHold(id)]
      })
    }
  }
}

/** PATCH rules (docs/decisions.md §6): exactly one of `status: "cancelled"` or `cancel_at_period_end`. */
export const commandOf = (update: SubscriptionUpdate): Either.Either<SubscriptionCommand, InvalidRequest> => {
  const hasStatus = update.status !== undefined
  const hasFlag = update.cancel_at_period_end !== undefined
  if (hasStatus === hasFlag) {
    return Either.left(
      new InvalidRequest({ message: "Send exactly one of status (\"cancelled\") or cancel_at_period_end (a boolean)" })
    )
  }
  return Either.right(
    hasStatus ? { _tag: "Cancel" } : { _tag: "SetCancelAtPeriodEnd", value: update.cancel_at_period_end! }
  )
}

/** Where a subscription stands in a newest-first list. */
export const position = Pagination.byCreation<Subscription>((s) => s.created_at, (s) => s.subscription_id)

/** What a renewal charges: the card's amount, its lines with their VAT, the credit it uses and the discounts it took. */
export interface RenewalCharge extends Credit.Charge {
  readonly discounts: ReadonlyArray<Discount.AppliedDiscount>
}

/** A period's price less discounts: the card's amount before credit, its lines with their VAT, the discounts taken. */
export interface Discounted {
  readonly amount: number
  readonly taxLines: TaxDocument.TaxLines | null
  readonly discounts: ReadonlyArray<Discount.AppliedDiscount>
}

/**
 * A period of `plan` (its lines, or its amount without VAT) less each discount of `discounts` still in effect
 * (`Discount.inEffect`), applied in order to what the ones before left, VAT per line on what is left. The one rule
 * for what a subscription's discounts take off a period: a renewal's (`renewalCharge`) and a plan change's first
 * period (`PlanChange.price`).
 */
export const lessDiscounts = (
  plan: { readonly recurring_amount: number; readonly tax_lines: TaxDocument.TaxLines | null },
  discounts: ReadonlyArray<Discount.SubscriptionDiscount>
): Discounted => {
  const inputs = plan.tax_lines === null ? null : plan.tax_lines.lines.map(TaxDocument.inputOf)
  const listed = inputs === null ? [plan.recurring_amount] : inputs.map((i) => i.unit_amount * i.quantity)
  const off = listed.map(() => 0)
  const applied: Array<Discount.AppliedDiscount> = []
  for (const d of discounts) {
    if (!Discount.inEffect(d)) continue
    const shares = Discount.lineDiscounts(d, listed.map((amount, i) => ({ amount: amount - off[i]!, eligible: true })))
    shares.forEach((share, i) => (off[i] = off[i]! + share))
    applied.push({
      discount_id: d.discount_id,
      code: d.code,
      type: d.type,
      amount: d.amount,
      subscription_cycles: d.subscription_cycles,
      amount_off: shares.reduce((a, b) => a + b, 0)
    })
  }
  const taxLines = inputs === null || applied.length === 0
    ? plan.tax_lines
    : TaxDocument.price(inputs.map((input, i) => (off[i] === 0 ? input : { ...input, discount: off[i]! })), plan.tax_lines!.prices_include_vat)
  const amount = taxLines === null ? listed[0]! - off[0]! : TaxDocument.totals(taxLines.lines).gross
  return { amount, taxLines, discounts: applied }
}

/**
 * What a renewal (or a retry of one) of `s` charges: a period of its plan less its discounts (`lessDiscounts`), then
 * less its credit (`Credit.lessCredit`), the discount staying on each line. Never negative; its lines add up to its
 * amount to the fils. The one rule for a renewal's amount: `renewalPayment` charges it, and a paid renewal uses a
 * cycle of those discounts and the credit it applied (`transition`).
 */
export const renewalCharge = (s: Subscription): RenewalCharge => {
  const discounted = lessDiscounts(s, s.discounts)
  return {
    ...Credit.lessCredit({ amount: discounted.amount, taxLines: discounted.taxLines, credit: s.credit_balance, note: Credit.balanceNote(s.currency) }),
    discounts: discounted.discounts
  }
}

/**
 * What a period of `s` brings in: its plan's price less the discounts it still has in effect (`lessDiscounts`), before
 * credit (money the customer paid earlier). Stored beside the subscription, so that the store sums it.
 */
export const periodRevenue = (s: Subscription): number => lessDiscounts(s, s.discounts).amount

/**
 * Whether `s` counts in monthly recurring revenue: active and past its trial (a trial brings nothing in yet; a
 * subscription on hold is not paying). The stores select by this rule (a contract test proves they agree).
 */
export const inRecurringRevenue = (s: Pick<Subscription, "status" | "trial_ends_at" | "period">): boolean =>
  s.status === "active" && !inTrial(s)

/** The `processing` payment that carries a renewal charge of `subscription` (or a retry of one), on its saved card. */
export const renewalPayment = (subscription: Subscription, paymentId: PaymentId, now: DateTime.Utc): Payment.Payment => {
  const charge = renewalCharge(subscription)
  return Payment.open({
    paymentId,
    accountId: subscription.account_id,
    livemode: subscription.livemode,
    amount: charge.amount,
    currency: subscription.currency,
    description: subscription.quantity > 1 ? `${subscription.name} × ${subscription.quantity}` : subscription.name,
    customer: { ...subscription.customer, phone_number: null },
    checkoutSessionId: null,
    subscriptionId: subscription.subscription_id,
    billingReason: "subscription_renewal",
    metadata: subscription.metadata,
    card: { ...subscription.payment_method, token: subscription.card_token },
    taxLines: charge.taxLines,
    creditApplied: charge.creditApplied,
    discounts: charge.discounts
  }, now)
}

/** `POST /subscriptions/{id}/charge`: a charge of the saved card now, beside the schedule (Dodo's `subscriptions.charge`). */
export const SubscriptionCharge = Schema.Struct({
  product_price: Amount.pipe(Schema.greaterThanOrEqualTo(1)).annotations({
    description: "What to charge, in fils, priced like a product's `price` (VAT included or added as the merchant's " +
      "tax profile says).",
    message: () => "must be a whole number of fils, at least 1"
  }),
  product_description: Schema.optional(Schema.NullOr(Text(1, 1000))).annotations({
    description: "The payment's description; by default the subscription's name."
  }),
  metadata: Schema.optional(Schema.NullOr(Metadata)).annotations({
    description: "The payment's metadata; by default the subscription's."
  })
}).annotations({ identifier: "SubscriptionCharge" })
export type SubscriptionCharge = typeof SubscriptionCharge.Type

export const SubscriptionChargeResult = Schema.Struct({ payment_id: PaymentId }).annotations({
  identifier: "SubscriptionChargeResult"
})

/** Only a subscription that is not cancelled can be charged on demand; its period and status stay as they are. */
export const ensureChargeable = (s: Subscription): Either.Either<Subscription, SubscriptionNotChangeable> =>
  s.status === "cancelled"
    ? Either.left(new SubscriptionNotChangeable({ subscription_id: s.subscription_id, status: s.status, change: "be charged" }))
    : Either.right(s)

/**
 * An on-demand charge's line with its VAT when the merchant charges VAT (`vat`), priced as a checkout prices one: the
 * product's category, `product_price` as the merchant lists prices (VAT included or added). Refused when the total
 * with VAT would not be a safe integer.
 */
export const chargeTaxLines = (
  subscription: Subscription,
  charge: SubscriptionCharge,
  taxation: Taxation,
  vat: { readonly pricesIncludeVat: boolean } | null
): Either.Either<TaxDocument.TaxLines | null, InvalidRequest> => {
  if (vat === null) return Either.right(null)
  const lines = TaxDocument.price([{
    description: charge.product_description ?? subscription.name,
    quantity: 1,
    unit_amount: charge.product_price,
    category: taxation.tax_category,
    item_type: taxation.item_type,
    item_code: taxation.item_code,
    ...(taxation.tax_exemption_code === null ? {} : { exemption_code: taxation.tax_exemption_code })
  }], vat.pricesIncludeVat)
  return Number.isSafeInteger(TaxDocument.totals(lines.lines).gross)
    ? Either.right(lines)
    : Either.left(new InvalidRequest({ message: "product_price is too large once VAT is added" }))
}

/**
 * The `processing` payment of an on-demand charge of `subscription`'s saved card (`subscription_charge`):
 * `charge.product_price` as listed, or the gross of `taxLines` when the merchant charges VAT.
 */
export const chargePayment = (
  subscription: Subscription,
  charge: SubscriptionCharge,
  taxLines: TaxDocument.TaxLines | null,
  paymentId: PaymentId,
  now: DateTime.Utc
): Payment.Payment =>
  Payment.open({
    paymentId,
    accountId: subscription.account_id,
    livemode: subscription.livemode,
    amount: taxLines === null ? charge.product_price : TaxDocument.totals(taxLines.lines).gross,
    currency: subscription.currency,
    description: charge.product_description ?? subscription.name,
    customer: { ...subscription.customer, phone_number: null },
    checkoutSessionId: null,
    subscriptionId: subscription.subscription_id,
    billingReason: "subscription_charge",
    metadata: charge.metadata ?? subscription.metadata,
    card: { ...subscription.payment_method, token: subscription.card_token },
    taxLines
  }, now)
