/**
 * Webhook deliveries as a merchant's receiver and an operator meet them (docs/decisions.md §7, §9): real `fils serve`
 * processes on the embedded PostgreSQL in a fresh data folder, real HTTP receivers on 127.0.0.1, payments made by
 * posting the hosted checkout form, and `fils deliveries list|retry` as real processes.
 *
 *   1. A paid checkout's delivery verifies with the `standardwebhooks` package and matches `GET /events/{id}`; an
 *      endpoint subscribed to other types gets nothing; a 500 is retried about 5 s later, signed afresh.
 *   2. `kill -9` of the server while deliveries are pending, a restart on the same folder (the orphaned postgres is
 *      reused): every committed event reaches every subscribed endpoint, with `fils deliveries retry` for the
 *      attempts that are minutes away.
 *   3. Two servers on one database: no attempt is sent twice.
 *   4. `fils deliveries list` filters; `fils deliveries retry` redelivers a succeeded delivery.
 *
 * Tests 2 to 4 each use their own account (`fils accounts create`), so "every event of the account" is exact.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from "node:fs"
import { once } from "node:events"
import { createServer, type Server } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { setTimeout as delay } from "node:timers/promises"
import { Webhook } from "standardwebhooks"
import { ensureOutputDir, type LoggedServer, serveFilsLogged } from "../support/browser.js"
import { freePort, runFils, stopOrphanedPostgres } from "../support/cli.js"
import { postCheckoutForm } from "../support/load.js"

const dataDir = mkdtempSync(join(tmpdir(), "fils-webhooks-e2e-"))
// The embedded database in a fresh folder; nothing inherited from the suite's database or the environment.
const env = {
  FILS_DATA_DIR: dataDir,
  DATABASE_URL: undefined,
  FILS_DB_PORT: undefined,
  FILS_SIMULATED_LIVE: undefined,
  FILS_RATE_LIMIT_PER_MIN: undefined,
  FILS_KEY_CACHE_TTL: "0 millis"
}
const output = ensureOutputDir()
const logFile = (name: string) => join(output, `webhooks-${name}.log`)

const cards = { visa: "4242424242424242", declined: "4000000000000002" } as const
const price = 5_000

// Everything started here, stopped in afterAll whatever happened.
const servers: Array<LoggedServer> = []
const receivers: Array<Receiver> = []

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop("SIGKILL", 5_000).catch(() => undefined)))
  await Promise.all(receivers.map((r) => r.close().catch(() => undefined)))
  await stopOrphanedPostgres(dataDir)
  rmSync(dataDir, { recursive: true, force: true })
}, 40_000)

const start = async (name: string): Promise<LoggedServer> => {
  const server = await serveFilsLogged({ env, logFile: logFile(name), timeoutMs: 60_000 })
  servers.push(server)
  return server
}

const alive = (s: LoggedServer) => s.child.exitCode === null && s.child.signalCode === null

// Receivers --------------------------------------------------------------------------------------------------------

interface Received {
  /** Date.now() when the request body was complete. */
  readonly at: number
  readonly method: string
  readonly headers: Record<string, string>
  readonly body: string
  /** What the receiver answered. */
  readonly status: number
  readonly id: string
  readonly timestamp: string
  readonly signature: string
  /** The sender's TCP port (to tell, on Linux, which process sent it). */
  readonly remotePort: number
}

interface Receiver {
  readonly url: string
  readonly port: number
  readonly received: Array<Received>
  /** The status to answer a request with, given how many came before it. */
  respond: (previous: number) => number
  readonly close: () => Promise<void>
}

