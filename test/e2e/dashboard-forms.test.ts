/**
 * The dashboard's and hosted checkout's forms on `fils serve`, over HTTP as a browser without JavaScript sends them
 * (each form read from its page and submitted the way a browser submits it): saving an edit form keeps what the API
 * stored, byte for byte, and never trims or cuts; a refund form posted twice refunds once, and every change answers
 * with a redirect (POST-redirect-GET); refusals speak AED and keep what was typed; form bodies that are not UTF-8
 * are refused with nothing changed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Served, serveFils } from "../support/cli.js"
import { api, ok, payThroughForm, postCheckoutForm, type TestDatabase, testDatabase } from "../support/load.js"

let db: TestDatabase
let server: Served
let key = ""
let owner = ""

/** A request as a browser on the dashboard's own page sends it; `body` is sent as it is (already encoded). */
const request = async (
  path: string,
  options: { readonly cookie?: string; readonly form?: Record<string, string> | Array<[string, string]>; readonly body?: string } = {}
) => {
  const posting = options.form !== undefined || options.body !== undefined
  const response = await fetch(`${server.baseUrl}${path}`, {
    method: posting ? "POST" : "GET",
    redirect: "manual",
    headers: {
      ...(options.cookie === undefined ? {} : { cookie: options.cookie }),
      ...(posting ? { "content-type": "application/x-www-form-urlencoded", origin: server.baseUrl } : {})
    },
    ...(posting ? { body: options.body ?? new URLSearchParams(options.form).toString() } : {})
  })
  return { status: response.status, headers: response.headers, body: await response.text() }
}
const cookieOf = (setCookie: string | null) => (setCookie ?? "").split(";")[0]!

const unescape = (s: string) =>
  s.replace(/&quot;/g, "\"").replace(/&#(\d+);/g, (_, code) => String.fromCharCode(Number(code))).replace(/&lt;/g, "<").replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&")

/**
 * The fields a browser submits from the form posting to `action` on `html`, unedited: the HTML parser reads CR
 * and CRLF as LF; a text `<input>` drops line breaks from its value; a `<textarea>` loses the newline right after
 * its opening tag and submits each line break as CRLF; checked boxes and selected options only.
 */
const formFields = (html: string, action: string): Array<[string, string]> => {
  const start = html.indexOf(`<form method="post" action="${action}"`)
  expect(start, `a form posting to ${action}`).toBeGreaterThan(0)
  const form = html.slice(start, html.indexOf("</form>", start))
  const parsed = form.replace(/\r\n?/g, "\n")
  const fields: Array<[string, string]> = []
  for (const tag of parsed.matchAll(/<input\b([^>]*)>/g)) {
    const attrs = tag[1]!
    const name = /\bname="([^"]*)"/.exec(attrs)?.[1]
    const type = /\btype="([^"]*)"/.exec(attrs)?.[1] ?? "text"
    if (name === undefined || type === "submit") continue
    if (type === "checkbox" && !/\bchecked\b/.test(attrs)) continue
    const value = unescape(/\bvalue="([^"]*)"/.exec(attrs)?.[1] ?? (type === "checkbox" ? "on" : ""))
    fields.push([unescape(name), type === "hidden" || type === "checkbox" ? value : value.replace(/[\r\n]/g, "")])
  }
  for (const tag of parsed.matchAll(/<textarea\b[^>]*\bname="([^"]*)"[^>]*>([\s\S]*?)<\/textarea>/g)) {
    fields.push([unescape(tag[1]!), unescape(tag[2]!.replace(/^\n/, "")).replace(/\n/g, "\r\n")])
  }
  for (const tag of parsed.matchAll(/<select\b[^>]*\bname="([^"]*)"[^>]*>([\s\S]*?)<\/select>/g)) {
    const selected = /<option value="([^"]*)" selected>/.exec(tag[2]!) ?? /<option value="([^"]*)"/.exec(tag[2]!)
    if (selected !== null) fields.push([unescape(tag[1]!), unescape(selected[1]!)])
  }
  return fields
}
const withField = (fields: Array<[string, string]>, name: string, value: string): Array<[string, string]> =>
  fields.map(([n, v]) => [n, n === name ? value : v])
const valueOf = (fields: Array<[string, string]>, name: string) => fields.find(([n]) => n === name)?.[1]

beforeAll(async () => {
  db = await testDatabase()
  server = await serveFils({ DATABASE_URL: db.url, FILS_DATA_DIR: undefined, FILS_OWNER_EMAIL: "owner@dunecoffee.ae" }, 120_000)
  key = /Test key\s+(sk_test_[A-Za-z0-9_-]+)/.exec(server.stdout())![1]!
  const link = /Sign in\s+(http\S+)/.exec(server.stdout())![1]!
  const set = await request(link.slice(server.baseUrl.length), { form: { password: "correct horse battery" } })
  expect(set.status).toBe(303)
  owner = cookieOf(set.headers.get("set-cookie"))
}, 150_000)

afterAll(async () => {
  await server?.stop("SIGTERM")
  await db?.close()
}, 30_000)

