/**
 * Discount codes (docs/discounts.md): what a merchant offers, when a code may be redeemed, and what it takes off.
 *
 * A code is compared case-insensitively (`codeKey`) and is unique per account and mode; it is shown as the merchant
 * typed it. A redemption is counted when the payment that redeems it succeeds, in that payment's transaction; while
 * the charge is at the processor its use is held (`hold`, `release`), so that `times_used` plus the uses held never
 * passes `usage_limit`, however many customers pay at once.
 *
 * What a discount takes off is decided per line (`lineDiscounts`), in fils, never more than the line: a percentage
 * of each line it applies to, rounded to the fils; a flat amount shared across those lines in proportion to their
 * amounts. VAT is then worked out on what is left of each line (`TaxDocument.price`).
 */
import { DateTime, Either, Schema } from "effect"
import { InvalidRequest } from "./Errors.js"
import { AccountId, DiscountId, ProductId } from "./Ids.js"
import { Metadata } from "./Metadata.js"
import { DateTimeInput } from "./Instant.js"
import { Amount } from "./Money.js"
import * as Pagination from "./Pagination.js"
import { Text } from "./Text.js"
import { apportion } from "./TaxDocument.js"
import { roundHalfUp } from "./Vat.js"

export const DiscountType = Schema.Literal("percentage", "flat").annotations({
  identifier: "DiscountType",
  description: "`percentage`: `amount` is in basis points (1 to 10000; 10000 is 100 %). `flat`: `amount` is fils."
})
export type DiscountType = typeof DiscountType.Type

/** 100 %, in basis points. */
export const maxBps = 10_000
export const minCodeLength = 3
export const maxCodeLength = 16
/** The most cycles a subscription discount may last, and the most products it may be restricted to. */
export const maxCycles = 10_000
export const maxRestrictedTo = 100

const codeShape = /^[A-Za-z0-9_-]+$/

/** A code as a merchant sets it: 3 to 16 letters, digits, `-` or `_` (so that a customer can type it anywhere). */
export const DiscountCode = Schema.String.pipe(
  Schema.filter((s) =>
    (s.length >= minCodeLength && s.length <= maxCodeLength && codeShape.test(s)) ||
    `must be ${minCodeLength} to ${maxCodeLength} letters, digits, hyphens or underscores`, {
    jsonSchema: { minLength: minCodeLength, maxLength: maxCodeLength, pattern: codeShape.source }
  }),
  Schema.annotations({
    identifier: "DiscountCode",
    description: "3 to 16 letters (A–Z, a–z), digits, `-` or `_`. Shown as written; customers may type it in any case."
  })
)

/** How codes are compared: case-insensitively, spaces around them ignored (a customer's phone may add one). */
export const codeKey = (code: string): string => code.trim().toUpperCase()

/** Codes Fils makes up when the merchant gives none: upper-case letters and digits that cannot be misread. */
export const codeAlphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
export const generatedCodeLength = 16

export const DiscountName = Text(1, 200)

const resourceFields = {
  object: Schema.Literal("discount"),
  discount_id: DiscountId,
  code: Schema.String,
  name: Schema.NullOr(Schema.String),
  type: DiscountType,
  amount: Schema.Int.annotations({ description: "Basis points for `percentage` (540 is 5.4 %), fils for `flat`" }),
  subscription_cycles: Schema.NullOr(Schema.Int).annotations({
    description: "How many billing cycles of a subscription it takes off, the first payment included; null: every one"
  }),
  usage_limit: Schema.NullOr(Schema.Int).annotations({ description: "How many times it may be redeemed; null: no limit" }),
  times_used: Schema.Int.annotations({ description: "How many times it was redeemed: checkouts paid, trials started, plan changes made" }),
  expires_at: Schema.NullOr(Schema.DateTimeUtc),
  restricted_to: Schema.Array(ProductId).annotations({ description: "The products it applies to; empty: all" }),
  preserve_on_plan_change: Schema.Boolean,
  metadata: Metadata,
  livemode: Schema.Boolean,
  created_at: Schema.DateTimeUtc
}

export const DiscountResource = Schema.Struct(resourceFields).annotations({ identifier: "Discount" })

