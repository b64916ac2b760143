/**
 * The customer portal's walls, on `fils serve`. One customer's portal session, beside another customer
 * of the same account and mode, a customer of the other mode and one of another account, each with a subscription
 * and payments. Property over the portal's routes: any of their objects (or an id of the wrong kind, or noise)
 * named from this session is 404 and nothing changes; so is a plan the merchant does not offer in the portal, for the
 * session's own subscription. Every form refuses a post without the session's CSRF token or from another site. Strings planted in product, merchant and customer fields stay inert text in a real browser.
 * The link's secret and the cookie never reach the server's logs.
 */
import type { Browser } from "playwright-core"
import { FastCheck as fc } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { launchChromium } from "../support/browser.js"
import { runFils, type Served, serveFils } from "../support/cli.js"
import { openPortalLink } from "../support/portal.js"
import { ok, postCheckoutForm, type TestDatabase, testDatabase } from "../support/load.js"

const planted = `<script>window.__x=1</script>"'><img src=x onerror="window.__x=2">`

let db: TestDatabase
let server: Served
let env: Record<string, string | undefined>

interface Customer {
  readonly customerId: string
  readonly subscription: string
  readonly payments: ReadonlyArray<string>
  /** Their tax invoices (the shops are VAT-registered): one per payment. */
  readonly invoices: ReadonlyArray<string>
}

/** A customer (named `planted`) who subscribed to a product named `planted` and bought another. */
const makeCustomer = async (key: string, email: string): Promise<Customer> => {
  const plan = await ok(server.baseUrl, key, "POST", "/products", { name: planted, price: 500, currency: "AED", billing: "recurring", billing_interval: "month" })
  const once = await ok(server.baseUrl, key, "POST", "/products", { name: planted, price: 1_000, currency: "AED", description: planted })
  for (const productId of [plan.product_id, once.product_id]) {
    const session = await ok(server.baseUrl, key, "POST", "/checkout_sessions", { product_cart: [{ product_id: productId }], customer: { email, name: planted } })
    const posted = await postCheckoutForm(server.baseUrl, session.session_id, { card_number: "4242424242424242", name: planted, email })
    expect(posted.status).toBe(200)
  }
  const customerId = ((await ok(server.baseUrl, key, "GET", `/customers?email=${encodeURIComponent(email)}`)).items as Array<any>)[0].customer_id
  const subscription = ((await ok(server.baseUrl, key, "GET", `/subscriptions?customer_id=${customerId}`)).items as Array<any>)[0].subscription_id
  const payments = ((await ok(server.baseUrl, key, "GET", `/payments?customer_id=${customerId}`)).items as Array<any>).map((p) => p.payment_id)
  const invoices = ((await ok(server.baseUrl, key, "GET", `/invoices?customer_id=${customerId}`)).items as Array<any>).map((i) => i.invoice_id)
  expect(invoices).toHaveLength(payments.length)
  return { customerId, subscription, payments, invoices }
}

const request = async (path: string, options: { readonly cookie?: string; readonly form?: Record<string, string>; readonly origin?: string } = {}) => {
  const response = await fetch(`${server.baseUrl}${path}`, {
    method: options.form === undefined ? "GET" : "POST",
    redirect: "manual",
    headers: {
      ...(options.cookie === undefined ? {} : { cookie: options.cookie }),
      ...(options.form === undefined ? {} : { "content-type": "application/x-www-form-urlencoded", origin: options.origin ?? server.baseUrl })
    },
    ...(options.form === undefined ? {} : { body: new URLSearchParams(options.form).toString() })
  })
  return { status: response.status, body: await response.text(), headers: response.headers }
}

let mine: Customer
let neighbour: Customer
let otherMode: Customer
let otherAccount: Customer
let link = ""
let cookie = ""
let csrf = ""
let browser: Browser
/** Plans offered in the portal: this shop's (test mode), the other mode's and the other shop's. */
let offered = ""
let offeredElsewhere: Array<string> = []
/** The test key of the session customer's shop. */
let shopKey = ""

