/**
 * The merchant's day in a real browser (issue 18, headless Chromium): the owner signs in from the server's one-time
 * link, sees the home page, creates a test key's payment on the hosted page, finds it in Payments, refunds part of
 * it, reads the audit log, switches to live data and back, and signs out. Screenshots go to test-output/.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { join } from "node:path"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { ensureOutputDir, launchChromium } from "../support/browser.js"
import { type Served, serveFils } from "../support/cli.js"
import { ok, payThroughForm, type TestDatabase, testDatabase } from "../support/load.js"

const output = ensureOutputDir()
let db: TestDatabase
let server: Served
let browser: Browser
let context: BrowserContext
let page: Page
let key = ""
let link = ""
const consoleErrors: Array<string> = []

beforeAll(async () => {
  db = await testDatabase()
  ;[server, browser] = await Promise.all([
    serveFils({ DATABASE_URL: db.url, FILS_DATA_DIR: undefined, FILS_OWNER_EMAIL: "layla@dunecoffee.ae" }, 60_000),
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

describe("the dashboard in a browser", () => {
  it("signs in from the link, sees home, finds a payment and refunds part of it", async () => {
    await page.goto(link)
    await page.getByLabel("New password").fill("dune coffee roasters 2026")
    await page.getByRole("button", { name: "Set password and sign in" }).click()
    await page.waitForURL(/\/dashboard\/test$/)
    expect(await page.getByText("Test mode").count()).toBe(1)
    const cookies = await context.cookies()
    expect(cookies.find((c) => c.name === "fils_session")).toMatchObject({ httpOnly: true, sameSite: "Lax" })

    const product = await ok(server.baseUrl, key, "POST", "/products", { name: "Single origin beans", price: 8_250, currency: "AED" })
    expect((await payThroughForm(server.baseUrl, key, product.product_id, "4242424242424242")).status).toBe(200)
    await page.reload()
    expect(await page.locator(".stat", { hasText: "Gross volume" }).innerText()).toContain("AED 82.50")
    await page.screenshot({ path: join(output, "dashboard-home.png"), fullPage: true })

    await page.getByRole("link", { name: "Payments" }).click()
    await page.locator("a code").first().click()
    await page.waitForURL(/\/payments\/pay_/)
    await page.getByLabel(/Amount in AED/).fill("20.00")
    await page.getByRole("button", { name: "Refund" }).click()
    await page.waitForLoadState("load")
    expect(await page.getByRole("status").innerText()).toBe("Refunded AED 20.00.")
    await page.screenshot({ path: join(output, "dashboard-payment.png"), fullPage: true })
    const payments = (await ok(server.baseUrl, key, "GET", "/payments")).items as Array<any>
    expect(payments[0]).toMatchObject({ status: "partially_refunded", refunded_amount: 2_000 })

    await page.getByRole("link", { name: "Audit log" }).click()
    expect(await page.locator("td", { hasText: "payment.refund" }).count()).toBe(1)

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
  }, 60_000)
})
