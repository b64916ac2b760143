/**
 * The dashboard's walls, on `fils serve`. Two accounts, each with objects in both modes (payments,
 * subscriptions, webhook endpoints with deliveries, keys, users). For every dashboard route that names an object,
 * with every object of the other account, and with this account's objects from the other mode's URL: the answer is
 * 404 (or a refusal) and nothing changes. Strings planted in every merchant- and customer-controlled field stay
 * inert text on every page. Secrets shown once never appear again, nor in the server's logs or the audit log.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Action, can } from "../../src/domain/DashboardUser.js"
import { runFils, type Served, serveFils } from "../support/cli.js"
import { ok, postCheckoutForm, startReceiver, type Receiver, type TestDatabase, testDatabase, waitFor } from "../support/load.js"

let db: TestDatabase
let server: Served
let env: Record<string, string | undefined>
let receiver: Receiver

const planted = `<script>window.__x=1</script>"'><img src=x onerror=alert(1)>`

interface Shop {
  readonly accountId: string
  readonly keys: { readonly test: string; readonly live: string }
  cookie: string
  csrf: string
  readonly objects: Record<"test" | "live", { payment: string; subscription: string; webhook: string; delivery: string; key: string; product: string; customer: string; event: string; session: string }>
}

const request = async (path: string, options: { readonly cookie?: string; readonly form?: Record<string, string> } = {}) => {
  const response = await fetch(`${server.baseUrl}${path}`, {
    method: options.form === undefined ? "GET" : "POST",
    redirect: "manual",
    headers: {
      ...(options.cookie === undefined ? {} : { cookie: options.cookie }),
      ...(options.form === undefined ? {} : { "content-type": "application/x-www-form-urlencoded", origin: server.baseUrl })
    },
    ...(options.form === undefined ? {} : { body: new URLSearchParams(options.form).toString() })
  })
  return { status: response.status, body: await response.text(), headers: response.headers }
}

const payForm = async (sessionId: string, name: string) => {
  const posted = await postCheckoutForm(server.baseUrl, sessionId, { card_number: "4242424242424242", name, email: "buyer@example.ae" })
  expect(posted.status).toBeGreaterThan(0)
  expect(posted.status).toBeLessThan(400)
}

/** An account with a user, and in each mode a payment, a subscription, an endpoint with a delivery, and a key. */
const makeShop = async (name: string, email: string): Promise<Shop> => {
  const made = await runFils(["accounts", "create", "--name", name], env)
  const { account_id, keys } = JSON.parse(made.stdout)
  await runFils(["accounts", "update", "--account", account_id, "--live-payments", "enabled"], env)
  const shop: Shop = {
    accountId: account_id,
    keys: { test: keys.test.secret, live: keys.live.secret },
    cookie: "",
    csrf: "",
    objects: {} as Shop["objects"]
  }
  for (const mode of ["test", "live"] as const) {
    const key = shop.keys[mode]
    const webhook = await ok(server.baseUrl, key, "POST", "/webhooks", mode === "test" ? { url: receiver.url } : { url: "https://hooks.example.ae/x", disabled: true })
    const product = await ok(server.baseUrl, key, "POST", "/products", { name: planted, price: 1_000, currency: "AED", description: planted })
    const plan = await ok(server.baseUrl, key, "POST", "/products", { name: planted, price: 500, currency: "AED", billing: "recurring", billing_interval: "month" })
    for (const productId of [product.product_id, plan.product_id]) {
      const session = await ok(server.baseUrl, key, "POST", "/checkout_sessions", { product_cart: [{ product_id: productId }], metadata: { note: planted } })
      await payForm(session.session_id, planted)
    }
    const payments = (await ok(server.baseUrl, key, "GET", "/payments")).items as Array<any>
    const customers = (await ok(server.baseUrl, key, "GET", "/customers")).items as Array<any>
    const events = (await ok(server.baseUrl, key, "GET", "/events")).items as Array<any>
    const subscriptions = (await ok(server.baseUrl, key, "GET", "/subscriptions")).items as Array<any>
    if (mode === "test") await waitFor("a delivery", async () => (await db.sql(`SELECT 1 FROM webhook_deliveries WHERE webhook_id = '${webhook.webhook_id}'`)).length > 0, 10_000)
    const [delivery] = await db.sql<{ delivery_id: string }>(`SELECT delivery_id FROM webhook_deliveries WHERE account_id = '${account_id}' AND livemode = ${mode === "live"} LIMIT 1`)
    const [session] = await db.sql<{ session_id: string }>(`SELECT session_id FROM checkout_sessions WHERE account_id = '${account_id}' AND livemode = ${mode === "live"} LIMIT 1`)
    const [apiKey] = await db.sql<{ key_id: string }>(`SELECT key_id FROM api_keys WHERE account_id = '${account_id}' AND livemode = ${mode === "live"} LIMIT 1`)
    shop.objects[mode] = {
      payment: payments[0].payment_id,
      subscription: subscriptions[0].subscription_id,
      webhook: webhook.webhook_id,
      delivery: delivery?.delivery_id ?? "dlv_none",
      key: apiKey!.key_id,
      product: product.product_id,
      customer: customers[0].customer_id,
      event: events[0].event_id,
      session: session!.session_id
    }
  }
  const user = JSON.parse((await runFils(["users", "create", "--account", account_id, "--email", email, "--role", "owner"], env)).stdout)
  const link = user.sign_in_url.replace(/^http:\/\/[^/]+/, server.baseUrl)
  const set = await request(link.slice(server.baseUrl.length), { form: { password: "a long enough password" } })
  shop.cookie = (set.headers.get("set-cookie") ?? "").split(";")[0]!
  shop.csrf = /name="csrf_token" value="([^"]+)"/.exec((await request("/dashboard/test", { cookie: shop.cookie })).body)![1]!
  await request("/dashboard/settings", { cookie: shop.cookie, form: { csrf_token: shop.csrf, business_name: planted } })
  return shop
}

