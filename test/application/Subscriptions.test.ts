/**
 * Subscription lifecycles over the memory store with TestClock (docs/decisions.md §4, §6, §7): a subscription checkout
 * paid through `Checkout.pay`, then `Billing.runOnce()` after moving the clock. The processor is the simulated one,
 * wrapped so a test can decide the outcome of each saved-card charge (`chargeToken`) and count them.
 */
import { EInvoiceAdapters } from "../../adapters/einvoice/ProviderConfig.js"
import { assert, describe, it } from "@effect/vitest"
import { Clock, ConfigProvider, Context, DateTime, Deferred, Effect, Either, FastCheck, Fiber, Layer, Option, Ref, TestClock } from "effect"
import { SignerNode } from "../../adapters/crypto/SignerNode.js"
import { WebhookTransportHttp } from "../../adapters/webhooks/WebhookTransportHttp.js"
import { StoreMemory } from "../../adapters/memory/StoreMemory.js"
import { makeSimulatedProcessorMemory } from "../../adapters/processor/SimulatedProcessor.js"
import { Billing } from "../../src/application/Billing.js"
import { Engine } from "../../src/application/Engine.js"
import { Events } from "../../src/application/Events.js"
import { Payments } from "../../src/application/Payments.js"
import { Products } from "../../src/application/Products.js"
import { Subscriptions } from "../../src/application/Subscriptions.js"
import type { Scope } from "../../src/domain/Account.js"
import * as Calendar from "../../src/domain/Calendar.js"
import type { SubscriptionId } from "../../src/domain/Ids.js"
import type * as Payment from "../../src/domain/Payment.js"
import type { BillingInterval } from "../../src/domain/Product.js"
import type * as Subscription from "../../src/domain/Subscription.js"
import {
  type ChargeRequest,
  type ChargeResult,
  type Movement,
  PaymentProcessor,
  ProcessorUnavailable
} from "../../src/ports/PaymentProcessor.js"
import { Store } from "../../src/ports/Store.js"
import { cards, formWith, makeProduct, makeSession, pay } from "../support/checkout.js"
import { newAccount } from "./harness.js"

// The controlled processor --------------------------------------------------------------------------------------------

/**
 * What a saved-card charge does: what the simulated processor says, a forced outcome, the money taken and the
 * answer lost (`lost`), nothing taken and the processor unreachable (`unreachable`), or a call still on its way
 * that reaches the processor only once the gate opens (`late`).
 */
type Decision = "simulate" | "succeed" | "decline" | "lost" | "unreachable" | "late"

interface ProcessorControlShape {
  /** Decides the n-th saved-card charge (0-based, counted over the engine's life). */
  readonly decide: Ref.Ref<(n: number) => Decision>
  /** Every saved-card charge the engine asked for, in order. */
  readonly charges: Ref.Ref<ReadonlyArray<ChargeRequest>>
  /**
   * Awaited by each saved-card charge before it answers (after the processor acted on it, except `late` ones):
   * holds a charge "in flight".
   */
  readonly gate: Ref.Ref<Effect.Effect<void>>
  /** Whether lookups fail as unavailable. */
  readonly lookupDown: Ref.Ref<boolean>
  /** Lookups asked, by reference, in order. */
  readonly lookups: Ref.Ref<ReadonlyArray<string>>
}
class ProcessorControl extends Context.Tag("test/ProcessorControl")<ProcessorControl, ProcessorControlShape>() {}

const ControlLive = Layer.effect(
  ProcessorControl,
  Effect.all({
    decide: Ref.make<(n: number) => Decision>(() => "simulate"),
    charges: Ref.make<ReadonlyArray<ChargeRequest>>([]),
    gate: Ref.make<Effect.Effect<void>>(Effect.void),
    lookupDown: Ref.make(false),
    lookups: Ref.make<ReadonlyArray<string>>([])
  })
)

/**
 * The simulated processor with its saved-card charges decided by the test. It keeps what it did by reference, as
 * the port requires: a second call under a reference answers with the first's charge, a lookup finds it, and a
 * lookup that finds nothing closes the reference (a call arriving later takes nothing).
 */
const ControlledProcessor = Layer.effect(
  PaymentProcessor,
  Effect.gen(function*() {
    const control = yield* ProcessorControl
    const simulated = yield* makeSimulatedProcessorMemory({ live: false })
    const made = new Map<string, ChargeResult | "closed">()
    const down = new ProcessorUnavailable("the processor is down")
    const make = (request: ChargeRequest, token: string, decision: Decision) =>
      Effect.gen(function*() {
        const before = made.get(request.reference)
        if (before === "closed") return { chargeId: "ch_none", outcome: { _tag: "Failed", code: "processing_error" }, card: null } as ChargeResult
        if (before !== undefined) return before
        if (decision === "unreachable") return undefined
        const result: ChargeResult = decision === "simulate"
          ? yield* simulated.chargeToken(request, token)
          : {
            chargeId: `ch_test_${request.reference}`,
            outcome: decision === "decline" ? { _tag: "Failed", code: "card_declined" } : { _tag: "Succeeded" },
            card: null
          }
        made.set(request.reference, result)
        return result
      })
    return PaymentProcessor.of({
      ...simulated,
      chargeToken: (request, token) =>
        Effect.gen(function*() {
          // A network call yields: concurrent billing passes interleave here.
          yield* Effect.yieldNow()
          const before = yield* Ref.getAndUpdate(control.charges, (cs) => [...cs, request])
          const decision = (yield* Ref.get(control.decide))(before.length)
          const early = decision === "late" ? undefined : yield* make(request, token, decision)
          yield* Effect.flatten(Ref.get(control.gate))
          const result = decision === "late" ? yield* make(request, token, "succeed") : early
          if (result === undefined || decision === "lost") return yield* Effect.fail(down)
          return result
        }),
      lookup: (reference) =>
        Effect.gen(function*() {
          yield* Ref.update(control.lookups, (all) => [...all, reference])
          if (yield* Ref.get(control.lookupDown)) return yield* Effect.fail(down)
          const found = made.get(reference)
          if (found === "closed") return Option.none()
          if (found === undefined) {
            const simulatedFound = yield* simulated.lookup(reference)
            if (Option.isNone(simulatedFound)) made.set(reference, "closed")
            return simulatedFound
          }
          return Option.some<Movement>({
            _tag: "Charge",
            reference,
            chargeId: found.chargeId,
            amount: 0,
            currency: "AED",
            livemode: false,
            outcome: found.outcome,
            card: found.card,
            createdAt: DateTime.unsafeMake(0)
          })
        })
    })
  })
)

const controlledEngine = Engine.pipe(
  Layer.provideMerge(Layer.mergeAll(StoreMemory, SignerNode, ControlledProcessor, WebhookTransportHttp, EInvoiceAdapters)),
  Layer.provideMerge(ControlLive),
  Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map())))
)
/** Runs `effect` against a fresh engine (fresh store, fresh processor control). */
const withControlledEngine = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provide(effect, controlledEngine)

const setDecision = (decide: (n: number) => Decision) =>
  Effect.flatMap(ProcessorControl, (c) => Ref.set(c.decide, decide))
const tokenCharges = Effect.flatMap(ProcessorControl, (c) => Ref.get(c.charges))
const lookupsAsked = Effect.flatMap(ProcessorControl, (c) => Ref.get(c.lookups))
const setLookupDown = (down: boolean) => Effect.flatMap(ProcessorControl, (c) => Ref.set(c.lookupDown, down))

// Helpers -------------------------------------------------------------------------------------------------------------

const at = (iso: string) => TestClock.setTime(Date.parse(iso))
const isoOf = (d: DateTime.Utc | null) => (d === null ? null : DateTime.formatIso(d))
const failureTag = <A, E extends { readonly _tag: string }>(e: Either.Either<A, E>) =>
  Either.isLeft(e) ? e.left._tag : "succeeded"

const runBilling = Effect.flatMap(Billing, (b) => b.runOnce())

/** A recurring product, a subscription session over it, paid with `card`: everything that made. */
const subscribe = (scope: Scope, options: {
  readonly card?: string
  readonly price?: number
  readonly quantity?: number
  readonly interval?: BillingInterval
  readonly count?: number
  readonly email?: string
} = {}) =>
  Effect.gen(function*() {
    const product = yield* makeProduct(scope, {
      name: "Coffee club",
      price: options.price ?? 9900,
      billing: "recurring",
      billing_interval: options.interval ?? "month",
      interval_count: options.count ?? 1
    })
    const session = yield* makeSession(scope, {
      product_cart: [{ product_id: product.product_id, quantity: options.quantity ?? 1 }]
    })
    assert.strictEqual(session.kind, "subscription")
    const result = yield* pay(session.session_id, formWith(options.card ?? cards.visa, { email: options.email ?? "layla@example.ae" }))
    if (result._tag !== "Paid") return assert.fail(`the form was refused: ${JSON.stringify(result)}`)
    assert.strictEqual(result.payment.status, "succeeded")
    const id = result.payment.subscription_id
    if (id === null) return assert.fail("the first payment started no subscription")
    const subscription = yield* Effect.flatMap(Subscriptions, (s) => s.get(scope, id))
    return { product, session: result.session, payment: result.payment, subscription }
  })

