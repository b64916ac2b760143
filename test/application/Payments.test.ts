/** Payments (refunds, lists) and the event record, over the memory store (docs/decisions.md §5, §7). */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Either, Option, Schema, TestClock } from "effect"
import { Events } from "../../src/application/Events.js"
import { Payments } from "../../src/application/Payments.js"
import { ChargeOutcomes } from "../../src/application/ChargeOutcomes.js"
import { operator, type Scope } from "../../src/domain/Account.js"
import type { Event, EventType } from "../../src/domain/Event.js"
import type { CheckoutSessionId, CustomerId, EventId, PaymentId } from "../../src/domain/Ids.js"
import * as Payment from "../../src/domain/Payment.js"
import { Store } from "../../src/ports/Store.js"
import { advance, dueMillis, makePayment, renewalPayment, startSubscription, subscriptionParents, T0 } from "../adapters/storeContract.js"
import { cards, formWith, makeProduct, makeSession, pay } from "../support/checkout.js"
import { fourScopes, newAccount, withEngine } from "./harness.js"

const encodeRefunded = Schema.encodeSync(Payment.RefundedPaymentResource)
const encodePayment = Schema.encodeSync(Payment.PaymentResource)

const failureTag = <A, E extends { readonly _tag: string }>(e: Either.Either<A, E>) =>
  Either.isLeft(e) ? e.left._tag : "succeeded"

/** A new session of `price` fils paid with `card`; the payment. */
const paidWith = (scope: Scope, card: string, price = 10_000, email = "layla@example.ae") =>
  Effect.gen(function*() {
    const session = yield* makeSession(scope, {
      product_cart: [{ product_id: (yield* makeProduct(scope, { price })).product_id }]
    })
    const result = yield* pay(session.session_id, formWith(card, { email }))
    if (result._tag !== "Paid") throw new Error("expected a payment")
    return result.payment
  })

const eventsOf = (scope: Scope, type?: EventType) =>
  Effect.map(Effect.flatMap(Events, (e) => e.list(scope, { type, limit: 100 })), (l) => l.items)

