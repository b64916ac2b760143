/**
 * Subscription lifecycles as an operator sees them (docs/decisions.md §4, §6, §7): `fils serve` on the embedded
 * PostgreSQL in a fresh data folder, subscriptions paid by posting the hosted checkout form, then
 * `fils billing run --at <ISO>` (the real process) at chosen instants, checked through the API.
 *
 * One account holds four subscriptions started within seconds of each other:
 *   A (4242) renews twice; B (0341) fails its renewal, is retried at +1, +3, +5 days and cancelled;
 *   C (4242) is set to cancel at the period end; D is a live subscription that `--at` must leave alone.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { runFils, type Served, serveFils, stopOrphanedPostgres } from "../support/cli.js"
import { billingRunAt, subscriptionReads } from "../support/operator.js"

const dataDir = mkdtempSync(join(tmpdir(), "fils-billing-e2e-"))
// The embedded database in its own folder; the simulated processor also takes live charges (staging).
const env = {
  FILS_DATA_DIR: dataDir,
  DATABASE_URL: undefined,
  FILS_KEY_CACHE_TTL: "0 millis",
  FILS_SIMULATED_LIVE: "true"
}
let served: Served | undefined
/** The checkout_url of the first session made (the page itself is posted on the server's own address). */
let firstCheckoutUrl = ""

beforeAll(async () => {
  served = await serveFils(env, 60_000)
}, 90_000)

afterAll(async () => {
  await served?.stop("SIGTERM")
  await stopOrphanedPostgres(dataDir)
  rmSync(dataDir, { recursive: true, force: true })
})

const day = 86_400_000
const iso = (millis: number) => new Date(millis).toISOString()

/** `anchor` + `n` calendar months, the day clamped to the month's length, time of day kept (docs/decisions.md §6). */
const addMonths = (anchorIso: string, n: number) => {
  const d = new Date(anchorIso)
  const total = d.getUTCFullYear() * 12 + d.getUTCMonth() + n
  const year = Math.floor(total / 12)
  const month = total - year * 12
  const last = new Date(Date.UTC(year, month + 1, 0)).getUTCDate()
  return iso(Date.UTC(
    year,
    month,
    Math.min(d.getUTCDate(), last),
    d.getUTCHours(),
    d.getUTCMinutes(),
    d.getUTCSeconds(),
    d.getUTCMilliseconds()
  ))
}

interface Json {
  readonly status: number
  readonly body: any
}