const getSub = (scope: Scope, id: SubscriptionId) => Effect.flatMap(Subscriptions, (s) => s.get(scope, id))

/** The subscription's payments, oldest first. */
const paymentsOf = (scope: Scope, id: SubscriptionId) =>
  Effect.map(
    Effect.flatMap(Payments, (p) => p.list(scope, { limit: 100 })),
    (l) => l.items.filter((p) => p.subscription_id === id).reverse()
  )

/** The scope's events, oldest first. */
const eventsOf = (scope: Scope) =>
  Effect.map(Effect.flatMap(Events, (e) => e.list(scope, { limit: 100 })), (l) => [...l.items].reverse())
const typesOf = (scope: Scope) => Effect.map(eventsOf(scope), (es) => es.map((e) => e.type))

const attemptsOf = (id: SubscriptionId) =>
  Effect.map(Effect.flatMap(Store, (s) => s.subscriptions.attempts(id)), (as) => as.map((a) => [a.period, a.attempt]))

/** The fields a lifecycle moves, with dates as ISO strings. */
const stateOf = (s: Subscription.Subscription) => ({
  status: s.status,
  current_period_start: isoOf(s.current_period_start),
  next_billing_date: isoOf(s.next_billing_date),
  cancel_at_period_end: s.cancel_at_period_end,
  cancelled_at: isoOf(s.cancelled_at),
  cancellation_reason: s.cancellation_reason,
  failed_payment_attempts: s.failed_payment_attempts,
  next_retry_at: isoOf(s.next_retry_at)
})

const active = (start: string, next: string) => ({
  status: "active" as const,
  current_period_start: start,
  next_billing_date: next,
  cancel_at_period_end: false,
  cancelled_at: null,
  cancellation_reason: null,
  failed_payment_attempts: 0,
  next_retry_at: null
})

/** A billing pass at `iso` that must do nothing at all. */
const nothingDueAt = (iso: string) =>
  Effect.gen(function*() {
    yield* at(iso)
    const before = (yield* tokenCharges).length
    const report = yield* runBilling
    assert.deepStrictEqual(
      { charged: report.renewals_charged, ended: report.subscriptions_ended },
      { charged: 0, ended: 0 },
      `nothing is due at ${iso}`
    )
    assert.strictEqual((yield* tokenCharges).length, before, `no card is charged at ${iso}`)
  })

/** A billing pass at `iso` that charges exactly `n` renewals. */
const chargesAt = (iso: string, n = 1) =>
  Effect.gen(function*() {
    yield* at(iso)
    const before = (yield* tokenCharges).length
    const report = yield* runBilling
    assert.strictEqual(report.renewals_charged, n, `renewals charged at ${iso}`)
    assert.strictEqual((yield* tokenCharges).length, before + n, `cards charged at ${iso}`)
  })

const jan31 = "2026-01-31T10:00:00.000Z"
const feb28 = "2026-02-28T10:00:00.000Z"
const mar31 = "2026-03-31T10:00:00.000Z"
const apr30 = "2026-04-30T10:00:00.000Z"

// Lifecycles ----------------------------------------------------------------------------------------------------------

describe("subscription checkout", () => {
  it.effect("the first payment starts an active subscription with every field, and links the session", () =>
    Effect.gen(function*() {
      yield* at(jan31)
      const { test } = yield* newAccount
      const { payment, product, session, subscription: sub } = yield* subscribe(test, {
        price: 4500,
        quantity: 2,
        card: cards.mastercard
      })
      assert.match(sub.subscription_id, /^sub_[0-9a-f]{32}$/)
      assert.deepStrictEqual(
        {
          object: sub.object,
          product_id: sub.product_id,
          name: sub.name,
          quantity: sub.quantity,
          recurring_amount: sub.recurring_amount,
          currency: sub.currency,
          billing_interval: sub.billing_interval,
          interval_count: sub.interval_count,
          customer: sub.customer,
          payment_method: sub.payment_method,
          checkout_session_id: sub.checkout_session_id,
          metadata: sub.metadata,
          livemode: sub.livemode,
          created_at: isoOf(sub.created_at)
        },
        {
          object: "subscription",
          product_id: product.product_id,
          name: "Coffee club",
          quantity: 2,
          recurring_amount: 9000,
          currency: "AED",
          billing_interval: "month",
          interval_count: 1,
          customer: { customer_id: payment.customer!.customer_id, name: "Layla Haddad", email: "layla@example.ae" },
          payment_method: { brand: "mastercard", last4: "4444", exp_month: 12, exp_year: 2090 },
          checkout_session_id: session.session_id,
          metadata: {},
          livemode: false,
          created_at: jan31
        }
      )
      assert.deepStrictEqual(stateOf(sub), active(jan31, feb28))
      assert.deepStrictEqual(
        {
          kind: session.kind,
          status: session.status,
          payment_id: session.payment_id,
          subscription_id: session.subscription_id
        },
        { kind: "subscription", status: "complete", payment_id: payment.payment_id, subscription_id: sub.subscription_id }
      )
      assert.deepStrictEqual(
        [payment.billing_reason, payment.total_amount, payment.subscription_id, payment.checkout_session_id],
        ["subscription_create", 9000, sub.subscription_id, session.session_id]
      )
      const events = yield* eventsOf(test)
      assert.deepStrictEqual(events.map((e) => e.type), ["payment.succeeded", "subscription.active"])
      assert.strictEqual(events[0]!.data["subscription_id"], sub.subscription_id, "the payment event names its subscription")
      assert.strictEqual(events[1]!.data["subscription_id"], sub.subscription_id)
      assert.strictEqual(events[1]!.data["status"], "active")
      assert.strictEqual(events[1]!.data["next_billing_date"], feb28)
      assert.notProperty(events[1]!.data, "card_token", "the saved card's token never leaves the store")
    }).pipe(withControlledEngine))

  it.effect("a declined first payment starts nothing; the session stays open and a good card then subscribes", () =>
    Effect.gen(function*() {
      yield* at(jan31)
      const { test } = yield* newAccount
      const product = yield* makeProduct(test, { billing: "recurring", billing_interval: "month", price: 9900 })
      const session = yield* makeSession(test, { product_cart: [{ product_id: product.product_id }] })
      const declined = yield* pay(session.session_id, formWith(cards.declined))
      if (declined._tag !== "Paid") return assert.fail("expected a charge")
      assert.strictEqual(declined.payment.status, "failed")
      assert.isNull(declined.payment.subscription_id)
      assert.strictEqual(declined.session.status, "open")
      assert.isNull(declined.session.subscription_id)
      assert.lengthOf((yield* Effect.flatMap(Subscriptions, (s) => s.list(test, {}))).items, 0)
      yield* at("2026-01-31T10:05:00.000Z")
      const paid = yield* pay(session.session_id, formWith(cards.visa))
      if (paid._tag !== "Paid") return assert.fail("expected a charge")
      assert.strictEqual(paid.payment.status, "succeeded")
      const subs = (yield* Effect.flatMap(Subscriptions, (s) => s.list(test, {}))).items
      assert.lengthOf(subs, 1)
      assert.strictEqual(paid.session.subscription_id, subs[0]!.subscription_id)
      assert.strictEqual(isoOf(subs[0]!.current_period_start), "2026-01-31T10:05:00.000Z")
      assert.deepStrictEqual(yield* typesOf(test), ["payment.failed", "payment.succeeded", "subscription.active"])
    }).pipe(withControlledEngine))

  it.effect("a first charge that settles later starts the subscription when it settles, from that instant", () =>
    Effect.gen(function*() {
      yield* at(jan31)
      const { test } = yield* newAccount
      const product = yield* makeProduct(test, { billing: "recurring", billing_interval: "week", price: 2500 })
      const session = yield* makeSession(test, { product_cart: [{ product_id: product.product_id }] })
      const pending = yield* pay(session.session_id, formWith(cards.settleSucceeds))
      if (pending._tag !== "Paid") return assert.fail("expected a charge")
      assert.strictEqual(pending.payment.status, "processing")
      assert.lengthOf((yield* Effect.flatMap(Subscriptions, (s) => s.list(test, {}))).items, 0)
      yield* at("2026-01-31T10:00:03.000Z")
      const report = yield* runBilling
      assert.strictEqual(report.settled_payments, 1)
      const subs = (yield* Effect.flatMap(Subscriptions, (s) => s.list(test, {}))).items
      assert.lengthOf(subs, 1)
      const sub = subs[0]!
      assert.deepStrictEqual(stateOf(sub), active("2026-01-31T10:00:03.000Z", "2026-02-07T10:00:03.000Z"))
      assert.deepStrictEqual(sub.payment_method, { brand: "visa", last4: "0259", exp_month: 12, exp_year: 2090 })
      const payments = yield* paymentsOf(test, sub.subscription_id)
      assert.deepStrictEqual(payments.map((p) => [p.billing_reason, p.status]), [["subscription_create", "succeeded"]])
      assert.strictEqual(
        (yield* Effect.flatMap(Store, (s) => s.sessions.find(session.session_id))).pipe((o) =>
          o._tag === "Some" ? o.value.subscription_id : null
        ),
        sub.subscription_id
      )
      assert.deepStrictEqual(yield* typesOf(test), ["payment.succeeded", "subscription.active"])
    }).pipe(withControlledEngine))
})

