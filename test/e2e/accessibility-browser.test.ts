/**
 * Every page a merchant or a customer opens, checked in Chromium at a phone's width (390 px) and a desktop's (1280
 * px): axe-core (Deque's rules for WCAG 2 A and AA: contrast, labels, names, landmarks…) finds no violation, and
 * nothing scrolls sideways. One server, one browser; a page is one line of `pages`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { ensureOutputDir, launchChromium } from "../support/browser.js"
import { runFils, type Served, serveFils } from "../support/cli.js"
import { openPortalLink } from "../support/portal.js"
import { ok, postCheckoutForm, type TestDatabase, testDatabase } from "../support/load.js"

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8")
const output = ensureOutputDir()
const widths = [390, 1280] as const
/** Screenshots of every page at both widths (to look at), when asked: they double the test's time. */
const screenshots = process.env.FILS_SCREENSHOTS === "1"

let db: TestDatabase
let server: Served
let browser: Browser
let merchant: BrowserContext
let customer: BrowserContext
let key = ""

/** What the pages' paths are made of: the objects seeded below. */
interface Seeded {
  readonly paymentId: string
  readonly subscriptionId: string
  readonly customerId: string
  readonly productId: string
  readonly sessionId: string
  readonly openCheckout: string
  readonly eventId: string
  readonly webhookId: string
  /** A portal link not yet opened (its page offers the button that opens it). */
  readonly portalLink: string
  /** The subscription's first payment, whose receipt its customer opens in the portal. */
  readonly receiptId: string
}
let seeded: Seeded

/** A page to check: its name (in messages and screenshots), who opens it, and its path. */
type Checked = readonly [name: string, who: "merchant" | "customer", path: (s: Seeded) => string]

const pages: ReadonlyArray<Checked> = [
  ["dashboard-sign-in", "customer", () => "/dashboard/login"],
  ["dashboard-home", "merchant", () => "/dashboard/test"],
  ["dashboard-home-live-empty", "merchant", () => "/dashboard/live"],
  ["dashboard-payments", "merchant", () => "/dashboard/test/payments"],
  ["dashboard-payments-refused", "merchant", () => "/dashboard/test/payments?from=2026-13-01"],
  ["dashboard-payment", "merchant", (s) => `/dashboard/test/payments/${s.paymentId}`],
  ["dashboard-refund-confirm", "merchant", (s) => `/dashboard/test/payments/${s.paymentId}/refund?amount=10.00&reason=requested_by_customer`],
  ["dashboard-subscriptions", "merchant", () => "/dashboard/test/subscriptions"],
  ["dashboard-subscription", "merchant", (s) => `/dashboard/test/subscriptions/${s.subscriptionId}`],
  ["dashboard-cancel-confirm", "merchant", (s) => `/dashboard/test/subscriptions/${s.subscriptionId}/cancel`],
  ["dashboard-change-plan", "merchant", (s) => `/dashboard/test/subscriptions/${s.subscriptionId}/change-plan`],
  ["dashboard-customers", "merchant", () => "/dashboard/test/customers"],
  ["dashboard-customer", "merchant", (s) => `/dashboard/test/customers/${s.customerId}`],
  ["dashboard-invoices", "merchant", () => "/dashboard/test/invoices"],
  ["dashboard-credit-notes", "merchant", () => "/dashboard/test/credit-notes"],
  ["dashboard-einvoices", "merchant", () => "/dashboard/test/einvoices"],
  ["dashboard-products", "merchant", () => "/dashboard/test/products"],
  ["dashboard-product", "merchant", (s) => `/dashboard/test/products/${s.productId}`],
  ["dashboard-archive-confirm", "merchant", (s) => `/dashboard/test/products/${s.productId}/archive`],
  ["dashboard-discounts", "merchant", () => "/dashboard/test/discounts"],
  ["dashboard-checkout-sessions", "merchant", () => "/dashboard/test/checkout-sessions"],
  ["dashboard-checkout-session", "merchant", (s) => `/dashboard/test/checkout-sessions/${s.sessionId}`],
  ["dashboard-developers", "merchant", () => "/dashboard/test/developers"],
  ["dashboard-webhook", "merchant", (s) => `/dashboard/test/developers/webhooks/${s.webhookId}`],
  ["dashboard-webhook-delete", "merchant", (s) => `/dashboard/test/developers/webhooks/${s.webhookId}/delete`],
  ["dashboard-request-logs", "merchant", () => "/dashboard/test/developers/logs"],
  ["dashboard-events", "merchant", () => "/dashboard/test/events"],
  ["dashboard-exports", "merchant", () => "/dashboard/test/exports"],
  ["dashboard-exports-refused", "merchant", () => "/dashboard/test/exports/csv?kind=everything&from=2026-02-30&to="],
  ["dashboard-event", "merchant", (s) => `/dashboard/test/events/${s.eventId}`],
  ["dashboard-audit", "merchant", () => "/dashboard/audit"],
  ["dashboard-settings", "merchant", () => "/dashboard/settings"],
  ["dashboard-two-factor", "merchant", () => "/dashboard/two-factor"],
  ["checkout", "customer", (s) => s.openCheckout],
  ["portal-link", "customer", (s) => s.portalLink],
  ["portal", "customer", () => "/portal"],
  ["portal-card", "customer", (s) => `/portal/subscriptions/${s.subscriptionId}/card`],
  ["portal-receipt", "customer", (s) => `/portal/receipts/${s.receiptId}`],
  ["portal-cancel-confirm", "customer", (s) => `/portal/subscriptions/${s.subscriptionId}/cancel-at-period-end`],
  // The customer's pages in Arabic (right to left): the switch is remembered, so every page after it is Arabic.
  ["checkout-ar", "customer", (s) => `${s.openCheckout}?lang=ar`],
  ["portal-ar", "customer", () => "/portal"],
  ["portal-card-ar", "customer", (s) => `/portal/subscriptions/${s.subscriptionId}/card`],
  ["portal-receipt-ar", "customer", (s) => `/portal/receipts/${s.receiptId}`],
  ["portal-cancel-confirm-ar", "customer", (s) => `/portal/subscriptions/${s.subscriptionId}/cancel-at-period-end`]
]

