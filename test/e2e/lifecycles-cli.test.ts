/**
 * Subscription lifecycles that billing-cli.test.ts does not cover (docs/decisions.md §6, §7): `fils serve` on a fresh
 * database of the suite's PostgreSQL, subscriptions paid on the hosted page, changed with `PATCH /subscriptions/{id}`,
 * then `fils billing run --at <ISO>` (the real process) at their period date, checked through the API.
 *
 *   E (4242) is cancelled now; its period date then charges nothing.
 *   F (4242) is set to cancel at the period end, then un-set; its period date renews it.
 *   G (0341) fails its renewal (on_hold) and is cancelled now; its retry date then charges nothing.
 *   H (0341) fails its renewal and its first retry; then its card is replaced (as a customer updating it would) and
 *   the day-3 retry recovers it: active again, the period still anchored on its original date.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runFils, type Served } from "../support/cli.js"
import { api, cards, ok, payThroughForm, type TestDatabase } from "../support/load.js"
import { billingRunAt, serveOnFreshDatabase, subscriptionReads } from "../support/operator.js"

let db: TestDatabase | undefined
let served: Served | undefined
let env: Record<string, string | undefined> = {}

beforeAll(async () => {
  ;({ db, env, served } = await serveOnFreshDatabase())
}, 90_000)

afterAll(async () => {
  await served?.stop("SIGTERM")
  await db?.close()
}, 30_000)

const day = 86_400_000
const iso = (millis: number) => new Date(millis).toISOString()
const base = () => served!.baseUrl

/** A subscription to a monthly product, paid on the hosted page with `card`. */
const subscribe = async (key: string, productId: string, card: string) => {
  const paid = await payThroughForm(base(), key, productId, card)
  expect(paid.status).toBe(200)
  const session = await ok(base(), key, "GET", `/checkout_sessions/${paid.sessionId}`)
  expect(session).toMatchObject({ kind: "subscription", status: "complete" })
  const subscription = await ok(base(), key, "GET", `/subscriptions/${session.subscription_id}`)
  expect(subscription).toMatchObject({ status: "active", cancel_at_period_end: false, recurring_amount: 9_900 })
  return subscription
}

const { eventTypesOf, paymentsOf } = subscriptionReads((key, path) => ok(base(), key, "GET", path))
const billingAt = (instant: string) => billingRunAt(env, instant)

