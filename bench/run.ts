/**
 * `npm run bench`: Fils against the bare baseline (bench/baseline.ts) on one PostgreSQL, same machine, same run.
 *
 *   BENCH_DURATION=s   measured seconds per load run (default 10; warm-up 3 s before each)
 *   BENCH_QUICK=1      a smoke run: 2 s runs, 1 s warm-ups, smaller background work
 *   BENCH_SCALE=1      also measure at 1M stored payments (default: 100k and 200k, one doubling)
 *   BENCH_PROFILE=dir  run `fils serve` with --cpu-prof, profiles written to dir when it stops
 *   BENCH_TSX=1        run Fils through tsx instead of the bundled bin `fils` ships (scripts/bundle-bin.mjs)
 *   DATABASE_URL       use this PostgreSQL (a fresh database is created on it and dropped after); default embedded
 *
 * Prints the table and the benchmark's targets with pass/fail, and writes bench/results/<timestamp>.json and
 * bench/results/latest.json.
 */
import { randomUUID } from "node:crypto"
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import { createRequire } from "node:module"
import { cpus, tmpdir, totalmem } from "node:os"
import { join } from "node:path"
import { setTimeout as delay } from "node:timers/promises"
import { startEmbeddedPostgres } from "../adapters/sql/EmbeddedPostgres.js"
import { buildFils, cpuMillis, databaseCpuMillis, freePort, memory, root, type Running, runFils, start, startFils, waitForOutput, waitReady } from "./processes.js"
import { paced, type PacedRequest } from "./paced.js"
import { type LoadFigures, printReport, type Results, targets } from "./report.js"
import * as Seed from "./seed.js"

const autocannon = createRequire(import.meta.url)("autocannon") as (options: object) => Promise<any>

const quick = process.env["BENCH_QUICK"] === "1"
const duration = Number(process.env["BENCH_DURATION"] ?? (quick ? 2 : 10))
const warmup = quick ? 1 : 3
const connections = 64
const scale = process.env["BENCH_SCALE"] === "1"
const profile = process.env["BENCH_PROFILE"] || undefined
const storedPayments = 100_000
const deliveryEvents = quick ? 1_000 : 10_000
const endpoints = 3
const dueSubscriptions = quick ? 2_000 : 20_000
/** Subscriptions in mid-period that the plan-change step changes, each in turn (many more than connections). */
const changingSubscriptions = 4_000

const log = (line: string) => process.stderr.write(`[bench] ${line}\n`)

// The database ----------------------------------------------------------------------------------------------------

const work = mkdtempSync(join(tmpdir(), "fils-bench-"))
chmodSync(work, 0o755) // the embedded PostgreSQL may run as another OS user
const configured = process.env["DATABASE_URL"]?.trim() || undefined
const embedded = configured === undefined ? await startEmbeddedPostgres(join(work, "pg")) : undefined
const serverUrl = configured ?? embedded!.url
const dbName = `fils_bench_${Date.now()}`
const admin = await Seed.connect(serverUrl)
await admin.query(`CREATE DATABASE ${dbName}`)
const dbUrl = (() => {
  const u = new URL(serverUrl)
  u.pathname = `/${dbName}`
  return u.toString()
})()
log(`PostgreSQL ${configured !== undefined ? "from DATABASE_URL" : "embedded"}, database ${dbName}`)

const cleanups: Array<() => Promise<void>> = []
const cleanup = async () => {
  for (const f of cleanups.reverse()) await f().catch(() => undefined)
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined)
  await admin.end().catch(() => undefined)
  await embedded?.stop().catch(() => undefined)
  rmSync(work, { recursive: true, force: true })
}
process.on("SIGINT", () => void cleanup().finally(() => process.exit(130)))

// Fils and the baseline ---------------------------------------------------------------------------------------------

const filsEnv = {
  DATABASE_URL: dbUrl,
  FILS_RATE_LIMIT_PER_MIN: "1000000000",
  FILS_DATA_DIR: join(work, "serve")
}