/** The stored discount: the resource, its owner, and the uses held by charges still at the processor. */
export const Discount = Schema.Struct({
  ...resourceFields,
  account_id: AccountId,
  held: Schema.Int.pipe(Schema.nonNegative())
})
export type Discount = typeof Discount.Type

const ProductIdInput = Schema.String.annotations({ jsonSchema: { type: "string", pattern: "^pdt_[0-9a-f]{32}$" } })
const Cycles = Schema.Int.pipe(Schema.between(1, maxCycles))
const UsageLimit = Schema.Int.pipe(Schema.between(1, Number.MAX_SAFE_INTEGER))
const RestrictedTo = Schema.Array(ProductIdInput).pipe(Schema.maxItems(maxRestrictedTo))

/** The amount's rule, by type (`checkTerms`), as JSON Schema: a percentage is at most 10000 basis points. */
const termsJsonSchema = {
  if: { required: ["type"], properties: { type: { const: "percentage" } } },
  then: { properties: { amount: { maximum: maxBps } } }
}

export const DiscountCreate = Schema.Struct({
  code: Schema.optional(DiscountCode),
  name: Schema.optional(Schema.NullOr(DiscountName)),
  type: DiscountType,
  amount: Schema.Int.annotations({ jsonSchema: { type: "integer", minimum: 1 } }),
  subscription_cycles: Schema.optional(Schema.NullOr(Cycles)),
  usage_limit: Schema.optional(Schema.NullOr(UsageLimit)),
  expires_at: Schema.optional(Schema.NullOr(DateTimeInput)),
  restricted_to: Schema.optional(RestrictedTo),
  preserve_on_plan_change: Schema.optional(Schema.Boolean),
  metadata: Schema.optional(Metadata)
}).pipe(Schema.filter(() => true, { jsonSchema: termsJsonSchema })).annotations({ identifier: "DiscountCreate" })
export type DiscountCreate = typeof DiscountCreate.Type

export const DiscountUpdate = Schema.Struct({
  code: Schema.optional(DiscountCode),
  name: Schema.optional(Schema.NullOr(DiscountName)),
  type: Schema.optional(DiscountType),
  amount: Schema.optional(Schema.Int.annotations({ jsonSchema: { type: "integer", minimum: 1 } })),
  subscription_cycles: Schema.optional(Schema.NullOr(Cycles)),
  usage_limit: Schema.optional(Schema.NullOr(UsageLimit)),
  expires_at: Schema.optional(Schema.NullOr(DateTimeInput)),
  restricted_to: Schema.optional(RestrictedTo),
  preserve_on_plan_change: Schema.optional(Schema.Boolean),
  metadata: Schema.optional(Metadata)
}).annotations({ identifier: "DiscountUpdate" })
export type DiscountUpdate = typeof DiscountUpdate.Type

/** The type and amount of a discount: basis points 1 to 10000 for a percentage, at least one fils for a flat one. */
export const checkTerms = (type: DiscountType, amount: number): Either.Either<number, InvalidRequest> =>
  type === "percentage"
    ? amount >= 1 && amount <= maxBps && Number.isInteger(amount)
      ? Either.right(amount)
      : Either.left(new InvalidRequest({
        message: `amount of a percentage discount is in basis points, 1 to ${maxBps} (540 is 5.4 %, ${maxBps} is 100 %)`
      }))
    : amount >= 1 && Number.isSafeInteger(amount)
    ? Either.right(amount)
    : Either.left(new InvalidRequest({ message: "amount of a flat discount is in fils, at least 1 (1000 is AED 10.00)" }))

const productIdShape = /^pdt_[0-9a-f]{32}$/

/** `restricted_to` as given: product ids, each once (which of them exist is the use case's question). */
export const checkRestrictedTo = (
  ids: ReadonlyArray<string>
): Either.Either<ReadonlyArray<ProductId>, InvalidRequest> => {
  const bad = ids.findIndex((id) => !productIdShape.test(id))
  if (bad !== -1) return Either.left(new InvalidRequest({ message: `restricted_to.${bad}: no such product '${ids[bad]}'` }))
  const twice = ids.findIndex((id, i) => ids.indexOf(id) !== i)
  if (twice !== -1) return Either.left(new InvalidRequest({ message: `restricted_to names product ${ids[twice]} twice` }))
  return Either.right(ids as ReadonlyArray<ProductId>)
}

