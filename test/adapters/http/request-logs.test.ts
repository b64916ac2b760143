/**
 * Request logs over HTTP (docs/api.md, "Request logs"): each API request of a key is a line with its fields and
 * nothing of its body, secrets or query; a key sees its own account and mode only; the filters and pages of
 * `GET /request_logs`; lines past the retention pruned, by the clock; events carrying the request that caused them,
 * gathered charges included; and a full buffer dropping lines (counted) rather than holding requests.
 */
import { Effect, TestClock, TestContext } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeStoreMemory } from "../../../adapters/memory/StoreMemory.js"
import { RequestLogs } from "../../../src/application/RequestLogs.js"
import { layerStore } from "../../../src/ports/Store.js"
import { describeStores, expectError, useServer } from "../../support/httpSuite.js"
import { payOnPage } from "../../support/seed.js"
import { type EngineServices, rawFor, startServer, type TestServer } from "../../support/server.js"

type Line = Record<string, any>

const flushed = (server: TestServer) =>
  server.run(Effect.flatMap(RequestLogs, (logs) => logs.flushed) as unknown as Effect.Effect<void, never, EngineServices>)

const prunedAt = (server: TestServer, at: number) =>
  server.run(
    Effect.gen(function*() {
      yield* TestClock.setTime(at)
      return yield* (yield* RequestLogs).prune()
    }).pipe(Effect.provide(TestContext.TestContext)) as unknown as Effect.Effect<number, never, EngineServices>
  )

const day = 86_400_000

