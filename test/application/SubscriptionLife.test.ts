/**
 * A subscription's whole life as a property, on the memory store and on PostgreSQL (docs/subscriptions.md,
 * docs/discounts.md): a checkout with or without a trial (free or paid) and a discount code, then random renewals
 * (declined ones and their retries included), plan changes in every mode (now or scheduled, with a code), scheduled
 * changes cancelled, on-demand charges, cancellation at the period end and now.
 *
 * The test keeps its own ledger and finds, to the fils: every charge is what its period's price, its discounts and the
 * credit say (a renewal: the plan's price less what each code takes off, less the credit it spends; a change: what
 * its preview showed); no amount or credit is ever negative; credit is never lost nor spent twice; a code's cycles
 * count the paid periods after a trial, and its uses the redemptions (none left held); a period is never charged
 * twice; money the processor moved is money recorded; nothing is charged after a cancellation. On PostgreSQL,
 * `fils check` finds nothing wrong after each life.
 *
 * Prices include VAT or the merchant charges none, so that a discount comes off the gross price (a merchant whose
 * prices exclude VAT is priced the same way on the net price: docs/discounts.md; its own tests are in Discounts and
 * PlanChanges). Time is a clock the test sets, that sleeps in real time, so that the database's pool works as usual.
 */
import { assert, describe, it, layer } from "@effect/vitest"
import { Clock, ConfigProvider, Context, DateTime, Effect, Either, FastCheck as fc, Layer, Redacted, Schema } from "effect"
import { check } from "../../adapters/sql/Check.js"
import { PgLive } from "../../adapters/sql/Postgres.js"
import { StoreSql } from "../../adapters/sql/StoreSql.js"
import { NodeAdapters } from "../../adapters/runtime/NodeAdapters.js"
import { Accounts } from "../../src/application/Accounts.js"
import { Billing } from "../../src/application/Billing.js"
import { Discounts } from "../../src/application/Discounts.js"
import { Engine } from "../../src/application/Engine.js"
import { Payments } from "../../src/application/Payments.js"
import { PlanChanges } from "../../src/application/PlanChanges.js"
import { SubscriptionCharges } from "../../src/application/SubscriptionCharges.js"
import { Subscriptions } from "../../src/application/Subscriptions.js"
import type * as Discount from "../../src/domain/Discount.js"
import type { SubscriptionId } from "../../src/domain/Ids.js"
import type * as Payment from "../../src/domain/Payment.js"
import * as PlanPolicy from "../../src/domain/PlanPolicy.js"
import * as Subscription from "../../src/domain/Subscription.js"
import { PaymentProcessor } from "../../src/ports/PaymentProcessor.js"
import { SqlClient } from "@effect/sql"
import { cards, formWith, makeProduct, makeSession, pay } from "../support/checkout.js"
import { oldPlanCredit } from "../support/credit.js"
import { migratedDatabaseUrl } from "../support/database.js"
import { vatProfile } from "../support/taxProfile.js"
import { engineLayer, newAccount } from "./harness.js"

// What a life is made of -----------------------------------------------------------------------------------------------

const plans = [
  { name: "Basic", price: 10_000, billing_interval: "month" },
  { name: "Pro", price: 30_000, billing_interval: "month" },
  { name: "Yearly", price: 99_000, billing_interval: "year" }
] as const

const codeArb = fc.record({
  type: fc.constantFrom("percentage" as const, "flat" as const),
  percent: fc.integer({ min: 1, max: 10_000 }),
  flat: fc.integer({ min: 1, max: 40_000 }),
  cycles: fc.option(fc.integer({ min: 1, max: 4 }), { nil: null }),
  preserve: fc.boolean()
}).map(({ cycles, flat, percent, preserve, type }) => ({ type, amount: type === "percentage" ? percent : flat, cycles, preserve }))

