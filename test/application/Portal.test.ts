/**
 * The customer portal's use cases over the memory store, with TestClock: portal sessions and their
 * one-time links, a subscription's card replaced (an `on_hold` one retried at once on the new card, with the events
 * of docs/decisions.md §6), cancellation at the period end, and receipts. The simulated processor decides every charge.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Either, Layer, Option, Redacted, TestClock } from "effect"
import { Billing } from "../../src/application/Billing.js"
import { Customers } from "../../src/application/Customers.js"
import { Events } from "../../src/application/Events.js"
import { PaymentMethods } from "../../src/application/PaymentMethods.js"
import { Payments } from "../../src/application/Payments.js"
import { Portal, scopeOf } from "../../src/application/Portal.js"
import { Subscriptions } from "../../src/application/Subscriptions.js"
import { operator, type Scope } from "../../src/domain/Account.js"
import type { CustomerId, PaymentId, PortalSessionId, SubscriptionId } from "../../src/domain/Ids.js"
import { Store } from "../../src/ports/Store.js"
import { cards, formWith, makeProduct, makeSession, pay } from "../support/checkout.js"
import { assertHidden } from "../support/secrets.js"
import { engineLayer, newAccount } from "./harness.js"

const publicUrl = "https://pay.example.ae"
const layer = engineLayer([["FILS_PUBLIC_URL", publicUrl]])
const run = <A, E>(effect: Effect.Effect<A, E, Layer.Layer.Success<typeof layer>>) =>
  Effect.provide(effect, layer)

const jan31 = "2026-01-31T10:00:00.000Z"
const at = (iso: string) => TestClock.setTime(DateTime.toEpochMillis(DateTime.unsafeMake(iso)))
const card = (number: string) => ({ number: Redacted.make(number), expMonth: 12, expYear: 2090, cvc: Redacted.make("123") })
/** The link's secret, as the portal's page reads it from the link's path. */
const linkOf = (url: string) => Redacted.make(url.split("/portal/")[1]!)

/** A monthly subscription paid with `number`, for the customer with `email`. */
const subscribe = (scope: Scope, number: string, email = "layla@example.ae") =>
  Effect.gen(function*() {
    const product = yield* makeProduct(scope, { name: "Coffee club", price: 9900, billing: "recurring", billing_interval: "month" })
    const session = yield* makeSession(scope, { product_cart: [{ product_id: product.product_id, quantity: 1 }] })
    const result = yield* pay(session.session_id, formWith(number, { email }))
    if (result._tag !== "Paid" || result.payment.subscription_id === null) return assert.fail("no subscription started")
    return {
      payment: result.payment,
      subscription: yield* Effect.flatMap(Subscriptions, (s) => s.get(scope, result.payment.subscription_id!)),
      customerId: result.payment.customer!.customer_id
    }
  })

/** The renewal of a 31 January subscription, declined: `on_hold` from 28 February. */
const onHold = (scope: Scope) =>
  Effect.gen(function*() {
    yield* at(jan31)
    const started = yield* subscribe(scope, cards.declineLater)
    yield* at("2026-02-28T10:00:00.000Z")
    yield* Effect.flatMap(Billing, (b) => b.runOnce())
    const sub = yield* Effect.flatMap(Subscriptions, (s) => s.get(scope, started.subscription.subscription_id))
    assert.strictEqual(sub.status, "on_hold")
    assert.strictEqual(sub.failed_payment_attempts, 1)
    return { ...started, subscription: sub }
  })

const eventsOf = (scope: Scope, id: SubscriptionId) =>
  Effect.gen(function*() {
    const all = yield* Effect.flatMap(Events, (e) => e.list(scope, { limit: 100 }))
    return all.items
      .filter((e) => (e.data as { subscription_id?: string }).subscription_id === id)
      .reverse()
      .map((e) => e.type)
  })

const openedSession = (scope: Scope, customerId: CustomerId) =>
  Effect.gen(function*() {
    const portal = yield* Portal
    const created = yield* portal.create(scope, { customer_id: customerId })
    const opened = yield* portal.open(linkOf(created.url))
    return opened.session
  })