describe("cancel now and un-cancel, through the API and fils billing run --at", () => {
  let key = ""
  let e: any, f: any, g: any, h: any
  /** A minute after the last of the three periods ends. */
  let at1 = ""

  it("three monthly subscriptions are paid on the hosted page", async () => {
    const created = await runFils(["accounts", "create", "--name", "Souq Tea"], env)
    expect(created.code, created.stderr).toBe(0)
    key = JSON.parse(created.stdout).keys.test.secret
    const plan = await ok(base(), key, "POST", "/products", {
      name: "Tea club",
      price: 9_900,
      currency: "AED",
      billing: "recurring",
      billing_interval: "month"
    })
    e = await subscribe(key, plan.product_id, cards.visa)
    f = await subscribe(key, plan.product_id, cards.visa)
    g = await subscribe(key, plan.product_id, cards.declineLater)
    h = await subscribe(key, plan.product_id, cards.declineLater)
    at1 = iso(Math.max(...[e, f, g, h].map((s) => Date.parse(s.next_billing_date))) + 60_000)
  }, 60_000)

  it("PATCH status cancelled cancels now (requested, subscription.cancelled); again is a no-op", async () => {
    const before = Date.now()
    const cancelled = await ok(base(), key, "PATCH", `/subscriptions/${e.subscription_id}`, { status: "cancelled" })
    expect(cancelled).toMatchObject({
      subscription_id: e.subscription_id,
      status: "cancelled",
      cancellation_reason: "requested",
      current_period_start: e.current_period_start,
      next_retry_at: null
    })
    const cancelledAt = Date.parse(cancelled.cancelled_at)
    expect(cancelledAt).toBeGreaterThanOrEqual(before - 1_000)
    expect(cancelledAt).toBeLessThanOrEqual(Date.now() + 1_000)
    expect(await eventTypesOf(key, e.subscription_id)).toEqual([
      "payment.succeeded",
      "subscription.active",
      "subscription.cancelled"
    ])
    const events = (await ok(base(), key, "GET", "/events?type=subscription.cancelled")).items as Array<any>
    expect(events.find((x) => x.data.subscription_id === e.subscription_id)?.data).toStrictEqual(cancelled)

    // Already cancelled: 200, unchanged, no event; cancel_at_period_end on it is 409 INVALID_STATE.
    expect(await ok(base(), key, "PATCH", `/subscriptions/${e.subscription_id}`, { status: "cancelled" }))
      .toStrictEqual(cancelled)
    const flag = await api(base(), key, "PATCH", `/subscriptions/${e.subscription_id}`, { cancel_at_period_end: true })
    expect(flag.status).toBe(409)
    expect(flag.body).toMatchObject({ code: "INVALID_STATE" })
    expect(await ok(base(), key, "GET", `/subscriptions/${e.subscription_id}`)).toStrictEqual(cancelled)
    expect(await eventTypesOf(key, e.subscription_id)).toHaveLength(3)
    e = cancelled
  }, 60_000)

  it("cancel_at_period_end true, then false, leaves F active with no event", async () => {
    const set = await ok(base(), key, "PATCH", `/subscriptions/${f.subscription_id}`, { cancel_at_period_end: true })
    expect(set).toMatchObject({ status: "active", cancel_at_period_end: true, cancelled_at: null })
    const unset = await ok(base(), key, "PATCH", `/subscriptions/${f.subscription_id}`, { cancel_at_period_end: false })
    expect(unset).toStrictEqual({ ...f, cancel_at_period_end: false })
    expect(await eventTypesOf(key, f.subscription_id)).toEqual(["payment.succeeded", "subscription.active"])
    f = unset
  }, 60_000)

  it("at the period date: F renews, G's renewal fails (on_hold), cancelled E is charged nothing", async () => {
    const report = await billingAt(at1)
    expect(report).toMatchObject({ renewals_charged: 3, subscriptions_ended: 0 })

    expect(await ok(base(), key, "GET", `/subscriptions/${f.subscription_id}`)).toMatchObject({
      status: "active",
      cancel_at_period_end: false,
      current_period_start: f.next_billing_date,
      cancelled_at: null,
      failed_payment_attempts: 0
    })
    expect((await paymentsOf(key, f.subscription_id)).map((p) => [p.billing_reason, p.status, p.total_amount])).toEqual([
      ["subscription_create", "succeeded", 9_900],
      ["subscription_renewal", "succeeded", 9_900]
    ])
    expect(await eventTypesOf(key, f.subscription_id)).toEqual([
      "payment.succeeded",
      "subscription.active",
      "payment.succeeded",
      "subscription.renewed"
    ])

    expect(await ok(base(), key, "GET", `/subscriptions/${e.subscription_id}`)).toStrictEqual(e)
    expect((await paymentsOf(key, e.subscription_id)).map((p) => p.billing_reason)).toEqual(["subscription_create"])
    expect(await eventTypesOf(key, e.subscription_id)).toHaveLength(3)

    const gNow = await ok(base(), key, "GET", `/subscriptions/${g.subscription_id}`)
    expect(gNow).toMatchObject({ status: "on_hold", failed_payment_attempts: 1, next_retry_at: iso(Date.parse(at1) + day) })
    g = gNow
    h = await ok(base(), key, "GET", `/subscriptions/${h.subscription_id}`)
    expect(h).toMatchObject({ status: "on_hold", failed_payment_attempts: 1 })
  }, 90_000)

  it("cancelling on_hold G now stops its retries: the retry date charges nothing", async () => {
    const typesBefore = await eventTypesOf(key, g.subscription_id)
    expect(typesBefore).toEqual(["payment.succeeded", "subscription.active", "payment.failed", "subscription.on_hold"])
    const cancelled = await ok(base(), key, "PATCH", `/subscriptions/${g.subscription_id}`, { status: "cancelled" })
    expect(cancelled).toMatchObject({ status: "cancelled", cancellation_reason: "requested", next_retry_at: null })
    // The failure was recorded at the simulated instant `at1` (a month ahead), the cancellation now: listed newest
    // first by created_at, the cancellation sorts before the failure, so only the set of types is compared.
    const typesAfter = await eventTypesOf(key, g.subscription_id)
    expect(typesAfter.slice().sort()).toEqual([...typesBefore, "subscription.cancelled"].sort())
    const events = (await ok(base(), key, "GET", "/events?type=subscription.cancelled")).items as Array<any>
    expect(events.find((x) => x.data.subscription_id === g.subscription_id)?.data).toStrictEqual(cancelled)

    const report = await billingAt(iso(Date.parse(at1) + day + 60_000))
    // Only H's day-1 retry is charged (and declined again); G is not.
    expect(report).toMatchObject({ renewals_charged: 1, subscriptions_ended: 0 })
    expect(await ok(base(), key, "GET", `/subscriptions/${g.subscription_id}`)).toStrictEqual(cancelled)
    expect((await paymentsOf(key, g.subscription_id)).map((p) => [p.billing_reason, p.status])).toEqual([
      ["subscription_create", "succeeded"],
      ["subscription_renewal", "failed"]
    ])
    expect(await eventTypesOf(key, g.subscription_id)).toHaveLength(5)
    expect((await paymentsOf(key, e.subscription_id))).toHaveLength(1)
    expect((await paymentsOf(key, f.subscription_id))).toHaveLength(2)
  }, 90_000)

  it("H: declined again on day 1, then with a working card the day-3 retry recovers it (active, renewed)", async () => {
    const held = await ok(base(), key, "GET", `/subscriptions/${h.subscription_id}`)
    expect(held).toMatchObject({ status: "on_hold", failed_payment_attempts: 2 })
    const firstFailure = Date.parse(at1)
    expect(held.next_retry_at).toBe(iso(firstFailure + 3 * day))
    // The customer's card is replaced by one that pays (F's), as updating the payment method would.
    await db!.sql(`UPDATE subscriptions SET card_token = (SELECT card_token FROM subscriptions
      WHERE subscription_id = '${f.subscription_id}') WHERE subscription_id = '${h.subscription_id}'`)
    const report = await billingAt(iso(firstFailure + 3 * day + 60_000))
    expect(report).toMatchObject({ renewals_charged: 1, subscriptions_ended: 0 })
    const recovered = await ok(base(), key, "GET", `/subscriptions/${h.subscription_id}`)
    expect(recovered).toMatchObject({
      status: "active",
      failed_payment_attempts: 0,
      next_retry_at: null,
      // The paid period is the one that was due: the schedule stays anchored on the original date.
      current_period_start: h.next_billing_date
    })
    expect(Date.parse(recovered.next_billing_date)).toBeGreaterThan(Date.parse(h.next_billing_date) + 27 * day)
    expect((await paymentsOf(key, h.subscription_id)).map((p) => [p.billing_reason, p.status])).toEqual([
      ["subscription_create", "succeeded"],
      ["subscription_renewal", "failed"],
      ["subscription_renewal", "failed"],
      ["subscription_renewal", "succeeded"]
    ])
    const types = await eventTypesOf(key, h.subscription_id)
    expect(types.slice(-3)).toEqual(["payment.succeeded", "subscription.active", "subscription.renewed"])
    expect(types.filter((t) => t === "subscription.on_hold")).toHaveLength(1)
  }, 90_000)

  it("the server stops cleanly on SIGTERM", async () => {
    expect((await fetch(`${base()}/ready`)).status).toBe(200)
    expect(await served!.stop("SIGTERM")).toBe(0)
    served = undefined
  }, 30_000)
})