describe("Payments.refund", () => {
  it.effect("partial then the rest: partially_refunded → refunded, one refund.succeeded each", () =>
    Effect.gen(function*() {
      const payments = yield* Payments
      const { test } = yield* newAccount
      const paid = yield* paidWith(test, cards.visa, 10_000)
      const fee = Payment.fee(10_000, Payment.defaultFees)
      assert.strictEqual(paid.fee_amount, fee)

      yield* TestClock.adjust("1 second")
      const first = yield* payments.refund(operator, paid.payment_id, 2_500)
      assert.strictEqual(first.refundAmount, 2_500)
      assert.strictEqual(first.payment.status, "partially_refunded")
      assert.strictEqual(first.payment.refunded_amount, 2_500)
      assert.strictEqual(first.payment.fee_amount, fee)
      assert.strictEqual(first.payment.net_amount, 10_000 - fee - 2_500)
      assert.deepStrictEqual(yield* payments.get(test, paid.payment_id), first.payment)

      yield* TestClock.adjust("1 second")
      const rest = yield* payments.refund(operator, paid.payment_id)
      assert.strictEqual(rest.refundAmount, 7_500, "default: all that remains")
      assert.strictEqual(rest.payment.status, "refunded")
      assert.strictEqual(rest.payment.refunded_amount, 10_000)
      assert.strictEqual(rest.payment.net_amount, -fee, "fees are not returned")
      assert.deepStrictEqual(Payment.violations(rest.payment), [])

      const refunds = yield* eventsOf(test, "refund.succeeded")
      assert.strictEqual(refunds.length, 2)
      // Newest first: the data is the payment right after each refund, plus what that refund returned.
      assert.deepStrictEqual(refunds[0]!.data, encodeRefunded({ ...rest.payment, refund_amount: 7_500 }))
      assert.deepStrictEqual(refunds[1]!.data, encodeRefunded({ ...first.payment, refund_amount: 2_500 }))
      assert.strictEqual(refunds[1]!.data.status, "partially_refunded")
      assert.strictEqual(refunds[1]!.data.refunded_amount, 2_500)
      assert.strictEqual(refunds[0]!.data.status, "refunded")
      assert.notProperty(refunds[0]!.data, "card")
      assert.notProperty(refunds[0]!.data, "account_id")
    }).pipe(withEngine()))

  it.effect("a full refund in one go", () =>
    Effect.gen(function*() {
      const payments = yield* Payments
      const { test } = yield* newAccount
      const paid = yield* paidWith(test, cards.visa, 34_900)
      const r = yield* payments.refund(operator, paid.payment_id)
      assert.strictEqual(r.refundAmount, 34_900)
      assert.strictEqual(r.payment.status, "refunded")
      const [event] = yield* eventsOf(test, "refund.succeeded")
      assert.strictEqual(event!.data.refund_amount, 34_900)
      assert.strictEqual(event!.data.status, "refunded")
    }).pipe(withEngine()))

  it.effect("too much, zero, negative, fractional, or of a failed/processing/refunded payment: refused, nothing changed", () =>
    Effect.gen(function*() {
      const payments = yield* Payments
      const { test } = yield* newAccount
      const paid = yield* paidWith(test, cards.visa, 10_000)
      yield* payments.refund(operator, paid.payment_id, 4_000)
      const partially = yield* payments.get(test, paid.payment_id)
      const eventsBefore = (yield* eventsOf(test)).length

      for (const amount of [6_001, 10_000, 0, -1, 1.5, Number.NaN]) {
        const r = yield* Effect.either(payments.refund(operator, paid.payment_id, amount))
        assert.strictEqual(failureTag(r), "RefundExceedsRemaining", String(amount))
        if (Either.isLeft(r) && r.left._tag === "RefundExceedsRemaining") assert.strictEqual(r.left.remaining, 6_000)
      }
      assert.deepStrictEqual(yield* payments.get(test, paid.payment_id), partially)

      const failed = yield* paidWith(test, cards.declined)
      const processing = yield* paidWith(test, cards.settleSucceeds)
      for (const p of [failed, processing]) {
        for (const amount of [undefined, 1]) {
          const r = yield* Effect.either(payments.refund(operator, p.payment_id, amount))
          assert.strictEqual(failureTag(r), "PaymentNotRefundable", `${p.status} ${amount}`)
        }
        assert.deepStrictEqual(yield* payments.get(test, p.payment_id), p)
      }

      yield* payments.refund(operator, paid.payment_id)
      const refunded = yield* payments.get(test, paid.payment_id)
      for (const amount of [undefined, 1]) {
        const r = yield* Effect.either(payments.refund(operator, paid.payment_id, amount))
        assert.notStrictEqual(failureTag(r), "succeeded", `refunded ${amount}`)
      }
      assert.deepStrictEqual(yield* payments.get(test, paid.payment_id), refunded)
      const unknown = yield* Effect.either(payments.refund(operator, `pay_${"0".repeat(32)}` as PaymentId))
      assert.strictEqual(failureTag(unknown), "NotFound")

      const refundEvents = yield* eventsOf(test, "refund.succeeded")
      assert.strictEqual(refundEvents.length, 2, "only the two accepted refunds")
      // 1 payment.succeeded + 1 refund before; then payment.failed, the last refund; the processing one has none.
      assert.strictEqual((yield* eventsOf(test)).length, eventsBefore + 2)
    }).pipe(withEngine()))

  it.effect("a processing payment that settles can then be refunded", () =>
    Effect.gen(function*() {
      const payments = yield* Payments
      const { test } = yield* newAccount
      const p = yield* paidWith(test, cards.settleSucceeds, 2_000)
      yield* TestClock.adjust("5 seconds")
      yield* payments.resolvePending()
      const r = yield* payments.refund(operator, p.payment_id, 500)
      assert.strictEqual(r.payment.status, "partially_refunded")
    }).pipe(withEngine()))
})

describe("Payments.resolvePending", () => {
  it.effect("a charge abandoned mid-way (no charge id) fails after a minute of real time, never on a simulated clock", () =>
    Effect.gen(function*() {
      const payments = yield* Payments
      const store = yield* Store
      const { test } = yield* newAccount
      const now = yield* DateTime.now
      const stuck = yield* makePayment(test, { created_at: DateTime.subtract(now, { seconds: 30 }) })
      yield* store.payments.insert(stuck)
      const statusOf = Effect.map(store.payments.get(test, stuck.payment_id), (p) => Option.getOrThrow(p).status)

      assert.strictEqual(yield* payments.resolvePending(), 0, "30 s is not abandoned yet")
      yield* TestClock.adjust("1 minute")
      // A pass as of another instant (billing run --at) cannot tell how long the charge has really been running.
      assert.strictEqual(yield* payments.resolvePending(100, undefined, { judgeAbandoned: false }), 0)
      assert.strictEqual(yield* statusOf, "processing")
      assert.strictEqual(yield* payments.resolvePending(), 1)
      assert.strictEqual(yield* statusOf, "failed")
      const failed = yield* eventsOf(test, "payment.failed")
      assert.deepStrictEqual(failed.map((e) => (e.data as { payment_id: string }).payment_id), [stuck.payment_id])
    }).pipe(withEngine()))
})