const future = (at: DateTime.Utc | null, now: DateTime.Utc) =>
  at === null || DateTime.greaterThan(at, now)
    ? Either.right(at)
    : Either.left(new InvalidRequest({ message: "expires_at must be in the future" }))

export const create = (
  input: DiscountCreate,
  ctx: {
    readonly id: DiscountId
    readonly accountId: AccountId
    readonly livemode: boolean
    /** The code: the input's, or one made up for it (`codeAlphabet`). */
    readonly code: string
    readonly now: DateTime.Utc
  }
): Either.Either<Discount, InvalidRequest> =>
  Either.gen(function*() {
    const amount = yield* checkTerms(input.type, input.amount)
    const restricted = yield* checkRestrictedTo(input.restricted_to ?? [])
    const expires = yield* future(input.expires_at ?? null, ctx.now)
    return {
      object: "discount",
      discount_id: ctx.id,
      account_id: ctx.accountId,
      livemode: ctx.livemode,
      code: ctx.code,
      name: input.name ?? null,
      type: input.type,
      amount,
      subscription_cycles: input.subscription_cycles ?? null,
      usage_limit: input.usage_limit ?? null,
      times_used: 0,
      held: 0,
      expires_at: expires,
      restricted_to: restricted,
      preserve_on_plan_change: input.preserve_on_plan_change ?? false,
      metadata: input.metadata ?? {},
      created_at: ctx.now
    } satisfies Discount
  })

/**
 * A partial update: what the patch names changes, the rest stays. The type and amount must agree as at creation (a new
 * type comes with its amount); the
 * usage limit may not fall below the uses made and held; an `expires_at` in the past ends the discount now (how the
 * dashboard disables one). An empty patch changes nothing.
 */
export const update = (d: Discount, patch: DiscountUpdate): Either.Either<Discount, InvalidRequest> =>
  Either.gen(function*() {
    if (Object.keys(patch).length === 0) return d
    const type = patch.type ?? d.type
    // What `amount` means follows the type (basis points or fils): a new type without a new amount is a guess.
    if (type !== d.type && patch.amount === undefined) {
      return yield* Either.left(new InvalidRequest({ message: "A change of type needs its amount too: send type and amount together" }))
    }
    const amount = yield* checkTerms(type, patch.amount ?? d.amount)
    const restricted = patch.restricted_to === undefined ? d.restricted_to : yield* checkRestrictedTo(patch.restricted_to)
    const limit = patch.usage_limit === undefined ? d.usage_limit : patch.usage_limit
    if (limit !== null && limit < d.times_used + d.held) {
      return yield* Either.left(new InvalidRequest({
        message: `usage_limit must be at least ${d.times_used + d.held}: the uses already made or being paid for`
      }))
    }
    return {
      ...d,
      code: patch.code ?? d.code,
      name: patch.name === undefined ? d.name : patch.name,
      type,
      amount,
      subscription_cycles: patch.subscription_cycles === undefined ? d.subscription_cycles : patch.subscription_cycles,
      usage_limit: limit,
      expires_at: patch.expires_at === undefined ? d.expires_at : patch.expires_at,
      restricted_to: restricted,
      preserve_on_plan_change: patch.preserve_on_plan_change ?? d.preserve_on_plan_change,
      metadata: patch.metadata ?? d.metadata
    } satisfies Discount
  })

/** Why a code cannot be redeemed: no such code, past its expiry, its uses all taken, or nothing in the cart it fits. */
export type Refusal = "unknown" | "expired" | "used_up" | "not_applicable"