const stepArb = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ _tag: "renew" as const }) },
  {
    weight: 3,
    arbitrary: fc.record({
      _tag: fc.constant("change" as const),
      plan: fc.integer({ min: 0, max: plans.length - 1 }),
      quantity: fc.integer({ min: 1, max: 3 }),
      mode: fc.constantFrom(...PlanPolicy.ProrationBillingMode.literals),
      scheduled: fc.integer({ min: 0, max: 3 }).map((n) => n === 0),
      withCode: fc.boolean(),
      /** Where in what is left of the period, in thousandths. */
      into: fc.integer({ min: 1, max: 998 })
    })
  },
  { weight: 1, arbitrary: fc.constant({ _tag: "cancelScheduled" as const }) },
  { weight: 1, arbitrary: fc.record({ _tag: fc.constant("charge" as const), amount: fc.integer({ min: 1, max: 5_000 }) }) },
  { weight: 1, arbitrary: fc.record({ _tag: fc.constant("cancelAtPeriodEnd" as const), value: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constant({ _tag: "cancelNow" as const }) }
)

const lifeArb = {
  start: fc.integer({ min: Date.parse("2025-01-01T00:00:00Z"), max: Date.parse("2029-12-31T00:00:00Z") }),
  vat: fc.boolean(),
  trial: fc.option(fc.record({ days: fc.constantFrom(7, 14, 30), amount: fc.constantFrom(null, 500) }), { nil: null }),
  code: fc.option(codeArb, { nil: null }),
  switchCode: codeArb,
  declining: fc.integer({ min: 0, max: 3 }).map((n) => n === 0),
  steps: fc.array(stepArb, { minLength: 1, maxLength: 10 })
}
type Life = { readonly [K in keyof typeof lifeArb]: (typeof lifeArb)[K] extends fc.Arbitrary<infer T> ? T : never }

/** What a code takes off a gross amount (docs/discounts.md): a share rounded half up, or a flat amount, never more. */
const offOf = (d: { readonly type: Discount.Discount["type"]; readonly amount: number }, listed: number) =>
  d.type === "percentage" ? Math.floor((listed * d.amount + 5_000) / 10_000) : Math.min(d.amount, listed)

// The clock the test sets --------------------------------------------------------------------------------------------

/** A clock whose time the test sets (`at`), and whose sleeps are real (a pool's timeouts, a batch's wait). */
const settableClock = (startMillis: number) => {
  const live = Clock.make()
  let millis = startMillis
  const clock: Clock.Clock = {
    [Clock.ClockTypeId]: Clock.ClockTypeId,
    unsafeCurrentTimeMillis: () => millis,
    currentTimeMillis: Effect.sync(() => millis),
    unsafeCurrentTimeNanos: () => BigInt(millis) * 1_000_000n,
    currentTimeNanos: Effect.sync(() => BigInt(millis) * 1_000_000n),
    sleep: (duration) => live.sleep(duration)
  }
  return { clock, set: (at: number) => Effect.sync(() => void (millis = Math.max(millis, at))) }
}

// A life -------------------------------------------------------------------------------------------------------------

const life = (input: Life, setTime: (millis: number) => Effect.Effect<void>) =>
  Effect.gen(function*() {
    const { account, test } = yield* newAccount
    if (input.vat) yield* Effect.flatMap(Accounts, (a) => a.update(account.account_id, { tax_profile: vatProfile }))
    const discounts = yield* Discounts
    const planChanges = yield* PlanChanges
    const subscriptions = yield* Subscriptions
    const makeCode = (code: string, terms: typeof input.switchCode, usageLimit: number | null) =>
      discounts.create(test, {
        code,
        type: terms.type,
        amount: terms.amount,
        subscription_cycles: terms.cycles,
        usage_limit: usageLimit,
        preserve_on_plan_change: terms.preserve
      })
    const welcome = input.code === null ? null : yield* makeCode("WELCOME", input.code, 1)
    const switchCode = yield* makeCode("SWITCH", input.switchCode, 2)
    const products = yield* Effect.forEach(plans, (p, i) =>
      makeProduct(test, {
        ...p,
        billing: "recurring",
        ...(i === 0 && input.trial !== null ? { trial_period_days: input.trial.days, trial_amount: input.trial.amount } : {})
      }))
    const getSub = (id: SubscriptionId) => subscriptions.get(test, id)
    const paymentsOf = (id: SubscriptionId) =>
      Effect.map(Effect.flatMap(Payments, (p) => p.list(test, { subscription_id: id, limit: 100 })), (l) => [...l.items].reverse())
    const usesOf = (d: Discount.Discount) => Effect.map(discounts.get(test, d.discount_id), (x) => [x.times_used, x.held])

    // The checkout -------------------------------------------------------------------------------------------------------
    const basic = products[0]!
    const session = yield* makeSession(test, {
      product_cart: [{ product_id: basic.product_id, quantity: 1 }],
      ...(welcome === null ? {} : { discount_code: "welcome" })
    })
    const started = yield* pay(session.session_id, formWith(input.declining ? cards.declineLater : cards.visa))
    const id = started._tag === "Started"
      ? started.subscription.subscription_id
      : started._tag === "Paid" && started.payment.subscription_id !== null
      ? started.payment.subscription_id
      : assert.fail(`not subscribed: ${started._tag}`)
    const first = yield* paymentsOf(id)
    // The test's ledger: the credit there should be, what the current period was charged before credit (a change's
    // credit is a share of it), and the uses of each code.
    let credit = 0
    let periodBase: number
    let uses = { welcome: welcome === null ? 0 : 1, switch: 0 }
    if (input.trial === null) {
      const listed = basic.price
      const off = input.code === null ? 0 : offOf(input.code, listed)
      assert.deepStrictEqual(first.map((p) => [p.billing_reason, p.status, p.total_amount]), [["subscription_create", "succeeded", listed - off]])
      periodBase = listed - off
    } else if (input.trial.amount === null) {
      assert.deepStrictEqual(first, [], "a free trial charges nothing")
      periodBase = 0
    } else {
      assert.deepStrictEqual(first.map((p) => [p.status, p.total_amount, p.discounts.map((d) => d.amount_off)]), [
        ["succeeded", input.trial.amount, welcome === null ? [] : [0]]
      ], "a paid trial is charged its own price, undiscounted")
      periodBase = input.trial.amount
    }
    const startedSub = yield* getSub(id)
    // A code's cycles count the paid periods: the first payment used one, unless it was a trial's.
    assert.deepStrictEqual(
      startedSub.discounts.map((d) => d.cycles_remaining),
      input.code === null ? [] : [input.code.cycles === null ? null : input.code.cycles - (input.trial === null ? 1 : 0)]
    )

    // The steps ----------------------------------------------------------------------------------------------------------
    for (const step of input.steps) {
      const s = yield* getSub(id)
      const before = yield* paymentsOf(id)
      const newPayments = Effect.map(paymentsOf(id), (all) => all.slice(before.length))

      if (step._tag === "renew") {
        const due = Subscription.dueAt(s)
        if (due === null) continue
        yield* setTime(DateTime.toEpochMillis(due))
        yield* Effect.flatMap(Billing, (b) => b.runOnce())
        const made = yield* newPayments
        // The same pass again at the same moment charges nothing more: a period is never charged twice.
        yield* Effect.flatMap(Billing, (b) => b.runOnce())
        assert.lengthOf(yield* newPayments, made.length, "a second pass charges nothing")
        const after = yield* getSub(id)
        // Set to end at its period's end (on hold too: that period is over), it ends uncharged.
        if (s.cancel_at_period_end) {
          assert.deepStrictEqual([made.length, after.status], [0, "cancelled"], "ended at the period end, uncharged")
          continue
        }
        assert.lengthOf(made, 1, "a due renewal or retry charges once")
        const renewal = made[0]!
        assert.strictEqual(renewal.billing_reason, "subscription_renewal")
        if (renewal.status !== "succeeded") {
          assert.strictEqual(renewal.status, "failed")
          assert.include(["on_hold", "cancelled"], after.status)
          assert.strictEqual(after.credit_balance, credit, "a declined renewal spends no credit")
          if (s.scheduled_change === null) {
            assert.deepStrictEqual(after.discounts.map((d) => d.cycles_remaining), s.discounts.map((d) => d.cycles_remaining), "a declined renewal uses no cycle")
          } else {
            // A change scheduled for this date is made with it, paid or not (as Stripe's does): its plan is on hold.
            assert.deepStrictEqual([after.product_id, after.quantity], [s.scheduled_change.product_id, s.scheduled_change.quantity])
          }
          continue
        }
        // The period's plan (a scheduled change made first), less what its codes take off, less the credit it spends.
        const listed = after.recurring_amount
        const off = renewal.discounts.reduce((sum, d) => sum + d.amount_off, 0)
        if (renewal.discounts.length === 1) assert.strictEqual(off, offOf(renewal.discounts[0]!, listed))
        const spent = credit - after.credit_balance
        assert.strictEqual(spent, Math.min(credit, listed - off), "credit spent is what there was, up to the charge")
        assert.strictEqual(renewal.total_amount, listed - off - spent)
        credit -= spent
        periodBase = listed - off
        assert.strictEqual(after.status, "active")
        // Each code it applied used one cycle (of the discounts a change scheduled for this date left, if any).
        for (const d of s.scheduled_change === null ? renewal.discounts : []) {
          const was = s.discounts.find((x) => x.discount_id === d.discount_id)
          const now = after.discounts.find((x) => x.discount_id === d.discount_id)
          if (was !== undefined && now !== undefined && was.cycles_remaining !== null) {
            assert.strictEqual(now.cycles_remaining, was.cycles_remaining - 1)
          }
        }
        continue
      }

      if (step._tag === "cancelScheduled") {
        const r = yield* Effect.either(planChanges.cancelScheduled(test, id))
        assert.strictEqual(Either.isRight(r), s.scheduled_change !== null)
        if (Either.isRight(r)) uses = { ...uses, switch: uses.switch - (s.scheduled_change!.new_discounts ?? []).length }
        continue
      }

      if (step._tag === "charge") {
        const r = yield* Effect.either(Effect.flatMap(SubscriptionCharges, (c) =>
          c.charge(test, id, { product_price: step.amount, product_description: "Extra" })))
        if (Either.isLeft(r)) {
          assert.strictEqual(s.status, "cancelled", `refused: ${r.left.message}`)
          continue
        }
        const payment = r.right.payment
        assert.deepStrictEqual([payment.billing_reason, payment.total_amount], ["subscription_charge", step.amount])
        assert.strictEqual(payment.status, input.declining ? "failed" : "succeeded")
        const after = yield* getSub(id)
        assert.deepStrictEqual([after.credit_balance, after.discounts], [s.credit_balance, s.discounts], "an extra spends no credit or code")
        continue
      }

      if (step._tag === "cancelAtPeriodEnd" || step._tag === "cancelNow") {
        const patch = step._tag === "cancelNow" ? { status: "cancelled" as const } : { cancel_at_period_end: step.value }
        const r = yield* Effect.either(subscriptions.update(test, id, patch))
        const after = yield* getSub(id)
        if (Either.isLeft(r)) assert.deepStrictEqual(after, s, "a refused update changes nothing")
        else if (step._tag === "cancelNow") assert.strictEqual(after.status, "cancelled")
        assert.lengthOf(yield* newPayments, 0)
        continue
      }

      // A change somewhere in what is left of the period.
      const left = DateTime.toEpochMillis(s.next_billing_date) - DateTime.toEpochMillis(yield* DateTime.now)
      if (left > 2_000) yield* setTime(DateTime.toEpochMillis(yield* DateTime.now) + Math.floor((left * step.into) / 1_000))
      const body = {
        product_id: products[step.plan]!.product_id,
        quantity: step.quantity,
        proration_billing_mode: step.mode,
        // A card that declines keeps the old plan (a declined change is then refused, nothing changed).
        on_payment_failure: input.declining ? "prevent_change" as const : "apply_change" as const,
        ...(step.scheduled ? { effective_at: "next_billing_date" as const } : {}),
        ...(step.withCode ? { discount_codes: ["switch"] } : {})
      }
      const shown = yield* Effect.either(planChanges.preview(test, id, body))
      const made = yield* Effect.either(planChanges.change(test, id, {
        ...body,
        ...(Either.isRight(shown) ? { quote_id: shown.right.quote_id } : {})
      }))
      const after = yield* getSub(id)
      if (Either.isLeft(shown) || Either.isLeft(made)) {
        // Preview and change agree, but for a card declined after the preview: both refuse, nothing changed.
        if (Either.isRight(shown)) assert.strictEqual(Either.isLeft(made) && made.left._tag, "ChargeDeclined")
        else assert.isTrue(Either.isLeft(made), "a change its preview refused is refused")
        assert.deepStrictEqual(after, s, "a refused change changes nothing")
        const failed = (yield* newPayments).filter((p) => p.status !== "failed")
        assert.deepStrictEqual(failed, [], "nothing but a declined charge is left")
        continue
      }
      const encode = Schema.encodeSync(Subscription.SubscriptionResource)
      assert.deepStrictEqual(encode(made.right.subscription), encode(shown.right.new_plan), "the change is its preview")
      if (step.withCode) uses = { ...uses, switch: uses.switch + 1 }
      const summary = shown.right.immediate_charge.summary
      const payment = made.right.payment
      assert.isTrue(summary.credit_remaining >= 0 && summary.total_amount >= 0)
      if (payment === null) {
        assert.deepStrictEqual([summary.total_amount, summary.credit_applied, summary.credit_remaining], [0, 0, credit])
        continue
      }
      assert.deepStrictEqual([payment.status, payment.total_amount, payment.tax], ["succeeded", summary.total_amount, summary.tax])
      const unused = oldPlanCredit(s, step.mode, periodBase, yield* DateTime.now)
      const listed = made.right.subscription.recurring_amount
      const off = payment.discounts.reduce((sum, d) => sum + d.amount_off, 0)
      const spent = listed - off - payment.total_amount
      assert.isTrue(spent >= 0 && spent <= credit + unused, `credit spent ${spent} is credit there was (${credit} + ${unused})`)
      credit = credit + unused - spent
      periodBase = listed - off
      assert.deepStrictEqual([made.right.subscription.credit_balance, summary.credit_remaining], [credit, credit])
    }

    // The whole life -------------------------------------------------------------------------------------------------------
    const final = yield* getSub(id)
    const payments = yield* paymentsOf(id)
    assert.strictEqual(final.credit_balance, credit, "no credit lost or spent twice")
    assert.isTrue(payments.every((p) => p.total_amount >= 0), "no amount negative")
    assert.isTrue(payments.every((p) => p.status === "succeeded" || p.status === "failed"), "nothing left in doubt")
    // Money moved is money recorded: at most one succeeded charge at the processor per succeeded payment, of its
    // amount (a plan change's payment of nothing, all of it credit, asks the processor nothing).
    const movements = (yield* Effect.flatMap(PaymentProcessor, (p) => p.movements(DateTime.unsafeMake(0))))
      .filter((m): m is Extract<typeof m, { _tag: "Charge" }> => m._tag === "Charge" && m.outcome._tag === "Succeeded")
    const moved = new Map<string, Array<number>>()
    for (const m of movements) moved.set(m.reference, [...moved.get(m.reference) ?? [], m.amount])
    const succeeded = payments.filter((p: Payment.Payment) => p.status === "succeeded")
    const movedFor = (p: Payment.Payment) => moved.get(p.payment_id) ?? []
    assert.deepStrictEqual(
      succeeded.map((p) => [p.payment_id, movedFor(p).length <= 1, movedFor(p).reduce((a, b) => a + b, 0)]),
      succeeded.map((p) => [p.payment_id, true, p.total_amount])
    )
    for (const p of payments.filter((p) => p.status === "failed")) assert.isUndefined(moved.get(p.payment_id), "a declined charge moved nothing")
    // Nothing is charged after a cancellation.
    if (final.cancelled_at !== null) {
      assert.isTrue(payments.every((p) => DateTime.lessThanOrEqualTo(p.created_at, final.cancelled_at!)))
    }
    // Each code's uses are its redemptions, within its limit, none left held.
    if (welcome !== null) assert.deepStrictEqual(yield* usesOf(welcome), [uses.welcome, 0])
    assert.deepStrictEqual(yield* usesOf(switchCode), [uses.switch, 0])
  })

// On both stores ---------------------------------------------------------------------------------------------------------

/** Runs a life on the clock it sets, over a fresh engine on `engine`. */
const onClock = <E>(input: Life, engine: Layer.Layer<Effect.Effect.Context<ReturnType<typeof life>>, E>) => {
  const { clock, set } = settableClock(input.start)
  return life(input, set).pipe(Effect.provide(engine), Effect.withClock(clock))
}

describe("a subscription's life (property)", () => {
  it.live.prop(
    "on the memory store: every charge is its period, discounts and credit; credit and codes never lost nor used twice",
    lifeArb,
    (input) => onClock(input, engineLayer()),
    { fastCheck: { numRuns: 30 }, timeout: 120_000 }
  )
})

class DatabaseUrl extends Context.Tag("test/DatabaseUrl")<DatabaseUrl, Redacted.Redacted>() {}

/** One migrated database for the suite; each life makes its own account on it. */
const Database = Layer.scoped(DatabaseUrl, migratedDatabaseUrl)

layer(Database, { timeout: "60 seconds" })("a subscription's life on PostgreSQL (property)", (it) => {
  // The test clock of `it.effect` is replaced by the life's own (`onClock`).
  it.effect.prop(
    "the same life on PostgreSQL; `fils check` finds nothing wrong after it",
    lifeArb,
    (input) =>
      Effect.gen(function*() {
        const url = yield* DatabaseUrl
        const pool = PgLive(url, { maxConnections: 4 })
        const engine = Engine.pipe(
          Layer.provideMerge(Layer.mergeAll(StoreSql.pipe(Layer.provide(pool)), NodeAdapters)),
          Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map())))
        )
        yield* onClock(input, engine)
        const violations = yield* Effect.scoped(Effect.flatMap(Layer.build(pool), (ctx) =>
          Effect.provideService(check(), SqlClient.SqlClient, Context.get(ctx, SqlClient.SqlClient))))
        assert.deepStrictEqual(
          violations.filter((v) => ["period_charged_twice", "amounts", "session_complete", "payment_events"].includes(v.invariant)),
          []
        )
      }),
    { fastCheck: { numRuns: 6 }, timeout: 180_000 }
  )
})
