/**
 * fast-check arbitraries (effect's bundled `FastCheck`, v3) for every Fils resource, so an embedding team can write
 * its own property tests against the engine.
 *
 * Two kinds:
 * - inputs the engine accepts (`productCreate`, `customerCreate`, `webhookCreate`, `discountCreate`,
 *   `checkoutSessionCreate`, `planChangeRequest`): pass them to the use cases (`Products.create(scope, input)`);
 * - stored resources (`product`, `customer`, `checkoutSession`, `payment`, `subscription`, `discount`,
 *   `webhookEndpoint`, `event`): values the domain schemas accept and that satisfy the domain's invariants (a
 *   payment's amounts add up, a subscription's periods follow its anchor, through plan changes too, a discount's uses
 *   stay within its limit), built where possible by running the domain's own state machines.
 *   Give them a `scope` to place them in an account and mode; otherwise both are random.
 *
 * Ids follow the UUIDv7 layout with the resource's `created_at`; under fast-check's bias two values may share an id,
 * so draw several with `FastCheck.uniqueArray(arb, { selector: (p) => p.product_id })`.
 */
import { DateTime, Duration, Either, FastCheck as fc, Redacted } from "effect"
import { paymentData } from "../../src/application/Events.js"
import { subscriptionData } from "../../src/application/Subscriptions.js"
import type { Scope } from "../../src/domain/Account.js"
import * as CheckoutSession from "../../src/domain/CheckoutSession.js"
import type * as Customer from "../../src/domain/Customer.js"
import * as Discount from "../../src/domain/Discount.js"
import * as Event from "../../src/domain/Event.js"
import {
  type AccountId,
  type CheckoutSessionId,
  type CustomerId,
  type DiscountId,
  type EventId,
  type PaymentId,
  prefixes,
  type ProductId,
  type SubscriptionId,
  uuidv7Hex,
  type WebhookId
} from "../../src/domain/Ids.js"
import type { Metadata as MetadataType } from "../../src/domain/Metadata.js"
import * as Payment from "../../src/domain/Payment.js"
import * as PlanChange from "../../src/domain/PlanChange.js"
import * as PlanPolicy from "../../src/domain/PlanPolicy.js"
import * as Product from "../../src/domain/Product.js"
import * as Subscription from "../../src/domain/Subscription.js"
import * as TaxDocument from "../../src/domain/TaxDocument.js"
import type * as WebhookEndpoint from "../../src/domain/WebhookEndpoint.js"

// Building blocks -----------------------------------------------------------------------------------------------------

/** An instant between 2020 and 2100, to the millisecond (what PostgreSQL's timestamptz keeps). */
export const instant: fc.Arbitrary<DateTime.Utc> = fc
  .integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2100, 0, 1) })
  .map((millis) => DateTime.unsafeMake(millis))

const word32 = fc.integer({ min: 0, max: 0xffffffff })
const randomWords = fc.tuple(word32, word32, word32, word32)

/** An id of the given prefix whose time bits are `millis` (as the engine makes them). */
export const idAt = <Id extends string>(prefix: string, millis: number): fc.Arbitrary<Id> =>
  randomWords.map((words) => `${prefix}_${uuidv7Hex(millis, words)}` as Id)

/** An id of the given prefix at any instant. */
export const id = <Id extends string>(prefix: string): fc.Arbitrary<Id> =>
  instant.chain((at) => idAt<Id>(prefix, DateTime.toEpochMillis(at)))

export const accountId: fc.Arbitrary<AccountId> = id<AccountId>(prefixes.account)

/** An account and a mode. */
export const scope: fc.Arbitrary<Scope> = fc.record({ accountId, livemode: fc.boolean() })

const scopeOr = (given: Scope | undefined): fc.Arbitrary<Scope> => given === undefined ? scope : fc.constant(given)

/** Printable text of `minLength` to `maxLength` characters, with some Arabic and emoji among the ASCII. */
export const text = (minLength: number, maxLength: number): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.string({ minLength, maxLength }) },
    {
      weight: 1,
      arbitrary: fc
        .array(fc.constantFrom("قهوة", "تمر", " ", "☕", "é", "Dune", "<b>", "'\"&"), { minLength: 1, maxLength: 8 })
        .map((parts) => parts.join(""))
        .filter((s) => s.length >= minLength && s.length <= maxLength)
    }
  )