describe("Portal sessions", () => {
  it.effect("a session for a customer of the scope: a one-hour link at the public URL; read back as created", () =>
    run(Effect.gen(function*() {
      yield* at(jan31)
      const { test } = yield* newAccount
      const customer = yield* Effect.flatMap(Customers, (c) => c.create(test, { email: "amal@example.ae" }))
      const portal = yield* Portal
      const created = yield* portal.create(test, { customer_id: customer.customer_id, return_url: "https://shop.example.ae/account" })
      assert.match(created.customer_portal_session_id, /^cps_[0-9a-f]{32}$/)
      assert.match(created.url, /^https:\/\/pay\.example\.ae\/portal\/[A-Za-z0-9_-]{40,}$/)
      assert.deepStrictEqual(
        { ...created, url: undefined, customer_portal_session_id: undefined },
        {
          object: "customer_portal_session",
          customer_portal_session_id: undefined,
          customer_id: customer.customer_id,
          url: undefined,
          return_url: "https://shop.example.ae/account",
          livemode: false,
          created_at: DateTime.unsafeMake(jan31),
          expires_at: DateTime.unsafeMake("2026-01-31T11:00:00.000Z")
        }
      )
      assert.deepStrictEqual(yield* portal.get(test, created.customer_portal_session_id), created)
      // Only a hash of the link's secret is stored beside the link.
      const stored = yield* Effect.flatMap(Store, (s) => s.portalSessions.get(test, created.customer_portal_session_id))
      assert.notInclude(Option.getOrThrow(stored).token_hash, created.url.split("/portal/")[1]!)
    })))

  it.effect("the link's secret and the browser's cookie are Redacted: printing the stored session or an opening shows neither", () =>
    run(Effect.gen(function*() {
      const { test } = yield* newAccount
      const customer = yield* Effect.flatMap(Customers, (c) => c.create(test, { email: "amal@example.ae" }))
      const portal = yield* Portal
      const created = yield* portal.create(test, { customer_id: customer.customer_id })
      // The API's resource shows the link: it is how the merchant sends it.
      const link = Redacted.value(linkOf(created.url))
      const stored = Option.getOrThrow(yield* Effect.flatMap(Store, (s) => s.portalSessions.get(test, created.customer_portal_session_id)))
      assertHidden(stored, [link], "the stored session")
      const opened = yield* portal.open(linkOf(created.url))
      const secrets = [link, Redacted.value(opened.cookie)]
      assertHidden(opened, secrets, "the opening")
      assertHidden(Option.getOrThrow(yield* portal.authenticate(opened.cookie)), secrets, "the browsing session")
      assert.strictEqual((yield* portal.get(test, created.customer_portal_session_id)).url, created.url)
    })))

  it.effect("another scope's customer, or a malformed id, is not found; another scope's session is not found", () =>
    run(Effect.gen(function*() {
      const a = yield* newAccount
      const b = yield* newAccount
      const customer = yield* Effect.flatMap(Customers, (c) => c.create(a.test, { email: "amal@example.ae" }))
      const portal = yield* Portal
      for (const scope of [a.live, b.test, b.live]) {
        const refused = yield* Effect.flip(portal.create(scope, { customer_id: customer.customer_id }))
        assert.strictEqual(refused._tag, "NotFound")
      }
      assert.strictEqual((yield* Effect.flip(portal.create(a.test, { customer_id: "cus_nope" })))._tag, "NotFound")
      const created = yield* portal.create(a.test, { customer_id: customer.customer_id })
      for (const scope of [a.live, b.test, b.live]) {
        assert.strictEqual((yield* Effect.flip(portal.get(scope, created.customer_portal_session_id)))._tag, "NotFound")
      }
      assert.strictEqual((yield* Effect.flip(portal.get(a.test, "cps_0" as PortalSessionId)))._tag, "NotFound")
    })))

  it.effect("peeking at a link changes nothing, however often; signing out ends the browser session at once", () =>
    run(Effect.gen(function*() {
      yield* at(jan31)
      const { test } = yield* newAccount
      const customer = yield* Effect.flatMap(Customers, (c) => c.create(test, { email: "amal@example.ae" }))
      const portal = yield* Portal
      const created = yield* portal.create(test, { customer_id: customer.customer_id })
      const token = linkOf(created.url)
      const reason = (e: Effect.Effect<unknown, { readonly _tag: string; readonly reason?: string }>) =>
        Effect.map(Effect.flip(e), (error) => error.reason)
      for (let i = 0; i < 3; i++) assert.strictEqual(yield* portal.peek(token), "openable")
      const opened = yield* portal.open(token)
      assert.strictEqual(yield* portal.peek(token, opened.cookie), "browsing")
      assert.strictEqual(yield* reason(portal.peek(token)), "used")
      assert.strictEqual(yield* reason(portal.peek(Redacted.make("nope"))), "unknown")

      yield* portal.signOut(opened.session)
      assert.isTrue(Option.isNone(yield* portal.authenticate(opened.cookie)))
      assert.strictEqual(yield* reason(portal.peek(token, opened.cookie)), "used")
      assert.strictEqual(yield* reason(portal.open(token, opened.cookie)), "used")
    })))

  it.effect("a link opens once, within its hour; the browser session it starts lasts an hour; its own browser may follow it again", () =>
    run(Effect.gen(function*() {
      yield* at(jan31)
      const { test } = yield* newAccount
      const customer = yield* Effect.flatMap(Customers, (c) => c.create(test, { email: "amal@example.ae" }))
      const portal = yield* Portal
      const token = linkOf
      const reason = (e: Effect.Effect<unknown, { readonly _tag: string; readonly reason?: string }>) =>
        Effect.map(Effect.flip(e), (error) => error.reason)

      const first = yield* portal.create(test, { customer_id: customer.customer_id })
      yield* TestClock.adjust("59 minutes")
      const opened = yield* portal.open(token(first.url))
      assert.strictEqual(yield* reason(portal.open(token(first.url))), "used")
      assert.strictEqual(yield* reason(portal.open(token(first.url), Redacted.make("another-browser-cookie"))), "used")
      assert.strictEqual((yield* portal.open(token(first.url), opened.cookie)).session.customer_portal_session_id, first.customer_portal_session_id)
      assert.isTrue(Option.isSome(yield* portal.authenticate(opened.cookie)))
      assert.isTrue(Option.isNone(yield* portal.authenticate(Redacted.make(`${Redacted.value(opened.cookie)}x`))))
      yield* TestClock.adjust("59 minutes")
      assert.isTrue(Option.isSome(yield* portal.authenticate(opened.cookie)))
      yield* TestClock.adjust("1 minute")
      assert.isTrue(Option.isNone(yield* portal.authenticate(opened.cookie)), "the browser session lasts an hour")
      assert.strictEqual(yield* reason(portal.open(token(first.url), opened.cookie)), "used")

      const late = yield* portal.create(test, { customer_id: customer.customer_id })
      yield* TestClock.adjust("60 minutes")
      assert.strictEqual(yield* reason(portal.open(token(late.url))), "expired")
      assert.strictEqual(yield* reason(portal.open(Redacted.make("not-a-link"))), "unknown")
      assert.strictEqual(yield* reason(portal.open(Redacted.make(""))), "unknown")
    })))
})