let a: Shop
let b: Shop

beforeAll(async () => {
  db = await testDatabase()
  env = { DATABASE_URL: db.url, FILS_DATA_DIR: undefined, FILS_DASHBOARD: "true", FILS_SIMULATED_LIVE: "true" }
  receiver = await startReceiver()
  server = await serveFils(env, 60_000)
  a = await makeShop("Shop A", "a@shops.ae")
  b = await makeShop("Shop B", "b@shops.ae")
}, 120_000)

afterAll(async () => {
  await server?.stop("SIGTERM")
  await receiver?.close()
  await db?.close()
}, 30_000)

/** Every row the walls protect, as text: a change anywhere shows. */
const snapshot = () =>
  db.sql(`SELECT
    (SELECT json_agg(p ORDER BY payment_id) FROM (SELECT payment_id, status, refunded_amount FROM payments) p) AS payments,
    (SELECT json_agg(s ORDER BY subscription_id) FROM (SELECT subscription_id, status, cancel_at_period_end, product_id, quantity, scheduled_change, credit_balance FROM subscriptions) s) AS subscriptions,
    (SELECT json_agg(k ORDER BY key_id) FROM (SELECT key_id, revoked_at FROM api_keys) k) AS keys,
    (SELECT json_agg(d ORDER BY delivery_id) FROM (SELECT delivery_id, status, next_attempt_at FROM webhook_deliveries) d) AS deliveries,
    (SELECT json_agg(w ORDER BY webhook_id) FROM (SELECT webhook_id, disabled FROM webhook_endpoints) w) AS endpoints,
    (SELECT json_agg(p ORDER BY product_id) FROM (SELECT product_id, status FROM products) p) AS products,
    (SELECT count(*) FROM checkout_sessions) AS sessions,
    (SELECT json_agg(c ORDER BY customer_id) FROM (SELECT customer_id, email, name FROM customers) c) AS customers`).then(JSON.stringify)

