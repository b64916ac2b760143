/**
 * Subscriptions over HTTP on both stores (docs/subscriptions.md, docs/api.md "Endpoints"; docs/decisions.md §6, §7,
 * §8): a subscription checkout paid on the hosted page with plain `fetch`, then `GET /subscriptions`,
 * `GET /subscriptions/{id}`, `PATCH /subscriptions/{id}`, the plan change endpoints, and the events they leave in
 * `GET /events`.
 */
import { Effect } from "effect"
import { expect, it } from "vitest"
import { Billing, type BillingReport } from "../../../src/application/Billing.js"
import { describeStores, expectError, useServer } from "../../support/httpSuite.js"
import { call, clientFor, type EngineServices, rawFor, type TestAccount } from "../../support/server.js"

const cards = { visa: "4242 4242 4242 4242", declineLater: "4000000000000341", declined: "4000000000000002" }

const subscriptionFields = [
  "billing_interval",
  "cancel_at_period_end",
  "cancellation_reason",
  "cancelled_at",
  "checkout_session_id",
  "created_at",
  "credit_balance",
  "currency",
  "current_period_start",
  "customer",
  "discounts",
  "failed_payment_attempts",
  "interval_count",
  "livemode",
  "metadata",
  "name",
  "next_billing_date",
  "next_retry_at",
  "object",
  "payment_method",
  "product_id",
  "quantity",
  "recurring_amount",
  "scheduled_change",
  "status",
  "subscription_id",
  "trial_ends_at",
  "trial_period_days"
]

const isoMillis = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const hex32 = "0123456789abcdef0123456789abcdef"

const form = (card: string, email: string): Record<string, string> => ({
  name: "Layla Haddad",
  email,
  phone_number: "+971501234567",
  card_number: card,
  exp_month: "12",
  exp_year: "2040",
  cvc: "123"
})

/** The calendar month after `iso` with the day kept where the month has it (enough for dates before the 29th). */
const addMonthIso = (iso: string) => {
  const d = new Date(iso)
  d.setUTCMonth(d.getUTCMonth() + 1)
  return d.toISOString()
}