describe("ChargeOutcomes.record", () => {
  it.effect("a batch ends as recording each alone would: outcomes, events in order, settled ones and repeats left alone", () =>
    Effect.gen(function*() {
      const payments = yield* Payments
      const outcomes = yield* ChargeOutcomes
      const store = yield* Store
      const { test } = yield* newAccount
      const ok: Payment.ChargeOutcome = { _tag: "Succeeded" }
      const declined: Payment.ChargeOutcome = { _tag: "Failed", code: "card_declined" }
      const card = { brand: "visa", last4: "4242", exp_month: 12, exp_year: 2030, token: "tok_sim_ok_1" } as const
      /** One set of payments: three processing, one already succeeded. */
      const makeSet = Effect.gen(function*() {
        const set = yield* Effect.forEach([0, 1, 2, 3], (i) => makePayment(test, { total_amount: 1000 * (i + 1), net_amount: 1000 * (i + 1) }))
        const settled = yield* Payment.transition(set[3]!, { _tag: "Settle", outcome: ok }, yield* DateTime.now, payments.fees)
        yield* Effect.forEach([...set.slice(0, 3), settled.next], store.payments.insert)
        return set.map((p) => p.payment_id)
      })
      const reportsFor = (ids: ReadonlyArray<PaymentId>) => [
        { id: ids[0]!, report: { outcome: ok, chargeId: "ch_a", card } },
        { id: ids[1]!, report: { outcome: declined, chargeId: "ch_b", card: null } },
        { id: ids[2]!, report: { outcome: ok, chargeId: "ch_c", card: null } },
        // The same payment again in the batch: already recorded by then, left alone.
        { id: ids[2]!, report: { outcome: declined, chargeId: "ch_c2", card: null } },
        { id: ids[3]!, report: { outcome: declined, chargeId: "ch_d", card: null } }
      ]
      const alone = yield* makeSet
      const together = yield* makeSet
      const unknown = (yield* makePayment(test)).payment_id

      const one = yield* Effect.forEach(reportsFor(alone), ({ id, report }) => outcomes.recordOne(id, report))
      assert.strictEqual(failureTag(yield* Effect.either(outcomes.recordOne(unknown, reportsFor(alone)[0]!.report))), "NotFound")
      const batch = yield* outcomes.record([...reportsFor(together), { id: unknown, report: reportsFor(together)[0]!.report }])

      const shape = (p: Payment.Payment) => ({ ...p, payment_id: "", created_at: null, paid_at: p.paid_at === null })
      assert.deepStrictEqual(batch.map(shape), one.map(shape), "the same payments, in the order given; the unknown left out")
      assert.deepStrictEqual(
        batch.map((p) => [p.status, p.charge_id]),
        [["succeeded", "ch_a"], ["failed", "ch_b"], ["succeeded", "ch_c"], ["succeeded", "ch_c"], ["succeeded", null]]
      )
      for (const p of batch) assert.deepStrictEqual(yield* payments.get(test, p.payment_id), p)
      // The same events, in the same order (newest first), each with the payment as it was recorded.
      const events = yield* eventsOf(test)
      const typesOf = (ids: ReadonlyArray<PaymentId>) =>
        events.filter((e) => ids.includes(e.data.payment_id as PaymentId)).map((e) => [e.type, ids.indexOf(e.data.payment_id as PaymentId)])
      assert.deepStrictEqual(typesOf(together), typesOf(alone))
      assert.deepStrictEqual(typesOf(together), [["payment.succeeded", 2], ["payment.failed", 1], ["payment.succeeded", 0]])
      assert.deepStrictEqual(yield* outcomes.record([]), [])
    }).pipe(withEngine()))
})

