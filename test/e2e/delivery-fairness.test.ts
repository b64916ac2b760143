/**
 * Fair webhook dispatch across merchants (docs/decisions.md §7; `Delivery.inFlightPerAccount`): ONE `fils serve` (its 128
 * delivery slots, no second server to hide behind) on a fresh database. Merchant A has five endpoints whose receiver
 * never answers and a backlog of thirty events for each; without a per-account cap, 5 × 30 (each under the
 * per-endpoint cap of 32) would take every slot for the 10 s receiver timeout. With it, A holds at most 64 and
 * merchant B's deliveries arrive within a couple of seconds of each payment.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { join } from "node:path"
import { dispatchSlots, inFlightPerAccount, inFlightPerEndpoint } from "../../src/domain/Delivery.js"
import { ensureOutputDir, type LoggedServer, serveFilsLogged } from "../support/browser.js"
import { runFils } from "../support/cli.js"
import {
  cards,
  mapLimit,
  ok,
  payThroughForm,
  type Receiver,
  startReceiver,
  type TestDatabase,
  testDatabase,
  waitFor
} from "../support/load.js"

const output = ensureOutputDir()
const receivers: Array<Receiver> = []
let db: TestDatabase
let server: LoggedServer
let busyKey = ""
let calmKey = ""

beforeAll(async () => {
  db = await testDatabase()
  const env = {
    DATABASE_URL: db.url,
    FILS_DATA_DIR: undefined,
    FILS_RATE_LIMIT_PER_MIN: "1000000",
    FILS_SIMULATED_LIVE: undefined
  }
  server = await serveFilsLogged({ env, logFile: join(output, "delivery-fairness.log"), timeoutMs: 60_000 })
  busyKey = /Test key\s+(sk_test_[A-Za-z0-9_-]+)/.exec(server.stdout())?.[1] ?? ""
  const account = await runFils(["accounts", "create", "--name", "Calm Merchant Tea"], env)
  expect(account.code, account.stderr).toBe(0)
  calmKey = JSON.parse(account.stdout).keys.test.secret
}, 90_000)

afterAll(async () => {
  await server?.stop("SIGKILL", 5_000).catch(() => undefined)
  await Promise.all(receivers.map((r) => r.close().catch(() => undefined)))
  await db?.close()
}, 30_000)

describe("one merchant's hanging receivers", () => {
  it("hold at most 64 of a server's 128 delivery slots: another merchant's deliveries arrive within 2 s", async () => {
    const base = server.baseUrl
    const hanging = await startReceiver(() => "hang")
    const fast = await startReceiver()
    receivers.push(hanging, fast)
    for (let i = 1; i <= 5; i++) await ok(base, busyKey, "POST", "/webhooks", { url: `${hanging.url}/${i}` })
    await ok(base, calmKey, "POST", "/webhooks", { url: fast.url })
    const busyProduct = await ok(base, busyKey, "POST", "/products", { name: "Dates", price: 5_000, currency: "AED" })
    const calmProduct = await ok(base, calmKey, "POST", "/products", { name: "Tea", price: 1_500, currency: "AED" })

    // Thirty events, 150 deliveries: more than the server's slots, and the per-endpoint cap alone would let them
    // take every slot.
    expect(5 * Math.min(30, inFlightPerEndpoint)).toBeGreaterThan(dispatchSlots)
    const backlog = await mapLimit(Array.from({ length: 30 }), 5, () =>
      payThroughForm(base, busyKey, busyProduct.product_id, cards.visa))
    expect(backlog.map((p) => p.status)).toEqual(Array(30).fill(200))
    await waitFor("the busy merchant's attempts to hang", () => hanging.received.length >= inFlightPerAccount, 5_000)

    // The calm merchant sells while those hang (well inside their 10 s timeout); each delivery comes promptly.
    const events: Array<{ id: string; createdAt: number }> = []
    for (let i = 0; i < 3; i++) {
      const paid = await payThroughForm(base, calmKey, calmProduct.product_id, cards.visa)
      expect(paid.status).toBe(200)
      const [latest] = (await ok(base, calmKey, "GET", "/events?limit=1")).items as Array<any>
      events.push({ id: latest.event_id, createdAt: Date.parse(latest.created_at) })
      await waitFor(`the calm merchant's delivery ${i + 1}`, () => fast.received.some((x) => x.id === latest.event_id), 2_000,
        () => ({ fast: fast.received.length, hanging: hanging.received.length }))
    }
    const lags = events.map((e) => fast.received.find((x) => x.id === e.id)!.at - e.createdAt)

    expect(Math.max(...lags), JSON.stringify(lags)).toBeLessThan(2_000)

    // No more than inFlightPerAccount (64) of the busy merchant's attempts were started before the first of them
    // timed out (10 s).
    const firstHang = Math.min(...hanging.received.map((x) => x.at))
    expect(hanging.received.filter((x) => x.at < firstHang + 9_000).length).toBe(inFlightPerAccount)
    console.info(
      `delivery fairness: busy merchant ${hanging.received.length} hanging attempts at once; the calm merchant's ` +
        `${events.length} deliveries arrived ${JSON.stringify(lags)} ms after their events`
    )
  }, 60_000)
})