const api = async (key: string, method: string, path: string, body?: unknown): Promise<Json> => {
  const res = await fetch(`${served!.baseUrl}/api/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { "content-type": "application/json" })
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await res.text()
  return { status: res.status, body: text === "" ? undefined : JSON.parse(text) }
}

const ok = async (key: string, method: string, path: string, body?: unknown) => {
  const res = await api(key, method, path, body)
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body
}

/** A subscription session paid by posting the hosted page's form (form-urlencoded, with the page's token). */
const subscribe = async (key: string, card: string, email: string) => {
  const product = await ok(key, "POST", "/products", {
    name: "Coffee club",
    price: 9900,
    currency: "AED",
    billing: "recurring",
    billing_interval: "month"
  })
  const session = await ok(key, "POST", "/checkout_sessions", { product_cart: [{ product_id: product.product_id }] })
  expect(session.kind).toBe("subscription")
  expect(session.checkout_url).toMatch(new RegExp(`/checkout/${session.session_id}$`))
  if (firstCheckoutUrl === "") firstCheckoutUrl = session.checkout_url
  const pageUrl = `${served!.baseUrl}/checkout/${session.session_id}`
  const html = await (await fetch(pageUrl)).text()
  const token = /name="form_token" value="([^"]*)"/.exec(html)?.[1]
  expect(token, html.slice(0, 300)).toBeDefined()
  const posted = await fetch(pageUrl, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      name: "Layla Haddad",
      email,
      phone_number: "+971501234567",
      card_number: card,
      exp_month: "12",
      exp_year: "2040",
      cvc: "123",
      form_token: token!
    }).toString()
  })
  expect(posted.status, (await posted.text()).slice(0, 300)).toBe(200)
  const completed = await ok(key, "GET", `/checkout_sessions/${session.session_id}`)
  expect(completed.status).toBe("complete")
  expect(completed.subscription_id).toMatch(/^sub_[0-9a-f]{32}$/)
  return ok(key, "GET", `/subscriptions/${completed.subscription_id}`)
}

const { eventTypesOf, paymentsOf } = subscriptionReads((key, path) => ok(key, "GET", path))
const billingAt = (instant: string) => billingRunAt(env, instant)

describe("fils billing run --at, against fils serve on the embedded database", () => {
  let testKey = ""
  let liveKey = ""
  let a: any, b: any, c: any, d: any
  /** The first billing instant: a minute after the last of the four periods ends. */
  let at1 = ""

  it("subscriptions are paid on the hosted page, in test mode and (after enabling live payments) in live mode", async () => {
    const created = await runFils(["accounts", "create", "--name", "Souq Coffee"], env)
    expect(created.code, created.stderr).toBe(0)
    const account = JSON.parse(created.stdout)
    testKey = account.keys.test.secret
    liveKey = account.keys.live.secret
    const enabled = await runFils(["accounts", "update", "--account", account.account_id, "--live-payments", "enabled"], env)
    expect(enabled.code, enabled.stderr).toBe(0)
    expect(JSON.parse(enabled.stdout).live_payments_enabled).toBe(true)

    a = await subscribe(testKey, "4242424242424242", "a@example.ae")
    b = await subscribe(testKey, "4000000000000341", "b@example.ae")
    c = await subscribe(testKey, "4242424242424242", "c@example.ae")
    d = await subscribe(liveKey, "4242424242424242", "d@example.ae")
    for (const s of [a, b, c]) {
      expect(s).toMatchObject({ status: "active", livemode: false, recurring_amount: 9900, failed_payment_attempts: 0 })
      expect(s.next_billing_date).toBe(addMonths(s.current_period_start, 1))
    }
    expect(d).toMatchObject({ status: "active", livemode: true })
    expect(b.payment_method).toMatchObject({ brand: "visa", last4: "0341" })

    const flagged = await ok(testKey, "PATCH", `/subscriptions/${c.subscription_id}`, { cancel_at_period_end: true })
    expect(flagged).toMatchObject({ status: "active", cancel_at_period_end: true })
    c = flagged

    // The live subscription is invisible to the test key, and the other way round.
    expect((await api(testKey, "GET", `/subscriptions/${d.subscription_id}`)).status).toBe(404)
    expect((await api(liveKey, "GET", `/subscriptions/${a.subscription_id}`)).status).toBe(404)
    at1 = iso(Math.max(...[a, b, c, d].map((s) => Date.parse(s.next_billing_date))) + 60_000)
  }, 60_000)

  it("a month later: A renews, B's renewal is declined (on_hold), C ends at its period end, live D is untouched", async () => {
    const report = await billingAt(at1)
    expect(report).toMatchObject({ renewals_charged: 2, subscriptions_ended: 1 })

    const aNow = await ok(testKey, "GET", `/subscriptions/${a.subscription_id}`)
    expect(aNow).toMatchObject({
      status: "active",
      current_period_start: a.next_billing_date,
      next_billing_date: addMonths(a.current_period_start, 2),
      failed_payment_attempts: 0,
      next_retry_at: null
    })
    const bNow = await ok(testKey, "GET", `/subscriptions/${b.subscription_id}`)
    expect(bNow).toMatchObject({
      status: "on_hold",
      current_period_start: b.current_period_start,
      next_billing_date: b.next_billing_date,
      failed_payment_attempts: 1,
      next_retry_at: iso(Date.parse(at1) + day)
    })
    const cNow = await ok(testKey, "GET", `/subscriptions/${c.subscription_id}`)
    expect(cNow).toMatchObject({
      status: "cancelled",
      cancellation_reason: "requested",
      cancelled_at: c.next_billing_date,
      current_period_start: c.current_period_start
    })
    // `--at` processes test-mode work only: the live subscription was due too, and nothing happened to it.
    expect(await ok(liveKey, "GET", `/subscriptions/${d.subscription_id}`)).toStrictEqual(d)
    expect((await paymentsOf(liveKey, d.subscription_id)).map((p) => p.billing_reason)).toEqual(["subscription_create"])
    expect(await eventTypesOf(liveKey, d.subscription_id)).toEqual(["payment.succeeded", "subscription.active"])

    expect((await paymentsOf(testKey, a.subscription_id)).map((p) => [p.billing_reason, p.status, p.total_amount])).toEqual([
      ["subscription_create", "succeeded", 9900],
      ["subscription_renewal", "succeeded", 9900]
    ])
    expect((await paymentsOf(testKey, b.subscription_id)).map((p) => [p.billing_reason, p.status])).toEqual([
      ["subscription_create", "succeeded"],
      ["subscription_renewal", "failed"]
    ])
    expect(await paymentsOf(testKey, c.subscription_id)).toHaveLength(1)
    expect(await eventTypesOf(testKey, a.subscription_id)).toEqual([
      "payment.succeeded",
      "subscription.active",
      "payment.succeeded",
      "subscription.renewed"
    ])
    expect(await eventTypesOf(testKey, b.subscription_id)).toEqual([
      "payment.succeeded",
      "subscription.active",
      "payment.failed",
      "subscription.on_hold"
    ])
    expect(await eventTypesOf(testKey, c.subscription_id)).toEqual([
      "payment.succeeded",
      "subscription.active",
      "subscription.cancelled"
    ])
  }, 60_000)

  it("B is retried 1, 3 and 5 days after the first failure (not before), then cancelled with payment_failed", async () => {
    const early = await billingAt(iso(Date.parse(at1) + day - 1000))
    expect(early).toMatchObject({ renewals_charged: 0, subscriptions_ended: 0 })
    expect(await paymentsOf(testKey, b.subscription_id)).toHaveLength(2)

    const expected: ReadonlyArray<readonly [number, string | null, string]> = [
      [2, iso(Date.parse(at1) + 3 * day), "on_hold"],
      [3, iso(Date.parse(at1) + 5 * day), "on_hold"],
      [4, null, "cancelled"]
    ]
    let retryAt = iso(Date.parse(at1) + day)
    for (const [attempts, nextRetry, status] of expected) {
      const report = await billingAt(retryAt)
      expect(report).toMatchObject({ renewals_charged: 1, subscriptions_ended: 0 })
      const now = await ok(testKey, "GET", `/subscriptions/${b.subscription_id}`)
      expect(now).toMatchObject({ status, failed_payment_attempts: attempts, next_retry_at: nextRetry })
      if (nextRetry !== null) retryAt = nextRetry
    }
    const cancelled = await ok(testKey, "GET", `/subscriptions/${b.subscription_id}`)
    expect(cancelled).toMatchObject({
      cancellation_reason: "payment_failed",
      cancelled_at: iso(Date.parse(at1) + 5 * day),
      current_period_start: b.current_period_start
    })
    expect((await paymentsOf(testKey, b.subscription_id)).map((p) => [p.billing_reason, p.status])).toEqual([
      ["subscription_create", "succeeded"],
      ["subscription_renewal", "failed"],
      ["subscription_renewal", "failed"],
      ["subscription_renewal", "failed"],
      ["subscription_renewal", "failed"]
    ])
    expect(await eventTypesOf(testKey, b.subscription_id)).toEqual([
      "payment.succeeded",
      "subscription.active",
      "payment.failed",
      "subscription.on_hold",
      "payment.failed",
      "payment.failed",
      "payment.failed",
      "subscription.cancelled"
    ])
  }, 60_000)

  it("the second month renews A again; nothing more for B, C or the live D", async () => {
    const at2 = iso(Date.parse(addMonths(a.current_period_start, 2)) + 60_000)
    const report = await billingAt(at2)
    expect(report).toMatchObject({ renewals_charged: 1, subscriptions_ended: 0 })
    expect(await ok(testKey, "GET", `/subscriptions/${a.subscription_id}`)).toMatchObject({
      status: "active",
      current_period_start: addMonths(a.current_period_start, 2),
      next_billing_date: addMonths(a.current_period_start, 3)
    })
    expect((await paymentsOf(testKey, a.subscription_id)).map((p) => [p.billing_reason, p.status])).toEqual([
      ["subscription_create", "succeeded"],
      ["subscription_renewal", "succeeded"],
      ["subscription_renewal", "succeeded"]
    ])
    expect(await eventTypesOf(testKey, a.subscription_id)).toEqual([
      "payment.succeeded",
      "subscription.active",
      "payment.succeeded",
      "subscription.renewed",
      "payment.succeeded",
      "subscription.renewed"
    ])
    expect(await paymentsOf(testKey, b.subscription_id)).toHaveLength(5)
    expect(await paymentsOf(testKey, c.subscription_id)).toHaveLength(1)
    expect((await ok(testKey, "GET", "/subscriptions?status=cancelled")).items.map((s: any) => s.subscription_id).sort())
      .toEqual([b.subscription_id, c.subscription_id].sort())
    expect(await ok(liveKey, "GET", `/subscriptions/${d.subscription_id}`)).toStrictEqual(d)
    expect(await paymentsOf(liveKey, d.subscription_id)).toHaveLength(1)
  }, 60_000)

  it("a bad --at value is a JSON error on stderr with exit code 1, and changes nothing", async () => {
    const before = await ok(testKey, "GET", "/payments?limit=100")
    const result = await runFils(["billing", "run", "--at", "next tuesday"], env)
    expect(result.code).toBe(1)
    expect(result.stdout).toBe("")
    const error = JSON.parse(result.stderr.trim().split("\n").pop()!)
    expect(error).toStrictEqual({ code: "INVALID_REQUEST", message: expect.stringContaining("--at") })
    expect(await ok(testKey, "GET", "/payments?limit=100")).toStrictEqual(before)
  }, 60_000)

  // Regression (fixed): `--at` takes any string Date.parse accepts after a date-shaped prefix, so an impossible
  // date rolls over silently (30 February 2026 runs as 2 March) instead of being refused (adapters/cli/commands.ts,
  // billingRun).
  it("--at refuses an impossible calendar date instead of rolling it over", async () => {
    const result = await runFils(["billing", "run", "--at", "2026-02-30T10:00:00Z"], env)
    expect(result.stdout).toBe("")
    expect(result.code).toBe(1)
    expect(JSON.parse(result.stderr.trim().split("\n").pop()!)).toMatchObject({ code: "INVALID_REQUEST" })
  }, 60_000)

  // Regression (fixed): without FILS_PUBLIC_URL, `fils serve --port N` announces http://127.0.0.1:N, but
  // Checkout's PublicUrl (src/application/Checkout.ts) defaults to http://127.0.0.1:4242, so every checkout_url
  // points at a port nobody listens on.
  it("checkout_url points at the serving port when FILS_PUBLIC_URL is unset", () => {
    expect(firstCheckoutUrl).toBe(`${served!.baseUrl}/checkout/${firstCheckoutUrl.split("/").pop()}`)
  })

  it("the server still answers and stops cleanly on SIGTERM", async () => {
    expect((await fetch(`${served!.baseUrl}/ready`)).status).toBe(200)
    expect(await served!.stop("SIGTERM")).toBe(0)
    served = undefined
  })
})