describe("renewals", () => {
  it.effect("renews twice: 31 Jan → 28 Feb → 31 Mar, one renewal payment and subscription.renewed each", () =>
    Effect.gen(function*() {
      yield* at(jan31)
      const { test } = yield* newAccount
      const { payment: first, subscription } = yield* subscribe(test)
      const id = subscription.subscription_id

      yield* nothingDueAt("2026-02-28T09:59:59.999Z")
      yield* chargesAt(feb28)
      assert.deepStrictEqual(stateOf(yield* getSub(test, id)), active(feb28, mar31))
      yield* nothingDueAt("2026-03-31T09:59:59.999Z")
      yield* chargesAt(mar31)
      const after = yield* getSub(test, id)
      assert.deepStrictEqual(stateOf(after), active(mar31, apr30))
      assert.deepStrictEqual(after.payment_method, subscription.payment_method, "the saved card is kept")

      const payments = yield* paymentsOf(test, id)
      assert.deepStrictEqual(
        payments.map((p) => [p.billing_reason, p.status, p.total_amount, p.subscription_id, isoOf(p.paid_at)]),
        [
          ["subscription_create", "succeeded", 9900, id, jan31],
          ["subscription_renewal", "succeeded", 9900, id, feb28],
          ["subscription_renewal", "succeeded", 9900, id, mar31]
        ]
      )
      assert.strictEqual(payments[0]!.payment_id, first.payment_id)
      for (const renewal of payments.slice(1)) {
        assert.isNull(renewal.checkout_session_id, "a renewal belongs to no checkout")
        assert.strictEqual(renewal.customer?.customer_id, first.customer?.customer_id)
        assert.strictEqual(renewal.net_amount, renewal.total_amount - renewal.fee_amount)
        assert.isTrue(renewal.fee_amount > 0)
      }
      assert.deepStrictEqual(yield* attemptsOf(id), [[1, 0], [2, 0]])

      const events = yield* eventsOf(test)
      assert.deepStrictEqual(events.map((e) => e.type), [
        "payment.succeeded",
        "subscription.active",
        "payment.succeeded",
        "subscription.renewed",
        "payment.succeeded",
        "subscription.renewed"
      ])
      assert.deepStrictEqual(
        events.map((e) => [e.data["billing_reason"] ?? null, e.data["current_period_start"] ?? null]),
        [
          ["subscription_create", null],
          [null, jan31],
          ["subscription_renewal", null],
          [null, feb28],
          ["subscription_renewal", null],
          [null, mar31]
        ]
      )
      assert.deepStrictEqual(events.map((e) => isoOf(e.created_at)), [jan31, jan31, feb28, feb28, mar31, mar31])
      assert.strictEqual(events[5]!.data["next_billing_date"], apr30)
    }).pipe(withControlledEngine))

  it.effect("in a leap year 31 January renews on 29 February, then 31 March; a late pass keeps the anchor", () =>
    Effect.gen(function*() {
      yield* at("2028-01-31T23:30:00.000Z")
      const { test } = yield* newAccount
      const { subscription } = yield* subscribe(test)
      const id = subscription.subscription_id
      assert.strictEqual(isoOf(subscription.next_billing_date), "2028-02-29T23:30:00.000Z")
      // The pass runs three days late: the period still starts on the anchor's schedule.
      yield* chargesAt("2028-03-03T08:00:00.000Z")
      assert.deepStrictEqual(
        stateOf(yield* getSub(test, id)),
        active("2028-02-29T23:30:00.000Z", "2028-03-31T23:30:00.000Z")
      )
    }).pipe(withControlledEngine))

  it.effect("a price change after subscribing changes neither recurring_amount nor the renewals", () =>
    Effect.gen(function*() {
      yield* at(jan31)
      const { test } = yield* newAccount
      const { product, subscription } = yield* subscribe(test, { price: 9900, quantity: 2 })
      assert.strictEqual(subscription.recurring_amount, 19800)
      yield* at("2026-02-10T10:00:00.000Z")
      const updated = yield* Effect.flatMap(Products, (p) => p.update(test, product.product_id, { price: 12000 }))
      assert.strictEqual(updated.price, 12000)
      yield* chargesAt(feb28)
      yield* chargesAt(mar31)
      const sub = yield* getSub(test, subscription.subscription_id)
      assert.strictEqual(sub.recurring_amount, 19800)
      const payments = yield* paymentsOf(test, sub.subscription_id)
      assert.deepStrictEqual(payments.map((p) => p.total_amount), [19800, 19800, 19800])
      const charged = yield* tokenCharges
      assert.deepStrictEqual(charged.map((c) => c.amount), [19800, 19800], "the processor is asked for the old amount")
      // A later checkout of the changed product takes the new price; the first subscription keeps its own.
      const again = yield* makeSession(test, { product_cart: [{ product_id: product.product_id, quantity: 2 }] })
      assert.strictEqual(again.total_amount, 24000)
      const paid = yield* pay(again.session_id, formWith(cards.visa, { email: "noor@example.ae" }))
      if (paid._tag !== "Paid" || paid.payment.subscription_id === null) return assert.fail("expected a subscription")
      assert.strictEqual((yield* getSub(test, paid.payment.subscription_id)).recurring_amount, 24000)
      assert.strictEqual((yield* getSub(test, sub.subscription_id)).recurring_amount, 19800)
      // A session opened before a price change and paid after it: the subscription recurs at what was charged.
      const opened = yield* makeSession(test, { product_cart: [{ product_id: product.product_id }] })
      yield* Effect.flatMap(Products, (p) => p.update(test, product.product_id, { price: 15000 }))
      const paidLate = yield* pay(opened.session_id, formWith(cards.visa, { email: "amal@example.ae" }))
      if (paidLate._tag !== "Paid" || paidLate.payment.subscription_id === null) return assert.fail("expected a subscription")
      assert.strictEqual(paidLate.payment.total_amount, 12000)
      assert.strictEqual((yield* getSub(test, paidLate.payment.subscription_id)).recurring_amount, 12000)
    }).pipe(withControlledEngine))
})

