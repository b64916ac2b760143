/** Products: what a merchant sells, once or on a recurring schedule (docs/decisions.md §1). */
import { DateTime, Either, Schema } from "effect"
import { CurrencyNotSupported, InvalidRequest } from "./Errors.js"
import { AccountId, ProductId } from "./Ids.js"
import { Metadata } from "./Metadata.js"
import * as Pagination from "./Pagination.js"
import { Text } from "./Text.js"
import { Amount, Currency, supportedCurrencies } from "./Money.js"
import { PlanChangePolicy } from "./PlanPolicy.js"
import { ItemType, type LineInput } from "./TaxDocument.js"
import * as Vat from "./Vat.js"

export const Billing = Schema.Literal("one_time", "recurring")
export type Billing = typeof Billing.Type
export const BillingInterval = Schema.Literal("day", "week", "month", "year")
export type BillingInterval = typeof BillingInterval.Type
export const ProductStatus = Schema.Literal("active", "draft", "archived")
export type ProductStatus = typeof ProductStatus.Type

/** The longest schedule allowed per interval unit: three years whatever the unit. */
export const maxIntervalCount: Record<BillingInterval, number> = { day: 365, week: 156, month: 36, year: 3 }

export const IntervalCount = Schema.Int.pipe(Schema.between(1, 365))
/** The longest trial a recurring product (or a checkout session) may give, in days. */
export const maxTrialDays = 365
/** A trial's length in days; 0 is none. */
export const TrialPeriodDays = Schema.Int.pipe(Schema.between(0, maxTrialDays)).annotations({
  identifier: "TrialPeriodDays",
  message: () => `must be a whole number of days from 0 to ${maxTrialDays}`,
  description: `Days of trial before the first full charge, 0 (none) to ${maxTrialDays}.`
})
/** What a paid trial charges per unit at checkout, in fils; a free trial has none (null). */
export const TrialAmount = Amount.pipe(Schema.greaterThanOrEqualTo(1)).annotations({
  identifier: "TrialAmount",
  message: () => "must be a whole number of fils, at least 1 (null makes the trial free)",
  description: "What a paid trial charges per unit at checkout, in fils (priced like `price`); null for a free trial."
})
export const ProductName = Text(1, 200)
export const ProductDescription = Text(0, 5000)
/** A service accounting code (services) or an HS code (goods): digits and dots, as the classification writes it. */
export const ItemCode = Schema.String.pipe(
  Schema.pattern(/^[0-9][0-9.]{1,19}$/, { message: () => "An item code (SAC or HS) is 2 to 20 digits and dots" }),
  Schema.annotations({ identifier: "ItemCode", description: "Service accounting code (SAC) or HS code: digits and dots." })
)

const resourceFields = {
  object: Schema.Literal("product"),
  product_id: ProductId,
  name: Schema.String,
  description: Schema.String,
  price: Amount,
  currency: Currency,
  billing: Billing,
  billing_interval: Schema.NullOr(BillingInterval),
  interval_count: Schema.NullOr(IntervalCount),
  /** A recurring product's trial (docs/subscriptions.md#trials): its days, and what a paid one charges per unit. */
  trial_period_days: TrialPeriodDays,
  trial_amount: Schema.NullOr(TrialAmount),
  status: ProductStatus,
  /** Its VAT category (standard 5 % unless the merchant says otherwise): docs/tax-documents.md. */
  tax_category: Vat.Category,
  /** Why an exempt product is exempt; set exactly when `tax_category` is `E`. */
  tax_exemption_code: Schema.NullOr(Vat.ExemptionCode),
  item_type: ItemType,
  item_code: Schema.NullOr(ItemCode),
  /** A recurring product's default modes for plan changes to it (docs/subscriptions.md); null: the request says. */
  plan_change_policy: Schema.NullOr(PlanChangePolicy),
  /** Whether the customer portal offers it when a customer changes plan (recurring products only). */
  offered_in_portal: Schema.Boolean,
  metadata: Metadata,
  livemode: Schema.Boolean,
  created_at: Schema.DateTimeUtc,
  updated_at: Schema.NullOr(Schema.DateTimeUtc)
}

/** The resource as the API shows it. */
export const ProductResource = Schema.Struct(resourceFields).annotations({ identifier: "Product" })
/** The stored product: the resource plus its owner. */
export const Product = Schema.Struct({ ...resourceFields, account_id: AccountId })
export type Product = typeof Product.Type

/** A currency field accepts any string so that an unsupported one is `CURRENCY_NOT_SUPPORTED`, not a type error. */
export const CurrencyInput = Schema.String.annotations({
  identifier: "CurrencyInput",
  jsonSchema: { type: "string", enum: ["AED"], description: "ISO 4217 code; only AED is accepted." }
})