describe("PaymentMethods.replace", () => {
  it.effect("on_hold, a new card: charged at once, active again with payment.succeeded, subscription.active, subscription.renewed; the old retry never runs", () =>
    run(Effect.gen(function*() {
      const { test } = yield* newAccount
      const { subscription } = yield* onHold(test)
      const id = subscription.subscription_id
      yield* TestClock.adjust("2 hours")
      const before = yield* eventsOf(test, id)
      const replaced = yield* Effect.flatMap(PaymentMethods, (m) => m.replace(test, id, card(cards.visa)))
      assert.strictEqual(replaced.retry?.status, "succeeded")
      assert.strictEqual(replaced.retry?.billing_reason, "subscription_renewal")
      assert.strictEqual(replaced.retry?.card?.last4, "4242")
      assert.deepStrictEqual(
        {
          status: replaced.subscription.status,
          failed_payment_attempts: replaced.subscription.failed_payment_attempts,
          next_retry_at: replaced.subscription.next_retry_at,
          current_period_start: DateTime.formatIso(replaced.subscription.current_period_start),
          next_billing_date: DateTime.formatIso(replaced.subscription.next_billing_date),
          payment_method: replaced.subscription.payment_method
        },
        {
          status: "active",
          failed_payment_attempts: 0,
          next_retry_at: null,
          current_period_start: "2026-02-28T10:00:00.000Z",
          next_billing_date: "2026-03-31T10:00:00.000Z",
          payment_method: { brand: "visa", last4: "4242", exp_month: 12, exp_year: 2090 }
        }
      )
      assert.deepStrictEqual((yield* eventsOf(test, id)).slice(before.length), ["payment.succeeded", "subscription.active", "subscription.renewed"])
      // The retry due on 1 March is not charged: the period is paid.
      yield* at("2026-03-01T10:00:00.000Z")
      const pass = yield* Effect.flatMap(Billing, (b) => b.runOnce())
      assert.strictEqual(pass.renewals_charged, 0)
      const payments = yield* Effect.flatMap(Payments, (p) => p.list(test, { limit: 100 }))
      assert.deepStrictEqual(payments.items.map((p) => [p.billing_reason, p.status]).reverse(), [
        ["subscription_create", "succeeded"],
        ["subscription_renewal", "failed"],
        ["subscription_renewal", "succeeded"]
      ])
    })))

  it.effect("a refused card (0002) changes nothing; a card that declines when charged (0341) is saved and the retry declined stays on hold, the later retries on their days", () =>
    run(Effect.gen(function*() {
      const { test } = yield* newAccount
      const { subscription } = yield* onHold(test)
      const id = subscription.subscription_id
      const methods = yield* PaymentMethods
      const refused = yield* Effect.flip(methods.replace(test, id, card(cards.declined)))
      assert.deepStrictEqual({ tag: refused._tag, code: (refused as { decline_code?: string }).decline_code }, { tag: "CardRefused", code: "card_declined" })
      const unchanged = yield* Effect.flatMap(Subscriptions, (s) => s.get(test, id))
      assert.deepStrictEqual(unchanged, subscription)

      const again = yield* methods.replace(test, id, card(cards.declineLater))
      assert.strictEqual(again.retry?.status, "failed")
      assert.deepStrictEqual(
        { status: again.subscription.status, attempts: again.subscription.failed_payment_attempts, next: again.subscription.next_retry_at && DateTime.formatIso(again.subscription.next_retry_at) },
        { status: "on_hold", attempts: 2, next: "2026-03-03T10:00:00.000Z" }
      )
      assert.strictEqual(again.subscription.payment_method.last4, "0341")
    })))

  it.effect("on_hold and set to end at its period end: the new card is saved, nothing charged; it ends at the retry's time", () =>
    run(Effect.gen(function*() {
      const { test } = yield* newAccount
      const { subscription } = yield* onHold(test)
      const id = subscription.subscription_id
      yield* Effect.flatMap(Subscriptions, (s) => s.update(test, id, { cancel_at_period_end: true }))
      const replaced = yield* Effect.flatMap(PaymentMethods, (m) => m.replace(test, id, card(cards.visa)))
      assert.isNull(replaced.retry)
      assert.deepStrictEqual(
        [replaced.subscription.status, replaced.subscription.cancel_at_period_end, replaced.subscription.payment_method.last4],
        ["on_hold", true, "4242"]
      )
      yield* at("2026-03-01T10:00:00.000Z")
      assert.strictEqual((yield* Effect.flatMap(Billing, (b) => b.runOnce())).renewals_charged, 0)
      const ended = yield* Effect.flatMap(Subscriptions, (s) => s.get(test, id))
      assert.deepStrictEqual([ended.status, ended.cancellation_reason], ["cancelled", "requested"])
      const payments = yield* Effect.flatMap(Payments, (p) => p.list(test, { limit: 100 }))
      assert.deepStrictEqual(payments.items.map((p) => [p.billing_reason, p.status]).reverse(), [
        ["subscription_create", "succeeded"],
        ["subscription_renewal", "failed"]
      ])
    })))

  it.effect("an active subscription's card is replaced without a charge; the renewal then charges the new card", () =>
    run(Effect.gen(function*() {
      yield* at(jan31)
      const { test } = yield* newAccount
      const { subscription } = yield* subscribe(test, cards.declineLater)
      const id = subscription.subscription_id
      const replaced = yield* Effect.flatMap(PaymentMethods, (m) => m.replace(test, id, card(cards.mastercard)))
      assert.isNull(replaced.retry)
      assert.deepStrictEqual(replaced.subscription.payment_method, { brand: "mastercard", last4: "4444", exp_month: 12, exp_year: 2090 })
      assert.deepStrictEqual(yield* eventsOf(test, id), ["payment.succeeded", "subscription.active"], "a new card is no event")
      yield* at("2026-02-28T10:00:00.000Z")
      yield* Effect.flatMap(Billing, (b) => b.runOnce())
      const renewed = yield* Effect.flatMap(Subscriptions, (s) => s.get(test, id))
      assert.strictEqual(renewed.status, "active")
      assert.strictEqual(DateTime.formatIso(renewed.next_billing_date), "2026-03-31T10:00:00.000Z")
    })))

  it.effect("a cancelled subscription's card cannot be changed; another scope's subscription is not found", () =>
    run(Effect.gen(function*() {
      const a = yield* newAccount
      const b = yield* newAccount
      const { subscription } = yield* subscribe(a.test, cards.visa)
      const id = subscription.subscription_id
      const methods = yield* PaymentMethods
      for (const scope of [a.live, b.test]) {
        assert.strictEqual((yield* Effect.flip(methods.replace(scope, id, card(cards.visa))))._tag, "NotFound")
      }
      yield* Effect.flatMap(Subscriptions, (s) => s.update(a.test, id, { status: "cancelled" }))
      assert.strictEqual((yield* Effect.flip(methods.replace(a.test, id, card(cards.visa))))._tag, "InvalidState")
    })))
})