describe("edit forms keep what the API stored", () => {
  it("a 1,460-character, 3-line product description survives saving the form with only the price changed", async () => {
    const head = ["First line of the roast notes.", "x".repeat(1_000)].join("\n")
    const description = `${head}\n${"y".repeat(1_460 - head.length - 1)}`
    expect(description.length).toBe(1_460)
    const product = await ok(server.baseUrl, key, "POST", "/products", { name: "Beans", price: 6_500, currency: "AED", description })
    const path = `/dashboard/test/products/${product.product_id}`
    const page = await request(path, { cookie: owner })
    expect(page.body).toMatch(/<textarea id="p_description" name="description"/)
    const saved = await request(path, { cookie: owner, form: withField(formFields(page.body, path), "price", "70.00") })
    expect(saved.status, saved.body.slice(0, 400)).toBe(303)
    const after = await ok(server.baseUrl, key, "GET", `/products/${product.product_id}`)
    expect(after.price).toBe(7_000)
    expect(after.description).toBe(description)
  }, 30_000)

  it("a description with an emoji across character 1,000, or starting with a line break, saves unchanged", async () => {
    for (const description of ["a".repeat(999) + "\u{1F600}" + "b".repeat(20), "\nstarts on the second line"]) {
      const product = await ok(server.baseUrl, key, "POST", "/products", { name: "Cups", price: 1_000, currency: "AED", description })
      const path = `/dashboard/test/products/${product.product_id}`
      const page = await request(path, { cookie: owner })
      const saved = await request(path, { cookie: owner, form: withField(formFields(page.body, path), "price", "11.00") })
      expect(saved.status, saved.body.slice(0, 400)).toBe(303)
      expect((await ok(server.baseUrl, key, "GET", `/products/${product.product_id}`)).description).toBe(description)
    }
  }, 30_000)

  it("a description typed with new lines is kept as sent; one over the API's limit is refused, as typed, nothing saved", async () => {
    const product = await ok(server.baseUrl, key, "POST", "/products", { name: "Filters", price: 500, currency: "AED" })
    const path = `/dashboard/test/products/${product.product_id}`
    const fields = formFields((await request(path, { cookie: owner })).body, path)
    const typed = "  Paper filters\r\nfor V60  "
    expect((await request(path, { cookie: owner, form: withField(fields, "description", typed) })).status).toBe(303)
    expect((await ok(server.baseUrl, key, "GET", `/products/${product.product_id}`)).description).toBe(typed)
    const tooLong = "z".repeat(5_001)
    const refused = await request(path, { cookie: owner, form: withField(withField(fields, "description", tooLong), "name", "Filters 2") })
    expect(refused.status).toBe(400)
    expect(refused.body).toContain("at most 5000 characters")
    expect(refused.body, "what was typed is shown again").toContain(tooLong)
    expect(refused.body).toContain("value=\"Filters 2\"")
    const after = await ok(server.baseUrl, key, "GET", `/products/${product.product_id}`)
    expect(after).toMatchObject({ name: "Filters", description: typed })
  }, 30_000)

  it("the new-product form takes a description; a refused one shows every field as typed, nothing created", async () => {
    const path = "/dashboard/test/products"
    const fields = formFields((await request(path, { cookie: owner })).body, path)
    const description = "Washed Ethiopian.\r\nRoasted on Mondays."
    const typed = withField(withField(withField(withField(fields, "name", "Yirgacheffe"), "price", "65.5x"), "billing", "month"), "description", description)
    const refused = await request(path, { cookie: owner, form: typed })
    expect(refused.status).toBe(400)
    expect(refused.body).toContain("Enter the price in AED")
    expect(formFields(refused.body, path), "every field as typed").toEqual(typed)
    const listed = async () => ((await ok(server.baseUrl, key, "GET", "/products?limit=100")).items as Array<any>).filter((p) => p.name === "Yirgacheffe")
    expect(await listed()).toHaveLength(0)
    const created = await request(path, { cookie: owner, form: withField(typed, "price", "65.50") })
    expect(created.status, created.body.slice(0, 400)).toBe(303)
    expect(await listed()).toMatchObject([{ price: 6_550, description, billing: "recurring", billing_interval: "month" }])
  }, 30_000)

  it("a 1,526-character webhook URL survives saving the form with only the description changed", async () => {
    const prefix = "https://hooks.dunecoffee.ae/fils?pad="
    const url = prefix + "a".repeat(1_526 - prefix.length)
    expect(url.length).toBe(1_526)
    const endpoint = await ok(server.baseUrl, key, "POST", "/webhooks", { url, description: "Orders" })
    const path = `/dashboard/test/developers/webhooks/${endpoint.webhook_id}/edit`
    const page = await request(`/dashboard/test/developers/webhooks/${endpoint.webhook_id}`, { cookie: owner })
    const saved = await request(path, { cookie: owner, form: withField(formFields(page.body, path), "description", "Orders and refunds") })
    expect(saved.status, saved.body.slice(0, 400)).toBeLessThan(400)
    const after = await ok(server.baseUrl, key, "GET", `/webhooks/${endpoint.webhook_id}`)
    expect(after).toMatchObject({ url, description: "Orders and refunds" })
  }, 30_000)

  it("a customer's name with spaces around it is kept, saved from the edit form or typed in the new-customer form", async () => {
    const customer = await ok(server.baseUrl, key, "POST", "/customers", { email: "spaced@example.ae", name: "  Spaced Name  " })
    const path = `/dashboard/test/customers/${customer.customer_id}`
    const page = await request(path, { cookie: owner })
    const saved = await request(path, { cookie: owner, form: withField(formFields(page.body, path), "phone_number", "+971501234567") })
    expect(saved.status, saved.body.slice(0, 400)).toBe(303)
    expect(await ok(server.baseUrl, key, "GET", `/customers/${customer.customer_id}`)).toMatchObject({
      name: "  Spaced Name  ",
      phone_number: "+971501234567"
    })
    const list = await request("/dashboard/test/customers", { cookie: owner })
    const create = formFields(list.body, "/dashboard/test/customers")
    const created = await request("/dashboard/test/customers", {
      cookie: owner,
      form: withField(withField(create, "name", " Typed  Name "), "email", "typed@example.ae")
    })
    expect(created.status, created.body.slice(0, 400)).toBe(303)
    const found = (await ok(server.baseUrl, key, "GET", "/customers?email=typed@example.ae")).items
    expect(found.map((c: any) => c.name)).toEqual([" Typed  Name "])
  }, 30_000)
})