/** Merchant metadata: up to 5 keys of 1 to 40 characters, values up to 100. */
export const metadata: fc.Arbitrary<MetadataType> = fc.dictionary(
  fc.string({ minLength: 1, maxLength: 40 }).filter((k) => k !== "__proto__"),
  fc.string({ maxLength: 100 }),
  { maxKeys: 5 }
)

/** An amount in fils, up to one million dirhams. */
export const amount: fc.Arbitrary<number> = fc.integer({ min: 0, max: 100_000_000 })

/** An e-mail address the `Email` schema accepts. */
export const email: fc.Arbitrary<string> = fc
  .tuple(
    fc.stringMatching(/^[a-z0-9][a-z0-9._+-]{0,20}$/),
    fc.stringMatching(/^[a-z0-9]{1,12}$/),
    fc.constantFrom("ae", "com", "example", "org")
  )
  .map(([local, domain, tld]) => `${local}@${domain}.${tld}`)

/** An E.164 phone number. */
export const phoneNumber: fc.Arbitrary<string> = fc.stringMatching(/^\+[1-9][0-9]{7,14}$/)

/**
 * An absolute https URL on a public host, in its normal form (as `new URL(…).href` writes it): valid as a return URL
 * and as a live or test webhook URL, and kept as given.
 */
export const httpsUrl: fc.Arbitrary<string> = fc
  .tuple(
    fc.stringMatching(/^[a-z][a-z0-9]{0,15}$/),
    fc.constantFrom("example.com", "example.ae", "shop.example.org"),
    fc.stringMatching(/^(\/[a-z0-9_-]{1,10}){0,3}$/)
  )
  .map(([sub, host, path]) => `https://${sub}.${host}${path === "" ? "/" : path}`)

const hexToken = fc.stringMatching(/^[0-9a-f]{32}$/)

/** A session's or payment's VAT fields for `lines` (none: a merchant that charges no VAT). */
const taxedAs = (lines: TaxDocument.TaxLines | null) => ({
  tax: lines === null ? null : TaxDocument.totals(lines.lines).vat,
  tax_lines: lines
})

/** A discount code as a charge applied it (what a payment or a subscription keeps of it). */
const appliedDiscount: fc.Arbitrary<Discount.AppliedDiscount> = fc
  .record({
    discount_id: id<DiscountId>(prefixes.discount),
    code: fc.stringMatching(/^[A-Za-z0-9_-]{3,16}$/),
    type: fc.constantFrom(...Discount.DiscountType.literals),
    bps: fc.integer({ min: 1, max: Discount.maxBps }),
    fils: fc.integer({ min: 1, max: 1_000_000 }),
    subscription_cycles: fc.option(fc.integer({ min: 1, max: 24 }), { nil: null }),
    amount_off: fc.integer({ min: 0, max: 1_000_000 })
  })
  .map(({ bps, fils, ...d }) => ({ ...d, amount: d.type === "percentage" ? bps : fils }))

// Inputs the engine accepts -------------------------------------------------------------------------------------------

const planChangeRule: fc.Arbitrary<PlanPolicy.PlanChangeRule> = fc.record({
  proration_billing_mode: fc.constantFrom(...PlanPolicy.ProrationBillingMode.literals),
  effective_at: fc.constantFrom(...PlanPolicy.EffectiveAt.literals)
})

/** A recurring product's plan change policy. */
export const planChangePolicy: fc.Arbitrary<PlanPolicy.PlanChangePolicy> = fc.record({
  upgrade: planChangeRule,
  downgrade: planChangeRule
})

/** A recurring product's trial: none (absent), a free one, or a paid one (which needs a day or more). */
const trial = fc.option(
  fc.integer({ min: 0, max: Product.maxTrialDays }).chain((days) =>
    fc.record({
      days: fc.constant(days),
      amount: days === 0 ? fc.constant(undefined) : fc.option(fc.option(fc.integer({ min: 1, max: 1_000_000 }), { nil: null }), { nil: undefined })
    })
  ),
  { nil: undefined }
)

/**
 * A valid `POST /products` body: one-time or recurring with a schedule of at most three years (a recurring one
 * perhaps with a trial, free or paid, a plan change policy, and offered in the portal).
 */
