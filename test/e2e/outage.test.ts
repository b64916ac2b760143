/**
 * A PostgreSQL outage under load (docs/reliability.md): `fils serve` on a dedicated embedded PostgreSQL that the test
 * starts (adapters/sql/EmbeddedPostgres.ts), stops (a real fast shutdown: connections cut, new ones refused) and
 * starts again on the same folder and port, while clients keep calling the API.
 *
 * While it is down: every request is answered, quickly, with `503 SERVICE_UNAVAILABLE` as `{ code, message }` JSON
 * (no hang: each within 10 s), `/ready` says 503 while `/health` stays 200, and the workers back off (the server
 * neither spins the CPU nor floods its log). When it is back: the same server process serves again without a
 * restart, new payments and their deliveries flow, and everything committed before the outage is still there and
 * delivered (`fils check` finds nothing).
 */
import { afterAll, describe, expect, it } from "vitest"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type EmbeddedDatabase, startEmbeddedPostgres } from "../../adapters/sql/EmbeddedPostgres.js"
import { ensureOutputDir, type LoggedServer, serveFilsLogged } from "../support/browser.js"
import {
  acceptedIds,
  api,
  cards,
  delay,
  ok,
  payThroughForm,
  poolOn,
  type Receiver,
  startReceiver,
  waitFor
} from "../support/load.js"

const outageMs = Number(process.env["FILS_OUTAGE_MS"] ?? (process.env["FILS_SOAK"] === "1" ? 90_000 : 12_000))
const answerWithinMs = 10_000
const dir = mkdtempSync(join(tmpdir(), "fils-outage-"))
const output = ensureOutputDir()

let database: EmbeddedDatabase | undefined
let server: LoggedServer | undefined
let receiver: Receiver | undefined

afterAll(async () => {
  await server?.stop("SIGKILL", 5_000).catch(() => undefined)
  await receiver?.close().catch(() => undefined)
  await database?.stop().catch(() => undefined)
  rmSync(dir, { recursive: true, force: true })
}, 60_000)

/** CPU seconds (user + system) the process has used, from /proc (Linux). */
const cpuSeconds = (pid: number): number | undefined => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
    return (Number(fields[11]) + Number(fields[12])) / 100 // utime, stime in clock ticks (100/s on Linux)
  } catch {
    return undefined
  }
}

