/**
 * `node --import tsx bench/profile.ts <scenario> [seconds]`: one load scenario against `fils serve` started with
 * `--cpu-prof`; the profile lands in bench/profiles/ (open it in Chrome DevTools or speedscope). Scenarios:
 * payment_get, payment_list, checkout_create, product_create, plan_preview, plan_change (4,000 subscriptions halfway
 * through their month, changed in turn up to a dearer plan and back), checkout_pay (the hosted form of sessions made
 * beforehand, paid with a test card: a charge, as a plan change's is). DATABASE_URL or embedded, as `npm run bench`.
 * Prints req/s, latency, the server's CPU time per request and its peak RSS; BENCH_PROFILE=0 runs without the profiler,
 * BENCH_RATE=n paces the load at n requests per second (as the p99 step of `npm run bench` does at 1,000);
 * BENCH_PREFILL_LOGS=n writes n request log lines first (random request ids, as callers may send), so that request
 * logging is measured against a table of a week's size rather than an empty one.
 */
import { randomUUID } from "node:crypto"
import { chmodSync, mkdtempSync, rmSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { startEmbeddedPostgres } from "../adapters/sql/EmbeddedPostgres.js"
import { buildFils, cpuMillis, databaseCpuMillis, freePort, memory, root, startFils, waitForOutput, waitReady } from "./processes.js"
import { paced } from "./paced.js"
import * as Seed from "./seed.js"

const autocannon = createRequire(import.meta.url)("autocannon") as (options: object) => Promise<any>
const scenario = process.argv[2] ?? "payment_get"
const seconds = Number(process.argv[3] ?? 10)
const rate = process.env["BENCH_RATE"] === undefined ? undefined : Number(process.env["BENCH_RATE"])

if (process.env["BENCH_BUILT"] === "1") buildFils()
const work = mkdtempSync(join(tmpdir(), "fils-profile-"))
chmodSync(work, 0o755)
const configured = process.env["DATABASE_URL"]?.trim() || undefined
const embedded = configured === undefined ? await startEmbeddedPostgres(join(work, "pg")) : undefined
const serverUrl = configured ?? embedded!.url
const dbName = `fils_profile_${Date.now()}`
const admin = await Seed.connect(serverUrl)
await admin.query(`CREATE DATABASE ${dbName}`)
const u = new URL(serverUrl)
u.pathname = `/${dbName}`
const dbUrl = u.toString()
try {
  const fils = startFils(await freePort(), { DATABASE_URL: dbUrl, FILS_RATE_LIMIT_PER_MIN: "1000000000", ...(process.env["BENCH_LOGS"] === "0" ? { FILS_REQUEST_LOG_RETENTION_DAYS: "0" } : {}) }, process.env["BENCH_PROFILE"] === "0" ? undefined : join(root, "bench", "profiles"))
  await waitReady(fils, performance.now())
  const prefill = Number(process.env["BENCH_PREFILL_LOGS"] ?? "0")
  if (prefill > 0) {
    const db = await Seed.connect(dbUrl)
    await db.query(`INSERT INTO request_logs (request_log_id, account_id, livemode, request_id, key_id, method, path, status, duration_ms, created_at)
      SELECT 'rl_' || lpad(g::text, 12, '0'), (SELECT account_id FROM accounts LIMIT 1), false, 'req_' || md5(random()::text), 'key_x', 'GET',
        '/api/v1/payments/pay_x', 200, 1.5, now() - interval '1 hour' FROM generate_series(1, ${prefill}) g`)
    await db.query("VACUUM ANALYZE request_logs")
    await db.end()
  }
  const key = (await waitForOutput(fils, /Test key\s+(sk_test_[A-Za-z0-9_-]+)/))[1]!
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" }
  const post = async (path: string, body: unknown) =>
    (await (await fetch(`${fils.url}/api/v1${path}`, { method: "POST", headers, body: JSON.stringify(body) })).json()) as any
  const a = await post("/products", { name: "A", price: 6500, currency: "AED" })
  const b = await post("/products", { name: "B", price: 2500, currency: "AED" })
  const sql = await Seed.connect(dbUrl)
  const account = (await sql.query("SELECT account_id FROM accounts")).rows[0].account_id as string
  await Seed.seedPayments(sql, account, 1, 20_000)
  const ids = await Seed.samplePaymentIds(sql, account, 1000)
  const planScenario = scenario.startsWith("plan_")
  const plan = planScenario ? await post("/products", { name: "Plan", price: 5000, currency: "AED", billing: "recurring", billing_interval: "month" }) : undefined
  const plus = planScenario ? await post("/products", { name: "Plus", price: 9000, currency: "AED", billing: "recurring", billing_interval: "month" }) : undefined
  const changing = planScenario ? await Seed.seedDueSubscriptions(sql, account, plan.product_id, 4000, 15 * 24 * 60) : []
  await sql.end()
  // Sessions to pay, each with its form's token, made before the load (a paid one cannot be paid again).
  const toPay: Array<{ readonly id: string; readonly token: string }> = []
  if (scenario === "checkout_pay") {
    for (let i = 0; i < 6000; i++) {
      const session = await post("/checkout_sessions", { product_cart: [{ product_id: a.product_id }] })
      const page = await (await fetch(`${fils.url}/checkout/${session.session_id}`)).text()
      toPay.push({ id: session.session_id, token: /name="form_token" value="([^"]*)"/.exec(page)![1]! })
    }
  }
  const form = (token: string) =>
    new URLSearchParams({
      name: "Layla Haddad", email: "layla@example.ae", phone_number: "+971501234567", card_number: "4242424242424242",
      exp_month: "12", exp_year: "2090", cvc: "123", form_token: token
    }).toString()
  const changeBody = (productId: string) => JSON.stringify({ product_id: productId, quantity: 1, proration_billing_mode: "prorated_immediately" })
  let n = 0
  const requests: Record<string, object> = {
    payment_get: { method: "GET", setupRequest: (r: any) => ({ ...r, path: `/api/v1/payments/${ids[n++ % ids.length]}` }) },
    payment_list: { method: "GET", path: "/api/v1/payments?limit=20" },
    checkout_create: {
      method: "POST",
      path: "/api/v1/checkout_sessions",
      body: JSON.stringify({ product_cart: [{ product_id: a.product_id, quantity: 2 }, { product_id: b.product_id }] }),
      setupRequest: (r: any) => ({ ...r, headers: { ...r.headers, "idempotency-key": randomUUID() } })
    },
    product_create: { method: "POST", path: "/api/v1/products", body: JSON.stringify({ name: "P", price: 1, currency: "AED" }) },
    plan_preview: {
      method: "POST",
      setupRequest: (r: any) => ({ ...r, path: `/api/v1/subscriptions/${changing[n++ % changing.length]}/change-plan/preview`, body: changeBody(plus?.product_id) })
    },
    checkout_pay: {
      method: "POST",
      setupRequest: (r: any) => {
        const s = toPay[n++ % toPay.length]!
        return { ...r, path: `/checkout/${s.id}`, body: form(s.token), headers: { "content-type": "application/x-www-form-urlencoded", origin: fils.url } }
      }
    },
    plan_change: {
      method: "POST",
      setupRequest: (r: any) => {
        const i = n++
        return {
          ...r,
          path: `/api/v1/subscriptions/${changing[i % changing.length]}/change-plan`,
          body: changeBody(Math.floor(i / changing.length) % 2 === 0 ? plus?.product_id : plan?.product_id),
          headers: { ...r.headers, "idempotency-key": randomUUID() }
        }
      }
    }
  }
  // Paced runs measure latency, so the server is warmed up first (JIT, connections).
  if (rate !== undefined) await paced({ url: fils.url, connections: 64, seconds: 3, headers, request: requests[scenario] as any, rate })
  const cpu0 = cpuMillis(fils.child.pid!)
  const database0 = databaseCpuMillis()
  let peakRss = 0
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, memory(fils.child.pid!).rssMb)), 200)
  const r = rate === undefined
    ? await autocannon({ url: fils.url, connections: 64, duration: seconds, headers, requests: [requests[scenario]] })
      .then((r) => ({ rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, requests: r.requests.total, failed: r.non2xx }))
    : await paced({ url: fils.url, connections: 64, seconds, headers, request: requests[scenario] as any, rate })
  clearInterval(sampler)
  process.stdout.write(`${scenario}: ${Math.round(r.rps)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, failed ${r.failed}, ${((cpuMillis(fils.child.pid!) - cpu0) / r.requests).toFixed(2)} CPU ms/req (the database ${((databaseCpuMillis() - database0) / r.requests).toFixed(2)}), peak RSS ${Math.round(peakRss)} MB\n`)
  await fils.stop()
} finally {
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined)
  await admin.end()
  await embedded?.stop()
  rmSync(work, { recursive: true, force: true })
}