/** A discount code a checkout cannot take, and why. */
export class DiscountNotRedeemable extends Schema.TaggedError<DiscountNotRedeemable>()("DiscountNotRedeemable", {
  code: Schema.propertySignature(Schema.Literal("INVALID_REQUEST")).pipe(
    Schema.withConstructorDefault(() => "INVALID_REQUEST" as const)
  ),
  discount_code: Schema.String,
  reason: Schema.Literal("unknown", "expired", "used_up", "not_applicable")
}) {
  override get message(): string {
    const code = [...this.discount_code].slice(0, 40).join("")
    switch (this.reason) {
      case "unknown":
        return `discount_code: no discount has the code '${code}'`
      case "expired":
        return `discount_code: ${code} has expired`
      case "used_up":
        return `discount_code: ${code} has been used as many times as its usage_limit allows`
      case "not_applicable":
        return `discount_code: ${code} applies to none of the products in this cart`
    }
  }
}

/** The refusal in the words of a customer typing the code on the hosted page. */
export const customerMessages: Record<Refusal, string> = {
  unknown: "This code is not valid. Check it and try again.",
  expired: "This code has expired.",
  used_up: "This code has been used up.",
  not_applicable: "This code does not apply to anything in your order."
}
export const customerMessage = (reason: Refusal): string => customerMessages[reason]

/** Whether the discount applies to a line of `productId`: it is restricted to none, or to that one among others. */
export const appliesTo = (d: { readonly restricted_to: ReadonlyArray<string> }, productId: string): boolean =>
  d.restricted_to.length === 0 || d.restricted_to.includes(productId)

/** Whether it has reached its expiry at `now`. */
export const isExpired = (d: Discount, now: DateTime.Utc): boolean =>
  d.expires_at !== null && DateTime.lessThanOrEqualTo(d.expires_at, now)

/** Whether every use its limit allows is made or held by a charge still at the processor. */
export const isUsedUp = (d: Discount): boolean => d.usage_limit !== null && d.times_used + d.held >= d.usage_limit

/**
 * Whether `d` (found by the code a customer or a merchant gave, `typed`) may be redeemed at `now` by a cart of
 * `productIds`: not expired, not used up, and fitting something in the cart.
 */
export const redeemable = (
  d: Discount,
  typed: string,
  now: DateTime.Utc,
  productIds: ReadonlyArray<string>
): Either.Either<Discount, DiscountNotRedeemable> => {
  const refuse = (reason: Refusal) => Either.left(new DiscountNotRedeemable({ discount_code: typed, reason }))
  if (isExpired(d, now)) return refuse("expired")
  if (isUsedUp(d)) return refuse("used_up")
  if (!productIds.some((id) => appliesTo(d, id))) return refuse("not_applicable")
  return Either.right(d)
}

/** A use held for a charge about to go to the processor (call after `redeemable`). */
export const hold = (d: Discount): Discount => ({ ...d, held: d.held + 1 })

/** The charge that held a use has an outcome: the use is made (counted) if it succeeded, given back otherwise. */
export const release = (d: Discount, succeeded: boolean): Discount => ({
  ...d,
  held: Math.max(0, d.held - 1),
  times_used: succeeded ? d.times_used + 1 : d.times_used
})

/** The terms `lineDiscounts` needs. */
export interface Terms {
  readonly type: DiscountType
  readonly amount: number
}

/**
 * What a discount takes off each line, in fils: `amount` is the line's total as priced (quantity × unit price, in
 * the price's own terms), `eligible` whether the discount applies to it. A percentage takes that share of each
 * eligible line, rounded half up to the fils; a flat amount is shared across the eligible lines in proportion to their
 * amounts (largest remainder), and never more than they add up to. Each share is between 0 and its line's amount.
 */
export const lineDiscounts = (
  terms: Terms,
  lines: ReadonlyArray<{ readonly amount: number; readonly eligible: boolean }>
): ReadonlyArray<number> => {
  if (terms.type === "percentage") {
    const bps = BigInt(Math.min(Math.max(terms.amount, 0), maxBps))
    return lines.map((l) => (l.eligible ? Number(roundHalfUp(BigInt(l.amount) * bps, BigInt(maxBps))) : 0))
  }
  const weights = lines.map((l) => (l.eligible ? l.amount : 0))
  const off = Math.min(Math.max(terms.amount, 0), weights.reduce((a, b) => a + b, 0))
  return apportion(off, weights)
}

