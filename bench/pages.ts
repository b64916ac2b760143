/**
 * `node --import tsx bench/pages.ts`: the dashboard's pages and its payments CSV export at BENCH_PAGES_PAYMENTS stored
 * payments (default 1,000,000), through `fils serve` as a browser would.
 *
 * - Pages: the median time of 11 sequential loads of the home page (30 and 90 days), the payments list, a payment,
 *   and the list searched by amount, by the card's last 4, by an e-mail, and by the last 4 with a status no seeded
 *   payment has (the search's worst case: every payment matches the card, none the status).
 * - Export: the payments CSV of all of them, downloaded and counted, never held, with the server's resident memory
 *   sampled every 50 ms throughout. The export reads the list a keyset page at a time, so its peak should stay near
 *   the idle server's whatever the count.
 *
 *   BENCH_PAGES_PAYMENTS=n    payments to seed (default 1000000)
 *   BENCH_TSX=1               run Fils through tsx instead of the bundled bin
 *   DATABASE_URL              use this PostgreSQL (a fresh database is created on it and dropped after); default embedded
 *
 * Prints one JSON line: each page's median ms; the export's rows, bytes, seconds, and RSS (MB) before and at peak.
 */
import { chmodSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { startEmbeddedPostgres } from "../adapters/sql/EmbeddedPostgres.js"
import { buildFils, freePort, memory, startFils, waitForOutput, waitReady } from "./processes.js"
import * as Seed from "./seed.js"

const count = Number(process.env["BENCH_PAGES_PAYMENTS"] ?? 1_000_000)
const log = (line: string) => process.stderr.write(`[bench:pages] ${line}\n`)

const work = mkdtempSync(join(tmpdir(), "fils-bench-pages-"))
chmodSync(work, 0o755)
const configured = process.env["DATABASE_URL"]?.trim() || undefined
const embedded = configured === undefined ? await startEmbeddedPostgres(join(work, "pg")) : undefined
const serverUrl = configured ?? embedded!.url
const dbName = `fils_bench_pages_${Date.now()}`
const admin = await Seed.connect(serverUrl)
await admin.query(`CREATE DATABASE ${dbName}`)
const dbUrl = (() => {
  const u = new URL(serverUrl)
  u.pathname = `/${dbName}`
  return u.toString()
})()

const stops: Array<() => Promise<void>> = []
try {
  buildFils()
  const fils = startFils(await freePort(), { DATABASE_URL: dbUrl, FILS_DATA_DIR: join(work, "serve") })
  stops.push(fils.stop)
  await waitReady(fils, performance.now(), 120_000)
  const link = (await waitForOutput(fils, /Sign in\s+(http\S+)/))[1]!.replace(/^http:\/\/[^/]+/, fils.url)
  const signedIn = await fetch(link, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: "password=bench-password-123"
  })
  const cookie = (signedIn.headers.get("set-cookie") ?? "").split(";")[0]!
  const sql = await Seed.connect(dbUrl)
  stops.push(() => sql.end())
  const account = (await sql.query("SELECT account_id FROM accounts")).rows[0].account_id as string
  log(`seeding ${count.toLocaleString("en-US")} payments`)
  await Seed.seedPayments(sql, account, 1, count)
  // The seeded payments span the last 5,000,000 seconds (58 days): a 60-day range holds them all.
  const day = (d: Date) => d.toISOString().slice(0, 10)
  const range = `from=${day(new Date(Date.now() - 60 * 86_400_000))}&to=${day(new Date(Date.now() + 86_400_000))}`

  /** Median time of 11 sequential loads of a dashboard page, ms (each must answer 200). */
  const pageMs = async (path: string) => {
    const times: Array<number> = []
    for (let i = 0; i < 11; i++) {
      const t0 = performance.now()
      const res = await fetch(`${fils.url}${path}`, { headers: { cookie } })
      await res.arrayBuffer()
      if (res.status !== 200) throw new Error(`${path} answered ${res.status}`)
      times.push(performance.now() - t0)
    }
    return Math.round(times.sort((a, b) => a - b)[5]! * 10) / 10
  }
  const onePayment = (await sql.query("SELECT payment_id FROM payments ORDER BY created_at DESC LIMIT 1 OFFSET 500000")).rows[0]
  log("pages")
  const pages = {
    homeMs30: await pageMs("/dashboard/test?days=30"),
    homeMs90: await pageMs("/dashboard/test?days=90"),
    listMs: await pageMs("/dashboard/test/payments"),
    paymentMs: await pageMs(`/dashboard/test/payments/${(onePayment ?? (await sql.query("SELECT payment_id FROM payments LIMIT 1")).rows[0]).payment_id}`),
    searchAmountMs: await pageMs("/dashboard/test/payments?q=100.00"),
    searchLast4Ms: await pageMs("/dashboard/test/payments?q=4242"),
    searchEmailMs: await pageMs("/dashboard/test/payments?q=nobody%40example.ae"),
    searchLast4FailedMs: await pageMs("/dashboard/test/payments?q=4242&status=failed")
  }
  log(JSON.stringify(pages))

  const pid = fils.child.pid!
  const before = memory(pid).rssMb
  let peak = before
  const sampler = setInterval(() => (peak = Math.max(peak, memory(pid).rssMb)), 50)
  log("exporting")
  const began = performance.now()
  const res = await fetch(`${fils.url}/dashboard/test/exports/csv?kind=payments&${range}`, { headers: { cookie } })
  if (res.status !== 200 || res.body === null) throw new Error(`export answered ${res.status}`)
  // Read as a browser saving the file does: counted, never held.
  let bytes = 0
  let lines = 0
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.byteLength
    for (const b of chunk) if (b === 10) lines++
  }
  const seconds = (performance.now() - began) / 1000
  clearInterval(sampler)
  const rows = lines - 1
  if (rows !== count) throw new Error(`exported ${rows} rows, not ${count}`)
  const figures = {
    payments: count,
    pages,
    rows,
    bytes,
    seconds: Math.round(seconds * 10) / 10,
    rowsPerSecond: Math.round(rows / seconds),
    rssBeforeMb: Math.round(before),
    rssPeakMb: Math.round(peak),
    rssGrowthMb: Math.round(peak - before)
  }
  process.stdout.write(`${JSON.stringify(figures)}\n`)
} finally {
  for (const stop of stops.reverse()) await stop().catch(() => undefined)
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined)
  await admin.end().catch(() => undefined)
  await embedded?.stop().catch(() => undefined)
  rmSync(work, { recursive: true, force: true })
}