/** An HTTP server on 127.0.0.1 (on `port`, or a free one) that records every request and answers `respond`. */
const startReceiver = async (respond: (previous: number) => number = () => 200, port = 0): Promise<Receiver> => {
  const received: Array<Received> = []
  const server: Server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      const headers: Record<string, string> = {}
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers[k] = v
      const status = receiver.respond(received.length)
      received.push({
        at: Date.now(),
        method: req.method ?? "",
        headers,
        body: Buffer.concat(chunks).toString("utf8"),
        status,
        id: headers["webhook-id"] ?? "",
        timestamp: headers["webhook-timestamp"] ?? "",
        signature: headers["webhook-signature"] ?? "",
        remotePort: req.socket.remotePort ?? 0
      })
      res.writeHead(status, { "content-type": "text/plain" }).end(status < 300 ? "ok" : "not now")
    })
  })
  server.listen(port, "127.0.0.1")
  await once(server, "listening")
  const address = server.address()
  if (typeof address !== "object" || address === null) throw new Error("the receiver has no TCP address")
  const receiver: Receiver = {
    url: `http://127.0.0.1:${address.port}/hooks/fils`,
    port: address.port,
    received,
    respond,
    close: async () => {
      server.closeAllConnections()
      if (server.listening) {
        server.close()
        await Promise.race([once(server, "close"), delay(5_000)])
      }
    }
  }
  receivers.push(receiver)
  return receiver
}

/** The webhook-ids a receiver accepted (answered 2xx), with how many times each. */
const acceptedIds = (r: Receiver): Map<string, number> => {
  const counts = new Map<string, number>()
  for (const x of r.received) if (x.status < 300) counts.set(x.id, (counts.get(x.id) ?? 0) + 1)
  return counts
}

/**
 * Best effort, Linux only, for the report: which of `pids` holds the client end of each connection (by its local
 * port, as the receiver saw it), from /proc/net/tcp and /proc/<pid>/fd. Connections closed since are not found.
 */
const sendersOf = (ports: ReadonlyArray<number>, pids: ReadonlyArray<number>): Map<number, number> => {
  const wanted = new Set(ports)
  const inodes = new Map<string, number>() // socket inode -> local port
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text = ""
    try {
      text = readFileSync(file, "utf8")
    } catch {
      continue
    }
    for (const line of text.split("\n").slice(1)) {
      const cols = line.trim().split(/\s+/)
      const port = parseInt(cols[1]?.split(":")[1] ?? "", 16)
      if (cols.length >= 10 && wanted.has(port)) inodes.set(cols[9]!, port)
    }
  }
  const owners = new Map<number, number>() // local port -> pid
  for (const pid of pids) {
    let fds: Array<string> = []
    try {
      fds = readdirSync(`/proc/${pid}/fd`)
    } catch {
      continue
    }
    for (const fd of fds) {
      try {
        const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1]
        const port = inode === undefined ? undefined : inodes.get(inode)
        if (port !== undefined) owners.set(port, pid)
      } catch {
        // closed meanwhile
      }
    }
  }
  return owners
}

/** Polls `check` every 50 ms until it is true; fails with `what` (and `state()`) after `timeoutMs`. */
const waitFor = async (what: string, check: () => boolean, timeoutMs: number, state?: () => unknown) => {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) {
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}` +
        (state === undefined ? "" : `\n${JSON.stringify(state(), null, 1).slice(0, 3_000)}`))
    }
    await delay(50)
  }
}

/** Verifies a received request with the reference Standard Webhooks library; returns the parsed body. */
const verified = (secret: string, r: Received): any =>
  new Webhook(secret).verify(r.body, {
    "webhook-id": r.id,
    "webhook-timestamp": r.timestamp,
    "webhook-signature": r.signature
  })

// API --------------------------------------------------------------------------------------------------------------

const api = async (server: LoggedServer, key: string, method: string, path: string, body?: unknown) => {
  const res = await fetch(`${server.baseUrl}/api/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { "content-type": "application/json" })
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(15_000)
  })
  const text = await res.text()
  return { status: res.status, body: text === "" ? undefined : JSON.parse(text) }
}

const ok = async (server: LoggedServer, key: string, method: string, path: string, body?: unknown): Promise<any> => {
  const res = await api(server, key, method, path, body)
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(200)
  return res.body
}