describe("dashboard walls", () => {
  it("every route naming an object answers 404 for the other account's objects and for the other mode's, and changes nothing", async () => {
    const before = await snapshot()
    const checked: Array<string> = []
    for (const mode of ["test", "live"] as const) {
      const other = mode === "test" ? "live" : "test"
      // The other account's objects in this mode, and this account's own objects of the other mode under this mode's URL.
      for (const foreign of [b.objects[mode], a.objects[other]]) {
        const gets = [
          `/dashboard/${mode}/payments/${foreign.payment}`,
          `/dashboard/${mode}/subscriptions/${foreign.subscription}`,
          `/dashboard/${mode}/developers/webhooks/${foreign.webhook}`,
          `/dashboard/${mode}/customers/${foreign.customer}`,
          `/dashboard/${mode}/events/${foreign.event}`,
          `/dashboard/${mode}/checkout-sessions/${foreign.session}`,
          `/dashboard/${mode}/subscriptions/${foreign.subscription}/change-plan`,
          `/dashboard/${mode}/subscriptions/${foreign.subscription}/change-plan/scheduled/cancel`,
          // The confirmation pages of destructive actions.
          `/dashboard/${mode}/payments/${foreign.payment}/refund?amount=1.00`,
          `/dashboard/${mode}/subscriptions/${foreign.subscription}/cancel`,
          `/dashboard/${mode}/developers/keys/${foreign.key}/revoke`,
          `/dashboard/${mode}/developers/webhooks/${foreign.webhook}/delete`,
          `/dashboard/${mode}/products/${foreign.product}/archive`
        ]
        for (const path of gets) {
          const answer = await request(path, { cookie: a.cookie })
          expect(answer.status, path).toBe(404)
          checked.push(path)
        }
        const posts: ReadonlyArray<readonly [string, Record<string, string>]> = [
          [`/dashboard/${mode}/payments/${foreign.payment}/refund`, { amount: "1.00" }],
          [`/dashboard/${mode}/subscriptions/${foreign.subscription}/cancel`, { when: "now" }],
          [`/dashboard/${mode}/subscriptions/${foreign.subscription}/change-plan/preview`, { product_id: foreign.product, quantity: "2", on_payment_failure: "apply_change" }],
          [`/dashboard/${mode}/subscriptions/${foreign.subscription}/change-plan`, { product_id: foreign.product, quantity: "2", on_payment_failure: "apply_change", quote_id: "qt_0000000000000_00000000000000000000000000000000", once: "a-one-time-token-0001" }],
          [`/dashboard/${mode}/subscriptions/${foreign.subscription}/change-plan/scheduled/cancel`, {}],
          [`/dashboard/${mode}/subscriptions/${foreign.subscription}/charge`, { amount: "1.00", confirm: "yes", once: "a".repeat(32) }],
          [`/dashboard/${mode}/developers/webhooks/${foreign.webhook}/deliveries/${foreign.delivery}/resend`, {}],
          [`/dashboard/${mode}/developers/keys/${foreign.key}/revoke`, {}],
          [`/dashboard/${mode}/developers/webhooks/${foreign.webhook}/manage`, { action: "disable" }],
          [`/dashboard/${mode}/developers/webhooks/${foreign.webhook}/manage`, { action: "delete", confirm: "yes" }],
          [`/dashboard/${mode}/products/${foreign.product}/status`, { status: "archived" }],
          [`/dashboard/${mode}/products/${foreign.product}/checkout`, {}],
          [`/dashboard/${mode}/customers/${foreign.customer}/portal-link`, {}],
          [`/dashboard/${mode}/customers/${foreign.customer}`, { email: "taken@example.ae", name: "x", phone_number: "" }]
        ]
        for (const [path, form] of posts) {
          const answer = await request(path, { cookie: a.cookie, form: { csrf_token: a.csrf, ...form } })
          expect(answer.status, path).toBe(404)
          checked.push(path)
        }
      }
    }
    // B's users cannot be reached from A's team routes either.
    const [bUser] = await db.sql<{ user_id: string }>(`SELECT user_id FROM dashboard_users WHERE account_id = '${b.accountId}'`)
    for (const path of [`/dashboard/settings/team/${bUser!.user_id}/role`, `/dashboard/settings/team/${bUser!.user_id}/remove`]) {
      expect((await request(path, { cookie: a.cookie, form: { csrf_token: a.csrf, role: "viewer", confirm: "yes" } })).status, path).toBe(404)
    }
    expect((await request(`/dashboard/settings/team/${bUser!.user_id}/remove`, { cookie: a.cookie })).status, "its confirmation page").toBe(404)
    expect(await snapshot()).toBe(before)
    expect(checked.length).toBe(108)
    // The same routes with A's own objects in their own mode do answer (so the 404s above are the walls).
    expect((await request(`/dashboard/test/payments/${a.objects.test.payment}`, { cookie: a.cookie })).status).toBe(200)
    expect((await request(`/dashboard/live/subscriptions/${a.objects.live.subscription}`, { cookie: a.cookie })).status).toBe(200)
    expect((await request(`/dashboard/test/developers/webhooks/${a.objects.test.webhook}`, { cookie: a.cookie })).status).toBe(200)
  }, 60_000)

  it("planted strings stay inert text on every page; each page has a nonce CSP that frames nowhere", async () => {
    const pages = [
      "/dashboard/test", "/dashboard/live", "/dashboard/test/payments", `/dashboard/test/payments/${a.objects.test.payment}`,
      "/dashboard/test/subscriptions", `/dashboard/test/subscriptions/${a.objects.test.subscription}`, "/dashboard/test/products",
      "/dashboard/test/developers", `/dashboard/test/developers/webhooks/${a.objects.test.webhook}`, "/dashboard/live/payments",
      "/dashboard/test/customers", `/dashboard/test/customers/${a.objects.test.customer}`, "/dashboard/test/events",
      `/dashboard/test/events/${a.objects.test.event}`, "/dashboard/test/checkout-sessions",
      `/dashboard/test/checkout-sessions/${a.objects.test.session}`,
      "/dashboard/audit", "/dashboard/settings", "/dashboard/login",
      `/dashboard/test/products/${a.objects.test.product}/archive`, `/dashboard/test/subscriptions/${a.objects.test.subscription}/cancel`,
      `/dashboard/test/payments/${a.objects.test.payment}/refund?amount=0.01&reason=duplicate`
    ]
    let shown = 0
    for (const path of pages) {
      const page = await request(path, { cookie: a.cookie })
      expect(page.status, path).toBe(200)
      expect(page.body, path).not.toContain("<script>window.__x")
      expect(page.body, path).not.toContain("<img src=x")
      if (page.body.includes("&lt;script&gt;window.__x=1&lt;/script&gt;")) shown++
      const csp = page.headers.get("content-security-policy") ?? ""
      expect(csp, path).toMatch(/style-src 'nonce-[A-Za-z0-9+/=]+'/)
      expect(csp, path).toContain("frame-ancestors 'none'")
      expect(csp, path).not.toContain("script-src")
    }
    expect(shown, "the planted strings are on the pages, escaped").toBeGreaterThanOrEqual(6)
  }, 60_000)

  it("a key's secret is shown once, then never again: not on a page, in the audit log, or in the server's output", async () => {
    const created = await request("/dashboard/test/developers/keys", { cookie: a.cookie, form: { csrf_token: a.csrf } })
    const secret = /id="new-key">(sk_test_[A-Za-z0-9_-]+)</.exec(created.body)![1]!
    for (const path of ["/dashboard/test/developers", "/dashboard/audit", "/dashboard/settings", "/dashboard/test"]) {
      expect((await request(path, { cookie: a.cookie })).body, path).not.toContain(secret)
    }
    const audit = await db.sql(`SELECT * FROM dashboard_audit`)
    expect(JSON.stringify(audit)).not.toContain(secret)
    expect(JSON.stringify(audit)).not.toContain(a.cookie.split("=")[1]!)
    expect(server.stdout() + server.stderr()).not.toContain(secret)
    expect(server.stdout() + server.stderr()).not.toContain(a.cookie.split("=")[1]!)
    const [stored] = await db.sql<{ n: number }>(`SELECT count(*)::int AS n FROM dashboard_sessions WHERE token_hash = '${a.cookie.split("=")[1]}'`)
    expect(stored!.n, "session cookies are stored hashed").toBe(0)
  }, 30_000)
})

