/**
 * The merchant's day in a real browser (headless Chromium): the owner signs in from the server's one-time
 * link, creates a test key and uses it against the API, adds a webhook endpoint (a receiver on 127.0.0.1), creates
 * a product and its checkout link and pays it on the hosted page, finds the payment and refunds part of it, sees
 * refund.succeeded and its delivery and resends it, cancels a subscription, reads the audit log, switches to live
 * data and back, and signs out. Screenshots go to test-output/.
 */
import { renderSVG } from "uqr"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { join } from "node:path"
import type { Browser, BrowserContext, Locator, Page } from "playwright-core"
import { ensureOutputDir, launchChromium } from "../support/browser.js"
import { fromBase32, hotp } from "../../adapters/crypto/SignerNode.js"
import { runFils, type Served, serveFils } from "../support/cli.js"
import { ok, postCheckoutForm, startReceiver, type TestDatabase, testDatabase, waitFor } from "../support/load.js"

const output = ensureOutputDir()
let db: TestDatabase
let server: Served
let browser: Browser
let context: BrowserContext
let page: Page
let key = ""
let link = ""
let env: Record<string, string | undefined> = {}
const consoleErrors: Array<string> = []

beforeAll(async () => {
  db = await testDatabase()
  env = { DATABASE_URL: db.url, FILS_DATA_DIR: undefined, FILS_OWNER_EMAIL: "layla@dunecoffee.ae" }
  ;[server, browser] = await Promise.all([
    serveFils(env, 60_000),
    launchChromium()
  ])
  key = /Test key\s+(sk_test_[A-Za-z0-9_-]+)/.exec(server.stdout())![1]!
  link = /Sign in\s+(http\S+)/.exec(server.stdout())![1]!
  context = await browser.newContext({ viewport: { width: 1000, height: 900 } })
  page = await context.newPage()
  page.on("console", (m) => m.type() === "error" && consoleErrors.push(m.text()))
}, 90_000)

afterAll(async () => {
  await context?.close()
  await browser?.close()
  await server?.stop("SIGTERM")
  await db?.close()
}, 30_000)

/** A mouse click where `target` is shown, on whatever is on top there (a row's link covers its cells). */
const clickOn = async (target: Locator) => {
  const box = (await target.boundingBox())!
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2)
}

/** Pays the hosted page open in `page` with a good card, as a customer would. */
const payHere = async (amountLabel: string) => {
  await page.getByLabel("Name on card", { exact: true }).fill("Layla Haddad")
  await page.getByLabel("E-mail", { exact: true }).fill("layla@example.ae")
  await page.getByLabel("Card number", { exact: true }).fill("4242 4242 4242 4242")
  await page.getByLabel("Expiry (MM / YY)", { exact: true }).fill("12 / 40")
  await page.getByLabel("CVC", { exact: true }).fill("123")
  await page.getByRole("button", { name: `Pay ${amountLabel}` }).click()
  await page.waitForLoadState("load")
}