/** A discount as a checkout applied it: the code, its terms, and the fils it took off (`amount_off`). */
export const AppliedDiscount = Schema.Struct({
  discount_id: DiscountId,
  code: Schema.String,
  type: DiscountType,
  amount: Schema.Int,
  subscription_cycles: Schema.NullOr(Schema.Int),
  amount_off: Amount.annotations({
    description: "The fils it took off the prices as listed (VAT included or not, as the prices are)"
  })
}).annotations({ identifier: "AppliedDiscount" })
export type AppliedDiscount = typeof AppliedDiscount.Type

export const applied = (d: Discount, amountOff: number): AppliedDiscount => ({
  discount_id: d.discount_id,
  code: d.code,
  type: d.type,
  amount: d.amount,
  subscription_cycles: d.subscription_cycles,
  amount_off: amountOff
})

/**
 * A discount a subscription carries: its terms, and how many renewals it still takes off (`null`: every one). Each
 * paid renewal uses one cycle (`afterRenewal`), in the transaction that records it.
 */
export const SubscriptionDiscount = Schema.Struct({
  discount_id: DiscountId,
  code: Schema.String,
  type: DiscountType,
  amount: Schema.Int,
  subscription_cycles: Schema.NullOr(Schema.Int),
  cycles_remaining: Schema.NullOr(Schema.Int.pipe(Schema.nonNegative())).annotations({
    description: "Renewals it still takes off; null: every renewal"
  })
}).annotations({ identifier: "SubscriptionDiscount" })
export type SubscriptionDiscount = typeof SubscriptionDiscount.Type

/**
 * The discount a subscription's checkout redeemed, on the subscription: its first payment used the first cycle
 * (`firstCycleUsed`), unless that payment was a trial's, which a code takes nothing off: its cycles then start at the
 * first renewal.
 */
export const forSubscription = (a: AppliedDiscount, firstCycleUsed: boolean): SubscriptionDiscount => ({
  discount_id: a.discount_id,
  code: a.code,
  type: a.type,
  amount: a.amount,
  subscription_cycles: a.subscription_cycles,
  cycles_remaining: a.subscription_cycles === null ? null : Math.max(0, a.subscription_cycles - (firstCycleUsed ? 1 : 0))
})

/**
 * A code redeemed by a plan change, on the subscription with all its cycles: the change's first period (its charge,
 * or the next renewal when nothing is charged now) uses the first, as any paid period does (`afterRenewal`).
 */
export const forPlanChange = (d: Discount): SubscriptionDiscount => ({
  discount_id: d.discount_id,
  code: d.code,
  type: d.type,
  amount: d.amount,
  subscription_cycles: d.subscription_cycles,
  cycles_remaining: d.subscription_cycles
})

/**
 * Whether a subscription's discount `d` (the discount as it is now; none when deleted) stays on through a change to
 * `productId`: its merchant set `preserve_on_plan_change` and it applies to that product.
 */
export const keptOnPlanChange = (d: Discount | undefined, productId: string): boolean =>
  d !== undefined && d.preserve_on_plan_change && appliesTo(d, productId)

/** A use counted without a charge to wait for (a plan change that charges nothing now): `hold` and `release` at once. */
export const redeem = (d: Discount): Discount => release(hold(d), true)

/** A use counted for a change that will not happen after all (a scheduled change cancelled) given back. */
export const giveBack = (d: Discount): Discount => ({ ...d, times_used: Math.max(0, d.times_used - 1) })

/** Whether a subscription's discount still takes something off its next renewal. */
export const inEffect = (d: SubscriptionDiscount): boolean => d.cycles_remaining === null || d.cycles_remaining > 0

/** A paid renewal used a cycle of each discount in effect. */
export const afterRenewal = (discounts: ReadonlyArray<SubscriptionDiscount>): ReadonlyArray<SubscriptionDiscount> =>
  discounts.map((d) => (d.cycles_remaining !== null && d.cycles_remaining > 0 ? { ...d, cycles_remaining: d.cycles_remaining - 1 } : d))

/** A discount's place in a newest-first list. */
export const position = Pagination.byCreation<Discount>((d) => d.created_at, (d) => d.discount_id)