describe("ChargeOutcomes.record: renewals", () => {
  it.effect("a renewal's outcome moves its subscription (renewed, or on hold); one still processing, or of a cancelled subscription, does not", () =>
    Effect.gen(function*() {
      const outcomes = yield* ChargeOutcomes
      const store = yield* Store
      const { test } = yield* newAccount
      const parents = yield* subscriptionParents(store, test)
      const subs = yield* Effect.forEach([0, 1, 2, 3], () => startSubscription(parents))
      const cancelled = advance(subs[3]!, { _tag: "Cancel" }, T0 + 1000)
      yield* Effect.forEach([subs[0]!, subs[1]!, subs[2]!, cancelled], store.subscriptions.insert)
      const renewals = yield* Effect.forEach(subs, (sub) => renewalPayment(sub))
      yield* store.payments.insertAll(renewals)
      yield* TestClock.setTime(dueMillis(subs[0]!))

      const recorded = yield* outcomes.record([
        { id: renewals[0]!.payment_id, report: { outcome: { _tag: "Succeeded" }, chargeId: "ch_0", card: null } },
        { id: renewals[1]!.payment_id, report: { outcome: { _tag: "Failed", code: "card_declined" }, chargeId: "ch_1", card: null } },
        { id: renewals[2]!.payment_id, report: { outcome: { _tag: "Processing" }, chargeId: "ch_2", card: null } },
        { id: renewals[3]!.payment_id, report: { outcome: { _tag: "Succeeded" }, chargeId: "ch_3", card: null } }
      ])
      assert.deepStrictEqual(recorded.map((p) => p.status), ["succeeded", "failed", "processing", "succeeded"])
      const after = yield* Effect.forEach(subs, (sub) => Effect.map(store.subscriptions.get(test, sub.subscription_id), Option.getOrThrow))
      assert.deepStrictEqual(
        [after[0]!.status, after[0]!.period, after[1]!.status, after[1]!.failed_payment_attempts],
        ["active", subs[0]!.period + 1, "on_hold", 1]
      )
      assert.deepStrictEqual(after[2], subs[2], "still settling: no outcome yet")
      assert.deepStrictEqual(after[3], cancelled, "cancelled stays put")
      const types = (yield* eventsOf(test)).map((e) => e.type).sort()
      assert.deepStrictEqual(types, ["payment.failed", "payment.succeeded", "payment.succeeded", "subscription.on_hold", "subscription.renewed"].sort())
    }).pipe(withEngine()))
})

