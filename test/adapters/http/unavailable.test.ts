/**
 * An unreachable store (docs/decisions.md §8): `503 SERVICE_UNAVAILABLE` as `{ code, message }`, answered quickly; `/ready`
 * says so while `/health` stays up; a 5xx is not kept for an `Idempotency-Key`, so the retry runs afresh.
 *
 * The outage is simulated by a switch in front of the real store (memory or PostgreSQL).
 */
import { Effect, Layer } from "effect"
import { randomUUID } from "node:crypto"
import { afterEach, expect, it } from "vitest"
import { dashboardCatalogues } from "../../../adapters/http/i18n/dashboard/Catalogues.js"
import { Users } from "../../../src/application/Users.js"
import { StoreUnavailable } from "../../../src/domain/Errors.js"
import { dashboardAs } from "../../support/dashboard.js"
import { openPortalLink } from "../../support/portal.js"
import { cards, formWith, makeProduct, makeSession, paidWith, pay } from "../../support/checkout.js"
import { Store, type StoreShape, layerStore, type Repositories } from "../../../src/ports/Store.js"
import { rawFor, type TestServer } from "../../support/server.js"
import { describeStores, expectError, useServer } from "../../support/httpSuite.js"

/** Which operations fail: `"*"` for all, or `"products.insertAll"`-style names. */
const failing = new Set<string>()

const down = () => new StoreUnavailable({ message: "The store cannot be reached; retry later" })
const fails = (name: string) => failing.has("*") || failing.has(name)

const wrapRepo = <R extends object>(repo: R, repoName: string): R => {
  const out: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(repo)) {
    const full = `${repoName}.${name}`
    out[name] = Effect.isEffect(value)
      ? Effect.suspend(() => (fails(full) ? Effect.fail(down()) : value))
      : typeof value === "function"
      ? (...args: Array<unknown>) => (fails(full) ? Effect.fail(down()) : (value as (...a: Array<unknown>) => unknown)(...args))
      : value // a stream (the key revocations): not a call that can fail
  }
  return out as R
}

const withOutageSwitch = (store: Layer.Layer<Store | Repositories>): Layer.Layer<Store | Repositories> =>
  layerStore(
    Effect.map(Store, (s): StoreShape => ({
      transact: (effect) => Effect.suspend(() => (fails("transact") ? Effect.fail(down()) : s.transact(effect))),
      inTransaction: s.inTransaction,
      ping: Effect.suspend(() => (fails("ping") ? Effect.fail(down()) : s.ping)),
      accounts: wrapRepo(s.accounts, "accounts"),
      apiKeys: wrapRepo(s.apiKeys, "apiKeys"),
      products: wrapRepo(s.products, "products"),
      customers: wrapRepo(s.customers, "customers"),
      discounts: wrapRepo(s.discounts, "discounts"),
      sessions: wrapRepo(s.sessions, "sessions"),
      payments: wrapRepo(s.payments, "payments"),
      refunds: wrapRepo(s.refunds, "refunds"),
      documents: wrapRepo(s.documents, "documents"),
      dashboard: wrapRepo(s.dashboard, "dashboard"),
      portalSessions: wrapRepo(s.portalSessions, "portalSessions"),
      events: wrapRepo(s.events, "events"),
      subscriptions: wrapRepo(s.subscriptions, "subscriptions"),
      testClocks: wrapRepo(s.testClocks, "testClocks"),
      webhooks: wrapRepo(s.webhooks, "webhooks"),
      // awaitWork never fails (it only waits), so it passes through unwrapped.
      deliveries: { ...wrapRepo(s.deliveries, "deliveries"), awaitWork: s.deliveries.awaitWork },
      einvoices: wrapRepo(s.einvoices, "einvoices"),
      idempotency: wrapRepo(s.idempotency, "idempotency"),
      rateLimits: wrapRepo(s.rateLimits, "rateLimits"),
      requestLogs: wrapRepo(s.requestLogs, "requestLogs"),
      stats: Effect.suspend(() => (fails("stats") ? Effect.fail(down()) : s.stats))
    }))
  ).pipe(Layer.provide(store))