export const productCreate: fc.Arbitrary<Product.ProductCreate> = fc
  .record({
    policy: fc.option(planChangePolicy, { nil: undefined }),
    offered: fc.option(fc.boolean(), { nil: undefined }),
    name: text(1, 200),
    price: amount,
    description: fc.option(text(0, 500), { nil: undefined }),
    status: fc.option(fc.constantFrom(...Product.ProductStatus.literals), { nil: undefined }),
    metadata: fc.option(metadata, { nil: undefined }),
    schedule: fc.option(
      fc.constantFrom(...Product.BillingInterval.literals).chain((interval) =>
        fc.record({
          interval: fc.constant(interval),
          count: fc.option(fc.integer({ min: 1, max: Product.maxIntervalCount[interval] }), { nil: undefined }),
          trial
        })
      ),
      { nil: undefined }
    )
  })
  .map(({ description, metadata, offered, policy, schedule, status, ...required }) => ({
    ...required,
    currency: "AED",
    ...(description !== undefined ? { description } : {}),
    ...(status !== undefined ? { status } : {}),
    ...(metadata !== undefined ? { metadata } : {}),
    ...(schedule !== undefined
      ? {
        billing: "recurring" as const,
        billing_interval: schedule.interval,
        ...(schedule.count !== undefined ? { interval_count: schedule.count } : {}),
        ...(policy !== undefined ? { plan_change_policy: policy } : {}),
        ...(offered !== undefined ? { offered_in_portal: offered } : {}),
        ...(schedule.trial !== undefined ? { trial_period_days: schedule.trial.days } : {}),
        ...(schedule.trial?.amount !== undefined ? { trial_amount: schedule.trial.amount } : {})
      }
      : {})
  }))

/**
 * A valid `POST /subscriptions/{id}/change-plan` body (without a quote) to one of `productIds` (existing, active,
 * recurring products of the subscription's scope): the modes given or left to the product's policy.
 */
export const planChangeRequest = (productIds: ReadonlyArray<ProductId>): fc.Arbitrary<PlanChange.PlanChangePreviewRequest> =>
  fc
    .record({
      product_id: fc.constantFrom(...productIds),
      quantity: fc.integer({ min: 1, max: 10 }),
      proration_billing_mode: fc.option(fc.constantFrom(...PlanPolicy.ProrationBillingMode.literals), { nil: undefined }),
      effective_at: fc.option(fc.constantFrom(...PlanPolicy.EffectiveAt.literals), { nil: undefined }),
      on_payment_failure: fc.option(fc.constantFrom(...PlanPolicy.OnPaymentFailure.literals), { nil: undefined }),
      metadata: fc.option(metadata, { nil: undefined })
    })
    .map((body) =>
      Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)) as PlanChange.PlanChangePreviewRequest
    )

/** A valid `POST /customers` body. */
export const customerCreate: fc.Arbitrary<Customer.CustomerCreate> = fc
  .record({
    email,
    name: fc.option(fc.option(text(1, 200), { nil: null }), { nil: undefined }),
    phone_number: fc.option(fc.option(phoneNumber, { nil: null }), { nil: undefined }),
    metadata: fc.option(metadata, { nil: undefined })
  })
  .map(({ email, metadata, name, phone_number }) => ({
    email,
    ...(name !== undefined ? { name } : {}),
    ...(phone_number !== undefined ? { phone_number } : {}),
    ...(metadata !== undefined ? { metadata } : {})
  }))

/** A valid `POST /webhooks` body (its https URL on a public host suits both modes). */
export const webhookCreate: fc.Arbitrary<WebhookEndpoint.WebhookCreate> = fc
  .record({
    url: httpsUrl,
    description: fc.option(text(0, 200), { nil: undefined }),
    event_types: fc.option(fc.uniqueArray(fc.constantFrom(...Event.eventTypes), { minLength: 1 }), { nil: undefined }),
    disabled: fc.option(fc.boolean(), { nil: undefined })
  })
  .map(({ description, disabled, event_types, url }) => ({
    url,
    ...(description !== undefined ? { description } : {}),
    ...(event_types !== undefined ? { event_types } : {}),
    ...(disabled !== undefined ? { disabled } : {})
  }))