/**
 * The billing schedule's rules as JSON Schema: a `one_time` product (the default) has no interval and no plan change
 * settings; a `recurring` one needs `billing_interval`, and `interval_count` (default 1) is at most `maxIntervalCount` of its unit.
 */
const scheduleJsonSchema = {
  allOf: [
    {
      if: { required: ["billing"], properties: { billing: { const: "recurring" } } },
      then: { required: ["billing_interval"], properties: { billing_interval: { type: "string" } } },
      else: {
        properties: {
          billing_interval: { type: "null" },
          interval_count: { type: "null" },
          plan_change_policy: { type: "null" },
          offered_in_portal: { const: false },
          trial_period_days: { const: 0 },
          trial_amount: { type: "null" }
        }
      }
    },
    // `checkTrial`: a paid trial is a trial.
    {
      if: { required: ["trial_amount"], properties: { trial_amount: { type: "integer" } } },
      then: { required: ["trial_period_days"], properties: { trial_period_days: { minimum: 1 } } }
    },
    ...Object.entries(maxIntervalCount).map(([unit, max]) => ({
      if: { required: ["billing_interval"], properties: { billing_interval: { const: unit } } },
      then: { properties: { interval_count: { anyOf: [{ type: "null" }, { type: "integer", maximum: max }] } } }
    }))
  ]
}

/** `checkTaxation`'s rule as JSON Schema: an exempt (`E`) product names its exemption reason, and only an exempt one. */
const taxationJsonSchema = {
  if: { required: ["tax_category"], properties: { tax_category: { const: "E" } } },
  then: { required: ["tax_exemption_code"], properties: { tax_exemption_code: { type: "string" } } },
  else: { properties: { tax_exemption_code: { type: "null" } } }
}

export const ProductCreate = Schema.Struct({
  name: ProductName,
  price: Amount,
  currency: CurrencyInput,
  description: Schema.optional(ProductDescription),
  billing: Schema.optional(Billing),
  billing_interval: Schema.optional(Schema.NullOr(BillingInterval)),
  interval_count: Schema.optional(Schema.NullOr(IntervalCount)),
  trial_period_days: Schema.optional(TrialPeriodDays),
  trial_amount: Schema.optional(Schema.NullOr(TrialAmount)),
  status: Schema.optional(ProductStatus),
  tax_category: Schema.optional(Vat.Category),
  tax_exemption_code: Schema.optional(Schema.NullOr(Vat.ExemptionCode)),
  item_type: Schema.optional(ItemType),
  item_code: Schema.optional(Schema.NullOr(ItemCode)),
  plan_change_policy: Schema.optional(Schema.NullOr(PlanChangePolicy)),
  offered_in_portal: Schema.optional(Schema.Boolean),
  metadata: Schema.optional(Metadata)
}).pipe(
  // `schedule` and `checkTaxation` decide these rules; the document states them so that a client never sends what
  // it refuses.
  Schema.filter(() => true, { jsonSchema: { allOf: [...scheduleJsonSchema.allOf, taxationJsonSchema] } })
).annotations({ identifier: "ProductCreate" })
export type ProductCreate = typeof ProductCreate.Type

export const ProductUpdate = Schema.Struct({
  name: Schema.optional(ProductName),
  description: Schema.optional(ProductDescription),
  price: Schema.optional(Amount),
  billing: Schema.optional(Billing),
  billing_interval: Schema.optional(Schema.NullOr(BillingInterval)),
  interval_count: Schema.optional(Schema.NullOr(IntervalCount)),
  trial_period_days: Schema.optional(TrialPeriodDays),
  trial_amount: Schema.optional(Schema.NullOr(TrialAmount)),
  status: Schema.optional(ProductStatus),
  tax_category: Schema.optional(Vat.Category),
  tax_exemption_code: Schema.optional(Schema.NullOr(Vat.ExemptionCode)),
  item_type: Schema.optional(ItemType),
  item_code: Schema.optional(Schema.NullOr(ItemCode)),
  plan_change_policy: Schema.optional(Schema.NullOr(PlanChangePolicy)),
  offered_in_portal: Schema.optional(Schema.Boolean),
  metadata: Schema.optional(Metadata)
}).annotations({ identifier: "ProductUpdate" })
export type ProductUpdate = typeof ProductUpdate.Type

const isSupported = (currency: string): currency is Currency => supportedCurrencies.some((c) => c === currency)