describe("the dashboard in a browser", () => {
  it("a merchant's day: sign in, a key, a product and its checkout, a refund and its delivery resent, a subscription cancelled", async () => {
    const receiver = await startReceiver()
    try {
      await page.goto(link)
      await page.getByLabel("New password").fill("dune coffee roasters 2026")
      await page.getByRole("button", { name: "Set password and sign in" }).click()
      await page.waitForURL(/\/dashboard\/test$/)
      expect(await page.getByText("Test mode").count()).toBe(1)
      const cookies = await context.cookies()
      expect(cookies.find((c) => c.name === "fils_session")).toMatchObject({ httpOnly: true, sameSite: "Lax" })

      // A test key, used against the API at once; a webhook endpoint.
      await page.getByRole("link", { name: "Developers" }).click()
      await page.getByRole("button", { name: "Create a test key" }).click()
      const secret = await page.locator("#new-key").innerText()
      expect(secret).toMatch(/^sk_test_/)
      expect((await fetch(`${server.baseUrl}/api/v1/account`, { headers: { authorization: `Bearer ${secret}` } })).status).toBe(200)
      await page.reload()
      expect(await page.content()).not.toContain(secret)
      await page.getByLabel("Endpoint URL").fill(receiver.url)
      await page.getByRole("button", { name: "Add endpoint" }).click()
      await page.waitForURL(/\/developers\/webhooks\/wh_/)
      const endpointUrl = page.url()

      // A product, its checkout link, paid on the hosted page.
      await page.getByRole("link", { name: "Products" }).click()
      await page.getByLabel("Name").fill("Single origin beans")
      await page.getByLabel("Price in AED").fill("82.50")
      await page.getByRole("button", { name: "Create product" }).click()
      await page.getByRole("button", { name: "Make a checkout link" }).click()
      const checkoutUrl = await page.locator("#checkout-url").innerText()
      await page.goto(checkoutUrl)
      await payHere("AED 82.50")
      expect(await page.getByText("Thank you! Your payment was successful.").count()).toBe(1)

      // Home and the payment; refund part of it.
      await page.goto(`${server.baseUrl}/dashboard/test`)
      expect(await page.locator(".stat", { hasText: "Gross volume" }).innerText()).toContain("AED 82.50")
      await page.screenshot({ path: join(output, "dashboard-home.png"), fullPage: true })
      await page.getByRole("link", { name: "Payments", exact: true }).click()
      await clickOn(page.locator("table.list tbody tr").first().locator("td").last()) // the whole row opens it, not only its link
      await page.waitForURL(/\/payments\/pay_/)
      await page.getByLabel(/Amount in AED/).fill("20.00")
      await page.getByLabel("Reason").selectOption("requested_by_customer")
      await page.getByLabel(/^Note/).fill("Two bags arrived torn")
      await page.getByRole("button", { name: "Review the refund" }).click()
      // The confirmation says what will happen; only its button refunds.
      expect(await page.locator("h1").innerText()).toBe("Refund AED 20.00?")
      for (const width of [390, 1280]) {
        await page.setViewportSize({ width, height: 900 })
        const widths = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }))
        expect(widths.scroll, `the refund's confirmation at ${width} px`).toBeLessThanOrEqual(widths.inner)
        await page.screenshot({ path: join(output, `dashboard-refund-confirm-${width}.png`), fullPage: true })
      }
      await page.setViewportSize({ width: 1000, height: 900 })
      await page.getByRole("button", { name: "Refund AED 20.00" }).click()
      await page.waitForLoadState("load")
      expect(await page.getByRole("status").innerText()).toBe("Refunded AED 20.00.")
      expect(await page.locator("td", { hasText: "refund.succeeded" }).count()).toBe(1)
      expect(await page.locator("tr.refund").innerText()).toMatch(/Refund of AED 20\.00 Succeeded\s+Requested by the customer: Two bags arrived torn/)
      await page.screenshot({ path: join(output, "dashboard-payment.png"), fullPage: true })
      const payments = (await ok(server.baseUrl, key, "GET", "/payments")).items as Array<any>
      expect(payments[0]).toMatchObject({ status: "partially_refunded", refunded_amount: 2_000 })

      // The refund's delivery, then sent again from the endpoint's log.
      const refundEvent = ((await ok(server.baseUrl, key, "GET", "/events?type=refund.succeeded")).items as Array<any>)[0]
      const receivedOf = () => receiver.received.filter((r) => r.id === refundEvent.event_id).length
      await waitFor("the refund's delivery", () => receivedOf() === 1, 15_000)
      await page.goto(endpointUrl)
      const row = page.locator("tr.delivery", { hasText: refundEvent.event_id })
      expect(await row.locator("td").nth(1).innerText()).toBe("Succeeded")
      await row.getByRole("button", { name: "Resend" }).click()
      expect(await page.getByRole("status").innerText()).toBe("Queued to be sent again now.")
      await waitFor("the resent delivery", () => receivedOf() === 2, 15_000)

      // A test event sent from the endpoint's page: its attempt with what was sent, and the endpoint's health.
      await page.getByLabel(/Send a signed test event/).selectOption("refund.succeeded")
      await page.getByRole("button", { name: "Send test event" }).click()
      expect(await page.getByRole("status").innerText()).toBe("Test refund.succeeded event queued: it shows below once sent.")
      await waitFor("the test event", () => receiver.received.some((r) => JSON.parse(r.body).test === true), 15_000)
      await page.reload()
      const testRow = page.locator("tr.attempts", { hasText: '"test":true' })
      await testRow.getByText("Attempts and what was sent").click()
      expect(await testRow.locator("pre").nth(1).innerText()).toMatch(/^content-type: application\/json$[\s\S]*^webhook-signature: v1,/m)
      expect(await testRow.locator("pre").nth(2).innerText()).toContain('"test":true')
      expect(await page.getByTestId("health").innerText()).toMatch(/^0 of \d+ attempts failed in the last day \(0 %\)$/)
      for (const width of [390, 1280]) {
        await page.setViewportSize({ width, height: 900 })
        const widths = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }))
        expect(widths.scroll, `the endpoint's page at ${width} px`).toBeLessThanOrEqual(widths.inner)
        await page.screenshot({ path: join(output, `dashboard-webhook-${width}.png`), fullPage: true })
      }
      await page.setViewportSize({ width: 1000, height: 900 })

      // A subscription, cancelled now.
      await page.getByRole("link", { name: "Products" }).click()
      await page.getByLabel("Name").fill("Coffee club")
      await page.getByLabel("Price in AED").fill("45.00")
      await page.getByLabel("Billing").selectOption("month")
      await page.getByRole("button", { name: "Create product" }).click()
      await page.locator("tr", { hasText: "Coffee club" }).getByRole("button", { name: "Make a checkout link" }).click()
      await page.goto(await page.locator("#checkout-url").innerText())
      await payHere("AED 45.00")
      await page.goto(`${server.baseUrl}/dashboard/test/subscriptions`)
      await clickOn(page.locator("table.list tbody tr").first().getByText("layla@example.ae"))
      await page.getByRole("link", { name: "Cancel now…" }).click()
      await page.getByRole("button", { name: "Cancel the subscription now" }).click()
      expect(await page.getByRole("status").innerText()).toBe("Cancelled.")
      expect(await page.locator("td", { hasText: "subscription.cancelled" }).count(), "the timeline").toBe(1)
      await page.goto(`${server.baseUrl}/dashboard/test/subscriptions?status=active`)
      expect(await page.locator("table.list tbody tr").count(), "no active subscription left").toBe(0)
      await page.getByLabel("Status").selectOption("cancelled")
      await page.getByRole("button", { name: "Filter" }).click()
      expect(await page.locator("table.list tbody tr").count()).toBe(1)
      const subscriptions = (await ok(server.baseUrl, key, "GET", "/subscriptions")).items as Array<any>
      expect(subscriptions[0]).toMatchObject({ status: "cancelled", cancellation_reason: "requested" })

      await page.getByRole("link", { name: "Audit log" }).click()
      for (const action of ["api_key.create", "webhook.create", "product.create", "checkout_session.create", "payment.refund", "delivery.resend", "subscription.cancel"]) {
        expect(await page.locator("td", { hasText: action }).count(), action).toBeGreaterThanOrEqual(1)
      }
      expect(await page.content()).not.toContain(secret)

      // Live data, and back; sign out.
      await page.getByRole("link", { name: "Switch to live data" }).click()
      await page.waitForURL(/\/dashboard\/live$/)
      expect(await page.getByText("Live mode").count()).toBe(1)
      expect(await page.locator(".stat", { hasText: "Gross volume" }).innerText()).toContain("AED 0.00")
      await page.getByRole("link", { name: "Switch to test data" }).click()
      await page.waitForURL(/\/dashboard\/test$/)
      await page.getByRole("button", { name: "Sign out" }).click()
      await page.waitForURL(/\/dashboard\/login$/)
      await page.goto(`${server.baseUrl}/dashboard/test`)
      expect(page.url()).toMatch(/\/dashboard\/login$/)
      expect(consoleErrors).toEqual([])
    } finally {
      await receiver.close()
    }
  }, 90_000)

  it("discounts: a code created (a refused form kept as typed), disabled and enabled again, shown on the subscription it started; nothing scrolls sideways at 390 px", async () => {
    const errorsBefore = consoleErrors.length
    await page.goto(`${server.baseUrl}/dashboard/login`)
    await page.getByLabel("E-mail").fill("layla@dunecoffee.ae")
    await page.getByLabel("Password").fill("dune coffee roasters 2026")
    await page.getByRole("button", { name: "Sign in" }).click()
    await page.waitForURL(/\/dashboard\/test$/)
    await page.getByRole("link", { name: "Discounts" }).click()
    await page.waitForURL(/\/dashboard\/test\/discounts$/)
    expect(await page.getByText("No discounts yet.").count()).toBe(1)

    // A percentage with three decimals is refused, and every field comes back as typed.
    await page.getByLabel(/^Code/).fill("Welcome-15")
    await page.getByLabel(/^Name/).fill("Welcome offer")
    await page.getByLabel(/^Percentage/).fill("15.125")
    await page.getByLabel(/^Subscription cycles/).fill("2")
    await page.getByLabel("Coffee club").check()
    await page.getByRole("button", { name: "Create discount" }).click()
    await page.waitForLoadState("load")
    expect(await page.getByRole("alert").innerText()).toBe("Enter the percentage off, 0.01 to 100 (e.g. 10 or 12.5)")
    expect(await page.getByLabel(/^Code/).inputValue()).toBe("Welcome-15")
    expect(await page.getByLabel(/^Percentage/).inputValue()).toBe("15.125")
    expect(await page.getByLabel(/^Subscription cycles/).inputValue()).toBe("2")
    expect(await page.getByLabel("Coffee club").isChecked()).toBe(true)
    await page.getByLabel(/^Percentage/).fill("15")
    await page.getByRole("button", { name: "Create discount" }).click()
    expect(await page.getByRole("status").innerText()).toBe("Created the discount Welcome-15.")
    const row = page.locator("tr", { hasText: "Welcome-15" })
    expect(await row.locator("td").nth(1).innerText()).toBe("15 %\nCoffee club\n2 billing cycles")

    // Disabled: a checkout cannot take it; enabled again: it can.
    await row.getByRole("button", { name: "Disable" }).click()
    expect(await page.getByRole("status").innerText()).toBe("Disabled Welcome-15: it can no longer be redeemed.")
    const club = ((await ok(server.baseUrl, key, "GET", "/products?billing=recurring")).items as Array<any>)[0]
    const refused = await fetch(`${server.baseUrl}/api/v1/checkout_sessions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ product_cart: [{ product_id: club.product_id }], discount_code: "welcome-15" })
    })
    expect(refused.status).toBe(400)
    await page.locator("tr", { hasText: "Welcome-15" }).getByRole("button", { name: "Enable" }).click()
    expect(await page.getByRole("status").innerText()).toBe("Welcome-15 can be redeemed again.")

    // A subscription started with it shows the discount and the renewals it still takes off.
    const session = await ok(server.baseUrl, key, "POST", "/checkout_sessions", {
      product_cart: [{ product_id: club.product_id }],
      discount_code: "WELCOME-15"
    })
    expect(session.total_amount).toBe(3_825)
    await page.goto(session.checkout_url)
    await payHere("AED 38.25")
    const subscription = ((await ok(server.baseUrl, key, "GET", "/subscriptions?status=active")).items as Array<any>)[0]
    expect(subscription.discounts).toMatchObject([{ code: "Welcome-15", subscription_cycles: 2, cycles_remaining: 1 }])
    await page.goto(`${server.baseUrl}/dashboard/test/subscriptions/${subscription.subscription_id}`)
    expect(await page.getByTestId("subscription-discount").innerText()).toBe("15 % off the next renewal")
    await page.goto(`${server.baseUrl}/dashboard/test/discounts`)
    expect(await page.locator("tr", { hasText: "Welcome-15" }).getByTestId("used").innerText()).toBe("1 used")

    for (const [path, name] of [["/dashboard/test/discounts", "discounts"], [`/dashboard/test/subscriptions/${subscription.subscription_id}`, "subscription"]] as const) {
      await page.goto(`${server.baseUrl}${path}`)
      for (const width of [390, 1280]) {
        await page.setViewportSize({ width, height: 900 })
        const widths = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }))
        expect(widths.scroll, `${path} at ${width} px`).toBeLessThanOrEqual(widths.inner)
        await page.screenshot({ path: join(output, `dashboard-${name}-${width}.png`), fullPage: true })
      }
    }
    await page.setViewportSize({ width: 1000, height: 900 })
    await page.getByRole("link", { name: "Audit log" }).click()
    for (const action of ["discount.create", "discount.disable", "discount.enable"]) {
      expect(await page.locator("td", { hasText: action }).count(), action).toBeGreaterThanOrEqual(1)
    }
    // The refused form answers 400 (as every refused form does): Chromium reports that load, and nothing else.
    expect(consoleErrors.slice(errorsBefore)).toEqual(["Failed to load resource: the server responded with a status of 400 (Bad Request)"])
  }, 60_000)

  it("a plan change: the product's policy set in its form, a change previewed and confirmed charges what the preview showed, a scheduled change cancelled; every page fits 390 px", async () => {
    const accountId = /default account (acct_[0-9a-f]{32})/.exec(server.stdout())![1]!
    const made = await runFils(["users", "create", "--account", accountId, "--email", "omar@dunecoffee.ae", "--role", "admin"], env)
    expect(made.code, made.stderr).toBe(0)
    const basic = await ok(server.baseUrl, key, "POST", "/products", { name: "Basic beans", price: 10_000, currency: "AED", billing: "recurring", billing_interval: "month" })
    const session = await ok(server.baseUrl, key, "POST", "/checkout_sessions", { product_cart: [{ product_id: basic.product_id }] })
    expect((await postCheckoutForm(server.baseUrl, session.session_id, { card_number: "4242424242424242" })).status).toBe(200)
    const id = (await ok(server.baseUrl, key, "GET", `/checkout_sessions/${session.session_id}`)).subscription_id as string
    const tab = await (await browser.newContext({ viewport: { width: 390, height: 900 } })).newPage()
    /** The page at 390 px (nothing scrolls sideways) in a screenshot, and at 1280 px too when `wide`. */
    const shoot = async (name: string, wide = false) => {
      for (const width of wide ? [390, 1280] : [390]) {
        await tab.setViewportSize({ width, height: 900 })
        const widths = await tab.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }))
        expect(widths.scroll, `${name} at ${width} px`).toBeLessThanOrEqual(widths.inner)
        await tab.screenshot({ path: join(output, `${name}-${width}.png`), fullPage: true })
      }
    }
    try {
      await tab.goto(JSON.parse(made.stdout).sign_in_url.replace(/^http:\/\/[^/]+/, server.baseUrl))
      await tab.getByLabel("New password").fill("operations password 2026")
      await tab.getByRole("button", { name: "Set password and sign in" }).click()
      await tab.waitForURL(/\/dashboard\/test$/)

      // Pro, with its policy: upgrades prorated now, downgrades at the next billing date; offered in the portal.
      await tab.goto(`${server.baseUrl}/dashboard/test/products`)
      await tab.getByLabel("Name", { exact: false }).first().fill("Pro beans")
      await tab.getByLabel("Price in AED").fill("300.00")
      await tab.getByLabel("Billing").selectOption("month")
      await tab.getByLabel("An upgrade to it charges").selectOption("prorated_immediately")
      await tab.getByLabel("An upgrade takes effect").selectOption("immediately")
      await tab.getByLabel("A downgrade to it charges").selectOption("full_immediately")
      await tab.getByLabel("A downgrade takes effect").selectOption("next_billing_date")
      await tab.getByLabel("Offered in the customer portal").check()
      await shoot("dashboard-product-new")
      await tab.getByRole("button", { name: "Create product" }).click()
      await tab.getByRole("link", { name: "Pro beans", exact: true }).click()
      expect(await tab.locator("main").innerText()).toContain("upgrades prorated_immediately, immediately; downgrades full_immediately, next_billing_date")
      await shoot("dashboard-product-policy")

      // The change, previewed with the product's policy, then confirmed.
      await tab.goto(`${server.baseUrl}/dashboard/test/subscriptions/${id}`)
      await tab.getByRole("link", { name: "Change plan" }).click()
      await tab.getByLabel("New product").selectOption({ label: "Pro beans: AED 300.00 every month" })
      await shoot("dashboard-change-plan")
      await tab.getByRole("button", { name: "Preview the change" }).click()
      const charged = await tab.locator("#charged-now").innerText()
      expect(await tab.locator("main").innerText()).toContain("prorated_immediately: the new plan now, less the old plan's unused time")
      await shoot("dashboard-change-preview", true)
      await tab.getByRole("button", { name: `Confirm: charge ${charged} now` }).click()
      expect(await tab.getByRole("status").innerText()).toBe(`Changed to Pro beans × 1; charged ${charged}.`)
      const update = ((await ok(server.baseUrl, key, "GET", `/payments?limit=100`)).items as Array<any>)
        .filter((p) => p.subscription_id === id && p.billing_reason === "subscription_update")
      expect(update.map((p) => [p.status, `AED ${(p.total_amount / 100).toFixed(2)}`])).toEqual([["succeeded", charged]])

      // Back to Basic at the next billing date (Basic has no policy: the mode is chosen), then cancelled.
      await tab.getByRole("link", { name: "Change plan" }).click()
      await tab.getByLabel("New product").selectOption({ label: "Basic beans: AED 100.00 every month" })
      await tab.getByLabel("Billing mode").selectOption("full_immediately")
      await tab.getByLabel("Takes effect").selectOption("next_billing_date")
      await tab.getByRole("button", { name: "Preview the change" }).click()
      await tab.getByRole("button", { name: "Confirm: schedule the change" }).click()
      expect(await tab.getByRole("status").innerText()).toMatch(/^The change to Basic beans × 1 is scheduled for /)
      expect(await tab.locator("tr", { hasText: "Scheduled change" }).innerText()).toContain("Basic beans × 1: AED 100.00 every month")
      await shoot("dashboard-subscription-scheduled")
      await tab.getByRole("link", { name: "Cancel scheduled change" }).click()
      expect(await tab.locator("main").innerText()).toContain("will not be made")
      await shoot("dashboard-cancel-scheduled")
      await tab.getByRole("button", { name: "Cancel the scheduled change" }).click()
      expect(await tab.getByRole("status").innerText()).toMatch(/^The scheduled change was cancelled/)
      expect(await ok(server.baseUrl, key, "GET", `/subscriptions/${id}`)).toMatchObject({ product_id: expect.any(String), scheduled_change: null, recurring_amount: 30_000 })
      await tab.goto(`${server.baseUrl}/dashboard/audit`)
      for (const action of ["subscription.change_plan", "subscription.cancel_scheduled_change"]) {
        expect(await tab.locator("td", { hasText: action }).count(), action).toBeGreaterThanOrEqual(1)
      }
    } finally {
      await tab.context().close()
    }
  }, 60_000)

  it("a customer's test clock: advanced from its form (a refused time kept as typed), the renewal shown; fits 390 px", async () => {
    const accountId = /default account (acct_[0-9a-f]{32})/.exec(server.stdout())![1]!
    const made = await runFils(["users", "create", "--account", accountId, "--email", "noor@dunecoffee.ae", "--role", "admin"], env)
    expect(made.code, made.stderr).toBe(0)
    const clock = await ok(server.baseUrl, key, "POST", "/test_clocks", { frozen_time: "2030-01-31T09:00:00Z", name: "Renewals" })
    const customer = await ok(server.baseUrl, key, "POST", "/customers", { email: "clock@example.ae", name: "Sara Clock", test_clock_id: clock.test_clock_id })
    const product = await ok(server.baseUrl, key, "POST", "/products", { name: "Clock beans", price: 7_000, currency: "AED", billing: "recurring", billing_interval: "month" })
    const session = await ok(server.baseUrl, key, "POST", "/checkout_sessions", { product_cart: [{ product_id: product.product_id }], customer: { customer_id: customer.customer_id } })
    expect((await postCheckoutForm(server.baseUrl, session.session_id, { card_number: "4242424242424242", email: "clock@example.ae" })).status).toBe(200)
    const tab = await (await browser.newContext({ viewport: { width: 390, height: 900 } })).newPage()
    const shoot = async (name: string) => {
      for (const width of [390, 1280]) {
        await tab.setViewportSize({ width, height: 900 })
        const widths = await tab.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }))
        expect(widths.scroll, `${name} at ${width} px`).toBeLessThanOrEqual(widths.inner)
        await tab.screenshot({ path: join(output, `${name}-${width}.png`), fullPage: true })
      }
    }
    try {
      await tab.goto(JSON.parse(made.stdout).sign_in_url.replace(/^http:\/\/[^/]+/, server.baseUrl))
      await tab.getByLabel("New password").fill("clock password 2026 ok")
      await tab.getByRole("button", { name: "Set password and sign in" }).click()
      await tab.waitForURL(/\/dashboard\/test$/)
      await tab.goto(`${server.baseUrl}/dashboard/test/customers/${customer.customer_id}`)
      const card = tab.locator(".card", { hasText: "Test clock" })
      expect(await card.innerText()).toContain("2030-01-31T09:00:00.000Z")
      expect(await card.innerText()).toContain("Ready")
      // Prefilled a month on; a time that is not one is refused, kept as typed, nothing moved.
      expect(await tab.getByLabel("Advance to (ISO 8601, e.g. a month on)").inputValue()).toBe("2030-02-28T09:00:00.000Z")
      await tab.getByLabel("Advance to (ISO 8601, e.g. a month on)").fill("next month")
      await tab.getByRole("button", { name: "Advance clock" }).click()
      expect(await tab.getByRole("alert").innerText()).toContain("The clock was not advanced")
      expect(await tab.getByLabel("Advance to (ISO 8601, e.g. a month on)").inputValue()).toBe("next month")
      await shoot("dashboard-test-clock-refused")
      await tab.getByLabel("Advance to (ISO 8601, e.g. a month on)").fill("2030-03-01T00:00:00Z")
      await tab.getByRole("button", { name: "Advance clock" }).click()
      expect(await tab.getByRole("status").innerText()).toBe("Test clock advanced to 2030-03-01T00:00:00.000Z.")
      expect(await tab.locator(".card", { hasText: "Payments" }).locator("tr").count()).toBe(2)
      await shoot("dashboard-test-clock")
      const renewed = ((await ok(server.baseUrl, key, "GET", "/events?type=subscription.renewed&limit=100")).items as Array<any>)
        .filter((e) => e.data.customer.customer_id === customer.customer_id)
      expect(renewed.map((e) => e.data.current_period_start)).toEqual(["2030-02-28T09:00:00.000Z"])
    } finally {
      await tab.context().close()
    }
  }, 60_000)

  it("request logs: the mode's API requests filtered, a refused filter kept as typed, a line leading to the event it caused; fits 390 and 1280 px", async () => {
    const send = (method: string, path: string, id: string, body?: unknown) =>
      fetch(`${server.baseUrl}/api/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, "x-request-id": id, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) })
      })
    const plan = await ok(server.baseUrl, key, "POST", "/products", { name: "Log beans", price: 4_000, currency: "AED", billing: "recurring", billing_interval: "month" })
    const session = await ok(server.baseUrl, key, "POST", "/checkout_sessions", { product_cart: [{ product_id: plan.product_id }] })
    expect((await postCheckoutForm(server.baseUrl, session.session_id, { card_number: "4242424242424242" })).status).toBe(200)
    const subscription = (await ok(server.baseUrl, key, "GET", `/checkout_sessions/${session.session_id}`)).subscription_id as string
    expect((await send("PATCH", `/subscriptions/${subscription}`, "dash-cancel-1", { status: "cancelled" })).status).toBe(200)
    expect((await send("GET", "/products/pdt_0123456789abcdef0123456789abcdef", "dash-missing-1")).status).toBe(404)
    await waitFor("the lines written", async () =>
      (await ok(server.baseUrl, key, "GET", "/request_logs?request_id=dash-missing-1")).items.length === 1, 10_000)
    const accountId = /default account (acct_[0-9a-f]{32})/.exec(server.stdout())![1]!
    const made = await runFils(["users", "create", "--account", accountId, "--email", "rania@dunecoffee.ae", "--role", "developer"], env)
    expect(made.code, made.stderr).toBe(0)
    const phone = await browser.newContext({ viewport: { width: 390, height: 900 } })
    const page = await phone.newPage()
    const shoot = async (name: string) => {
      for (const width of [390, 1280]) {
        await page.setViewportSize({ width, height: 900 })
        const widths = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }))
        expect(widths.scroll, `${name} at ${width} px`).toBeLessThanOrEqual(widths.inner)
        await page.screenshot({ path: join(output, `${name}-${width}.png`), fullPage: true })
      }
    }
    try {
      await page.goto(JSON.parse(made.stdout).sign_in_url.replace(/^http:\/\/[^/]+/, server.baseUrl))
      await page.getByLabel("New password").fill("developer password 2026")
      await page.getByRole("button", { name: "Set password and sign in" }).click()
      await page.waitForURL(/\/dashboard\/test$/)
      await page.goto(`${server.baseUrl}/dashboard/test/developers`)
      await page.getByRole("link", { name: "Request logs" }).click()
      await page.waitForURL(/\/developers\/logs$/)
      const all = await page.locator("main").innerText()
      expect(all).toContain(`PATCH /api/v1/subscriptions/${subscription}`)
      expect(all).toContain("GET /api/v1/products/pdt_0123456789abcdef0123456789abcdef")

      await page.getByLabel("Status (404, or 4xx)").fill("4xx")
      await page.getByRole("button", { name: "Filter" }).click()
      const failed = await page.locator("tbody").innerText()
      expect(failed).toContain("NOT_FOUND")
      expect(failed).not.toContain("PATCH")
      await shoot("dashboard-request-logs")

      // Refused, not altered: the filter comes back as typed with the reason.
      await page.getByLabel("Status (404, or 4xx)").fill("4x")
      await page.getByRole("button", { name: "Filter" }).click()
      expect(await page.getByRole("alert").innerText()).toContain("status")
      expect(await page.getByLabel("Status (404, or 4xx)").inputValue()).toBe("4x")

      await page.goto(`${server.baseUrl}/dashboard/test/developers/logs?path=${encodeURIComponent(`/api/v1/subscriptions/${subscription}`)}`)
      await page.locator("tbody a").first().click()
      expect(await page.locator("#request-id").innerText()).toBe("dash-cancel-1")
      expect(await page.locator("main").innerText()).toContain("Request and response bodies are never stored.")
      await shoot("dashboard-request-log")
      await page.getByRole("link", { name: /^evt_/ }).click()
      expect(await page.locator("main").innerText()).toContain("Caused by the API request dash-cancel-1")
      expect(await page.locator("pre").innerText()).toContain("subscription.cancelled")
    } finally {
      await phone.close()
    }
  }, 60_000)

  it("a long e-mail in the header wraps: nothing scrolls sideways on a 390 px phone", async () => {
    const email = "layla.haddad.head.of.operations@dunecoffeeroasters-dubai.ae"
    expect(email.length).toBeGreaterThan(38)
    const accountId = /default account (acct_[0-9a-f]{32})/.exec(server.stdout())![1]!
    const made = await runFils(["users", "create", "--account", accountId, "--email", email, "--role", "viewer"], env)
    expect(made.code, made.stderr).toBe(0)
    const signIn = (JSON.parse(made.stdout).sign_in_url as string).replace(/^http:\/\/[^/]+/, server.baseUrl)
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 } })
    try {
      const tab = await phone.newPage()
      await tab.goto(signIn)
      await tab.getByLabel("New password").fill("operations password 2026")
      await tab.getByRole("button", { name: "Set password and sign in" }).click()
      await tab.waitForURL(/\/dashboard\/test$/)
      for (const path of ["/dashboard/test", "/dashboard/test/payments", "/dashboard/settings"]) {
        await tab.goto(`${server.baseUrl}${path}`)
        expect(await tab.locator("header").innerText()).toContain(email)
        const widths = await tab.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }))
        expect(widths.scroll, `${path} at 390 px`).toBeLessThanOrEqual(widths.inner)
      }
      await tab.goto(`${server.baseUrl}/dashboard/test`)
      await tab.screenshot({ path: join(output, "dashboard-header-390.png") })
      await tab.setViewportSize({ width: 1280, height: 800 })
      await tab.screenshot({ path: join(output, "dashboard-header-1280.png") })
      const wide = await tab.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }))
      expect(wide.scroll).toBeLessThanOrEqual(wide.inner)
    } finally {
      await phone.close()
    }
  }, 60_000)

  it("two-factor sign-in: set up from the key as text (or its otpauth link) and a code; recovery codes shown once; signing in asks for a code, or takes a recovery code once; fits 390 and 1280 px", async () => {
    const email = "samir@dunecoffee.ae"
    const password = "samir's password 2026"
    const accountId = /default account (acct_[0-9a-f]{32})/.exec(server.stdout())![1]!
    const made = await runFils(["users", "create", "--account", accountId, "--email", email, "--role", "admin"], env)
    expect(made.code, made.stderr).toBe(0)
    const context2 = await browser.newContext({ viewport: { width: 1280, height: 900 } })
    try {
      const tab = await context2.newPage()
      const fits = async (what: string) => {
        for (const width of [390, 1280]) {
          await tab.setViewportSize({ width, height: 900 })
          const widths = await tab.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }))
          expect(widths.scroll, `${what} at ${width} px`).toBeLessThanOrEqual(widths.inner)
          await tab.screenshot({ path: join(output, `${what}-${width}.png`), fullPage: true })
        }
      }
      await tab.goto((JSON.parse(made.stdout).sign_in_url as string).replace(/^http:\/\/[^/]+/, server.baseUrl))
      await tab.getByLabel("New password").fill(password)
      await tab.getByRole("button", { name: "Set password and sign in" }).click()
      await tab.waitForURL(/\/dashboard\/test$/)
      await tab.goto(`${server.baseUrl}/dashboard/settings`)
      await fits("dashboard-settings")
      await tab.getByRole("link", { name: "Set up two-factor sign-in" }).click()
      await tab.getByLabel("Your password, to set it up").fill(password)
      await tab.getByRole("button", { name: "Set up two-factor sign-in" }).click()
      await tab.waitForLoadState("load")
      const secret = (await tab.locator("#totp-secret").innerText()).replace(/ /g, "")
      expect(secret).toMatch(/^[A-Z2-7]{32}$/)
      const uri = (await tab.locator("#totp-uri").getAttribute("href"))!
      expect(uri).toMatch(new RegExp(`^otpauth://totp/Fils%20\\(.*\\):samir%40dunecoffee\\.ae\\?secret=${secret}&`))
      // The QR code to scan is that same link, drawn (an app reads it as it would the link), named for a screen reader.
      const qr = tab.getByRole("img", { name: "A QR code of the key, to scan with your authenticator app" })
      const drawn = / d="([^"]+)"/.exec(renderSVG(uri, { border: 2 }))![1]
      expect(await qr.locator("svg path").getAttribute("d")).toBe(drawn)
      expect((await qr.boundingBox())!.width).toBeGreaterThan(150)
      await fits("dashboard-two-factor-setup")
      // Each code once: the next is of a later step (the server accepts one step either side of now).
      let used = 0
      const code = () => {
        used = Math.max(Math.floor(Date.now() / 30_000), used + 1)
        return hotp(fromBase32(secret), used)
      }
      await tab.getByLabel("6-digit code").fill(code())
      await tab.getByRole("button", { name: "Turn on" }).click()
      await tab.waitForLoadState("load")
      const recovery = await tab.locator("#recovery-codes li").allInnerTexts()
      expect(recovery).toHaveLength(10)
      await fits("dashboard-two-factor-codes")

      const signIn = async () => {
        await tab.getByRole("button", { name: "Sign out" }).click()
        await tab.waitForURL(/\/dashboard\/login$/)
        await tab.getByLabel("E-mail").fill(email)
        await tab.getByLabel("Password").fill(password)
        await tab.getByRole("button", { name: "Sign in" }).click()
        await tab.waitForURL(/\/dashboard\/login\/code$/)
      }
      const second = async (typed: string) => {
        await tab.getByLabel("Code").fill(typed)
        await tab.getByRole("button", { name: "Sign in" }).click()
        await tab.waitForLoadState("load")
      }
      await signIn()
      await fits("dashboard-sign-in-code")
      await tab.goto(`${server.baseUrl}/dashboard/test`)
      expect(tab.url(), "the password alone opens nothing").toMatch(/\/dashboard\/login$/)
      await tab.goBack()
      await second(hotp(fromBase32(secret), used)) // the code just used
      expect(await tab.getByRole("alert").innerText()).toContain("That code is not right")
      await fits("dashboard-sign-in-code-refused")
      await second(code())
      await tab.waitForURL(/\/dashboard\/test$/)

      await signIn()
      await second(recovery[0]!)
      await tab.waitForURL(/\/dashboard\/test$/)
      await signIn()
      await second(recovery[0]!)
      expect(await tab.getByRole("alert").innerText(), "a recovery code works once").toContain("That code is not right")
      await second(recovery[1]!)
      await tab.waitForURL(/\/dashboard\/test$/)
    } finally {
      await context2.close()
    }
  }, 90_000)
})