describeStores("request logs over HTTP", (variant) => {
  const server = useServer(variant)

  /** Every line the key sees (all pages), after what was recorded is written. */
  const linesOf = async (key: string, query = ""): Promise<Array<Line>> => {
    await flushed(server())
    const all: Array<Line> = []
    let cursor: string | null = null
    do {
      const res = await rawFor(server(), key).get(`/request_logs?limit=100${query}${cursor === null ? "" : `&cursor=${cursor}`}`)
      expect(res.status, res.text).toBe(200)
      all.push(...res.json.items)
      cursor = res.json.next_cursor
    } while (cursor !== null)
    return all
  }

  it("a request is a line with its fields; never its body, query, key or a card; failed authentication makes none", async () => {
    const account = await server().createAccount()
    const raw = rawFor(server(), account.test.key)
    const created = await raw.post("/customers", { email: "layla.private@example.ae", name: "Layla" }, {
      headers: { "idempotency-key": "create-layla-1", "x-request-id": "shop-req-0001" }
    })
    expect(created.status, created.text).toBe(200)
    expect(created.headers.get("x-request-id")).toBe("shop-req-0001")
    const listed = await raw.get("/payments?customer_id=cus_0123456789abcdef0123456789abcdef&limit=5")
    expect(listed.status).toBe(200)
    const missing = await raw.get("/payments/pay_0123456789abcdef0123456789abcdef")
    expectError(missing, 404, "NOT_FOUND")
    const refused = await raw.post("/products", { name: "Card 4242424242424242", price: -1, currency: "AED" })
    expectError(refused, 400, "INVALID_REQUEST")
    expect((await rawFor(server(), `${account.test.key}x`).get("/account")).status).toBe(401)

    const lines = await linesOf(account.test.key)
    await linesOf(account.test.key)
    // Newest first; the 401 is nobody's line, and reading the logs is none either.
    const mine = await linesOf(account.test.key)
    expect(mine).toEqual(lines)
    expect(mine.map((l) => [l.method, l.path, l.status, l.error_code])).toEqual([
      ["POST", "/api/v1/products", 400, "INVALID_REQUEST"],
      ["GET", "/api/v1/payments/pay_0123456789abcdef0123456789abcdef", 404, "NOT_FOUND"],
      ["GET", "/api/v1/payments", 200, null],
      ["POST", "/api/v1/customers", 200, null]
    ])
    const line = mine[3]!
    expect(Object.keys(line).sort()).toEqual([
      "created_at", "duration_ms", "error_code", "idempotency_key", "key_id", "livemode", "method", "object", "path",
      "request_id", "request_log_id", "status"
    ])
    expect(line).toMatchObject({
      object: "request_log",
      request_id: "shop-req-0001",
      idempotency_key: "create-layla-1",
      key_id: account.test.issued.key_id,
      livemode: false
    })
    expect(line.request_log_id).toMatch(/^log_[0-9a-f]{32}$/)
    expect(line.duration_ms).toBeGreaterThan(0)
    expect(Date.parse(line.created_at)).toBeLessThanOrEqual(Date.now())
    // A request id the server made is the one it answered with.
    expect(mine[1]!.request_id).toBe(missing.headers.get("x-request-id"))
    expect(mine[1]!.request_id).toMatch(/^req_[a-z2-7]{26}$/)
    const text = JSON.stringify(lines)
    for (const secret of ["layla.private", "customer_id=", "limit=5", account.test.key, "4242424242424242", "Layla"]) {
      expect(text).not.toContain(secret)
    }
  })

  it("a request the router refuses (no such path, a method it does not take) is its key's line too; a bad key's is nobody's", async () => {
    const account = await server().createAccount()
    const raw = rawFor(server(), account.test.key)
    expectError(await raw.get("/paymnets"), 404, "NOT_FOUND")
    const method = await raw.send("DELETE", "/payments")
    expect(method.status, method.text).toBe(405)
    expect((await rawFor(server(), `${account.test.key}x`).get("/paymnets")).status).toBe(404)
    expect((await rawFor(server()).get("/paymnets")).status).toBe(404)
    const lines = await linesOf(account.test.key)
    expect(lines.map((l) => [l.method, l.path, l.status, l.error_code, l.key_id])).toEqual([
      ["DELETE", "/api/v1/payments", 405, method.json.code, account.test.issued.key_id],
      ["GET", "/api/v1/paymnets", 404, "NOT_FOUND", account.test.issued.key_id]
    ])
  })

  it("fils listen's reads of the event list make no lines (it says so in a header); its other requests, and others', do", async () => {
    const account = await server().createAccount()
    const raw = rawFor(server(), account.test.key)
    const asListen = { headers: { "fils-client": "listen" } }
    expect((await raw.get("/events?limit=100", asListen)).status).toBe(200)
    expect((await raw.get("/events", asListen)).status).toBe(200)
    expect((await raw.get("/account", asListen)).status).toBe(200)
    expect((await raw.get("/events?limit=5")).status).toBe(200)
    expect((await raw.get("/events?limit=5", { headers: { "fils-client": "another" } })).status).toBe(200)
    const lines = await linesOf(account.test.key)
    expect(lines.map((l) => [l.method, l.path])).toEqual([
      ["GET", "/api/v1/events"],
      ["GET", "/api/v1/events"],
      ["GET", "/api/v1/account"]
    ])
  })

  it("a key sees its own account's lines of its own mode", async () => {
    const one = await server().createAccount()
    const two = await server().createAccount()
    await rawFor(server(), one.test.key).get("/account", { headers: { "x-request-id": "one-test" } })
    await rawFor(server(), one.live.key).get("/account", { headers: { "x-request-id": "one-live" } })
    await rawFor(server(), two.test.key).get("/account", { headers: { "x-request-id": "two-test" } })
    const ids = async (key: string) => (await linesOf(key, "&path=/api/v1/account")).map((l) => l.request_id)
    expect(await ids(one.test.key)).toEqual(["one-test"])
    expect(await ids(one.live.key)).toEqual(["one-live"])
    expect(await ids(two.test.key)).toEqual(["two-test"])
    expect((await linesOf(one.live.key)).every((l) => l.livemode === true)).toBe(true)
  })

  it("filters by status, path, key, request id and time, and pages with a cursor that belongs to its filters", async () => {
    const account = await server().createAccount()
    const raw = rawFor(server(), account.test.key)
    const before = new Date().toISOString()
    for (let i = 0; i < 3; i++) expect((await raw.get("/account", { headers: { "x-request-id": `acct-${i}` } })).status).toBe(200)
    expectError(await raw.get("/products/pdt_0123456789abcdef0123456789abcdef"), 404, "NOT_FOUND")
    expectError(await raw.patch("/products/pdt_0123456789abcdef0123456789abcdef", { name: "" }), 400, "INVALID_REQUEST")
    const after = new Date(Date.now() + 1).toISOString()
    const paths = async (query: string) =>
      (await linesOf(account.test.key, query)).map((l) => `${l.method} ${l.status}`)

    expect(await paths("&status=4xx")).toEqual(["PATCH 400", "GET 404"])
    expect(await paths("&status=404")).toEqual(["GET 404"])
    expect(await paths("&status=2xx&path=/api/v1/account")).toEqual(["GET 200", "GET 200", "GET 200"])
    expect(await paths("&path=/api/v1/products")).toEqual(["PATCH 400", "GET 404"])
    expect(await paths(`&key_id=${account.test.issued.key_id}&path=/api/v1/products`)).toEqual(["PATCH 400", "GET 404"])
    expect(await paths("&key_id=key_0123456789abcdef0123456789abcdef")).toEqual([])
    expect((await linesOf(account.test.key, "&request_id=acct-1")).map((l) => l.request_id)).toEqual(["acct-1"])
    expect(await paths(`&since=${encodeURIComponent(after)}`)).toEqual([])
    expect(await paths(`&until=${encodeURIComponent(before)}`)).toEqual([])
    expect((await paths(`&since=${encodeURIComponent(before)}&until=${encodeURIComponent(after)}`)).length).toBe(5)

    // Pages of two, newest first, none repeated.
    const seen: Array<string> = []
    let cursor: string | null = null
    do {
      const res = await raw.get(`/request_logs?path=/api/v1/account&limit=2${cursor === null ? "" : `&cursor=${cursor}`}`)
      expect(res.status, res.text).toBe(200)
      expect(res.json.items.length).toBeLessThanOrEqual(2)
      seen.push(...res.json.items.map((l: Line) => l.request_id))
      cursor = res.json.next_cursor
      if (cursor !== null) expectError(await raw.get(`/request_logs?status=4xx&cursor=${cursor}`), 400, "INVALID_REQUEST")
    } while (cursor !== null)
    expect(seen).toEqual(["acct-2", "acct-1", "acct-0"])

    for (const bad of ["status=4x", "status=600", "path=api", "since=yesterday", "limit=0", "request_id=%20x"]) {
      expectError(await raw.get(`/request_logs?${bad}`), 400, "INVALID_REQUEST")
    }
  })

  it("lines older than the retention (7 days) are pruned, by the clock", async () => {
    const account = await server().createAccount()
    await rawFor(server(), account.test.key).get("/account")
    await flushed(server())
    const count = async () => (await linesOf(account.test.key, "&path=/api/v1/account")).length
    expect(await count()).toBe(1)
    const now = Date.now()
    await prunedAt(server(), now + 6 * day)
    expect(await count()).toBe(1)
    expect(await prunedAt(server(), now + 7 * day + 60_000)).toBeGreaterThanOrEqual(1)
    expect(await count()).toBe(0)
  })

  it("events carry the request that caused them; charges gathered from concurrent requests each carry their own", async () => {
    const account = await server().createAccount()
    const raw = rawFor(server(), account.test.key)
    const plan = await raw.post("/products", { name: "Beans club", price: 5000, currency: "AED", billing: "recurring", billing_interval: "month" })
    const subscriptions: Array<string> = []
    for (let i = 0; i < 2; i++) {
      const session = await raw.post("/checkout_sessions", {
        product_cart: [{ product_id: plan.json.product_id }],
        return_url: "https://shop.example/done"
      })
      expect(await payOnPage(server(), session.json.session_id, "4242424242424242")).toBe(303)
      subscriptions.push((await raw.get(`/checkout_sessions/${session.json.session_id}`)).json.subscription_id)
    }
    const charged = await Promise.all(subscriptions.map((id, i) =>
      raw.post(`/subscriptions/${id}/charge`, { product_price: 1000 + i }, { headers: { "x-request-id": `charge-${i}` } })
    ))
    for (const res of charged) expect(res.status, res.text).toBe(200)
    const cancelled = await raw.patch(`/subscriptions/${subscriptions[0]}`, { status: "cancelled" }, { headers: { "x-request-id": "cancel-0" } })
    expect(cancelled.status, cancelled.text).toBe(200)

    const events = async (query: string) => (await raw.get(`/events?limit=100${query}`)).json.items as Array<Line>
    for (const [i, res] of charged.entries()) {
      const caused = await events(`&request_id=charge-${i}`)
      expect(caused.map((e) => [e.type, e.data.payment_id, e.request_id])).toEqual([["payment.succeeded", res.json.payment_id, `charge-${i}`]])
    }
    expect((await events("&request_id=cancel-0")).map((e) => [e.type, e.data.subscription_id])).toEqual([
      ["subscription.cancelled", subscriptions[0]]
    ])
    // What the customer caused on the hosted page is no API request's.
    const started = (await events("&type=subscription.active")).filter((e) => subscriptions.includes(e.data.subscription_id))
    expect(started.map((e) => e.request_id)).toEqual([null, null])
    // And the request's line is found by the same id.
    expect((await linesOf(account.test.key, "&request_id=cancel-0")).map((l) => [l.method, l.status])).toEqual([["PATCH", 200]])
  })
})