const createEndpoint = async (server: LoggedServer, key: string, url: string, eventTypes?: ReadonlyArray<string>) => {
  const endpoint = await ok(server, key, "POST", "/webhooks", {
    url,
    description: "e2e receiver",
    ...(eventTypes === undefined ? {} : { event_types: eventTypes })
  })
  expect(endpoint.webhook_id).toMatch(/^wh_[0-9a-f]{32}$/)
  expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/) // base64 of 24 bytes
  expect(Buffer.from(endpoint.secret.slice(6), "base64")).toHaveLength(24)
  return endpoint as { webhook_id: string; secret: string; event_types: Array<string> }
}

/**
 * Pays a new one-line session for `productId` by posting the hosted page's form (form-urlencoded, with the page's
 * token): 200 for an accepted card, 402 for a declined one. Returns the session id.
 */
const pay = async (server: LoggedServer, key: string, productId: string, card: string): Promise<string> => {
  const session = await ok(server, key, "POST", "/checkout_sessions", { product_cart: [{ product_id: productId }] })
  const posted = await postCheckoutForm(server.baseUrl, session.session_id, { card_number: card }, 15_000)
  const text = posted.body
  expect(posted.status, text.slice(0, 300)).toBe(card === cards.visa ? 200 : 402)
  return session.session_id as string
}

/** Every event of the key's account and mode, newest first. */
const allEvents = async (server: LoggedServer, key: string): Promise<Array<any>> => {
  const page = await ok(server, key, "GET", "/events?limit=100")
  expect(page.has_more).toBe(false)
  return page.items
}

/** Runs `f` over `items`, at most `n` at once. */
const mapLimit = async <A, B>(items: ReadonlyArray<A>, n: number, f: (a: A) => Promise<B>): Promise<Array<B>> => {
  const results: Array<B> = new Array(items.length)
  let next = 0
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, async () => {
    while (next < items.length) {
      const i = next++
      results[i] = await f(items[i]!)
    }
  }))
  return results
}

// CLI --------------------------------------------------------------------------------------------------------------

/** `fils <args>` on the same data folder; must exit 0 and print JSON. */
const cli = async (args: ReadonlyArray<string>): Promise<any> => {
  const result = await runFils(args, env)
  expect(result.code, `fils ${args.join(" ")}\n${result.stdout}\n${result.stderr}`).toBe(0)
  try {
    return JSON.parse(result.stdout)
  } catch {
    throw new Error(`fils ${args.join(" ")} printed no JSON:\n${result.stdout}\n${result.stderr}`)
  }
}

const isoPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/
const deliveryKeys = [
  "attempts",
  "created_at",
  "delivery_id",
  "event_id",
  "last_error",
  "last_status_code",
  "livemode",
  "next_attempt_at",
  "status",
  "webhook_id"
]

/** One delivery as `fils deliveries list|retry` prints it. */
const expectDelivery = (d: any) => {
  expect(Object.keys(d).sort()).toEqual(deliveryKeys)
  expect(d.delivery_id).toMatch(/^dlv_[0-9a-f]{32}$/)
  expect(d.event_id).toMatch(/^evt_[0-9a-f]{32}$/)
  expect(d.webhook_id).toMatch(/^wh_[0-9a-f]{32}$/)
  expect(d.livemode).toBe(false)
  expect(["pending", "succeeded", "failed", "cancelled"]).toContain(d.status)
  expect(Number.isInteger(d.attempts) && d.attempts >= 0).toBe(true)
  expect(d.created_at).toMatch(isoPattern)
  if (d.next_attempt_at !== null) expect(d.next_attempt_at).toMatch(isoPattern)
  if (d.last_status_code !== null) expect(Number.isInteger(d.last_status_code)).toBe(true)
  if (d.last_error !== null) expect(typeof d.last_error).toBe("string")
  if (d.status === "pending") expect(d.next_attempt_at).not.toBeNull()
  if (d.status === "succeeded") {
    expect(d.next_attempt_at).toBeNull()
    expect(d.last_status_code).toBeGreaterThanOrEqual(200)
    expect(d.last_status_code).toBeLessThan(300)
  }
}

const newAccountKey = async (name: string): Promise<string> => {
  const account = await cli(["accounts", "create", "--name", name])
  expect(account.keys.test.secret).toMatch(/^sk_test_/)
  return account.keys.test.secret as string
}

