/**
 * The hosted checkout of a VAT-registered merchant in headless Chromium: prices excluding VAT show a subtotal, the
 * VAT and the total charged (what the session's `total_amount` says); a business buyer may name itself and its TRN,
 * a mistyped TRN is refused next to its field and nothing is charged, and the paid invoice names the business.
 * A merchant without a profile sees its page as before (no VAT row, no business fields). A trial product's page says
 * what is charged today (nothing, for a free trial) and when the first full charge is, and starting the trial charges
 * nothing. Screenshots at 390 and 1280 px land in test-output/.
 */
import { Effect, Schema } from "effect"
import { join } from "node:path"
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { TaxProfile } from "../../src/domain/TaxProfile.js"
import { Store } from "../../src/ports/Store.js"
import { ensureOutputDir, launchChromium } from "../support/browser.js"
import { cards } from "../support/checkout.js"
import { memoryVariant, rawFor, startServer, type TestAccount, type TestServer } from "../support/server.js"

const output = ensureOutputDir()
const profile = Schema.decodeUnknownSync(TaxProfile)({
  legal_name: "Dune Coffee Roasters LLC",
  legal_name_ar: "ديون لتحميص القهوة ذ.م.م",
  trn: "100123456700003",
  address: { line1: "Warehouse 4, Al Quoz", line2: null, city: "Dubai", emirate: "DXB", country: "AE" },
  trade_licence: null,
  vat_registered: true,
  prices_include_vat: false
})

let server: TestServer
let browser: Browser
let vat: TestAccount
let plain: TestAccount

beforeAll(async () => {
  server = await startServer(await memoryVariant.store())
  vat = await server.createAccount({ business_name: "Dune Coffee", tax_profile: profile })
  plain = server.accountA
  browser = await launchChromium()
}, 60_000)

afterAll(async () => {
  await browser?.close().catch(() => undefined)
  await server?.close()
})

/** A session over one product of `price` fils (as the merchant lists it) × `quantity`. */
const sessionOf = async (account: TestAccount, price: number, quantity: number) => {
  const api = rawFor(server, account.test.key)
  const product = await api.post("/products", { name: "Ethiopia Guji, 1 kg", price, currency: "AED" })
  expect(product.status).toBe(200)
  const session = await api.post("/checkout_sessions", { product_cart: [{ product_id: product.json.product_id, quantity }] })
  expect(session.status).toBe(200)
  return session.json
}

/** The payment form's button (the discount code's form, above it, has its own). */
const payButton = "form:not(.code) button[type=submit]"

/** Fills the hosted form with a good card and submits it; the page then says what happened. */
const startTrial = async (page: Page) => {
  await page.fill("#name", "Omar Al Suwaidi")
  await page.fill("#email", "omar@example.ae")
  await page.fill("#card_number", cards.visa)
  await page.fill("#exp", `12 / ${String(new Date().getUTCFullYear() + 3).slice(2)}`)
  await page.fill("#cvc", "123")
  await page.click(payButton)
  await page.waitForSelector("[role=status]")
}

const open = async (sessionId: string, width: number): Promise<Page> => {
  const page = await browser.newPage({ viewport: { width, height: 900 } })
  await page.goto(`${server.origin}/checkout/${sessionId}`)
  return page
}

const fill = async (page: Page, business: { readonly name: string; readonly trn: string }) => {
  await page.fill("#name", "Omar Al Suwaidi")
  await page.fill("#email", "omar@gulf-trading.ae")
  await page.fill("#card_number", cards.visa)
  await page.fill("#exp", `12 / ${String(new Date().getUTCFullYear() + 3).slice(2)}`)
  await page.fill("#cvc", "123")
  await page.click("summary")
  await page.fill("#business_name", business.name)
  await page.fill("#business_trn", business.trn)
}