describe("failed renewals", () => {
  it.effect("fail → on_hold → recovered on the second retry: retries at +1 and +3 days, anchored period", () =>
    Effect.gen(function*() {
      yield* at(jan31)
      const { test } = yield* newAccount
      const { subscription } = yield* subscribe(test, { card: cards.declineLater })
      const id = subscription.subscription_id
      assert.deepStrictEqual(subscription.payment_method, { brand: "visa", last4: "0341", exp_month: 12, exp_year: 2090 })

      // The renewal is declined (the 0341 card succeeds only the first time).
      yield* chargesAt(feb28)
      assert.deepStrictEqual(stateOf(yield* getSub(test, id)), {
        ...active(jan31, feb28),
        status: "on_hold",
        failed_payment_attempts: 1,
        next_retry_at: "2026-03-01T10:00:00.000Z"
      })
      yield* nothingDueAt("2026-02-28T10:00:00.000Z")
      yield* nothingDueAt("2026-03-01T09:59:59.999Z")
      // First retry (+1 day): declined again; the next one is 3 days after the first failure.
      yield* chargesAt("2026-03-01T10:00:00.000Z")
      assert.deepStrictEqual(stateOf(yield* getSub(test, id)), {
        ...active(jan31, feb28),
        status: "on_hold",
        failed_payment_attempts: 2,
        next_retry_at: "2026-03-03T10:00:00.000Z"
      })
      yield* nothingDueAt("2026-03-02T10:00:00.000Z")
      yield* nothingDueAt("2026-03-03T09:59:59.999Z")
      // The customer fixed their card: the second retry (+3 days) succeeds.
      yield* setDecision(() => "succeed")
      yield* chargesAt("2026-03-03T10:00:00.000Z")
      const recovered = yield* getSub(test, id)
      assert.deepStrictEqual(stateOf(recovered), active(feb28, mar31), "the period is the anchored one, not the retry day")
      yield* nothingDueAt("2026-03-05T10:00:00.000Z")
      // And the next renewal is on the anchor's schedule.
      yield* chargesAt(mar31)
      assert.deepStrictEqual(stateOf(yield* getSub(test, id)), active(mar31, apr30))

      const payments = yield* paymentsOf(test, id)
      assert.deepStrictEqual(
        payments.map((p) => [p.billing_reason, p.status, p.total_amount, isoOf(p.created_at)]),
        [
          ["subscription_create", "succeeded", 9900, jan31],
          ["subscription_renewal", "failed", 9900, feb28],
          ["subscription_renewal", "failed", 9900, "2026-03-01T10:00:00.000Z"],
          ["subscription_renewal", "succeeded", 9900, "2026-03-03T10:00:00.000Z"],
          ["subscription_renewal", "succeeded", 9900, mar31]
        ]
      )
      assert.isTrue(payments.every((p) => p.subscription_id === id))
      assert.isTrue(payments.filter((p) => p.status === "failed").every((p) => p.fee_amount === 0 && p.paid_at === null))
      assert.deepStrictEqual(yield* attemptsOf(id), [[1, 0], [1, 1], [1, 2], [2, 0]])

      const events = yield* eventsOf(test)
      assert.deepStrictEqual(events.map((e) => e.type), [
        "payment.succeeded",
        "subscription.active",
        "payment.failed",
        "subscription.on_hold",
        "payment.failed",
        "payment.succeeded",
        "subscription.active",
        "subscription.renewed",
        "payment.succeeded",
        "subscription.renewed"
      ])
      const onHold = events[3]!.data
      assert.deepStrictEqual(
        [onHold["status"], onHold["failed_payment_attempts"], onHold["next_retry_at"]],
        ["on_hold", 1, "2026-03-01T10:00:00.000Z"]
      )
      const back = events[6]!.data
      assert.deepStrictEqual(
        [back["status"], back["failed_payment_attempts"], back["next_retry_at"], back["current_period_start"]],
        ["active", 0, null, feb28]
      )
    }).pipe(withControlledEngine))

  it.effect("fail until cancelled: retries at 1, 3 and 5 days, then cancelled (payment_failed); never charged again", () =>
    Effect.gen(function*() {
      yield* at(jan31)
      const { test } = yield* newAccount
      const { subscription } = yield* subscribe(test, { card: cards.declineLater })
      const id = subscription.subscription_id
      const onHold = (attempts: number, retry: string) => ({
        ...active(jan31, feb28),
        status: "on_hold" as const,
        failed_payment_attempts: attempts,
        next_retry_at: retry
      })

      yield* chargesAt(feb28)
      assert.deepStrictEqual(stateOf(yield* getSub(test, id)), onHold(1, "2026-03-01T10:00:00.000Z"))
      yield* nothingDueAt("2026-03-01T09:59:59.999Z")
      yield* chargesAt("2026-03-01T10:00:00.000Z")
      assert.deepStrictEqual(stateOf(yield* getSub(test, id)), onHold(2, "2026-03-03T10:00:00.000Z"))
      yield* nothingDueAt("2026-03-03T09:59:59.999Z")
      yield* chargesAt("2026-03-03T10:00:00.000Z")
      assert.deepStrictEqual(stateOf(yield* getSub(test, id)), onHold(3, "2026-03-05T10:00:00.000Z"))
      yield* nothingDueAt("2026-03-05T09:59:59.999Z")
      yield* chargesAt("2026-03-05T10:00:00.000Z")
      const cancelled = yield* getSub(test, id)
      assert.deepStrictEqual(stateOf(cancelled), {
        ...active(jan31, feb28),
        status: "cancelled",
        cancelled_at: "2026-03-05T10:00:00.000Z",
        cancellation_reason: "payment_failed",
        failed_payment_attempts: 4,
        next_retry_at: null
      })

      // Nothing is ever charged again: not at the next period, not years later.
      yield* nothingDueAt(mar31)
      yield* nothingDueAt("2031-01-31T10:00:00.000Z")
      assert.deepStrictEqual(yield* getSub(test, id), cancelled)

      const payments = yield* paymentsOf(test, id)
      assert.deepStrictEqual(payments.map((p) => [p.billing_reason, p.status, p.total_amount]), [
        ["subscription_create", "succeeded", 9900],
        ["subscription_renewal", "failed", 9900],
        ["subscription_renewal", "failed", 9900],
        ["subscription_renewal", "failed", 9900],
        ["subscription_renewal", "failed", 9900]
      ])
      assert.deepStrictEqual(yield* attemptsOf(id), [[1, 0], [1, 1], [1, 2], [1, 3]])
      const events = yield* eventsOf(test)
      assert.deepStrictEqual(events.map((e) => e.type), [
        "payment.succeeded",
        "subscription.active",
        "payment.failed",
        "subscription.on_hold",
        "payment.failed",
        "payment.failed",
        "payment.failed",
        "subscription.cancelled"
      ])
      const last = events[7]!.data
      assert.deepStrictEqual(
        [last["status"], last["cancellation_reason"], last["cancelled_at"]],
        ["cancelled", "payment_failed", "2026-03-05T10:00:00.000Z"]
      )
    }).pipe(withControlledEngine))

  /** A monthly subscription whose first renewal (28 Feb) found the processor unreachable. */
  /** A subscription whose first renewal, at 28 February, meets the processor as `decision` says. */
  const renewalMeeting = (decision: Decision) =>
    Effect.gen(function*() {
      yield* at(jan31)
      const { test } = yield* newAccount
      const { subscription } = yield* subscribe(test)
      yield* setDecision((n) => (n === 0 ? decision : "simulate"))
      yield* chargesAt(feb28)
      return { id: subscription.subscription_id, test }
    })

  // Regression: a renewal whose call found the processor unreachable was recorded as failed at once, and its retry
  // charged the card under a new reference, though that call may have taken the money before it failed.
  it.effect("a renewal whose answer was lost after the money moved is looked up under its reference: the period is paid once, never charged again", () =>
    Effect.gen(function*() {
      const { id, test } = yield* renewalMeeting("lost")
      const [renewal] = (yield* tokenCharges)
      assert.deepStrictEqual(yield* lookupsAsked, [renewal!.reference], "looked up at once, by its reference")
      assert.deepStrictEqual(
        (yield* paymentsOf(test, id)).map((p) => [p.status, p.charge_id]),
        [["succeeded", (yield* paymentsOf(test, id))[0]!.charge_id], ["succeeded", `ch_test_${renewal!.reference}`]]
      )
      assert.deepStrictEqual(stateOf(yield* getSub(test, id)), active(feb28, mar31))
      assert.strictEqual((yield* typesOf(test)).filter((t) => t === "subscription.renewed").length, 1)
      yield* nothingDueAt(feb28)
      assert.lengthOf(yield* tokenCharges, 1, "charged once")
    }).pipe(withControlledEngine))

  it.effect("unreachable, then looked up with growing waits; when the processor says nothing was taken, the renewal fails with processing_error and is retried on schedule under a new reference", () =>
    Effect.gen(function*() {
      const payments = yield* Payments
      yield* setLookupDown(true)
      const { id, test } = yield* renewalMeeting("unreachable")
      const waiting = yield* getSub(test, id)
      assert.deepStrictEqual(
        [waiting.status, waiting.period, waiting.failed_payment_attempts, waiting.next_retry_at],
        ["active", 0, 0, null],
        "no failed attempt: the charge's fate is unknown"
      )
      assert.deepStrictEqual((yield* paymentsOf(test, id)).map((p) => p.status), ["succeeded", "processing"])
      yield* nothingDueAt(feb28)
      // The lookup pass looks it up once it is a minute old, then 5 s, 10 s, 20 s… after each unanswered ask.
      const asked: Array<number> = []
      for (let second = 0; second <= 120; second++) {
        yield* payments.resolvePending()
        asked.push((yield* lookupsAsked).length)
        yield* TestClock.adjust("1 second")
      }
      const askSeconds = asked.flatMap((n, i) => (i > 0 && n > asked[i - 1]! ? [i] : []))
      assert.deepStrictEqual(askSeconds, [60, 65, 75, 95], "asked at 60 s, then after 5, 10 and 20 s")
      assert.deepStrictEqual((yield* paymentsOf(test, id)).map((p) => p.status), ["succeeded", "processing"])
      yield* setLookupDown(false)
      yield* TestClock.adjust("1 minute")
      assert.strictEqual(yield* payments.resolvePending(), 1)
      assert.deepStrictEqual((yield* paymentsOf(test, id)).map((p) => [p.status, p.failure_code]), [
        ["succeeded", null],
        ["failed", "processing_error"]
      ])
      const held = yield* getSub(test, id)
      assert.deepStrictEqual([held.status, held.failed_payment_attempts], ["on_hold", 1])
      const first = (yield* tokenCharges)[0]!
      yield* chargesAt(DateTime.formatIso(held.next_retry_at!))
      const retry = (yield* tokenCharges).at(-1)!
      assert.notStrictEqual(retry.reference, first.reference, "the retry is a new attempt")
      assert.deepStrictEqual(stateOf(yield* getSub(test, id)), active(feb28, mar31))
    }).pipe(withControlledEngine))
})

