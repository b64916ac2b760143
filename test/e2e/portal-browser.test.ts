/**
 * The customer portal in a real browser (headless Chromium, `fils serve` on PostgreSQL): a subscription
 * paid with the 0341 card goes `on_hold` at its renewal (`fils billing run --at`); the merchant creates a portal
 * session; the customer follows it and presses its button, enters 4242 4242 4242 4242, and the subscription is active again with a succeeded
 * renewal payment and its events; the customer cancels at the period end and undoes it; opens a receipt and prints
 * it to PDF, whose text holds the amount. The link then shows a clear 410 page, as does an expired one; the merchant
 * reads the same receipt from the dashboard. Screenshots (desktop and phone) go to test-output/.
 */
import { join } from "node:path"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ensureOutputDir, launchChromium, pdfText } from "../support/browser.js"
import { runFils, type Served, serveFils } from "../support/cli.js"
import { ok, poolOn, postCheckoutForm, type TestDatabase, testDatabase } from "../support/load.js"

const output = ensureOutputDir()
let db: TestDatabase
let server: Served
let browser: Browser
let env: Record<string, string | undefined>
let key = ""
let accountId = ""
const consoleErrors: Array<string> = []

beforeAll(async () => {
  db = await testDatabase()
  env = { DATABASE_URL: db.url, FILS_DATA_DIR: undefined }
  ;[server, browser] = await Promise.all([serveFils(env, 60_000), launchChromium()])
  const made = await runFils(["accounts", "create", "--name", "Dune Coffee Roasters", "--support-email", "help@dunecoffee.ae"], env)
  expect(made.code, made.stderr).toBe(0)
  const account = JSON.parse(made.stdout)
  key = account.keys.test.secret
  accountId = account.account_id
}, 90_000)

afterAll(async () => {
  await browser?.close()
  await server?.stop("SIGTERM")
  await db?.close()
}, 30_000)

const newPage = async (width = 1000): Promise<{ context: BrowserContext; page: Page }> => {
  const context = await browser.newContext({ viewport: { width, height: 900 } })
  const page = await context.newPage()
  page.on("console", (m) => m.type() === "error" && consoleErrors.push(m.text()))
  return { context, page }
}

/** A monthly subscription for `email`, paid on the hosted page with `card`: the subscription. */
const subscribe = async (email: string, card: string) => {
  const product = await ok(server.baseUrl, key, "POST", "/products", {
    name: "Coffee club",
    price: 9900,
    currency: "AED",
    billing: "recurring",
    billing_interval: "month"
  })
  const session = await ok(server.baseUrl, key, "POST", "/checkout_sessions", {
    product_cart: [{ product_id: product.product_id }],
    customer: { email, name: "Amal Saeed" }
  })
  const paid = await postCheckoutForm(server.baseUrl, session.session_id, { card_number: card, email, name: "Amal Saeed" })
  expect(paid.status).toBe(200)
  const settled = await ok(server.baseUrl, key, "GET", `/checkout_sessions/${session.session_id}`)
  return ok(server.baseUrl, key, "GET", `/subscriptions/${settled.subscription_id}`)
}

/** The subscription's events (and its payments'), oldest first, as `[event_id, type]`. */
const eventsOf = async (id: string): Promise<Array<[string, string]>> => {
  const events = (await ok(server.baseUrl, key, "GET", "/events?limit=100")).items as Array<any>
  return events.filter((e) => e.data.subscription_id === id).reverse().map((e) => [e.event_id, e.type])
}