/**
 * The dashboard in Arabic: its own switch (`?lang=ar` on the first page) is remembered in its own cookie, so every
 * dashboard page after it is Arabic, right to left.
 */
const arabicDashboard: ReadonlyArray<Checked> = pages
  .filter(([name]) => name.startsWith("dashboard-"))
  .map(([name, who, path], i) => [`${name}-ar`, who, i === 0 || name === "dashboard-home" ? (s) => `${path(s)}${path(s).includes("?") ? "&" : "?"}lang=ar` : path])

beforeAll(async () => {
  db = await testDatabase()
  const env = { DATABASE_URL: db.url, FILS_DATA_DIR: undefined, FILS_OWNER_EMAIL: "layla@dunecoffee.ae" }
  ;[server, browser] = await Promise.all([
    serveFils(env, 60_000),
    launchChromium()
  ])
  key = /Test key\s+(sk_test_[A-Za-z0-9_-]+)/.exec(server.stdout())![1]!
  const link = /Sign in\s+(http\S+)/.exec(server.stdout())![1]!

  // A payment partly refunded, a subscription, an endpoint, an open checkout and a customer's portal.
  const beans = await ok(server.baseUrl, key, "POST", "/products", { name: "Single origin beans", price: 34_900, currency: "AED" })
  const club = await ok(server.baseUrl, key, "POST", "/products", { name: "Coffee club", price: 4_500, currency: "AED", billing: "recurring", billing_interval: "month" })
  const paid = await ok(server.baseUrl, key, "POST", "/checkout_sessions", { product_cart: [{ product_id: beans.product_id }] })
  expect((await postCheckoutForm(server.baseUrl, paid.session_id, { card_number: "4242424242424242" })).status).toBe(200)
  const payment = (await ok(server.baseUrl, key, "GET", "/payments")).items[0]
  const refunded = await runFils(["refunds", "create", payment.payment_id, "--amount", "4900"], env)
  expect(refunded.code, refunded.stderr).toBe(0)
  const subscribed = await ok(server.baseUrl, key, "POST", "/checkout_sessions", { product_cart: [{ product_id: club.product_id }] })
  expect((await postCheckoutForm(server.baseUrl, subscribed.session_id, { card_number: "4242424242424242", email: "omar@example.ae" })).status).toBe(200)
  const subscription = (await ok(server.baseUrl, key, "GET", "/subscriptions")).items[0]
  const receiptId = (await ok(server.baseUrl, key, "GET", "/payments")).items[0].payment_id as string
  const webhook = await ok(server.baseUrl, key, "POST", "/webhooks", { url: "https://shop.example.ae/hooks", event_types: ["payment.succeeded"] })
  const open = await ok(server.baseUrl, key, "POST", "/checkout_sessions", { product_cart: [{ product_id: beans.product_id }] })
  const portal = async () =>
    (await ok(server.baseUrl, key, "POST", "/customer_portal_sessions", { customer_id: subscription.customer.customer_id })).url as string
  seeded = {
    paymentId: payment.payment_id,
    subscriptionId: subscription.subscription_id,
    customerId: payment.customer.customer_id,
    productId: beans.product_id,
    sessionId: paid.session_id,
    openCheckout: new URL(open.checkout_url).pathname,
    eventId: (await ok(server.baseUrl, key, "GET", "/events")).items[0].event_id,
    webhookId: webhook.webhook_id,
    portalLink: new URL(await portal()).pathname,
    receiptId
  }

  merchant = await browser.newContext()
  const tab = await merchant.newPage()
  await tab.goto(link)
  await tab.getByLabel("New password").fill("dune coffee roasters 2026")
  await tab.getByRole("button", { name: "Set password and sign in" }).click()
  await tab.waitForURL(/\/dashboard\/test$/)
  await tab.close()
  customer = await browser.newContext()
  const [name, value] = (await openPortalLink(await portal())).split("=") as [string, string]
  await customer.addCookies([{ name, value, url: server.baseUrl }])
}, 120_000)