/** A valid `POST /discounts` body (restricted to none of the products: give `restricted_to` your own). */
export const discountCreate: fc.Arbitrary<Discount.DiscountCreate> = fc
  .record({
    code: fc.option(fc.stringMatching(/^[A-Za-z0-9_-]{3,16}$/), { nil: undefined }),
    type: fc.constantFrom(...Discount.DiscountType.literals),
    bps: fc.integer({ min: 1, max: Discount.maxBps }),
    fils: fc.integer({ min: 1, max: 10_000_000 }),
    subscription_cycles: fc.option(fc.option(fc.integer({ min: 1, max: 36 }), { nil: null }), { nil: undefined }),
    usage_limit: fc.option(fc.option(fc.integer({ min: 1, max: 1_000_000 }), { nil: null }), { nil: undefined }),
    name: fc.option(text(1, 100), { nil: undefined }),
    metadata: fc.option(metadata, { nil: undefined })
  })
  .map(({ bps, code, fils, metadata, name, subscription_cycles, type, usage_limit }) => ({
    type,
    amount: type === "percentage" ? bps : fils,
    ...(code !== undefined ? { code } : {}),
    ...(subscription_cycles !== undefined ? { subscription_cycles } : {}),
    ...(usage_limit !== undefined ? { usage_limit } : {}),
    ...(name !== undefined ? { name } : {}),
    ...(metadata !== undefined ? { metadata } : {})
  }))

/**
 * A valid `POST /checkout_sessions` body over the given (existing, active) products: 1 to 5 lines, an optional new
 * customer, return URL and metadata.
 */
export const checkoutSessionCreate = (
  productIds: ReadonlyArray<ProductId>
): fc.Arbitrary<CheckoutSession.CheckoutSessionCreate> =>
  fc
    .record({
      lines: fc.array(
        fc.record({ product_id: fc.constantFrom(...productIds), quantity: fc.integer({ min: 1, max: 10 }) }),
        { minLength: 1, maxLength: 5 }
      ),
      customer: fc.option(
        fc.record({ email, name: fc.option(text(1, 100), { nil: null }) }),
        { nil: undefined }
      ),
      return_url: fc.option(httpsUrl, { nil: undefined }),
      metadata: fc.option(metadata, { nil: undefined })
    })
    .map(({ customer, lines, metadata, return_url }) => ({
      product_cart: lines,
      ...(customer !== undefined ? { customer } : {}),
      ...(return_url !== undefined ? { return_url } : {}),
      ...(metadata !== undefined ? { metadata } : {})
    }))

// Stored resources ----------------------------------------------------------------------------------------------------

/** A product as the store keeps it. */
export const product = (given?: Scope): fc.Arbitrary<Product.Product> =>
  fc
    .record({ scope: scopeOr(given), input: productCreate, created: instant, edited: fc.option(fc.nat(1e9), { nil: null }) })
    .chain(({ created, edited, input, scope }) =>
      idAt<ProductId>(prefixes.product, DateTime.toEpochMillis(created)).map((productId): Product.Product => {
        const made = Either.getOrThrow(
          Product.create(input, { id: productId, accountId: scope.accountId, livemode: scope.livemode, now: created })
        )
        return { ...made, updated_at: edited === null ? null : DateTime.add(created, { millis: edited }) }
      })
    )

/** A customer as the store keeps it. */
export const customer = (given?: Scope): fc.Arbitrary<Customer.Customer> =>
  fc.record({ scope: scopeOr(given), input: customerCreate, created: instant }).chain(({ created, input, scope }) =>
    idAt<CustomerId>(prefixes.customer, DateTime.toEpochMillis(created)).map((customerId): Customer.Customer => ({
      object: "customer",
      customer_id: customerId,
      account_id: scope.accountId,
      livemode: scope.livemode,
      name: input.name ?? null,
      email: input.email,
      phone_number: input.phone_number ?? null,
      business: null,
      metadata: input.metadata ?? {},
      test_clock_id: null,
      created_at: created
    }))
  )

const cartLine = fc.record({
  product_id: id<ProductId>(prefixes.product),
  name: text(1, 200),
  quantity: fc.integer({ min: 1, max: CheckoutSession.maxQuantity }),
  unit_amount: fc.integer({ min: 0, max: 1_000_000 })
})

/**
 * A checkout session as the store keeps it: its total is its cart's, or for a subscription with a trial what the
 * trial charges (nothing, for a free one); `complete` ones carry their payment (none for a free trial) and
 * subscription, for a one-line subscription cart; `expires_at` is 24 hours after creation.
 */