export const checkCurrency = (currency: string): Either.Either<Currency, CurrencyNotSupported> =>
  isSupported(currency)
    ? Either.right(currency)
    : Either.left(
      new CurrencyNotSupported({
        message: `Currency '${currency}' is not supported; enabled currencies: ${supportedCurrencies.join(", ")}`
      })
    )

interface Schedule {
  readonly billing: Billing
  readonly billing_interval: BillingInterval | null
  readonly interval_count: number | null
}

/**
 * The billing consistency rule: a one-time product has neither interval nor count; a recurring one has an interval
 * and a count (default 1) no longer than three years.
 */
export const normalizeSchedule = (s: {
  readonly billing: Billing
  readonly billing_interval: BillingInterval | null | undefined
  readonly interval_count: number | null | undefined
}): Either.Either<Schedule, InvalidRequest> => {
  if (s.billing === "one_time") {
    if (s.billing_interval != null || s.interval_count != null) {
      return Either.left(
        new InvalidRequest({
          message: "billing_interval and interval_count must be null when billing is 'one_time'"
        })
      )
    }
    return Either.right({ billing: "one_time", billing_interval: null, interval_count: null })
  }
  if (s.billing_interval == null) {
    return Either.left(new InvalidRequest({ message: "billing_interval is required when billing is 'recurring'" }))
  }
  const count = s.interval_count ?? 1
  const max = maxIntervalCount[s.billing_interval]
  if (count > max) {
    return Either.left(
      new InvalidRequest({
        message: `interval_count must be at most ${max} when billing_interval is '${s.billing_interval}'`
      })
    )
  }
  return Either.right({ billing: "recurring", billing_interval: s.billing_interval, interval_count: count })
}

export interface Trial {
  readonly trial_period_days: number
  readonly trial_amount: number | null
}

/** Only a recurring product has a trial, and only a trial (of a day or more) is paid (`trial_amount`). */
export const checkTrial = (billing: Billing, t: Trial): Either.Either<Trial, InvalidRequest> =>
  billing === "one_time" && (t.trial_period_days > 0 || t.trial_amount !== null)
    ? Either.left(new InvalidRequest({ message: "trial_period_days and trial_amount apply only to recurring products (billing 'recurring')" }))
    : t.trial_amount !== null && t.trial_period_days === 0
    ? Either.left(new InvalidRequest({
      message: "trial_amount needs a trial: set trial_period_days (1 to 365), or trial_amount to null"
    }))
    : Either.right(t)

export interface Taxation {
  readonly tax_category: Vat.Category
  readonly tax_exemption_code: Vat.ExemptionCode | null
  readonly item_type: ItemType
  readonly item_code: string | null
}

/** An exempt product says why (its e-invoice must); no other category has an exemption reason. */
export const checkTaxation = (t: Taxation): Either.Either<Taxation, InvalidRequest> =>
  t.tax_category === "E" && t.tax_exemption_code === null
    ? Either.left(new InvalidRequest({ message: "tax_exemption_code is required when tax_category is 'E' (exempt)" }))
    : t.tax_category !== "E" && t.tax_exemption_code !== null
    ? Either.left(new InvalidRequest({ message: "tax_exemption_code must be null unless tax_category is 'E' (exempt)" }))
    : Either.right(t)

export interface PlanChangeSettings {
  readonly plan_change_policy: PlanChangePolicy | null
  readonly offered_in_portal: boolean
}

/** Plan changes are a subscription's: only a recurring product carries a policy or is offered in the portal. */
export const checkPlanChangeSettings = (
  billing: Billing,
  settings: PlanChangeSettings
): Either.Either<PlanChangeSettings, InvalidRequest> =>
  billing === "one_time" && settings.plan_change_policy !== null
    ? Either.left(new InvalidRequest({ message: "plan_change_policy must be null when billing is 'one_time'" }))
    : billing === "one_time" && settings.offered_in_portal
    ? Either.left(new InvalidRequest({ message: "offered_in_portal must be false when billing is 'one_time'" }))
    : Either.right(settings)