describe("the portal's view of a customer", () => {
  it.effect("sees only its own subscriptions and payments; another customer's are not found for every change and receipt", () =>
    run(Effect.gen(function*() {
      yield* at(jan31)
      const { test } = yield* newAccount
      const mine = yield* subscribe(test, cards.visa, "amal@example.ae")
      const theirs = yield* subscribe(test, cards.visa, "omar@example.ae")
      const portal = yield* Portal
      const session = yield* openedSession(test, mine.customerId)
      const overview = yield* portal.overview(session)
      assert.deepStrictEqual(overview.subscriptions.map((s) => s.subscription_id), [mine.subscription.subscription_id])
      assert.deepStrictEqual(overview.payments.map((p) => p.payment_id), [mine.payment.payment_id])
      const other = theirs.subscription.subscription_id
      const tagOf = <A, E extends { readonly _tag: string }>(e: Effect.Effect<A, E>) =>
        Effect.map(Effect.either(e), (r) => (Either.isLeft(r) ? r.left._tag : "changed"))
      assert.deepStrictEqual([
        yield* tagOf(portal.setCancelAtPeriodEnd(session, other, true)),
        yield* tagOf(portal.replaceCard(session, other, card(cards.visa))),
        yield* tagOf(portal.receipt(scopeOf(session), theirs.payment.payment_id, session.customer_id))
      ], ["NotFound", "NotFound", "NotFound"])
      assert.deepStrictEqual(yield* Effect.flatMap(Subscriptions, (s) => s.get(test, other)), theirs.subscription)
    })))

  it.effect("a portal session tries at most 5 cards a minute (a leaked link is no card-testing tool)", () =>
    run(Effect.gen(function*() {
      yield* at(jan31)
      const { test } = yield* newAccount
      const { customerId, subscription } = yield* subscribe(test, cards.visa)
      const portal = yield* Portal
      const session = yield* openedSession(test, customerId)
      const tries = []
      for (let i = 0; i < 6; i++) {
        tries.push((yield* Effect.flip(portal.replaceCard(session, subscription.subscription_id, card(cards.declined))))._tag)
      }
      assert.deepStrictEqual(tries, ["CardRefused", "CardRefused", "CardRefused", "CardRefused", "CardRefused", "RateLimited"])
      // Another session of the same customer has its own budget; this one's comes back after the minute.
      const other = yield* openedSession(test, customerId)
      assert.strictEqual((yield* Effect.flip(portal.replaceCard(other, subscription.subscription_id, card(cards.declined))))._tag, "CardRefused")
      yield* TestClock.adjust("61 seconds")
      const replaced = yield* portal.replaceCard(session, subscription.subscription_id, card(cards.mastercard))
      assert.strictEqual(replaced.subscription.payment_method.last4, "4444")
    })))

  it.effect("cancel at the period end and undo it: the same change as PATCH, and no event", () =>
    run(Effect.gen(function*() {
      yield* at(jan31)
      const { test } = yield* newAccount
      const { customerId, subscription } = yield* subscribe(test, cards.visa)
      const portal = yield* Portal
      const session = yield* openedSession(test, customerId)
      const id = subscription.subscription_id
      assert.isTrue((yield* portal.setCancelAtPeriodEnd(session, id, true)).cancel_at_period_end)
      assert.isFalse((yield* portal.setCancelAtPeriodEnd(session, id, false)).cancel_at_period_end)
      assert.deepStrictEqual(yield* eventsOf(test, id), ["payment.succeeded", "subscription.active"])
      yield* Effect.flatMap(Subscriptions, (s) => s.update(test, id, { status: "cancelled" }))
      assert.strictEqual((yield* Effect.flip(portal.setCancelAtPeriodEnd(session, id, true)))._tag, "SubscriptionNotChangeable")
    })))

  it.effect("a receipt: the cart's lines, refunds so far; a failed payment has none", () =>
    run(Effect.gen(function*() {
      yield* at(jan31)
      const { test } = yield* newAccount
      const beans = yield* makeProduct(test, { name: "Beans", price: 6500 })
      const mug = yield* makeProduct(test, { name: "Mug", price: 3000 })
      const session = yield* makeSession(test, { product_cart: [{ product_id: beans.product_id, quantity: 2 }, { product_id: mug.product_id }] })
      const declined = yield* pay(session.session_id, formWith(cards.declined))
      const paid = yield* pay(session.session_id, formWith(cards.visa))
      if (paid._tag !== "Paid" || declined._tag !== "Paid") return assert.fail("the form was refused")
      yield* Effect.flatMap(Payments, (p) => p.refund(operator, paid.payment.payment_id, 1000))
      const portal = yield* Portal
      const receipt = yield* portal.receipt(test, paid.payment.payment_id, paid.payment.customer!.customer_id)
      assert.deepStrictEqual(receipt.lines, [
        { name: "Beans", quantity: 2, unit_amount: 6500, amount: 13000 },
        { name: "Mug", quantity: 1, unit_amount: 3000, amount: 3000 }
      ])
      assert.deepStrictEqual(receipt.refunds.map((r) => [r.amount, r.status]), [[1000, "succeeded"]])
      assert.strictEqual(receipt.payment.refunded_amount, 1000)
      assert.strictEqual((yield* Effect.flip(portal.receipt(test, declined.payment.payment_id)))._tag, "NotFound")
      assert.strictEqual((yield* Effect.flip(portal.receipt(test, "pay_x" as PaymentId)))._tag, "NotFound")
    })))
})