export const checkoutSession = (given?: Scope): fc.Arbitrary<CheckoutSession.CheckoutSession> =>
  fc
    .record({
      scope: scopeOr(given),
      created: instant,
      cart: fc.array(cartLine, { minLength: 1, maxLength: 5 }),
      subscription: fc.boolean(),
      status: fc.constantFrom(...CheckoutSession.SessionStatus.literals),
      customer: fc.option(
        fc.record({ name: fc.option(text(1, 200), { nil: null }), email, phone_number: fc.option(phoneNumber, { nil: null }) }),
        { nil: null }
      ),
      customerId: fc.option(id<CustomerId>(prefixes.customer), { nil: null }),
      returnUrl: fc.option(httpsUrl, { nil: null }),
      metadata,
      formToken: hexToken,
      taxed: fc.boolean(),
      trial: fc.option(
        fc.record({ days: fc.integer({ min: 1, max: Product.maxTrialDays }), unitAmount: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 100_000 })) }),
        { nil: null }
      ),
      paidAfter: fc.integer({ min: 1, max: Duration.toMillis(CheckoutSession.lifetime) - 1 })
    })
    .chain((s) => {
      const millis = DateTime.toEpochMillis(s.created)
      return fc
        .record({
          sessionId: idAt<CheckoutSessionId>(prefixes.checkoutSession, millis),
          paymentId: idAt<PaymentId>(prefixes.payment, millis + s.paidAfter),
          subscriptionId: idAt<SubscriptionId>(prefixes.subscription, millis + s.paidAfter)
        })
        .map(({ paymentId, sessionId, subscriptionId }): CheckoutSession.CheckoutSession => {
          const kind = s.subscription && s.cart.length === 1 ? "subscription" : "payment"
          const complete = s.status === "complete"
          const trial = kind === "subscription" ? s.trial : null
          const linesAt = (unitAmount: (line: (typeof s.cart)[number]) => number) =>
            s.taxed
              ? TaxDocument.price(s.cart.map((line) => ({
                description: line.name,
                quantity: line.quantity,
                unit_amount: unitAmount(line),
                category: "S" as const,
                item_type: "S" as const,
                item_code: null
              })), true)
              : null
          return {
            object: "checkout_session",
            session_id: sessionId,
            account_id: s.scope.accountId,
            livemode: s.scope.livemode,
            kind,
            status: s.status,
            checkout_url: `http://127.0.0.1:4242/checkout/${sessionId}`,
            total_amount: s.cart.reduce((sum, line) => sum + line.quantity * (trial?.unitAmount ?? line.unit_amount), 0),
            currency: "AED",
            product_cart: s.cart,
            discounts: [],
            customer: s.customer,
            customer_id: s.customerId,
            return_url: s.returnUrl,
            payment_id: complete && trial?.unitAmount !== 0 ? paymentId : null,
            subscription_id: complete && kind === "subscription" ? subscriptionId : null,
            trial_period_days: trial?.days ?? null,
            period_tax_lines: trial === null ? null : linesAt((line) => line.unit_amount),
            metadata: s.metadata,
            form_token: s.formToken,
            created_at: s.created,
            expires_at: DateTime.addDuration(s.created, CheckoutSession.lifetime),
            completed_at: complete ? DateTime.add(s.created, { millis: s.paidAfter }) : null,
            ...taxedAs(linesAt((line) => trial?.unitAmount ?? line.unit_amount))
          }
        })
    })

const cardOnFile = fc.record({
  brand: fc.constantFrom("visa", "mastercard", "amex"),
  last4: fc.stringMatching(/^[0-9]{4}$/),
  exp_month: fc.integer({ min: 1, max: 12 }),
  exp_year: fc.integer({ min: 2026, max: 2099 }),
  token: hexToken.map((hex) => `tok_test_${hex}`)
})