describe("dashboard roles and forged forms", () => {
  /** Every state-changing route, with a form that fails validation once past the role's gate (so nothing changes). */
  const routes = (mode: "test" | "live"): ReadonlyArray<{ readonly path: string; readonly action: Action; readonly form: Record<string, string> }> => [
    { path: `/dashboard/${mode}/payments/${a.objects[mode].payment}/refund`, action: "refund", form: { amount: "abc" } },
    { path: `/dashboard/${mode}/subscriptions/${a.objects[mode].subscription}/cancel`, action: "write", form: { when: "nonsense" } },
    { path: `/dashboard/${mode}/subscriptions/${a.objects[mode].subscription}/change-plan/preview`, action: "write", form: { product_id: "bad", quantity: "x", on_payment_failure: "apply_change" } },
    { path: `/dashboard/${mode}/subscriptions/${a.objects[mode].subscription}/change-plan`, action: "write", form: { product_id: "bad", quantity: "x", on_payment_failure: "apply_change", once: "short" } },
    { path: `/dashboard/${mode}/subscriptions/${a.objects[mode].subscription}/change-plan/scheduled/cancel`, action: "write", form: {} },
    { path: `/dashboard/${mode}/subscriptions/${a.objects[mode].subscription}/charge`, action: "write", form: { amount: "abc" } },
    { path: `/dashboard/${mode}/products`, action: "write", form: { name: "x", price: "abc", billing: "one_time" } },
    { path: `/dashboard/${mode}/products/${a.objects[mode].product}`, action: "write", form: { name: "x", price: "abc", description: "" } },
    { path: `/dashboard/${mode}/products/${a.objects[mode].product}/status`, action: "write", form: { status: "weird" } },
    { path: `/dashboard/${mode}/customers`, action: "write", form: { email: "bad" } },
    { path: `/dashboard/${mode}/customers/${a.objects[mode].customer}`, action: "write", form: { email: "bad", name: "", phone_number: "" } },
    { path: `/dashboard/${mode}/customers/${a.objects[mode].customer}/clock`, action: "write", form: { frozen_time: "nonsense" } },
    { path: `/dashboard/${mode}/developers/keys/key_00000000000000000000000000000000/revoke`, action: mode === "live" ? "live_keys" : "keys", form: {} },
    // Live endpoints follow live keys: their secrets sign what the live receiver trusts.
    { path: `/dashboard/${mode}/developers/webhooks`, action: mode === "live" ? "live_keys" : "keys", form: { url: "bad" } },
    { path: `/dashboard/${mode}/developers/webhooks/${a.objects[mode].webhook}/manage`, action: mode === "live" ? "live_keys" : "keys", form: { action: "nothing" } },
    { path: `/dashboard/${mode}/developers/webhooks/${a.objects[mode].webhook}/edit`, action: mode === "live" ? "live_keys" : "keys", form: { url: "bad", description: "" } },
    { path: `/dashboard/${mode}/developers/webhooks/${a.objects[mode].webhook}/deliveries/dlv_bad/resend`, action: mode === "live" ? "live_keys" : "keys", form: {} },
    { path: "/dashboard/settings", action: "settings", form: { business_name: "x".repeat(300), support_email: "" } },
    { path: "/dashboard/settings/team", action: "team", form: { email: "new@shops.ae", role: "nope" } },
    { path: "/dashboard/settings/team/usr_00000000000000000000000000000000/role", action: "team", form: { role: "viewer" } },
    { path: "/dashboard/settings/team/usr_00000000000000000000000000000000/remove", action: "team", form: {} }
  ]

  it("each role is refused exactly the changes its role may not make (403), and nothing changes when refused", async () => {
    const before = await snapshot()
    const signedIn: Record<string, { cookie: string; csrf: string }> = { owner: { cookie: a.cookie, csrf: a.csrf } }
    for (const role of ["admin", "developer", "viewer"] as const) {
      const made = JSON.parse((await runFils(["users", "create", "--account", a.accountId, "--email", `${role}@shops.ae`, "--role", role], env)).stdout)
      const set = await request(made.sign_in_url.replace(/^http:\/\/[^/]+/, ""), { form: { password: "a long enough password" } })
      const cookie = (set.headers.get("set-cookie") ?? "").split(";")[0]!
      const csrf = /name="csrf_token" value="([^"]+)"/.exec((await request("/dashboard/test", { cookie })).body)![1]!
      signedIn[role] = { cookie, csrf }
    }
    let refused = 0
    let passed = 0
    for (const role of ["owner", "admin", "developer", "viewer"] as const) {
      const { cookie, csrf } = signedIn[role]!
      for (const mode of ["test", "live"] as const) {
        for (const route of routes(mode)) {
          const answer = await request(route.path, { cookie, form: { csrf_token: csrf, ...route.form } })
          const allowed = can(role, route.action)
          expect(answer.status === 403, `${role} ${route.path}: ${answer.status}`).toBe(!allowed)
          allowed ? passed++ : refused++
        }
      }
      // Reading the audit log is owners' and admins'.
      expect((await request("/dashboard/audit", { cookie })).status, `${role} audit`).toBe(can(role, "audit") ? 200 : 403)
    }
    // What a developer is shown of a live endpoint: no form that reveals, rotates, changes or deletes it.
    const endpoint = await request(`/dashboard/live/developers/webhooks/${a.objects.live.webhook}`, { cookie: signedIn.developer!.cookie })
    expect(endpoint.status).toBe(200)
    expect(endpoint.body).not.toMatch(/Reveal the signing secret|Rotate the signing secret|Delete the endpoint|Save endpoint/)
    const list = await request("/dashboard/live/developers", { cookie: signedIn.developer!.cookie })
    expect(list.body).not.toContain("Add endpoint")
    expect(refused).toBeGreaterThan(30)
    expect(passed).toBeGreaterThan(30)
    expect(await snapshot()).toBe(before)
  }, 90_000)

  it("every state-changing route refuses a form sent from another site, even with the session's token", async () => {
    const before = await snapshot()
    for (const mode of ["test", "live"] as const) {
      const everyone = [
        { path: "/dashboard/logout", form: {} },
        { path: "/dashboard/settings/sign-out-everywhere", form: {} },
        { path: "/dashboard/login", form: { email: "a@shops.ae", password: "a long enough password" } }
      ]
      for (const route of [...routes(mode), ...everyone]) {
        const response = await fetch(`${server.baseUrl}${route.path}`, {
          method: "POST",
          redirect: "manual",
          headers: { cookie: a.cookie, "content-type": "application/x-www-form-urlencoded", origin: "https://evil.example", "sec-fetch-site": "cross-site" },
          body: new URLSearchParams({ csrf_token: a.csrf, ...route.form }).toString()
        })
        expect(response.status, route.path).toBe(403)
      }
    }
    expect(await snapshot()).toBe(before)
    expect((await request("/dashboard/test", { cookie: a.cookie })).status, "still signed in").toBe(200)
  }, 60_000)
})