const run = async (): Promise<Results> => {
  log("building Fils (the bundled bin of npm run build → bench/.build)")
  const compiled = buildFils()
  const fils = startFils(await freePort(), filsEnv, profile)
  cleanups.push(fils.stop)
  await waitReady(fils, performance.now())
  const key = (await waitForOutput(fils, /Test key\s+(sk_test_[A-Za-z0-9_-]+)/))[1]!
  const auth = { authorization: `Bearer ${key}`, "content-type": "application/json" }
  // The dashboard's owner, signed in from the banner's one-time link.
  const signInLink = (await waitForOutput(fils, /Sign in\s+(http\S+)/))[1]!.replace(/^http:\/\/[^/]+/, fils.url)
  const signedIn = await fetch(signInLink, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: "password=bench-password-123"
  })
  const dashboardCookie = (signedIn.headers.get("set-cookie") ?? "").split(";")[0]!
  /** Median time of `n` sequential dashboard page loads, ms (each answers 200). */
  const dashboardMs = async (path: string, n = 21) => {
    const times: Array<number> = []
    for (let i = 0; i < n; i++) {
      const began = performance.now()
      const res = await fetch(`${fils.url}${path}`, { headers: { cookie: dashboardCookie } })
      await res.text()
      if (res.status !== 200) throw new Error(`${path}: ${res.status}`)
      times.push(performance.now() - began)
    }
    return times.sort((a, b) => a - b)[Math.floor(n / 2)]!
  }

  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${fils.url}/api/v1${path}`, {
      method,
      headers: auth,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {})
    })
    const json = (await res.json()) as any
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`)
    return json
  }

  const beans = await api("POST", "/products", { name: "Beans, 250 g", price: 6500, currency: "AED" })
  const cups = await api("POST", "/products", { name: "Cup", price: 2500, currency: "AED" })

  const sql = await Seed.connect(dbUrl)
  cleanups.push(() => sql.end())
  // The store's only account: the default one `fils serve` created.
  const account = (await sql.query("SELECT account_id FROM accounts")).rows[0].account_id as string
  log(`seeding ${storedPayments} payments`)
  await Seed.seedPayments(sql, account, 1, storedPayments)
  let ids = await Seed.samplePaymentIds(sql, account, 2_000)

  const baselinePort = await freePort()
  const bare = start("bench/baseline.ts", [], baselinePort, { DATABASE_URL: dbUrl, PORT: String(baselinePort) })
  cleanups.push(bare.stop)
  await waitReady(bare, performance.now())

  // Load ------------------------------------------------------------------------------------------------------------

  interface Scenario {
    readonly name: string
    readonly request: () => PacedRequest
  }
  let n = 0
  const scenarios: Record<string, Scenario> = {
    payment_get: {
      name: "GET /payments/{id}",
      request: () => ({
        method: "GET",
        setupRequest: (req: any) => ({ ...req, path: `/api/v1/payments/${ids[n++ % ids.length]}` })
      })
    },
    payment_list: {
      name: "GET /payments?limit=20",
      request: () => ({ method: "GET", path: "/api/v1/payments?limit=20" })
    },
    checkout_create: {
      name: "POST /checkout_sessions",
      request: () => ({
        method: "POST",
        path: "/api/v1/checkout_sessions",
        body: JSON.stringify({
          product_cart: [{ product_id: beans.product_id, quantity: 2 }, { product_id: cups.product_id, quantity: 1 }],
          return_url: "https://shop.example/thanks"
        }),
        setupRequest: (req: any) => ({ ...req, headers: { ...req.headers, "idempotency-key": randomUUID() } })
      })
    },
    product_create: {
      name: "POST /products",
      request: () => ({
        method: "POST",
        path: "/api/v1/products",
        body: JSON.stringify({ name: "Bench product", price: 1200, currency: "AED" })
      })
    }
  }

  const load = async (target: Running, scenario: Scenario, seconds: number, rate?: number): Promise<LoadFigures> => {
    let peak = 0
    const started = Date.now()
    const cpuBefore = cpuMillis(target.child.pid!)
    const databaseBefore = databaseCpuMillis()
    const sampler = setInterval(() => (peak = Math.max(peak, memory(target.child.pid!).rssMb)), 200)
    try {
      // As fast as it answers (autocannon), or paced evenly at `rate` (see paced.ts for why not autocannon's rate).
      const r = rate === undefined
        ? await autocannon({ url: target.url, connections, duration: seconds, headers: auth, requests: [scenario.request()] })
          .then(async (r) => {
            const failed = r.non2xx + r.errors + r.timeouts
            if (failed > 0) {
              log(`  ${scenario.name}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts`)
              // Which answers failed, from the request log the server keeps (its lines are written within moments).
              await new Promise((resolve) => setTimeout(resolve, 500))
              const { rows } = await sql.query(
                `SELECT status, error_code, count(*)::int AS n FROM request_logs WHERE status >= 400 AND created_at >= $1 GROUP BY 1, 2 ORDER BY 3 DESC`,
                [new Date(started)]
              )
              log(`  ${scenario.name}, failures by status and code: ${rows.map((row) => `${row.status} ${row.error_code ?? "-"} × ${row.n}`).join(", ") || "none logged"}`)
            }
            return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, requests: r.requests.total, failed }
          })
        : await paced({ url: target.url, connections, seconds, headers: auth, request: scenario.request(), rate })
      peak = Math.max(peak, memory(target.child.pid!).rssMb)
      if (rate !== undefined && r.failed > 0) log(`  ${scenario.name}: ${r.failed} failed`)
      if ("generatorDelayP99" in r) log(`  p99 ${r.p99} ms; the generator's own event-loop delay p99 ${r.generatorDelayP99} ms, worst ${r.generatorDelayMax} ms`)
      return {
        ...r,
        // The server's own CPU time per request: a figure that holds up on a busy machine, where req/s do not.
        cpuMsPerRequest: r.requests > 0 ? (cpuMillis(target.child.pid!) - cpuBefore) / r.requests : 0,
        // PostgreSQL's, when it runs on this machine (the embedded one; a DATABASE_URL elsewhere reads as 0).
        databaseCpuMsPerRequest: r.requests > 0 ? (databaseCpuMillis() - databaseBefore) / r.requests : 0,
        peakRssMb: Math.round(peak)
      }
    } finally {
      clearInterval(sampler)
    }
  }

  /** `phase` names where the run's peak RSS was sampled, when it was there. */
  const measure = async (target: Running, scenario: Scenario, rate?: number, phase = scenario.name) => {
    await load(target, scenario, warmup, rate)
    const figures = await load(target, scenario, duration, rate)
    if (target === fils && figures.peakRssMb > loadPeak.mb) loadPeak = { mb: figures.peakRssMb, phase }
    return figures
  }

  let loadPeak = { mb: 0, phase: "" }
  // This machine's speed moves from one ten-second window to the next, by up to a half: each side is measured twice,
  // alternating (baseline, Fils, baseline, Fils), and each keeps its better run, so that a stall in one window does
  // not read as a cost of either side. Every run's figure is kept in the results.
  const faster = (a: LoadFigures, b: LoadFigures) => (b.rps > a.rps ? b : a)
  const steadier = (a: LoadFigures, b: LoadFigures) => (b.p99 < a.p99 ? b : a)
  const alternating = async (scenario: Scenario, better: typeof faster, rate?: number, phase?: string) => {
    const runs = { baseline: [] as Array<LoadFigures>, fils: [] as Array<LoadFigures> }
    for (let i = 0; i < 2; i++) {
      log(`${phase ?? scenario.name}: baseline`)
      runs.baseline.push(await measure(bare, scenario, rate))
      log(`${phase ?? scenario.name}: fils`)
      runs.fils.push(await measure(fils, scenario, rate, phase))
    }
    return { baseline: runs.baseline.reduce(better), fils: runs.fils.reduce(better), runs }
  }
  const loadResults: Results["load"] = {}
  for (const [id, scenario] of Object.entries(scenarios)) {
    const { baseline: b, fils: f, runs } = await alternating(scenario, faster)
    loadResults[id] = {
      name: scenario.name,
      baseline: b,
      fils: f,
      ratio: f.rps / b.rps,
      runs: { baseline: runs.baseline.map((r) => r.rps), fils: runs.fils.map((r) => r.rps) }
    }
  }

  const pacedRuns = await alternating(scenarios["payment_get"]!, steadier, 1000, "GET /payments/{id} at 1,000 req/s")
  const fixedRate = {
    baseline: pacedRuns.baseline,
    fils: pacedRuns.fils,
    runs: { baseline: pacedRuns.runs.baseline.map((r) => r.p99), fils: pacedRuns.runs.fils.map((r) => r.p99) }
  }

  // The read again, on a second `fils serve` exporting traces to a sink on 127.0.0.1 with 10 % of requests sampled:
  // what tracing costs when it is on (the first server exports nothing, and so makes no spans).
  log(`GET /payments/{id}: fils, 10 % of requests traced to a local OTLP sink`)
  let exports = 0
  const sink = createServer((req, res) => {
    req.resume()
    req.on("end", () => {
      if (req.url === "/v1/traces") exports++
      res.writeHead(200, { "content-type": "application/json" })
      res.end("{}")
    })
  })
  await new Promise<void>((resolve) => sink.listen(0, "127.0.0.1", resolve))
  const traced = startFils(await freePort(), {
    ...filsEnv,
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(sink.address() as { port: number }).port}`,
    OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
    OTEL_TRACES_SAMPLER_ARG: "0.1"
  })
  await waitReady(traced, performance.now())
  // A new process: warmed up as long as the first server was by the scenarios before (its JIT, its pool).
  await load(traced, scenarios["payment_get"]!, warmup * 3)
  const tracedFigures = await measure(traced, scenarios["payment_get"]!)
  await traced.stop()
  await new Promise<void>((resolve) => sink.close(() => resolve()))
  if (exports === 0) throw new Error("the traced server exported no spans")
  const untraced = loadResults["payment_get"]!
  loadResults["payment_get_traced"] = {
    name: "GET /payments/{id}, 10 % traced",
    baseline: untraced.baseline,
    fils: tracedFigures,
    ratio: tracedFigures.rps / untraced.baseline.rps
  }
  await bare.stop()

  // The read again on new servers of the same age, one logging requests (the default) and one with request logs off,
  // a new pair each round: both warmed up, then measured one after the other (off first, then on first in the next
  // round). A server keeps its own speed for its life, up to a tenth away from another started the same way (two
  // identical servers measured 11 % apart over eight alternating windows): one pair would read its luck as the cost,
  // so the figure is the median of the rounds' ratios. (The first server is older and its heap larger: no fair side.)
  const logRounds = quick ? 1 : 4
  const logRuns = { on: [] as Array<LoadFigures>, off: [] as Array<LoadFigures> }
  for (let round = 0; round < logRounds; round++) {
    log(`GET /payments/{id}: request logs on and off, pair ${round + 1} of ${logRounds}`)
    const [logged, unlogged] = [
      startFils(await freePort(), filsEnv),
      startFils(await freePort(), { ...filsEnv, FILS_REQUEST_LOG_RETENTION_DAYS: "0" })
    ]
    await Promise.all([waitReady(logged, performance.now()), waitReady(unlogged, performance.now())])
    for (const twin of [unlogged, logged]) await load(twin, scenarios["payment_get"]!, warmup * 3)
    // The server with request logs off deleted every line of the steps before as it started (a retention of zero):
    // vacuumed now, so that autovacuum's pass over them does not fall in one side's window.
    await sql.query("VACUUM ANALYZE request_logs")
    for (const side of round % 2 === 0 ? ["off", "on"] as const : ["on", "off"] as const) {
      logRuns[side].push(await measure(side === "on" ? logged : unlogged, scenarios["payment_get"]!))
    }
    // The lines of the steps before went as the server with logs off started: these are this pair's.
    const written = (await sql.query("SELECT count(*)::int AS n FROM request_logs")).rows[0].n
    await Promise.all([logged.stop(), unlogged.stop()])
    if (written === 0) throw new Error("the logging server wrote no request log lines")
  }
  const logRatios = logRuns.on.map((on, i) => on.rps / logRuns.off[i]!.rps)
  // Rounds by their ratio: the median is the middle one's (the mean of the middle two); the lower middle round's
  // figures stand for the step.
  const byRatio = logRatios.map((_, i) => i).sort((a, b) => logRatios[a]! - logRatios[b]!)
  const lower = byRatio[Math.floor((byRatio.length - 1) / 2)]!
  const upper = byRatio[Math.floor(byRatio.length / 2)]!
  const requestLog = {
    on: logRuns.on[lower]!,
    off: logRuns.off[lower]!,
    ratio: (logRatios[lower]! + logRatios[upper]!) / 2,
    runs: { on: logRuns.on.map((r) => r.rps), off: logRuns.off.map((r) => r.rps) }
  }

  // Background work ---------------------------------------------------------------------------------------------------

  log(`deliveries: ${deliveryEvents} events × ${endpoints} endpoints`)
  const received = new Set<string>()
  const receiver = createServer((req, res) => {
    received.add(`${req.url} ${req.headers["webhook-id"]}`)
    req.resume()
    req.on("end", () => {
      res.writeHead(200, { "content-length": "0" })
      res.end()
    })
  })
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
  cleanups.push(() => new Promise<void>((resolve) => receiver.close(() => resolve())))
  const receiverPort = (receiver.address() as { port: number }).port
  const webhooks: Array<string> = []
  for (let i = 0; i < endpoints; i++) {
    const created = await api("POST", "/webhooks", {
      url: `http://127.0.0.1:${receiverPort}/hooks/${i}`,
      event_types: ["payment.succeeded"]
    })
    webhooks.push(created.webhook_id)
  }
  const expected = deliveryEvents * endpoints
  const deliveryStart = performance.now()
  await Seed.seedDeliveries(sql, account, webhooks, deliveryEvents)
  const seeded = performance.now()
  let pending = expected
  for (;;) {
    await delay(100)
    const counts = await Seed.deliveryCounts(sql)
    pending = counts.find((c) => c.status === "pending")?.n ?? 0
    if (pending === 0) break
    if (performance.now() - seeded > 600_000) throw new Error(`deliveries stuck: ${JSON.stringify(counts)}`)
  }
  const drainedMs = performance.now() - seeded
  const succeeded = (await Seed.deliveryCounts(sql)).find((c) => c.status === "succeeded")?.n ?? 0
  const deliveries = {
    events: deliveryEvents,
    endpoints,
    deliveries: expected,
    succeeded,
    received: received.size,
    seedMs: Math.round(seeded - deliveryStart),
    drainMs: Math.round(drainedMs),
    perSecond: succeeded / (drainedMs / 1000)
  }
  log(`  ${succeeded} delivered in ${Math.round(drainedMs)} ms`)
  // The endpoints go, so that the renewals' events queue nothing that later measurements would share the server with.
  for (const id of webhooks) await api("DELETE", `/webhooks/${id}`)

  const plan = await api("POST", "/products", {
    name: "Bench plan",
    price: 5000,
    currency: "AED",
    billing: "recurring",
    billing_interval: "month"
  })
  // Twice, as the load steps (each run on subscriptions of its own: the first run's renewed ones are not due again).
  const renewalRuns: Array<Results["renewals"]> = []
  for (let i = 0; i < 2; i++) {
    log(`renewals: ${dueSubscriptions} due subscriptions, one billing run`)
    const at = new Date(Date.now() + 60 * 60_000).toISOString()
    const empty = await runFils(["billing", "run", "--at", at], filsEnv)
    await Seed.seedDueSubscriptions(sql, account, plan.product_id, dueSubscriptions, 30)
    const billed = await runFils(["billing", "run", "--at", at], filsEnv, i === 0 ? profile : undefined)
    const report = JSON.parse(billed.stdout) as { renewals_charged: number }
    renewalRuns.push({
      subscriptions: dueSubscriptions,
      charged: report.renewals_charged,
      commandMs: Math.round(billed.millis),
      emptyCommandMs: Math.round(empty.millis),
      perSecond: report.renewals_charged / ((billed.millis - empty.millis) / 1000),
      perSecondGross: report.renewals_charged / (billed.millis / 1000)
    })
    log(`  ${report.renewals_charged} charged; command ${Math.round(billed.millis)} ms, empty run ${Math.round(empty.millis)} ms`)
  }
  const renewals = {
    ...renewalRuns.reduce((a, b) => (b.perSecond > a.perSecond ? b : a)),
    runs: renewalRuns.map((r) => r.perSecond)
  }

  // Plan changes: the preview and the change itself, on subscriptions halfway through their month --------------------
  // The bare baseline has no plan changes; their yardstick is a checkout's: at least half the baseline's sessions/s.

  log(`plan changes: ${changingSubscriptions} subscriptions in mid-period`)
  const planPlus = await api("POST", "/products", {
    name: "Bench plan plus",
    price: 9000,
    currency: "AED",
    billing: "recurring",
    billing_interval: "month"
  })
  const planMiddle = await api("POST", "/products", {
    name: "Bench plan middle",
    price: 7000,
    currency: "AED",
    billing: "recurring",
    billing_interval: "month"
  })
  const changing = await Seed.seedDueSubscriptions(sql, account, plan.product_id, changingSubscriptions, 15 * 24 * 60)
  const changeBody = (productId: string) =>
    JSON.stringify({ product_id: productId, quantity: 1, proration_billing_mode: "prorated_immediately" })
  let previewed = 0
  let changed = 0
  // The checkout that charges, a plan change's yardstick: sessions made beforehand, each paid once on its hosted form.
  const toPay: Array<{ readonly id: string; readonly token: string }> = []
  for (let i = 0; i < (quick ? 3_000 : 8_000); i++) {
    const session = await api("POST", "/checkout_sessions", { product_cart: [{ product_id: beans.product_id, quantity: 2 }, { product_id: cups.product_id, quantity: 1 }] })
    const page = await (await fetch(`${fils.url}/checkout/${session.session_id}`)).text()
    toPay.push({ id: session.session_id, token: /name="form_token" value="([^"]*)"/.exec(page)![1]! })
  }
  let paid = 0
  const payForm = (token: string) =>
    new URLSearchParams({
      name: "Layla Haddad", email: "layla@example.ae", phone_number: "+971501234567", card_number: "4242424242424242",
      exp_month: "12", exp_year: "2090", cvc: "123", form_token: token
    }).toString()
  const paidCheckout: Scenario = {
    name: "POST /checkout/{id} (a session paid on its hosted form)",
    request: () => ({
      method: "POST",
      setupRequest: (req: any) => {
        const s = toPay[paid++ % toPay.length]!
        return { ...req, path: `/checkout/${s.id}`, body: payForm(s.token), headers: { "content-type": "application/x-www-form-urlencoded", origin: fils.url } }
      }
    })
  }
  log(paidCheckout.name)
  const paidRuns = [await measure(fils, paidCheckout), await measure(fils, paidCheckout)]
  const checkoutPaid = { name: paidCheckout.name, fils: paidRuns.reduce(faster), runs: paidRuns.map((r) => r.rps) }
  const planScenarios: Record<string, Scenario> = {
    plan_preview: {
      name: "POST /subscriptions/{id}/change-plan/preview",
      request: () => ({
        method: "POST",
        body: changeBody(planPlus.product_id),
        setupRequest: (req: any) => ({
          ...req,
          path: `/api/v1/subscriptions/${changing[previewed++ % changing.length]}/change-plan/preview`
        })
      })
    },
    plan_change: {
      // Each subscription in turn, up to the plus plan (a prorated charge), on its next turn down to the middle plan
      // and on the next back to the first (credits). Three plans, not two: a change cut off as a window ends (the
      // client gone, the change not made) must not leave the next turn asking for the plan the subscription is on.
      name: "POST /subscriptions/{id}/change-plan",
      request: () => ({
        method: "POST",
        setupRequest: (req: any) => {
          const i = changed++
          const turn = Math.floor(i / changing.length)
          return {
            ...req,
            path: `/api/v1/subscriptions/${changing[i % changing.length]}/change-plan`,
            body: changeBody([planPlus, planMiddle, plan][turn % 3]!.product_id),
            headers: { ...req.headers, "idempotency-key": randomUUID() }
          }
        }
      })
    }
  }
  const planChanges: Results["planChanges"] = {}
  for (const [id, scenario] of Object.entries(planScenarios)) {
    log(scenario.name)
    const runs = [await measure(fils, scenario), await measure(fils, scenario)]
    planChanges[id] = { name: scenario.name, fils: runs.reduce(faster), runs: runs.map((r) => r.rps) }
  }

  // Scaling: GET by id and the first list page as stored payments grow ----------------------------------------------

  const sizes = scale ? [200_000, 1_000_000] : [200_000]
  const scaling: Results["scaling"] = []
  // Each size's figures are the better of two alternating runs: a one-off stall of this shared machine should not
  // read as a cost of the table's size.
  const atSize = async (size: number) => {
    ids = await Seed.samplePaymentIds(sql, account, 2_000)
    const measured = (scenario: Scenario) => measure(fils, scenario, undefined, `${scenario.name} at ${size.toLocaleString("en-US")} payments`)
    let get = await measured(scenarios["payment_get"]!)
    let list = await measured(scenarios["payment_list"]!)
    get = faster(get, await measured(scenarios["payment_get"]!))
    list = faster(list, await measured(scenarios["payment_list"]!))
    scaling.push({
      payments: size,
      getRps: get.rps,
      getP99: get.p99,
      listRps: list.rps,
      listP99: list.p99,
      dashboardListMs: await dashboardMs("/dashboard/test/payments"),
      dashboardHomeMs: await dashboardMs("/dashboard/test?days=90")
    })
  }
  log(`scaling at ${storedPayments} payments`)
  await atSize(storedPayments)
  let stored = storedPayments
  for (const size of sizes) {
    log(`seeding to ${size} payments`)
    await Seed.seedPayments(sql, account, stored + 1, size - stored)
    stored = size
    log(`scaling at ${size} payments`)
    await atSize(size)
  }
  const filsPeak = memory(fils.child.pid!).peakMb
  await fils.stop()

  // Cold start ----------------------------------------------------------------------------------------------------------

  log("cold start")
  const coldEnv = configured !== undefined
    ? filsEnv
    : { DATABASE_URL: "", FILS_DATA_DIR: join(work, "cold") }
  const first = startFils(await freePort(), coldEnv)
  await waitReady(first, performance.now(), 120_000)
  await first.stop()
  const coldStarts: Array<number> = []
  for (let i = 0; i < 3; i++) {
    const began = performance.now()
    const s = startFils(await freePort(), coldEnv)
    coldStarts.push(Math.round(await waitReady(s, began)))
    await s.stop()
  }
  const coldStartMs = [...coldStarts].sort((a, b) => a - b)[1]!

  return {
    at: new Date().toISOString(),
    machine: { cpus: cpus().length, cpu: cpus()[0]?.model ?? "", memoryGb: Math.round(totalmem() / 2 ** 30) },
    settings: { duration, warmup, connections, quick, scale, fils: compiled ? "bundled bin (npm run build)" : "tsx", database: configured !== undefined ? "DATABASE_URL" : "embedded" },
    load: loadResults,
    fixedRate: { rate: 1000, ...fixedRate },
    deliveries,
    renewals,
    planChanges,
    checkoutPaid,
    requestLog,
    coldStart: { ms: coldStartMs, runs: coldStarts, on: configured !== undefined ? "DATABASE_URL" : "existing data folder" },
    scaling,
    peakRssMb: loadPeak.mb,
    peakRssPhase: loadPeak.phase,
    lifetimePeakRssMb: Math.round(filsPeak)
  }
}

try {
  const results = await run()
  printReport(results)
  const dir = join(root, "bench", "results")
  mkdirSync(dir, { recursive: true })
  const text = JSON.stringify({ ...results, targets: targets(results) }, null, 2) + "\n"
  writeFileSync(join(dir, `${results.at.replace(/[:.]/g, "-")}.json`), text)
  writeFileSync(join(dir, "latest.json"), text)
  log(`wrote bench/results/latest.json`)
} finally {
  await cleanup()
}
