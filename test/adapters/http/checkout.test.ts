/**
 * Checkout over HTTP on both stores: `/api/v1/checkout_sessions`, `/payments`, `/events`, and the hosted page
 * `/checkout/{id}` driven with plain `fetch` (docs/decisions.md §2, §3, §5, §7, §8).
 */
import { randomUUID } from "node:crypto"
import { DateTime, Effect, Option, Schema } from "effect"
import { expect, it } from "vitest"
import { CheckoutSession } from "../../../src/domain/CheckoutSession.js"
import { TaxProfile } from "../../../src/domain/TaxProfile.js"
import type { CheckoutSessionId } from "../../../src/domain/Ids.js"
import { uuidv7Hex } from "../../../src/domain/Ids.js"
import { Store } from "../../../src/ports/Store.js"
import { Accounts } from "../../../src/application/Accounts.js"
import { rawFor, type TestServer } from "../../support/server.js"
import { describeStores, expectError, useServer } from "../../support/httpSuite.js"

const cards = {
  visa: "4242 4242 4242 4242",
  declined: "4000000000000002",
  insufficientFunds: "4000000000009995",
  settleSucceeds: "4000000000000259"
}

const sessionFields = [
  "checkout_url",
  "completed_at",
  "created_at",
  "currency",
  "customer",
  "discounts",
  "expires_at",
  "kind",
  "livemode",
  "metadata",
  "object",
  "payment_id",
  "product_cart",
  "return_url",
  "session_id",
  "status",
  "subscription_id",
  "tax",
  "total_amount",
  "trial_period_days"
]
const paymentFields = [
  "billing_reason",
  "checkout_session_id",
  "created_at",
  "currency",
  "customer",
  "description",
  "discounts",
  "fee_amount",
  "livemode",
  "metadata",
  "net_amount",
  "object",
  "paid_at",
  "payment_id",
  "refunded_amount",
  "status",
  "subscription_id",
  "tax",
  "total_amount"
]
/** The page's fields: the expiry is one (`exp`, `MM / YY`); a script may post `exp_month` and `exp_year` instead. */
const formFields = ["name", "email", "phone_number", "card_number", "exp", "cvc"]

const isoMillis = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

const form = (card: string, overrides: Record<string, string> = {}): Record<string, string> => ({
  name: "Layla Haddad",
  email: "layla@example.ae",
  phone_number: "+971501234567",
  card_number: card,
  exp_month: "12",
  exp_year: "2040",
  cvc: "123",
  ...overrides
})

interface PageResponse {
  readonly status: number
  readonly headers: Headers
  readonly html: string
}

const fetchPage = async (url: string, init: RequestInit = {}): Promise<PageResponse> => {
  const res = await fetch(url, { redirect: "manual", ...init })
  return { status: res.status, headers: res.headers, html: await res.text() }
}

/** The receipt cookie a response set, as a `cookie` header sends it back. */
const receiptCookieOf = (page: PageResponse): string => {
  const m = /^(fils_receipt=[^;]*)/.exec(page.headers.get("set-cookie") ?? "")
  if (m === null) throw new Error(`no receipt cookie: ${page.headers.get("set-cookie")}`)
  return m[1]!
}

const taxProfile = Schema.decodeUnknownSync(TaxProfile)({
  legal_name: "Dune Coffee Roasters LLC",
  legal_name_ar: "ديون لتحميص القهوة ذ.م.م",
  trn: "100123456700003",
  address: { line1: "Warehouse 4, Al Quoz", line2: null, city: "Dubai", emirate: "DXB", country: "AE" },
  trade_licence: null,
  vat_registered: true,
  prices_include_vat: false
})

const tokenOf = (html: string): string => {
  const m = /name="form_token" value="([^"]*)"/.exec(html)
  if (m === null) throw new Error(`no form token in the page:\n${html.slice(0, 500)}`)
  return m[1]!
}