describe("cancellation", () => {
  it.effect("cancel now: cancelled (requested) with subscription.cancelled; again is a no-op; flag changes are SubscriptionNotChangeable", () =>
    Effect.gen(function*() {
      yield* at(jan31)
      const subscriptions = yield* Subscriptions
      const { test } = yield* newAccount
      const { subscription } = yield* subscribe(test)
      const id = subscription.subscription_id
      yield* at("2026-02-10T12:00:00.000Z")
      const cancelled = yield* subscriptions.update(test, id, { status: "cancelled" })
      assert.deepStrictEqual(stateOf(cancelled), {
        ...active(jan31, feb28),
        status: "cancelled",
        cancelled_at: "2026-02-10T12:00:00.000Z",
        cancellation_reason: "requested"
      })
      assert.deepStrictEqual(yield* subscriptions.get(test, id), cancelled)
      assert.deepStrictEqual(yield* typesOf(test), ["payment.succeeded", "subscription.active", "subscription.cancelled"])

      yield* at("2026-03-01T00:00:00.000Z")
      const again = yield* subscriptions.update(test, id, { status: "cancelled" })
      assert.deepStrictEqual(again, cancelled, "unchanged: cancelled_at stays the first cancellation's")
      assert.lengthOf(yield* eventsOf(test), 3, "no second subscription.cancelled")

      for (const value of [true, false]) {
        const r = yield* Effect.either(subscriptions.update(test, id, { cancel_at_period_end: value }))
        assert.strictEqual(failureTag(r), "SubscriptionNotChangeable")
        if (Either.isLeft(r) && r.left._tag === "SubscriptionNotChangeable") {
          assert.deepStrictEqual([r.left.subscription_id, r.left.status, r.left.code], [id, "cancelled", "INVALID_STATE"])
          assert.strictEqual(r.left.message, `Subscription ${id} is cancelled; cannot change cancel_at_period_end`)
        }
      }
      assert.deepStrictEqual(yield* subscriptions.get(test, id), cancelled)

      yield* nothingDueAt(feb28)
      yield* nothingDueAt("2027-06-30T10:00:00.000Z")
      assert.lengthOf(yield* paymentsOf(test, id), 1)
      assert.lengthOf(yield* eventsOf(test), 3)
    }).pipe(withControlledEngine))

  /** A monthly subscription whose first renewal (28 Feb) is at the processor, held there until `release`. */
  const renewalAtProcessor = Effect.gen(function*() {
    yield* at(jan31)
    const control = yield* ProcessorControl
    const { test } = yield* newAccount
    const { subscription } = yield* subscribe(test)
    yield* at(feb28)
    const release = yield* Deferred.make<void>()
    yield* Ref.set(control.gate, Deferred.await(release))
    const pass = yield* Effect.fork(runBilling)
    while ((yield* tokenCharges).length === 0) yield* Effect.yieldNow()
    return { id: subscription.subscription_id, pass, release, test }
  })

  // Regression: a cancellation that landed while a renewal charge was in flight let the charge succeed for a period
  // that never started. Now the cancellation waits for the charge's outcome, then cancels.
  it.effect("a cancellation during an in-flight renewal waits for it, then cancels: no paid period is left unstarted", () =>
    Effect.gen(function*() {
      const subscriptions = yield* Subscriptions
      const { id, pass, release, test } = yield* renewalAtProcessor
      // The renewal is at the processor: the merchant cancels now, and the cancellation waits.
      const cancelling = yield* Effect.fork(subscriptions.update(test, id, { status: "cancelled" }))
      yield* TestClock.adjust("1 second")
      assert.isNull(yield* Fiber.poll(cancelling).pipe(Effect.map((o) => Option.getOrNull(o))), "still waiting")
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(pass)
      yield* TestClock.adjust("1 second")
      const cancelled = yield* Fiber.join(cancelling)
      assert.deepStrictEqual([cancelled.status, cancelled.cancellation_reason], ["cancelled", "requested"])
      const sub = yield* getSub(test, id)
      const paid = (yield* paymentsOf(test, id)).filter((p) =>
        p.billing_reason === "subscription_renewal" && p.status === "succeeded"
      )
      assert.strictEqual(sub.period, 1, "the renewal that was in flight started its period")
      assert.strictEqual(paid.length, sub.period, "a kept renewal payment is a started period")
      const types = yield* typesOf(test)
      assert.deepStrictEqual(types.slice(-3), ["payment.succeeded", "subscription.renewed", "subscription.cancelled"])
    }).pipe(withControlledEngine))

  // Regression: set to cancel at the period end while the renewal was at the processor, the subscription was ended
  // by the next pass, and the charge then succeeded for a period that never started.
  it.scoped("set to cancel at the period end during an in-flight renewal: the next pass leaves it to the charge, which starts its period; it ends at that period's end", () =>
    Effect.gen(function*() {
      const subscriptions = yield* Subscriptions
      const { id, pass, release, test } = yield* renewalAtProcessor
      // A failed assertion must not leave the pass at the processor (the charge to its record is uninterruptible).
      yield* Effect.addFinalizer(() => Deferred.succeed(release, undefined))
      yield* subscriptions.update(test, id, { cancel_at_period_end: true })
      const meanwhile = yield* runBilling
      assert.strictEqual(meanwhile.subscriptions_ended, 0, "not ended while its renewal is at the processor")
      assert.strictEqual((yield* getSub(test, id)).status, "active")
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(pass)
      const renewed = yield* getSub(test, id)
      assert.deepStrictEqual(stateOf(renewed), { ...active(feb28, mar31), cancel_at_period_end: true })
      const paid = (yield* paymentsOf(test, id)).filter((p) => p.billing_reason === "subscription_renewal")
      assert.deepStrictEqual(paid.map((p) => p.status), ["succeeded"])
      assert.strictEqual(renewed.period, 1, "the paid renewal started its period")
      yield* at(mar31)
      assert.strictEqual((yield* runBilling).subscriptions_ended, 1)
      const ended = yield* getSub(test, id)
      assert.deepStrictEqual([ended.status, isoOf(ended.cancelled_at)], ["cancelled", mar31])
      assert.lengthOf(yield* tokenCharges, 1, "charged once")
    }).pipe(withControlledEngine))

  describe("a renewal abandoned at the processor", () => {
    /**
     * `renewalAtProcessor`, its pass left at the processor as if its process had died there, with the processor
     * deciding by `decide` and answering later calls at once.
     */
    const abandonedRenewal = (decide: (n: number) => Decision) =>
      Effect.gen(function*() {
        yield* setDecision(decide)
        const held = yield* renewalAtProcessor
        // A failed assertion must not leave the pass at the processor (the charge to its record is uninterruptible).
        yield* Effect.addFinalizer(() => Deferred.succeed(held.release, undefined))
        yield* Ref.set((yield* ProcessorControl).gate, Effect.void)
        return held
      })

    /** The renewal payments of `id`, oldest first, as (status, charge id, failure code). */
    const renewalsOf = (scope: Scope, id: SubscriptionId) =>
      Effect.map(paymentsOf(scope, id), (ps) =>
        ps.filter((p) => p.billing_reason === "subscription_renewal").map((p) => [p.status, p.charge_id, p.failure_code]))

    // Regression: a renewal whose process died at the processor failed with processing_error after a minute, and its
    // retry charged the card again under a new reference, though the first charge may have been taken.
    it.scoped("a renewal abandoned after the processor took it is looked up a minute later: the period is paid once, and the first call's late answer changes nothing", () =>
      Effect.gen(function*() {
        const payments = yield* Payments
        const { id, pass, release, test } = yield* abandonedRenewal(() => "succeed")
        yield* TestClock.adjust("30 seconds")
        assert.strictEqual(yield* payments.resolvePending(), 0, "30 s is not abandoned yet")
        assert.deepStrictEqual(yield* lookupsAsked, [])
        yield* TestClock.adjust("31 seconds")
        assert.strictEqual(yield* payments.resolvePending(), 1)
        const [first] = yield* tokenCharges
        assert.deepStrictEqual(yield* lookupsAsked, [first!.reference], "looked up under its reference")
        const paid = [["succeeded", `ch_test_${first!.reference}`, null]]
        assert.deepStrictEqual(yield* renewalsOf(test, id), paid)
        assert.strictEqual((yield* getSub(test, id)).period, 1, "the period started")

        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(pass)
        assert.deepStrictEqual(yield* renewalsOf(test, id), paid, "the late answer changed nothing")
        assert.deepStrictEqual(stateOf(yield* getSub(test, id)), active(feb28, mar31))
        const types = yield* typesOf(test)
        assert.strictEqual(types.filter((t) => t === "subscription.renewed").length, 1)
        assert.lengthOf(yield* tokenCharges, 1, "never charged again")
      }).pipe(withControlledEngine))

    it.scoped("set to cancel at the period end meanwhile, an abandoned renewal still decides first: looked up, it starts its period", () =>
      Effect.gen(function*() {
        const payments = yield* Payments
        const subscriptions = yield* Subscriptions
        const { id, test } = yield* abandonedRenewal(() => "succeed")
        yield* subscriptions.update(test, id, { cancel_at_period_end: true })
        assert.strictEqual((yield* runBilling).subscriptions_ended, 0, "not ended while its renewal is processing")
        yield* TestClock.adjust("61 seconds")
        assert.strictEqual(yield* payments.resolvePending(), 1)
        assert.deepStrictEqual((yield* renewalsOf(test, id)).map(([status]) => status), ["succeeded"])
        const sub = yield* getSub(test, id)
        assert.deepStrictEqual([sub.status, sub.period, sub.cancel_at_period_end], ["active", 1, true])
      }).pipe(withControlledEngine))

    it.scoped("a renewal whose call had not reached the processor when looked up fails with processing_error; the call arriving later takes nothing", () =>
      Effect.gen(function*() {
        const payments = yield* Payments
        const { id, pass, release, test } = yield* abandonedRenewal(() => "late")
        yield* TestClock.adjust("61 seconds")
        assert.strictEqual(yield* payments.resolvePending(), 1)
        assert.deepStrictEqual(yield* renewalsOf(test, id), [["failed", null, "processing_error"]])
        const held = yield* getSub(test, id)
        assert.deepStrictEqual([held.status, held.failed_payment_attempts], ["on_hold", 1])
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(pass)
        assert.deepStrictEqual(yield* renewalsOf(test, id), [["failed", null, "processing_error"]], "recorded once")
        assert.strictEqual((yield* getSub(test, id)).failed_payment_attempts, 1)
      }).pipe(withControlledEngine))

    it.scoped("while lookups fail, an abandoned renewal stays processing and is asked again with growing waits; the answer, when it comes, is recorded", () =>
      Effect.gen(function*() {
        const payments = yield* Payments
        const { id, pass, release, test } = yield* abandonedRenewal(() => "succeed")
        yield* setLookupDown(true)
        yield* TestClock.adjust("61 seconds")
        assert.strictEqual(yield* payments.resolvePending(), 0, "unanswered: nothing recorded")
        assert.lengthOf(yield* lookupsAsked, 1)
        assert.strictEqual(yield* payments.resolvePending(), 0)
        assert.lengthOf(yield* lookupsAsked, 1, "not asked again at once")
        yield* TestClock.adjust("5 seconds")
        yield* payments.resolvePending()
        assert.lengthOf(yield* lookupsAsked, 2, "asked again 5 s later")
        yield* TestClock.adjust("5 seconds")
        yield* payments.resolvePending()
        assert.lengthOf(yield* lookupsAsked, 2, "then waits 10 s")
        assert.deepStrictEqual(yield* renewalsOf(test, id), [["processing", null, null]])
        yield* setLookupDown(false)
        yield* TestClock.adjust("5 seconds")
        assert.strictEqual(yield* payments.resolvePending(), 1)
        assert.deepStrictEqual((yield* renewalsOf(test, id)).map(([status]) => status), ["succeeded"])
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(pass)
        assert.lengthOf(yield* tokenCharges, 1, "never charged again")
      }).pipe(withControlledEngine))
  })

  it.effect("a cancellation gives up with 409 INVALID_STATE when the renewal stays at the processor past the wait", () =>
    Effect.gen(function*() {
      const subscriptions = yield* Subscriptions
      const { id, pass, release, test } = yield* renewalAtProcessor
      const cancelling = yield* Effect.fork(Effect.either(subscriptions.update(test, id, { status: "cancelled" })))
      yield* TestClock.adjust("20 seconds")
      const refused = yield* Fiber.join(cancelling)
      assert.strictEqual(failureTag(refused), "RenewalInProgress")
      if (Either.isLeft(refused) && refused.left._tag === "RenewalInProgress") {
        assert.deepStrictEqual([refused.left.subscription_id, refused.left.code], [id, "INVALID_STATE"])
        assert.isTrue(refused.left.payment_id.startsWith("pay_"), "names the charge at the processor")
      }
      assert.strictEqual((yield* getSub(test, id)).status, "active", "nothing changed")
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(pass)
    }).pipe(withControlledEngine))

  it.effect("cancel now from on_hold: cancelled (requested), the pending retry never runs", () =>
    Effect.gen(function*() {
      yield* at(jan31)
      const subscriptions = yield* Subscriptions
      const { test } = yield* newAccount
      const { subscription } = yield* subscribe(test, { card: cards.declineLater })
      const id = subscription.subscription_id
      yield* chargesAt(feb28)
      assert.strictEqual((yield* getSub(test, id)).status, "on_hold")
      yield* at("2026-02-28T18:00:00.000Z")
      const cancelled = yield* subscriptions.update(test, id, { status: "cancelled" })
      assert.deepStrictEqual(
        [cancelled.status, cancelled.cancellation_reason, isoOf(cancelled.cancelled_at), cancelled.next_retry_at],
        ["cancelled", "requested", "2026-02-28T18:00:00.000Z", null]
      )
      yield* nothingDueAt("2026-03-01T10:00:00.000Z")
      yield* nothingDueAt("2026-03-06T10:00:00.000Z")
      assert.lengthOf(yield* paymentsOf(test, id), 2)
      assert.deepStrictEqual(yield* typesOf(test), [
        "payment.succeeded",
        "subscription.active",
        "payment.failed",
        "subscription.on_hold",
        "subscription.cancelled"
      ])
    }).pipe(withControlledEngine))

  it.effect("cancel at period end: still active until next_billing_date, then cancelled at the period end, uncharged", () =>
    Effect.gen(function*() {
      yield* at(jan31)
      const subscriptions = yield* Subscriptions
      const { test } = yield* newAccount
      const { subscription } = yield* subscribe(test)
      const id = subscription.subscription_id
      yield* at("2026-02-05T09:00:00.000Z")
      const flagged = yield* subscriptions.update(test, id, { cancel_at_period_end: true })
      assert.deepStrictEqual(stateOf(flagged), { ...active(jan31, feb28), cancel_at_period_end: true })
      assert.deepStrictEqual(yield* typesOf(test), ["payment.succeeded", "subscription.active"], "setting it emits nothing")
      // Setting it twice is harmless.
      assert.deepStrictEqual(yield* subscriptions.update(test, id, { cancel_at_period_end: true }), flagged)

      yield* nothingDueAt("2026-02-28T09:59:59.999Z")
      assert.strictEqual((yield* getSub(test, id)).status, "active")
      // The pass runs a few hours after the period end: cancelled_at is the period end itself.
      yield* at("2026-02-28T15:00:00.000Z")
      const report = yield* runBilling
      assert.deepStrictEqual([report.renewals_charged, report.subscriptions_ended], [0, 1])
      const ended = yield* getSub(test, id)
      assert.deepStrictEqual(stateOf(ended), {
        ...active(jan31, feb28),
        status: "cancelled",
        cancel_at_period_end: true,
        cancelled_at: feb28,
        cancellation_reason: "requested"
      })
      assert.lengthOf(yield* tokenCharges, 0, "the card is never charged")
      assert.lengthOf(yield* paymentsOf(test, id), 1)
      const events = yield* eventsOf(test)
      assert.deepStrictEqual(events.map((e) => e.type), ["payment.succeeded", "subscription.active", "subscription.cancelled"])
      assert.deepStrictEqual(
        [events[2]!.data["status"], events[2]!.data["cancellation_reason"], events[2]!.data["cancelled_at"]],
        ["cancelled", "requested", feb28]
      )
      yield* nothingDueAt(mar31)
      assert.deepStrictEqual(yield* getSub(test, id), ended)
      assert.strictEqual(
        failureTag(yield* Effect.either(subscriptions.update(test, id, { cancel_at_period_end: false }))),
        "SubscriptionNotChangeable"
      )
    }).pipe(withControlledEngine))

  it.effect("undoing cancel at period end (true then false) renews normally", () =>
    Effect.gen(function*() {
      yield* at(jan31)
      const subscriptions = yield* Subscriptions
      const { test } = yield* newAccount
      const { subscription } = yield* subscribe(test)
      const id = subscription.subscription_id
      yield* subscriptions.update(test, id, { cancel_at_period_end: true })
      const undone = yield* subscriptions.update(test, id, { cancel_at_period_end: false })
      assert.deepStrictEqual(stateOf(undone), active(jan31, feb28))
      yield* chargesAt(feb28)
      assert.deepStrictEqual(stateOf(yield* getSub(test, id)), active(feb28, mar31))
      assert.deepStrictEqual(
        (yield* paymentsOf(test, id)).map((p) => [p.billing_reason, p.status]),
        [["subscription_create", "succeeded"], ["subscription_renewal", "succeeded"]]
      )
      assert.deepStrictEqual(yield* typesOf(test), [
        "payment.succeeded",
        "subscription.active",
        "payment.succeeded",
        "subscription.renewed"
      ])
    }).pipe(withControlledEngine))

  it.effect("cancel at period end while on_hold: the pending retry ends it instead of charging", () =>
    Effect.gen(function*() {
      yield* at(jan31)
      const subscriptions = yield* Subscriptions
      const { test } = yield* newAccount
      const { subscription } = yield* subscribe(test, { card: cards.declineLater })
      const id = subscription.subscription_id
      yield* chargesAt(feb28)
      const onHold = yield* subscriptions.update(test, id, { cancel_at_period_end: true })
      assert.isNotNull(onHold.next_retry_at)
      yield* at("2026-03-01T13:00:00.000Z") // the pass runs three hours after the retry was due
      const report = yield* runBilling
      assert.deepStrictEqual([report.renewals_charged, report.subscriptions_ended], [0, 1])
      const ended = yield* getSub(test, id)
      assert.deepStrictEqual([ended.status, ended.cancellation_reason, ended.next_retry_at], ["cancelled", "requested", null])
      assert.strictEqual(isoOf(ended.cancelled_at), isoOf(onHold.next_retry_at), "ends when the retry was due")
      assert.lengthOf(yield* paymentsOf(test, id), 2)
      assert.lengthOf(yield* tokenCharges, 1)
    }).pipe(withControlledEngine))

  it.effect("PATCH rules: both fields or neither is InvalidRequest and changes nothing; other scopes are NotFound", () =>
    Effect.gen(function*() {
      yield* at(jan31)
      const subscriptions = yield* Subscriptions
      const a = yield* newAccount
      const b = yield* newAccount
      const { subscription } = yield* subscribe(a.test)
      const id = subscription.subscription_id
      for (
        const body of [
          {},
          { status: "cancelled" as const, cancel_at_period_end: true },
          { status: "cancelled" as const, cancel_at_period_end: false }
        ]
      ) {
        const r = yield* Effect.either(subscriptions.update(a.test, id, body))
        assert.strictEqual(failureTag(r), "InvalidRequest", JSON.stringify(body))
      }
      assert.deepStrictEqual(yield* subscriptions.get(a.test, id), subscription)
      for (const scope of [a.live, b.test, b.live]) {
        assert.strictEqual(failureTag(yield* Effect.either(subscriptions.get(scope, id))), "NotFound")
        assert.strictEqual(
          failureTag(yield* Effect.either(subscriptions.update(scope, id, { status: "cancelled" }))),
          "NotFound"
        )
        assert.lengthOf((yield* subscriptions.list(scope, {})).items, 0)
      }
      assert.strictEqual((yield* subscriptions.get(a.test, id)).status, "active")
      assert.deepStrictEqual(yield* typesOf(a.test), ["payment.succeeded", "subscription.active"])
    }).pipe(withControlledEngine))

  it.effect("list: newest first, filtered by status and customer, paged by cursor", () =>
    Effect.gen(function*() {
      yield* at(jan31)
      const subscriptions = yield* Subscriptions
      const { test } = yield* newAccount
      const one = yield* subscribe(test, { email: "one@example.ae" })
      yield* TestClock.adjust("1 minute")
      const two = yield* subscribe(test, { email: "two@example.ae" })
      yield* TestClock.adjust("1 minute")
      const three = yield* subscribe(test, { email: "one@example.ae" })
      yield* subscriptions.update(test, two.subscription.subscription_id, { status: "cancelled" })
      const ids = (xs: ReadonlyArray<{ readonly subscription_id: string }>) => xs.map((x) => x.subscription_id)
      const all = yield* subscriptions.list(test, {})
      assert.deepStrictEqual(ids(all.items), ids([three.subscription, two.subscription, one.subscription]))
      assert.deepStrictEqual(
        ids((yield* subscriptions.list(test, { status: "cancelled" })).items),
        [two.subscription.subscription_id]
      )
      assert.deepStrictEqual(
        ids((yield* subscriptions.list(test, { status: "active" })).items),
        ids([three.subscription, one.subscription])
      )
      assert.deepStrictEqual(
        ids((yield* subscriptions.list(test, { customer_id: one.subscription.customer.customer_id })).items),
        ids([three.subscription, one.subscription])
      )
      const page1 = yield* subscriptions.list(test, { limit: 2 })
      assert.isTrue(page1.has_more)
      const page2 = yield* subscriptions.list(test, { limit: 2, cursor: page1.next_cursor! })
      assert.deepStrictEqual(ids([...page1.items, ...page2.items]), ids(all.items))
      assert.isFalse(page2.has_more)
    }).pipe(withControlledEngine))
})

