/**
 * The customer portal's session on `fils serve` over PostgreSQL: a link's GET changes nothing (a mail scanner that
 * follows it leaves it for the customer), the button on that page starts the session; signing out ends the session
 * on the server, so the old cookie reads and changes nothing; and a card form posted several times at once (a
 * double-click) on a subscription on hold charges once, and every post shows that one outcome at once.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runFils, type Served, serveFils } from "../support/cli.js"
import { ok, postCheckoutForm, type TestDatabase, testDatabase } from "../support/load.js"

let db: TestDatabase
let server: Served
let env: Record<string, string | undefined>
let key = ""

beforeAll(async () => {
  db = await testDatabase()
  env = { DATABASE_URL: db.url, FILS_DATA_DIR: undefined }
  server = await serveFils(env, 60_000)
  const made = await runFils(["accounts", "create", "--name", "Dune Coffee Roasters"], env)
  expect(made.code, made.stderr).toBe(0)
  key = JSON.parse(made.stdout).keys.test.secret
}, 90_000)

afterAll(async () => {
  await server?.stop("SIGTERM")
  await db?.close()
}, 30_000)

interface Answer {
  readonly status: number
  readonly body: string
  readonly headers: Headers
}

const request = async (
  path: string,
  options: { readonly cookie?: string; readonly form?: Record<string, string>; readonly origin?: string } = {}
): Promise<Answer> => {
  const response = await fetch(new URL(path, server.baseUrl), {
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

/** The `name=value` pairs a response sets (its cookies, without attributes). */
const cookiesOf = (answer: Answer) => answer.headers.getSetCookie().map((c) => c.split(";")[0]!)
const hiddenField = (body: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(body)?.[1]

/** A monthly subscription paid with `card` on the hosted page. */
const subscribe = async (email: string, card: string) => {
  const product = await ok(server.baseUrl, key, "POST", "/products", { name: "Coffee club", price: 9900, currency: "AED", billing: "recurring", billing_interval: "month" })
  const session = await ok(server.baseUrl, key, "POST", "/checkout_sessions", { product_cart: [{ product_id: product.product_id }], customer: { email } })
  expect((await postCheckoutForm(server.baseUrl, session.session_id, { card_number: card, email })).status).toBe(200)
  const settled = await ok(server.baseUrl, key, "GET", `/checkout_sessions/${session.session_id}`)
  return ok(server.baseUrl, key, "GET", `/subscriptions/${settled.subscription_id}`)
}

const portalLink = async (customerId: string): Promise<string> =>
  new URL((await ok(server.baseUrl, key, "POST", "/customer_portal_sessions", { customer_id: customerId })).url).pathname

/** Opens a link as a browser does: its GET, then the button on that page. The session's cookie and CSRF token. */
const signIn = async (link: string) => {
  const shown = await request(link)
  expect(shown.status, shown.body).toBe(200)
  const form = /<form method="post" action="([^"]+)">/.exec(shown.body)
  expect(form?.[1]).toBe(link)
  const cookie = cookiesOf(shown).join("; ")
  const opened = await request(link, { cookie, form: { open_token: hiddenField(shown.body, "open_token") ?? "" } })
  expect(opened.status, opened.body).toBe(303)
  expect(opened.headers.get("location")).toBe("/portal")
  const session = cookiesOf(opened).find((c) => c.startsWith("fils_portal="))!
  expect(session).toBeDefined()
  const home = await request("/portal", { cookie: session })
  expect(home.status).toBe(200)
  return { cookie: session, csrf: hiddenField(home.body, "csrf_token")! }
}