afterAll(async () => {
  await merchant?.close()
  await customer?.close()
  await browser?.close()
  await server?.stop("SIGTERM")
  await db?.close()
}, 30_000)

interface Violation {
  readonly id: string
  readonly help: string
  readonly nodes: ReadonlyArray<{ readonly target: ReadonlyArray<unknown>; readonly failureSummary?: string }>
}

/**
 * axe-core's WCAG 2 A and AA rules over the page as shown, injected through `evaluate` (the page's CSP allows no script)
 * once per document.
 */
const violationsOf = async (page: Page): Promise<ReadonlyArray<string>> => {
  if (!(await page.evaluate(() => typeof (globalThis as { axe?: { run?: unknown } }).axe?.run === "function"))) await page.evaluate(axeSource)
  const found = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run: (context: unknown, options: unknown) => Promise<{ violations: Array<Violation> }> } }).axe
    const result = await axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"] },
      resultTypes: ["violations"]
    })
    return result.violations.map((v) => ({ id: v.id, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })) }))
  })
  return found.flatMap((v) => v.nodes.map((n) => `${v.id} (${v.help}): ${JSON.stringify(n.target)} ${n.failureSummary ?? ""}`))
}

/**
 * A dashboard page by keyboard: the first Tab shows a "skip to content" link (with a visible focus ring) that moves
 * focus to the page's main content; the navigation marks the page's section as current.
 */
const keyboardProblems = async (page: Page): Promise<ReadonlyArray<string>> => {
  const problems: Array<string> = []
  await page.keyboard.press("Tab")
  const skip = await page.evaluate(() => {
    const focused = document.activeElement as HTMLElement
    const style = getComputedStyle(focused)
    const box = focused.getBoundingClientRect()
    return {
      text: focused.textContent,
      href: focused.getAttribute("href"),
      ring: style.outlineStyle !== "none" && parseFloat(style.outlineWidth) >= 2,
      shown: box.width > 0 && box.top >= 0 && box.bottom <= window.innerHeight
    }
  })
  if (skip.href !== "#main" || !skip.shown) {
    problems.push(`the first Tab reaches ${JSON.stringify(skip)}, not a visible skip link`)
  } else {
    if (!skip.ring) problems.push("the focused skip link has no visible focus ring")
    await page.keyboard.press("Enter")
    if (await page.evaluate(() => document.activeElement?.id) !== "main") problems.push("the skip link does not move focus to the main content")
  }
  const current = await page.locator(`body > nav [aria-current="page"]`).count()
  if (current !== 1) problems.push(`${current} navigation links are marked aria-current="page"`)
  return problems
}

describe("every page, at 390 and 1280 px", () => {
  it("has no WCAG 2 A/AA violation and never scrolls sideways", async () => {
    const tabs = { merchant: await merchant.newPage(), customer: await customer.newPage() }
    const problems: Array<string> = []
    for (const [name, who, path] of [...pages, ...arabicDashboard]) {
      const tab = tabs[who]
      // One load per page, checked at each width in turn: the same document laid out again, as a window resized (the
      // pages run no script of their own). Nothing before the keyboard check, the last one at 1280 px, clicks, types
      // or focuses, so its first Tab starts from the page as loaded.
      const answer = await tab.goto(`${server.baseUrl}${path(seeded)}`)
      expect(answer?.status(), `${name}: ${tab.url()}`).toBeLessThan(500)
      for (const width of widths) {
        await tab.setViewportSize({ width, height: 900 })
        const sizes = await tab.evaluate(() => ({
          scroll: document.documentElement.scrollWidth,
          inner: window.innerWidth,
          lang: document.documentElement.lang,
          dir: document.documentElement.dir
        }))
        if (name.endsWith("-ar") && (sizes.lang !== "ar" || sizes.dir !== "rtl")) problems.push(`${name} is not in Arabic, right to left (${sizes.lang}, ${sizes.dir})`)
        if (sizes.scroll > sizes.inner) problems.push(`${name} at ${width} px scrolls sideways (${sizes.scroll} px wide)`)
        // Nothing cut off inside a box that scrolls on its own either.
        const offScreen = await tab.evaluate(() =>
          Array.from(document.querySelectorAll("main *")).filter((e) => {
            const box = e.getBoundingClientRect()
            return box.right > window.innerWidth + 1 || box.left < -1
          }).map((e) => e.tagName)
        )
        if (offScreen.length > 0) problems.push(`${name} at ${width} px: ${offScreen.length} elements off-screen (${offScreen.slice(0, 5).join(", ")})`)
        if (who === "merchant" && width === 1280 && !name.endsWith("-ar")) problems.push(...(await keyboardProblems(tab)).map((p) => `${name}: ${p}`))
        for (const v of await violationsOf(tab)) problems.push(`${name} at ${width} px: ${v}`)
        if (screenshots) await tab.screenshot({ path: join(output, `a11y-${name}-${width}.png`), fullPage: true })
      }
    }
    expect(problems).toEqual([])
  }, 300_000)
})