describe("billing is idempotent", () => {
  it.effect("two passes at the same instant charge a period once", () =>
    Effect.gen(function*() {
      yield* at(jan31)
      const { test } = yield* newAccount
      const { subscription } = yield* subscribe(test)
      const id = subscription.subscription_id
      yield* chargesAt(feb28)
      yield* nothingDueAt(feb28)
      assert.lengthOf(yield* paymentsOf(test, id), 2)
      assert.deepStrictEqual(yield* attemptsOf(id), [[1, 0]])
      // The same for a failed renewal: its retry is not due at the same instant.
      const failing = yield* subscribe(test, { card: cards.declineLater, email: "noor@example.ae" })
      yield* chargesAt(mar31, 2)
      yield* nothingDueAt(mar31)
      assert.deepStrictEqual(yield* attemptsOf(failing.subscription.subscription_id), [[1, 0]])
    }).pipe(withControlledEngine))

  it.effect("two concurrent passes charge each due period exactly once", () =>
    Effect.gen(function*() {
      yield* at(jan31)
      const billing = yield* Billing
      const { test } = yield* newAccount
      const subs = [
        yield* subscribe(test, { email: "a@example.ae" }),
        yield* subscribe(test, { email: "b@example.ae", card: cards.declineLater }),
        yield* subscribe(test, { email: "c@example.ae", interval: "week", count: 4 })
      ].map((s) => s.subscription)
      // [instant, charges due]: all three; the first retry; the second retry; the renewals and the last retry.
      const passes: ReadonlyArray<readonly [string, number]> = [
        [feb28, 3],
        ["2026-03-01T10:00:00.000Z", 1],
        ["2026-03-03T10:00:00.000Z", 1],
        [mar31, 3]
      ]
      for (const [when, due] of passes) {
        yield* at(when)
        const reports = yield* Effect.all([billing.runOnce(), billing.runOnce(), billing.runOnce()], {
          concurrency: "unbounded"
        })
        const charged = reports.reduce((n, r) => n + r.renewals_charged, 0)
        assert.strictEqual(charged, due, `charges at ${when}`)
      }
      assert.lengthOf(yield* tokenCharges, 8)
      for (const sub of subs) {
        const attempts = yield* attemptsOf(sub.subscription_id)
        assert.strictEqual(new Set(attempts.map((a) => a.join(":"))).size, attempts.length)
      }
      assert.deepStrictEqual(yield* attemptsOf(subs[0]!.subscription_id), [[1, 0], [2, 0]])
      assert.deepStrictEqual(yield* attemptsOf(subs[1]!.subscription_id), [[1, 0], [1, 1], [1, 2], [1, 3]])
      assert.strictEqual((yield* getSub(test, subs[1]!.subscription_id)).cancellation_reason, "payment_failed")
      // 4 weeks from 31 Jan: 28 Feb, then 28 Mar (already due on 31 Mar).
      assert.deepStrictEqual(yield* attemptsOf(subs[2]!.subscription_id), [[1, 0], [2, 0]])
      for (const sub of subs) {
        const payments = yield* paymentsOf(test, sub.subscription_id)
        const reasons = payments.map((p) => p.billing_reason)
        assert.deepStrictEqual(reasons.filter((r) => r === "subscription_create"), ["subscription_create"])
        assert.lengthOf(payments, 1 + (yield* attemptsOf(sub.subscription_id)).length)
      }
    }).pipe(withControlledEngine))
})

