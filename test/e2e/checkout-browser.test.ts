/**
 * The hosted checkout as a customer meets it: `fils serve` on the embedded PostgreSQL in a fresh data folder, a
 * merchant's shop to come back to, and a real headless Chromium that reads the page, is declined, pays, and lands
 * on the shop. Then the same without any JavaScript (plain form posts), and a search of the server's output, the
 * database and its files for the card numbers that went through.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Browser, BrowserContext, ConsoleMessage, Page } from "playwright-core"
import { startEmbeddedPostgres } from "../../adapters/sql/EmbeddedPostgres.js"
import {
  cardPattern,
  dumpDatabases,
  ensureOutputDir,
  launchChromium,
  type LoggedServer,
  serveFilsLogged,
  type Shop,
  startShop
} from "../support/browser.js"
import { stopOrphanedPostgres } from "../support/cli.js"

const output = ensureOutputDir()
const shots = {
  checkout: join(output, "checkout-browser-1-checkout.png"),
  declined: join(output, "checkout-browser-2-declined.png"),
  returned: join(output, "checkout-browser-3-returned.png"),
  arabicPhone: join(output, "checkout-browser-4-ar-390.png"),
  arabicDesktop: join(output, "checkout-browser-5-ar-1280.png"),
  englishDesktop: join(output, "checkout-browser-6-en-1280.png"),
  arabicPaid: join(output, "checkout-browser-7-ar-paid-390.png")
}
const logFile = join(output, "checkout-browser-serve.log")
for (const file of [...Object.values(shots), logFile]) rmSync(file, { force: true })

const dataDir = mkdtempSync(join(tmpdir(), "fils-checkout-e2e-"))
// The embedded database in a fresh folder, as on a fresh clone; nothing inherited from the suite's database.
const env = { FILS_DATA_DIR: dataDir, DATABASE_URL: undefined, FILS_DB_PORT: undefined, FILS_SIMULATED_LIVE: undefined }

const cards = { declined: "4000 0000 0000 0002", visa: "4242 4242 4242 4242" }
const cardDigits = Object.values(cards).map((c) => c.replaceAll(" ", ""))
const expYear = String(new Date().getUTCFullYear() + 3)

// Merchant-supplied text that a browser must show as text, never run.
const hostileName = `Saffron <script>window.__pwned=1</script> & "Dates"`
const plainName = "Arabic coffee, 250 g"
const prices = { hostile: 12_550, plain: 9_900 } // AED 125.50 × 2 + AED 99.00 = AED 350.00

let server: LoggedServer | undefined
let shop: Shop | undefined
let browser: Browser | undefined
let context: BrowserContext | undefined
let testKey = ""

afterAll(async () => {
  await context?.close().catch(() => undefined)
  await browser?.close().catch(() => undefined)
  await shop?.close()
  const code = await server?.stop("SIGTERM")
  await stopOrphanedPostgres(dataDir)
  rmSync(dataDir, { recursive: true, force: true })
  if (server !== undefined) expect(code).toBe(0)
}, 40_000)

interface ApiResult {
  readonly status: number
  readonly json: any
}

const api = async (method: "GET" | "POST", path: string, body?: unknown): Promise<ApiResult> => {
  const res = await fetch(`${server!.baseUrl}/api/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${testKey}`,
      ...(body === undefined ? {} : { "content-type": "application/json" })
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(10_000)
  })
  const text = await res.text()
  let json: any
  try {
    json = JSON.parse(text)
  } catch {
    json = text
  }
  return { status: res.status, json }
}

const ok = async (method: "GET" | "POST", path: string, body?: unknown): Promise<any> => {
  const result = await api(method, path, body)
  expect(result.status, `${method} ${path}: ${JSON.stringify(result.json)}`).toBe(200)
  return result.json
}

const paymentsOf = async (sessionId: string): Promise<Array<any>> =>
  (await ok("GET", `/payments?checkout_session_id=${sessionId}`)).items

const eventsOf = async (type: string): Promise<Array<any>> => (await ok("GET", `/events?type=${type}&limit=100`)).items

/** Each place a card number of this run appears in `text`, with a little context (none: the test passes). */
const cardsIn = (text: string): Array<string> =>
  cardDigits.flatMap((digits) => {
    const pattern = new RegExp(cardPattern(digits).source, "g")
    return Array.from(text.matchAll(pattern), (m) => text.slice(Math.max(0, m.index - 60), m.index + 80))
  })