describe("checkout with VAT", () => {
  it("prices excluding VAT: subtotal, VAT and the total charged; the page fits a phone", async () => {
    // 18,900 × 2 = AED 378.00 net; VAT AED 18.90; total AED 396.90.
    const session = await sessionOf(vat, 18_900, 2)
    expect(session.total_amount).toBe(39_690)
    expect(session.tax).toBe(1_890)
    for (const width of [390, 1280]) {
      const page = await open(session.session_id, width)
      expect(await page.textContent("[data-testid=vat]")).toContain("18.90")
      expect(await page.textContent("[data-testid=total]")).toContain("396.90")
      expect(await page.textContent(payButton)).toContain("396.90")
      expect(await page.isVisible("#business_name")).toBe(false) // folded until asked for
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
      expect(overflow).toBeLessThanOrEqual(0)
      await page.screenshot({ path: join(output, `checkout-vat-${width}.png`), fullPage: true })
      await page.close()
    }
  })

  it("a business buyer: a mistyped TRN is refused next to its field and nothing is charged; then the invoice names it", async () => {
    const session = await sessionOf(vat, 50_000, 1)
    const page = await open(session.session_id, 390)
    await fill(page, { name: "Gulf Trading FZE", trn: "100 765 432 100 003" })
    await page.click(payButton)
    await page.waitForSelector("#business_trn-error")
    expect(await page.textContent("#business_trn-error")).toContain("15 digits")
    expect(await page.getAttribute("#business_trn", "aria-invalid")).toBe("true")
    // The page keeps what was typed, as typed.
    expect(await page.inputValue("#business_trn")).toBe("100 765 432 100 003")
    await page.screenshot({ path: join(output, "checkout-vat-business-error-390.png"), fullPage: true })
    const before = await rawFor(server, vat.test.key).get(`/payments?checkout_session_id=${session.session_id}`)
    expect(before.json.items).toHaveLength(0)

    await page.fill("#card_number", cards.visa)
    await page.fill("#cvc", "123")
    await page.fill("#business_trn", "100765432100003")
    await page.click(payButton)
    await page.waitForSelector("[role=status]")
    // The paid page links the tax invoice, issued with the payment; the checkout's link is the payer's way to it.
    const invoiceLink = page.getByRole("link", { name: "View the tax invoice" })
    expect(await invoiceLink.getAttribute("href")).toBe(`/checkout/${session.session_id}/invoice`)
    await invoiceLink.click()
    await page.waitForLoadState("load")
    expect(await page.textContent("h1")).toContain("Tax Invoice")
    expect(await page.textContent("body")).toContain("Gulf Trading FZE")
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true)
    await page.close()

    const paid = await rawFor(server, vat.test.key).get(`/payments?checkout_session_id=${session.session_id}`)
    expect(paid.json.items[0].status).toBe("succeeded")
    expect(paid.json.items[0].tax).toBe(2_500)
    const invoices = await server.run(Effect.flatMap(Store, (s) =>
      s.documents.listInvoices(
        { accountId: vat.accountId, livemode: false },
        { payment_id: paid.json.items[0].payment_id },
        { limit: 10, after: undefined }
      )))
    expect(invoices.items).toHaveLength(1)
    expect(invoices.items[0]!.kind).toBe("full")
    expect(invoices.items[0]!.buyer.business).toMatchObject({ business_name: "Gulf Trading FZE", trn: "100765432100003" })
    const customer = await rawFor(server, vat.test.key).get(`/customers/${paid.json.items[0].customer.customer_id}`)
    expect(customer.json.business).toMatchObject({ business_name: "Gulf Trading FZE", trn: "100765432100003" })
  })

  it("a free trial: the page says nothing is charged today and when the first charge is; starting it charges nothing", async () => {
    const api = rawFor(server, vat.test.key)
    const product = await api.post("/products", {
      name: "Roaster's choice, monthly",
      price: 18_900,
      currency: "AED",
      billing: "recurring",
      billing_interval: "month",
      trial_period_days: 14
    })
    expect(product.status, product.text).toBe(200)
    const session = (await api.post("/checkout_sessions", { product_cart: [{ product_id: product.json.product_id }] })).json
    expect([session.trial_period_days, session.total_amount, session.tax]).toEqual([14, 0, 0])
    // The first charge is 14 days after the customer starts (today, as the page is shown), dated in the account's zone.
    const firstCharge = () =>
      new Date(Date.now() + 14 * 86_400_000).toLocaleDateString("en-GB", { timeZone: "Asia/Dubai", day: "numeric", month: "short", year: "numeric" })
    for (const width of [390, 1280]) {
      const before = firstCharge()
      const page = await open(session.session_id, width)
      const note = await page.textContent("[data-testid=trial]")
      expect(note).toContain("Nothing is charged today.")
      // AED 189.00 net + 5% VAT = AED 198.45 each month after the trial.
      expect(note).toContain("Then AED 198.45 (VAT included) every month")
      expect([before, firstCharge()]).toContain(await page.textContent("[data-testid=first-charge]"))
      expect(await page.textContent("[data-testid=total]")).toContain("AED 0.00")
      expect(await page.locator("[data-testid=vat]").count()).toBe(0) // nothing taxed today
      expect(await page.textContent(payButton)).toBe("Start free trial")
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
      expect(overflow).toBeLessThanOrEqual(0)
      await page.screenshot({ path: join(output, `checkout-trial-${width}.png`), fullPage: true })
      if (width === 1280) {
        await startTrial(page)
        const started = await page.textContent("[role=status]")
        expect(started).toContain("Trial started")
        expect(started).toContain("first be charged AED 198.45 on")
        await page.screenshot({ path: join(output, "checkout-trial-started-1280.png"), fullPage: true })
      }
      await page.close()
    }
    const done = (await api.get(`/checkout_sessions/${session.session_id}`)).json
    expect([done.status, done.payment_id]).toEqual(["complete", null])
    expect((await api.get(`/payments?checkout_session_id=${session.session_id}`)).json.items).toEqual([])
    const subscription = (await api.get(`/subscriptions/${done.subscription_id}`)).json
    expect([subscription.trial_period_days, subscription.recurring_amount, subscription.next_billing_date])
      .toEqual([14, 19_845, subscription.trial_ends_at])

    // A discount code with the trial: nothing off today, its share off the first three payments after it.
    expect((await api.post("/discounts", { code: "ROAST25", type: "percentage", amount: 2500, subscription_cycles: 3 })).status).toBe(200)
    const discounted = (await api.post("/checkout_sessions", { product_cart: [{ product_id: product.json.product_id }], discount_code: "roast25" })).json
    for (const width of [390, 1280]) {
      const page = await open(discounted.session_id, width)
      expect(await page.textContent("[data-testid=trial]")).toContain("Then AED 198.45 (VAT included) every month, less the discount below,")
      expect(await page.textContent("tr.discount")).toMatch(/Discount ROAST25\s*\(the first 3 payments after the trial\)\s*−25 %/)
      expect(await page.textContent("[data-testid=total]")).toContain("AED 0.00")
      await page.screenshot({ path: join(output, `checkout-trial-discount-${width}.png`), fullPage: true })
      if (width === 1280) {
        await startTrial(page)
        // 25 % off the net AED 189.00 leaves AED 141.75, with 5 % VAT (AED 7.09) AED 148.84.
        expect(await page.textContent("[role=status]")).toContain("first be charged AED 148.84 on")
      }
      await page.close()
    }

    // A paid trial: its price today, with the VAT added to it, then the full price.
    const paid = await api.post("/products", {
      name: "Roaster's choice, weekly",
      price: 5_000,
      currency: "AED",
      billing: "recurring",
      billing_interval: "week",
      interval_count: 2,
      trial_period_days: 7,
      trial_amount: 1_000
    })
    const paidSession = (await api.post("/checkout_sessions", { product_cart: [{ product_id: paid.json.product_id }] })).json
    const page = await open(paidSession.session_id, 390)
    expect(await page.textContent("[data-testid=trial]")).toContain(
      "AED 10.50 is charged today. Then AED 52.50 (VAT included) every 2 weeks, first charged on"
    )
    expect(await page.textContent("[data-testid=vat]")).toContain("0.50")
    expect(await page.textContent(payButton)).toBe("Pay AED 10.50")
    await page.screenshot({ path: join(output, "checkout-paid-trial-390.png"), fullPage: true })
    await page.close()
  })

  it("a merchant without a tax profile: no VAT row and no business fields, the total as listed", async () => {
    const session = await sessionOf(plain, 18_900, 2)
    expect(session.total_amount).toBe(37_800)
    expect(session.tax).toBeNull()
    const page = await open(session.session_id, 390)
    expect(await page.locator("[data-testid=vat]").count()).toBe(0)
    expect(await page.locator("#business_name").count()).toBe(0)
    expect(await page.textContent("[data-testid=total]")).toContain("378.00")
    await page.close()
  })
})