describeStores("subscriptions over HTTP", (variant) => {
  const server = useServer(variant)

  /** A test-mode billing pass as of `iso` on the server's own engine (the server's runtime holds `Billing`). */
  const billingAt = (iso: string) =>
    server().run(
      Effect.flatMap(Billing, (b) => b.runOnce({ livemode: false, asOf: Date.parse(iso) })) as unknown as Effect.Effect<BillingReport, never, EngineServices>
    )

  const createProduct = async (key: string, body: Record<string, unknown> = {}) => {
    const res = await rawFor(server(), key).post("/products", {
      name: "Coffee club",
      price: 9900,
      currency: "AED",
      billing: "recurring",
      billing_interval: "month",
      ...body
    })
    expect(res.status, res.text).toBe(200)
    return res.json as { product_id: string }
  }

  const pageUrl = (id: string) => `${server().origin}/checkout/${id}`

  /** Creates a subscription session and pays it by posting the hosted page's form. */
  const subscribeViaPage = async (account: TestAccount, options: {
    readonly card?: string
    readonly email?: string
    readonly quantity?: number
    readonly metadata?: Record<string, string>
    readonly customerId?: string
  } = {}) => {
    const key = account.test.key
    const raw = rawFor(server(), key)
    const product = await createProduct(key)
    const created = await raw.post("/checkout_sessions", {
      product_cart: [{ product_id: product.product_id, quantity: options.quantity ?? 1 }],
      return_url: "https://shop.example/done",
      metadata: options.metadata ?? {},
      ...(options.customerId === undefined ? {} : { customer: { customer_id: options.customerId } })
    })
    expect(created.status, created.text).toBe(200)
    expect(created.json.kind).toBe("subscription")
    const session = created.json
    const page = await fetch(pageUrl(session.session_id))
    const html = await page.text()
    expect(page.status, html.slice(0, 300)).toBe(200)
    const token = /name="form_token" value="([^"]*)"/.exec(html)?.[1]
    expect(token).toBeDefined()
    const posted = await fetch(pageUrl(session.session_id), {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        ...form(options.card ?? cards.visa, options.email ?? "layla@example.ae"),
        form_token: token!
      }).toString()
    })
    expect(posted.status, await posted.text()).toBe(303)
    const location = new URL(posted.headers.get("location")!)
    expect(`${location.origin}${location.pathname}`).toBe("https://shop.example/done")
    expect(location.searchParams.get("session_id")).toBe(session.session_id)
    expect(location.searchParams.get("status")).toBe("succeeded")
    const paymentId = location.searchParams.get("payment_id")!
    const completed = await raw.get(`/checkout_sessions/${session.session_id}`)
    expect(completed.json).toMatchObject({ status: "complete", payment_id: paymentId })
    const subscriptionId = completed.json.subscription_id as string
    expect(subscriptionId).toMatch(/^sub_[0-9a-f]{32}$/)
    const subscription = await raw.get(`/subscriptions/${subscriptionId}`)
    expect(subscription.status, subscription.text).toBe(200)
    return { product, session: completed.json, paymentId, subscription: subscription.json }
  }

  const eventsFor = async (key: string, subscriptionId: string) => {
    const res = await rawFor(server(), key).get("/events?limit=100")
    expect(res.status, res.text).toBe(200)
    return (res.json.items as Array<any>)
      .filter((e) => e.data.subscription_id === subscriptionId)
      .reverse()
  }

  it("paying a subscription session on the hosted page starts the subscription, with its payment and events", async () => {
    const shop = await server().createAccount()
    const key = shop.test.key
    const raw = rawFor(server(), key)
    const before = Date.now()
    const { paymentId, product, session, subscription } = await subscribeViaPage(shop, {
      quantity: 2,
      metadata: { plan: "gold" }
    })
    expect(Object.keys(subscription).sort()).toEqual(subscriptionFields)
    const customerId = (await raw.get(`/payments/${paymentId}`)).json.customer.customer_id
    expect(session.customer).toStrictEqual({ name: "Layla Haddad", email: "layla@example.ae", phone_number: "+971501234567" })
    expect(subscription).toMatchObject({
      object: "subscription",
      status: "active",
      product_id: product.product_id,
      name: "Coffee club",
      quantity: 2,
      recurring_amount: 19800,
      currency: "AED",
      billing_interval: "month",
      interval_count: 1,
      customer: { customer_id: customerId, name: "Layla Haddad", email: "layla@example.ae" },
      payment_method: { brand: "visa", last4: "4242", exp_month: 12, exp_year: 2040 },
      cancel_at_period_end: false,
      cancelled_at: null,
      cancellation_reason: null,
      failed_payment_attempts: 0,
      next_retry_at: null,
      checkout_session_id: session.session_id,
      metadata: { plan: "gold" },
      livemode: false
    })
    expect(subscription.customer.customer_id).toMatch(/^cus_[0-9a-f]{32}$/)
    expect([subscription.trial_period_days, subscription.trial_ends_at]).toEqual([0, null])
    for (const field of ["current_period_start", "next_billing_date", "created_at"]) {
      expect(subscription[field]).toMatch(isoMillis)
    }
    const start = Date.parse(subscription.current_period_start)
    expect(start).toBeGreaterThanOrEqual(before - 1000)
    expect(start).toBeLessThanOrEqual(Date.now())
    expect(subscription.next_billing_date).toBe(addMonthIso(subscription.current_period_start))

    const payment = await raw.get(`/payments/${paymentId}`)
    expect(payment.json).toMatchObject({
      status: "succeeded",
      total_amount: 19800,
      billing_reason: "subscription_create",
      subscription_id: subscription.subscription_id,
      checkout_session_id: session.session_id
    })
    expect(payment.json.paid_at).toBe(subscription.current_period_start)

    const events = await eventsFor(key, subscription.subscription_id)
    expect(events.map((e) => e.type)).toEqual(["payment.succeeded", "subscription.active"])
    expect(events[0].data).toStrictEqual(payment.json)
    expect(events[1].data).toStrictEqual(subscription)
    expect(events.every((e) => e.livemode === false)).toBe(true)
    const byType = await raw.get("/events?type=subscription.active")
    expect(byType.json.items.map((e: any) => e.event_id)).toEqual([events[1].event_id])
    const one = await raw.get(`/events/${events[1].event_id}`)
    expect(one.json).toStrictEqual(events[1])
  })

  it("GET /subscriptions: newest first, filters status and customer_id, cursor paging, mode and account isolation", async () => {
    const shop = await server().createAccount()
    const raw = rawFor(server(), shop.test.key)
    const one = (await subscribeViaPage(shop, { email: "one@example.ae" })).subscription
    const two = (await subscribeViaPage(shop, { email: "two@example.ae" })).subscription
    const three = (await subscribeViaPage(shop, { email: "one@example.ae" })).subscription
    expect(three.customer.customer_id).toBe(one.customer.customer_id)
    const cancelled = await raw.patch(`/subscriptions/${two.subscription_id}`, { status: "cancelled" })
    expect(cancelled.status, cancelled.text).toBe(200)
    const ids = (items: Array<any>) => items.map((s) => s.subscription_id)

    const all = await raw.get("/subscriptions")
    expect(all.status).toBe(200)
    expect(Object.keys(all.json).sort()).toEqual(["has_more", "items", "next_cursor"])
    expect(ids(all.json.items)).toEqual([three.subscription_id, two.subscription_id, one.subscription_id])
    expect(all.json).toMatchObject({ has_more: false, next_cursor: null })
    expect(all.json.items[0]).toStrictEqual(three)
    expect(all.json.items[1]).toStrictEqual(cancelled.json)

    expect(ids((await raw.get("/subscriptions?status=active")).json.items)).toEqual([
      three.subscription_id,
      one.subscription_id
    ])
    expect(ids((await raw.get("/subscriptions?status=cancelled")).json.items)).toEqual([two.subscription_id])
    expect((await raw.get("/subscriptions?status=on_hold")).json.items).toEqual([])
    expect(ids((await raw.get(`/subscriptions?customer_id=${one.customer.customer_id}`)).json.items)).toEqual([
      three.subscription_id,
      one.subscription_id
    ])
    expect(
      ids((await raw.get(`/subscriptions?customer_id=${one.customer.customer_id}&status=cancelled`)).json.items)
    ).toEqual([])
    expect((await raw.get(`/subscriptions?customer_id=cus_${hex32}`)).json.items).toEqual([])

    // Paging with the cursor: every item once, in order.
    const first = await raw.get("/subscriptions?limit=2")
    expect(first.json.has_more).toBe(true)
    expect(first.json.next_cursor).toMatch(/^[A-Za-z0-9_-]+$/)
    const second = await raw.get(`/subscriptions?limit=2&cursor=${first.json.next_cursor}`)
    expect(second.status, second.text).toBe(200)
    expect(second.json).toMatchObject({ has_more: false, next_cursor: null })
    expect([...ids(first.json.items), ...ids(second.json.items)]).toEqual(ids(all.json.items))
    // A cursor of another filter set, or garbage, is refused.
    expectError(await raw.get(`/subscriptions?status=active&cursor=${first.json.next_cursor}`), 400, "INVALID_REQUEST")
    expectError(await raw.get("/subscriptions?cursor=not-a-cursor"), 400, "INVALID_REQUEST")
    expectError(await raw.get("/subscriptions?status=paused"), 400, "INVALID_REQUEST")
    expectError(await raw.get("/subscriptions?limit=0"), 400, "INVALID_REQUEST")
    expectError(await raw.get("/subscriptions?limit=101"), 400, "INVALID_REQUEST")

    // Another mode or another account sees none of them.
    for (const key of [shop.live.key, server().accountB.test.key, server().accountA.live.key]) {
      const other = await rawFor(server(), key).get("/subscriptions?limit=100")
      expect(other.status).toBe(200)
      for (const id of ids([one, two, three])) expect(ids(other.json.items)).not.toContain(id)
    }
    expect((await rawFor(server(), shop.live.key).get("/subscriptions")).json.items).toEqual([])
  })

  it("GET /subscriptions/{id}: 404 for another mode or account, a malformed or unknown id", async () => {
    const shop = await server().createAccount()
    const { subscription } = await subscribeViaPage(shop)
    const path = `/subscriptions/${subscription.subscription_id}`
    const read = await rawFor(server(), shop.test.key).get(path)
    expect(read.status).toBe(200)
    expect(read.json).toStrictEqual(subscription)
    for (const key of [shop.live.key, server().accountA.test.key, server().accountB.live.key]) {
      expectError(await rawFor(server(), key).get(path), 404, "NOT_FOUND")
    }
    const raw = rawFor(server(), shop.test.key)
    for (const id of ["sub_123", `sub_${hex32.toUpperCase()}`, `pay_${hex32}`, `sub_${hex32}`, "x"]) {
      expectError(await raw.get(`/subscriptions/${id}`), 404, "NOT_FOUND")
    }
    expectError(await rawFor(server(), undefined).get(path), 401, "UNAUTHORIZED")
  })

  it("PATCH /subscriptions/{id}: cancel_at_period_end on and off, cancel now, cancelling again, then 409", async () => {
    const shop = await server().createAccount()
    const { subscription } = await subscribeViaPage(shop)
    const id = subscription.subscription_id
    const raw = rawFor(server(), shop.test.key)
    const path = `/subscriptions/${id}`

    const flagged = await raw.patch(path, { cancel_at_period_end: true })
    expect(flagged.status, flagged.text).toBe(200)
    expect(flagged.json).toStrictEqual({ ...subscription, cancel_at_period_end: true })
    const unflagged = await raw.patch(path, { cancel_at_period_end: false })
    expect(unflagged.status).toBe(200)
    expect(unflagged.json).toStrictEqual(subscription)
    expect((await eventsFor(shop.test.key, id)).map((e) => e.type)).toEqual(["payment.succeeded", "subscription.active"])

    const before = Date.now()
    const cancelled = await raw.patch(path, { status: "cancelled" })
    expect(cancelled.status, cancelled.text).toBe(200)
    expect(Object.keys(cancelled.json).sort()).toEqual(subscriptionFields)
    expect(cancelled.json).toMatchObject({
      ...subscription,
      status: "cancelled",
      cancellation_reason: "requested",
      cancelled_at: expect.stringMatching(isoMillis)
    })
    expect(Date.parse(cancelled.json.cancelled_at)).toBeGreaterThanOrEqual(before - 1000)
    expect((await raw.get(path)).json).toStrictEqual(cancelled.json)
    let events = await eventsFor(shop.test.key, id)
    expect(events.map((e) => e.type)).toEqual(["payment.succeeded", "subscription.active", "subscription.cancelled"])
    expect(events[2].data).toStrictEqual(cancelled.json)

    // Cancelling again: 200, unchanged, no new event.
    const again = await raw.patch(path, { status: "cancelled" })
    expect(again.status).toBe(200)
    expect(again.json).toStrictEqual(cancelled.json)
    events = await eventsFor(shop.test.key, id)
    expect(events).toHaveLength(3)

    // cancel_at_period_end on a cancelled subscription: 409 INVALID_STATE, either way.
    expectError(await raw.patch(path, { cancel_at_period_end: true }), 409, "INVALID_STATE")
    expectError(await raw.patch(path, { cancel_at_period_end: false }), 409, "INVALID_STATE")
    expect((await raw.get(path)).json).toStrictEqual(cancelled.json)
    expect(await eventsFor(shop.test.key, id)).toHaveLength(3)
  })

  it("PATCH /subscriptions/{id}: both fields, neither, an unknown field or a bad value is 400 and changes nothing", async () => {
    const shop = await server().createAccount()
    const { subscription } = await subscribeViaPage(shop)
    const raw = rawFor(server(), shop.test.key)
    const path = `/subscriptions/${subscription.subscription_id}`
    expectError(await raw.patch(path, { status: "cancelled", cancel_at_period_end: true }), 400, "INVALID_REQUEST")
    expectError(await raw.patch(path, { status: "cancelled", cancel_at_period_end: false }), 400, "INVALID_REQUEST")
    expectError(await raw.patch(path, {}), 400, "INVALID_REQUEST")
    const unknown = expectError(await raw.patch(path, { status: "cancelled", reason: "too dear" }), 400, "INVALID_REQUEST")
    expect(unknown).toContain("reason")
    const unknownAlone = expectError(await raw.patch(path, { pause: true }), 400, "INVALID_REQUEST")
    expect(unknownAlone).toContain("pause")
    expectError(await raw.patch(path, { status: "active" }), 400, "INVALID_REQUEST")
    expectError(await raw.patch(path, { status: "on_hold" }), 400, "INVALID_REQUEST")
    expectError(await raw.patch(path, { cancel_at_period_end: "yes" }), 400, "INVALID_REQUEST")
    expectError(await raw.patch(path, { cancel_at_period_end: null }), 400, "INVALID_REQUEST")
    expectError(await raw.patch(path, "{not json"), 400, "INVALID_REQUEST")
    expect((await raw.get(path)).json).toStrictEqual(subscription)
    // Another mode or account cannot touch it, and a malformed id is not found.
    for (const key of [shop.live.key, server().accountB.test.key]) {
      expectError(await rawFor(server(), key).patch(path, { status: "cancelled" }), 404, "NOT_FOUND")
    }
    expectError(await raw.patch("/subscriptions/sub_1", { status: "cancelled" }), 404, "NOT_FOUND")
    expect((await raw.get(path)).json).toStrictEqual(subscription)
    expect((await eventsFor(shop.test.key, subscription.subscription_id)).map((e) => e.type)).toEqual([
      "payment.succeeded",
      "subscription.active"
    ])
  })

  it("a declined renewal puts it on_hold (listed, with events); PATCH still works from on_hold", async () => {
    const shop = await server().createAccount()
    const { subscription } = await subscribeViaPage(shop, { card: cards.declineLater })
    const id = subscription.subscription_id
    const raw = rawFor(server(), shop.test.key)
    const path = `/subscriptions/${id}`
    // A billing pass just before the period ends does nothing to it; one at the period end charges the renewal.
    await billingAt(new Date(Date.parse(subscription.next_billing_date) - 1).toISOString())
    expect((await raw.get(path)).json).toStrictEqual(subscription)
    const report = await billingAt(subscription.next_billing_date)
    expect(report.renewals_charged).toBeGreaterThanOrEqual(1)
    const held = await raw.get(path)
    expect(held.json).toMatchObject({
      status: "on_hold",
      failed_payment_attempts: 1,
      next_retry_at: new Date(Date.parse(subscription.next_billing_date) + 86_400_000).toISOString(),
      current_period_start: subscription.current_period_start,
      next_billing_date: subscription.next_billing_date
    })
    expect((await raw.get("/subscriptions?status=on_hold")).json.items).toStrictEqual([held.json])

    const events = await eventsFor(shop.test.key, id)
    expect(events.map((e) => e.type)).toEqual([
      "payment.succeeded",
      "subscription.active",
      "payment.failed",
      "subscription.on_hold"
    ])
    expect(events[2].data).toMatchObject({
      status: "failed",
      billing_reason: "subscription_renewal",
      total_amount: 9900,
      subscription_id: id,
      checkout_session_id: null
    })
    expect(events[3].data).toStrictEqual(held.json)
    const payments = await raw.get(`/payments?customer_id=${subscription.customer.customer_id}&limit=100`)
    expect(payments.json.items.map((p: any) => [p.billing_reason, p.status])).toEqual([
      ["subscription_renewal", "failed"],
      ["subscription_create", "succeeded"]
    ])

    const flagged = await raw.patch(path, { cancel_at_period_end: true })
    expect(flagged.status, flagged.text).toBe(200)
    expect(flagged.json).toMatchObject({ status: "on_hold", cancel_at_period_end: true })
    const cancelled = await raw.patch(path, { status: "cancelled" })
    expect(cancelled.status, cancelled.text).toBe(200)
    expect(cancelled.json).toMatchObject({ status: "cancelled", cancellation_reason: "requested", next_retry_at: null })
    // (The on_hold event was written at the billing pass's future instant, so order by type, not position.)
    const cancelledEvents = (await eventsFor(shop.test.key, id)).filter((e) => e.type === "subscription.cancelled")
    expect(cancelledEvents.map((e) => e.data)).toStrictEqual([cancelled.json])
    // The retry that was due never runs.
    await billingAt(held.json.next_retry_at)
    expect((await raw.get(path)).json).toStrictEqual(cancelled.json)
    expect((await raw.get(`/payments?customer_id=${subscription.customer.customer_id}`)).json.items).toHaveLength(2)
  })

  it("on a frozen test clock, a plan changed right after subscribing credits the whole first period", async () => {
    const shop = await server().createAccount()
    const raw = rawFor(server(), shop.test.key)
    const clock = await raw.post("/test_clocks", { frozen_time: "2030-01-15T09:00:00Z" })
    expect(clock.status, clock.text).toBe(200)
    const customer = await raw.post("/customers", { email: "clock@example.ae", test_clock_id: clock.json.test_clock_id })
    expect(customer.status, customer.text).toBe(200)
    const { subscription } = await subscribeViaPage(shop, { customerId: customer.json.customer_id })
    expect(subscription.current_period_start).toBe("2030-01-15T09:00:00.000Z")
    const team = await createProduct(shop.test.key, { name: "Coffee club, team", price: 29900 })
    const body = { product_id: team.product_id, quantity: 1, proration_billing_mode: "prorated_immediately" }
    const path = `/subscriptions/${subscription.subscription_id}/change-plan`
    const shown = await raw.post(`${path}/preview`, body)
    expect(shown.status, shown.text).toBe(200)
    expect(shown.json.immediate_charge.summary).toMatchObject({ total_amount: 20000, credit_applied: 9900 })
    const changed = await raw.post(path, body)
    expect(changed.status, changed.text).toBe(200)
    expect([changed.json.payment.total_amount, changed.json.subscription.current_period_start]).toStrictEqual([20000, "2030-01-15T09:00:00.000Z"])
  })

  it("plan changes: preview and change with its quote through the typed client; 402 when declined, replayed under its key; a scheduled one cancelled", async () => {
    const shop = await server().createAccount()
    const key = shop.test.key
    const raw = rawFor(server(), key)
    const { subscription } = await subscribeViaPage(shop, { card: cards.declineLater })
    const id = subscription.subscription_id as string
    const path = `/subscriptions/${id}/change-plan`
    const team = await createProduct(key, { name: "Coffee club, team", price: 29900 })
    const body = { product_id: team.product_id, quantity: 1, proration_billing_mode: "full_immediately" } as const

    const client = await clientFor(server(), key)
    const shown = await call(client.subscriptions.previewChangePlan({ path: { id }, payload: body, headers: {} }))
    expect(shown.immediate_charge.summary).toStrictEqual({ total_amount: 29900, tax: null, credit_applied: 0, credit_remaining: 0 })
    expect(shown.immediate_charge.line_items.map((l) => [l.type, l.amount])).toStrictEqual([["new_plan", 29900]])
    expect(shown.new_plan.product_id).toBe(team.product_id)
    expect(shown.quote_id).toMatch(/^qt_[0-9]{13}_[0-9a-f]{32}$/)

    // The card now declines: with prevent_change, 402 and the plan as it was, the same answer for a retry.
    const headers = { "idempotency-key": `change-${id}` }
    const declined = await raw.post(path, { ...body, on_payment_failure: "prevent_change", quote_id: shown.quote_id }, { headers })
    expect(expectError(declined, 402, "CARD_DECLINED")).toMatch(/^The card was declined \(card_declined\), so the plan was not changed/)
    const again = await raw.post(path, { ...body, on_payment_failure: "prevent_change", quote_id: shown.quote_id }, { headers })
    expect([again.status, again.headers.get("idempotent-replayed"), again.json]).toStrictEqual([402, "true", declined.json])
    expect((await raw.get(`/subscriptions/${id}`)).json).toStrictEqual(subscription)
    const payments = await raw.get(`/payments?customer_id=${subscription.customer.customer_id}&limit=100`)
    expect(payments.json.items.map((p: any) => [p.billing_reason, p.status, p.total_amount])).toEqual([
      ["subscription_update", "failed", 29900],
      ["subscription_create", "succeeded", 9900]
    ])

    // Scheduled for the next billing date instead: shown on the subscription, one at a time, cancelled once.
    const scheduled = await raw.post(path, { ...body, effective_at: "next_billing_date" })
    expect(scheduled.status, scheduled.text).toBe(200)
    expect(scheduled.json.payment).toBeNull()
    expect(scheduled.json.subscription.scheduled_change).toMatchObject({
      product_id: team.product_id,
      quantity: 1,
      effective_at: subscription.next_billing_date
    })
    expectError(await raw.post(path, { ...body, quantity: 2, effective_at: "next_billing_date" }), 409, "INVALID_STATE")
    // Nor can it end at the period end while the change waits for then (as a change cannot be scheduled the other
    // way round); nothing changes.
    expect(expectError(await raw.patch(`/subscriptions/${id}`, { cancel_at_period_end: true }), 409, "INVALID_STATE"))
      .toContain("while a plan change is scheduled")
    expect((await raw.get(`/subscriptions/${id}`)).json).toStrictEqual(scheduled.json.subscription)
    const cancelled = await raw.send("DELETE", `${path}/scheduled`)
    expect(cancelled.status, cancelled.text).toBe(200)
    expect(cancelled.json).toStrictEqual(subscription)
    expect(expectError(await raw.send("DELETE", `${path}/scheduled`), 404, "NOT_FOUND")).toBe(`Subscription ${id} has no scheduled plan change`)
    expectError(await raw.send("DELETE", `/subscriptions/sub_${hex32}/change-plan/scheduled`), 404, "NOT_FOUND")

    // Refused in the merchant's words: an unknown discount code, an unknown field, a product that is not there.
    expect(expectError(await raw.post(path, { ...body, discount_codes: ["WINTER"] }), 400, "INVALID_REQUEST"))
      .toBe("discount_code: no discount has the code 'WINTER'")
    expect(expectError(await raw.post(path, { ...body, proration: "now" }), 400, "INVALID_REQUEST")).toContain("proration")
    expect(expectError(await raw.post(`${path}/preview`, { ...body, product_id: `pdt_${hex32}` }), 400, "INVALID_REQUEST"))
      .toBe(`product_id: no product 'pdt_${hex32}' in this account and mode`)
  })

  it("a free trial on the hosted page: 303 with the subscription, nothing charged; a session's override is checked", async () => {
    const shop = await server().createAccount()
    const raw = rawFor(server(), shop.test.key)
    const product = await createProduct(shop.test.key, { trial_period_days: 14 })
    const oneTime = await raw.post("/products", { name: "Mug", price: 2500, currency: "AED" })
    // The override's bounds, and a cart that starts no subscription, are refused with the merchant's words.
    for (const days of [366, -1, 1.5]) {
      const refused = expectError(await raw.post("/checkout_sessions", {
        product_cart: [{ product_id: product.product_id }],
        subscription_data: { trial_period_days: days }
      }), 400, "INVALID_REQUEST")
      expect(refused).toContain("trial_period_days")
    }
    expect(expectError(await raw.post("/checkout_sessions", {
      product_cart: [{ product_id: oneTime.json.product_id }],
      subscription_data: { trial_period_days: 7 }
    }), 400, "INVALID_REQUEST")).toContain("exactly one recurring product")
    expect(expectError(await raw.post("/checkout_sessions", {
      product_cart: [{ product_id: product.product_id }],
      subscription_data: { trial_days: 7 }
    }), 400, "INVALID_REQUEST")).toContain("trial_days")

    const created = await raw.post("/checkout_sessions", {
      product_cart: [{ product_id: product.product_id }],
      subscription_data: { trial_period_days: 10 },
      return_url: "https://shop.example/done"
    })
    expect(created.status, created.text).toBe(200)
    expect(created.json).toMatchObject({ kind: "subscription", trial_period_days: 10, total_amount: 0, payment_id: null })
    const id = created.json.session_id as string
    const html = await (await fetch(pageUrl(id))).text()
    expect(html).toContain("Start free trial")
    const token = /name="form_token" value="([^"]*)"/.exec(html)![1]!
    const posted = await fetch(pageUrl(id), {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ ...form(cards.visa, "layla@example.ae"), form_token: token }).toString()
    })
    expect(posted.status, await posted.text()).toBe(303)
    const location = new URL(posted.headers.get("location")!)
    const subscriptionId = location.searchParams.get("subscription_id")
    expect([location.searchParams.get("status"), location.searchParams.get("payment_id")]).toEqual(["succeeded", null])
    const session = (await raw.get(`/checkout_sessions/${id}`)).json
    expect(session).toMatchObject({ status: "complete", payment_id: null, subscription_id: subscriptionId, trial_period_days: 10 })
    const subscription = (await raw.get(`/subscriptions/${subscriptionId}`)).json
    expect(Object.keys(subscription).sort()).toEqual(subscriptionFields)
    const trialEnd = new Date(Date.parse(subscription.created_at) + 10 * 86_400_000).toISOString()
    expect(subscription).toMatchObject({
      status: "active",
      trial_period_days: 10,
      trial_ends_at: trialEnd,
      next_billing_date: trialEnd,
      current_period_start: subscription.created_at
    })
    expect((await raw.get(`/payments?checkout_session_id=${id}`)).json.items).toEqual([])
    expect((await eventsFor(shop.test.key, subscriptionId!)).map((e) => e.type)).toEqual(["subscription.active"])
    // The trial's end renews it in full, and the period after counts from there.
    await billingAt(trialEnd)
    expect((await raw.get(`/subscriptions/${subscriptionId}`)).json).toMatchObject({
      current_period_start: trialEnd,
      next_billing_date: addMonthIso(trialEnd)
    })
 
    // A discount code goes with a trial: nothing off today, its terms shown for the payments after the trial.
    expect((await raw.post("/discounts", { code: "Club3", type: "percentage", amount: 2500, subscription_cycles: 3 })).status).toBe(200)
    const discounted = await raw.post("/checkout_sessions", { product_cart: [{ product_id: product.product_id }], discount_code: "club3" })
    expect(discounted.status, discounted.text).toBe(200)
    expect(discounted.json).toMatchObject({ total_amount: 0, discounts: [{ code: "Club3", amount_off: 0, subscription_cycles: 3 }] })
    const page = await (await fetch(pageUrl(discounted.json.session_id))).text()
    expect(page).toContain("Discount Club3 <small>(the first 3 payments after the trial)</small>")
    expect(page).toMatch(/data-testid="discount">−25 %</)
    expect(page).toContain('name="discount_code"')
  })

  it("POST /subscriptions/{id}/charge: the saved card charged once per Idempotency-Key; 409 once cancelled; bad input 400", async () => {
    const shop = await server().createAccount()
    const raw = rawFor(server(), shop.test.key)
    const { subscription } = await subscribeViaPage(shop)
    const path = `/subscriptions/${subscription.subscription_id}/charge`
    const body = { product_price: 4500, product_description: "Extra tin", metadata: { order: "1043" } }
    const headers = { "idempotency-key": "charge-1043" }
    const made = await raw.post(path, body, { headers })
    expect(made.status, made.text).toBe(200)
    expect(Object.keys(made.json)).toEqual(["payment_id"])
    const replayed = await raw.post(path, body, { headers })
    expect([replayed.status, replayed.json, replayed.headers.get("idempotent-replayed")]).toEqual([200, made.json, "true"])
    expectError(await raw.post(path, { ...body, product_price: 4600 }, { headers }), 422, "IDEMPOTENCY_KEY_REUSED")
    const payment = (await raw.get(`/payments/${made.json.payment_id}`)).json
    expect(payment).toMatchObject({
      status: "succeeded",
      billing_reason: "subscription_charge",
      total_amount: 4500,
      description: "Extra tin",
      subscription_id: subscription.subscription_id,
      checkout_session_id: null,
      metadata: { order: "1043" }
    })
    const charges = (await raw.get(`/payments?customer_id=${subscription.customer.customer_id}&limit=100`)).json.items
      .filter((p: any) => p.billing_reason === "subscription_charge")
    expect(charges.map((p: any) => p.payment_id)).toEqual([made.json.payment_id])
    expect((await raw.get(`/subscriptions/${subscription.subscription_id}`)).json).toStrictEqual(subscription)
    expect((await eventsFor(shop.test.key, subscription.subscription_id)).map((e) => e.type).slice(-1)).toEqual(["payment.succeeded"])

    // The typed client: the same endpoint, its answer decoded; its refusal typed.
    const client = await clientFor(server(), shop.test.key)
    const typed = await call(client.subscriptions.charge({ path: { id: subscription.subscription_id }, payload: { product_price: 100 }, headers: {} }))
    expect((await raw.get(`/payments/${typed.payment_id}`)).json).toMatchObject({ total_amount: 100, billing_reason: "subscription_charge" })

    for (const bad of [{ product_price: 0 }, { product_price: -5 }, { product_price: 12.5 }, {}, { product_price: 100, amount: 1 }]) {
      expectError(await raw.post(path, bad), 400, "INVALID_REQUEST")
    }
    expectError(await rawFor(server(), server().accountB.test.key).post(path, body), 404, "NOT_FOUND")
    expectError(await raw.post(`/subscriptions/sub_${hex32}/charge`, body), 404, "NOT_FOUND")
    expect((await raw.patch(`/subscriptions/${subscription.subscription_id}`, { status: "cancelled" })).status).toBe(200)
    expect(expectError(await raw.post(path, body), 409, "INVALID_STATE")).toContain("cancelled")
    const refused = await Effect.runPromise(Effect.flip(
      client.subscriptions.charge({ path: { id: subscription.subscription_id }, payload: { product_price: 100 }, headers: {} })
    ))
    expect(refused._tag).toBe("InvalidState")
  })
})