describe("a refund is made once, and every change answers with a redirect", () => {
  let paymentId = ""
  const paymentPath = () => `/dashboard/test/payments/${paymentId}`

  beforeAll(async () => {
    const product = await ok(server.baseUrl, key, "POST", "/products", { name: "Grinder", price: 25_000, currency: "AED" })
    expect((await payThroughForm(server.baseUrl, key, product.product_id, "4242424242424242")).status).toBe(200)
    paymentId = (await ok(server.baseUrl, key, "GET", "/payments?limit=1")).items[0].payment_id
  }, 30_000)

  const refunds = async () => (await ok(server.baseUrl, key, "GET", "/events?type=refund.succeeded")).items
    .filter((e: any) => e.data.payment_id === paymentId).length

  /**
   * The payment page's refund form with `amount`, `reason` and `note` typed, posted to the confirmation as a browser
   * does (a post: the note stays out of the URL).
   */
  const reviewRefund = async (amount: string, reason: string, note: string, path = paymentPath()) => {
    const page = await request(path, { cookie: owner })
    expect(page.body).not.toContain(`<form method="get" action="${path}/refund`)
    const review = `${path}/refund/review`
    const fields = withField(withField(withField(formFields(page.body, review), "amount", amount), "reason", reason), "note", note)
    return request(review, { cookie: owner, form: fields })
  }

  /** The confirmation's form of a refund of `amount`, reached as a browser does. */
  const confirmRefund = async (amount: string, reason = "requested_by_customer", note = "", path = paymentPath()) => {
    const review = await reviewRefund(amount, reason, note, path)
    expect(review.status, review.body.slice(0, 400)).toBe(200)
    return formFields(review.body, `${path}/refund`)
  }

  it("the refund's confirmation carries a one-time token; posted twice it refunds once, and both answers lead to its outcome", async () => {
    const fields = await confirmRefund("15.50")
    expect(valueOf(fields, "once")?.length ?? 0).toBeGreaterThanOrEqual(16)
    const first = await request(`${paymentPath()}/refund`, { cookie: owner, form: fields })
    const second = await request(`${paymentPath()}/refund`, { cookie: owner, form: fields })
    expect(first.status).toBe(303)
    expect(second.status).toBe(303)
    expect(second.headers.get("location")).toBe(first.headers.get("location"))
    expect((await ok(server.baseUrl, key, "GET", `/payments/${paymentId}`)).refunded_amount).toBe(1_550)
    expect(await refunds()).toBe(1)
    const shown = await request(first.headers.get("location")!, { cookie: owner })
    expect(shown.status).toBe(200)
    expect(shown.body).toContain("Refunded AED 15.50.")
    // The page it leads to is read again on reload, and refunds nothing more.
    await request(first.headers.get("location")!, { cookie: owner })
    expect((await ok(server.baseUrl, key, "GET", `/payments/${paymentId}`)).refunded_amount).toBe(1_550)
  }, 30_000)

  it("a double click (two posts at once) refunds once", async () => {
    const fields = await confirmRefund("1.00")
    const both = await Promise.all([1, 2].map(() => request(`${paymentPath()}/refund`, { cookie: owner, form: fields })))
    expect(both.map((r) => r.status)).toEqual([303, 303])
    expect((await ok(server.baseUrl, key, "GET", `/payments/${paymentId}`)).refunded_amount).toBe(1_650)
    expect(await refunds()).toBe(2)
  }, 30_000)

  it("a refusal speaks AED and keeps the amount typed; nothing is refunded", async () => {
    const reviewed = await request(`${paymentPath()}/refund?amount=999.99&reason=duplicate`, { cookie: owner })
    const confirmed = await request(`${paymentPath()}/refund`, { cookie: owner, form: withField(await confirmRefund("1.00"), "amount", "999.99") })
    for (const refused of [reviewed, confirmed]) {
      expect(refused.status).toBe(409)
      expect(refused.body).toContain("You can refund up to AED 233.50")
      expect(refused.body).not.toMatch(/\bfils\b/)
      expect(refused.body).toContain("value=\"999.99\"")
    }
    expect((await ok(server.baseUrl, key, "GET", `/payments/${paymentId}`)).refunded_amount).toBe(1_650)
  }, 30_000)

  it("a refund takes a reason and an optional note, kept as typed and shown on the payment's timeline; without a reason, or with a note too long, it is refused as typed", async () => {
    const missing = await reviewRefund("2.00", "", "Kept")
    expect(missing.status).toBe(400)
    expect(missing.body).toContain("Choose the refund&#39;s reason")
    expect(missing.body).toContain("value=\"2.00\"")
    expect(missing.body).toContain(">\nKept</textarea>")
    const long = await reviewRefund("2.00", "duplicate", "n".repeat(501))
    expect(long.status).toBe(400)
    expect(long.body).toContain("The note must be at most 500 characters")
    expect(long.body).toContain("<option value=\"duplicate\" selected>")
    const forged = await request(`${paymentPath()}/refund`, { cookie: owner, form: withField(await confirmRefund("2.00"), "reason", "changed_my_mind") })
    expect(forged.status, "a reason not offered is refused at the post too").toBe(400)
    expect((await ok(server.baseUrl, key, "GET", `/payments/${paymentId}`)).refunded_amount).toBe(1_650)

    const note = "Sent twice by the POS\r\n(order 1182)"
    const fields = await confirmRefund("2.00", "duplicate", note)
    expect(valueOf(fields, "note")).toBe(note)
    const done = await request(`${paymentPath()}/refund`, { cookie: owner, form: fields })
    expect(done.status, done.body.slice(0, 300)).toBe(303)
    const timeline = (await request(paymentPath(), { cookie: owner })).body
    expect(timeline).toMatch(/<tr class="refund"><td>[^<]+<\/td><td>Refund of AED 2.00 <span class="badge good">Succeeded<\/span><\/td><td class="text" colspan="2">Duplicate payment: Sent twice by the POS\r?\n\(order 1182\)<\/td><\/tr>/)
    expect(timeline, "the refunds made before say they had none").toContain("Requested by the customer")
  }, 30_000)

  it("a note with a character the credit note's e-invoice cannot carry (a vertical tab) is refused at its field, never stripped; nothing is refunded", async () => {
    const note = "Order\u000B1182"
    const refused = await reviewRefund("2.00", "duplicate", note)
    expect(refused.status).toBe(400)
    expect(refused.body).toMatch(/id="note-error">The note must not contain control characters such as a vertical tab/)
    expect(refused.body).toContain("value=\"2.00\"")
    const posted = await request(`${paymentPath()}/refund`, { cookie: owner, form: withField(await confirmRefund("2.00", "duplicate"), "note", note) })
    expect(posted.status, "refused at the post too").toBe(400)
    expect(posted.body).toContain("The note must not contain control characters")
    expect((await ok(server.baseUrl, key, "GET", `/payments/${paymentId}`)).refunded_amount).toBe(1_850)
  }, 30_000)

  it("a confirmed full refund posted twice answers the second post as the first: the same redirect, one refund", async () => {
    const product = await ok(server.baseUrl, key, "POST", "/products", { name: "Kettle", price: 12_000, currency: "AED" })
    expect((await payThroughForm(server.baseUrl, key, product.product_id, "4242424242424242")).status).toBe(200)
    const id = (await ok(server.baseUrl, key, "GET", "/payments?limit=1")).items[0].payment_id
    const path = `/dashboard/test/payments/${id}`
    const fields = await confirmRefund("120.00", "duplicate", "", path)
    const first = await request(`${path}/refund`, { cookie: owner, form: fields })
    const second = await request(`${path}/refund`, { cookie: owner, form: fields })
    expect(first.status).toBe(303)
    expect(second.status, second.body.slice(0, 300)).toBe(303)
    expect(second.headers.get("location")).toBe(first.headers.get("location"))
    expect((await ok(server.baseUrl, key, "GET", `/payments/${id}`)).refunded_amount).toBe(12_000)
  }, 30_000)

  it("a flash that this session did not sign shows nothing", async () => {
    const first = await request(`${paymentPath()}/refund`, { cookie: owner, form: await confirmRefund("0.50") })
    const location = first.headers.get("location")!
    const [payload] = new URL(location, server.baseUrl).searchParams.get("flash")!.split(".")
    const forged = Buffer.from(JSON.stringify(["alert", "Call +971 000 to unlock your account"])).toString("base64url")
    for (const flash of [`${forged}.x`, `${forged}.${location.split(".").at(-1)}`, payload!]) {
      const shown = await request(`${paymentPath()}?flash=${flash}`, { cookie: owner })
      expect(shown.status).toBe(200)
      expect(shown.body).not.toContain("unlock your account")
      expect(shown.body).not.toContain("Refunded AED 0.50")
    }
  }, 30_000)

  it("settings, a subscription's cancellation, a key's revocation and a checkout link answer with a redirect", async () => {
    const settings = await request("/dashboard/settings", { cookie: owner })
    const saved = await request("/dashboard/settings", {
      cookie: owner,
      form: withField(formFields(settings.body, "/dashboard/settings"), "business_name", "  Dune Coffee  ")
    })
    expect(saved.status).toBe(303)
    expect((await request(saved.headers.get("location")!, { cookie: owner })).body).toContain("Saved.")
    expect((await ok(server.baseUrl, key, "GET", "/account")).business_name).toBe("  Dune Coffee  ")

    const csrf = valueOf(formFields(settings.body, "/dashboard/settings"), "csrf_token")!
    const made = await request("/dashboard/test/developers/keys", { cookie: owner, form: { csrf_token: csrf } })
    const last4 = /<code id="new-key">sk_test_[A-Za-z0-9_-]*([A-Za-z0-9_-]{4})<\/code>/.exec(made.body)![1]!
    const keyId = new RegExp(`…${last4}</code> <small><code>(key_[0-9a-f]+)</code>`).exec(made.body)![1]!
    const review = await request(`/dashboard/test/developers/keys/${keyId}/revoke`, { cookie: owner })
    const revoked = await request(`/dashboard/test/developers/keys/${keyId}/revoke`, {
      cookie: owner,
      form: formFields(review.body, `/dashboard/test/developers/keys/${keyId}/revoke`)
    })
    expect(revoked.status).toBe(303)
    expect((await request(revoked.headers.get("location")!, { cookie: owner })).body).toContain(`Revoked the key ending in ${last4}.`)

    const product = await ok(server.baseUrl, key, "POST", "/products", { name: "Club", price: 9_000, currency: "AED", billing: "recurring", billing_interval: "month" })
    const link = await request(`/dashboard/test/products/${product.product_id}/checkout`, { cookie: owner, form: { csrf_token: csrf } })
    expect(link.status).toBe(303)
    const session = await request(link.headers.get("location")!, { cookie: owner })
    expect(session.body).toMatch(/<code id="checkout-url">[^<]*\/checkout\/cks_/)

    expect((await payThroughForm(server.baseUrl, key, product.product_id, "4242424242424242")).status).toBe(200)
    const subscription = (await ok(server.baseUrl, key, "GET", "/subscriptions?limit=1")).items[0]
    const cancelled = await request(`/dashboard/test/subscriptions/${subscription.subscription_id}/cancel`, {
      cookie: owner,
      form: { csrf_token: csrf, when: "period_end" }
    })
    expect(cancelled.status).toBe(303)
    expect((await request(cancelled.headers.get("location")!, { cookie: owner })).body).toContain("It ends at the end of the current period.")
  }, 60_000)
})