const isPng = (file: string) => {
  if (!existsSync(file)) return false
  const bytes = readFileSync(file)
  return bytes.length > 1_000 && bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
}

/** Every file under `dir`, recursively. */
const filesUnder = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    return entry.isDirectory() ? filesUnder(path) : entry.isFile() ? [path] : []
  })

describe("hosted checkout in a real browser, against fils serve", () => {
  let products: { hostile: string; plain: string } = { hostile: "", plain: "" }
  let businessName = ""
  let session: any
  let page: Page
  const consoleErrors: Array<string> = []
  let browserPaymentId = ""
  let declinedPaymentId = ""
  let plainPaymentId = ""

  beforeAll(async () => {
    // In parallel; whatever started is kept for afterAll to stop, even when another part failed.
    const [started, shopStarted, launched] = await Promise.allSettled([
      serveFilsLogged({ env, logFile, timeoutMs: 45_000 }).then((s) => (server = s)),
      startShop().then((s) => (shop = s)),
      launchChromium().then((b) => (browser = b))
    ])
    for (const result of [started, shopStarted, launched]) if (result.status === "rejected") throw result.reason
    if (server === undefined || shop === undefined || browser === undefined) throw new Error("setup incomplete")
    const key = /Test key\s+(sk_test_[A-Za-z0-9_-]+)/.exec(server.stdout())
    expect(key, server.stdout()).not.toBeNull()
    testKey = key![1]!

    businessName = (await ok("GET", "/account")).business_name
    expect(businessName).toEqual(expect.any(String))
    const hostile = await ok("POST", "/products", {
      name: hostileName,
      price: prices.hostile,
      currency: "AED",
      description: "<b>bold</b> claims",
      metadata: { note: "<img src=x onerror=\"window.__pwned=2\">", html: "<iframe src=\"javascript:alert(1)\"></iframe>" }
    })
    const plain = await ok("POST", "/products", { name: plainName, price: prices.plain, currency: "AED" })
    products = { hostile: hostile.product_id, plain: plain.product_id }

    session = await ok("POST", "/checkout_sessions", {
      product_cart: [{ product_id: products.hostile, quantity: 2 }, { product_id: products.plain }],
      return_url: `${shop.origin}/orders/return?order=ord_42`,
      metadata: { order: "<b>ord_42</b>" }
    })
    expect(session).toMatchObject({ status: "open", kind: "payment", total_amount: 35_000, currency: "AED" })
    // FILS_PUBLIC_URL is the server's own address, so the page is reachable where the session says it is.
    expect(session.checkout_url).toBe(`${server.baseUrl}/checkout/${session.session_id}`)

    context = await browser.newContext({ viewport: { width: 720, height: 1000 } })
    page = await context.newPage()
    page.setDefaultTimeout(10_000)
    page.setDefaultNavigationTimeout(15_000)
    page.on("console", (message: ConsoleMessage) => {
      if (message.type() !== "error" && message.type() !== "warning") return
      const url = message.location().url
      // Chromium reports every non-2xx load: the 402 of a declined payment is the page working as designed, and
      // the favicon it asks for on its own is not ours to serve.
      const failedLoad = /^Failed to load resource: the server responded with a status of (\d+)/.exec(message.text())
      if (failedLoad?.[1] === "402" && url === session.checkout_url) return
      // And so is the 400 of a discount code refused.
      if (failedLoad?.[1] === "400" && URL.canParse(url) && new URL(url).pathname.endsWith("/discount")) return
      if (failedLoad !== null && URL.canParse(url) && new URL(url).pathname === "/favicon.ico") return
      consoleErrors.push(`${message.text()} (${url})`)
    })
    page.on("pageerror", (error) => consoleErrors.push(`pageerror: ${error.message}`))
  }, 55_000)

  it("shows the business, the lines and the total, styled, with merchant text inert", async () => {
    const response = await page.goto(session.checkout_url)
    expect(response?.status()).toBe(200)
    expect(page.url()).toBe(session.checkout_url)
    const csp = response!.headers()["content-security-policy"] ?? ""
    expect(csp).toContain("default-src 'none'")
    const body = await response!.text()
    expect(body).not.toContain("<script")
    expect(body).toContain("Saffron &lt;script&gt;window.__pwned=1&lt;/script&gt; &amp; &quot;Dates&quot;")
    expect(body).not.toContain("onerror")

    await expect.poll(() => page.locator("h1").innerText()).toBe(businessName)
    const rows = await page.getByRole("table", { name: "Order summary" }).locator("tr").evaluateAll((trs) =>
      trs.map((tr) => Array.from(tr.querySelectorAll("td"), (td) => td.textContent?.trim() ?? ""))
    )
    expect(rows).toEqual([
      [`${hostileName} × 2`, "AED 251.00"],
      [plainName, "AED 99.00"],
      ["Total", "AED 350.00"]
    ])
    expect(await page.getByTestId("total").innerText()).toBe("AED 350.00")
    await expect.poll(() => page.getByText(hostileName, { exact: false }).count()).toBe(1)
    expect(await page.getByRole("button", { name: "Pay AED 350.00" }).isVisible()).toBe(true)

    // The merchant's "script" is text: nothing ran, and the document has no script element at all.
    expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined()
    expect(await page.evaluate(() => document.scripts.length)).toBe(0)

    // Our own nonce'd style applied (a CSP that blocked it would leave a default grey button and a console error).
    const style = await page.getByRole("button", { name: "Pay AED 350.00" }).evaluate((button) => {
      const s = getComputedStyle(button)
      return { background: s.backgroundColor, color: s.color }
    })
    expect(style).toEqual({ background: "rgb(29, 78, 216)", color: "rgb(255, 255, 255)" })
    expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe("rgb(245, 243, 239)")
    expect(consoleErrors.filter((m) => /Content Security Policy|Refused to/i.test(m))).toEqual([])
    expect(consoleErrors).toEqual([])

    // Every field the page collects is labelled, and named as docs/decisions.md §3 says; the discount code has a
    // form of its own.
    const names = await page.locator("form input:not([type=hidden])").evaluateAll((inputs) =>
      inputs.map((i) => (i as HTMLInputElement).name)
    )
    expect(names).toEqual(["discount_code", "name", "email", "phone_number", "card_number", "exp", "cvc"])
    expect(await page.getByLabel("Discount code", { exact: true }).inputValue()).toBe("")

    await page.screenshot({ path: shots.checkout, fullPage: true })
    expect(isPng(shots.checkout)).toBe(true)
  }, 20_000)

  const fillAndPay = async (card: string) => {
    await page.getByLabel("Name on card", { exact: true }).fill("Layla Haddad")
    await page.getByLabel("E-mail", { exact: true }).fill("layla@example.ae")
    await page.getByLabel("Phone (optional, e.g. +971501234567)", { exact: true }).fill("+971501234567")
    await page.getByLabel("Card number", { exact: true }).fill(card)
    await page.getByLabel("Expiry (MM / YY)", { exact: true }).fill(`12 / ${expYear.slice(2)}`)
    await page.getByLabel("CVC", { exact: true }).fill("123")
    await page.getByRole("button", { name: "Pay AED 350.00" }).click()
  }

  it("a declined card shows a readable message, stays on the page, and records a failed payment", async () => {
    const posted = page.waitForResponse(
      (r) => r.request().method() === "POST" && r.url() === session.checkout_url,
      { timeout: 15_000 }
    )
    await fillAndPay(cards.declined)
    const response = await posted
    const payments = await paymentsOf(session.session_id)
    expect(payments).toHaveLength(1)
    declinedPaymentId = payments[0].payment_id
    expect(response.status()).toBe(402)
    await page.waitForLoadState("load")
    expect(page.url()).toBe(session.checkout_url)
    expect(await page.getByRole("alert").innerText()).toBe("Your card was declined. Try another card.")
    // The card number is not echoed back into the page; the customer's details are kept.
    expect(await page.getByLabel("Card number", { exact: true }).inputValue()).toBe("")
    expect(await page.getByLabel("E-mail", { exact: true }).inputValue()).toBe("layla@example.ae")
    const html = await response.text()
    expect(cardsIn(html)).toEqual([])
    // Still styled (a fresh nonce per page), still no console errors.
    expect(
      await page.getByRole("button", { name: "Pay AED 350.00" }).evaluate((b) => getComputedStyle(b).backgroundColor)
    ).toBe("rgb(29, 78, 216)")
    expect(consoleErrors).toEqual([])
    await page.screenshot({ path: shots.declined, fullPage: true })
    expect(isPng(shots.declined)).toBe(true)

    const after = await ok("GET", `/checkout_sessions/${session.session_id}`)
    expect(after).toMatchObject({ status: "open", payment_id: null, completed_at: null })
    // A declined try is not who pays: the session takes its customer when a charge succeeds.
    expect(after.customer).toBeNull()
    expect(payments[0].customer).toMatchObject({ email: "layla@example.ae", name: "Layla Haddad" })
    expect(payments[0]).toMatchObject({
      status: "failed",
      total_amount: 35_000,
      fee_amount: 0,
      checkout_session_id: session.session_id,
      billing_reason: "payment",
      paid_at: null
    })
    const failed = (await eventsOf("payment.failed")).filter((e) => e.data.payment_id === declinedPaymentId)
    expect(failed).toHaveLength(1)
    expect(failed[0].data).toMatchObject({ status: "failed", checkout_session_id: session.session_id })
    expect(shop!.visits).toEqual([])
  }, 25_000)

  it("a good card lands the browser on the shop's return_url with the outcome", async () => {
    const landed = page.waitForURL((url) => url.origin === shop!.origin, { timeout: 15_000 })
    await fillAndPay(cards.visa)
    await landed
    await page.waitForLoadState("load")

    const url = new URL(page.url())
    expect(url.pathname).toBe("/orders/return")
    expect(url.searchParams.get("order")).toBe("ord_42")
    expect(url.searchParams.get("session_id")).toBe(session.session_id)
    expect(url.searchParams.get("status")).toBe("succeeded")
    browserPaymentId = url.searchParams.get("payment_id") ?? ""
    expect(browserPaymentId).toMatch(/^pay_[0-9a-f]{32}$/)
    expect(browserPaymentId).not.toBe(declinedPaymentId)
    expect(await page.locator("#status").innerText()).toBe("Payment status: succeeded")
    expect(shop!.visits).toHaveLength(1)
    expect(shop!.visits[0]).toMatchObject({
      method: "GET",
      path: "/orders/return",
      query: { order: "ord_42", session_id: session.session_id, status: "succeeded", payment_id: browserPaymentId }
    })
    expect(shop!.visits[0]!.userAgent).toMatch(/Chrome/)
    await page.screenshot({ path: shots.returned, fullPage: true })
    expect(isPng(shots.returned)).toBe(true)

    const after = await ok("GET", `/checkout_sessions/${session.session_id}`)
    expect(after).toMatchObject({ status: "complete", payment_id: browserPaymentId })
    expect(after.completed_at).toEqual(expect.any(String))
    const payment = await ok("GET", `/payments/${browserPaymentId}`)
    expect(payment).toMatchObject({
      status: "succeeded",
      total_amount: 35_000,
      fee_amount: Math.round(35_000 * 290 / 10_000) + 100,
      checkout_session_id: session.session_id,
      customer: { email: "layla@example.ae", name: "Layla Haddad", phone_number: "+971501234567" }
    })
    expect(payment.paid_at).toEqual(expect.any(String))
    const payments = await paymentsOf(session.session_id)
    expect(payments.map((p) => [p.payment_id, p.status])).toEqual([
      [browserPaymentId, "succeeded"],
      [declinedPaymentId, "failed"]
    ])
    const succeeded = (await eventsOf("payment.succeeded")).filter((e) => e.data.payment_id === browserPaymentId)
    expect(succeeded).toHaveLength(1)
    expect(succeeded[0].data).toMatchObject({ status: "succeeded", total_amount: 35_000 })

    // Back on the checkout link: a clear "complete" page, no form, with the receipt and the way back to the shop
    // (its return URL, reporting the payment as the redirect did).
    const again = await page.goto(session.checkout_url)
    expect(again?.status()).toBe(200)
    expect(await page.getByRole("status").innerText()).toContain("This checkout is complete")
    expect(await page.locator("form").count()).toBe(0)
    expect(await page.getByTestId("amount-paid").innerText()).toBe("AED 350.00")
    expect(await page.getByTestId("payment-id").innerText()).toBe(browserPaymentId)
    // The time in the account's zone (Dubai), with the zone.
    const paidAt = new Date(payment.paid_at)
    const dubai = new Date(paidAt.getTime() + 4 * 3_600_000)
    expect(await page.getByTestId("paid-at").innerText()).toContain(`${dubai.getUTCDate()} `)
    expect(await page.getByTestId("paid-at").innerText()).toContain("GST")
    const back = new URL((await page.getByRole("link", { name: `Return to ${businessName}` }).getAttribute("href"))!)
    expect(Object.fromEntries(back.searchParams)).toEqual({
      order: "ord_42",
      session_id: session.session_id,
      status: "succeeded",
      payment_id: browserPaymentId
    })
    expect(await page.getByTestId("tax-invoice").count()).toBe(0)
    expect(consoleErrors).toEqual([])
  }, 30_000)

  it("works without JavaScript: plain form posts end in a 303 to the return_url", async () => {
    const second = await ok("POST", "/checkout_sessions", {
      product_cart: [{ product_id: products.plain, quantity: 3 }],
      return_url: `${shop!.origin}/orders/return?order=ord_43`
    })
    const shown = await fetch(second.checkout_url, { signal: AbortSignal.timeout(10_000) })
    expect(shown.status).toBe(200)
    expect(shown.headers.get("content-type")).toMatch(/^text\/html/)
    const html = await shown.text()
    expect(html).toContain("AED 297.00")
    const token = /name="form_token" value="([^"]+)"/.exec(html)?.[1]
    expect(token).toBeDefined()
    const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1]
    expect(action).toBe(new URL(second.checkout_url).pathname)

    const post = (fields: Record<string, string>) =>
      fetch(new URL(action!, second.checkout_url), {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ form_token: token!, ...fields }).toString(),
        redirect: "manual",
        signal: AbortSignal.timeout(15_000)
      })
    const form = {
      name: "Omar Saleh",
      email: "omar@example.ae",
      phone_number: "",
      exp_month: "01",
      exp_year: expYear,
      cvc: "4321"
    }

    // A mistyped number: the page again with the field's error, and no payment.
    const invalid = await post({ ...form, card_number: "4242 4242 4242 4241" })
    expect(invalid.status).toBe(400)
    const invalidHtml = await invalid.text()
    expect(invalidHtml).toContain("Enter a valid card number.")
    expect(invalidHtml).not.toMatch(cardPattern("4242424242424241"))
    expect(await paymentsOf(second.session_id)).toEqual([])

    const paid = await post({ ...form, card_number: cards.visa })
    expect(paid.status).toBe(303)
    const location = new URL(paid.headers.get("location") ?? "", "http://missing.invalid")
    expect(location.origin).toBe(shop!.origin)
    expect(location.pathname).toBe("/orders/return")
    expect(Object.fromEntries(location.searchParams)).toEqual({
      order: "ord_43",
      session_id: second.session_id,
      status: "succeeded",
      payment_id: expect.stringMatching(/^pay_[0-9a-f]{32}$/)
    })
    plainPaymentId = location.searchParams.get("payment_id")!
    const back = await fetch(location, { signal: AbortSignal.timeout(10_000) })
    expect(back.status).toBe(200)
    expect(shop!.visits.at(-1)?.query).toMatchObject({ order: "ord_43", payment_id: plainPaymentId })

    // Submitting the same form again charges nothing: the checkout is complete.
    const twice = await post({ ...form, card_number: cards.visa })
    expect(twice.status).toBe(200)
    expect(await twice.text()).toContain("This checkout is complete")
    const payments = await paymentsOf(second.session_id)
    expect(payments.map((p) => [p.payment_id, p.status])).toEqual([[plainPaymentId, "succeeded"]])
    expect(await ok("GET", `/checkout_sessions/${second.session_id}`)).toMatchObject({
      status: "complete",
      payment_id: plainPaymentId
    })
  }, 25_000)

  it("a discount code typed on the page: refused next to the field as typed, applied to the totals in any case, removed, and paid for", async () => {
    const discount = await ok("POST", "/discounts", { code: "Welcome10", type: "percentage", amount: 1000, usage_limit: 5 })
    const third = await ok("POST", "/checkout_sessions", {
      product_cart: [{ product_id: products.plain, quantity: 2 }],
      return_url: `${shop!.origin}/orders/return?order=ord_44`
    })
    const summary = () =>
      page.getByRole("table", { name: "Order summary" }).locator("tr").evaluateAll((trs) =>
        trs.map((tr) => Array.from(tr.querySelectorAll("td"), (td) => td.textContent?.trim() ?? ""))
      )
    const apply = async (code: string, status: number) => {
      const posted = page.waitForResponse((r) => r.request().method() === "POST" && r.url().endsWith("/discount"))
      await page.getByLabel("Discount code", { exact: true }).fill(code)
      await page.getByLabel("Discount code", { exact: true }).press("Enter")
      expect((await posted).status()).toBe(status)
      await page.waitForLoadState("load")
    }
    await page.setViewportSize({ width: 390, height: 900 })
    expect((await page.goto(third.checkout_url))?.status()).toBe(200)

    // A code that does not exist: the reason next to the field, which keeps what was typed; the totals unchanged.
    await apply("welcome 10", 400)
    expect(await page.getByLabel("Discount code", { exact: true }).inputValue()).toBe("welcome 10")
    expect(await page.locator("#discount_code-error").innerText()).toBe("This code is not valid. Check it and try again.")
    expect(await page.getByLabel("Discount code", { exact: true }).getAttribute("aria-invalid")).toBe("true")
    expect(await summary()).toEqual([[`${plainName} × 2`, "AED 198.00"], ["Total", "AED 198.00"]])

    // In any case: applied, the lines priced again and the button with them.
    await apply("welcome10", 200)
    expect(await summary()).toEqual([
      [`${plainName} × 2`, "AED 198.00"],
      ["Discount Welcome10", "−AED 19.80"],
      ["Total", "AED 178.20"]
    ])
    expect(await page.getByLabel("Discount code", { exact: true }).inputValue()).toBe("welcome10")
    expect(await page.locator("#discount_code-error").count()).toBe(0)
    await page.screenshot({ path: join(output, "checkout-browser-4-discount-390.png"), fullPage: true })
    await page.setViewportSize({ width: 1280, height: 900 })
    await page.screenshot({ path: join(output, "checkout-browser-4-discount-1280.png"), fullPage: true })
    expect(await ok("GET", `/checkout_sessions/${third.session_id}`)).toMatchObject({
      total_amount: 17_820,
      discounts: [{ discount_id: discount.discount_id, code: "Welcome10", amount_off: 1_980 }]
    })

    // Removed, then applied again: the page says so each time.
    const removed = page.waitForResponse((r) => r.request().method() === "POST" && r.url().endsWith("/discount"))
    await page.getByRole("button", { name: "Remove" }).click()
    expect((await removed).status()).toBe(200)
    await page.waitForLoadState("load")
    expect(await page.getByTestId("total").innerText()).toBe("AED 198.00")
    expect(await page.getByRole("button", { name: "Remove" }).count()).toBe(0)
    await apply("WELCOME10", 200)
    expect(await page.getByTestId("total").innerText()).toBe("AED 178.20")

    const landed = page.waitForURL((url) => url.origin === shop!.origin, { timeout: 15_000 })
    await page.getByLabel("Name on card", { exact: true }).fill("Layla Haddad")
    await page.getByLabel("E-mail", { exact: true }).fill("layla@example.ae")
    await page.getByLabel("Card number", { exact: true }).fill(cards.visa)
    await page.getByLabel("Expiry (MM / YY)", { exact: true }).fill(`12 / ${expYear.slice(2)}`)
    await page.getByLabel("CVC", { exact: true }).fill("123")
    await page.getByRole("button", { name: "Pay AED 178.20" }).click()
    await landed
    const paymentId = new URL(page.url()).searchParams.get("payment_id")!
    expect(await ok("GET", `/payments/${paymentId}`)).toMatchObject({
      status: "succeeded",
      total_amount: 17_820,
      discounts: [{ code: "Welcome10", amount_off: 1_980 }]
    })
    expect(await ok("GET", `/discounts/${discount.discount_id}`)).toMatchObject({ times_used: 1 })

    // Without JavaScript: the code's form is a plain post that answers with the page priced again.
    const fourth = await ok("POST", "/checkout_sessions", { product_cart: [{ product_id: products.plain }] })
    const html = await (await fetch(fourth.checkout_url, { signal: AbortSignal.timeout(10_000) })).text()
    const token = /name="form_token" value="([^"]+)"/.exec(html)![1]!
    const action = /<form class="code" method="post" action="([^"]+)"/.exec(html)?.[1]
    expect(action).toBe(`${new URL(fourth.checkout_url).pathname}/discount`)
    const postCode = (code: string) =>
      fetch(new URL(action!, fourth.checkout_url), {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ form_token: token, discount_code: code }).toString(),
        signal: AbortSignal.timeout(10_000)
      })
    const refused = await postCode("NOPE")
    expect(refused.status).toBe(400)
    const refusedHtml = await refused.text()
    expect(refusedHtml).toContain("This code is not valid. Check it and try again.")
    expect(refusedHtml).toContain('value="NOPE"')
    const accepted = await postCode("welcome10")
    expect(accepted.status).toBe(200)
    expect(await accepted.text()).toContain("Pay AED 89.10")
    expect(consoleErrors).toEqual([])
  }, 40_000)

  it("speaks Arabic right-to-left, fits a phone and a desktop, marks a refused field next to it, and shows the receipt", async () => {
    const arabic = await ok("POST", "/checkout_sessions", { product_cart: [{ product_id: products.plain, quantity: 2 }] })
    // The browser asks for Arabic first (Accept-Language: ar-AE).
    const arContext = await browser!.newContext({ viewport: { width: 390, height: 844 }, locale: "ar-AE" })
    try {
      const p = await arContext.newPage()
      p.setDefaultTimeout(10_000)
      const fitsWidth = () => p.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)
      /** The page's words that are English: none, once the merchant's names, ids and the switch to English are set aside. */
      const englishWords = async () =>
        ((await p.evaluate(() => {
          const body = document.body.cloneNode(true) as HTMLElement
          for (const e of Array.from(body.querySelectorAll("[lang=en]"))) e.remove()
          return body.textContent ?? ""
        })).replaceAll(plainName, "").replaceAll(businessName, "").replace(/\b(pay|cs)_[0-9a-f]{32}\b/g, "").match(/[A-Za-z]{2,}/g) ?? [])
      const aed = (fils: number) => new Intl.NumberFormat("ar-AE", { style: "currency", currency: "AED" }).format(fils / 100)

      expect((await p.goto(arabic.checkout_url))?.status()).toBe(200)
      expect(await p.evaluate(() => [document.documentElement.lang, document.documentElement.dir])).toEqual(["ar", "rtl"])
      expect(await p.getByTestId("total").innerText()).toBe(aed(19_800))
      expect(await p.getByRole("table", { name: "ملخص الطلب" }).count()).toBe(1)
      expect(await englishWords()).toEqual([])
      expect(await fitsWidth()).toBe(true)
      // One column on a phone: the order summary above the form.
      const summary = p.locator("section.summary")
      const form = p.locator("section", { has: p.locator("form[action$='/discount']") })
      const [summaryBox, formBox] = [(await summary.boundingBox())!, (await form.boundingBox())!]
      expect(summaryBox.y + summaryBox.height).toBeLessThanOrEqual(formBox.y)
      await p.screenshot({ path: shots.arabicPhone, fullPage: true })

      // A malformed expiry is refused on its field, as typed, in Arabic, and marked beyond its colour.
      await p.getByLabel("الاسم على البطاقة", { exact: true }).fill("ليلى حداد")
      await p.getByLabel("البريد الإلكتروني", { exact: true }).fill("layla@example.ae")
      await p.getByLabel("رقم البطاقة", { exact: true }).fill(cards.visa)
      await p.getByLabel("تاريخ الانتهاء (الشهر / السنة)", { exact: true }).fill("13/30")
      await p.getByLabel("رمز الأمان", { exact: true }).fill("123")
      const refused = p.waitForResponse((r) => r.request().method() === "POST")
      await p.getByRole("button", { name: `ادفع ${aed(19_800)}` }).click()
      expect((await refused).status()).toBe(400)
      await p.waitForLoadState("load")
      const expiry = p.getByLabel("تاريخ الانتهاء (الشهر / السنة)", { exact: true })
      expect(await expiry.inputValue()).toBe("13/30")
      expect(await expiry.getAttribute("aria-invalid")).toBe("true")
      expect(await expiry.getAttribute("aria-describedby")).toBe("exp-error")
      expect(await p.locator("#exp-error").innerText()).toBe("أدخل تاريخ الانتهاء بصيغة الشهر / السنة، مثل \u206608 / 29\u2069.")
      expect(await expiry.evaluate((e) => getComputedStyle(e).borderTopWidth)).toBe("2px")
      expect(await p.getByLabel("الاسم على البطاقة", { exact: true }).getAttribute("aria-invalid")).toBeNull()
      expect(await englishWords()).toEqual([])

      // Two columns on a desktop, mirrored: the summary on the right of the form.
      await p.setViewportSize({ width: 1280, height: 900 })
      expect(await fitsWidth()).toBe(true)
      const [wideSummary, wideForm] = [(await summary.boundingBox())!, (await form.boundingBox())!]
      expect(Math.abs(wideSummary.y - wideForm.y)).toBeLessThan(2)
      expect(wideSummary.x).toBeGreaterThan(wideForm.x + wideForm.width)
      await p.screenshot({ path: shots.arabicDesktop, fullPage: true })

      // The switch to English is remembered over the browser's Arabic; the summary is then on the left.
      await p.getByTestId("language-switch").click()
      await p.waitForLoadState("load")
      expect((await arContext.cookies()).find((c) => c.name === "fils_lang")).toMatchObject({ value: "en", httpOnly: true, sameSite: "Lax" })
      expect((await p.goto(arabic.checkout_url))?.status()).toBe(200)
      expect(await p.evaluate(() => [document.documentElement.lang, document.documentElement.dir])).toEqual(["en", "ltr"])
      expect(await p.getByTestId("total").innerText()).toBe("AED 198.00")
      expect((await summary.boundingBox())!.x).toBeLessThan((await form.boundingBox())!.x)
      expect(await fitsWidth()).toBe(true)
      await p.screenshot({ path: shots.englishDesktop, fullPage: true })

      // Back in Arabic, paid: the receipt, in Arabic, on a phone.
      await p.getByTestId("language-switch").click()
      await p.waitForLoadState("load")
      await p.setViewportSize({ width: 390, height: 844 })
      await p.getByLabel("الاسم على البطاقة", { exact: true }).fill("ليلى حداد")
      await p.getByLabel("البريد الإلكتروني", { exact: true }).fill("layla@example.ae")
      await p.getByLabel("رقم البطاقة", { exact: true }).fill(cards.visa)
      await p.getByLabel("تاريخ الانتهاء (الشهر / السنة)", { exact: true }).fill(`12 / ${expYear.slice(2)}`)
      await p.getByLabel("رمز الأمان", { exact: true }).fill("123")
      await p.getByRole("button", { name: `ادفع ${aed(19_800)}` }).click()
      await p.waitForLoadState("load")
      expect(await p.getByRole("status").innerText()).toContain("تم استلام الدفعة")
      const [paid] = await paymentsOf(arabic.session_id)
      expect(paid).toMatchObject({ status: "succeeded", total_amount: 19_800 })
      expect(await p.getByTestId("payment-id").innerText()).toBe(paid.payment_id)
      expect(await p.getByTestId("amount-paid").innerText()).toBe(aed(19_800))
      expect(await p.getByTestId("paid-at").innerText()).toContain("غرينتش+4")
      // No return URL, no button back; no VAT, no tax invoice.
      expect(await p.getByTestId("return").count()).toBe(0)
      expect(await p.getByTestId("tax-invoice").count()).toBe(0)
      expect(await englishWords()).toEqual([])
      expect(await fitsWidth()).toBe(true)
      await p.screenshot({ path: shots.arabicPaid, fullPage: true })
    } finally {
      await arContext.close()
    }
  }, 30_000)

  it("the database holds no card number", async () => {
    const db = await startEmbeddedPostgres(dataDir)
    // The server's own postgres, not a second one started here; left (the server still uses it) once dumped.
    expect(db.reused).toBe(true)
    const dump = await dumpDatabases(db.url).finally(() => db.stop())
    expect(dump.tables).toBeGreaterThan(3)
    // The dump covers what the run wrote (so a card number stored anywhere would be in it).
    for (const id of [session.session_id, declinedPaymentId, browserPaymentId, plainPaymentId]) {
      expect(dump.text).toContain(id)
    }
    expect(dump.text).toContain("<script>window.__pwned=1</script>")
    expect(dump.text).toContain("layla@example.ae")
    expect(cardsIn(dump.text)).toEqual([])
  }, 20_000)

  it("stops on SIGTERM with exit 0, and no card number is in its output or in the database's files", async () => {
    expect(await server!.stop("SIGTERM", 20_000)).toBe(0)
    const log = readFileSync(logFile, "utf8")
    // The log is the server's whole output (the banner and its key are in it).
    expect(log).toContain("Fils is running")
    expect(log).toContain(testKey)
    expect(cardsIn(log)).toEqual([])

    // Not even in PostgreSQL's files (tables, indexes, WAL, its own logs), which also keep rows since changed.
    const files = filesUnder(dataDir)
    let sawWrittenRows = false
    const leaks: Array<string> = []
    for (const file of files) {
      const text = readFileSync(file).toString("latin1")
      if (text.includes("window.__pwned=1")) sawWrittenRows = true
      leaks.push(...cardsIn(text).map((found) => `${file}: ${found}`))
    }
    expect(files.length).toBeGreaterThan(100)
    expect(sawWrittenRows).toBe(true)
    expect(leaks).toEqual([])
    expect(statSync(logFile).size).toBeGreaterThan(0)
  }, 30_000)
})
