/**
 * `node --import tsx bench/profile-deliveries.ts [events]`: `fils serve` (with `--cpu-prof` unless BENCH_PROFILE=0)
 * drains `events` × 3 queued deliveries to a local receiver; prints deliveries/s and the server's CPU per delivery.
 * BENCH_ASYNC_COMMIT=1 turns synchronous_commit off on the database, to tell disk waits from CPU.
 */
import { chmodSync, mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { setTimeout as delay } from "node:timers/promises"
import { startEmbeddedPostgres } from "../adapters/sql/EmbeddedPostgres.js"
import { buildFils, cpuMillis, freePort, root, startFils, waitForOutput, waitReady } from "./processes.js"
import * as Seed from "./seed.js"

if (process.env["BENCH_BUILT"] === "1") buildFils()
const events = Number(process.argv[2] ?? 2000)
const work = mkdtempSync(join(tmpdir(), "fils-profile-"))
chmodSync(work, 0o755)
const configured = process.env["DATABASE_URL"]?.trim() || undefined
const embedded = configured === undefined ? await startEmbeddedPostgres(join(work, "pg")) : undefined
const serverUrl = configured ?? embedded!.url
const dbName = `fils_profile_${Date.now()}`
const admin = await Seed.connect(serverUrl)
await admin.query(`CREATE DATABASE ${dbName}`)
if (process.env["BENCH_ASYNC_COMMIT"] === "1") await admin.query(`ALTER DATABASE ${dbName} SET synchronous_commit = off`)
const u = new URL(serverUrl)
u.pathname = `/${dbName}`
const receiver = createServer((req, res) => {
  req.resume()
  req.on("end", () => res.end())
})
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
try {
  const profile = process.env["BENCH_PROFILE"] === "0" ? undefined : join(root, "bench", "profiles")
  const fils = startFils(await freePort(), { DATABASE_URL: u.toString() }, profile)
  await waitReady(fils, performance.now())
  const key = (await waitForOutput(fils, /Test key\s+(sk_test_[A-Za-z0-9_-]+)/))[1]!
  const port = (receiver.address() as { port: number }).port
  const webhooks: Array<string> = []
  for (let i = 0; i < 3; i++) {
    const res = await fetch(`${fils.url}/api/v1/webhooks`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ url: `http://127.0.0.1:${port}/hooks/${i}`, event_types: ["payment.succeeded"] })
    })
    webhooks.push(((await res.json()) as any).webhook_id)
  }
  const sql = await Seed.connect(u.toString())
  const account = (await sql.query("SELECT account_id FROM accounts")).rows[0].account_id as string
  const cpu0 = cpuMillis(fils.child.pid!)
  await Seed.seedDeliveries(sql, account, webhooks, events)
  // The database's CPU too: the backends of this database (Fils's pool, its listener, this script's connection).
  const backends = async () =>
    ((await sql.query("SELECT pid FROM pg_stat_activity WHERE datname = current_database()")).rows as Array<{ pid: number }>)
      .map((r) => r.pid)
  const pids0 = await backends()
  const pgCpu0 = new Map(pids0.map((pid) => [pid, cpuMillis(pid)]))
  const began = performance.now()
  for (;;) {
    await delay(100)
    const pending = (await Seed.deliveryCounts(sql)).find((c) => c.status === "pending")?.n ?? 0
    if (pending === 0) break
  }
  const ms = performance.now() - began
  const cpu = cpuMillis(fils.child.pid!) - cpu0
  // A backend that started during the run counts from zero.
  const pgCpu = (await backends()).reduce((sum, pid) => sum + cpuMillis(pid) - (pgCpu0.get(pid) ?? 0), 0)
  process.stdout.write(
    `${events * 3} deliveries in ${Math.round(ms)} ms: ${Math.round(events * 3 / (ms / 1000))}/s, ${
      (cpu / (events * 3)).toFixed(2)
    } CPU ms each (PostgreSQL backends: ${(pgCpu / (events * 3)).toFixed(2)})\n`
  )
  await sql.end()
  await fils.stop()
} finally {
  receiver.close()
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined)
  await admin.end()
  await embedded?.stop()
  rmSync(work, { recursive: true, force: true })
}