// Property ------------------------------------------------------------------------------------------------------------

type Step =
  | { readonly _tag: "jump"; readonly days: number; readonly hours: number }
  | { readonly _tag: "run" }
  | { readonly _tag: "concurrent" }
  | { readonly _tag: "cancel"; readonly sub: number }
  | { readonly _tag: "atPeriodEnd"; readonly sub: number; readonly value: boolean }

// Mostly time passing and billing passes; merchant actions now and then, so lifecycles get somewhere first.
const StepArb: FastCheck.Arbitrary<Step> = FastCheck.oneof(
  {
    weight: 5,
    arbitrary: FastCheck.record({
      _tag: FastCheck.constant("jump" as const),
      days: FastCheck.integer({ min: 0, max: 40 }),
      hours: FastCheck.integer({ min: 0, max: 23 })
    })
  },
  { weight: 4, arbitrary: FastCheck.constant({ _tag: "run" as const }) },
  { weight: 2, arbitrary: FastCheck.constant({ _tag: "concurrent" as const }) },
  { weight: 1, arbitrary: FastCheck.record({ _tag: FastCheck.constant("cancel" as const), sub: FastCheck.nat(5) }) },
  {
    weight: 1,
    arbitrary: FastCheck.record({
      _tag: FastCheck.constant("atPeriodEnd" as const),
      sub: FastCheck.nat(5),
      value: FastCheck.boolean()
    })
  }
)

const ScheduleArb = FastCheck.record({
  interval: FastCheck.constantFrom<BillingInterval>("day", "week", "month", "year"),
  count: FastCheck.integer({ min: 1, max: 3 }),
  price: FastCheck.integer({ min: 0, max: 50_000 }),
  quantity: FastCheck.integer({ min: 1, max: 3 }),
  card: FastCheck.constantFrom(cards.visa, cards.declineLater),
  offsetHours: FastCheck.integer({ min: 0, max: 72 })
})