beforeAll(async () => {
  db = await testDatabase()
  env = { DATABASE_URL: db.url, FILS_DATA_DIR: undefined, FILS_SIMULATED_LIVE: "true" }
  ;[server, browser] = await Promise.all([serveFils(env, 60_000), launchChromium()])
  const shops = []
  for (const name of [planted, "Other shop"]) {
    const made = JSON.parse((await runFils(["accounts", "create", "--name", name, "--support-email", "help@shop.example.ae"], env)).stdout)
    await runFils(["accounts", "update", "--account", made.account_id, "--live-payments", "enabled"], env)
    // VAT-registered: every payment issues a tax invoice, which the portal shows its customer (and no one else).
    const taxed = await runFils(["accounts", "tax-profile", "set", "--legal-name", "Shop LLC", "--trn", "100123456700003",
      "--line1", "Al Fahidi St", "--city", "Dubai", "--emirate", "DXB", made.account_id], env)
    expect(taxed.code, taxed.stderr).toBe(0)
    shops.push(made.keys)
  }
  const [a, b] = shops
  shopKey = a.test.secret
  mine = await makeCustomer(a.test.secret, "mine@example.ae")
  neighbour = await makeCustomer(a.test.secret, "neighbour@example.ae")
  otherMode = await makeCustomer(a.live.secret, "mine@example.ae")
  otherAccount = await makeCustomer(b.test.secret, "mine@example.ae")
  const plan = (key: string) =>
    ok(server.baseUrl, key, "POST", "/products", { name: planted, price: 900, currency: "AED", billing: "recurring", billing_interval: "month", offered_in_portal: true })
  offered = (await plan(a.test.secret)).product_id
  offeredElsewhere = [(await plan(a.live.secret)).product_id, (await plan(b.test.secret)).product_id]
  link = (await ok(server.baseUrl, a.test.secret, "POST", "/customer_portal_sessions", { customer_id: mine.customerId })).url
  cookie = await openPortalLink(link)
  csrf = /name="csrf_token" value="([^"]+)"/.exec((await request("/portal", { cookie })).body)![1]!
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await server?.stop("SIGTERM")
  await db?.close()
}, 30_000)

/** What the walls protect: every subscription's state and card, every payment, every portal session. */
const snapshot = () =>
  db.sql(`SELECT
    (SELECT json_agg(s ORDER BY subscription_id) FROM (SELECT subscription_id, status, cancel_at_period_end, card_token, card_last4, failed_payment_attempts, product_id, quantity, scheduled_change, pending_change, credit_balance FROM subscriptions) s) AS subscriptions,
    (SELECT json_agg(p ORDER BY payment_id) FROM (SELECT payment_id, status FROM payments) p) AS payments,
    (SELECT count(*) FROM subscription_attempts) AS attempts`)

type Route = (id: string) => { readonly path: string; readonly form?: Record<string, string> }
const card = { card_number: "4242424242424242", exp_month: "12", exp_year: "2040", cvc: "123" }
const routes: Record<string, Route> = {
  "card form": (id) => ({ path: `/portal/subscriptions/${id}/card` }),
  "card update": (id) => ({ path: `/portal/subscriptions/${id}/card`, form: { ...card, csrf_token: csrf } }),
  "cancel at period end": (id) => ({ path: `/portal/subscriptions/${id}/cancel-at-period-end`, form: { cancel_at_period_end: "true", csrf_token: csrf } }),
  "undo cancel": (id) => ({ path: `/portal/subscriptions/${id}/cancel-at-period-end`, form: { cancel_at_period_end: "false", csrf_token: csrf } }),
  "plans": (id) => ({ path: `/portal/subscriptions/${id}/plan` }),
  "plan preview": (id) => ({ path: `/portal/subscriptions/${id}/plan/preview`, form: { product_id: offered, quantity: "1", csrf_token: csrf } }),
  "plan change": (id) => ({ path: `/portal/subscriptions/${id}/plan`, form: { product_id: offered, quantity: "1", quote_id: "qt_0000000000000_00000000000000000000000000000000", once: "a-one-time-token-0001", csrf_token: csrf } }),
  "keep plan": (id) => ({ path: `/portal/subscriptions/${id}/plan/scheduled/cancel`, form: { csrf_token: csrf } }),
  "receipt": (id) => ({ path: `/portal/receipts/${id}` }),
  "invoice": (id) => ({ path: `/portal/invoices/${id}` }),
  "credit note": (id) => ({ path: `/portal/credit-notes/${id}` })
}

