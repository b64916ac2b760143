/**
 * The merchant dashboard on `fils serve`, over HTTP as a browser without JavaScript uses it: the owner's
 * sign-in link from the server's banner, setting the password, the home page, finding a payment and refunding part
 * of it through the same use case as the CLI, the audit log; roles (a viewer cannot refund or read the audit log);
 * forged and cross-site forms refused; one message for every failed sign-in, then throttling; the cookie's flags;
 * signing out; and another account's payment out of reach.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { fromBase32, hotp } from "../../adapters/crypto/SignerNode.js"
import { dashboardCatalogues } from "../../adapters/http/i18n/dashboard/Catalogues.js"
import { runFils, type Served, serveFils } from "../support/cli.js"
import { ok, payThroughForm, type TestDatabase, testDatabase } from "../support/load.js"

let db: TestDatabase
let server: Served
let env: Record<string, string | undefined>
let key = ""
let ownerLink = ""
let accountId = ""

beforeAll(async () => {
  db = await testDatabase()
  env = { DATABASE_URL: db.url, FILS_DATA_DIR: undefined, FILS_OWNER_EMAIL: "owner@dunecoffee.ae" }
  server = await serveFils(env, 60_000)
  key = /Test key\s+(sk_test_[A-Za-z0-9_-]+)/.exec(server.stdout())![1]!
  ownerLink = /Sign in\s+(http\S+)/.exec(server.stdout())?.[1] ?? ""
  accountId = /default account (acct_[0-9a-f]{32})/.exec(server.stdout())![1]!
}, 90_000)

afterAll(async () => {
  await server?.stop("SIGTERM")
  await db?.close()
}, 30_000)

/** A request as a browser on the dashboard's own page sends it. */
const request = async (
  path: string,
  options: { readonly method?: string; readonly cookie?: string; readonly form?: Record<string, string>; readonly origin?: string } = {}
) => {
  const url = path.startsWith("http") ? path : `${server.baseUrl}${path}`
  const response = await fetch(url, {
    method: options.method ?? (options.form === undefined ? "GET" : "POST"),
    redirect: "manual",
    headers: {
      ...(options.cookie === undefined ? {} : { cookie: options.cookie }),
      ...(options.form === undefined ? {} : { "content-type": "application/x-www-form-urlencoded", origin: options.origin ?? server.baseUrl })
    },
    ...(options.form === undefined ? {} : { body: new URLSearchParams(options.form).toString() })
  })
  return { status: response.status, headers: response.headers, body: await response.text() }
}
const cookieOf = (setCookie: string | null) => (setCookie ?? "").split(";")[0]!
const csrfOf = (html: string) => /name="csrf_token" value="([^"]+)"/.exec(html)?.[1] ?? ""
/** A change's answer is a redirect (POST-redirect-GET): the page it leads to. */
const follow = async (answer: { readonly status: number; readonly headers: Headers }, cookie: string) => {
  expect(answer.status).toBe(303)
  return request(answer.headers.get("location")!, { cookie })
}
/** A money form's one-time token. */
const onceOf = (html: string) => /name="once" value="([^"]+)"/.exec(html)?.[1] ?? ""

/** Sets a password from a sign-in link; the session cookie. */
const redeem = async (link: string, password: string) => {
  const shown = await request(link)
  expect(shown.status).toBe(200)
  const set = await request(link, { form: { password } })
  expect(set.status, set.body.slice(0, 300)).toBe(303)
  return cookieOf(set.headers.get("set-cookie"))
}