describe("the portal link", () => {
  it("its GET shows a button and changes nothing, however often it is followed; the button's post starts the session, once", async () => {
    const subscription = await subscribe("scanner@example.ae", "4242424242424242")
    const link = await portalLink(subscription.customer.customer_id)
    // A mail scanner follows the link (twice, with no cookie jar): no session starts, nothing is used up.
    for (let i = 0; i < 2; i++) {
      const scanned = await request(link)
      expect(scanned.status).toBe(200)
      expect(cookiesOf(scanned).some((c) => c.startsWith("fils_portal="))).toBe(false)
      expect(scanned.body).toContain("<button")
      expect(scanned.headers.get("cache-control")).toContain("no-store")
    }
    const opened = await db.sql(`SELECT count(*)::int AS n FROM customer_portal_sessions WHERE opened_at IS NOT NULL`)
    expect(opened[0].n).toBe(0)

    // The button's post from another site, or without the page's own token, starts nothing.
    const shown = await request(link)
    const cookie = cookiesOf(shown).join("; ")
    const openToken = hiddenField(shown.body, "open_token") ?? ""
    expect((await request(link, { cookie, form: { open_token: openToken }, origin: "https://evil.example" })).status).toBe(403)
    expect((await request(link, { form: { open_token: openToken } })).status).toBe(403)
    expect((await request(link, { cookie, form: { open_token: `${openToken}x` } })).status).toBe(403)
    // A post it cannot read as sent (a field twice, bytes that are not UTF-8) is refused in words: 400, not a 503.
    const token = encodeURIComponent(openToken)
    for (const [body, words] of [[`open_token=${token}&open_token=${token}`, "more than once"], ["open_token=%FF", "not sent as UTF-8"]] as const) {
      const answer = await fetch(new URL(link, server.baseUrl), {
        method: "POST",
        redirect: "manual",
        headers: { cookie, "content-type": "application/x-www-form-urlencoded", origin: server.baseUrl },
        body
      })
      expect(answer.status, body).toBe(400)
      expect(await answer.text(), body).toContain(words)
    }

    // The customer clicks it: the session starts. The link is then used up for anyone else.
    const { cookie: session } = await signIn(link)
    expect(session.length).toBeGreaterThan(20)
    const reused = await request(link)
    expect(reused.status).toBe(410)
    expect(reused.body).toContain("Link already used")
  }, 60_000)
})

describe("signing out", () => {
  it("ends the session on the server: the old cookie neither reads the portal nor changes a subscription", async () => {
    const subscription = await subscribe("leaving@example.ae", "4242424242424242")
    const { cookie, csrf } = await signIn(await portalLink(subscription.customer.customer_id))
    const out = await request("/portal/sign-out", { cookie, form: { csrf_token: csrf } })
    expect(out.status).toBe(303)
    expect(cookiesOf(out)).toContain("fils_portal=")
    const shown = await request(out.headers.get("location")!)
    expect(shown.status).toBe(200)
    expect(shown.body).toContain("You are signed out")

    // The cookie kept (a shared computer, a copied header) is worth nothing now.
    expect((await request("/portal", { cookie })).status).toBe(401)
    const change = await request(`/portal/subscriptions/${subscription.subscription_id}/cancel-at-period-end`, {
      cookie,
      form: { cancel_at_period_end: "true", csrf_token: csrf }
    })
    expect(change.status).toBe(401)
    expect(await ok(server.baseUrl, key, "GET", `/subscriptions/${subscription.subscription_id}`)).toMatchObject({ cancel_at_period_end: false })
  }, 60_000)
})