describe("the customer portal's walls", () => {
  it("the session's own objects answer (the walls are not just closed doors)", async () => {
    expect((await request(routes["card form"]!(mine.subscription).path, { cookie })).status).toBe(200)
    expect((await request(routes.plans!(mine.subscription).path, { cookie })).body).toContain(offered)
    for (const payment of mine.payments) expect((await request(routes.receipt!(payment).path, { cookie })).status).toBe(200)
    for (const invoice of mine.invoices) expect((await request(routes.invoice!(invoice).path, { cookie })).status).toBe(200)
    const home = await request("/portal", { cookie })
    for (const id of [mine.subscription, ...mine.payments]) expect(home.body).toContain(id)
    for (const other of [neighbour, otherMode, otherAccount]) {
      for (const id of [other.subscription, ...other.payments]) expect(home.body).not.toContain(id)
    }
  })

  it("property: any other customer's object, an id of the wrong kind, or noise, on any portal route, is 404 and changes nothing", async () => {
    const foreign = [neighbour, otherMode, otherAccount].flatMap((c) => [c.subscription, ...c.payments, ...c.invoices])
    // Ids of the wrong kind for the route: my payments where a subscription goes and the reverse; my invoices elsewhere.
    const wrongKind = [mine.subscription, ...mine.payments, ...mine.invoices]
    const before = await snapshot()
    await fc.assert(fc.asyncProperty(
      fc.constantFrom(...Object.keys(routes)),
      fc.oneof(fc.constantFrom(...foreign), fc.constantFrom(...wrongKind), fc.stringMatching(/^[a-z]{2,4}_[0-9a-f]{0,40}$/)),
      async (name, id) => {
        const route = routes[name]!(id)
        const own = name === "receipt"
          ? mine.payments.includes(id)
          : name === "invoice"
          ? mine.invoices.includes(id)
          : name === "credit note"
          ? false
          : id === mine.subscription
        fc.pre(!own)
        const res = await request(route.path, { cookie, ...(route.form === undefined ? {} : { form: route.form }) })
        expect(res.status, `${name} ${id}: ${res.body.slice(0, 200)}`).toBe(404)
        for (const other of foreign) expect(res.body).not.toContain(other === id ? "\u0000" : other)
      }
    ), { numRuns: 80 })
    expect(await snapshot()).toEqual(before)
  }, 120_000)

  it("a plan not offered in the portal (this shop's, or offered in the other mode or shop), or noise, is 404 on the preview and the change of the session's own subscription; nothing changes", async () => {
    const before = await snapshot()
    const notOffered = ((await ok(server.baseUrl, shopKey, "GET", "/products?billing=recurring&limit=100")).items as Array<any>)
      .filter((p) => !p.offered_in_portal).map((p) => p.product_id)
    expect(notOffered.length).toBeGreaterThan(0)
    for (const product of [...notOffered, ...offeredElsewhere, "pdt_00000000000000000000000000000000", "nonsense"]) {
      for (const name of ["plan preview", "plan change"]) {
        const route = routes[name]!(mine.subscription)
        const res = await request(route.path, { cookie, form: { ...route.form!, product_id: product } })
        expect(res.status, `${name} ${product}: ${res.body.slice(0, 200)}`).toBe(404)
      }
    }
    expect(await snapshot()).toEqual(before)
    // The plan offered does answer, with a preview (the walls are not just closed doors).
    const shown = await request(routes["plan preview"]!(mine.subscription).path, { cookie, form: routes["plan preview"]!(mine.subscription).form! })
    expect(shown.status, shown.body.slice(0, 300)).toBe(200)
    expect(shown.body).toMatch(/name="quote_id" value="qt_/)
  })

  it("every form refuses a post without the session's token, with another session's, or from another site: 403, nothing changed", async () => {
    const before = await snapshot()
    const forms = [
      routes["card update"]!(mine.subscription),
      routes["cancel at period end"]!(mine.subscription),
      routes["plan preview"]!(mine.subscription),
      routes["plan change"]!(mine.subscription),
      routes["keep plan"]!(mine.subscription),
      { path: "/portal/sign-out", form: { csrf_token: csrf } }
    ]
    for (const route of forms) {
      const { csrf_token: _, ...withoutToken } = route.form!
      expect((await request(route.path, { cookie, form: withoutToken })).status).toBe(403)
      expect((await request(route.path, { cookie, form: { ...route.form!, csrf_token: `${csrf}x` } })).status).toBe(403)
      expect((await request(route.path, { cookie, form: route.form!, origin: "https://evil.example" })).status).toBe(403)
      expect((await request(route.path, { form: route.form! })).status).toBe(401)
    }
    expect(await snapshot()).toEqual(before)
    expect((await request("/portal", { cookie })).status).toBe(200)
  })

  it("strings planted in product, merchant and customer fields stay inert text in Chromium", async () => {
    const context = await browser.newContext()
    try {
      const [name, value] = cookie.split("=")
      await context.addCookies([{ name: name!, value: value!, url: server.baseUrl }])
      const page = await context.newPage()
      let dialogs = 0
      page.on("dialog", async (d) => {
        dialogs++
        await d.dismiss()
      })
      for (const path of ["/portal", routes["card form"]!(mine.subscription).path, routes.plans!(mine.subscription).path, routes.receipt!(mine.payments[0]!).path]) {
        const res = await page.goto(`${server.baseUrl}${path}`)
        expect(res?.status(), path).toBe(200)
        expect(await page.evaluate(() => (window as unknown as { __x?: number }).__x), path).toBeUndefined()
        expect(await page.locator("img").count(), path).toBe(0)
        expect(await page.locator("script").count(), path).toBe(0)
        expect(await page.locator("body").innerText(), path).toContain(planted)
      }
      expect(dialogs).toBe(0)
    } finally {
      await context.close()
    }
  })

  it("the link's secret and the cookie never reach the server's logs", async () => {
    const secret = new URL(link).pathname.split("/").pop()!
    const cookieSecret = cookie.split("=")[1]!
    expect(secret.length).toBeGreaterThan(30)
    const logs = server.stdout() + server.stderr()
    expect(logs).toContain("/portal/{token}")
    expect(logs).not.toContain(secret)
    expect(logs).not.toContain(cookieSecret)
  })
})