describe("destructive actions are confirmed on a page that says what will happen", () => {
  it("each action leads to a page that says what will happen; its post without the confirmation does nothing; confirmed, it acts", async () => {
    const product = await ok(server.baseUrl, key, "POST", "/products", { name: "Roast club", price: 4_000, currency: "AED", billing: "recurring", billing_interval: "month" })
    expect((await payThroughForm(server.baseUrl, key, product.product_id, "4242424242424242")).status).toBe(200)
    const payment = (await ok(server.baseUrl, key, "GET", "/payments?limit=1")).items[0]
    const subscription = (await ok(server.baseUrl, key, "GET", "/subscriptions?limit=1")).items[0]
    const endpoint = await ok(server.baseUrl, key, "POST", "/webhooks", { url: "https://hooks.dunecoffee.ae/orders-old" })
    const settings = await request("/dashboard/settings", { cookie: owner })
    const csrf = valueOf(formFields(settings.body, "/dashboard/settings"), "csrf_token")!
    const made = await request("/dashboard/test/developers/keys", { cookie: owner, form: { csrf_token: csrf } })
    const secret = /<code id="new-key">(sk_test_[A-Za-z0-9_-]+)<\/code>/.exec(made.body)![1]!
    const keyId = new RegExp(`…${secret.slice(-4)}</code> <small><code>(key_[0-9a-f]+)</code>`).exec(made.body)![1]!
    expect((await request("/dashboard/settings/team", { cookie: owner, form: { csrf_token: csrf, email: "barista@dunecoffee.ae", role: "developer" } })).status).toBe(200)
    const team = (await request("/dashboard/settings", { cookie: owner })).body
    const memberId = /href="\/dashboard\/settings\/team\/(usr_[0-9a-f]+)\/remove" aria-label="Remove barista@dunecoffee.ae"/.exec(team)![1]!

    const paymentPath = `/dashboard/test/payments/${payment.payment_id}`
    const subscriptionPath = `/dashboard/test/subscriptions/${subscription.subscription_id}`
    const endpointPath = `/dashboard/test/developers/webhooks/${endpoint.webhook_id}`
    const cases: ReadonlyArray<{
      readonly name: string
      /** The page the action is on, and what leads from it to the confirmation. */
      readonly from: string
      readonly leads: string
      readonly confirmation: string
      readonly action: string
      readonly says: ReadonlyArray<string>
      readonly state: () => Promise<unknown>
    }> = [
      {
        name: "refund",
        from: paymentPath,
        leads: `<form method="post" action="${paymentPath}/refund/review">`,
        confirmation: `${paymentPath}/refund?amount=10.00&reason=fraudulent&note=`,
        action: `${paymentPath}/refund`,
        says: ["<strong>AED 10.00</strong> goes back to", "card ending in 4242", "AED 30.00 of the payment stays yours to refund later", "not returned", "Reason: <strong>Fraudulent payment</strong>"],
        state: async () => (await ok(server.baseUrl, key, "GET", `/payments/${payment.payment_id}`)).refunded_amount
      },
      {
        name: "revoke a key",
        from: "/dashboard/test/developers",
        leads: `href="/dashboard/test/developers/keys/${keyId}/revoke"`,
        confirmation: `/dashboard/test/developers/keys/${keyId}/revoke`,
        action: `/dashboard/test/developers/keys/${keyId}/revoke`,
        says: [`sk_test_…${secret.slice(-4)}`, "stops working at once", "Any integration, server or script that uses it will fail"],
        // Whether the key still opens the API.
        state: async () => (await api(server.baseUrl, secret, "GET", "/account")).status
      },
      {
        name: "delete an endpoint",
        from: endpointPath,
        leads: `href="${endpointPath}/delete"`,
        confirmation: `${endpointPath}/delete`,
        action: `${endpointPath}/manage`,
        says: ["https://hooks.dunecoffee.ae/orders-old</code> stops receiving events at once", "disable it instead"],
        state: async () => (await api(server.baseUrl, key, "GET", `/webhooks/${endpoint.webhook_id}`)).status
      },
      {
        name: "archive a product",
        from: "/dashboard/test/products",
        leads: `href="/dashboard/test/products/${product.product_id}/archive"`,
        confirmation: `/dashboard/test/products/${product.product_id}/archive`,
        action: `/dashboard/test/products/${product.product_id}/status`,
        says: ["Archive Roast club?", "No new checkout can be started for it", "Checkout links already made for it can still be paid", "Subscriptions already on it keep renewing"],
        state: async () => (await ok(server.baseUrl, key, "GET", `/products/${product.product_id}`)).status
      },
      {
        name: "cancel a subscription now",
        from: subscriptionPath,
        leads: `href="${subscriptionPath}/cancel"`,
        confirmation: `${subscriptionPath}/cancel`,
        action: `${subscriptionPath}/cancel`,
        says: ["ends now, not at the end of its current period", "is cut short and nothing more is charged", "is not refunded"],
        state: async () => (await ok(server.baseUrl, key, "GET", `/subscriptions/${subscription.subscription_id}`)).status
      },
      {
        name: "remove a teammate",
        from: "/dashboard/settings",
        leads: `href="/dashboard/settings/team/${memberId}/remove"`,
        confirmation: `/dashboard/settings/team/${memberId}/remove`,
        action: `/dashboard/settings/team/${memberId}/remove`,
        says: ["Remove barista@dunecoffee.ae?", "barista@dunecoffee.ae (developer) loses access to this account at once"],
        state: async () => (await request("/dashboard/settings", { cookie: owner })).body.includes("barista@dunecoffee.ae")
      }
    ]
    for (const c of cases) {
      expect((await request(c.from, { cookie: owner })).body, c.name).toContain(c.leads)
      const before = await c.state()
      const review = await request(c.confirmation, { cookie: owner })
      expect(review.status, `${c.name}: ${review.body.slice(0, 300)}`).toBe(200)
      for (const text of c.says) expect(review.body, c.name).toContain(text)
      const fields = formFields(review.body, c.action)
      expect(valueOf(fields, "confirm"), c.name).toBe("yes")
      const unconfirmed = await request(c.action, { cookie: owner, form: fields.filter(([name]) => name !== "confirm") })
      expect(unconfirmed.status, c.name).toBe(400)
      expect(unconfirmed.body, c.name).toContain("Nothing was done yet")
      expect(await c.state(), `${c.name}: nothing was done`).toEqual(before)
      const confirmed = await request(c.action, { cookie: owner, form: fields })
      expect(confirmed.status, `${c.name}: ${confirmed.body.slice(0, 300)}`).toBe(303)
      expect(await c.state(), `${c.name}: done`).not.toEqual(before)
    }
  }, 60_000)
})