describe("a card posted several times at once", () => {
  it("on a subscription on hold: one charge, every post answers with its outcome, the subscription is active at once", async () => {
    for (const copies of [2, 4]) {
      const subscription = await subscribe(`double-${copies}@example.ae`, "4000000000000341")
      const id = subscription.subscription_id
      const renewal = await runFils(["billing", "run", "--at", subscription.next_billing_date], env)
      expect(renewal.code, renewal.stderr).toBe(0)
      expect(await ok(server.baseUrl, key, "GET", `/subscriptions/${id}`)).toMatchObject({ status: "on_hold" })
      const { cookie, csrf } = await signIn(await portalLink(subscription.customer.customer_id))
      // Posted as the page's form is: with the overdue charge it offers to pay.
      const page = await request(`/portal/subscriptions/${id}/card`, { cookie })
      const overdue = /name="overdue" value="([^"]+)"/.exec(page.body)?.[1] ?? ""
      const form = { card_number: "4242424242424242", exp_month: "12", exp_year: "2040", cvc: "123", csrf_token: csrf, overdue }
      const answers = await Promise.all(Array.from({ length: copies }, () => request(`/portal/subscriptions/${id}/card`, { cookie, form })))
      for (const answer of answers) {
        expect(answer.status, answer.body.slice(0, 400)).toBe(303)
        expect(answer.headers.get("location")).toBe("/portal?notice=card_paid")
      }
      expect(await ok(server.baseUrl, key, "GET", `/subscriptions/${id}`)).toMatchObject({ status: "active", failed_payment_attempts: 0 })
      const payments = ((await ok(server.baseUrl, key, "GET", `/payments?customer_id=${subscription.customer.customer_id}`)).items as Array<any>)
        .filter((p) => p.billing_reason === "subscription_renewal")
      expect(payments.map((p) => p.status).sort()).toEqual(["failed", "succeeded"])
    }
    expect(server.stdout() + server.stderr()).not.toContain("deadlock")
  }, 120_000)

  it("on hold but set to end at its period end: the page offers to save the card, not to pay; saving charges nothing", async () => {
    const subscription = await subscribe("ending@example.ae", "4000000000000341")
    const id = subscription.subscription_id
    expect((await runFils(["billing", "run", "--at", subscription.next_billing_date], env)).code).toBe(0)
    await ok(server.baseUrl, key, "PATCH", `/subscriptions/${id}`, { cancel_at_period_end: true })
    const { cookie, csrf } = await signIn(await portalLink(subscription.customer.customer_id))
    const home = await request("/portal", { cookie })
    expect(home.body).toContain("you will not be charged again")
    expect(home.body).not.toContain("Update card and pay")
    const page = await request(`/portal/subscriptions/${id}/card`, { cookie })
    expect(page.body).not.toContain("Save card and pay")
    expect(page.body).not.toContain('name="overdue"')
    // It says when the subscription ends, not that the card pays a next payment.
    expect(page.body).toContain("you will not be charged again")
    expect(page.body).not.toContain("from the next payment on")
    const form = { card_number: "4242424242424242", exp_month: "12", exp_year: "2040", cvc: "123", csrf_token: csrf }
    const saved = await request(`/portal/subscriptions/${id}/card`, { cookie, form })
    expect([saved.status, saved.headers.get("location")]).toStrictEqual([303, "/portal?notice=card_saved"])
    expect(await ok(server.baseUrl, key, "GET", `/subscriptions/${id}`)).toMatchObject({
      status: "on_hold",
      cancel_at_period_end: true,
      payment_method: { last4: "4242" }
    })
    const renewals = ((await ok(server.baseUrl, key, "GET", `/payments?customer_id=${subscription.customer.customer_id}`)).items as Array<any>)
      .filter((p) => p.billing_reason === "subscription_renewal")
    expect(renewals.map((p) => p.status)).toEqual(["failed"])
  }, 60_000)

  it("active and set to end at its period end: the card page says when it ends, in English and in Arabic", async () => {
    const subscription = await subscribe("ending-active@example.ae", "4242424242424242")
    await ok(server.baseUrl, key, "PATCH", `/subscriptions/${subscription.subscription_id}`, { cancel_at_period_end: true })
    const { cookie } = await signIn(await portalLink(subscription.customer.customer_id))
    const english = await request(`/portal/subscriptions/${subscription.subscription_id}/card`, { cookie })
    expect(english.body).toContain("you will not be charged again")
    expect(english.body).not.toContain("from the next payment on")
    const arabic = await request(`/portal/subscriptions/${subscription.subscription_id}/card?lang=ar`, { cookie })
    expect(arabic.body).toContain("ولن يُحصَّل منك أي مبلغ آخر")
    expect(arabic.body).not.toContain("بدءًا من الدفعة التالية")
  }, 60_000)

  it("a second post arriving after the first paid answers with that payment, and charges nothing more", async () => {
    const subscription = await subscribe("late-double@example.ae", "4000000000000341")
    const id = subscription.subscription_id
    expect((await runFils(["billing", "run", "--at", subscription.next_billing_date], env)).code).toBe(0)
    const { cookie, csrf } = await signIn(await portalLink(subscription.customer.customer_id))
    // The form as the page showed it: it names the overdue charge it offers to pay.
    const page = await request(`/portal/subscriptions/${id}/card`, { cookie })
    const overdue = /name="overdue" value="([^"]+)"/.exec(page.body)?.[1]
    expect(overdue, "the form names the overdue charge").toMatch(/^\d+-\d+$/)
    const form = { card_number: "4242424242424242", exp_month: "12", exp_year: "2040", cvc: "123", csrf_token: csrf, overdue: overdue! }
    const first = await request(`/portal/subscriptions/${id}/card`, { cookie, form })
    const second = await request(`/portal/subscriptions/${id}/card`, { cookie, form })
    for (const answer of [first, second]) {
      expect(answer.status, answer.body.slice(0, 400)).toBe(303)
      expect(answer.headers.get("location")).toBe("/portal?notice=card_paid")
    }
    const payments = ((await ok(server.baseUrl, key, "GET", `/payments?customer_id=${subscription.customer.customer_id}`)).items as Array<any>)
      .filter((p) => p.billing_reason === "subscription_renewal")
    expect(payments.map((p) => p.status).sort()).toEqual(["failed", "succeeded"])
    // A form that names no charge the portal could have shown is refused, and changes nothing.
    const forged = await request(`/portal/subscriptions/${id}/card`, { cookie, form: { ...form, overdue: "x" } })
    expect(forged.status).toBe(400)
    expect(forged.body).toContain("This form is out of date")
  }, 60_000)
})