const chargeOutcome: fc.Arbitrary<Payment.ChargeOutcome | undefined> = fc.oneof(
  { weight: 1, arbitrary: fc.constant(undefined) }, // still processing
  { weight: 4, arbitrary: fc.constant({ _tag: "Succeeded" as const }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom("card_declined", "insufficient_funds", "expired_card", "processing_error").map((code) => ({
      _tag: "Failed" as const,
      code
    }))
  }
)

/**
 * A payment as the store keeps it, made by the payment state machine: a `processing` charge, then how it settled,
 * then up to three refunds (each a fraction of what remained). Its amounts satisfy `Payment.violations`.
 */
export const payment = (given?: Scope): fc.Arbitrary<Payment.Payment> =>
  fc
    .record({
      scope: scopeOr(given),
      created: instant,
      total: fc.integer({ min: 1, max: 100_000_000 }),
      reason: fc.constantFrom(...Payment.BillingReason.literals),
      customer: fc.option(
        fc.record({
          customer_id: id<CustomerId>(prefixes.customer),
          name: fc.option(text(1, 200), { nil: null }),
          email,
          phone_number: fc.option(phoneNumber, { nil: null })
        }),
        { nil: null }
      ),
      sessionId: fc.option(id<CheckoutSessionId>(prefixes.checkoutSession), { nil: null }),
      subscriptionId: id<SubscriptionId>(prefixes.subscription),
      card: fc.option(cardOnFile, { nil: null }),
      chargeId: hexToken.map((hex) => `ch_test_${hex}`),
      description: text(0, 200),
      metadata,
      outcome: chargeOutcome,
      settleAfter: fc.integer({ min: 0, max: 10_000 }),
      refunds: fc.array(fc.double({ min: 0.01, max: 1, noNaN: true }), { maxLength: 3 }),
      taxed: fc.boolean(),
      discounts: fc.array(appliedDiscount, { maxLength: 1 })
    })
    .chain((p) =>
      idAt<PaymentId>(prefixes.payment, DateTime.toEpochMillis(p.created)).map((paymentId) => {
        let current: Payment.Payment = {
          object: "payment",
          payment_id: paymentId,
          account_id: p.scope.accountId,
          livemode: p.scope.livemode,
          status: "processing",
          total_amount: p.total,
          refunded_amount: 0,
          fee_amount: 0,
          net_amount: p.total,
          currency: "AED",
          description: p.description,
          customer: p.customer,
          checkout_session_id: p.sessionId,
          subscription_id: p.reason === "payment" ? null : p.subscriptionId,
          billing_reason: p.reason,
          discounts: p.discounts,
          metadata: p.metadata,
          created_at: p.created,
          paid_at: null,
          card: p.card,
          charge_id: p.chargeId,
          failure_code: null,
          credit_applied: 0,
          ...taxedAs(p.taxed ? TaxDocument.chargedLines({ description: p.description, total_amount: p.total }) : null)
        }
        if (p.outcome === undefined) return current
        const settledAt = DateTime.add(p.created, { millis: p.settleAfter })
        current = Either.getOrThrow(Payment.transition(current, { _tag: "Settle", outcome: p.outcome }, settledAt)).next
        for (const fraction of p.refunds) {
          if (current.status !== "succeeded" && current.status !== "partially_refunded") break
          const remaining = current.total_amount - current.refunded_amount
          const refund = Math.max(1, Math.min(remaining, Math.round(remaining * fraction)))
          current = Either.getOrThrow(Payment.transition(current, { _tag: "Refund", amount: refund }, settledAt)).next
        }
        return current
      })
    )

/**
 * A plan change as the history of a stored subscription makes one, half-way through its period: to a recurring
 * product of its own, in a mode; an immediate charge's outcome (paid, declined, or still at the processor: then the
 * history stops there, as the subscription waits for it).
 */
interface PlanChangeStep {
  readonly _tag: "ChangePlan"
  readonly price: number
  readonly interval: Product.BillingInterval
  readonly count: number
  readonly quantity: number
  readonly mode: PlanPolicy.ProrationBillingMode
  readonly effectiveAt: PlanPolicy.EffectiveAt
  readonly onPaymentFailure: PlanPolicy.OnPaymentFailure
  readonly outcome: "succeeded" | "failed" | "pending"
}

const planChangeStep: fc.Arbitrary<PlanChangeStep> = fc.record({
  _tag: fc.constant("ChangePlan" as const),
  price: fc.integer({ min: 0, max: 10_000_000 }),
  interval: fc.constantFrom(...Product.BillingInterval.literals),
  count: fc.integer({ min: 1, max: 3 }),
  quantity: fc.integer({ min: 1, max: 10 }),
  mode: fc.constantFrom(...PlanPolicy.ProrationBillingMode.literals),
  effectiveAt: fc.constantFrom(...PlanPolicy.EffectiveAt.literals),
  onPaymentFailure: fc.constantFrom(...PlanPolicy.OnPaymentFailure.literals),
  outcome: fc.constantFrom("succeeded" as const, "failed" as const, "pending" as const)
})

const subscriptionCommand: fc.Arbitrary<Subscription.SubscriptionCommand | PlanChangeStep> = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ _tag: "ChargeSucceeded" as const }) },
  { weight: 3, arbitrary: fc.constant({ _tag: "ChargeFailed" as const }) },
  { weight: 1, arbitrary: fc.constant({ _tag: "Cancel" as const }) },
  { weight: 1, arbitrary: fc.boolean().map((value) => ({ _tag: "SetCancelAtPeriodEnd" as const, value })) },
  { weight: 1, arbitrary: fc.constant({ _tag: "EndAtPeriodEnd" as const }) },
  { weight: 2, arbitrary: planChangeStep }
)

