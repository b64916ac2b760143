/**
 * `node --import tsx bench/profile-billing.ts [subscriptions]`: seeds due subscriptions and runs one
 * `fils billing run --at …` with `--cpu-prof` (profile in bench/profiles/), printing renewals/s.
 */
import { chmodSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { startEmbeddedPostgres } from "../adapters/sql/EmbeddedPostgres.js"
import { buildFils, freePort, root, runFils, startFils, waitForOutput, waitReady } from "./processes.js"
import * as Seed from "./seed.js"

const count = Number(process.argv[2] ?? 1000)
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
const env = { DATABASE_URL: u.toString() }
try {
  const fils = startFils(await freePort(), env)
  await waitReady(fils, performance.now())
  const key = (await waitForOutput(fils, /Test key\s+(sk_test_[A-Za-z0-9_-]+)/))[1]!
  const res = await fetch(`${fils.url}/api/v1/products`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "Plan", price: 5000, currency: "AED", billing: "recurring", billing_interval: "month" })
  })
  const plan = (await res.json()) as any
  await fils.stop()
  const at = new Date(Date.now() + 3_600_000).toISOString()
  const empty = await runFils(["billing", "run", "--at", at], env)
  const sql = await Seed.connect(env.DATABASE_URL)
  const account = (await sql.query("SELECT account_id FROM accounts")).rows[0].account_id as string
  await Seed.seedDueSubscriptions(sql, account, plan.product_id, count, 30)
  await sql.end()
  const profile = process.env["BENCH_PROFILE"] === "0" ? undefined : join(root, "bench", "profiles")
  const billed = await runFils(["billing", "run", "--at", at], env, profile)
  process.stdout.write(`${billed.stdout.trim()}\n${count} in ${Math.round(billed.millis)} ms (empty run ${Math.round(empty.millis)} ms)\n`)
} finally {
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined)
  await admin.end()
  await embedded?.stop()
  rmSync(work, { recursive: true, force: true })
}