describe("Payments.get / list", () => {
  it.effect("NotFound in every other scope; lists are per scope", () =>
    Effect.gen(function*() {
      const payments = yield* Payments
      const scopes = yield* fourScopes
      const p = yield* paidWith(scopes[0], cards.visa)
      for (const other of scopes.slice(1)) {
        assert.strictEqual(failureTag(yield* Effect.either(payments.get(other, p.payment_id))), "NotFound")
        assert.deepStrictEqual((yield* payments.list(other, {})).items, [])
      }
      assert.deepStrictEqual((yield* payments.list(scopes[0], {})).items.map((x) => x.payment_id), [p.payment_id])
    }).pipe(withEngine()))

  it.effect("filters by status, customer_id and checkout_session_id, newest first", () =>
    Effect.gen(function*() {
      const payments = yield* Payments
      const { test } = yield* newAccount
      const made: Array<Payment.Payment> = []
      const emails = ["a@example.ae", "b@example.ae"]
      const plan = [cards.visa, cards.declined, cards.visa, cards.settleSucceeds, cards.insufficientFunds, cards.mastercard]
      for (const [i, card] of plan.entries()) {
        yield* TestClock.adjust("1 second")
        made.push(yield* paidWith(test, card, 1_000 + i, emails[i % 2]))
      }
      yield* payments.refund(operator, made[0]!.payment_id)
      yield* payments.refund(operator, made[2]!.payment_id, 10)
      const newest = [...made].reverse()
      const ids = (ps: ReadonlyArray<Payment.Payment>) => ps.map((p) => p.payment_id)

      assert.deepStrictEqual(ids((yield* payments.list(test, {})).items), ids(newest))
      const byStatus = (status: Payment.PaymentStatus) => Effect.map(payments.list(test, { status }), (l) => ids(l.items))
      assert.deepStrictEqual(yield* byStatus("succeeded"), [made[5]!.payment_id])
      assert.deepStrictEqual(yield* byStatus("failed"), [made[4]!.payment_id, made[1]!.payment_id])
      assert.deepStrictEqual(yield* byStatus("processing"), [made[3]!.payment_id])
      assert.deepStrictEqual(yield* byStatus("refunded"), [made[0]!.payment_id])
      assert.deepStrictEqual(yield* byStatus("partially_refunded"), [made[2]!.payment_id])

      const customerA = made[0]!.customer!.customer_id
      const customerB = made[1]!.customer!.customer_id
      assert.notStrictEqual(customerA, customerB)
      assert.deepStrictEqual(
        ids((yield* payments.list(test, { customer_id: customerA })).items),
        ids(newest.filter((_, i) => (5 - i) % 2 === 0))
      )
      assert.deepStrictEqual(
        ids((yield* payments.list(test, { customer_id: customerB, status: "failed" })).items),
        [made[1]!.payment_id]
      )
      assert.deepStrictEqual(
        ids((yield* payments.list(test, { customer_id: `cus_${"0".repeat(32)}` as CustomerId })).items),
        []
      )
      const session = made[3]!.checkout_session_id as CheckoutSessionId
      assert.deepStrictEqual(ids((yield* payments.list(test, { checkout_session_id: session })).items), [made[3]!.payment_id])
    }).pipe(withEngine()))

  it.effect("pages with a cursor tied to the filters", () =>
    Effect.gen(function*() {
      const payments = yield* Payments
      const { test } = yield* newAccount
      const made: Array<PaymentId> = []
      for (let i = 0; i < 5; i++) made.push((yield* paidWith(test, cards.visa)).payment_id)
      const page1 = yield* payments.list(test, { limit: 2 })
      assert.isTrue(page1.has_more)
      const page2 = yield* payments.list(test, { limit: 2, cursor: page1.next_cursor! })
      const page3 = yield* payments.list(test, { limit: 2, cursor: page2.next_cursor! })
      assert.isFalse(page3.has_more)
      assert.isNull(page3.next_cursor)
      assert.deepStrictEqual([...page1.items, ...page2.items, ...page3.items].map((p) => p.payment_id), [...made].reverse())
      const misuse = yield* Effect.either(payments.list(test, { status: "failed", cursor: page1.next_cursor! }))
      assert.strictEqual(failureTag(misuse), "InvalidRequest")
      assert.strictEqual(failureTag(yield* Effect.either(payments.list(test, { cursor: "garbage" }))), "InvalidRequest")
      assert.strictEqual(failureTag(yield* Effect.either(payments.list(test, { limit: 0 }))), "InvalidRequest")
    }).pipe(withEngine()))
})

describe("Payments.search", () => {
  it.effect("reads what a merchant types: an id, an e-mail, an amount as typed, the card's last 4; within the other filters; what it cannot read finds nothing", () =>
    Effect.gen(function*() {
      const payments = yield* Payments
      const { test } = yield* newAccount
      const elsewhere = (yield* newAccount).test
      const beans = yield* paidWith(test, cards.visa, 34_900, "layla@example.ae")
      yield* TestClock.adjust("1 second")
      const club = yield* paidWith(test, cards.mastercard, 4_500, "omar@example.ae")
      yield* TestClock.adjust("1 second")
      const big = yield* paidWith(test, cards.visa, 123_450, "Layla@Example.ae")
      yield* paidWith(elsewhere, cards.visa, 34_900, "layla@example.ae")
      const found = (typed: string, params = {}) =>
        Effect.map(payments.search(test, typed, params), (r) => [r.term._tag, r.items.map((p) => p.payment_id)] as const)

      assert.deepStrictEqual(yield* found(""), ["Everything", [big.payment_id, club.payment_id, beans.payment_id]])
      assert.deepStrictEqual(yield* found(` ${club.payment_id} `), ["PaymentId", [club.payment_id]])
      assert.deepStrictEqual(yield* found("omar@example.ae"), ["Email", [club.payment_id]])
      assert.deepStrictEqual(yield* found("349.00"), ["Amount", [beans.payment_id]])
      assert.deepStrictEqual(yield* found("349"), ["Amount", [beans.payment_id]])
      assert.deepStrictEqual(yield* found("AED 1,234.50"), ["Amount", [big.payment_id]])
      assert.deepStrictEqual(yield* found("4444"), ["CardLast4", [club.payment_id]])
      assert.deepStrictEqual(yield* found("4242"), ["CardLast4", [big.payment_id, beans.payment_id]])
      assert.deepStrictEqual(yield* found("4242", { status: "refunded" }), ["CardLast4", []])
      assert.deepStrictEqual(yield* found("4242", { limit: 1 }), ["CardLast4", [big.payment_id]])
      for (const unreadable of ["349.001", "12,34", "coffee", "x".repeat(300)]) {
        assert.deepStrictEqual(yield* found(unreadable), ["Unreadable", []], unreadable)
      }
      assert.deepStrictEqual(yield* found("nobody@example.ae"), ["Email", []])
      // Another scope's payment is not found by its id.
      const other = (yield* payments.search(elsewhere, "", {})).items[0]!
      assert.deepStrictEqual(yield* found(other.payment_id), ["PaymentId", []])
    }).pipe(withEngine()))
})