/**
 * `step` applied to `current` by the plan change's own functions, half-way through its period; the subscription as
 * it was when the change is refused (not active, a change already scheduled, …).
 */
const changePlan = (current: Subscription.Subscription, step: PlanChangeStep, index: number): Subscription.Subscription => {
  const start = DateTime.toEpochMillis(current.current_period_start)
  const at = DateTime.unsafeMake(start + Math.floor((DateTime.toEpochMillis(current.next_billing_date) - start) / 2))
  const product = Either.getOrThrow(Product.create({
    name: `Plan ${index}`,
    price: step.price,
    currency: "AED",
    billing: "recurring",
    billing_interval: step.interval,
    interval_count: step.count
  }, {
    // One product per step of the history: never the plan's own.
    id: `pdt_${String(index).padStart(32, "0")}` as ProductId,
    accountId: current.account_id,
    livemode: current.livemode,
    now: at
  }))
  const priced = PlanChange.price({
    subscription: current,
    product,
    quantity: step.quantity,
    request: { proration_billing_mode: step.mode, effective_at: step.effectiveAt, on_payment_failure: step.onPaymentFailure },
    at,
    vat: null,
    // Each period of the history paid its list price.
    periodCharge: current.recurring_amount
  })
  if (Either.isLeft(priced)) return current
  if (priced.right.effectiveAt === "next_billing_date") return PlanChange.schedule(current, priced.right).next
  if (priced.right.charge === null) return PlanChange.changeWithoutCharge(current, priced.right).next
  const paymentId = `pay_${String(index).padStart(32, "0")}` as PaymentId
  const waiting = PlanChange.awaitCharge(current, priced.right, paymentId)
  if (step.outcome === "pending") return waiting
  return PlanChange.settle(waiting, paymentId, step.outcome === "succeeded", at)?.next ?? waiting
}

/**
 * A subscription as the store keeps it, made by the subscription state machine: started by a first payment (a
 * quarter with a trial), then up to eight renewals, declines, retries and cancellations, each applied when it would
 * be due (commands the state refuses are skipped).
 */
export const subscription = (given?: Scope): fc.Arbitrary<Subscription.Subscription> =>
  fc
    .record({
      scope: scopeOr(given),
      paidAt: instant,
      productId: id<ProductId>(prefixes.product),
      name: text(1, 200),
      interval: fc.constantFrom(...Product.BillingInterval.literals),
      count: fc.integer({ min: 1, max: 3 }),
      quantity: fc.integer({ min: 1, max: 10 }),
      unitAmount: fc.integer({ min: 1, max: 10_000_000 }),
      customer: fc.record({
        customer_id: id<CustomerId>(prefixes.customer),
        name: fc.option(text(1, 200), { nil: null }),
        email
      }),
      card: cardOnFile,
      sessionId: fc.option(id<CheckoutSessionId>(prefixes.checkoutSession), { nil: null }),
      metadata,
      discounts: fc.array(appliedDiscount, { maxLength: 1 }),
      trialDays: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, fc.integer({ min: 1, max: Product.maxTrialDays })),
      commands: fc.array(subscriptionCommand, { maxLength: 8 })
    })
    .chain((s) =>
      idAt<SubscriptionId>(prefixes.subscription, DateTime.toEpochMillis(s.paidAt)).map((subscriptionId) => {
        let current = Subscription.start({
          id: subscriptionId,
          accountId: s.scope.accountId,
          livemode: s.scope.livemode,
          product: {
            product_id: s.productId,
            name: s.name,
            billing_interval: s.interval,
            interval_count: s.count
          },
          quantity: s.quantity,
          unitAmount: s.unitAmount,
          currency: "AED",
          customer: s.customer,
          card: s.card,
          checkoutSessionId: s.sessionId,
          metadata: s.metadata,
          paidAt: s.paidAt,
          trialDays: s.trialDays,
          taxLines: null,
          discounts: s.discounts
        }).next
        let now = s.paidAt
        for (const [index, command] of s.commands.entries()) {
          // A subscription waiting for a plan change's charge stays as it is until that charge has an outcome.
          if (current.pending_change !== null) break
          if (command._tag === "ChangePlan") {
            current = changePlan(current, command, index)
            continue
          }
          const due = Subscription.dueAt(current)
          if (due !== null && (command._tag !== "Cancel" && command._tag !== "SetCancelAtPeriodEnd")) now = due
          // A renewal applies the change scheduled for its date first, as billing does.
          const renewing = command._tag === "ChargeSucceeded" || command._tag === "ChargeFailed"
          const scheduled = renewing ? PlanChange.applyScheduled(current, now) : undefined
          const result = Subscription.transition(scheduled?.next ?? current, command, now)
          if (Either.isRight(result)) current = result.right.next
        }
        return current
      })
    )