describe("send portal link", () => {
  it("a customer's page makes a portal session and shows its link to copy, once; the link opens the customer's portal", async () => {
    const customer = await ok(server.baseUrl, key, "POST", "/customers", { email: "portal@example.ae", name: "Mariam" })
    const path = `/dashboard/test/customers/${customer.customer_id}`
    const page = await request(path, { cookie: owner })
    expect(page.body).toContain("Send portal link")
    const made = await request(`${path}/portal-link`, { cookie: owner, form: formFields(page.body, `${path}/portal-link`) })
    expect(made.status).toBe(200)
    const link = unescape(/<code id="portal-link" dir="ltr">([^<]+)<\/code>/.exec(made.body)![1]!)
    expect(link).toMatch(new RegExp(`^${server.baseUrl}/portal/[A-Za-z0-9_-]{20,}$`))
    expect((await request(path, { cookie: owner })).body, "shown once").not.toContain(link)
    const opened = await request(link.slice(server.baseUrl.length))
    expect(opened.status, opened.body.slice(0, 300)).toBeLessThan(400)
    const audit = await request("/dashboard/audit", { cookie: owner })
    expect(audit.body).toContain("customer_portal_session.create")
    expect(audit.body).not.toContain(link)
  }, 30_000)
})

describe("CSV exports", () => {
  it("the export page's form downloads a streamed CSV attachment of the range in the account's time zone; a bad range is refused at its field", async () => {
    await ok(server.baseUrl, key, "POST", "/customers", { email: "formula@example.ae", name: "=HYPERLINK(\"http://x\",\"click\")" })
    const page = await request("/dashboard/test/exports", { cookie: owner })
    expect(page.status).toBe(200)
    expect(page.body).toContain(`<form method="get" action="/dashboard/test/exports/csv">`)
    const today = /name="to" value="(\d{4}-\d{2}-\d{2})"/.exec(page.body)![1]!
    const from = /name="from" value="(\d{4}-\d{2}-\d{2})"/.exec(page.body)![1]!
    const csv = await request(`/dashboard/test/exports/csv?kind=customers&from=${from}&to=${today}`, { cookie: owner })
    expect(csv.status).toBe(200)
    expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8")
    expect(csv.headers.get("content-disposition")).toBe(`attachment; filename="customers-test-${from}-to-${today}.csv"`)
    const lines = csv.body.split("\r\n")
    expect(lines[0]).toBe("customer_id,created (Asia/Dubai),email,name,phone_number")
    expect(csv.body).toContain(`,formula@example.ae,"'=HYPERLINK(""http://x"",""click"")",`)
    const payments = await request(`/dashboard/test/exports/csv?kind=payments&from=${from}&to=${today}`, { cookie: owner })
    const listed = (await ok(server.baseUrl, key, "GET", "/payments?limit=100")).items as Array<any>
    expect(payments.body.split("\r\n").slice(1, -1).map((l) => l.split(",")[0]), "every payment of the range, newest first").toEqual(listed.map((p) => p.payment_id))
    const refused = await request(`/dashboard/test/exports/csv?kind=everything&from=${today}&to=2020-02-30`, { cookie: owner })
    expect(refused.status).toBe(400)
    expect(refused.body).toMatch(/id="kind-error">Choose payments, refunds, subscriptions or customers</)
    expect(refused.body).toMatch(/id="to-error">Enter a date, YYYY-MM-DD</)
    expect(refused.body).toContain("value=\"2020-02-30\"")
    // The file is named by the days read, not as typed; each export is audited with its kind, range and mode.
    const spaced = await request(`/dashboard/test/exports/csv?kind=refunds&from=%20${from}&to=${today}%20`, { cookie: owner })
    expect(spaced.status).toBe(200)
    expect(spaced.headers.get("content-disposition")).toBe(`attachment; filename="refunds-test-${from}-to-${today}.csv"`)
    const audit = (await request("/dashboard/audit", { cookie: owner })).body
    expect(audit).toContain("export.csv")
    expect(audit).toContain(`refunds ${from} to ${today}`)
  }, 30_000)

  it("only owners and admins export: a viewer's or developer's page says so and the download answers 403; exports one after another all run", async () => {
    const settings = await request("/dashboard/settings", { cookie: owner })
    const csrf = valueOf(formFields(settings.body, "/dashboard/settings"), "csrf_token")!
    for (const role of ["viewer", "developer"]) {
      const invited = await request("/dashboard/settings/team", { cookie: owner, form: { csrf_token: csrf, email: `${role}-export@dunecoffee.ae`, role } })
      const link = unescape(/id="invite-link">([^<]+)</.exec(invited.body)![1]!).replace(/^http:\/\/[^/]+/, "")
      const set = await request(link, { form: { password: `${role} password 1234` } })
      expect(set.status, set.body.slice(0, 300)).toBe(303)
      const cookie = cookieOf(set.headers.get("set-cookie"))
      const page = await request("/dashboard/test/exports", { cookie })
      expect(page.body, role).toContain(`A ${role} cannot export data: only owners and admins download CSV files.`)
      expect(page.body, role).not.toContain("Download CSV")
      const csv = await request("/dashboard/test/exports/csv?kind=customers&from=2026-01-01&to=2026-01-31", { cookie })
      expect(csv.status, role).toBe(403)
      expect(csv.body, role).not.toContain("customer_id,")
    }
    // Each download gives its slot back when it ends: more than the two at once, one after another, all run.
    for (let i = 0; i < 3; i++) {
      expect((await request("/dashboard/test/exports/csv?kind=customers&from=2026-01-01&to=2026-01-31", { cookie: owner })).status).toBe(200)
    }
  }, 30_000)
})