/** A monthly subscription of account A's test mode, paid through its checkout with a card that succeeds. */
const subscribed = (s: TestServer) => {
  const scope = { accountId: s.accountA.accountId, livemode: false }
  return s.run(Effect.gen(function*() {
    const plan = yield* makeProduct(scope, { price: 4500, billing: "recurring", billing_interval: "month" })
    const session = yield* makeSession(scope, { product_cart: [{ product_id: plan.product_id }] })
    const result = yield* pay(session.session_id, formWith(cards.visa))
    if (result._tag !== "Paid" || result.payment.subscription_id === null || result.payment.customer === null) {
      return yield* Effect.dieMessage(`no subscription: ${result._tag}`)
    }
    return { subscriptionId: result.payment.subscription_id, customerId: result.payment.customer.customer_id }
  }) as unknown as Effect.Effect<{ readonly subscriptionId: string; readonly customerId: string }, unknown, never>)
}

describeStores("store outage over HTTP", (variant) => {
  const server = useServer({ ...variant, store: async () => withOutageSwitch(await variant.store()) })

  afterEach(() => failing.clear())

  it("answers 503 SERVICE_UNAVAILABLE quickly while the store is down, and recovers", async () => {
    const s = server()
    const raw = rawFor(s, s.accountA.test.key)
    expect((await raw.get("/products")).status).toBe(200)
    failing.add("*")
    const started = Date.now()
    const calls = [
      await raw.get("/products"),
      await raw.get("/account"),
      await raw.post("/products", { name: "x", price: 1, currency: "AED" }),
      await raw.get(`/customers/cus_${"0".repeat(32)}`)
    ]
    expect(Date.now() - started).toBeLessThan(5_000)
    for (const res of calls) expectError(res, 503, "SERVICE_UNAVAILABLE")
    const ready = await rawFor(s).get(`${s.origin}/ready`)
    expectError(ready, 503, "SERVICE_UNAVAILABLE")
    expect((await rawFor(s).get(`${s.origin}/health`)).status).toBe(200)
    failing.clear()
    expect((await raw.get("/products")).status).toBe(200)
    expect((await rawFor(s).get(`${s.origin}/ready`)).status).toBe(200)
  })

  it("maps a failure behind authentication to 503 too", async () => {
    const s = server()
    const raw = rawFor(s, s.accountA.test.key)
    failing.add("products.list")
    expectError(await raw.get("/products"), 503, "SERVICE_UNAVAILABLE")
    failing.clear()
    failing.add("customers.insert")
    expectError(await raw.post("/customers", { email: "down@example.ae" }), 503, "SERVICE_UNAVAILABLE")
    failing.clear()
    const listed = await raw.get(`/customers?email=${encodeURIComponent("down@example.ae")}`)
    expect(listed.json.items).toEqual([])
  })

  it("does not keep a 503 for an Idempotency-Key: the retry runs afresh", async () => {
    const s = server()
    const raw = rawFor(s, s.accountA.test.key)
    const key = randomUUID()
    const name = `Retry ${key}`
    const body = { name, price: 1, currency: "AED" }
    // With a key the product is written in the request's transaction (`insert`), without one in a batch.
    failing.add("products.insert")
    failing.add("products.insertAll")
    const first = await raw.post("/products", body, { headers: { "idempotency-key": key } })
    expectError(first, 503, "SERVICE_UNAVAILABLE")
    failing.clear()
    const retry = await raw.post("/products", body, { headers: { "idempotency-key": key } })
    expect(retry.status, retry.text).toBe(200)
    expect(retry.headers.get("idempotent-replayed")).toBeNull()
    const again = await raw.post("/products", body, { headers: { "idempotency-key": key } })
    expect(again.headers.get("idempotent-replayed")).toBe("true")
    expect(again.text).toBe(retry.text)
    const all = await raw.get("/products?limit=100")
    expect(all.json.items.filter((p: any) => p.name === name)).toHaveLength(1)
  })

  it("answers a dashboard page 503 when the store fails mid-page, never 'not found', an empty search or a refusal", async () => {
    const s = server()
    const raw = rawFor(s, s.accountA.test.key)
    const product = (await raw.post("/products", { name: "Dates", price: 2500, currency: "AED" })).json
    const page = await dashboardAs(s)
    const unavailable = dashboardCatalogues.en.frame.pages.unavailable

    expect((await page(`/products/${product.product_id}`)).status).toBe(200)
    // Who is signed in cannot be read: not sent to sign in as if signed out.
    failing.add("dashboard.findSession")
    const home = await fetch(`${s.origin}/dashboard`, { redirect: "manual", headers: { cookie: page.cookie } })
    expect(home.status).toBe(503)
    failing.clear()
    failing.add("products.get")
    failing.add("products.findAll")
    const read = await page(`/products/${product.product_id}`)
    expect(read.status).toBe(503)
    expect(read.body).toContain(unavailable)
    failing.clear()

    // A search that cannot read the store is not a search that found nothing: by e-mail, or by a payment's id.
    failing.add("payments.get")
    failing.add("payments.findAll")
    const byId = await page(`/payments?q=pay_${"0".repeat(32)}`)
    failing.clear()
    expect([byId.status, byId.body.includes(unavailable)]).toEqual([503, true])
    expect((await page(`/payments?q=pay_${"0".repeat(32)}`)).status).toBe(200)
    failing.add("customers.list")
    const searched = await page(`/invoices?q=${encodeURIComponent("buyer@example.ae")}`)
    failing.clear()
    expect([searched.status, searched.body.includes(unavailable)]).toEqual([503, true])
    expect((await page(`/invoices?q=${encodeURIComponent("buyer@example.ae")}`)).status).toBe(200)

    // A form the store could not write is not refused: nothing is said about what was typed.
    const email = `down-${randomUUID()}@example.ae`
    failing.add("customers.insert")
    const posted = await page("/customers", { email, name: "", phone_number: "" })
    expect(posted.status).toBe(503)
    expect(posted.body).toContain(unavailable)
    failing.clear()
    const listed = await raw.get(`/customers?email=${encodeURIComponent(email)}`)
    expect(listed.json.items).toEqual([])
  })

  it("asks for a dashboard charge to be confirmed again under its own token when the store fails after the card was charged: one charge", async () => {
    const s = server()
    const { subscriptionId } = await subscribed(s)
    const page = await dashboardAs(s)
    const charge = { amount: "12.00", description: "Extra box", confirm: "yes", once: randomUUID() }
    // Reserved and charged at the processor, then the outcome cannot be recorded.
    failing.add("payments.lockAll")
    const first = await page(`/subscriptions/${subscriptionId}/charge`, charge)
    failing.clear()
    expect(first.status).toBe(503)
    expect(first.body).toContain(dashboardCatalogues.en.subscriptions.charge.unavailable)
    const extraOf = async () =>
      ((await rawFor(s, s.accountA.test.key).get(`/payments?subscription_id=${subscriptionId}&limit=100`)).json.items as Array<any>)
        .filter((p) => p.total_amount === 1200)
        .map((p) => p.status)
    expect(await extraOf()).toEqual(["processing"])
    const once = /name="once" value="([^"]+)"/.exec(first.body)?.[1]
    expect(once).toBe(charge.once)
    const again = await page(`/subscriptions/${subscriptionId}/charge`, { ...charge, once: once! })
    expect(again.status).toBe(303)
    expect(await extraOf()).toEqual(["succeeded"])
    // Audited once, with the reservation: the post that finished the charge wrote nothing more.
    const audited = await s.run(Effect.map(Effect.flatMap(Users, (users) => users.auditLog(s.accountA.accountId, 1000)), (entries) =>
      entries.filter((e) => e.action === "subscription.charge" && e.object_id === subscriptionId).length) as unknown as Effect.Effect<number, unknown, never>)
    expect(audited).toBe(1)
  })

  it("asks for a dashboard refund to be confirmed again under its own token when the store fails after the processor refunded: one refund", async () => {
    const s = server()
    const scope = { accountId: s.accountA.accountId, livemode: false }
    const paymentId = await s.run(Effect.map(paidWith(scope, cards.visa, 9_000), (p) => p.payment_id) as unknown as Effect.Effect<string, unknown, never>)
    const page = await dashboardAs(s)
    const refund = { amount: "30.00", reason: "requested_by_customer", note: "", confirm: "yes", once: randomUUID() }
    const refundsAudited = () =>
      s.run(Effect.map(Effect.flatMap(Users, (users) => users.auditLog(s.accountA.accountId, 1000)), (entries) =>
        entries.filter((e) => e.action === "payment.refund" && e.object_id === paymentId).length) as unknown as Effect.Effect<number, unknown, never>)
    // Its audit entry cannot be written: nothing is refunded, and the same confirmation is offered again.
    failing.add("dashboard.insertAudit")
    const unaudited = await page(`/payments/${paymentId}/refund`, refund)
    failing.clear()
    expect(unaudited.status).toBe(503)
    expect(/name="once" value="([^"]+)"/.exec(unaudited.body)?.[1]).toBe(refund.once)
    expect((await rawFor(s, s.accountA.test.key).get(`/payments/${paymentId}`)).json.refunded_amount).toBe(0)
    expect(await refundsAudited()).toBe(0)
    // The refund's outcome cannot be recorded (its payment's refunded amount is not written).
    failing.add("payments.update")
    const first = await page(`/payments/${paymentId}/refund`, refund)
    failing.clear()
    expect(first.status).toBe(503)
    expect(first.body).toContain(dashboardCatalogues.en.payments.refused.notNow)
    const once = /name="once" value="([^"]+)"/.exec(first.body)?.[1]
    expect(once).toBe(refund.once)
    expect((await page(`/payments/${paymentId}/refund`, { ...refund, once: once! })).status).toBe(303)
    const payment = (await rawFor(s, s.accountA.test.key).get(`/payments/${paymentId}`)).json
    expect([payment.status, payment.refunded_amount]).toEqual(["partially_refunded", 3000])
    expect(await refundsAudited()).toBe(1)
  })

  it("makes a dashboard change and its audit entry together: the entry cannot be written, the change is not made", async () => {
    const s = server()
    const raw = rawFor(s, s.accountA.test.key)
    const page = await dashboardAs(s)
    const product = (await raw.post("/products", { name: "Audited beans", price: 2_500, currency: "AED" })).json
    const discount = (await raw.post("/discounts", { type: "percentage", amount: 1_000 })).json
    const audited = (action: string, id: string) =>
      s.run(Effect.map(Effect.flatMap(Users, (users) => users.auditLog(s.accountA.accountId, 1000)), (entries) =>
        entries.filter((e) => e.action === action && e.object_id === id).length) as unknown as Effect.Effect<number, unknown, never>)
    const archive = () => page(`/products/${product.product_id}/status`, { status: "archived", confirm: "yes" })
    const disable = () => page(`/discounts/${discount.discount_id}/disable`, {})
    const remove = () => page(`/discounts/${discount.discount_id}/delete`, {})

    failing.add("dashboard.insertAudit")
    expect((await archive()).status).toBe(503)
    expect((await disable()).status).toBe(503)
    expect((await remove()).status).toBe(503)
    failing.clear()
    expect((await raw.get(`/products/${product.product_id}`)).json.status).toBe("active")
    expect((await raw.get(`/discounts/${discount.discount_id}`)).json.expires_at).toBeNull()
    expect(await audited("product.archive", product.product_id)).toBe(0)

    expect((await archive()).status).toBe(303)
    expect((await disable()).status).toBe(303)
    expect((await raw.get(`/products/${product.product_id}`)).json.status).toBe("archived")
    expect((await raw.get(`/discounts/${discount.discount_id}`)).json.expires_at).not.toBeNull()
    expect(await audited("product.archive", product.product_id)).toBe(1)
    expect(await audited("discount.disable", discount.discount_id)).toBe(1)
    expect((await remove()).status).toBe(303)
    expect((await raw.get(`/discounts/${discount.discount_id}`)).status).toBe(404)
    expect(await audited("discount.delete", discount.discount_id)).toBe(1)

    // The account's settings likewise.
    const business = { business_name: `Souq ${randomUUID().slice(0, 8)}`, support_email: "" }
    const before = (await raw.get("/account")).json.business_name
    failing.add("dashboard.insertAudit")
    expect((await page("/dashboard/settings", business)).status).toBe(503)
    failing.clear()
    expect((await raw.get("/account")).json.business_name).toBe(before)
    expect((await page("/dashboard/settings", business)).status).toBe(303)
    expect((await raw.get("/account")).json.business_name).toBe(business.business_name)

    // An endpoint disabled likewise.
    const endpoint = (await raw.post("/webhooks", { url: `https://example.ae/hooks/${randomUUID()}` })).json
    const disableEndpoint = () => page(`/developers/webhooks/${endpoint.webhook_id}/manage`, { action: "disable" })
    failing.add("dashboard.insertAudit")
    expect((await disableEndpoint()).status).toBe(503)
    failing.clear()
    expect((await raw.get(`/webhooks/${endpoint.webhook_id}`)).json.disabled).toBe(false)
    expect((await disableEndpoint()).status).toBe(303)
    expect((await raw.get(`/webhooks/${endpoint.webhook_id}`)).json.disabled).toBe(true)
    expect(await audited("webhook.disable", endpoint.webhook_id)).toBe(1)
  })

  it("answers a portal page 503 when the store fails mid-page, never 'not found'", async () => {
    const s = server()
    const paid = await subscribed(s)
    const link = (await rawFor(s, s.accountA.test.key).post("/customer_portal_sessions", { customer_id: paid.customerId })).json.url as string
    // The link names the public URL; the test server listens on its own port.
    const cookie = await openPortalLink(link.replace(/^https?:\/\/[^/]+/, s.origin))
    const cancelPage = () =>
      fetch(`${s.origin}/portal/subscriptions/${paid.subscriptionId}/cancel-at-period-end`, { headers: { cookie }, redirect: "manual" })
    expect((await cancelPage()).status).toBe(200)
    failing.add("subscriptions.get")
    failing.add("subscriptions.findAll")
    expect((await cancelPage()).status).toBe(503)
    failing.clear()
    expect((await cancelPage()).status).toBe(200)
  })

  it("answers a script's checkout post the checkout's outage page when the session cannot be read, not JSON", async () => {
    const s = server()
    const raw = rawFor(s, s.accountA.test.key)
    const product = (await raw.post("/products", { name: "Saffron", price: 3000, currency: "AED" })).json
    const session = (await raw.post("/checkout_sessions", { product_cart: [{ product_id: product.product_id }] })).json
    failing.add("sessions.find")
    // A script posts the form's named fields only: no form token, and no Origin or Sec-Fetch-Site.
    const posted = await fetch(`${s.origin}/checkout/${session.session_id}`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(formWith(cards.visa) as Record<string, string>).toString()
    })
    failing.clear()
    expect(posted.status).toBe(503)
    expect(posted.headers.get("content-type")).toMatch(/^text\/html/)
  })
})