describe("changing plan in the portal", () => {
  const monthly = (scope: Scope, name: string, price: number, extra: Record<string, unknown> = {}) =>
    makeProduct(scope, { name, price, billing: "recurring", billing_interval: "month", ...extra })

  it.effect("only the plans offered there; the product's policy, else prorated now; a declined charge changes nothing; another customer's subscription and a plan not offered are not found", () =>
    run(Effect.gen(function*() {
      yield* at("2026-04-01T00:00:00.000Z")
      const { live, test } = yield* newAccount
      const mine = yield* subscribe(test, cards.visa, "amal@example.ae")
      const theirs = yield* subscribe(test, cards.declineLater, "omar@example.ae")
      const pro = yield* monthly(test, "Pro", 30000, { offered_in_portal: true })
      const yearly = yield* makeProduct(test, {
        name: "Yearly",
        price: 99000,
        billing: "recurring",
        billing_interval: "year",
        offered_in_portal: true,
        plan_change_policy: {
          upgrade: { proration_billing_mode: "full_immediately", effective_at: "immediately" },
          downgrade: { proration_billing_mode: "do_not_bill", effective_at: "next_billing_date" }
        }
      })
      const hidden = yield* monthly(test, "Hidden", 20000)
      const archived = yield* monthly(test, "Old", 20000, { offered_in_portal: true, status: "archived" })
      const otherMode = yield* monthly(live, "Live Pro", 30000, { offered_in_portal: true })
      const portal = yield* Portal
      const session = yield* openedSession(test, mine.customerId)
      const id = mine.subscription.subscription_id

      const plans = yield* portal.plans(session, id)
      assert.deepStrictEqual(plans.offered.map((p) => p.name), ["Yearly", "Pro"])
      assert.isUndefined(plans.refusal)
      const tagOf = <A, E extends { readonly _tag: string }>(e: Effect.Effect<A, E>) =>
        Effect.map(Effect.either(e), (r) => (Either.isLeft(r) ? r.left._tag : "answered"))
      const other = theirs.subscription.subscription_id
      assert.deepStrictEqual([
        yield* tagOf(portal.plans(session, other)),
        yield* tagOf(portal.previewPlanChange(session, other, { product_id: pro.product_id, quantity: 1 })),
        yield* tagOf(portal.changePlan(session, other, { product_id: pro.product_id, quantity: 1, quote_id: "qt_0000000000000_00000000000000000000000000000000" }, "once-token-000000")),
        ...yield* Effect.forEach([hidden, archived, otherMode], (p) => tagOf(portal.previewPlanChange(session, id, { product_id: p.product_id, quantity: 1 })))
      ], ["NotFound", "NotFound", "NotFound", "NotFound", "NotFound", "NotFound"])

      // Half of April left: Pro without a policy is prorated now (30000 less half of 9900), declined → nothing changes.
      yield* at("2026-04-16T00:00:00.000Z")
      const preview = yield* portal.previewPlanChange(session, id, { product_id: pro.product_id, quantity: 1 })
      assert.deepStrictEqual(preview.terms, { direction: "upgrade", proration_billing_mode: "prorated_immediately", effective_at: "immediately", on_payment_failure: "prevent_change" })
      assert.strictEqual(preview.immediate_charge.summary.total_amount, 30000 - 4950)
      const changed = yield* portal.changePlan(session, id, { product_id: pro.product_id, quantity: 1, quote_id: preview.quote_id }, "once-token-000001")
      assert.deepStrictEqual([changed.payment?.status, changed.payment?.total_amount, changed.subscription.product_id], ["succeeded", 25050, pro.product_id])
      // The same confirmation again (a double click) is the same change: one charge.
      const again = yield* portal.changePlan(session, id, { product_id: pro.product_id, quantity: 1, quote_id: preview.quote_id }, "once-token-000001")
      assert.strictEqual(again.payment?.payment_id, changed.payment?.payment_id)

      // Yearly costs less a day than Pro: its policy's downgrade, scheduled for the next billing date.
      const scheduled = yield* portal.previewPlanChange(session, id, { product_id: yearly.product_id, quantity: 1 })
      assert.deepStrictEqual([scheduled.terms.direction, scheduled.terms.effective_at, scheduled.immediate_charge.summary.total_amount], ["downgrade", "next_billing_date", 0])
      yield* portal.changePlan(session, id, { product_id: yearly.product_id, quantity: 1, quote_id: scheduled.quote_id }, "once-token-000002")
      const after = yield* portal.plans(session, id)
      assert.strictEqual(after.subscription.scheduled_change?.product_id, yearly.product_id)
      assert.include(after.refusal, "already has a plan change scheduled")

      // The other customer's renewals decline (0341): their change to Pro is refused, and they keep their plan.
      const theirSession = yield* openedSession(test, theirs.customerId)
      const theirPreview = yield* portal.previewPlanChange(theirSession, other, { product_id: pro.product_id, quantity: 2 })
      const declined = yield* Effect.flip(portal.changePlan(theirSession, other, { product_id: pro.product_id, quantity: 2, quote_id: theirPreview.quote_id }, "once-token-000003"))
      assert.strictEqual(declined._tag, "ChargeDeclined")
      const kept = yield* Effect.flatMap(Subscriptions, (s) => s.get(test, other))
      assert.deepStrictEqual([kept.status, kept.product_id, kept.quantity, kept.pending_change], ["active", theirs.subscription.product_id, 1, null])
    })))
})