// ------------------------------------------------------------------------------------------------------------------

describe("webhook deliveries from fils serve on the embedded PostgreSQL", () => {
  let serverA: LoggedServer
  let defaultKey = ""
  // Their own accounts: the crash test (2), and the two-server and CLI tests (3, 4).
  let crashKey = ""
  let sharedKey = ""

  beforeAll(async () => {
    serverA = await start("a")
    const key = /Test key\s+(sk_test_[A-Za-z0-9_-]+)/.exec(serverA.stdout())
    expect(key, serverA.stdout()).not.toBeNull()
    defaultKey = key![1]!
    ;[crashKey, sharedKey] = await Promise.all([newAccountKey("Crash Test Dates"), newAccountKey("Twin Servers Tea")])
  }, 90_000)

  it("signs deliveries the standardwebhooks library verifies, filters by type, and retries a 500 about 5 s later", async () => {
    const subscribed = await startReceiver()
    const others = await startReceiver()
    const flaky = await startReceiver((previous) => (previous === 0 ? 500 : 200))
    const allButPayments = ["payment.failed", "refund.succeeded", "subscription.active", "subscription.renewed",
      "subscription.on_hold", "subscription.cancelled"]
    const e1 = await createEndpoint(serverA, defaultKey, subscribed.url, ["payment.succeeded"])
    const e2 = await createEndpoint(serverA, defaultKey, others.url, allButPayments)
    const e3 = await createEndpoint(serverA, defaultKey, flaky.url, ["payment.succeeded"])
    expect(e2.event_types).toEqual(allButPayments)
    expect(new Set([e1.secret, e2.secret, e3.secret]).size).toBe(3)

    const product = await ok(serverA, defaultKey, "POST", "/products", { name: "Medjool dates", price, currency: "AED" })
    const sessionId = await pay(serverA, defaultKey, product.product_id, cards.visa)

    await waitFor("the subscribed receiver's delivery", () => subscribed.received.length >= 1, 10_000)
    const delivery = subscribed.received[0]!
    expect(delivery.method).toBe("POST")
    expect(delivery.headers["content-type"]).toMatch(/^application\/json/)
    // The reference implementation accepts it, and refuses it under another endpoint's secret.
    const payload = verified(e1.secret, delivery)
    expect(() => verified(e3.secret, delivery)).toThrow()
    expect(() => verified(e1.secret, { ...delivery, body: delivery.body.replace("succeeded", "failed") })).toThrow()

    const body = JSON.parse(delivery.body)
    expect(payload).toEqual(body)
    expect(Object.keys(body).sort()).toEqual(["created_at", "data", "id", "livemode", "type"])
    expect(body.id).toMatch(/^evt_[0-9a-f]{32}$/)
    expect(delivery.id).toBe(body.id)
    expect(body.type).toBe("payment.succeeded")
    expect(body.livemode).toBe(false)
    expect(body.data).toMatchObject({
      object: "payment",
      status: "succeeded",
      total_amount: price,
      checkout_session_id: sessionId
    })
    expect(Math.abs(Number(delivery.timestamp) - delivery.at / 1000)).toBeLessThan(30)

    const event = await ok(serverA, defaultKey, "GET", `/events/${body.id}`)
    expect(event).toMatchObject({ object: "event", event_id: body.id })
    expect({ type: event.type, livemode: event.livemode, created_at: event.created_at, data: event.data })
      .toEqual({ type: body.type, livemode: body.livemode, created_at: body.created_at, data: body.data })
    // That payment is the account's only event: nothing of the other endpoint's types happened.
    expect((await allEvents(serverA, defaultKey)).map((e) => e.event_id)).toEqual([body.id])

    // The 500 is retried after 5 s (plus up to a poll interval), with the same id, signed afresh.
    await waitFor("the retry after a 500", () => flaky.received.length >= 2, 15_000, () => flaky.received)
    const [first, retry] = flaky.received as [Received, Received]
    expect(first.status).toBe(500)
    expect(retry.status).toBe(200)
    const waited = retry.at - first.at
    expect(waited).toBeGreaterThanOrEqual(4_000)
    expect(waited).toBeLessThanOrEqual(9_000)
    expect(first.id).toBe(body.id)
    expect(retry.id).toBe(body.id)
    expect(Number(retry.timestamp) - Number(first.timestamp)).toBeGreaterThanOrEqual(4)
    expect(retry.signature).not.toBe(first.signature)
    expect(retry.body).toBe(first.body)
    expect(verified(e3.secret, first)).toEqual(body)
    expect(verified(e3.secret, retry)).toEqual(body)

    // Long enough for anything else to have arrived: the subscribed receivers got exactly theirs, the other none.
    await delay(2_000)
    expect(others.received).toEqual([])
    expect(subscribed.received).toHaveLength(1)
    expect(flaky.received).toHaveLength(2)
  }, 45_000)

  it("delivers every committed event to every endpoint after kill -9 and a restart, with fils deliveries retry", async () => {
    const key = crashKey
    const t0 = Date.now()
    const phases: Array<string> = []
    const mark = (label: string) => phases.push(`${label} ${((Date.now() - t0) / 1000).toFixed(1)} s`)
    const failing = await startReceiver(() => 500)
    const downPort = await freePort() // nothing listens here until the server is dead
    const e500 = await createEndpoint(serverA, key, failing.url)
    const eDown = await createEndpoint(serverA, key, `http://127.0.0.1:${downPort}/hooks/fils`)
    const ours = new Set([e500.webhook_id, eDown.webhook_id])
    const product = await ok(serverA, key, "POST", "/products", { name: "Saffron", price, currency: "AED" })
    const eventIdsNow = async () => (await allEvents(serverA, key)).map((e) => e.event_id as string)
    const attemptsAt = (r: Receiver, id: string) => r.received.filter((x) => x.id === id).length

    // Five events; at the kill their deliveries are in three states. Old: two failed attempts, the next 5 minutes away.
    await pay(serverA, key, product.product_id, cards.visa)
    const old = await eventIdsNow()
    expect(old).toHaveLength(1)
    await waitFor("two failed attempts of the old event", () => old.every((id) => attemptsAt(failing, id) >= 2),
      15_000, () => failing.received.map((r) => [r.id, r.at - t0]))
    // Recent: one failed attempt each, the next a few seconds away.
    for (const card of [cards.visa, cards.declined, cards.visa]) await pay(serverA, key, product.product_id, card)
    const recent = (await eventIdsNow()).filter((id) => !old.includes(id))
    expect(recent).toHaveLength(3)
    await waitFor("the first attempts of the recent events", () => recent.every((id) => attemptsAt(failing, id) >= 1),
      10_000, () => failing.received.map((r) => r.id))
    expect(old.map((id) => attemptsAt(failing, id))).toEqual([2])
    // Last: committed just before the kill, perhaps mid-attempt.
    await pay(serverA, key, product.product_id, cards.visa)
    await serverA.stop("SIGKILL")
    expect(alive(serverA)).toBe(false)
    mark("killed")

    // While the server is dead, the receivers come back.
    failing.respond = () => 200
    const back = await startReceiver(() => 200, downPort)

    // Same folder: the killed server's postgres is still running and is reused.
    const serverB = await start("b")
    mark("restarted")
    expect(serverB.stdout()).not.toContain("Test key")
    const events = await allEvents(serverB, key)
    expect(events).toHaveLength(5) // everything committed survived the kill
    const eventIds = events.map((e) => e.event_id as string)
    expect(events.map((e) => e.type).sort()).toEqual(["payment.failed", ...Array(4).fill("payment.succeeded")])

    // The restarted server resumes by itself: the recent events' retries, due seconds after the kill, arrive.
    await waitFor(
      "the restarted server's deliveries of the recent events",
      () => recent.every((id) => acceptedIds(failing).has(id) && acceptedIds(back).has(id)),
      20_000,
      () => ({ failing: [...acceptedIds(failing).keys()], back: [...acceptedIds(back).keys()], recent })
    )
    mark("recent delivered")

    const pending = (await cli(["deliveries", "list", "--status", "pending", "--limit", "1000"])) as Array<any>
    expect(Array.isArray(pending)).toBe(true)
    for (const d of pending) expectDelivery(d)
    expect(pending.every((d) => d.status === "pending")).toBe(true)
    const ourPending = pending.filter((d) => ours.has(d.webhook_id))
    mark(`listed ${ourPending.length} pending`)
    // The old deliveries wait for their third attempt, minutes away: only an operator's retry brings it sooner.
    const listedAt = Date.now()
    for (const endpoint of [e500, eDown]) {
      for (const id of old) {
        const d = ourPending.find((x) => x.event_id === id && x.webhook_id === endpoint.webhook_id)
        expect(d, `pending delivery of ${id} to ${endpoint.webhook_id}`).toBeDefined()
        expect(d.attempts).toBe(2)
        expect(Date.parse(d.next_attempt_at) - listedAt).toBeGreaterThan(60_000)
        expect(Date.parse(d.next_attempt_at) - listedAt).toBeLessThanOrEqual(5 * 60_000)
        if (endpoint === e500) {
          expect(d.last_status_code).toBe(500)
        } else {
          expect(d.last_status_code).toBeNull()
          expect(d.last_error).toEqual(expect.any(String))
          expect(d.last_error).not.toBe("")
        }
      }
    }
    // The recent ones were delivered by the restarted server, so none of them is pending.
    expect(ourPending.filter((d) => recent.includes(d.event_id))).toEqual([])

    const retried = await mapLimit(ourPending, 3, async (d) => {
      const before = Date.now()
      const out = await cli(["deliveries", "retry", d.delivery_id])
      expectDelivery(out)
      expect(out).toMatchObject({ delivery_id: d.delivery_id, event_id: d.event_id, webhook_id: d.webhook_id })
      expect(out.status).toBe("pending")
      expect(Math.abs(Date.parse(out.next_attempt_at) - before)).toBeLessThan(30_000) // due now
      return out
    })
    expect(retried.length).toBeGreaterThanOrEqual(2 * old.length)
    mark(`retried ${retried.length}`)

    const missing = () =>
      [failing, back].flatMap((r, i) => eventIds.filter((id) => !acceptedIds(r).has(id)).map((id) => `${i}:${id}`))
    await waitFor("every event at both endpoints", () => missing().length === 0, 20_000, missing)
    mark("all delivered")
    console.info(`kill -9 test: ${phases.join(", ")}`)
    // What they accepted is exactly the account's events, each signed with its endpoint's secret.
    for (const [r, endpoint] of [[failing, e500], [back, eDown]] as const) {
      expect(new Set(acceptedIds(r).keys())).toEqual(new Set(eventIds))
      for (const x of r.received.filter((x) => x.status < 300)) {
        const body = verified(endpoint.secret, x)
        expect(body.id).toBe(x.id)
        const event = events.find((e) => e.event_id === x.id)!
        expect(body.type).toBe(event.type)
        expect(body.data).toEqual(event.data)
      }
    }
  }, 75_000)

  it("two servers on one database never send the same attempt twice", async () => {
    const key = sharedKey
    const first = servers.find(alive) ?? await start("b2")
    const second = await start("c") // reuses the embedded postgres the first one uses
    expect(second.port).not.toBe(first.port)
    const all = await startReceiver()
    const paymentsOnly = await startReceiver()
    const eAll = await createEndpoint(first, key, all.url)
    const ePayments = await createEndpoint(second, key, paymentsOnly.url, ["payment.succeeded"])
    const product = await ok(first, key, "POST", "/products", { name: "Karak tea", price, currency: "AED" })

    // 32 events through both servers at once: 28 payments and 4 declines.
    const plan = Array.from({ length: 32 }, (_, i) => (i % 8 === 3 ? cards.declined : cards.visa))
    const startedAt = Date.now()
    await mapLimit(plan.map((card, i) => ({ card, i })), 8, ({ card, i }) =>
      pay(i % 2 === 0 ? first : second, key, product.product_id, card))
    const createdIn = Date.now() - startedAt

    const events = await allEvents(second, key)
    expect(events).toHaveLength(32)
    const succeeded = events.filter((e) => e.type === "payment.succeeded").map((e) => e.event_id as string)
    const failed = events.filter((e) => e.type === "payment.failed").map((e) => e.event_id as string)
    expect([succeeded.length, failed.length]).toEqual([28, 4])

    const expectedTotal = events.length * 1 + succeeded.length * 1
    const pids = [first.child.pid!, second.child.pid!]
    const received = () => [...all.received, ...paymentsOnly.received]
    // Which server sent each request, looked up while its connection is still open (keep-alive sockets close a few
    // seconds after their last use), so on every poll rather than once at the end.
    const owners = new Map<number, number>()
    const attribute = () => {
      const unknown = received().map((x) => x.remotePort).filter((port) => !owners.has(port))
      if (unknown.length > 0) for (const [port, pid] of sendersOf(unknown, pids)) owners.set(port, pid)
    }
    await waitFor(
      "every delivery at both receivers",
      () => {
        attribute()
        return all.received.length + paymentsOnly.received.length >= expectedTotal &&
          acceptedIds(all).size === 32 && acceptedIds(paymentsOnly).size === 28
      },
      20_000,
      () => ({ all: all.received.length, paymentsOnly: paymentsOnly.received.length })
    )
    attribute()
    const deliveredIn = Date.now() - startedAt
    const bySender = pids.map((pid) => received().filter((x) => owners.get(x.remotePort) === pid).length)
    await delay(1_500) // a duplicate would have arrived by now

    for (const [r, endpoint, ids] of [[all, eAll, events.map((e) => e.event_id)], [paymentsOnly, ePayments, succeeded]] as const) {
      const counts = acceptedIds(r)
      const twice = [...counts].filter(([, n]) => n > 1)
      expect(twice, "webhook-ids received more than once").toEqual([])
      expect(r.received.every((x) => x.status === 200)).toBe(true)
      expect(new Set(counts.keys())).toEqual(new Set(ids))
      for (const x of r.received) expect(verified(endpoint.secret, x).id).toBe(x.id)
    }
    expect(all.received.length + paymentsOnly.received.length).toBe(expectedTotal)
    expect(paymentsOnly.received.some((x) => failed.includes(x.id))).toBe(false)
    // Both servers dispatched: the work was shared, not merely never duplicated because one server did it all.
    // (Attribution reads /proc, so it is Linux only; elsewhere the counts are 0 and this is not checked.)
    if (process.platform === "linux") {
      expect(bySender[0], `sent by server 1 (of ${expectedTotal})`).toBeGreaterThan(0)
      expect(bySender[1], `sent by server 2 (of ${expectedTotal})`).toBeGreaterThan(0)
    }
    console.info(
      `two servers: 32 events created in ${createdIn} ms, ${expectedTotal} deliveries done in ${deliveredIn} ms; ` +
        `sent by server 1: ${bySender[0]}, server 2: ${bySender[1]}, unattributed: ${expectedTotal - bySender[0]! - bySender[1]!}`
    )
  }, 75_000)

  it("fils deliveries list filters by event, endpoint and status; retry redelivers a succeeded delivery", async () => {
    const key = sharedKey
    const server = servers.find(alive)!
    const hooks = (await ok(server, key, "GET", "/webhooks?limit=100")).items as Array<any>
    expect(hooks).toHaveLength(2)
    const eAll = hooks.find((h) => h.event_types.length === 7)!
    const ePayments = hooks.find((h) => h.event_types.length === 1)!
    expect(ePayments.secret).toBeUndefined() // only on creation and on request:
    const { secret } = await ok(server, key, "GET", `/webhooks/${ePayments.webhook_id}/secret`)
    expect(secret).toMatch(/^whsec_/)
    const events = await allEvents(server, key)
    const succeededIds = events.filter((e) => e.type === "payment.succeeded").map((e) => e.event_id as string)
    const target = succeededIds[3]!
    const paymentsReceiver = receivers.find((r) => r.url === ePayments.url)!
    const receivedBefore = paymentsReceiver.received.filter((x) => x.id === target)
    expect(receivedBefore).toHaveLength(1)

    const [byEvent, byWebhook, bySucceeded] = await Promise.all([
      cli(["deliveries", "list", "--event", target]),
      cli(["deliveries", "list", "--webhook", ePayments.webhook_id]),
      cli(["deliveries", "list", "--status", "succeeded", "--limit", "1000"])
    ]) as [Array<any>, Array<any>, Array<any>]
    for (const d of [...byEvent, ...byWebhook, ...bySucceeded]) expectDelivery(d)

    // --event: one delivery per subscribed endpoint.
    expect(byEvent).toHaveLength(2)
    expect(byEvent.every((d) => d.event_id === target)).toBe(true)
    expect(new Set(byEvent.map((d) => d.webhook_id))).toEqual(new Set([eAll.webhook_id, ePayments.webhook_id]))
    expect(byEvent.every((d) => d.status === "succeeded" && d.attempts === 1 && d.last_status_code === 200)).toBe(true)

    // --webhook: that endpoint's deliveries only, one per payment.succeeded, newest first.
    expect(byWebhook.every((d) => d.webhook_id === ePayments.webhook_id)).toBe(true)
    expect(new Set(byWebhook.map((d) => d.event_id))).toEqual(new Set(succeededIds))
    expect(byWebhook).toHaveLength(28)
    const created = byWebhook.map((d) => Date.parse(d.created_at))
    expect(created).toEqual([...created].sort((a, b) => b - a))

    // --status succeeded: only succeeded ones, and all of this account's (the other tests' are in there too).
    expect(bySucceeded.every((d) => d.status === "succeeded")).toBe(true)
    const ofAccount = bySucceeded.filter((d) => d.webhook_id === eAll.webhook_id || d.webhook_id === ePayments.webhook_id)
    expect(ofAccount).toHaveLength(32 + 28)

    // Retry after success: sent again at once, same webhook-id, newly signed.
    const delivery = byEvent.find((d) => d.webhook_id === ePayments.webhook_id)!
    const [retried, unknown] = await Promise.all([
      cli(["deliveries", "retry", delivery.delivery_id]),
      runFils(["deliveries", "retry", "dlv_0190f0c2a1b27c3d8e4f5a6b7c8d9e0f"], env)
    ])
    expectDelivery(retried)
    expect(retried).toMatchObject({ delivery_id: delivery.delivery_id, event_id: target, status: "pending" })
    expect(unknown.code).not.toBe(0)
    expect(unknown.stdout).toBe("")
    expect(JSON.parse(unknown.stderr.trim().split("\n").pop()!)).toMatchObject({ code: "NOT_FOUND" })

    await waitFor("the redelivery", () => paymentsReceiver.received.filter((x) => x.id === target).length >= 2, 10_000)
    const [original, again] = paymentsReceiver.received.filter((x) => x.id === target) as [Received, Received]
    expect(again.body).toBe(original.body)
    expect(Number(again.timestamp)).toBeGreaterThanOrEqual(Number(original.timestamp))
    expect(verified(secret, again).id).toBe(target)
    // Only that one was sent again.
    await delay(1_000)
    expect(paymentsReceiver.received).toHaveLength(28 + 1)

    const [after] = (await cli(["deliveries", "list", "--event", target, "--webhook", ePayments.webhook_id])) as Array<any>
    expectDelivery(after)
    expect(after).toMatchObject({ delivery_id: delivery.delivery_id, status: "succeeded", last_status_code: 200 })
    expect(after.attempts).toBeGreaterThanOrEqual(2)
  }, 60_000)

  it("both servers stop on SIGTERM with exit code 0", async () => {
    const running = servers.filter(alive)
    expect(running).toHaveLength(2)
    expect(await Promise.all(running.map((s) => s.stop("SIGTERM", 20_000)))).toEqual([0, 0])
  }, 30_000)
})