describe("Events", () => {
  const walk = (scope: Scope, params: { readonly limit: number; readonly type?: EventType }) =>
    Effect.gen(function*() {
      const events = yield* Events
      const items: Array<Event> = []
      let cursor: string | undefined
      for (let pages = 0; pages < 100; pages++) {
        const page = yield* events.list(scope, cursor === undefined ? params : { ...params, cursor })
        assert.isAtMost(page.items.length, params.limit)
        items.push(...page.items)
        if (page.next_cursor === null) {
          assert.isFalse(page.has_more)
          break
        }
        cursor = page.next_cursor
      }
      return items
    })

  it.effect("list by type, get, and a cursor walk that sees every event once, newest first", () =>
    Effect.gen(function*() {
      const events = yield* Events
      const payments = yield* Payments
      const { test, live } = yield* newAccount
      const made: Array<{ type: EventType; paymentId: PaymentId }> = []
      for (let i = 0; i < 7; i++) {
        yield* TestClock.adjust("1 second")
        const p = yield* paidWith(test, i % 3 === 0 ? cards.declined : cards.visa)
        made.push({ type: p.status === "failed" ? "payment.failed" : "payment.succeeded", paymentId: p.payment_id })
        if (i === 4) {
          yield* payments.refund(operator, p.payment_id, 100)
          made.push({ type: "refund.succeeded", paymentId: p.payment_id })
        }
      }
      const all = yield* walk(test, { limit: 3 })
      assert.deepStrictEqual(
        all.map((e) => [e.type, e.data.payment_id]),
        [...made].reverse().map((m) => [m.type, m.paymentId])
      )
      assert.strictEqual(new Set(all.map((e) => e.event_id)).size, all.length)
      for (const e of all) {
        assert.match(e.event_id, /^evt_[0-9a-f]{32}$/)
        assert.strictEqual(e.object, "event")
        assert.isFalse(e.livemode)
        assert.deepStrictEqual(yield* events.get(test, e.event_id), e)
        assert.strictEqual(
          yield* Effect.map(Effect.either(events.get(live, e.event_id)), failureTag),
          "NotFound",
          "another mode"
        )
      }
      for (const type of ["payment.failed", "payment.succeeded", "refund.succeeded"] as const) {
        const typed = yield* walk(test, { limit: 2, type })
        assert.deepStrictEqual(typed.map((e) => e.event_id), all.filter((e) => e.type === type).map((e) => e.event_id))
      }
      assert.deepStrictEqual(yield* walk(test, { limit: 5, type: "subscription.active" }), [])
      assert.deepStrictEqual(yield* walk(live, { limit: 5 }), [])
      // A cursor of one type's list does not page another.
      const page = yield* events.list(test, { limit: 1, type: "payment.succeeded" })
      assert.strictEqual(
        failureTag(yield* Effect.either(events.list(test, { limit: 1, cursor: page.next_cursor! }))),
        "InvalidRequest"
      )
      assert.strictEqual(
        failureTag(yield* Effect.either(events.get(test, `evt_${"0".repeat(32)}` as EventId))),
        "NotFound"
      )
    }).pipe(withEngine()))

  it.effect("an event's data is the payment as GET shows it right after the change", () =>
    Effect.gen(function*() {
      const payments = yield* Payments
      const { test } = yield* newAccount
      const p = yield* paidWith(test, cards.visa)
      const [succeeded] = yield* eventsOf(test, "payment.succeeded")
      assert.deepStrictEqual(succeeded!.data, encodePayment(yield* payments.get(test, p.payment_id)))
      // A later refund does not rewrite the earlier event.
      yield* payments.refund(operator, p.payment_id, 1)
      const [again] = yield* eventsOf(test, "payment.succeeded")
      assert.deepStrictEqual(again, succeeded)
      assert.strictEqual(again!.data.status, "succeeded")
    }).pipe(withEngine()))
})