describe("trials and charges of a subscription's card", () => {
  it("the product forms take a trial: days and a paid trial's price; a refused one keeps what was typed", async () => {
    const path = "/dashboard/test/products"
    const fields = formFields((await request(path, { cookie: owner })).body, path)
    const typed = withField(withField(withField(withField(withField(fields, "name", "Karak club"), "price", "45.00"), "billing", "month"), "trial_period_days", "two weeks"), "trial_amount", "5.00")
    const refused = await request(path, { cookie: owner, form: typed })
    expect(refused.status).toBe(400)
    expect(refused.body).toContain("trial_period_days must be")
    expect(formFields(refused.body, path), "every field as typed").toEqual(typed)
    const created = await request(path, { cookie: owner, form: withField(typed, "trial_period_days", "14") })
    expect(created.status, created.body.slice(0, 400)).toBe(303)
    const [product] = ((await ok(server.baseUrl, key, "GET", "/products?limit=100")).items as Array<any>).filter((p) => p.name === "Karak club")
    expect(product).toMatchObject({ billing_interval: "month", trial_period_days: 14, trial_amount: 500 })
    // The edit form: emptied, the trial's price makes it free.
    const edit = `/dashboard/test/products/${product.product_id}`
    const page = await request(edit, { cookie: owner })
    expect(page.body).toContain("14 days, AED 5.00 per unit")
    const saved = await request(edit, { cookie: owner, form: withField(formFields(page.body, edit), "trial_amount", "") })
    expect(saved.status, saved.body.slice(0, 400)).toBe(303)
    expect(await ok(server.baseUrl, key, "GET", `/products/${product.product_id}`)).toMatchObject({ trial_period_days: 14, trial_amount: null })
  }, 30_000)

  it("charge now asks for a confirmation; its confirmation posted twice charges the saved card once", async () => {
    const product = await ok(server.baseUrl, key, "POST", "/products", { name: "Tea club", price: 7_000, currency: "AED", billing: "recurring", billing_interval: "month" })
    expect((await payThroughForm(server.baseUrl, key, product.product_id, "4242424242424242")).status).toBe(200)
    const subscription = (await ok(server.baseUrl, key, "GET", "/subscriptions?limit=1")).items[0]
    const path = `/dashboard/test/subscriptions/${subscription.subscription_id}`
    const charges = async () => ((await ok(server.baseUrl, key, "GET", `/payments?customer_id=${subscription.customer.customer_id}&limit=100`)).items as Array<any>)
      .filter((p) => p.billing_reason === "subscription_charge")
    const form = withField(withField(formFields((await request(path, { cookie: owner })).body, `${path}/charge`), "amount", "12.50"), "description", "Extra tin")
    const review = await request(`${path}/charge`, { cookie: owner, form })
    expect(review.status).toBe(200)
    expect(review.body).toContain("Charge <strong>AED 12.50</strong> (Extra tin)")
    expect(await charges(), "nothing is charged before the confirmation").toEqual([])
    const confirm = formFields(review.body, `${path}/charge`)
    expect(valueOf(confirm, "once")?.length ?? 0).toBeGreaterThanOrEqual(16)
    const both = await Promise.all([1, 2].map(() => request(`${path}/charge`, { cookie: owner, form: confirm })))
    expect(both.map((r) => r.status)).toEqual([303, 303])
    expect(both[1]!.headers.get("location")).toBe(both[0]!.headers.get("location"))
    expect((await charges()).map((p) => [p.total_amount, p.status, p.description])).toEqual([[1_250, "succeeded", "Extra tin"]])
    expect((await request(both[0]!.headers.get("location")!, { cookie: owner })).body).toContain("Charged AED 12.50.")
    const bad = await request(`${path}/charge`, { cookie: owner, form: withField(form, "amount", "0") })
    expect([bad.status, bad.body.includes("Enter the amount to charge in AED")]).toEqual([400, true])
    // A description posted with a line break (by a script: the field is one line) is confirmed as posted, not as LF.
    const crlf = await request(`${path}/charge`, { cookie: owner, form: withField(form, "description", "Extra\r\ntin") })
    expect(crlf.status).toBe(200)
    expect(valueOf(formFields(crlf.body, `${path}/charge`), "description")).toBe("Extra\r\ntin")
  }, 30_000)
})

/** The hosted checkout's form, filled in as a payer would, for the page that gave `token`. */
const checkoutForm = (token: string, name: string) =>
  new URLSearchParams({
    name,
    email: "payer@example.ae",
    card_number: "4242424242424242",
    exp_month: "12",
    exp_year: "2040",
    cvc: "123",
    form_token: token
  })

describe("form bodies that are not UTF-8 are refused", () => {
  const invalid = ["%FF", "%ED%A0%80", "%C0%AF"]

  it("the dashboard refuses them with 400 and a clear message; nothing changes", async () => {
    const customer = await ok(server.baseUrl, key, "POST", "/customers", { email: "utf8@example.ae", name: "Noor" })
    const path = `/dashboard/test/customers/${customer.customer_id}`
    const fields = formFields((await request(path, { cookie: owner })).body, path)
    for (const bytes of invalid) {
      const body = new URLSearchParams(withField(fields, "name", "NAME")).toString().replace("NAME", `Noor${bytes}`)
      const answer = await request(path, { cookie: owner, body })
      expect(answer.status, bytes).toBe(400)
      expect(answer.body).toContain("not sent as UTF-8")
      expect((await ok(server.baseUrl, key, "GET", `/customers/${customer.customer_id}`)).name).toBe("Noor")
    }
  }, 30_000)

  it("the hosted checkout refuses them with 400 and a clear message; nothing is charged", async () => {
    const product = await ok(server.baseUrl, key, "POST", "/products", { name: "Mug", price: 3_000, currency: "AED" })
    const session = await ok(server.baseUrl, key, "POST", "/checkout_sessions", { product_cart: [{ product_id: product.product_id }] })
    const page = await request(`/checkout/${session.session_id}`)
    const token = /name="form_token" value="([^"]*)"/.exec(page.body)![1]!
    for (const bytes of invalid) {
      const body = checkoutForm(token, "NAME").toString().replace("NAME", `Layla${bytes}`)
      const answer = await request(`/checkout/${session.session_id}`, { body })
      expect(answer.status, bytes).toBe(400)
      expect(answer.body).toContain("not sent as UTF-8")
    }
    const payments = await api(server.baseUrl, key, "GET", `/payments?checkout_session_id=${session.session_id}`)
    expect(payments.body.items).toEqual([])
    expect((await ok(server.baseUrl, key, "GET", `/checkout_sessions/${session.session_id}`)).status).toBe("open")
  }, 30_000)
})

describe("form bodies that give a field twice are refused, not read as the first", () => {
  it("the dashboard and the hosted checkout answer 400 naming the field; nothing changes, nothing is charged", async () => {
    const customer = await ok(server.baseUrl, key, "POST", "/customers", { email: "twice@example.ae", name: "Noor" })
    const path = `/dashboard/test/customers/${customer.customer_id}`
    const fields = formFields((await request(path, { cookie: owner })).body, path)
    const edited = await request(path, { cookie: owner, form: [...withField(fields, "name", "Noor Ali"), ["name", "Someone else"]] })
    expect(edited.status).toBe(400)
    expect(edited.body.replaceAll("&#39;", "'")).toContain("The form gave the field 'name' more than once, so nothing was changed.")
    expect((await ok(server.baseUrl, key, "GET", `/customers/${customer.customer_id}`)).name).toBe("Noor")

    const product = await ok(server.baseUrl, key, "POST", "/products", { name: "Mug", price: 3_000, currency: "AED" })
    const session = await ok(server.baseUrl, key, "POST", "/checkout_sessions", { product_cart: [{ product_id: product.product_id }] })
    const token = /name="form_token" value="([^"]*)"/.exec((await request(`/checkout/${session.session_id}`)).body)![1]!
    const form = checkoutForm(token, "Layla")
    form.append("card_number", "4000000000000002")
    const answer = await request(`/checkout/${session.session_id}`, { body: form.toString() })
    expect(answer.status).toBe(400)
    expect(answer.body.replaceAll("&#39;", "'")).toContain("The form gave the field 'card_number' more than once")
    expect((await api(server.baseUrl, key, "GET", `/payments?checkout_session_id=${session.session_id}`)).body.items).toEqual([])
    expect((await ok(server.baseUrl, key, "GET", `/checkout_sessions/${session.session_id}`)).status).toBe("open")
  }, 30_000)
})