/** Text with tags removed and entities of `&`, `<`, `>` decoded, whitespace collapsed. */
const textOf = (html: string) =>
  html.replace(/<[^>]*>/g, " ").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, "\"").replace(/&#39;/g, "'")
    .replace(/&amp;/g, "&").replace(/\s+/g, " ")

const expectHtml = (page: PageResponse, status: number) => {
  expect(page.status, page.html.slice(0, 400)).toBe(status)
  expect(page.headers.get("content-type") ?? "").toMatch(/^text\/html/)
  expect(page.html).toMatch(/^<!doctype html>/i)
}

const expectSecurityHeaders = (page: PageResponse) => {
  const csp = page.headers.get("content-security-policy") ?? ""
  const directives = new Map(
    csp.split(";").map((d) => d.trim()).filter((d) => d !== "").map((d) => {
      const [name, ...values] = d.split(/\s+/)
      return [name!, values] as const
    })
  )
  expect(directives.get("default-src"), csp).toEqual(["'none'"])
  expect(directives.get("frame-ancestors"), csp).toEqual(["'none'"])
  expect(csp).not.toContain("unsafe-inline")
  expect(csp).not.toContain("unsafe-eval")
  expect(csp).not.toContain("*")
  expect(directives.has("script-src") ? directives.get("script-src") : ["'none'"]).toEqual(["'none'"])
  expect(page.headers.get("x-content-type-options")).toBe("nosniff")
  expect(page.headers.get("referrer-policy")).toMatch(/^(no-referrer|same-origin|strict-origin)/)
}

describeStores("checkout over HTTP", (variant) => {
  const server = useServer(variant)
  const rawA = () => rawFor(server(), server().accountA.test.key)

  const createProduct = async (key: string, body: Record<string, unknown> = {}) => {
    const res = await rawFor(server(), key).post("/products", { name: "Beans", price: 5000, currency: "AED", ...body })
    expect(res.status, res.text).toBe(200)
    return res.json as { product_id: string; name: string; price: number }
  }

  const createSession = async (key: string, body: Record<string, unknown> = {}) => {
    const cart = body.product_cart ?? [{ product_id: (await createProduct(key)).product_id }]
    const res = await rawFor(server(), key).post("/checkout_sessions", { ...body, product_cart: cart })
    expect(res.status, res.text).toBe(200)
    return res.json as { session_id: string; checkout_url: string; [k: string]: any }
  }

  const pageUrl = (id: string) => `${server().origin}/checkout/${id}`
  const getPage = (id: string) => fetchPage(pageUrl(id))
  const postPage = (id: string, fields: Record<string, string>) =>
    fetchPage(pageUrl(id), { method: "POST", body: new URLSearchParams(fields) })
  /** GET the page, then submit its form with `fields` and the page's token. */
  const submit = async (id: string, fields: Record<string, string>) => {
    const page = await getPage(id)
    expectHtml(page, 200)
    return postPage(id, { ...fields, form_token: tokenOf(page.html) })
  }
  const paymentsOfSession = async (key: string, id: string) => {
    const res = await rawFor(server(), key).get(`/payments?checkout_session_id=${id}&limit=100`)
    expect(res.status, res.text).toBe(200)
    return res.json.items as Array<any>
  }

  /** A copy of a session, created 25 hours ago (so expired), inserted through the store. */
  const insertExpiredCopy = (s: TestServer, id: string) =>
    s.run(Effect.gen(function*() {
      const store = yield* Store
      const found = Option.getOrThrow(yield* store.sessions.find(id as CheckoutSessionId))
      const created = DateTime.subtract(found.created_at, { hours: 25 })
      const words = [0, 1, 2, 3].map(() => Math.floor(Math.random() * 0x100000000)) as [number, number, number, number]
      const sessionId = `cks_${uuidv7Hex(DateTime.toEpochMillis(created), words)}` as CheckoutSessionId
      const copy: CheckoutSession = {
        ...found,
        session_id: sessionId,
        checkout_url: found.checkout_url.replace(found.session_id, sessionId),
        created_at: created,
        expires_at: DateTime.add(created, { hours: 24 })
      }
      yield* store.sessions.insert(copy)
      return sessionId as string
    }))

  // API: /checkout_sessions -----------------------------------------------------------------------------------------

  it("POST /checkout_sessions prices the cart and answers exactly the documented fields", async () => {
    const beans = await createProduct(server().accountA.test.key, { name: "Beans", price: 5000 })
    const cup = await createProduct(server().accountA.test.key, { name: "Cup", price: 3000 })
    const res = await rawA().post("/checkout_sessions", {
      product_cart: [{ product_id: beans.product_id, quantity: 2 }, { product_id: cup.product_id }],
      return_url: "https://shop.example/thanks",
      metadata: { order: "42" }
    })
    expect(res.status, res.text).toBe(200)
    expect(Object.keys(res.json).sort()).toEqual(sessionFields)
    expect(res.json).toMatchObject({
      object: "checkout_session",
      kind: "payment",
      status: "open",
      total_amount: 13000,
      currency: "AED",
      product_cart: [
        { product_id: beans.product_id, name: "Beans", quantity: 2, unit_amount: 5000 },
        { product_id: cup.product_id, name: "Cup", quantity: 1, unit_amount: 3000 }
      ],
      customer: null,
      return_url: "https://shop.example/thanks",
      payment_id: null,
      subscription_id: null,
      trial_period_days: null,
      metadata: { order: "42" },
      livemode: false,
      completed_at: null
    })
    expect(res.json.session_id).toMatch(/^cks_[0-9a-f]{32}$/)
    expect(res.json.checkout_url).toMatch(new RegExp(`/checkout/${res.json.session_id}$`))
    expect(res.json.created_at).toMatch(isoMillis)
    expect(Date.parse(res.json.expires_at) - Date.parse(res.json.created_at)).toBe(24 * 3600_000)
    expect(res.text).not.toContain("form_token")
    const read = await rawA().get(`/checkout_sessions/${res.json.session_id}`)
    expect(read.status).toBe(200)
    expect(read.json).toStrictEqual(res.json)
  })

  it("POST /checkout_sessions: a customer by e-mail fills `customer`; a recurring product alone is a subscription", async () => {
    const key = server().accountA.test.key
    const email = `buyer-${randomUUID()}@example.ae`
    const s = await createSession(key, { customer: { email, name: "Buyer" } })
    expect(s.customer).toStrictEqual({ name: "Buyer", email, phone_number: null })
    const again = await createSession(key, { customer: { email: email.toUpperCase() } })
    expect(again.customer).toStrictEqual({ name: "Buyer", email, phone_number: null })
    const customers = await rawA().get(`/customers?email=${encodeURIComponent(email)}`)
    expect(customers.json.items).toHaveLength(1)
    const monthly = await createProduct(key, { billing: "recurring", billing_interval: "month" })
    const sub = await createSession(key, { product_cart: [{ product_id: monthly.product_id }] })
    expect(sub.kind).toBe("subscription")
  })

  it("POST /checkout_sessions replays with the same Idempotency-Key; other parameters are 422", async () => {
    const product = await createProduct(server().accountA.test.key)
    const key = randomUUID()
    const body = { product_cart: [{ product_id: product.product_id }] }
    const first = await rawA().post("/checkout_sessions", body, { headers: { "idempotency-key": key } })
    expect(first.status, first.text).toBe(200)
    expect(first.headers.get("idempotent-replayed")).toBeNull()
    const again = await rawA().post("/checkout_sessions", body, { headers: { "idempotency-key": key } })
    expect(again.status).toBe(200)
    expect(again.headers.get("idempotent-replayed")).toBe("true")
    expect(again.json).toStrictEqual(first.json)
    expectError(
      await rawA().post("/checkout_sessions", { ...body, metadata: { x: "1" } }, { headers: { "idempotency-key": key } }),
      422,
      "IDEMPOTENCY_KEY_REUSED"
    )
    const fresh = await rawA().post("/checkout_sessions", body, { headers: { "idempotency-key": randomUUID() } })
    expect(fresh.json.session_id).not.toBe(first.json.session_id)
  })

  it("POST /checkout_sessions refuses invalid bodies with 400 INVALID_REQUEST", async () => {
    const product = await createProduct(server().accountA.test.key)
    const line = { product_id: product.product_id }
    const unknownField = expectError(
      await rawA().post("/checkout_sessions", { product_cart: [line], coupon: "X" }),
      400,
      "INVALID_REQUEST"
    )
    expect(unknownField).toContain("coupon")
    const unknownLineField = expectError(
      await rawA().post("/checkout_sessions", { product_cart: [{ ...line, price: 1 }] }),
      400,
      "INVALID_REQUEST"
    )
    expect(unknownLineField).toContain("price")
    // A customer's refusal is about the fields sent, never calls a good one unknown.
    const cus = `cus_${"0".repeat(32)}`
    for (const [customer, message] of [
      [{ email: "notanemail" }, "customer.email must be"],
      [{ email: "a@b.co", phone_number: "123" }, "customer.phone_number must be"],
      [{ email: "a@b.co", name: "" }, "customer.name must be 1 to 200 characters"],
      [{ customer_id: cus, email: "a@b.co" }, "customer must be either { customer_id } alone or { email, name, phone_number }, not both"],
      [{ name: "Layla" }, "customer.email is required (or give customer_id for a customer on file)"],
      [{ email: "a@b.co", nickname: "L" }, "unknown field 'customer.nickname'"]
    ] as const) {
      const refused = expectError(await rawA().post("/checkout_sessions", { product_cart: [line], customer }), 400, "INVALID_REQUEST")
      expect(refused, JSON.stringify(customer)).toContain(message)
      expect(refused, JSON.stringify(customer)).not.toContain("unknown field 'customer.email'")
    }
    const bodies: Array<unknown> = [
      {},
      { product_cart: [] },
      { product_cart: Array.from({ length: 51 }, () => line) },
      { product_cart: [{ ...line, quantity: 0 }] },
      { product_cart: [{ ...line, quantity: 1001 }] },
      { product_cart: [{ ...line, quantity: 1.5 }] },
      { product_cart: [{ ...line, quantity: "2" }] },
      { product_cart: [{}] },
      { product_cart: [line], return_url: "ftp://shop.example/x" },
      { product_cart: [line], return_url: "/thanks" },
      { product_cart: [line], return_url: "not a url" },
      { product_cart: [line], customer: { email: "nope" } },
      { product_cart: [line], customer: { customer_id: `cus_${"0".repeat(32)}` } },
      { product_cart: [line], metadata: { n: 1 } },
      "{\"product_cart\": "
    ]
    for (const body of bodies) {
      expectError(await rawA().post("/checkout_sessions", body), 400, "INVALID_REQUEST")
    }
    const ok = await rawA().post("/checkout_sessions", {
      product_cart: [{ ...line, quantity: 1000 }, ...Array.from({ length: 49 }, () => line)]
    })
    expect(ok.status, ok.text).toBe(200)
    expect(ok.json.total_amount).toBe(1049 * 5000)
  })

  it("POST /checkout_sessions: return_url is taken only as sent, and stored in its normalized form", async () => {
    const line = { product_id: (await createProduct(server().accountA.test.key)).product_id }
    for (const return_url of [
      " https://shop.example/thanks", "https://shop.example/thanks ", "\thttps://shop.example/thanks",
      "https://shop.example/th\r\nanks", "https://shop.example/\nSet-Cookie:x", "https://shop.example/a\tb",
      "https://shop.example/\u007f", "javascript:alert(1)", "/thanks", "https://shop\u00a0example/",
      "https:shop.example/thanks", "https:/shop.example/thanks"
    ]) {
      const res = await rawA().post("/checkout_sessions", { product_cart: [line], return_url })
      expectError(res, 400, "INVALID_REQUEST")
      expect(res.json.message).toMatch(/^return_url /)
    }
    const normalized = await rawA().post("/checkout_sessions", { product_cart: [line], return_url: "HTTPS://Shop.Example:443/a/../thanks?q=1 2" })
    expect(normalized.status, normalized.text).toBe(200)
    expect(normalized.json.return_url).toBe("https://shop.example/thanks?q=1%202")
    const read = await rawA().get(`/checkout_sessions/${normalized.json.session_id}`)
    expect(read.json.return_url).toBe("https://shop.example/thanks?q=1%202")
  })

  it("POST /checkout_sessions: unknown, malformed, other-account and draft products are 400 naming the product", async () => {
    const s = server()
    const foreign = await createProduct(s.accountB.test.key)
    const draft = await createProduct(s.accountA.test.key, { status: "draft" })
    for (const id of [`pdt_${"0".repeat(32)}`, "pdt_123", foreign.product_id, draft.product_id]) {
      const message = expectError(
        await rawA().post("/checkout_sessions", { product_cart: [{ product_id: id }] }),
        400,
        "INVALID_REQUEST"
      )
      expect(message).toContain(id)
    }
  })

  it("POST /checkout_sessions with a live key is 403 PAYMENTS_DISABLED", async () => {
    const s = server()
    const live = await createProduct(s.accountA.live.key)
    expectError(
      await rawFor(s, s.accountA.live.key).post("/checkout_sessions", { product_cart: [{ product_id: live.product_id }] }),
      403,
      "PAYMENTS_DISABLED"
    )
    const account = await rawFor(s, s.accountA.live.key).get("/account")
    expect(account.json.payments_enabled).toBe(false)
  })

  it("GET /checkout_sessions/{id} is 404 for an unknown, malformed, other-mode or other-account id", async () => {
    const s = server()
    const session = await createSession(s.accountA.test.key)
    for (const key of [s.accountA.live.key, s.accountB.test.key, s.accountB.live.key]) {
      expectError(await rawFor(s, key).get(`/checkout_sessions/${session.session_id}`), 404, "NOT_FOUND")
    }
    for (const id of [`cks_${"0".repeat(32)}`, "cks_1", session.session_id.replace("cks_", "pay_"), session.session_id.toUpperCase()]) {
      expectError(await rawA().get(`/checkout_sessions/${id}`), 404, "NOT_FOUND")
    }
  })

  // The hosted page ---------------------------------------------------------------------------------------------------

  it("GET /checkout/{id} shows the business, the lines, the total and the labelled form, with strict headers", async () => {
    const key = server().accountA.test.key
    const beans = await createProduct(key, { name: "Arabica Beans", price: 5000 })
    const cup = await createProduct(key, { name: "Clay Cup", price: 3000 })
    const session = await createSession(key, {
      product_cart: [{ product_id: beans.product_id, quantity: 2 }, { product_id: cup.product_id }]
    })
    const page = await getPage(session.session_id)
    expectHtml(page, 200)
    expectSecurityHeaders(page)
    const text = textOf(page.html)
    expect(text).toContain("Souq A")
    expect(text).toContain("Arabica Beans")
    expect(text).toContain("Clay Cup")
    expect(text).toContain("AED 100.00") // 2 × 50.00
    expect(text).toContain("AED 30.00")
    expect(text).toContain("AED 130.00")
    expect(text).toContain("Test mode")
    expect(page.html).toMatch(/<form[^>]*method="post"/i)
    const names = [...page.html.matchAll(/<input[^>]*\sname="([^"]+)"/g)].map((m) => m[1])
    // The discount code has a form of its own, before the payment's (docs/discounts.md).
    expect(names.filter((n) => n !== "form_token")).toEqual(["discount_code", ...formFields])
    for (const field of formFields) {
      const input = new RegExp(`<input[^>]*\\sid="${field}"[^>]*\\sname="${field}"|<input[^>]*\\sname="${field}"[^>]*\\sid="${field}"`)
      expect(page.html, field).toMatch(input)
      expect(page.html, field).toMatch(new RegExp(`<label for="${field}">[^<]+</label>`))
    }
    expect(page.html).not.toMatch(/<script/i)
    expect(tokenOf(page.html).length).toBeGreaterThan(10)
  })

  it("a session for a known customer: their details prefilled read-only, the payment theirs whatever a script posts", async () => {
    const email = `known-${randomUUID()}@example.ae`
    const key = server().accountA.test.key
    const session = await createSession(key, { customer: { email, name: "Known Buyer", phone_number: "+971509999999" } })
    const page = await getPage(session.session_id)
    expectHtml(page, 200)
    expect(page.html).toMatch(new RegExp(`name="email"[^>]*readonly[^>]*value="${email}"`))
    expect(page.html).toMatch(/name="name"[^>]*readonly[^>]*value="Known Buyer"/)
    expect(page.html).toMatch(/name="phone_number"[^>]*readonly[^>]*value="\+971509999999"/)
    expect(page.html).toMatch(/name="card_number"[^>]*value=""/)
    expect(page.html).not.toMatch(/name="card_number"[^>]*readonly/)

    // The merchant chose who pays: details a script posts anyway are not read, and the payment is theirs.
    const { card_number, cvc, exp_month, exp_year } = form(cards.visa)
    const cardOnly = { card_number: card_number!, cvc: cvc!, exp_month: exp_month!, exp_year: exp_year! }
    const paid = await submit(session.session_id, { ...cardOnly, name: "Someone Else", email: "else@example.ae" })
    expectHtml(paid, 200)
    const [payment] = await paymentsOfSession(key, session.session_id)
    expect(payment).toMatchObject({ status: "succeeded", customer: { email, name: "Known Buyer", phone_number: "+971509999999" } })
    const read = await rawA().get(`/checkout_sessions/${session.session_id}`)
    expect(read.json.customer).toEqual({ email, name: "Known Buyer", phone_number: "+971509999999" })

    // A customer known by e-mail alone: no name or phone asked.
    const onlyEmail = `only-${randomUUID()}@example.ae`
    const bare = await createSession(key, { customer: { email: onlyEmail } })
    const barePage = await getPage(bare.session_id)
    expect(barePage.html).not.toMatch(/name="name"|name="phone_number"/)
    expectHtml(await submit(bare.session_id, cardOnly), 200)
    expect((await paymentsOfSession(key, bare.session_id))[0]).toMatchObject({
      status: "succeeded",
      customer: { email: onlyEmail, name: null, phone_number: null }
    })
  })

  it("a declined try's contact details are not kept: the page shows them as typed, and the next try pays as the one it names", async () => {
    const key = server().accountA.test.key
    const session = await createSession(key)
    const typo = `typo-${randomUUID()}@example.ae`
    const right = `right-${randomUUID()}@example.ae`
    const declined = await submit(session.session_id, form(cards.declined, { email: typo, name: "Layla Hadad" }))
    expectHtml(declined, 402)
    expect(declined.html).toMatch(new RegExp(`name="email"[^>]*value="${typo}"`))
    expect(declined.html).toMatch(/name="name"[^>]*value="Layla Hadad"/)
    expect(declined.html).toMatch(/name="card_number"[^>]*value=""/)
    const open = await rawA().get(`/checkout_sessions/${session.session_id}`)
    expect(open.json).toMatchObject({ status: "open", customer: null })

    const paid = await submit(session.session_id, form(cards.visa, { email: right, name: "Layla Haddad" }))
    expectHtml(paid, 200)
    const payments = await paymentsOfSession(key, session.session_id)
    const byStatus = Object.fromEntries(payments.map((p) => [p.status, p.customer]))
    expect(byStatus.failed).toMatchObject({ email: typo, name: "Layla Hadad" })
    expect(byStatus.succeeded).toMatchObject({ email: right, name: "Layla Haddad" })
    const done = await rawA().get(`/checkout_sessions/${session.session_id}`)
    expect(done.json).toMatchObject({ status: "complete", customer: { email: right, name: "Layla Haddad" } })
  })

  it("the paid page: a receipt dated in the account's time zone, in the language the browser asks for", async () => {
    const s = server()
    await s.run(Effect.flatMap(Accounts, (accounts) => accounts.setTimeZone(s.accountB.accountId, "America/New_York")))
    const session = await createSession(s.accountB.test.key)
    const paid = await submit(session.session_id, form("4242424242424242"))
    expectHtml(paid, 200)
    const [payment] = await paymentsOfSession(s.accountB.test.key, session.session_id)
    expect(payment.status).toBe("succeeded")
    const local = new Intl.DateTimeFormat("en-AE", {
      day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit", timeZone: "America/New_York", timeZoneName: "short"
    }).format(new Date(payment.paid_at))
    const payer = { cookie: receiptCookieOf(paid) }
    for (const page of [paid, await fetchPage(pageUrl(session.session_id), { headers: payer })]) {
      expect(page.html).toContain('<html lang="en" dir="ltr">')
      expect(page.html).toMatch(new RegExp(`data-testid="paid-at">${local}<`))
      expect(page.html).toContain(`data-testid="payment-id">${payment.payment_id}<`)
    }
    const arabic = await fetchPage(pageUrl(session.session_id), { headers: { ...payer, "accept-language": "ar-AE,ar;q=0.9,en;q=0.5" } })
    expectHtml(arabic, 200)
    expect(arabic.html).toContain('<html lang="ar" dir="rtl">')
    expect(arabic.html).toContain("تم استلام الدفعة")
    expect(arabic.html).not.toContain("Payment received")
    // Nothing to remember without a switch; with one, a cookie keeps it.
    expect(arabic.headers.get("set-cookie")).toBeNull()
    const switched = await fetchPage(`${pageUrl(session.session_id)}?lang=ar`)
    expect(switched.html).toContain('<html lang="ar" dir="rtl">')
    expect(switched.headers.get("set-cookie")).toMatch(/^fils_lang=ar; Max-Age=31536000; Path=\/; .*HttpOnly; SameSite=Lax/)
  })

  it("POST with invalid fields: 400 page with each field's error, no payment", async () => {
    const session = await createSession(server().accountA.test.key)
    const page = await submit(session.session_id, form("4242424242424241", { email: "nope", cvc: "12", exp_month: "13" }))
    expectHtml(page, 400)
    expectSecurityHeaders(page)
    // A script's month is refused on the page's one expiry field.
    for (const field of ["card_number", "email", "cvc", "exp"]) {
      expect(page.html, field).toMatch(new RegExp(`id="${field}"[^>]*aria-invalid="true"`))
      expect(page.html, field).toMatch(new RegExp(`<p class="error" id="${field}-error">[^<]+</p>`))
    }
    expect(page.html).toContain("Enter the expiry month, 01 to 12.")
    for (const field of ["name", "phone_number"]) {
      expect(page.html, field).not.toContain(`id="${field}-error"`)
    }
    // The customer's other input is kept; the card number is never echoed back.
    expect(page.html).toMatch(/name="name"[^>]*value="Layla Haddad"/)
    expect(page.html).not.toContain("4242424242424241")
    expect(await paymentsOfSession(server().accountA.test.key, session.session_id)).toEqual([])
    const read = await rawA().get(`/checkout_sessions/${session.session_id}`)
    expect(read.json.status).toBe("open")
    expect(read.json.customer).toBeNull()
  })

  it("a declined card: 402 page with a readable message; the session stays open; a failed payment and its event", async () => {
    const shop = await server().createAccount({ business_name: "Decline Shop" })
    const raw = rawFor(server(), shop.test.key)
    const session = await createSession(shop.test.key)
    const page = await submit(session.session_id, form(cards.declined))
    expectHtml(page, 402)
    expect(textOf(page.html)).toMatch(/declined/i)
    expect(page.html).toContain("role=\"alert\"")
    expect(page.html).toMatch(/<form/)
    expect(page.html).not.toContain("4000000000000002")
    const read = await raw.get(`/checkout_sessions/${session.session_id}`)
    expect(read.json.status).toBe("open")
    expect(read.json.payment_id).toBeNull()
    const payments = await paymentsOfSession(shop.test.key, session.session_id)
    expect(payments).toHaveLength(1)
    expect(Object.keys(payments[0]).sort()).toEqual(paymentFields)
    expect(payments[0]).toMatchObject({ status: "failed", fee_amount: 0, net_amount: 5000, paid_at: null })
    const failedList = await raw.get("/payments?status=failed")
    expect(failedList.json.items.map((p: any) => p.payment_id)).toEqual([payments[0].payment_id])
    const events = await raw.get("/events?type=payment.failed")
    expect(events.json.items).toHaveLength(1)
    expect(events.json.items[0].data).toStrictEqual(payments[0])

    const other = await submit(session.session_id, form(cards.insufficientFunds))
    expectHtml(other, 402)
    expect(textOf(other.html)).toMatch(/insufficient funds/i)
  })

  it("success: 303 to return_url keeping its query, with session_id, status and payment_id; the session completes", async () => {
    const shop = await server().createAccount({ business_name: "Happy Shop" })
    const raw = rawFor(server(), shop.test.key)
    const session = await createSession(shop.test.key, { return_url: "https://shop.example/thanks?order=42&lang=ar" })
    const token = tokenOf((await getPage(session.session_id)).html)
    const page = await postPage(session.session_id, { ...form(cards.visa), form_token: token })
    expect(page.status, page.html.slice(0, 300)).toBe(303)
    const location = new URL(page.headers.get("location") ?? "")
    expect(location.origin + location.pathname).toBe("https://shop.example/thanks")
    expect(location.searchParams.get("order")).toBe("42")
    expect(location.searchParams.get("lang")).toBe("ar")
    expect(location.searchParams.get("session_id")).toBe(session.session_id)
    expect(location.searchParams.get("status")).toBe("succeeded")
    const paymentId = location.searchParams.get("payment_id")
    expect(paymentId).toMatch(/^pay_[0-9a-f]{32}$/)

    const read = await raw.get(`/checkout_sessions/${session.session_id}`)
    expect(read.json).toMatchObject({ status: "complete", payment_id: paymentId })
    expect(read.json.completed_at).toMatch(isoMillis)
    expect(read.json.customer).toStrictEqual({ name: "Layla Haddad", email: "layla@example.ae", phone_number: "+971501234567" })

    const payment = await raw.get(`/payments/${paymentId}`)
    expect(payment.status).toBe(200)
    expect(Object.keys(payment.json).sort()).toEqual(paymentFields)
    expect(payment.json).toMatchObject({
      object: "payment",
      status: "succeeded",
      total_amount: 5000,
      refunded_amount: 0,
      fee_amount: 245, // round(5000 × 2.9%) + 100
      net_amount: 4755,
      currency: "AED",
      checkout_session_id: session.session_id,
      subscription_id: null,
      billing_reason: "payment",
      livemode: false
    })
    expect(payment.json.paid_at).toMatch(isoMillis)
    expect(payment.json.customer.customer_id).toMatch(/^cus_[0-9a-f]{32}$/)
    expect(payment.text).not.toContain("4242")

    const events = await raw.get("/events?type=payment.succeeded")
    expect(events.status).toBe(200)
    expect(events.json.items).toHaveLength(1)
    const event = events.json.items[0]
    expect(Object.keys(event).sort()).toEqual(["created_at", "data", "event_id", "livemode", "object", "request_id", "type"])
    expect(event.data).toStrictEqual(payment.json)
    const one = await raw.get(`/events/${event.event_id}`)
    expect(one.json).toStrictEqual(event)

    // Completed: the page shows that instead of the form, and another submission creates nothing.
    const after = await getPage(session.session_id)
    expectHtml(after, 200)
    expect(textOf(after.html)).toMatch(/complete/i)
    expect(after.html).not.toMatch(/<form/)
    const resubmit = await postPage(session.session_id, { ...form(cards.visa), form_token: token })
    expect(resubmit.status).not.toBe(303)
    expect(resubmit.html).not.toMatch(/<form/)
    expect(await paymentsOfSession(shop.test.key, session.session_id)).toHaveLength(1)
  })

  it("the receipt and tax invoice are the payer's browser's: anyone else with the link sees only that it is complete", async () => {
    const vat = await server().createAccount({ business_name: "Dune Coffee", tax_profile: taxProfile })
    const session = await createSession(vat.test.key)
    const open = await getPage(session.session_id)
    const formToken = tokenOf(open.html)
    const paid = await postPage(session.session_id, { ...form(cards.visa, { name: "Layla Haddad", email: "layla@example.ae" }), form_token: formToken })
    expectHtml(paid, 200)
    const setCookie = paid.headers.get("set-cookie") ?? ""
    expect(setCookie).toMatch(new RegExp(`^fils_receipt=[A-Za-z0-9_-]{32}; Max-Age=7776000; Path=/checkout/${session.session_id}; HttpOnly; SameSite=Lax$`))
    const payer = { cookie: receiptCookieOf(paid) }
    const [payment] = await paymentsOfSession(vat.test.key, session.session_id)
    expect(payment.status).toBe("succeeded")

    const own = await fetchPage(pageUrl(session.session_id), { headers: payer })
    expect(own.html).toContain(`data-testid="payment-id">${payment.payment_id}<`)
    expect(own.html).toContain(`href="/checkout/${session.session_id}/invoice"`)
    const invoice = await fetchPage(`${pageUrl(session.session_id)}/invoice`, { headers: payer })
    expectHtml(invoice, 200)
    expect(invoice.html).toContain("Layla Haddad")

    // A fresh client, one with another checkout's key, and one that saw the open page's form token: no receipt.
    const others = [{}, { cookie: "fils_receipt=someone-elses-key" }, { cookie: `fils_receipt=${formToken}` }]
    for (const headers of others) {
      for (const lang of ["en", "ar"]) {
        const page = await fetchPage(`${pageUrl(session.session_id)}?lang=${lang}`, { headers })
        expectHtml(page, 200)
        expect(page.html).toContain(lang === "en" ? "This checkout is complete." : "اكتملت عملية الدفع هذه.")
        for (const secret of [payment.payment_id, "50.00", "Beans", "/invoice", "Layla", "layla@example.ae"]) {
          expect(page.html, secret).not.toContain(secret)
        }
      }
      const denied = await fetchPage(`${pageUrl(session.session_id)}/invoice`, { headers })
      expect(denied.status).toBe(404)
      expect(denied.html).not.toContain("Layla")
      expect(denied.html).not.toContain("layla@example.ae")
    }
  })

  it("after a redirect to return_url, the payer's browser still has the receipt and the way back", async () => {
    const session = await createSession(server().accountA.test.key, { return_url: "https://shop.example.ae/done" })
    const paid = await submit(session.session_id, form(cards.visa))
    expect(paid.status).toBe(303)
    const back = await fetchPage(pageUrl(session.session_id), { headers: { cookie: receiptCookieOf(paid) } })
    expect(back.html).toContain('data-testid="return"')
    expect(back.html).toContain('data-testid="payment-id"')
    const stranger = await getPage(session.session_id)
    expect(stranger.html).not.toContain('data-testid="return"')
    expect(stranger.html).not.toContain("payment_id=")
  })

  it("a script posting only the seven named fields pays the session as it stands; a browser's post needs the page's token", async () => {
    const key = server().accountA.test.key
    const session = await createSession(key, { return_url: "https://shop.example/done" })
    const id = session.session_id
    // A browser says where its form came from: from this very page, but without the page's token, it charges nothing.
    const browser = await fetchPage(pageUrl(id), { method: "POST", body: new URLSearchParams(form(cards.visa)), headers: { origin: server().origin } })
    expect(browser.status, browser.html.slice(0, 300)).not.toBe(303)
    expect(browser.html).toContain("This form is out of date")
    const wrong = await postPage(id, { ...form(cards.visa), form_token: "not the token" })
    expect(wrong.html).toContain("This form is out of date")
    expect(await paymentsOfSession(key, id)).toEqual([])
    const script = await postPage(id, form(cards.visa))
    expect(script.status, script.html.slice(0, 300)).toBe(303)
    const location = new URL(script.headers.get("location") ?? "")
    expect([location.searchParams.get("session_id"), location.searchParams.get("status")]).toStrictEqual([id, "succeeded"])
    expect((await paymentsOfSession(key, id)).map((p) => p.status)).toEqual(["succeeded"])
    // Paid, the session is paid no more, and a script gets nothing of its receipt.
    const again = await postPage(id, form(cards.visa))
    expect(again.status).not.toBe(303)
    expect(again.headers.get("set-cookie") ?? "").not.toContain("fils_receipt")
    expect((await paymentsOfSession(key, id)).map((p) => p.status)).toEqual(["succeeded"])
  })

  it("success without return_url: a success page", async () => {
    const session = await createSession(server().accountA.test.key)
    const page = await submit(session.session_id, form(cards.visa))
    expectHtml(page, 200)
    expectSecurityHeaders(page)
    expect(textOf(page.html)).toMatch(/success|received|thank/i)
    expect(page.html).not.toMatch(/<form/)
    const payments = await paymentsOfSession(server().accountA.test.key, session.session_id)
    expect(payments.map((p) => p.status)).toEqual(["succeeded"])
  })

  it("an asynchronous card (0259): a processing page, the session still open, the payment processing", async () => {
    const session = await createSession(server().accountA.test.key)
    const page = await submit(session.session_id, form(cards.settleSucceeds))
    expectHtml(page, 200)
    expect(textOf(page.html)).toMatch(/processing|processed/i)
    const payments = await paymentsOfSession(server().accountA.test.key, session.session_id)
    expect(payments.map((p) => p.status)).toEqual(["processing"])
    expect((await rawA().get(`/checkout_sessions/${session.session_id}`)).json.status).toBe("open")
    // A second submission while it is processing creates nothing.
    const again = await submit(session.session_id, form(cards.visa))
    expect(again.status).toBe(409)
    expect(await paymentsOfSession(server().accountA.test.key, session.session_id)).toHaveLength(1)
  })

  it("two concurrent submissions of one session: exactly one succeeded payment, one redirect", async () => {
    const key = server().accountA.test.key
    for (let round = 0; round < 3; round++) {
      const session = await createSession(key, { return_url: "https://shop.example/done" })
      const token = tokenOf((await getPage(session.session_id)).html)
      const pages = await Promise.all(
        [0, 1, 2].map(() => postPage(session.session_id, { ...form(cards.visa), form_token: token }))
      )
      expect(pages.filter((p) => p.status === 303), pages.map((p) => p.status).join(",")).toHaveLength(1)
      for (const p of pages.filter((p) => p.status !== 303)) {
        // Refused while the first is processing (409, the form with a message), or shown the completed page.
        expect(p.status === 409 || p.status === 200, String(p.status)).toBe(true)
        if (p.status === 200) expect(p.html).not.toMatch(/<form/i)
      }
      const payments = await paymentsOfSession(key, session.session_id)
      expect(payments.map((p) => p.status)).toEqual(["succeeded"])
      const read = await rawA().get(`/checkout_sessions/${session.session_id}`)
      expect(read.json).toMatchObject({ status: "complete", payment_id: payments[0].payment_id })
    }
  })

  it("an expired session: 410 page for GET and POST, no payment", async () => {
    const s = server()
    const original = await createSession(s.accountA.test.key)
    const id = await insertExpiredCopy(s, original.session_id)
    const read = await rawA().get(`/checkout_sessions/${id}`)
    expect(read.status, read.text).toBe(200)
    expect(read.json.status).toBe("expired")
    const page = await getPage(id)
    expectHtml(page, 410)
    expect(textOf(page.html)).toMatch(/expired/i)
    expect(page.html).not.toMatch(/<form/)
    const original_page = await getPage(original.session_id)
    const post = await postPage(id, { ...form(cards.visa), form_token: tokenOf(original_page.html) })
    expectHtml(post, 410)
    const invalid = await postPage(id, { ...form(cards.visa, { cvc: "" }), form_token: tokenOf(original_page.html) })
    expectHtml(invalid, 410)
    expect(await paymentsOfSession(s.accountA.test.key, id)).toEqual([])
  })

  it("an unknown or malformed id: a 404 page", async () => {
    for (const id of [`cks_${"0".repeat(32)}`, "cks_1", "nope", `pay_${"0".repeat(32)}`, "<script>"]) {
      const page = await getPage(encodeURIComponent(id))
      expectHtml(page, 404)
      expect(textOf(page.html)).toMatch(/not (valid|found)/i)
      expect(page.html).not.toMatch(/<form/)
      const post = await postPage(encodeURIComponent(id), { ...form(cards.visa), form_token: "x" })
      expectHtml(post, 404)
    }
  })

  it("a wrong form_token, or none from a browser, is refused: no payment", async () => {
    const session = await createSession(server().accountA.test.key)
    const other = await createSession(server().accountA.test.key)
    const otherToken = tokenOf((await getPage(other.session_id)).html)
    const sameSite = { "sec-fetch-site": "same-origin" }
    for (const [fields, headers] of [
      [form(cards.visa), sameSite],
      [{ ...form(cards.visa), form_token: "forged" }, {}],
      [{ ...form(cards.visa), form_token: otherToken }, {}]
    ] as const) {
      const page = await fetchPage(pageUrl(session.session_id), { method: "POST", body: new URLSearchParams(fields), headers })
      expect(page.headers.get("content-type") ?? "").toMatch(/^text\/html/)
      expect(page.status).toBeGreaterThanOrEqual(400)
      expect(page.status).toBeLessThan(500)
      expect(page.headers.get("location")).toBeNull()
    }
    expect(await paymentsOfSession(server().accountA.test.key, session.session_id)).toEqual([])
    expect((await rawA().get(`/checkout_sessions/${session.session_id}`)).json.status).toBe("open")
  })

  it("a valid form_token posted from another site (Origin, Sec-Fetch-Site) is refused: 403, nothing charged", async () => {
    const key = server().accountA.test.key
    const session = await createSession(key, { return_url: "https://shop.example/done" })
    // The attacker's server reads the page, and its token, like anyone can.
    const token = tokenOf((await getPage(session.session_id)).html)
    const otherPort = new URL(server().origin).port === "1" ? "2" : "1"
    const forged: ReadonlyArray<Record<string, string>> = [
      { origin: "https://evil.example" },
      { "sec-fetch-site": "cross-site" },
      { origin: "https://evil.example", "sec-fetch-site": "cross-site" },
      // Another port or subdomain of the same site.
      { "sec-fetch-site": "same-site" },
      { origin: `http://127.0.0.1:${otherPort}` },
      // The checkout's origin as a prefix, or with a path, is not the origin.
      { origin: `${server().origin}.evil.example` },
      { origin: `${server().origin}/checkout` },
      { origin: server().origin, "sec-fetch-site": "cross-site" },
      // A hidden origin is trusted only when the browser says the request is same-origin.
      { origin: "null" },
      { origin: "null", "sec-fetch-site": "cross-site" },
      { origin: "garbage" }
    ]
    for (const headers of forged) {
      const page = await fetchPage(pageUrl(session.session_id), {
        method: "POST",
        headers,
        body: new URLSearchParams({ ...form(cards.visa), form_token: token })
      })
      const shown = JSON.stringify(headers)
      expect(page.status, shown).toBe(403)
      expect(page.headers.get("content-type") ?? "", shown).toMatch(/^text\/html/)
      expect(page.headers.get("location"), shown).toBeNull()
      expect(textOf(page.html), shown).toMatch(/not sent from this checkout page/i)
      expectSecurityHeaders(page)
    }
    expect(await paymentsOfSession(key, session.session_id)).toEqual([])
    expect((await rawA().get(`/checkout_sessions/${session.session_id}`)).json.status).toBe("open")

    // From the page itself (a browser sends its own origin, or `null` under `no-referrer` with `same-origin`), or
    // from a script that sends neither header: charged.
    const sameOrigin: ReadonlyArray<Record<string, string>> = [
      { origin: server().origin, "sec-fetch-site": "same-origin" },
      { origin: "null", "sec-fetch-site": "same-origin" },
      { origin: server().origin },
      {}
    ]
    for (const headers of sameOrigin) {
      const target = headers === sameOrigin[0] ? session : await createSession(key, { return_url: "https://shop.example/done" })
      const fresh = tokenOf((await getPage(target.session_id)).html)
      const paid = await fetchPage(pageUrl(target.session_id), {
        method: "POST",
        headers,
        body: new URLSearchParams({ ...form(cards.visa), form_token: fresh })
      })
      expect(paid.status, `${JSON.stringify(headers)} ${paid.html.slice(0, 300)}`).toBe(303)
      expect(new URL(paid.headers.get("location")!).searchParams.get("status")).toBe("succeeded")
      expect((await paymentsOfSession(key, target.session_id)).map((p) => p.status)).toEqual(["succeeded"])
    }
    // Once complete, another site's submission is still a 403 that charges nothing.
    const late = await fetchPage(pageUrl(session.session_id), {
      method: "POST",
      headers: { origin: "https://evil.example" },
      body: new URLSearchParams({ ...form(cards.visa), form_token: token })
    })
    expect(late.status).toBe(403)
    expect(late.html).not.toMatch(/<form/)
    expect(await paymentsOfSession(key, session.session_id)).toHaveLength(1)
  })

  it("merchant strings with markup are escaped in the page", async () => {
    const evil = "<script>alert('x')</script>"
    const shop = await server().createAccount({ business_name: `Shop ${evil}` })
    const product = await createProduct(shop.test.key, { name: `Beans ${evil}`, metadata: { note: evil } })
    const session = await createSession(shop.test.key, {
      product_cart: [{ product_id: product.product_id }],
      metadata: { "<b>k</b>": evil },
      customer: { email: `x-${randomUUID()}@example.ae`, name: `Name ${evil}` }
    })
    for (const page of [await getPage(session.session_id), await submit(session.session_id, form(cards.declined))]) {
      expect(page.html).not.toMatch(/<script/i)
      expect(page.html).not.toContain("<b>")
      expect(page.html).toContain("&lt;script&gt;")
      const text = textOf(page.html)
      expect(text).toContain(`Shop ${evil}`)
      expect(text).toContain(`Beans ${evil}`)
    }
    const invalid = await submit(session.session_id, form(cards.visa, { name: `"><script>x</script>`, cvc: "1" }))
    expectHtml(invalid, 400)
    expect(invalid.html).not.toMatch(/<script/i)
  })

  // API: /payments and /events ----------------------------------------------------------------------------------------

  it("GET /payments filters by status, customer_id and checkout_session_id; GET /payments/{id}", async () => {
    const s = server()
    const shop = await s.createAccount()
    const raw = rawFor(s, shop.test.key)
    const a = await createSession(shop.test.key)
    const b = await createSession(shop.test.key)
    await submit(a.session_id, form(cards.declined, { email: "a@example.ae" }))
    await submit(a.session_id, form(cards.visa, { email: "a@example.ae" }))
    await submit(b.session_id, form(cards.visa, { email: "b@example.ae" }))
    const all = (await raw.get("/payments")).json.items as Array<any>
    expect(all).toHaveLength(3)
    expect(all.map((p) => p.status)).toEqual(["succeeded", "succeeded", "failed"])
    for (const p of all) expect(Object.keys(p).sort()).toEqual(paymentFields)

    const ids = async (query: string) => {
      const res = await raw.get(`/payments?${query}`)
      expect(res.status, res.text).toBe(200)
      return (res.json.items as Array<any>).map((p) => p.payment_id)
    }
    expect(await ids("status=failed")).toEqual([all[2].payment_id])
    expect(await ids("status=succeeded")).toEqual([all[0].payment_id, all[1].payment_id])
    expect(await ids("status=refunded")).toEqual([])
    expect(await ids(`checkout_session_id=${a.session_id}`)).toEqual([all[1].payment_id, all[2].payment_id])
    expect(await ids(`checkout_session_id=${b.session_id}`)).toEqual([all[0].payment_id])
    const customerA = all[2].customer.customer_id
    expect(all[1].customer.customer_id).toBe(customerA)
    expect(await ids(`customer_id=${customerA}`)).toEqual([all[1].payment_id, all[2].payment_id])
    expect(await ids(`customer_id=${customerA}&status=failed`)).toEqual([all[2].payment_id])
    expect(await ids(`customer_id=${all[0].customer.customer_id}`)).toEqual([all[0].payment_id])
    expect(await ids("customer_id=cus_bad")).toEqual([])
    expect(await ids("checkout_session_id=whatever")).toEqual([])
    expect(await ids("limit=1")).toEqual([all[0].payment_id])
    expectError(await raw.get("/payments?status=paid"), 400, "INVALID_REQUEST")
    expectError(await raw.get("/payments?limit=0"), 400, "INVALID_REQUEST")
    expectError(await raw.get("/payments?cursor=nope"), 400, "INVALID_REQUEST")

    const one = await raw.get(`/payments/${all[0].payment_id}`)
    expect(one.status).toBe(200)
    expect(one.json).toStrictEqual(all[0])
    for (const key of [shop.live.key, s.accountA.test.key]) {
      expectError(await rawFor(s, key).get(`/payments/${all[0].payment_id}`), 404, "NOT_FOUND")
      expect((await rawFor(s, key).get(`/payments?checkout_session_id=${a.session_id}`)).json.items).toEqual([])
    }
    expectError(await raw.get(`/payments/pay_${"0".repeat(32)}`), 404, "NOT_FOUND")
    expectError(await raw.get("/payments/pay_1"), 404, "NOT_FOUND")
  })

  it("GET /events filters by type and pages; GET /events/{id}; 404 across modes and accounts", async () => {
    const s = server()
    const shop = await s.createAccount()
    const raw = rawFor(s, shop.test.key)
    const session = await createSession(shop.test.key)
    await submit(session.session_id, form(cards.declined))
    await submit(session.session_id, form(cards.insufficientFunds))
    await submit(session.session_id, form(cards.visa))
    const all = await raw.get("/events")
    expect(all.status).toBe(200)
    expect(all.json.items.map((e: any) => e.type)).toEqual(["payment.succeeded", "payment.failed", "payment.failed"])
    for (const e of all.json.items) {
      expect(e.event_id).toMatch(/^evt_[0-9a-f]{32}$/)
      expect(e.object).toBe("event")
      expect(e.livemode).toBe(false)
      expect(e.created_at).toMatch(isoMillis)
      const payment = await raw.get(`/payments/${e.data.payment_id}`)
      expect(e.data).toStrictEqual(payment.json) // nothing changed the payments since
    }
    const failed = await raw.get("/events?type=payment.failed")
    expect(failed.json.items.map((e: any) => e.event_id)).toEqual(all.json.items.slice(1).map((e: any) => e.event_id))
    expect((await raw.get("/events?type=refund.succeeded")).json.items).toEqual([])
    expectError(await raw.get("/events?type=payment.created"), 400, "INVALID_REQUEST")

    const page1 = await raw.get("/events?limit=2")
    expect(page1.json.has_more).toBe(true)
    const page2 = await raw.get(`/events?limit=2&cursor=${page1.json.next_cursor}`)
    expect(page2.json.has_more).toBe(false)
    expect(page2.json.next_cursor).toBeNull()
    expect([...page1.json.items, ...page2.json.items]).toStrictEqual(all.json.items)
    expectError(await raw.get(`/events?type=payment.failed&cursor=${page1.json.next_cursor}`), 400, "INVALID_REQUEST")

    const first = all.json.items[0]
    expect((await raw.get(`/events/${first.event_id}`)).json).toStrictEqual(first)
    for (const key of [shop.live.key, s.accountA.test.key, s.accountB.live.key]) {
      expectError(await rawFor(s, key).get(`/events/${first.event_id}`), 404, "NOT_FOUND")
      expect((await rawFor(s, key).get("/events?type=payment.succeeded")).json.items.map((e: any) => e.event_id))
        .not.toContain(first.event_id)
    }
    expectError(await raw.get("/events/evt_1"), 404, "NOT_FOUND")
    expectError(await raw.get(`/events/evt_${"0".repeat(32)}`), 404, "NOT_FOUND")
  })
})