export const create = (
  input: ProductCreate,
  ctx: { readonly id: ProductId; readonly accountId: AccountId; readonly livemode: boolean; readonly now: DateTime.Utc }
): Either.Either<Product, InvalidRequest | CurrencyNotSupported> =>
  Either.gen(function*() {
    const currency = yield* checkCurrency(input.currency)
    const schedule = yield* normalizeSchedule({
      billing: input.billing ?? "one_time",
      billing_interval: input.billing_interval,
      interval_count: input.interval_count
    })
    const trial = yield* checkTrial(schedule.billing, {
      trial_period_days: input.trial_period_days ?? 0,
      trial_amount: input.trial_amount ?? null
    })
    const taxation = yield* checkTaxation({
      tax_category: input.tax_category ?? "S",
      tax_exemption_code: input.tax_exemption_code ?? null,
      item_type: input.item_type ?? "S",
      item_code: input.item_code ?? null
    })
    const planChanges = yield* checkPlanChangeSettings(schedule.billing, {
      plan_change_policy: input.plan_change_policy ?? null,
      offered_in_portal: input.offered_in_portal ?? false
    })
    return {
      object: "product",
      product_id: ctx.id,
      account_id: ctx.accountId,
      livemode: ctx.livemode,
      name: input.name,
      description: input.description ?? "",
      price: input.price,
      currency,
      ...schedule,
      ...trial,
      status: input.status ?? "active",
      ...taxation,
      ...planChanges,
      metadata: input.metadata ?? {},
      created_at: ctx.now,
      updated_at: null
    } satisfies Product
  })

/**
 * Applies a partial update. Switching `billing` without naming the schedule fields (the trial's included) resets them
 * to the new kind's defaults; the merged product must satisfy the same rules as at creation. An empty update changes
 * nothing.
 */
export const update = (
  product: Product,
  patch: ProductUpdate,
  now: DateTime.Utc
): Either.Either<Product, InvalidRequest> =>
  Either.gen(function*() {
    if (Object.keys(patch).length === 0) return product
    const billingChanged = patch.billing !== undefined && patch.billing !== product.billing
    const schedule = yield* normalizeSchedule({
      billing: patch.billing ?? product.billing,
      billing_interval: patch.billing_interval !== undefined
        ? patch.billing_interval
        : billingChanged
        ? null
        : product.billing_interval,
      interval_count: patch.interval_count !== undefined
        ? patch.interval_count
        : billingChanged
        ? null
        : product.interval_count
    })
    const trial = yield* checkTrial(schedule.billing, {
      trial_period_days: patch.trial_period_days ?? (billingChanged ? 0 : product.trial_period_days),
      trial_amount: patch.trial_amount !== undefined ? patch.trial_amount : billingChanged ? null : product.trial_amount
    })
    const taxation = yield* checkTaxation({
      tax_category: patch.tax_category ?? product.tax_category,
      tax_exemption_code: patch.tax_exemption_code !== undefined
        ? patch.tax_exemption_code
        : (patch.tax_category ?? product.tax_category) === "E"
        ? product.tax_exemption_code
        : null,
      item_type: patch.item_type ?? product.item_type,
      item_code: patch.item_code !== undefined ? patch.item_code : product.item_code
    })
    // Like the schedule, a switch to one-time billing drops the plan change settings unless the patch names them.
    const planChanges = yield* checkPlanChangeSettings(schedule.billing, {
      plan_change_policy: patch.plan_change_policy !== undefined
        ? patch.plan_change_policy
        : billingChanged
        ? null
        : product.plan_change_policy,
      offered_in_portal: patch.offered_in_portal ?? (billingChanged ? false : product.offered_in_portal)
    })
    return {
      ...product,
      ...taxation,
      ...planChanges,
      name: patch.name ?? product.name,
      description: patch.description ?? product.description,
      price: patch.price ?? product.price,
      status: patch.status ?? product.status,
      metadata: patch.metadata ?? product.metadata,
      ...schedule,
      ...trial,
      updated_at: now
    } satisfies Product
  })

/** A sale of `quantity` of `product` as a line to price with its VAT (`TaxDocument.price`). */
export const lineInput = (product: Product, quantity: number): LineInput => ({
  description: product.name,
  quantity,
  unit_amount: product.price,
  category: product.tax_category,
  item_type: product.item_type,
  item_code: product.item_code,
  ...(product.tax_exemption_code === null ? {} : { exemption_code: product.tax_exemption_code })
})

export interface ProductFilter {
  readonly status?: ProductStatus | undefined
  readonly billing?: Billing | undefined
  /** Only the products the customer portal offers as plans (or only the others). */
  readonly offered_in_portal?: boolean | undefined
}

export const matches = (product: Product, filter: ProductFilter): boolean =>
  (filter.status === undefined || product.status === filter.status) &&
  (filter.billing === undefined || product.billing === filter.billing) &&
  (filter.offered_in_portal === undefined || product.offered_in_portal === filter.offered_in_portal)

/** A schedule in words, as pages show it: `every month`, `every 3 months`. */
export const everyInterval = (interval: BillingInterval, count: number): string =>
  count === 1 ? `every ${interval}` : `every ${count} ${interval}s`

/** Where a product stands in a newest-first list. */
export const position = Pagination.byCreation<Product>((p) => p.created_at, (p) => p.product_id)