describe("plan changes", () => {
  const monthly = (name: string, price: number) =>
    ok(server.baseUrl, key, "POST", "/products", { name, price, currency: "AED", billing: "recurring", billing_interval: "month" })
  /** A subscription to `product` paid with `card`: its id. */
  const subscribe = async (product: any, card = "4242424242424242") => {
    const paid = await payThroughForm(server.baseUrl, key, product.product_id, card)
    expect(paid.status).toBe(200)
    return (await ok(server.baseUrl, key, "GET", `/checkout_sessions/${paid.sessionId}`)).subscription_id as string
  }
  const aed = (text: string) => Math.round(Number(text.replace(/,/g, "")) * 100)
  const chargedNow = (html: string) => aed(/id="charged-now"[^>]*><strong>AED ([0-9,.]+)</.exec(html)?.[1] ?? "NaN")
  const paymentsOf = async (id: string) =>
    ((await ok(server.baseUrl, key, "GET", "/payments?limit=100")).items as Array<any>).filter((p) => p.subscription_id === id)

  it("the product form sets a recurring product's policy and portal offer; a half-chosen policy, or either on a one-time product, is refused at its field, as typed, nothing saved", async () => {
    const path = "/dashboard/test/products"
    const fields = formFields((await request(path, { cookie: owner })).body, path)
    const named = (name: string, billing: string) => withField(withField(withField(fields, "name", name), "price", "300.00"), "billing", billing)
    const half = [["upgrade_mode", "prorated_immediately"], ["upgrade_when", "immediately"], ["downgrade_mode", "do_not_bill"]]
      .reduce((f, [name, value]) => withField(f, name!, value!), named("Pro plan", "month"))
    const typed: Array<[string, string]> = [...half, ["offered_in_portal", "on"]]
    const listed = async (name: string) => ((await ok(server.baseUrl, key, "GET", "/products?limit=100")).items as Array<any>).filter((p) => p.name === name)
    const refused = await request(path, { cookie: owner, form: typed })
    expect(refused.status).toBe(400)
    expect(refused.body).toMatch(/<p class="field-error" id="downgrade_when-error">This is required<\/p>/)
    const sorted = (f: Array<[string, string]>) => [...f].sort(([a], [b]) => a.localeCompare(b))
    expect(sorted(formFields(refused.body, path)), "every field as typed").toEqual(sorted(typed))
    expect(await listed("Pro plan")).toHaveLength(0)

    const created = await request(path, { cookie: owner, form: withField(typed, "downgrade_when", "next_billing_date") })
    expect(created.status, created.body.slice(0, 400)).toBe(303)
    const [pro] = await listed("Pro plan")
    expect(pro).toMatchObject({
      offered_in_portal: true,
      plan_change_policy: {
        upgrade: { proration_billing_mode: "prorated_immediately", effective_at: "immediately" },
        downgrade: { proration_billing_mode: "do_not_bill", effective_at: "next_billing_date" }
      }
    })

    const oneTime = await request(path, { cookie: owner, form: [...named("Beans once", "one_time"), ["offered_in_portal", "on"]] })
    expect(oneTime.status).toBe(400)
    expect(oneTime.body).toMatch(/id="offered_in_portal-error">Only a recurring product is offered in the portal/)
    expect(await listed("Beans once")).toHaveLength(0)

    // Its page shows both; its edit form, saved with the box unticked and no policy, clears both.
    const productPath = `/dashboard/test/products/${pro.product_id}`
    const page = await request(productPath, { cookie: owner })
    expect(page.body).toContain("upgrades prorated_immediately, immediately; downgrades do_not_bill, next_billing_date")
    const edit = formFields(page.body, productPath)
    expect(valueOf(edit, "offered_in_portal")).toBe("on")
    const cleared = ["upgrade_mode", "upgrade_when", "downgrade_mode", "downgrade_when"]
      .reduce((f, name) => withField(f, name, ""), edit.filter(([name]) => name !== "offered_in_portal"))
    expect((await request(productPath, { cookie: owner, form: cleared })).status).toBe(303)
    expect(await ok(server.baseUrl, key, "GET", `/products/${pro.product_id}`)).toMatchObject({ plan_change_policy: null, offered_in_portal: false, price: 30_000 })
  }, 30_000)

  it("a preview's quote: confirmed, the change charges what it showed; confirmed once the price changed, it is previewed again and charges nothing; a declined card is said in words", async () => {
    const basic = await monthly("Basic", 10_000)
    const pro = await monthly("Pro", 30_000)
    const id = await subscribe(basic)
    const subscriptionPath = `/dashboard/test/subscriptions/${id}`
    const shown = await request(subscriptionPath, { cookie: owner })
    expect(shown.body).toContain(`href="${subscriptionPath}/change-plan"`)
    expect(shown.body).toMatch(/<th>Credit balance<\/th><td>AED 0.00/)

    const form = formFields((await request(`${subscriptionPath}/change-plan`, { cookie: owner })).body, `${subscriptionPath}/change-plan/preview`)
    expect(valueOf(form, "quantity")).toBe("1")
    // Pro has no policy: the billing mode must be chosen.
    const noMode = await request(`${subscriptionPath}/change-plan/preview`, { cookie: owner, form: withField(form, "product_id", pro.product_id) })
    expect(noMode.status).toBe(400)
    expect(noMode.body).toMatch(/id="proration_billing_mode-error">proration_billing_mode is required/)

    const choices = withField(withField(form, "product_id", pro.product_id), "proration_billing_mode", "prorated_immediately")
    const preview = await request(`${subscriptionPath}/change-plan/preview`, { cookie: owner, form: choices })
    expect(preview.status, preview.body.slice(0, 400)).toBe(200)
    const charged = chargedNow(preview.body)
    expect(charged).toBeGreaterThan(19_000)
    expect(charged).toBeLessThanOrEqual(20_000)
    const confirm = formFields(preview.body, `${subscriptionPath}/change-plan`)
    expect(valueOf(confirm, "quote_id")).toMatch(/^qt_/)
    const made = await request(`${subscriptionPath}/change-plan`, { cookie: owner, form: confirm })
    expect(made.status, made.body.slice(0, 400)).toBe(303)
    expect((await request(made.headers.get("location")!, { cookie: owner })).body).toContain(`Changed to Pro × 1; charged AED ${(charged / 100).toFixed(2)}.`)
    // Posted again (a double click): the same change, no second charge.
    expect((await request(`${subscriptionPath}/change-plan`, { cookie: owner, form: confirm })).status).toBe(303)
    const update = (await paymentsOf(id)).filter((p) => p.billing_reason === "subscription_update")
    expect(update.map((p) => [p.status, p.total_amount])).toEqual([["succeeded", charged]])
    expect(await ok(server.baseUrl, key, "GET", `/subscriptions/${id}`)).toMatchObject({ product_id: pro.product_id, recurring_amount: 30_000 })

    // Back to Basic × 2 in full; the merchant raises Basic's price before it is confirmed.
    const back = withField(withField(withField(choices, "product_id", basic.product_id), "quantity", "2"), "proration_billing_mode", "full_immediately")
    const second = await request(`${subscriptionPath}/change-plan/preview`, { cookie: owner, form: back })
    expect(chargedNow(second.body)).toBe(20_000)
    await ok(server.baseUrl, key, "PATCH", `/products/${basic.product_id}`, { price: 15_000 })
    const stale = await request(`${subscriptionPath}/change-plan`, { cookie: owner, form: formFields(second.body, `${subscriptionPath}/change-plan`) })
    expect(stale.status).toBe(409)
    expect(stale.body).toContain("changed since this quote was made")
    expect(chargedNow(stale.body), "the preview again, at the new price").toBe(30_000)
    expect((await paymentsOf(id)).filter((p) => p.billing_reason === "subscription_update")).toHaveLength(1)
    expect((await ok(server.baseUrl, key, "GET", `/subscriptions/${id}`)).product_id).toBe(pro.product_id)

    // A card that declines after its first charge (0341): keep the plan, then change anyway.
    const declining = await subscribe(basic, "4000000000000341")
    const declinePath = `/dashboard/test/subscriptions/${declining}`
    const declineForm = formFields((await request(`${declinePath}/change-plan`, { cookie: owner })).body, `${declinePath}/change-plan/preview`)
    const keep = withField(withField(withField(declineForm, "product_id", pro.product_id), "proration_billing_mode", "full_immediately"), "on_payment_failure", "prevent_change")
    const keepPreview = await request(`${declinePath}/change-plan/preview`, { cookie: owner, form: keep })
    const declined = await request(`${declinePath}/change-plan`, { cookie: owner, form: formFields(keepPreview.body, `${declinePath}/change-plan`) })
    expect(declined.status).toBe(402)
    expect(declined.body).toContain("The card was declined (card_declined), so the plan was not changed")
    expect(await ok(server.baseUrl, key, "GET", `/subscriptions/${declining}`)).toMatchObject({ status: "active", product_id: basic.product_id })
    const anyway = withField(keep, "on_payment_failure", "apply_change")
    const anywayPreview = await request(`${declinePath}/change-plan/preview`, { cookie: owner, form: anyway })
    const applied = await request(`${declinePath}/change-plan`, { cookie: owner, form: formFields(anywayPreview.body, `${declinePath}/change-plan`) })
    expect(applied.status).toBe(303)
    expect((await request(applied.headers.get("location")!, { cookie: owner })).body)
      .toContain("The card was declined (card_declined): the plan changed to Pro × 1 and the subscription is on hold")
    expect(await ok(server.baseUrl, key, "GET", `/subscriptions/${declining}`)).toMatchObject({ status: "on_hold", product_id: pro.product_id })
    expect((await paymentsOf(declining)).filter((p) => p.billing_reason === "subscription_update").map((p) => p.status)).toEqual(["failed", "failed"])
  }, 60_000)

  it("a preview shows what a kept discount takes off the new plan, so its lines add up to the charge", async () => {
    const basic = await monthly("Basic kept", 10_000)
    const pro = await monthly("Pro kept", 30_000)
    await ok(server.baseUrl, key, "POST", "/discounts", { code: "KEEP20", type: "percentage", amount: 2000, preserve_on_plan_change: true })
    const session = await ok(server.baseUrl, key, "POST", "/checkout_sessions", { product_cart: [{ product_id: basic.product_id }], discount_code: "KEEP20" })
    expect((await postCheckoutForm(server.baseUrl, session.session_id, { card_number: "4242424242424242" })).status).toBe(200)
    const id = (await ok(server.baseUrl, key, "GET", `/checkout_sessions/${session.session_id}`)).subscription_id as string
    const subscriptionPath = `/dashboard/test/subscriptions/${id}`
    const form = formFields((await request(`${subscriptionPath}/change-plan`, { cookie: owner })).body, `${subscriptionPath}/change-plan/preview`)
    const choices = withField(withField(form, "product_id", pro.product_id), "proration_billing_mode", "full_immediately")
    const preview = await request(`${subscriptionPath}/change-plan/preview`, { cookie: owner, form: choices })
    expect(preview.status, preview.body.slice(0, 400)).toBe(200)
    expect(preview.body).toContain("<tr><td data-label=\"Line\">Discount KEEP20</td><td class=\"num\" data-label=\"Amount\">−AED 60.00</td></tr>")
    expect(chargedNow(preview.body)).toBe(24_000)
  }, 30_000)

  it("in Arabic, the product form, its refusals and a plan change's preview speak Arabic; codes, ids and the engine's own words stay as they are", async () => {
    const arabic = `${owner}; fils_dashboard_lang=ar`
    const basic = await monthly("Basic in Arabic", 10_000)
    const pro = await monthly("Pro in Arabic", 30_000)
    const path = "/dashboard/test/products"
    const list = await request(path, { cookie: arabic })
    expect(list.body).toContain(`<html lang="ar" dir="rtl">`)
    expect(list.body).toContain("<th>الفوترة</th>")
    expect(list.body).toContain('<td data-label="الفوترة">كل شهر</td>')
    expect(list.body).not.toContain("Make a checkout link")
    const once = [...withField(withField(withField(formFields(list.body, path), "name", "Beans in Arabic"), "price", "30.00"), "billing", "one_time"), ["offered_in_portal", "on"]] as Array<[string, string]>
    const refused = await request(path, { cookie: arabic, form: once })
    expect(refused.status).toBe(400)
    expect(refused.body).toContain("لم يُنشأ المنتج: صحّح الحقول المشار إليها أدناه.")
    expect(refused.body).toMatch(/id="offered_in_portal-error">لا يُعرض في البوابة إلا المنتج المتكرر/)

    const id = await subscribe(basic)
    const subscriptionPath = `/dashboard/test/subscriptions/${id}`
    const form = formFields((await request(`${subscriptionPath}/change-plan`, { cookie: arabic })).body, `${subscriptionPath}/change-plan/preview`)
    // The schema's words for the field, after an Arabic introduction.
    const noMode = await request(`${subscriptionPath}/change-plan/preview`, { cookie: arabic, form: withField(form, "product_id", pro.product_id) })
    expect(noMode.status).toBe(400)
    expect(noMode.body).toMatch(/id="proration_billing_mode-error">قيمة غير مقبولة: \u2066proration_billing_mode is required/)
    const choices = withField(withField(form, "product_id", pro.product_id), "proration_billing_mode", "prorated_immediately")
    const preview = await request(`${subscriptionPath}/change-plan/preview`, { cookie: arabic, form: choices })
    expect(preview.status, preview.body.slice(0, 400)).toBe(200)
    for (const words of ["معاينة تغيير الخطة", "ترقية الخطة (تكلّف أكثر في اليوم)", "(\u2066prorated_immediately\u2069)", "ما يُحصَّل من البطاقة الآن", "تأكيد: تحصيل"]) {
      expect(preview.body).toContain(words)
    }
    expect(preview.body).not.toContain("Charged now")
  }, 30_000)
})