/**
 * A discount as the store keeps it: made by `Discount.create`, some of its uses counted and some held by charges in
 * flight, within its usage limit; an expiry after its creation, or none.
 */
export const discount = (given?: Scope): fc.Arbitrary<Discount.Discount> =>
  fc
    .record({
      scope: scopeOr(given),
      input: discountCreate,
      created: instant,
      expiresAfter: fc.option(fc.integer({ min: 1, max: 400 * 86_400_000 }), { nil: null }),
      used: fc.nat(1_000),
      held: fc.nat(5)
    })
    .chain(({ created, expiresAfter, held, input, scope, used }) =>
      fc.tuple(idAt<DiscountId>(prefixes.discount, DateTime.toEpochMillis(created)), fc.stringMatching(/^[A-Z2-9]{16}$/))
        .map(([discountId, madeUp]): Discount.Discount => {
          const made = Either.getOrThrow(Discount.create(
            { ...input, expires_at: expiresAfter === null ? null : DateTime.add(created, { millis: expiresAfter }) },
            { id: discountId, accountId: scope.accountId, livemode: scope.livemode, code: input.code ?? madeUp, now: created }
          ))
          const limit = made.usage_limit ?? Number.MAX_SAFE_INTEGER
          const times = Math.min(used, limit)
          return { ...made, times_used: times, held: Math.min(held, limit - times) }
        })
    )

/** A webhook endpoint as the store keeps it (a test-mode or live one; its URL suits both). */
export const webhookEndpoint = (given?: Scope): fc.Arbitrary<WebhookEndpoint.WebhookEndpoint> =>
  fc
    .record({
      scope: scopeOr(given),
      created: instant,
      url: httpsUrl,
      description: text(0, 200),
      eventTypes: fc.uniqueArray(fc.constantFrom(...Event.eventTypes), { minLength: 1 }),
      disabled: fc.boolean(),
      secret: fc.uint8Array({ minLength: 24, maxLength: 24 }).map((bytes) =>
        `whsec_${btoa(String.fromCharCode(...bytes))}`
      )
    })
    .chain((w) =>
      idAt<WebhookId>(prefixes.webhook, DateTime.toEpochMillis(w.created)).map((webhookId): WebhookEndpoint.WebhookEndpoint => ({
        object: "webhook",
        webhook_id: webhookId,
        account_id: w.scope.accountId,
        livemode: w.scope.livemode,
        url: w.url,
        description: w.description,
        event_types: w.eventTypes,
        disabled: w.disabled,
        secret: Redacted.make(w.secret),
        created_at: w.created
      }))
    )

/**
 * An event as the store keeps it: its `data` is what the engine records for the change, the resource as the API
 * shows it (a payment for `payment.*`, plus `refund_amount` for `refund.succeeded`; a subscription for
 * `subscription.*`).
 */
export const event = (given?: Scope): fc.Arbitrary<Event.Event> =>
  scopeOr(given).chain((s) =>
    fc.oneof(
      payment(s).map((p) => ({
        type: p.status === "failed"
          ? "payment.failed" as const
          : p.refunded_amount > 0
          ? "refund.succeeded" as const
          : "payment.succeeded" as const,
        data: paymentData(p, p.refunded_amount > 0 ? p.refunded_amount : undefined),
        at: p.paid_at ?? p.created_at
      })),
      subscription(s).map((sub) => ({
        type: sub.status === "cancelled"
          ? "subscription.cancelled" as const
          : sub.status === "on_hold"
          ? "subscription.on_hold" as const
          : sub.period > 0
          ? "subscription.renewed" as const
          : "subscription.active" as const,
        data: subscriptionData(sub),
        at: sub.current_period_start
      }))
    ).chain(({ at, data, type }) =>
      idAt<EventId>(prefixes.event, DateTime.toEpochMillis(at)).map((eventId) =>
        Event.make({ id: eventId, accountId: s.accountId, livemode: s.livemode, type, data, now: at })
      )
    )
  )