describe("request logs: a full buffer drops lines rather than hold requests", () => {
  let server: TestServer
  let release: () => void = () => undefined
  const gate = new Promise<void>((resolve) => (release = resolve))
  let inserted = 0

  beforeAll(async () => {
    const store = await Effect.runPromise(makeStoreMemory)
    // The store takes each batch only once the gate opens: until then the writer is stuck on its first batch.
    const stuck = layerStore(Effect.succeed({
      ...store,
      requestLogs: {
        ...store.requestLogs,
        insertAll: (lines: Parameters<typeof store.requestLogs.insertAll>[0]) =>
          Effect.zipRight(Effect.promise(() => gate), Effect.zipRight(Effect.sync(() => (inserted += lines.length)), store.requestLogs.insertAll(lines)))
      }
    }))
    server = await startServer(stuck, { FILS_REQUEST_LOG_BUFFER: "3" })
  })

  afterAll(async () => {
    release()
    await server?.close()
  })

  const droppedNow = async () => {
    const text = await (await fetch(`${server.origin}/metrics`)).text()
    return Number(/^fils_request_logs_dropped_total (\d+)$/m.exec(text)?.[1] ?? "NaN")
  }

  it("every request is answered while the store is stuck; lines beyond the buffer are counted as dropped", async () => {
    const before = await droppedNow()
    const raw = rawFor(server, server.accountA.test.key)
    for (let i = 0; i < 10; i++) expect((await raw.get("/account", { headers: { "x-request-id": `stuck-${i}` } })).status).toBe(200)
    const dropped = (await droppedNow()) - before
    // The stuck write holds the first line and at most a buffer's worth taken with it, three more wait in the buffer:
    // the rest were dropped, and no request waited.
    expect(dropped).toBeGreaterThanOrEqual(3)
    release()
    await flushed(server)
    const kept = (await rawFor(server, server.accountA.test.key).get("/request_logs?limit=100&path=/api/v1/account")).json.items as Array<Line>
    expect(kept.length + dropped).toBe(10)
    expect(inserted).toBeGreaterThanOrEqual(kept.length)
  })
})