describe("the customer portal in a browser", () => {
  it("on hold at renewal; a new card in the portal pays it; cancel at the period end and undo; a receipt printed to PDF; the used link is gone", async () => {
    const subscription = await subscribe("amal@example.ae", "4000 0000 0000 0341")
    const id = subscription.subscription_id
    const renewal = await runFils(["billing", "run", "--at", subscription.next_billing_date], env)
    expect(renewal.code, renewal.stderr).toBe(0)
    expect(await ok(server.baseUrl, key, "GET", `/subscriptions/${id}`)).toMatchObject({ status: "on_hold", failed_payment_attempts: 1 })
    const before = new Set((await eventsOf(id)).map(([eventId]) => eventId))

    const portal = await ok(server.baseUrl, key, "POST", "/customer_portal_sessions", {
      customer_id: subscription.customer.customer_id,
      return_url: "https://dunecoffee.example/account"
    })
    expect(portal.url).toMatch(new RegExp(`^${server.baseUrl}/portal/[A-Za-z0-9_-]+$`))

    const { context, page } = await newPage()
    try {
      // The link shows a button (following it alone, as a mail scanner does, uses nothing up); the button opens it.
      expect((await page.goto(portal.url))?.status()).toBe(200)
      await page.screenshot({ path: join(output, "portal-open.png"), fullPage: true })
      const [opened] = await Promise.all([
        page.waitForNavigation(),
        page.getByRole("button", { name: "Open my account" }).click()
      ])
      expect(page.url()).toBe(`${server.baseUrl}/portal`)
      expect(opened?.status()).toBe(200)
      const cookie = (await context.cookies()).find((c) => c.name === "fils_portal")
      expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Lax", path: "/" })
      expect(await page.locator("h1").innerText()).toBe("Dune Coffee Roasters")
      expect(await page.getByRole("link", { name: "help@dunecoffee.ae" }).getAttribute("href")).toBe("mailto:help@dunecoffee.ae")
      const card = page.locator(`[data-subscription="${id}"]`)
      expect(await card.locator(".status").innerText()).toBe("Payment overdue")
      expect(await card.innerText()).toContain("Visa •••• 0341")
      expect(await card.innerText()).toContain("AED 99.00 every month")
      await page.screenshot({ path: join(output, "portal-on-hold.png"), fullPage: true })

      // A new card: the overdue renewal is charged on it at once.
      await card.getByRole("link", { name: "Update card and pay" }).click()
      for (const name of ["card_number", "exp", "cvc"]) expect(await page.locator(`input[name="${name}"]`).count()).toBe(1)
      await page.getByLabel("Card number", { exact: true }).fill("4000 0000 0000 0002")
      await page.getByLabel("Expiry (MM / YY)", { exact: true }).fill("12 / 40")
      await page.getByLabel("CVC", { exact: true }).fill("123")
      await page.getByRole("button", { name: "Save card and pay AED 99.00" }).click()
      expect(await page.getByRole("alert").innerText()).toBe("Your card was declined. Try another card.")
      expect(await ok(server.baseUrl, key, "GET", `/subscriptions/${id}`)).toMatchObject({ status: "on_hold", payment_method: { last4: "0341" } })
      await page.getByLabel("Card number", { exact: true }).fill("4242 4242 4242 4242")
      await page.getByLabel("CVC", { exact: true }).fill("123")
      await page.getByRole("button", { name: "Save card and pay AED 99.00" }).click()
      await page.waitForURL(/\/portal\?notice=card_paid$/)
      expect(await page.getByRole("status").innerText()).toContain("the overdue payment went through")
      expect(await card.locator(".status").innerText()).toBe("Active")
      expect(await card.innerText()).toContain("Visa •••• 4242")

      const after = await ok(server.baseUrl, key, "GET", `/subscriptions/${id}`)
      expect(after).toMatchObject({
        status: "active",
        failed_payment_attempts: 0,
        next_retry_at: null,
        current_period_start: subscription.next_billing_date,
        payment_method: { brand: "visa", last4: "4242" }
      })
      const payments = ((await ok(server.baseUrl, key, "GET", "/payments?limit=100")).items as Array<any>)
        .filter((p) => p.subscription_id === id)
      // (`billing run --at` dated the declined renewal a month ahead, so it lists first.)
      expect(payments.map((p) => [p.billing_reason, p.status]).sort()).toEqual([
        ["subscription_create", "succeeded"],
        ["subscription_renewal", "failed"],
        ["subscription_renewal", "succeeded"]
      ])
      const added = (await eventsOf(id)).filter(([eventId]) => !before.has(eventId)).map(([, type]) => type)
      expect(added).toEqual(["payment.succeeded", "subscription.active", "subscription.renewed"])

      // Cancel at the period end, then undo it: the same change as PATCH.
      // It asks first, on a page saying what will happen; going back changes nothing.
      await card.getByRole("link", { name: "Cancel at period end" }).click()
      await page.waitForURL(new RegExp(`/portal/subscriptions/${id}/cancel-at-period-end$`))
      expect(await page.getByTestId("confirm-cancel").innerText()).toMatch(/will end on \d{1,2} \w{3} \d{4}, at the end of the period you have paid for\. You will not be charged again\./)
      expect(await ok(server.baseUrl, key, "GET", `/subscriptions/${id}`)).toMatchObject({ cancel_at_period_end: false })
      await page.getByRole("button", { name: "Yes, cancel at period end" }).click()
      await page.waitForURL(/notice=cancel_scheduled$/)
      expect(await ok(server.baseUrl, key, "GET", `/subscriptions/${id}`)).toMatchObject({ status: "active", cancel_at_period_end: true })
      expect(await card.innerText()).toContain("you will not be charged again")
      await card.getByRole("button", { name: "Keep subscription" }).click()
      await page.waitForURL(/notice=cancel_undone$/)
      expect(await ok(server.baseUrl, key, "GET", `/subscriptions/${id}`)).toMatchObject({ status: "active", cancel_at_period_end: false })

      // The renewal's receipt, printed to PDF.
      const paidRenewal = payments.find((p) => p.billing_reason === "subscription_renewal" && p.status === "succeeded")
      await page.locator(`tr[data-payment="${paidRenewal.payment_id}"]`).getByRole("link", { name: "Receipt" }).click()
      await page.waitForURL(new RegExp(`/portal/receipts/${paidRenewal.payment_id}$`))
      expect(await page.getByTestId("amount-paid").innerText()).toBe("AED 99.00")
      await page.screenshot({ path: join(output, "portal-receipt.png"), fullPage: true })
      const text = await pdfText(await page.pdf({ format: "A4" }))
      expect(text).toContain("AED 99.00")
      expect(text).toContain(paidRenewal.payment_id)
      expect(text).toContain("Dune Coffee Roasters")
      expect(text).not.toContain("Back to your account")

      // The return link, and the link used: a clear page.
      await page.goto(`${server.baseUrl}/portal`)
      expect(await page.getByRole("link", { name: /Return to Dune Coffee Roasters/ }).getAttribute("href")).toBe("https://dunecoffee.example/account")
      const again = await newPage()
      try {
        const reused = await again.page.goto(portal.url)
        expect(reused?.status()).toBe(410)
        expect(await again.page.locator("h1").innerText()).toBe("Link already used")
        // The way to a new link: the merchant's support e-mail, and back to its site.
        expect(await again.page.getByRole("link", { name: "help@dunecoffee.ae" }).getAttribute("href")).toBe("mailto:help@dunecoffee.ae")
        expect(await again.page.getByRole("link", { name: "Return to Dune Coffee Roasters" }).getAttribute("href")).toBe("https://dunecoffee.example/account")
        await again.page.screenshot({ path: join(output, "portal-link-used.png"), fullPage: true })
        expect((await again.page.goto(`${server.baseUrl}/portal`))?.status()).toBe(401)
      } finally {
        await again.context.close()
      }
    } finally {
      await context.close()
    }
    // No CSP violation or script error; the statuses (402, 410, 401) are the pages' own.
    expect(consoleErrors.filter((e) => !e.startsWith("Failed to load resource"))).toEqual([])
  }, 90_000)

  it("changing plan: the plans offered there, a preview of today's charge confirmed and charged as shown, then a change scheduled; on a phone and a desktop", async () => {
    const subscription = await subscribe("rania@example.ae", "4242424242424242")
    const id = subscription.subscription_id
    const plus = await ok(server.baseUrl, key, "POST", "/products", {
      name: "Coffee club plus",
      description: "Two bags a month",
      price: 19900,
      currency: "AED",
      billing: "recurring",
      billing_interval: "month",
      offered_in_portal: true
    })
    const yearly = await ok(server.baseUrl, key, "POST", "/products", {
      name: "Coffee club yearly",
      price: 99000,
      currency: "AED",
      billing: "recurring",
      billing_interval: "year",
      offered_in_portal: true,
      plan_change_policy: {
        upgrade: { proration_billing_mode: "full_immediately", effective_at: "immediately" },
        downgrade: { proration_billing_mode: "do_not_bill", effective_at: "next_billing_date" }
      }
    })
    await ok(server.baseUrl, key, "POST", "/products", { name: "Staff plan", price: 100, currency: "AED", billing: "recurring", billing_interval: "month" })
    const portal = await ok(server.baseUrl, key, "POST", "/customer_portal_sessions", { customer_id: subscription.customer.customer_id })
    const { context, page } = await newPage(390)
    const fits = async (what: string) => {
      const widths = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }))
      expect(widths.scroll, what).toBeLessThanOrEqual(widths.inner)
    }
    const shoot = async (name: string) => {
      await fits(`${name} at ${page.viewportSize()!.width} px`)
      await page.screenshot({ path: join(output, `${name}-${page.viewportSize()!.width}.png`), fullPage: true })
    }
    try {
      await page.goto(portal.url)
      await page.getByRole("button", { name: "Open my account" }).click()
      await page.waitForURL(`${server.baseUrl}/portal`)
      const card = page.locator(`[data-subscription="${id}"]`)
      await shoot("portal-home-plans")
      await card.getByRole("link", { name: "Change plan" }).click()
      expect(await page.getByRole("radio").count(), "the two plans offered, not the staff plan").toBe(2)
      expect(await page.locator("fieldset.plans").innerText()).not.toContain("Staff plan")
      await shoot("portal-plans")
      await page.getByRole("radio", { name: /Coffee club plus/ }).check()
      await page.getByRole("button", { name: "Review the change" }).click()
      const today = await page.getByTestId("charged-today").innerText()
      const charged = Math.round(Number(today.replace(/^AED /, "").replace(/,/g, "")) * 100)
      // The new plan's first month less the unused part of the old one (almost all of it, just started).
      expect(charged).toBeGreaterThanOrEqual(10_000)
      expect(charged).toBeLessThan(10_100)
      expect(await page.locator("main").innerText()).toContain("If your card is declined, your plan does not change.")
      await shoot("portal-plan-preview")
      await page.setViewportSize({ width: 1280, height: 900 })
      await shoot("portal-plan-preview")
      await page.setViewportSize({ width: 390, height: 900 })
      await page.getByRole("button", { name: `Confirm and pay ${today}` }).click()
      await page.waitForURL(/\/portal\?notice=plan_changed$/)
      expect(await page.getByRole("status").innerText()).toContain("Your plan is changed")
      expect(await card.locator("h3").innerText()).toContain("Coffee club plus")
      const update = ((await ok(server.baseUrl, key, "GET", `/payments?customer_id=${subscription.customer.customer_id}`)).items as Array<any>)
        .filter((p) => p.billing_reason === "subscription_update")
      expect(update.map((p) => [p.status, p.total_amount])).toEqual([["succeeded", charged]])
      expect(await ok(server.baseUrl, key, "GET", `/subscriptions/${id}`)).toMatchObject({ product_id: plus.product_id, recurring_amount: 19900 })

      // The yearly plan costs less a day: its policy schedules the downgrade for the next payment, charging nothing now.
      await card.getByRole("link", { name: "Change plan" }).click()
      await page.getByRole("radio", { name: /Coffee club yearly/ }).check()
      await page.getByRole("button", { name: "Review the change" }).click()
      expect(await page.getByTestId("charged-today").innerText()).toBe("Nothing: AED 0.00.")
      await page.getByRole("button", { name: "Confirm the change" }).click()
      await page.waitForURL(/notice=plan_scheduled$/)
      expect(await card.innerText()).toContain("Changes to Coffee club yearly on")
      // The next payment is the new plan's, which that renewal charges.
      expect(await card.innerText()).toMatch(new RegExp(`Next payment of AED ${(yearly.price / 100).toLocaleString("en", { minimumFractionDigits: 2 })} on`))
      expect(await card.getByRole("link", { name: "Change plan" }).count(), "one change at a time").toBe(0)
      expect((await ok(server.baseUrl, key, "GET", `/subscriptions/${id}`)).scheduled_change).toMatchObject({ product_id: yearly.product_id, quantity: 1 })
      await shoot("portal-plan-scheduled")
      await page.goto(`${server.baseUrl}/portal/subscriptions/${id}/plan`)
      expect(await page.locator("main").innerText()).toContain("keep your current plan first")
      await shoot("portal-plans-refused")
      // Keeping the current plan cancels the scheduled change; the plans can be chosen again.
      await page.goto(`${server.baseUrl}/portal`)
      await card.getByRole("button", { name: "Keep Coffee club plus" }).click()
      await page.waitForURL(/notice=plan_kept$/)
      expect(await page.getByRole("status").innerText()).toContain("You keep your current plan")
      expect((await ok(server.baseUrl, key, "GET", `/subscriptions/${id}`)).scheduled_change).toBeNull()
      expect(await card.innerText()).not.toContain("Changes to Coffee club yearly")
      expect(await card.getByRole("link", { name: "Change plan" }).count()).toBe(1)
      await shoot("portal-plan-kept")
    } finally {
      await context.close()
    }
    expect(consoleErrors.filter((e) => !e.startsWith("Failed to load resource"))).toEqual([])
  }, 60_000)

  it("an expired link shows a clear 410 page; an unknown one 404", async () => {
    const subscription = await subscribe("noor@example.ae", "4242424242424242")
    const portal = await ok(server.baseUrl, key, "POST", "/customer_portal_sessions", { customer_id: subscription.customer.customer_id })
    const pool = poolOn(db.url)
    try {
      await pool.sql(`UPDATE customer_portal_sessions SET expires_at = now() - interval '1 second' WHERE customer_portal_session_id = '${portal.customer_portal_session_id}'`)
    } finally {
      await pool.close()
    }
    const { context, page } = await newPage()
    try {
      const expired = await page.goto(portal.url)
      expect(expired?.status()).toBe(410)
      expect(await page.locator("h1").innerText()).toBe("Link expired")
      expect(await page.getByRole("status").innerText()).toContain("Ask the merchant for a new one")
      const unknown = await page.goto(`${server.baseUrl}/portal/not-a-real-link`)
      expect(unknown?.status()).toBe(404)
      expect((await context.cookies()).find((c) => c.name === "fils_portal")).toBeUndefined()
    } finally {
      await context.close()
    }
  }, 60_000)

  it("on a phone (390 px) the portal and the card form fit the screen; the merchant prints the same receipt from the dashboard", async () => {
    const subscription = await subscribe("huda@example.ae", "4242424242424242")
    const portal = await ok(server.baseUrl, key, "POST", "/customer_portal_sessions", { customer_id: subscription.customer.customer_id })
    const { context, page } = await newPage(390)
    try {
      await page.goto(portal.url)
      await page.getByRole("button", { name: "Open my account" }).click()
      await page.waitForURL(`${server.baseUrl}/portal`)
      const width = () => page.evaluate(() => document.documentElement.scrollWidth)
      expect(await width()).toBeLessThanOrEqual(390)
      await page.screenshot({ path: join(output, "portal-phone.png"), fullPage: true })
      await page.getByRole("link", { name: "Update card" }).click()
      expect(await width()).toBeLessThanOrEqual(390)
      await page.screenshot({ path: join(output, "portal-card-phone.png"), fullPage: true })

      // In Arabic (the switch, remembered): right-to-left, nothing left in English but the merchant's own words, and
      // each payment's receipt link on the screen of a phone, then of a desktop.
      await page.goto(`${server.baseUrl}/portal`)
      await page.getByTestId("language-switch").click()
      await page.waitForLoadState("load")
      expect(await page.evaluate(() => [document.documentElement.lang, document.documentElement.dir])).toEqual(["ar", "rtl"])
      const englishWords = () =>
        page.evaluate(() => {
          const body = document.body.cloneNode(true) as HTMLElement
          for (const e of Array.from(body.querySelectorAll("[lang=en], bdi, h1, strong, a[href^='mailto:']"))) e.remove()
          // The merchant's product's name, in the sentences that name it.
          return (body.textContent ?? "").replace(/\S+@\S+|\bVisa\b|\b[a-z]+_[0-9a-f]{32}\b|Coffee club/g, "").match(/[A-Za-z]{2,}/g) ?? []
        })
      for (const viewport of [{ width: 390, height: 844 }, { width: 1280, height: 900 }]) {
        await page.setViewportSize(viewport)
        expect(await englishWords()).toEqual([])
        expect(await width()).toBeLessThanOrEqual(viewport.width)
        const receipt = page.getByRole("link", { name: "الإيصال" }).first()
        const box = (await receipt.boundingBox())!
        expect(box.x).toBeGreaterThanOrEqual(0)
        expect(box.x + box.width).toBeLessThanOrEqual(viewport.width)
        await page.screenshot({ path: join(output, `portal-ar-${viewport.width}.png`), fullPage: true })
      }
      await page.getByRole("link", { name: "الإيصال" }).first().click()
      await page.waitForURL(/\/portal\/receipts\//)
      expect(await page.getByTestId("amount-paid").innerText()).toContain("99.00")
      expect(await page.getByTestId("amount-paid").innerText()).toContain("د.إ.")
      expect(await englishWords()).toEqual([])
      expect(await width()).toBeLessThanOrEqual(1280)
      await page.setViewportSize({ width: 390, height: 844 })
      expect(await width()).toBeLessThanOrEqual(390)
      await page.screenshot({ path: join(output, "portal-receipt-ar-390.png"), fullPage: true })
      await page.goto(`${server.baseUrl}/portal`)
      await page.getByRole("link", { name: "الإلغاء في نهاية الفترة" }).click()
      expect(await page.getByTestId("confirm-cancel").innerText()).toContain("لن يُحصَّل منك أي مبلغ آخر")
      expect(await englishWords()).toEqual([])
      expect(await width()).toBeLessThanOrEqual(390)
      await page.screenshot({ path: join(output, "portal-cancel-ar-390.png"), fullPage: true })
      // The plans offered (the earlier test's), in Arabic too.
      await page.goto(`${server.baseUrl}/portal`)
      await page.getByRole("link", { name: "تغيير الخطة" }).click()
      expect(await page.getByRole("button", { name: "مراجعة التغيير" }).count()).toBe(1)
      expect(await englishWords()).toEqual([])
      expect(await width()).toBeLessThanOrEqual(390)
      await page.getByRole("radio").first().check()
      await page.getByRole("button", { name: "مراجعة التغيير" }).click()
      await page.waitForLoadState("load")
      expect(await englishWords()).toEqual([])
      expect(await width()).toBeLessThanOrEqual(390)
      await page.screenshot({ path: join(output, "portal-plan-preview-ar-390.png"), fullPage: true })
    } finally {
      await context.close()
    }
    // The merchant: signed in to the dashboard, the payment's receipt, as the customer sees it.
    const payment = ((await ok(server.baseUrl, key, "GET", `/payments?customer_id=${subscription.customer.customer_id}`)).items as Array<any>)[0]
    const user = await runFils(["users", "create", "--account", accountId, "--email", "owner@dunecoffee.ae", "--role", "owner"], env)
    expect(user.code, user.stderr).toBe(0)
    const signIn = new URL(JSON.parse(user.stdout).sign_in_url)
    const merchant = await newPage()
    try {
      await merchant.page.goto(`${server.baseUrl}${signIn.pathname}`)
      await merchant.page.getByLabel("New password").fill("dune coffee roasters 2026")
      await merchant.page.getByRole("button", { name: "Set password and sign in" }).click()
      await merchant.page.waitForURL(/\/dashboard\/test$/)
      await merchant.page.goto(`${server.baseUrl}/dashboard/test/payments/${payment.payment_id}`)
      await merchant.page.getByRole("link", { name: "Printable receipt" }).click()
      await merchant.page.waitForURL(/\/receipt$/)
      expect(await merchant.page.getByTestId("amount-paid").innerText()).toBe("AED 99.00")
      await merchant.page.setViewportSize({ width: 390, height: 900 })
      await merchant.page.screenshot({ path: join(output, "receipt-phone.png"), fullPage: true })
      const text = await pdfText(await merchant.page.pdf({ format: "A4" }))
      expect(text).toContain("Amal Saeed")
      expect(text).toContain(payment.payment_id)
      expect(text).not.toContain("Back to the payment")
    } finally {
      await merchant.context.close()
    }
  }, 60_000)
})