/** Every item of a paged list, following `next_cursor`. */
const allPages = <A, E, R>(
  list: (cursor: string | undefined) => Effect.Effect<{ readonly items: ReadonlyArray<A>; readonly next_cursor: string | null }, E, R>
) =>
  Effect.gen(function*() {
    const items: Array<A> = []
    let cursor: string | undefined = undefined
    for (;;) {
      const page: { readonly items: ReadonlyArray<A>; readonly next_cursor: string | null } = yield* list(cursor)
      items.push(...page.items)
      if (page.next_cursor === null) return items
      cursor = page.next_cursor
    }
  })
const allPayments = (scope: Scope) =>
  Effect.flatMap(Payments, (p) => allPages((cursor) => p.list(scope, { limit: 100, cursor })))
const allEvents = (scope: Scope) =>
  Effect.flatMap(Events, (e) => allPages((cursor) => e.list(scope, { limit: 100, cursor })))

const DecisionArb = FastCheck.constantFrom<Decision>("succeed", "decline", "lost", "unreachable", "simulate")

describe("billing invariants (property)", () => {
  it.effect.prop(
    "any clock jumps, passes and merchant actions: one paid charge per period, unique attempts, cancelled stays put",
    {
      start: FastCheck.integer({ min: Date.parse("2025-01-01T00:00:00Z"), max: Date.parse("2030-12-31T00:00:00Z") }),
      schedules: FastCheck.array(ScheduleArb, { minLength: 1, maxLength: 3 }),
      outcomes: FastCheck.array(DecisionArb, { minLength: 1, maxLength: 12 }),
      steps: FastCheck.array(StepArb, { minLength: 1, maxLength: 30 })
    },
    ({ outcomes, schedules, start, steps }) =>
      Effect.gen(function*() {
        yield* TestClock.setTime(start)
        // When a billing pass last ran: renewals left processing are judged against it.
        let lastPassAt = start
        const billing = yield* Billing
        const subscriptions = yield* Subscriptions
        const store = yield* Store
        const { test } = yield* newAccount
        yield* setDecision((n) => outcomes[n % outcomes.length]!)
        const ids: Array<SubscriptionId> = []
        for (const [i, schedule] of schedules.entries()) {
          yield* TestClock.adjust(`${schedule.offsetHours} hours`)
          const made = yield* subscribe(test, { ...schedule, email: `p${i}@example.ae` })
          ids.push(made.subscription.subscription_id)
        }

        /** Payments and state of every subscription, with the invariants checked. */
        const check = (label: string) =>
          Effect.gen(function*() {
            const all = yield* allPayments(test)
            const events = yield* allEvents(test)
            const out = new Map<SubscriptionId, { sub: Subscription.Subscription; payments: ReadonlyArray<Payment.Payment> }>()
            for (const id of ids) {
              const sub = yield* subscriptions.get(test, id)
              const payments = all.filter((p) => p.subscription_id === id)
              const attempts = yield* store.subscriptions.attempts(id)
              const where = `${label} ${id} ${JSON.stringify(stateOf(sub))}`
              // Attempts are unique, per (period, attempt) and per payment.
              assert.strictEqual(new Set(attempts.map((a) => `${a.period}:${a.attempt}`)).size, attempts.length, where)
              assert.strictEqual(new Set(attempts.map((a) => a.payment_id)).size, attempts.length, where)
              assert.isTrue(attempts.every((a) => a.period >= 1 && a.attempt >= 0 && a.attempt <= 3), where)
              // Every renewal payment is one recorded attempt, and every attempt has its payment.
              const renewals = payments.filter((p) => p.billing_reason === "subscription_renewal")
              assert.strictEqual(payments.filter((p) => p.billing_reason === "subscription_create").length, 1, where)
              assert.strictEqual(renewals.length, attempts.length, where)
              const periodOf = new Map(attempts.map((a) => [a.payment_id as string, a.period]))
              // At most one succeeded payment per period; the succeeded renewals are the periods passed.
              const paidPeriods = renewals.filter((p) => p.status === "succeeded").map((p) => periodOf.get(p.payment_id))
              assert.isTrue(paidPeriods.every((p) => p !== undefined), where)
              assert.strictEqual(new Set(paidPeriods).size, paidPeriods.length, `${where}: a period paid twice`)
              assert.strictEqual(paidPeriods.length, sub.period, where)
              assert.strictEqual(
                events.filter((e) => e.type === "subscription.renewed" && e.data["subscription_id"] === id).length,
                sub.period,
                where
              )
              assert.isAtMost(
                events.filter((e) => e.type === "subscription.cancelled" && e.data["subscription_id"] === id).length,
                1,
                where
              )
              // The period is the anchored one.
              assert.strictEqual(
                isoOf(sub.current_period_start),
                isoOf(Calendar.periodStart(sub.anchor, sub.billing_interval, sub.interval_count, sub.period)),
                where
              )
              assert.strictEqual(
                isoOf(sub.next_billing_date),
                isoOf(Calendar.periodStart(sub.anchor, sub.billing_interval, sub.interval_count, sub.period + 1)),
                where
              )
              // Amounts never negative; every charge is the recurring amount. Only a renewal whose processor could
              // not be reached is left processing: the current attempt of a subscription still running, with no
              // charge id, asked again by the passes for 15 minutes at most.
              for (const p of payments) {
                assert.strictEqual(p.total_amount, sub.recurring_amount, where)
                assert.isAtLeast(p.total_amount, 0, where)
                assert.isAtLeast(p.fee_amount, 0, where)
                assert.isAtLeast(p.net_amount, 0, where)
                assert.isAtMost(p.fee_amount, p.total_amount, where)
                if (p.status !== "processing") continue
                const current = attempts.find((a) => a.period === sub.period + 1 && a.attempt === sub.failed_payment_attempts)
                assert.strictEqual(current?.payment_id, p.payment_id, `${where}: processing, not the current attempt`)
                assert.notStrictEqual(sub.status, "cancelled", where)
                assert.isNull(p.charge_id, where)
                assert.isBelow(lastPassAt - DateTime.toEpochMillis(p.created_at), 15 * 60_000, where)
              }
              // The state's own rules.
              if (sub.status === "active") {
                assert.deepStrictEqual([sub.failed_payment_attempts, sub.next_retry_at, sub.cancelled_at], [0, null, null], where)
              } else if (sub.status === "on_hold") {
                assert.isTrue(sub.failed_payment_attempts >= 1 && sub.failed_payment_attempts <= 3, where)
                assert.isNotNull(sub.next_retry_at, where)
              } else {
                assert.isNotNull(sub.cancelled_at, where)
                assert.isNotNull(sub.cancellation_reason, where)
                assert.isNull(sub.next_retry_at, where)
              }
              out.set(id, { sub, payments })
            }
            return out
          })

        let before = yield* check("after subscribing")
        for (const [n, step] of steps.entries()) {
          switch (step._tag) {
            case "jump":
              yield* TestClock.adjust(`${step.days * 24 + step.hours} hours`)
              break
            case "run":
              yield* billing.runOnce()
              lastPassAt = yield* Clock.currentTimeMillis
              break
            case "concurrent":
              yield* Effect.all([billing.runOnce(), billing.runOnce()], { concurrency: "unbounded" })
              lastPassAt = yield* Clock.currentTimeMillis
              break
            case "cancel": {
              const id = ids[step.sub % ids.length]!
              const was = before.get(id)!.sub
              const inFlight = before.get(id)!.payments.some((p) => p.status === "processing")
              // A cancellation waits (on the clock) for a renewal that is processing, then gives up with 409.
              const cancelling = yield* Effect.fork(Effect.either(subscriptions.update(test, id, { status: "cancelled" })))
              if (inFlight) yield* TestClock.adjust("16 seconds")
              const r = yield* Fiber.join(cancelling)
              if (Either.isLeft(r)) {
                assert.isTrue(inFlight && r.left._tag === "RenewalInProgress", `cancel: ${r.left._tag}`)
                break
              }
              assert.strictEqual(r.right.status, "cancelled")
              if (was.status === "cancelled") assert.deepStrictEqual(r.right, was, "cancelling twice changes nothing")
              break
            }
            case "atPeriodEnd": {
              const id = ids[step.sub % ids.length]!
              const was = before.get(id)!.sub
              const r = yield* Effect.either(subscriptions.update(test, id, { cancel_at_period_end: step.value }))
              assert.strictEqual(failureTag(r), was.status === "cancelled" ? "SubscriptionNotChangeable" : "succeeded")
              break
            }
          }
          const after = yield* check(`after step ${n} ${JSON.stringify(step)}`)
          for (const [id, { payments, sub }] of before) {
            if (sub.status !== "cancelled") continue
            const now = after.get(id)!
            assert.strictEqual(now.payments.length, payments.length, `cancelled ${id} gained a payment at step ${n}`)
            assert.deepStrictEqual(now.sub, sub, `cancelled ${id} changed at step ${n}`)
          }
          before = after
        }
      }).pipe(withControlledEngine),
    { fastCheck: { numRuns: 30 }, timeout: 60_000 }
  )
})