describe("the dashboard", () => {
  let owner = ""
  let paymentId = ""

  it("the banner's sign-in link sets the owner's password once; the session cookie is HttpOnly and SameSite=Lax", async () => {
    expect(ownerLink).toMatch(/\/dashboard\/sign-in\/[A-Za-z0-9_-]{40,}$/)
    expect(server.stdout()).toContain(`${server.baseUrl}/dashboard`)
    const form = await request(ownerLink)
    expect(form.body).toContain("owner@dunecoffee.ae")
    expect(form.headers.get("content-security-policy")).toContain("frame-ancestors 'none'")
    const short = await request(ownerLink, { form: { password: "short" } })
    expect(short.status).toBe(400)
    expect(short.body).toContain("at least 12 characters")
    const set = await request(ownerLink, { form: { password: "correct horse battery" } })
    expect(set.status).toBe(303)
    expect(set.headers.get("location")).toBe("/dashboard/test")
    const flags = set.headers.get("set-cookie") ?? ""
    expect(flags).toMatch(/^fils_session=[A-Za-z0-9_-]{40,};/)
    expect(flags).toContain("HttpOnly")
    expect(flags).toContain("SameSite=Lax")
    owner = cookieOf(flags)
    expect((await request(ownerLink)).status, "a link works once").toBe(410)
  }, 30_000)

  it("signed out, every page leads to the sign-in form, which leads back to the page asked for", async () => {
    for (const path of ["/dashboard", "/dashboard/test"]) {
      const answer = await request(path)
      expect(answer.status, path).toBe(303)
      expect(answer.headers.get("location")).toBe("/dashboard/login")
    }
    for (const path of ["/dashboard/live/payments", "/dashboard/audit", "/dashboard/test/payments?session_id=cs_1&status=succeeded"]) {
      const answer = await request(path)
      expect(answer.status, path).toBe(303)
      expect(answer.headers.get("location")).toBe(`/dashboard/login?${new URLSearchParams({ next: path })}`)
      const form = await request(answer.headers.get("location")!)
      expect(form.body).toContain(`<input type="hidden" name="next" value="${path.replace(/&/g, "&amp;")}">`)
      expect(form.body).toContain("No password yet? Open your sign-in link")
      expect(form.body, "the language switch keeps it").toContain(`href="?${new URLSearchParams({ next: path, lang: "ar" }).toString().replace(/&/g, "&amp;")}"`)
      const signedIn = await request("/dashboard/login", { form: { email: "owner@dunecoffee.ae", password: "correct horse battery", next: path } })
      expect([signedIn.status, signedIn.headers.get("location")]).toStrictEqual([303, path])
    }
    // Anything but a page of this dashboard leads Home, and is not carried by the form.
    for (const next of [
      "https://evil.example/dashboard/test", "//evil.example/x", "/dashboard/../api/v1/account", "/api/v1/account",
      "/dashboard/%2e%2e/api/v1/account", "/dashboard/.%2E/x", "/dashboard\\evil", "/\\evil.example/dashboard/x", "/dashboardx"
    ]) {
      const form = await request(`/dashboard/login?${new URLSearchParams({ next })}`)
      expect(form.body, next).not.toContain('name="next"')
      const signedIn = await request("/dashboard/login", { form: { email: "owner@dunecoffee.ae", password: "correct horse battery", next } })
      expect([signedIn.status, signedIn.headers.get("location")], next).toStrictEqual([303, "/dashboard/test"])
    }
    // Resolved as a browser would: a dot segment inside the dashboard stays there; the query may hold anything; text
    // beyond ASCII is carried percent-encoded.
    for (const [next, page] of [
      ["/dashboard/./test/payments", "/dashboard/test/payments"],
      ["/dashboard/test/payments?q=https://x.example", "/dashboard/test/payments?q=https://x.example"],
      ["/dashboard/test/\u65e5", "/dashboard/test/%E6%97%A5"]
    ]) {
      const signedIn = await request("/dashboard/login", { form: { email: "owner@dunecoffee.ae", password: "correct horse battery", next } })
      expect([signedIn.status, signedIn.headers.get("location")], next).toStrictEqual([303, page])
    }
    // A form post is not a page to come back to.
    const posted = await request("/dashboard/test/customers", { form: { email: "nobody@example.ae" } })
    expect([posted.status, posted.headers.get("location")]).toStrictEqual([303, "/dashboard/login"])
  })

  it("home shows the business in test mode, with its volume", async () => {
    const product = await ok(server.baseUrl, key, "POST", "/products", { name: "Beans", price: 6_500, currency: "AED" })
    expect((await payThroughForm(server.baseUrl, key, product.product_id, "4242424242424242")).status).toBe(200)
    const home = await request("/dashboard/test", { cookie: owner })
    expect(home.status).toBe(200)
    expect(home.body).toContain("Test mode")
    expect(home.body).toContain("AED 65.00")
    expect(home.body).toContain("<svg")
    // Today against yesterday, the period against the one before; the chart's axis in AED, its days, its description.
    expect(home.body).toMatch(/Today so far<b>AED 65\.00<\/b><span class="change up">Up from none the previous day<\/span>/)
    expect(home.body).toMatch(/Gross volume<b>AED 65\.00<\/b><span class="change up">Up from none the previous 30 days<\/span>/)
    expect(home.body).toMatch(/<desc id="chart-desc">Total AED 65\.00; the busiest day \d+ [A-Z][a-z]{2} with AED 65\.00\.<\/desc>/)
    expect(home.body).toContain(">AED 100</text>")
    // The newest payments; nothing needs attention; the first steps a product and a payment made, ticked.
    expect(home.body).toMatch(/Recent payments[^]*AED 65\.00/)
    expect(home.body).toContain("Nothing needs a look")
    expect(home.body.match(/class="done-step"/g)?.length).toBe(2)
    const live = await request("/dashboard/live", { cookie: owner })
    expect(live.body).toContain("Live mode")
    expect(live.body).not.toContain("AED 65.00")
    expect(live.body).toContain("Getting started")
    expect(live.body).not.toContain(`class="done-step"`)
    // The support e-mail is asked for on the home page while the account has none; skipped, not again in this browser.
    const prompt = "Where should your customers write for help?"
    expect(home.body).toContain(prompt)
    const skipped = await request("/dashboard/support-email/skip", { cookie: owner, form: { csrf_token: csrfOf(home.body) } })
    expect(skipped.headers.get("set-cookie")).toMatch(/^fils_support_prompt=1; Path=\/; HttpOnly; SameSite=Lax$/)
    const skip = cookieOf(skipped.headers.get("set-cookie"))
    expect((await request("/dashboard/test", { cookie: `${owner}; ${skip}` })).body).not.toContain(prompt)
    const refused = await request("/dashboard/support-email", { cookie: owner, form: { csrf_token: csrfOf(home.body), support_email: "help at dune" } })
    expect((await follow(refused, owner)).body).toContain("The support e-mail was not saved: support email must be an e-mail address (you typed &#39;help at dune&#39;).")
    expect((await ok(server.baseUrl, key, "GET", "/account")).support_email).toBe(null)
    // Answered on the home page of the mode the prompt was on.
    expect(live.body).toContain(`<input type="hidden" name="mode" value="live">`)
    const empty = await request("/dashboard/support-email", { cookie: owner, form: { csrf_token: csrfOf(live.body), support_email: "", mode: "live" } })
    expect(empty.headers.get("location")).toMatch(/^\/dashboard\/live\?/)
    const saved = await follow(await request("/dashboard/support-email", { cookie: owner, form: { csrf_token: csrfOf(home.body), support_email: "care@dunecoffee.ae", mode: "test" } }), owner)
    expect(saved.body).toContain("Saved: your customers are told to write to care@dunecoffee.ae.")
    expect(saved.body).not.toContain(prompt)
    expect((await ok(server.baseUrl, key, "GET", "/account")).support_email).toBe("care@dunecoffee.ae")
  }, 30_000)

  it("finds the payment, and refunds part of it: refund.succeeded, the audit log names who", async () => {
    const list = await request("/dashboard/test/payments", { cookie: owner })
    paymentId = /(pay_[0-9a-f]{32})/.exec(list.body)![1]!
    const page = await request(`/dashboard/test/payments/${paymentId}`, { cookie: owner })
    expect(page.body).toContain("visa •••• 4242")
    const review = await request(`/dashboard/test/payments/${paymentId}/refund?amount=15.00&reason=requested_by_customer`, { cookie: owner })
    const csrf = csrfOf(review.body)
    expect(csrf.length).toBeGreaterThan(20)
    const refunded = await request(`/dashboard/test/payments/${paymentId}/refund`, { cookie: owner, form: { csrf_token: csrf, once: onceOf(review.body), amount: "15.00", reason: "requested_by_customer", confirm: "yes" } })
    expect(refunded.status, refunded.body.slice(0, 500)).toBe(303)
    expect((await request(refunded.headers.get("location")!, { cookie: owner })).body).toContain("Refunded AED 15.00")
    const payment = await ok(server.baseUrl, key, "GET", `/payments/${paymentId}`)
    expect(payment).toMatchObject({ status: "partially_refunded", refunded_amount: 1_500 })
    const events = (await ok(server.baseUrl, key, "GET", "/events?type=refund.succeeded")).items as Array<any>
    expect(events.map((e) => e.data.refund_amount)).toEqual([1_500])
    const audit = await request("/dashboard/audit", { cookie: owner })
    expect(audit.body).toContain("payment.refund")
    expect(audit.body).toContain(paymentId)
    expect(audit.body).toContain("owner@dunecoffee.ae")
  }, 30_000)

  it("refuses a form without the session's token, or from another site, changing nothing", async () => {
    const page = await request(`/dashboard/test/payments/${paymentId}/refund?amount=1.00&reason=duplicate`, { cookie: owner })
    const csrf = csrfOf(page.body)
    const forged = await request(`/dashboard/test/payments/${paymentId}/refund`, { cookie: owner, form: { csrf_token: "x", once: onceOf(page.body), amount: "1.00", confirm: "yes" } })
    expect(forged.status).toBe(403)
    const crossSite = await request(`/dashboard/test/payments/${paymentId}/refund`, {
      cookie: owner,
      form: { csrf_token: csrf, once: onceOf(page.body), amount: "1.00", confirm: "yes" },
      origin: "https://evil.example"
    })
    expect(crossSite.status).toBe(403)
    expect((await ok(server.baseUrl, key, "GET", `/payments/${paymentId}`)).refunded_amount).toBe(1_500)
  })

  it("a payment's timeline and an endpoint's old delivery stay in reach however many events came since", async () => {
    const refundEvent = ((await ok(server.baseUrl, key, "GET", "/events?type=refund.succeeded")).items as Array<any>)[0]
    const webhookId = (await ok(server.baseUrl, key, "POST", "/webhooks", { url: "http://127.0.0.1:9/old" })).webhook_id as string
    // The refund's delivery to the endpoint failed a day ago; then 1,100 newer events, each delivered to it.
    const old = `dlv_${"0".repeat(31)}1`
    await db.sql(`INSERT INTO webhook_deliveries (delivery_id, event_id, webhook_id, account_id, livemode, status, attempts,
        created_at, updated_at)
      VALUES ('${old}', '${refundEvent.event_id}', '${webhookId}', '${accountId}', false, 'failed', 1,
        now() - interval '1 day', now() - interval '1 day')`)
    await db.sql(`INSERT INTO events (event_id, account_id, livemode, type, data, created_at, payment_id)
      SELECT 'evt_' || md5('newer' || i), '${accountId}', false, 'payment.succeeded',
        jsonb_build_object('object', 'payment', 'payment_id', 'pay_' || md5('other' || i)), now() + i * interval '1 millisecond',
        'pay_' || md5('other' || i)
      FROM generate_series(1, 1100) AS i`)
    await db.sql(`INSERT INTO webhook_deliveries (delivery_id, event_id, webhook_id, account_id, livemode, status, attempts,
        created_at, updated_at)
      SELECT 'dlv_' || md5('newer' || i), 'evt_' || md5('newer' || i), '${webhookId}', '${accountId}', false, 'succeeded', 1,
        now() + i * interval '1 millisecond', now()
      FROM generate_series(1, 1100) AS i`)
    const page = await request(`/dashboard/test/payments/${paymentId}`, { cookie: owner })
    expect(page.body, "the refund in the payment's timeline").toContain(refundEvent.event_id)
    const endpointPage = await request(`/dashboard/test/developers/webhooks/${webhookId}`, { cookie: owner })
    const resent = await request(`/dashboard/test/developers/webhooks/${webhookId}/deliveries/${old}/resend`, {
      cookie: owner,
      form: { csrf_token: csrfOf(endpointPage.body) }
    })
    expect(resent.status, resent.body.slice(0, 300)).toBe(303)
    // Queued again now (the running server may already have tried it on the closed port since).
    const [row] = await db.sql<{ recent: boolean }>(
      `SELECT updated_at > now() - interval '1 minute' AS recent FROM webhook_deliveries WHERE delivery_id = '${old}'`
    )
    expect(row?.recent, "the old delivery was queued again").toBe(true)
    await ok(server.baseUrl, key, "DELETE", `/webhooks/${webhookId}`)
  }, 60_000)

  it("a viewer reads but cannot refund or read the audit log", async () => {
    const made = await runFils(["users", "create", "--account", accountId, "--email", "viewer@dunecoffee.ae", "--role", "viewer"], env)
    expect(made.code, made.stderr).toBe(0)
    const user = JSON.parse(made.stdout)
    expect(user).toMatchObject({ email: "viewer@dunecoffee.ae", role: "viewer", account_id: accountId })
    const viewer = await redeem(user.sign_in_url.replace(/^http:\/\/[^/]+/, server.baseUrl), "viewer password 1")
    const page = await request(`/dashboard/test/payments/${paymentId}`, { cookie: viewer })
    expect(page.status).toBe(200)
    expect(page.body).not.toContain("/refund")
    const attempt = await request(`/dashboard/test/payments/${paymentId}/refund`, { cookie: viewer, form: { csrf_token: csrfOf(page.body), amount: "1.00" } })
    expect(attempt.status).toBe(403)
    expect((await request("/dashboard/audit", { cookie: viewer })).status).toBe(403)
    expect((await ok(server.baseUrl, key, "GET", `/payments/${paymentId}`)).refunded_amount).toBe(1_500)
  }, 30_000)

  it("another account's payment is not found, and cannot be refunded", async () => {
    const other = await runFils(["accounts", "create", "--name", "Other shop"], env)
    const { account_id, keys } = JSON.parse(other.stdout)
    const otherKey = keys.test.secret as string
    const product = await ok(server.baseUrl, otherKey, "POST", "/products", { name: "Tea", price: 1_000, currency: "AED" })
    expect((await payThroughForm(server.baseUrl, otherKey, product.product_id, "4242424242424242")).status).toBe(200)
    const theirs = (await ok(server.baseUrl, otherKey, "GET", "/payments")).items[0].payment_id
    expect(account_id).not.toBe(accountId)
    const page = await request(`/dashboard/test/payments/${theirs}`, { cookie: owner })
    expect(page.status).toBe(404)
    const home = await request("/dashboard/test", { cookie: owner })
    const refund = await request(`/dashboard/test/payments/${theirs}/refund`, { cookie: owner, form: { csrf_token: csrfOf(home.body), amount: "1.00" } })
    expect(refund.status).toBe(404)
    expect((await ok(server.baseUrl, otherKey, "GET", `/payments/${theirs}`)).refunded_amount).toBe(0)
  }, 30_000)

  it("a failed sign-in reads the same for an unknown e-mail and a wrong password; then it is throttled", async () => {
    const wrong = await request("/dashboard/login", { form: { email: "owner@dunecoffee.ae", password: "not the password" } })
    const unknown = await request("/dashboard/login", { form: { email: "nobody@dunecoffee.ae", password: "not the password" } })
    expect([wrong.status, unknown.status]).toEqual([401, 401])
    const message = (html: string) => /role="alert">([^<]*)</.exec(html)?.[1]
    expect(message(wrong.body)).toBe(message(unknown.body))
    let status = 0
    for (let i = 0; i < 10 && status !== 429; i++) {
      status = (await request("/dashboard/login", { form: { email: "owner@dunecoffee.ae", password: "guess number " + i } })).status
    }
    expect(status).toBe(429)
  }, 60_000)

  it("settings: owners invite, change roles and remove; an account keeps an owner; others cannot manage the team", async () => {
    const settings = await request("/dashboard/settings", { cookie: owner })
    const csrf = csrfOf(settings.body)
    const saved = await request("/dashboard/settings", { cookie: owner, form: { csrf_token: csrf, business_name: "Dune Coffee <Roasters>", support_email: "help@dunecoffee.ae" } })
    expect(saved.status).toBe(303)
    expect((await request(saved.headers.get("location")!, { cookie: owner })).body).toContain("Dune Coffee &lt;Roasters&gt;")
    expect((await ok(server.baseUrl, key, "GET", "/account")).business_name).toBe("Dune Coffee <Roasters>")

    const invited = await request("/dashboard/settings/team", { cookie: owner, form: { csrf_token: csrf, email: "dev@dunecoffee.ae", role: "admin" } })
    const inviteLink = /id="invite-link">([^<]+)</.exec(invited.body)![1]!
    const admin = await redeem(inviteLink.replace(/^http:\/\/[^/]+/, server.baseUrl), "admin password 123")
    const adminSettings = await request("/dashboard/settings", { cookie: admin })
    expect(adminSettings.body).not.toContain("Invite by e-mail")
    expect((await request("/dashboard/settings/team", { cookie: admin, form: { csrf_token: csrfOf(adminSettings.body), email: "x@dunecoffee.ae", role: "owner" } })).status).toBe(403)

    const idOf = (body: string, email: string) =>
      new RegExp(`<td>${email}</td><td><form method="post" action="/dashboard/settings/team/(usr_[0-9a-f]{32})/role"`).exec(body)![1]!
    const ownerId = idOf(settings.body, "owner@dunecoffee.ae")
    const last = await request(`/dashboard/settings/team/${ownerId}/remove`, { cookie: owner, form: { csrf_token: csrf, confirm: "yes" } })
    expect(last.status).toBe(409)
    expect(last.body).toContain("An account needs an owner")

    const team = await request("/dashboard/settings", { cookie: owner })
    const adminId = idOf(team.body, "dev@dunecoffee.ae")
    const demoted = await request(`/dashboard/settings/team/${adminId}/role`, { cookie: owner, form: { csrf_token: csrf, role: "viewer" } })
    expect((await follow(demoted, owner)).body).toContain("dev@dunecoffee.ae is now viewer.")
    const removed = await request(`/dashboard/settings/team/${adminId}/remove`, { cookie: owner, form: { csrf_token: csrf, confirm: "yes" } })
    expect((await follow(removed, owner)).body).toContain("Removed dev@dunecoffee.ae.")
    expect((await request("/dashboard/test", { cookie: admin })).status, "a removed user's session ends").toBe(303)
  }, 30_000)

  it("your sign-in: the e-mail and password change with the password; sessions are listed and signed out one by one", async () => {
    const csrf = csrfOf((await request("/dashboard/settings", { cookie: owner })).body)
    const invited = await request("/dashboard/settings/team", { cookie: owner, form: { csrf_token: csrf, email: "maya@dunecoffee.ae", role: "viewer" } })
    const here = await redeem(/id="invite-link">([^<]+)</.exec(invited.body)![1]!.replace(/^http:\/\/[^/]+/, server.baseUrl), "maya's first password")
    const signIn = async (email: string, password: string) => {
      const answer = await request("/dashboard/login", { form: { email, password } })
      return answer.status === 303 ? cookieOf(answer.headers.get("set-cookie")) : `refused ${answer.status}`
    }
    const there = await signIn("maya@dunecoffee.ae", "maya's first password")
    const settings = await request("/dashboard/settings", { cookie: here })
    const token = csrfOf(settings.body)
    expect(settings.body.match(/<tr><td data-label="Signed in">\d{4}-\d{2}-\d{2} \d{2}:\d{2} GST<\/td><td data-label="Last seen">\d{4}-\d{2}-\d{2} \d{2}:\d{2} GST<\/td>/g)?.length).toBe(2)
    expect(settings.body).toContain("<b>This browser</b>")
    // Sign out the other session, by the form beside it.
    const other = /action="(\/dashboard\/settings\/sessions\/[0-9a-zA-Z_-]+\/sign-out)"/.exec(settings.body)![1]!
    expect((await follow(await request(other, { cookie: here, form: { csrf_token: token } }), here)).body).toContain("That session is signed out.")
    expect((await request("/dashboard/test", { cookie: there })).status).toBe(303)

    const change = (path: string, form: Record<string, string>) => request(`/dashboard/settings/${path}`, { cookie: here, form: { csrf_token: token, ...form } })
    const wrong = await change("password", { current_password: "not my password", new_password: "maya's second password" })
    expect(wrong.status).toBe(400)
    expect(wrong.body).toMatch(/<input id="current_password"[^>]*aria-invalid="true" aria-describedby="current_password-error">/)
    expect(wrong.body).toContain('<p class="field-error" id="current_password-error">That is not your current password</p>')
    const third = await signIn("maya@dunecoffee.ae", "maya's first password")
    expect((await follow(await change("password", { current_password: "maya's first password", new_password: "maya's second password" }), here)).body)
      .toContain("Password changed. Your other sessions were signed out.")
    expect((await request("/dashboard/test", { cookie: third })).status, "other sessions end").toBe(303)
    expect(await signIn("maya@dunecoffee.ae", "maya's first password")).toBe("refused 401")

    const taken = await change("email", { email: "owner@dunecoffee.ae", password: "maya's second password" })
    expect(taken.status).toBe(409)
    // One answer for an address on the team and one that signs in elsewhere: it tells nothing of other accounts.
    expect(taken.body).toContain("That e-mail address cannot be used here: choose another")
    expect(taken.body).not.toContain("already")
    expect((await follow(await change("email", { email: "maya@oasis.ae", password: "maya's second password" }), here)).body).toContain("You now sign in as maya@oasis.ae.")
    expect(await signIn("maya@oasis.ae", "maya's second password")).toMatch(/^fils_session=/)
    expect((await follow(await change("sign-out-others", {}), here)).body).toContain("Every other session is signed out.")
    const audit = (await request("/dashboard/audit", { cookie: owner })).body
    for (const action of ["user.session.sign_out", "user.password.update", "user.email.update", "user.sign_out_others"]) expect(audit, action).toContain(action)

    // Two-factor sign-in required of the account: only by an owner who has it on; a user without it is sent to set
    // it up before any other page, and can still sign out.
    const required = await request("/dashboard/settings/two-factor-required", { cookie: owner, form: { csrf_token: csrf, required: "on" } })
    expect(required.status).toBe(409)
    expect(required.body).toContain("Turn on two-factor sign-in for yourself first, then require it of everyone")
    await db.sql(`UPDATE accounts SET two_factor_required = true WHERE account_id = '${accountId}'`)
    try {
      const sent = await request("/dashboard/test/payments", { cookie: here })
      expect([sent.status, sent.headers.get("location")]).toEqual([303, "/dashboard/two-factor"])
      const enrol = await request("/dashboard/two-factor", { cookie: here })
      expect(enrol.body).toContain("Your account requires two-factor sign-in: set it up to continue.")
      expect((await request("/dashboard/logout", { cookie: here, form: { csrf_token: csrfOf(enrol.body) } })).headers.get("location")).toBe("/dashboard/login")
      expect((await request("/dashboard/two-factor", { cookie: here })).headers.get("location"), "signed out")
        .toBe("/dashboard/login?next=%2Fdashboard%2Ftwo-factor")
    } finally {
      await db.sql(`UPDATE accounts SET two_factor_required = false WHERE account_id = '${accountId}'`)
    }
  }, 30_000)

  it("settings, two-factor sign-in, the tax profile, the documents' lists and the exports speak Arabic, with no English left", async () => {
    const csrf = csrfOf((await request("/dashboard/settings", { cookie: owner })).body)
    const invited = await request("/dashboard/settings/team", { cookie: owner, form: { csrf_token: csrf, email: "noura@dunecoffee.ae", role: "admin" } })
    const password = "noura's own password"
    const cookie = `${await redeem(/id="invite-link">([^<]+)</.exec(invited.body)![1]!.replace(/^http:\/\/[^/]+/, server.baseUrl), password)}; fils_dashboard_lang=ar`
    const ownerAr = `${owner}; fils_dashboard_lang=ar`
    /**
     * The Latin words a page's main part shows a person, but for e-mails, codes, the account's own names and the
     * engine's refusals quoted left to right after their Arabic introduction.
     */
    const english = (body: string) => {
      const main = /<main[^>]*>([^]*)<\/main>/.exec(body)?.[1] ?? ""
      const shown = main
        .replace(/\u2066[^\u2069]*\u2069/g, " ")
        .replace(/<select id="time_zone"[^]*?<\/select>/, "")
        .replace(/<code[^>]*>[^<]*<\/code>/g, "")
        .replace(/(?:aria-label|data-label|title)="([^"]*)"|<[^>]*>/g, " $1 ")
        .replace(/&[a-z#0-9]+;/g, " ")
        .replace(/\S+@\S+/g, " ")
      const allowed = new Set(["AED", "API", "UTC", "CSV", "TRN", "PINT", "AE", "XML", "Peppol", "Asia", "Dubai", "Dune", "Coffee", "Roasters", "Souq", "LLC", "DED"])
      return [...new Set(shown.match(/[A-Za-z]{2,}/g) ?? [])].filter((w) => !allowed.has(w))
    }
    const arabic = async (path: string, who = cookie) => {
      const page = await request(path, { cookie: who })
      expect(page.body, path).toContain('<html lang="ar" dir="rtl">')
      expect(english(page.body), path).toEqual([])
      return page
    }

    const settings = await arabic("/dashboard/settings")
    const token = csrfOf(settings.body)
    expect(settings.body).toContain("<h2>الملف الضريبي</h2>")
    expect(settings.body).toContain('<td data-label="وقت تسجيل الدخول">')
    // A refused tax profile: the form's own words in Arabic, a choice not made too (by its key).
    const profile = { legal_name: "Dune Coffee Trading LLC", legal_name_ar: "", trn: "", line1: "Shop 4, Al Seef", line2: "", city: "Dubai", emirate: "", licence_number: "", licence_authority: "DED", vat_registered: "yes", prices_include_vat: "on" }
    const refused = await request("/dashboard/settings/tax-profile", { cookie, form: { csrf_token: token, ...profile } })
    expect(refused.status).toBe(400)
    expect(refused.body).toContain("لم يُحفظ الملف الضريبي: صحّح الحقول المشار إليها أدناه.")
    expect(refused.body).toContain('id="vat_registered-error">حدّد المربع أو اتركه فارغًا</p>')
    expect(refused.body).toContain('id="licence_number-error">الرخصة التجارية تحتاج إلى رقمها</p>')
    expect(refused.body).toContain(`id="emirate-error">${dashboardCatalogues.ar.frame.engine.chooseOne}</p>`)
    const saved = await request("/dashboard/settings/tax-profile", { cookie, form: { csrf_token: token, ...profile, emirate: "DXB", licence_number: "1234567", vat_registered: "" } })
    const shown = await follow(saved, cookie)
    expect(shown.body).toContain("حُفظ الملف الضريبي.")
    expect(shown.body).toContain("Shop 4, Al Seef, Dubai, دبي")
    expect(shown.body).toContain("غير مسجّل: لا تُحتسب ضريبة القيمة المضافة")
    expect(english(shown.body).filter((w) => !["Shop", "Al", "Seef", "Trading"].includes(w))).toEqual([])
    await follow(await request("/dashboard/settings/tax-profile/remove", { cookie, form: { csrf_token: token } }), cookie)

    // Two-factor sign-in: set up, the recovery codes, on, then off again.
    const start = await request("/dashboard/two-factor/start", { cookie, form: { csrf_token: token, password } })
    const setup = await follow(start, cookie)
    expect(english(setup.body)).toEqual([])
    expect(setup.body).toContain("<h2>1. أضف فلس إلى تطبيق المصادقة</h2>")
    const secret = /id="totp-secret">([^<]+)</.exec(setup.body)![1]!.replace(/ /g, "")
    let used = 0
    const code = () => {
      used = Math.max(Math.floor(Date.now() / 30_000), used + 1)
      return hotp(fromBase32(secret), used)
    }
    const wrong = await request("/dashboard/two-factor/confirm", { cookie, form: { csrf_token: token, code: "000000" } })
    expect(wrong.status).toBe(400)
    expect(english(wrong.body)).toEqual([])
    const on = await request("/dashboard/two-factor/confirm", { cookie, form: { csrf_token: token, code: code() } })
    expect(on.body).toContain("<h2>تسجيل الدخول بخطوتين مفعّل</h2>")
    expect(english(on.body)).toEqual([])
    const since = await arabic("/dashboard/two-factor")
    expect(since.body).toMatch(/رموز الاستعادة المتبقية: <b>10<\/b> من 10\./)
    const off = await request("/dashboard/two-factor/disable", { cookie, form: { csrf_token: token, password, code: code() } })
    expect((await follow(off, cookie)).body).toContain("أُوقف تسجيل الدخول بخطوتين منذ")

    // Removing a teammate, as the owner reads it.
    const team = await arabic("/dashboard/settings", ownerAr)
    const nouraId = new RegExp(`<td>noura@dunecoffee.ae</td><td><form method="post" action="/dashboard/settings/team/(usr_[0-9a-f]{32})/role"`).exec(team.body)![1]!
    const confirm = await arabic(`/dashboard/settings/team/${nouraId}/remove`, ownerAr)
    expect(confirm.body).toContain("يبقى للحساب مالك دائمًا: لا يمكن إزالة آخر مالك.")

    for (const path of ["/dashboard/test/invoices", "/dashboard/test/credit-notes", "/dashboard/test/einvoices", "/dashboard/test/exports"]) await arabic(path)
    const badDates = await request("/dashboard/test/exports/csv?kind=everything&from=2026-02-30&to=", { cookie })
    expect(badDates.status).toBe(400)
    expect(english(badDates.body)).toEqual([])
    expect(badDates.body).toContain("اختر المدفوعات أو المبالغ المستردة أو الاشتراكات أو العملاء")
    const removed = await request(`/dashboard/settings/team/${nouraId}/remove`, { cookie: ownerAr, form: { csrf_token: csrf, confirm: "yes" } })
    expect((await follow(removed, ownerAr)).body).toContain("أُزيل \u2068noura@dunecoffee.ae\u2069.")
  }, 30_000)

  it("inviting another account's user answers as inviting a fresh e-mail: both pending; the e-mail's uniqueness is checked when the link is used", async () => {
    // Another account with its own owner, who invites the first account's owner and then a fresh e-mail.
    const other = JSON.parse((await runFils(["accounts", "create", "--name", "Tea house"], env)).stdout)
    const made = JSON.parse((await runFils(["users", "create", "--account", other.account_id, "--email", "owner@teahouse.ae", "--role", "owner"], env)).stdout)
    const theirOwner = await redeem((made.sign_in_url as string).replace(/^http:\/\/[^/]+/, server.baseUrl), "tea house owner 123")
    const csrf = csrfOf((await request("/dashboard/settings", { cookie: theirOwner })).body)
    const invite = async (email: string) => {
      const answer = await request("/dashboard/settings/team", { cookie: theirOwner, form: { csrf_token: csrf, email, role: "viewer" } })
      const link = /id="invite-link">([^<]+)</.exec(answer.body)?.[1] ?? ""
      const row = new RegExp(`<tr><td>${email}</td>.*?</tr>`).exec(answer.body)?.[0] ?? ""
      const id = /team\/(usr_[0-9a-f]{32})\/role/.exec(row)?.[1] ?? ""
      // The page modulo what differs by construction: the e-mail, the link, the new row's id and the CSP nonce.
      const text = answer.body.split(email).join("EMAIL").split(link).join("LINK").split(id).join("ID")
        .replace(/nonce-[A-Za-z0-9+/=_-]+|nonce="[^"]*"/g, "NONCE")
      return { status: answer.status, link, row, id, text }
    }
    const taken = await invite("owner@dunecoffee.ae")
    const removed = await request(`/dashboard/settings/team/${taken.id}/remove`, { cookie: theirOwner, form: { csrf_token: csrf, confirm: "yes" } })
    expect(removed.status, "a pending invitation is withdrawn as a user is removed").toBe(303)
    const fresh = await invite("barista@teahouse.ae")
    expect([taken.status, fresh.status]).toEqual([200, 200])
    expect(taken.link).toMatch(/\/dashboard\/sign-in\/[A-Za-z0-9_-]{40,}$/)
    expect(fresh.link).toMatch(/\/dashboard\/sign-in\/[A-Za-z0-9_-]{40,}$/)
    expect(taken.row).toContain("<td>invited</td>")
    expect(fresh.row).toContain("<td>invited</td>")
    expect(taken.text).toBe(fresh.text)

    // Accepting: the e-mail that signs in elsewhere is refused, only to the link's holder; the fresh one joins.
    const again = await invite("owner@dunecoffee.ae")
    const link = again.link.replace(/^http:\/\/[^/]+/, server.baseUrl)
    const refused = await request(link, { form: { password: "someone else's password" } })
    expect(refused.status).toBe(409)
    expect(refused.body).toContain("ask the owner who invited you to invite another address")
    expect(refused.headers.get("set-cookie")).toBeNull()
    const stillPending = await request("/dashboard/settings", { cookie: theirOwner })
    expect(new RegExp(`<tr><td>owner@dunecoffee.ae</td>.*?</tr>`).exec(stillPending.body)?.[0]).toContain("<td>invited</td>")
    expect((await request("/dashboard/test", { cookie: owner })).status, "the first account's owner keeps their session").toBe(200)
    const barista = await redeem(fresh.link.replace(/^http:\/\/[^/]+/, server.baseUrl), "barista password 123")
    expect((await request("/dashboard/test", { cookie: barista })).status).toBe(200)
  }, 60_000)

  it("customers, events, search and an endpoint's management: each page answers, each change is audited", async () => {
    const home = await request("/dashboard/test", { cookie: owner })
    const csrf = csrfOf(home.body)
    const created = await request("/dashboard/test/customers", { cookie: owner, form: { csrf_token: csrf, name: "Noor Al Amin", email: "noor@example.ae", phone_number: "" } })
    expect(created.status).toBe(303)
    const customerPage = await request(created.headers.get("location")!, { cookie: owner })
    expect(customerPage.body).toContain("noor@example.ae")
    const bad = await request("/dashboard/test/customers", { cookie: owner, form: { csrf_token: csrf, email: "not-an-email" } })
    expect(bad.status).toBe(400)
    expect(bad.body).toMatch(/email must/)
    const found = await request("/dashboard/test/customers?email=NOOR%40example.ae", { cookie: owner })
    expect(found.body).toContain("Noor Al Amin")
    const customerPath = created.headers.get("location")!
    const edited = await request(customerPath, { cookie: owner, form: { csrf_token: csrf, name: "Noor Al-Amin", email: "noor@example.ae", phone_number: "+971501234567" } })
    expect(edited.status).toBe(303)
    expect((await request(customerPath, { cookie: owner })).body).toContain("+971501234567")
    const badEdit = await request(customerPath, { cookie: owner, form: { csrf_token: csrf, name: "", email: "nope", phone_number: "" } })
    expect(badEdit.status).toBe(400)

    // A product edited; an endpoint's URL, description and events edited (a bad URL refused).
    const products = await request("/dashboard/test/products", { cookie: owner })
    const productId = /products\/(pdt_[0-9a-f]{32})"/.exec(products.body)![1]!
    const savedProduct = await request(`/dashboard/test/products/${productId}`, { cookie: owner, form: { csrf_token: csrf, name: "Beans, 1 kg", price: "210.00", description: "Roasted weekly" } })
    expect(savedProduct.status).toBe(303)
    expect(await ok(server.baseUrl, key, "GET", `/products/${productId}`)).toMatchObject({ name: "Beans, 1 kg", price: 21_000, description: "Roasted weekly" })
    const badPrice = await request(`/dashboard/test/products/${productId}`, { cookie: owner, form: { csrf_token: csrf, name: "x", price: "12.345", description: "" } })
    expect(badPrice.status).toBe(400)

    // Checkout sessions: listed, each with its checkout_url.
    const sessions = await request("/dashboard/test/checkout-sessions", { cookie: owner })
    const sessionId = /(cks_[0-9a-f]{32})/.exec(sessions.body)![1]!
    const sessionPage = await request(`/dashboard/test/checkout-sessions/${sessionId}`, { cookie: owner })
    expect(sessionPage.body).toContain(`/checkout/${sessionId}`)

    // Search: an id opens the payment, the payer's e-mail lists their payments.
    const byId = await request(`/dashboard/test/payments?q=${paymentId}`, { cookie: owner })
    expect(byId.status).toBe(303)
    expect(byId.headers.get("location")).toBe(`/dashboard/test/payments/${paymentId}`)
    expect((await request("/dashboard/test/payments?q=layla%40example.ae", { cookie: owner })).body).toContain(paymentId)
    expect((await request("/dashboard/test/payments?q=nobody%40example.ae", { cookie: owner })).body).not.toContain(paymentId)
    // The amount as typed, and the card's last 4; what reads as none of them is refused at the field, as typed.
    for (const typed of ["65.00", "65", "AED 65.00", "4242"]) {
      expect((await request(`/dashboard/test/payments?q=${encodeURIComponent(typed)}`, { cookie: owner })).body, typed).toContain(paymentId)
    }
    for (const typed of ["65.01", "0005"]) {
      expect((await request(`/dashboard/test/payments?q=${encodeURIComponent(typed)}`, { cookie: owner })).body, typed).not.toContain(paymentId)
    }
    const unreadable = await request("/dashboard/test/payments?q=beans%3F", { cookie: owner })
    expect(unreadable.status).toBe(400)
    expect(unreadable.body).toMatch(/aria-describedby="q-error"[^]*id="q-error">Search by payment id, customer e-mail, amount/)
    expect(unreadable.body).toContain('value="beans?"')

    // The API's own filters pass through: a customer's payments.
    const layla = ((await ok(server.baseUrl, key, "GET", "/customers?email=layla%40example.ae")).items as Array<any>)[0]
    expect((await request(`/dashboard/test/payments?customer_id=${layla.customer_id}`, { cookie: owner })).body).toContain(paymentId)
    expect((await request(`/dashboard/test/payments?customer_id=cus_${"0".repeat(32)}`, { cookie: owner })).body).not.toContain(paymentId)
    // One that can name no customer or session matches nothing too; it is not dropped for the whole list.
    for (const filter of ["customer_id=cus_123", "checkout_session_id=nonsense"]) {
      const listed = await request(`/dashboard/test/payments?${filter}`, { cookie: owner })
      expect([listed.status, listed.body.includes(paymentId)], filter).toEqual([200, false])
    }
    // A choice a list does not have is refused in words, listing nothing; it is not read as any.
    for (const [path, value] of [["payments?status=", "paid"], ["subscriptions?status=", "paused"], ["events?type=", "payment.done"], ["einvoices?status=", "lost"]] as const) {
      const listed = await request(`/dashboard/test/${path}${value}`, { cookie: owner })
      expect([listed.status, listed.body.replaceAll("&#39;", "'").includes(`“${value}” is not one of this list's choices: pick one of them`)], path)
        .toEqual([400, true])
      expect(listed.body, path).not.toContain(paymentId)
    }

    // Keys: the banner's key, used by this test against the API, shows when; a new one has never been used.
    await request("/dashboard/test/developers/keys", { cookie: owner, form: { csrf_token: csrf } })
    await new Promise((r) => setTimeout(r, 300)) // the use is recorded off the request's path
    const developers = await request("/dashboard/test/developers", { cookie: owner })
    const rowOf = (last4: string) => new RegExp(`…${last4}</code>[^]*?</tr>`).exec(developers.body)?.[0] ?? ""
    expect(rowOf(key.slice(-4))).toMatch(/\d{4}-\d{2}-\d{2} \d{2}:\d{2} GST<\/td>\s*<td>\d{4}-\d{2}-\d{2} \d{2}:\d{2} GST/)
    expect(developers.body).toContain("<td>never</td>")

    // A date range in the account's days (Asia/Dubai).
    const today = new Intl.DateTimeFormat("en-CA", { timeZone: "Asia/Dubai" }).format(new Date())
    expect((await request(`/dashboard/test/payments?from=${today}&to=${today}`, { cookie: owner })).body).toContain(paymentId)
    expect((await request("/dashboard/test/payments?from=2001-01-01&to=2001-01-31", { cookie: owner })).body).not.toContain(paymentId)
    const badDate = await request("/dashboard/test/payments?from=2026-02-30", { cookie: owner })
    expect(badDate.status).toBe(400)
    expect(badDate.body).toContain("Dates are written YYYY-MM-DD")

    const eventsPage = await request("/dashboard/test/events?type=refund.succeeded", { cookie: owner })
    const eventId = /(evt_[0-9a-f]{32})/.exec(eventsPage.body)![1]!
    expect(eventsPage.body).not.toContain("payment.succeeded</td>")
    const eventPage = await request(`/dashboard/test/events/${eventId}`, { cookie: owner })
    expect(eventPage.body).toContain("&quot;refund_amount&quot;: 1500")

    // An endpoint: add, disable, reveal its secret (audited, not logged), resend failed, delete.
    const added = await request("/dashboard/test/developers/webhooks", { cookie: owner, form: { csrf_token: csrf, url: "http://127.0.0.1:9/hooks" } })
    expect(added.status).toBe(303)
    const endpoint = added.headers.get("location")!
    const manage = (action: string) => request(`${endpoint}/manage`, { cookie: owner, form: { csrf_token: csrf, action, ...(action === "delete" ? { confirm: "yes" } : {}) } })
    const edit = (form: Record<string, string | Array<string>>) => {
      const body = new URLSearchParams()
      body.set("csrf_token", csrf)
      for (const [k, v] of Object.entries(form)) for (const one of [v].flat()) body.append(k, one)
      return fetch(`${server.baseUrl}${endpoint}/edit`, {
        method: "POST",
        redirect: "manual",
        headers: { cookie: owner, "content-type": "application/x-www-form-urlencoded", origin: server.baseUrl },
        body: body.toString()
      }).then(async (r) => ({ status: r.status, headers: r.headers, body: await r.text() }))
    }
    const savedEndpoint = await edit({ url: "http://127.0.0.1:9/orders", description: "Orders", event_types: ["payment.succeeded", "refund.succeeded"] })
    expect((await follow(savedEndpoint, owner)).body).toContain("Saved.")
    const webhookId = /(wh_[0-9a-f]{32})/.exec(endpoint)![1]!
    expect(await ok(server.baseUrl, key, "GET", `/webhooks/${webhookId}`)).toMatchObject({
      url: "http://127.0.0.1:9/orders", description: "Orders", event_types: ["payment.succeeded", "refund.succeeded"]
    })
    expect((await edit({ url: "ftp://nowhere", description: "", event_types: ["payment.succeeded"] })).status).toBe(400)
    expect((await edit({ url: "http://127.0.0.1:9/orders", description: "" })).status, "no event type").toBe(400)
    expect((await follow(await manage("disable"), owner)).body).toContain("Disabled: it receives nothing new.")
    // Fils's notice on an endpoint it disabled for failing, as the dispatcher leaves it (docs/webhooks.md "Endpoint
    // health"); recover and test events from the page; enabling clears the notice.
    await db.sql(`INSERT INTO webhook_health (webhook_id, since, disabled_at)
      VALUES ('${/(wh_[0-9a-f]{32})/.exec(endpoint)![1]}', '2026-11-18T09:00:00Z', '2026-11-21T09:00:00Z')`)
    expect((await request(endpoint, { cookie: owner })).body)
      .toContain("Fils disabled this endpoint on 2026-11-21 13:00 GST: every attempt had failed for 3 days (at least 9 failed attempts), failing since 2026-11-18 13:00 GST")
    // The account's time zone, chosen in settings: every time follows it; an unknown one is refused, changing nothing.
    const zone = (time_zone: string) => request("/dashboard/settings/time-zone", { cookie: owner, form: { csrf_token: csrf, time_zone } })
    expect((await request("/dashboard/settings", { cookie: owner })).body).toContain('<option value="Asia/Dubai" selected>')
    const unknown = await zone("Asia/Atlantis")
    expect(unknown.status).toBe(400)
    expect(unknown.body).toContain("&#39;Asia/Atlantis&#39; is not a time zone this server knows")
    expect((await follow(await zone("America/St_Johns"), owner)).body).toContain("Times are now shown in America/St_Johns.")
    expect((await request(endpoint, { cookie: owner })).body).toContain("Fils disabled this endpoint on 2026-11-21 05:30 GMT-3:30")
    expect((await request("/dashboard/test", { cookie: owner })).body).toContain("(America/St_Johns)")
    expect((await follow(await zone("Asia/Dubai"), owner)).body).toContain("Times are now shown in Asia/Dubai.")
    const form = (path: string, fields: Record<string, string>) => request(`${endpoint}/${path}`, { cookie: owner, form: { csrf_token: csrf, ...fields } })
    const whileDisabled = await form("recover", { since: "2026-11-18T09:00" })
    expect(whileDisabled.status).toBe(400)
    expect(whileDisabled.body).toContain("enable it first")
    const enabled = (await follow(await manage("enable"), owner)).body
    expect(enabled).toContain("Enabled.")
    expect(enabled).not.toContain("Fils disabled this endpoint")
    const badSince = await form("recover", { since: "yesterday" })
    expect(badSince.status).toBe(400)
    expect(badSince.body).toContain("Since must be a date and time (YYYY-MM-DD HH:MM, Asia/Dubai); got &#39;yesterday&#39;")
    // The time is typed in the account's zone, as the label says (a datetime-local field would show the browser's own zone), and a
    // date that does not exist is refused rather than moved to another day.
    const page = (await request(endpoint, { cookie: owner })).body
    expect(page).toContain('since this time, in Asia/Dubai (YYYY-MM-DD HH:MM)')
    expect(page).toMatch(/<input id="recover_since" name="since" type="text"/)
    for (const notADay of ["2026-02-30T09:00", "2026-04-31 09:00", "2026-11-18 24:00", " 2026-11-18 09:00"]) {
      const refused = await form("recover", { since: notADay })
      expect(refused.status, notADay).toBe(400)
      expect(refused.body).toContain("Since must be a date and time (YYYY-MM-DD HH:MM, Asia/Dubai)")
    }
    expect((await follow(await form("recover", { since: "2026-11-18T09:00" }), owner)).body).toContain("0 deliveries since 2026-11-18 09:00 GST queued again.")
    expect((await follow(await form("recover", { since: "2026-11-18 09:30" }), owner)).body).toContain("0 deliveries since 2026-11-18 09:30 GST queued again.")
    // A final Z reads the time in UTC.
    expect((await follow(await form("recover", { since: "2026-11-18 09:30Z" }), owner)).body).toContain("0 deliveries since 2026-11-18 13:30 GST queued again.")
    expect((await follow(await form("test", { type: "payment.succeeded" }), owner)).body).toContain("Test payment.succeeded event queued")
    expect((await form("test", { type: "subscription.active" })).status, "a type it does not subscribe to").toBe(400)
    const revealed = await manage("reveal")
    const secret = /id="signing-secret">(whsec_[^<]+)</.exec(revealed.body)![1]!
    expect((await request(endpoint, { cookie: owner })).body).not.toContain(secret)
    const rotated = await manage("rotate")
    const newSecret = /id="signing-secret">(whsec_[^<|]+)</.exec(rotated.body)![1]!
    expect(newSecret).not.toBe(secret)
    expect(rotated.body).toContain("the old one keeps signing beside it for 24 hours")
    expect((await ok(server.baseUrl, key, "GET", `/webhooks/${/(wh_[0-9a-f]{32})/.exec(endpoint)![1]}/secret`)).secret).toBe(newSecret)
    expect((await follow(await manage("resend_failed"), owner)).body).toMatch(/\d+ failed deliver(y|ies) queued again/)
    expect((await manage("delete")).status).toBe(303)
    expect((await request(endpoint, { cookie: owner })).status).toBe(404)
    const audit = await request("/dashboard/audit", { cookie: owner })
    for (const action of ["customer.create", "webhook.create", "webhook.disable", "webhook.secret.reveal", "webhook.secret.rotate", "webhook.resend_failed", "webhook.recover", "webhook.test", "webhook.delete"]) {
      expect(audit.body, action).toContain(action)
    }
    expect(audit.body).not.toContain(secret)
    expect(server.stdout() + server.stderr()).not.toContain(secret)
  }, 30_000)

  it("signing out ends the session", async () => {
    const home = await request("/dashboard/test", { cookie: owner })
    const out = await request("/dashboard/logout", { cookie: owner, form: { csrf_token: csrfOf(home.body) } })
    expect(out.status).toBe(303)
    expect(out.headers.get("set-cookie")).toContain("Max-Age=0")
    expect((await request("/dashboard/test", { cookie: owner })).status).toBe(303)
  })
})

describe("the dashboard behind https", () => {
  it("names its cookie __Host-fils_session, Secure, when the public URL is https", async () => {
    const httpsDb = await testDatabase()
    const behindProxy = await serveFils({ DATABASE_URL: httpsDb.url, FILS_DATA_DIR: undefined, FILS_PUBLIC_URL: "https://shop.example.ae" }, 60_000)
    try {
      const link = /Sign in\s+(https:\/\/shop\.example\.ae\S+)/.exec(behindProxy.stdout())![1]!
      const path = new URL(link).pathname
      const set = await fetch(`${behindProxy.baseUrl}${path}`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded", origin: "https://shop.example.ae" },
        body: "password=a+long+enough+password"
      })
      expect(set.status).toBe(303)
      const cookie = set.headers.get("set-cookie") ?? ""
      expect(cookie).toMatch(/^__Host-fils_session=[A-Za-z0-9_-]{40,};/)
      expect(cookie).toContain("; Secure")
      expect(cookie).toContain("Path=/")
      expect(cookie).not.toContain("Domain=")
    } finally {
      await behindProxy.stop("SIGTERM")
      await httpsDb.close()
    }
  }, 90_000)
})