describe("fils serve through a PostgreSQL outage", () => {
  it("answers 503 quickly while the database is down and resumes by itself, losing nothing", async () => {
    database = await startEmbeddedPostgres(dir)
    const port = database.port
    const env = {
      DATABASE_URL: database.url,
      FILS_DATA_DIR: undefined,
      FILS_RATE_LIMIT_PER_MIN: "1000000",
      FILS_KEY_CACHE_TTL: "0 millis", // every request goes to the database
      FILS_SIMULATED_LIVE: undefined
    }
    server = await serveFilsLogged({ env, logFile: join(output, "outage.log"), timeoutMs: 60_000 })
    const base = server.baseUrl
    const key = /Test key\s+(sk_test_[A-Za-z0-9_-]+)/.exec(server.stdout())?.[1] ?? ""
    expect(key).not.toBe("")
    receiver = await startReceiver()
    await ok(base, key, "POST", "/webhooks", { url: receiver.url })
    const product = await ok(base, key, "POST", "/products", { name: "Dates", price: 5_000, currency: "AED" })

    // Before: payments committed, some of them settling later (their outcome is recorded after the outage).
    const before = await Promise.all([cards.visa, cards.declined, cards.visa, cards.settleSucceeds, cards.visa].map((card) =>
      payThroughForm(base, key, product.product_id, card)))
    expect(before.map((p) => p.status)).toEqual([200, 402, 200, 200, 200])
    const committed = (await ok(base, key, "GET", "/events?limit=100")).items.map((e: any) => e.event_id as string)
    expect(committed.length).toBeGreaterThanOrEqual(4)

    // Load that runs throughout: reads and writes, each with its own deadline.
    let loading = true
    const during: Array<{ status: number; millis: number; body: any; contentType: string }> = []
    let outage: { from: number; to: number } | undefined
    const load = Promise.all([0, 1, 2].map(async (n) => {
      for (let i = 0; loading; i++) {
        const call = i % 2 === 0
          ? api(base, key, "GET", "/products?limit=5", undefined, { timeoutMs: 30_000 })
          : api(base, key, "POST", "/customers", { email: `c${n}-${i}@example.ae` }, { timeoutMs: 30_000 })
        const startedAt = Date.now()
        const result = await call
        if (outage !== undefined && startedAt >= outage.from && (outage.to === 0 || startedAt < outage.to - 500)) {
          during.push(result)
        }
        await delay(100)
      }
    }))
    await delay(1_000)

    // The outage.
    const pid = server.child.pid!
    const logBefore = server.stdout().length + server.stderr().length
    const cpuBefore = cpuSeconds(pid)
    outage = { from: Date.now(), to: 0 }
    await database.stop()
    const stoppedAt = Date.now()
    const ready = await fetch(`${base}/ready`, { signal: AbortSignal.timeout(answerWithinMs) })
    expect(ready.status).toBe(503)
    expect(await ready.json()).toMatchObject({ code: "SERVICE_UNAVAILABLE" })
    expect((await fetch(`${base}/health`, { signal: AbortSignal.timeout(answerWithinMs) })).status).toBe(200)
    // A checkout page and its form are refused the same way, not hung.
    const page = await fetch(`${base}/checkout/${before[0]!.sessionId}`, { signal: AbortSignal.timeout(answerWithinMs) })
    expect(page.status).toBe(503)
    await delay(Math.max(0, outageMs - (Date.now() - stoppedAt)))
    const cpuDuring = cpuSeconds(pid)
    const logDuring = server.stdout().length + server.stderr().length - logBefore
    const downFor = Date.now() - stoppedAt

    // Back, on the same folder and port; the server was not restarted.
    const restarting = Date.now()
    database = await startEmbeddedPostgres(dir, { port })
    outage.to = Date.now()
    const restartedIn = outage.to - restarting
    await waitFor("/ready again", async () =>
      (await fetch(`${base}/ready`, { signal: AbortSignal.timeout(5_000) }).then((r) => r.status, () => 0)) === 200, 45_000)
    const recoveredIn = Date.now() - outage.to
    await delay(1_000)
    loading = false
    await load
    expect(server.child.pid).toBe(pid)
    expect(server.child.exitCode).toBeNull()

    // During: answered, quickly, as 503 JSON (a request already running when it went down may have finished).
    expect(during.length).toBeGreaterThan(5)
    for (const r of during) {
      expect(r.status, JSON.stringify(r)).not.toBe(0) // answered, within the client's 30 s deadline
      expect(r.millis, JSON.stringify(r)).toBeLessThanOrEqual(answerWithinMs)
    }
    const unavailable = during.filter((r) => r.status === 503)
    expect(unavailable.length).toBeGreaterThan(during.length / 2)
    for (const r of unavailable) {
      expect(r.contentType).toMatch(/^application\/json/)
      expect(r.body).toMatchObject({ code: "SERVICE_UNAVAILABLE", message: expect.any(String) })
    }
    expect(during.every((r) => r.status === 503 || r.status === 200), JSON.stringify(during.map((r) => r.status))).toBe(true)
    // Backing off, not spinning: well under one core, and a bounded log.
    if (cpuBefore !== undefined && cpuDuring !== undefined) {
      expect((cpuDuring - cpuBefore) / (downFor / 1000)).toBeLessThan(0.6)
    }
    expect(logDuring).toBeLessThan(200_000)

    // After: it works again, without a restart.
    const after = await payThroughForm(base, key, product.product_id, cards.visa)
    expect(after.status).toBe(200)
    const events = (await ok(base, key, "GET", "/events?limit=100")).items.map((e: any) => e.event_id as string)
    for (const id of committed) expect(events).toContain(id)
    // The settle-later charge, due during the outage, is recorded now; every event reaches the receiver.
    await waitFor("every event delivered", async () => {
      const now = (await ok(base, key, "GET", "/events?limit=100")).items.map((e: any) => e.event_id as string)
      return now.length > committed.length && now.every((id: string) => acceptedIds(receiver!).has(id))
    }, 40_000, () => ({ received: [...acceptedIds(receiver!).keys()].length }))
    const pool = poolOn(database.url)
    let settledIn = 0
    try {
      // The billing worker's backoff is capped at 30 s: it settles the charge at its next pass.
      await waitFor("the settle-later charge recorded", async () => {
        const [row] = await pool.sql(`SELECT count(*)::int AS n FROM payments WHERE status = 'processing'`)
        return (row as any).n === 0
      }, 45_000)
      settledIn = Date.now() - outage.to
      expect(await pool.check()).toEqual([])
    } finally {
      await pool.close()
    }
    console.info(
      `outage: survived ${(downFor / 1000).toFixed(1)} s without PostgreSQL; ${during.length} requests during it, ` +
        `${unavailable.length} answered 503 (slowest ${Math.max(...during.map((r) => r.millis))} ms); ` +
        `database restarted in ${(restartedIn / 1000).toFixed(1)} s, server ready ${(recoveredIn / 1000).toFixed(1)} s ` +
        `after; CPU during outage ${cpuBefore === undefined || cpuDuring === undefined ? "n/a" : ((cpuDuring - cpuBefore) / (downFor / 1000) * 100).toFixed(0) + "%"}; ` +
        `billing resumed within ${(settledIn / 1000).toFixed(1)} s; ${committed.length} events committed before it, all delivered`
    )
  }, process.env["FILS_SOAK"] === "1" ? 600_000 : 150_000)
})
