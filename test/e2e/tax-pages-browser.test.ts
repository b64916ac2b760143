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
import { ok, postCheckoutForm, type TestDatabase, testDatabase } from "../support/load.js"

const output = ensureOutputDir()
let db: TestDatabase
let server: Served
let browser: Browser
let context: BrowserContext
let page: Page
let key = ""
const consoleErrors: Array<string> = []
const trn = "100123456700003"
const buyerTrn = "100987654300003"

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

let productId = ""
let customerId = ""
let paymentId = ""

/** A checkout of the product for `customer`, paid on the hosted form: the payment's id. */
const pay = async (customer: { customer_id: string } | { email: string }) => {
  const session = await ok(server.baseUrl, key, "POST", "/checkout_sessions", { product_cart: [{ product_id: productId }], customer })
  const paid = await postCheckoutForm(server.baseUrl, session.session_id, { card_number: "4242424242424242" })
  expect(paid.status, paid.body.slice(0, 300)).toBe(200)
  return (await ok(server.baseUrl, key, "GET", `/checkout_sessions/${session.session_id}`)).payment_id as string
}


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

  it("Products: a tax category, an exemption reason only when exempt, item type and code; Customers: business details refused next to the field", async () => {
    await page.goto(`${server.baseUrl}/dashboard/test/products`)
    await page.getByLabel(/^Name/).fill("Brewing course")
    await page.getByLabel("Price in AED").fill("105.00")
    await page.getByLabel("Tax category").selectOption("E")
    await page.getByRole("button", { name: "Create product" }).click()
    expect(await errorOf(page, "tax_exemption_code")).toBe("An exempt product needs the reason it is exempt")
    expect(await page.locator("#tax_category").inputValue()).toBe("E")
    expect((await ok(server.baseUrl, key, "GET", "/products")).items).toHaveLength(0)
    await page.getByLabel("Tax category").selectOption("S")
    await page.getByLabel("Item code (optional: a service accounting code or an HS code)").fill("99-92")
    await page.getByRole("button", { name: "Create product" }).click()
    expect(await errorOf(page, "item_code")).toContain("2 to 20 digits and dots")
    await page.getByLabel("Item code (optional: a service accounting code or an HS code)").fill("999293")
    await page.getByRole("button", { name: "Create product" }).click()
    expect(await page.getByRole("status").innerText()).toBe("Created Brewing course.")
    const product = (await ok(server.baseUrl, key, "GET", "/products")).items[0]
    expect(product).toMatchObject({ tax_category: "S", tax_exemption_code: null, item_type: "S", item_code: "999293" })
    productId = product.product_id

    await page.goto(`${server.baseUrl}/dashboard/test/customers`)
    await page.getByLabel("E-mail", { exact: true }).fill("mariam@example.ae")
    await page.getByLabel(/^Name/).fill("Mariam Al Mansoori")
    await page.getByLabel("Business name").fill("Mansoori Trading LLC")
    await page.getByLabel(/^TRN/).fill("1009876543")
    await page.getByLabel("Peppol endpoint id (scheme 0235: the TRN's first 10 digits)").fill("1009876543")
    await page.getByRole("button", { name: "Create customer" }).click()
    expect(await errorOf(page, "business_trn")).toBe("A TRN is 15 digits")
    expect(await page.locator("#business_trn").inputValue()).toBe("1009876543")
    expect((await ok(server.baseUrl, key, "GET", "/customers")).items).toHaveLength(0)
    await page.getByLabel(/^TRN/).fill(buyerTrn)
    // A Peppol endpoint needs the business's address.
    await page.getByRole("button", { name: "Create customer" }).click()
    expect(await errorOf(page, "peppol_id")).toBe("A Peppol endpoint needs the business's address")
    await page.getByLabel("Address line 1").fill("Office 1203, Al Khan Tower")
    await page.getByLabel("City").fill("Sharjah")
    await page.getByLabel("Emirate").selectOption("SHJ")
    await page.getByRole("button", { name: "Create customer" }).click()
    expect(await page.getByRole("status").innerText()).toBe("Customer created.")
    const customer = (await ok(server.baseUrl, key, "GET", "/customers")).items[0]
    expect(customer.business).toStrictEqual({
      business_name: "Mansoori Trading LLC",
      trn: buyerTrn,
      address: { line1: "Office 1203, Al Khan Tower", line2: null, city: "Sharjah", emirate: "SHJ", country: "AE" },
      peppol_endpoint: { scheme: "0235", id: "1009876543" }
    })
    customerId = customer.customer_id
    expect(await page.locator("td", { hasText: buyerTrn }).count()).toBe(1)
    await shoot(page, "customer-business")
  }, 60_000)

  it("Invoices and Credit notes: a paid checkout's invoice, its page and XML, the payment linking both ways, a refund's credit note", async () => {
    paymentId = await pay({ customer_id: customerId })
    await page.goto(`${server.baseUrl}/dashboard/test`)
    await page.getByRole("link", { name: "Invoices" }).click()
    const row = page.getByRole("table", { name: "Invoices" }).locator("tbody tr")
    expect(await row.count()).toBe(1)
    expect((await row.locator("td").allInnerTexts()).map((t) => t.trim())).toEqual([
      "INV-000001",
      expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} GST$/),
      "Mansoori Trading LLC",
      "AED 105.00",
      "AED 5.00",
      "full"
    ])
    await shoot(page, "dashboard-invoices")

    await row.getByRole("link", { name: "INV-000001" }).click()
    await page.waitForURL(/\/invoices\/inv_[0-9a-f]{32}$/)
    const invoiceUrl = page.url()
    expect(await page.locator("h1").innerText()).toContain("Tax Invoice")
    expect(await page.getByTestId("number").innerText()).toBe("INV-000001")
    expect(await page.getByTestId("total-vat").innerText()).toBe("AED 5.00")
    await shoot(page, "dashboard-invoice")
    const xml = await page.request.get(await page.getByRole("link", { name: "Download PINT AE XML" }).getAttribute("href").then((h) => new URL(h!, server.baseUrl).href))
    expect(xml.status()).toBe(200)
    expect(xml.headers()["content-type"]).toBe("application/xml; charset=utf-8")
    expect(xml.headers()["content-disposition"]).toBe(`attachment; filename="INV-000001.xml"`)
    const text = await xml.text()
    expect(text).toContain("<cbc:ID>INV-000001</cbc:ID>")
    expect(text).toContain(buyerTrn)

    // The business buyer's e-invoice goes to the (simulated) provider, sent by the worker beside the server. The
    // profile has no trade licence, which PINT AE needs: rejected, and the invoice's page says why. Once the owner
    // adds the licence in Settings, "Resend" sends it again with the profile as it is now, and it is accepted.
    const statusOnPage = async () => {
      await page.goto(invoiceUrl)
      return page.getByTestId("einvoice-status").innerText()
    }
    await expect.poll(statusOnPage, { timeout: 30_000, interval: 500 }).toMatch(/^E-invoice rejected by the provider: The supplier has no trade licence/)
    await shoot(page, "dashboard-invoice-einvoice-rejected")
    // In Arabic: the links under the document run right to left, the provider's own words quoted as they are; the
    // list's amounts and kinds in Arabic.
    await page.goto(`${invoiceUrl}?lang=ar`)
    expect(await page.getByTestId("einvoice-status").innerText()).toMatch(/^الفاتورة الإلكترونية رفضها المزوّد، والأسباب كما يذكرها بالإنجليزية: \S*The supplier has no trade licence/)
    expect(await page.getByRole("link", { name: "→ الفواتير" }).count()).toBe(1)
    await shoot(page, "dashboard-invoice-einvoice-rejected-ar")
    await page.goto(`${server.baseUrl}/dashboard/test/invoices`)
    const arabicRow = (await page.getByRole("table", { name: "الفواتير" }).locator("tbody tr td").allInnerTexts()).map((t) => t.trim())
    expect(arabicRow[5]).toBe("كاملة")
    expect(arabicRow[3]).toMatch(/105\.00/)
    await shoot(page, "dashboard-invoices-ar")
    await page.goto(`${server.baseUrl}/dashboard/settings?lang=en`)
    const profile = page.locator("#tax-profile")
    await profile.getByLabel("Trade licence number (optional)").fill("CN-1234567")
    await profile.getByLabel("Licensing authority (optional)").fill("Dubai Economy and Tourism")
    await profile.getByRole("button", { name: "Save tax profile" }).click()
    expect(await page.getByRole("status").innerText()).toContain("Tax profile saved.")
    await page.goto(invoiceUrl)
    await page.getByRole("button", { name: "Resend after fixing the profile" }).click()
    expect(await page.getByRole("status").innerText()).toContain("will be sent again")
    await expect.poll(statusOnPage, { timeout: 30_000, interval: 500 }).toMatch(/^E-invoice accepted by the provider \(reference .+\)$/)
    await page.goto(`${server.baseUrl}/dashboard/test/einvoices`)
    const sent = page.getByRole("table", { name: "E-invoices" }).locator("tbody tr")
    expect(await sent.count()).toBe(1)
    expect(await sent.innerText()).toMatch(/INV-000001\s+accepted\s+2/i)
    await shoot(page, "dashboard-einvoices")
    await page.goto(invoiceUrl)

    // The payment links to its invoice; refunded in part, to its credit note too.
    await page.getByRole("link", { name: "Payment" }).click()
    await page.waitForURL(new RegExp(`/payments/${paymentId}$`))
    await page.getByRole("link", { name: "INV-000001" }).click()
    expect(page.url()).toBe(invoiceUrl)
    await page.goto(`${server.baseUrl}/dashboard/test/payments/${paymentId}`)
    await page.getByLabel(/Amount in AED/).fill("21.00")
    await page.getByLabel("Reason").selectOption("duplicate")
    await page.getByRole("button", { name: "Review the refund" }).click()
    await page.getByRole("button", { name: "Refund AED 21.00" }).click()
    expect(await page.getByRole("status").innerText()).toBe("Refunded AED 21.00.")
    await page.getByRole("link", { name: "CN-000001" }).click()
    await page.waitForURL(/\/credit-notes\/cn_[0-9a-f]{32}$/)
    expect(await page.locator("h1").innerText()).toContain("Tax Credit Note")
    expect(await page.getByTestId("difference").innerText()).toBe("AED 21.00")
    expect(await page.getByTestId("vat-on-difference").innerText()).toBe("AED 1.00")
    expect(await page.locator("main").innerText(), "the refund's reason").toContain("Refund reason: Duplicate payment")
    await shoot(page, "dashboard-credit-note")

    await page.goto(`${server.baseUrl}/dashboard/test/credit-notes`)
    const notes = page.getByRole("table", { name: "Credit notes" }).locator("tbody tr")
    expect(await notes.count()).toBe(1)
    expect(await notes.innerText()).toContain("INV-000001")
    await shoot(page, "dashboard-credit-notes")

    // Filters: another customer's e-mail lists nothing; this customer's, and this payment's, list the invoice.
    const otherPayment = await pay({ email: "someone@example.ae" })
    const listed = async (query: string) => {
      await page.goto(`${server.baseUrl}/dashboard/test/invoices?${query}`)
      return page.getByRole("table", { name: "Invoices" }).locator("tbody tr a").allInnerTexts()
    }
    expect(await listed("")).toEqual(["INV-000002", "INV-000001"])
    expect(await listed("q=mariam%40example.ae")).toEqual(["INV-000001"])
    expect(await listed(`q=${otherPayment}`)).toEqual(["INV-000002"])
    expect(await listed(`customer_id=${customerId}`)).toEqual(["INV-000001"])
    expect(await listed("q=nobody%40example.ae")).toEqual([])
    // A filter that can name no customer or payment lists nothing; it is not dropped for the whole list.
    expect(await listed("customer_id=cus_123")).toEqual([])
    expect(await listed("payment_id=nonsense")).toEqual([])
    expect(await listed("cursor=nonsense")).toEqual([])
    // The refused forms and the bad cursor answer 400 on purpose; nothing else complains (no script, no blocked style).
    expect(consoleErrors.filter((e) => !/status of 400 \(Bad Request\)/.test(e))).toEqual([])
  }, 60_000)

  it("the portal lists the customer's own invoices and credit notes, each printable; another customer's are not found", async () => {
    const portal = await ok(server.baseUrl, key, "POST", "/customer_portal_sessions", { customer_id: customerId })
    const phone = await browser.newContext({ viewport: { width: 1280, height: 900 } })
    try {
      const tab = await phone.newPage()
      await tab.goto(portal.url)
      await tab.getByRole("button", { name: "Open my account" }).click()
      await tab.waitForURL(`${server.baseUrl}/portal`)
      const documents = tab.getByRole("table", { name: "Tax invoices and credit notes" })
      expect(await documents.locator("tbody tr a").allInnerTexts()).toEqual(["CN-000001", "INV-000001"])
      expect(await tab.locator("body").innerText()).not.toContain("INV-000002")
      await shoot(tab, "portal-documents")
      await documents.getByRole("link", { name: "INV-000001" }).click()
      await tab.waitForURL(/\/portal\/invoices\/inv_[0-9a-f]{32}$/)
      expect(await tab.locator("h1").innerText()).toContain("Tax Invoice")
      expect(await tab.getByTestId("payable").innerText()).toBe("AED 105.00")
      await shoot(tab, "portal-invoice")
      await tab.getByRole("link", { name: "Back to your account" }).click()
      await documents.getByRole("link", { name: "CN-000001" }).click()
      expect(await tab.locator("h1").innerText()).toContain("Tax Credit Note")

      const [other] = await db.sql<{ document_id: string }>("SELECT document_id FROM tax_documents WHERE number = 'INV-000002'")
      const elsewhere = await tab.goto(`${server.baseUrl}/portal/invoices/${other!.document_id}`)
      expect(elsewhere?.status()).toBe(404)
      expect(await tab.locator("body").innerText()).not.toContain("someone@example.ae")
    } finally {
      await phone.close()
    }
  }, 60_000)
})
