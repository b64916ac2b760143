/**
 * `Idempotency-Key` on POST (docs/decisions.md §8): scope (account, mode, key); a retry with the same request replays the
 * first response with `Idempotent-Replayed: true`; other parameters are 422; a retry while the first runs is 409.
 */
import { Effect, Layer } from "effect"
import { randomUUID } from "node:crypto"
import { afterEach, expect, it } from "vitest"
import { Store, layerStore, type Repositories } from "../../../src/ports/Store.js"
import { call, clientFor, type RawResponse, rawFor, type TestServer } from "../../support/server.js"
import { describeStores, expectError, useServer } from "../../support/httpSuite.js"

const withKey = (key: string) => ({ headers: { "idempotency-key": key } })

/** The products of a principal with this exact name (every test uses unique names). */
const productsNamed = async (server: TestServer, apiKey: string, name: string) => {
  const res = await rawFor(server, apiKey).get("/products?limit=100")
  expect(res.status).toBe(200)
  return (res.json.items as Array<any>).filter((p) => p.name === name)
}

const expectReplay = (first: RawResponse, again: RawResponse) => {
  expect(again.status).toBe(first.status)
  expect(again.text).toBe(first.text)
  expect(again.headers.get("idempotent-replayed")).toBe("true")
  expect(again.headers.get("content-type")).toMatch(/^application\/json/)
}

describeStores("idempotency over HTTP", (variant) => {
  const server = useServer(variant)
  const keyA = () => server().accountA.test.key

  it("replays the first response for the same key and body, and creates one object", async () => {
    const s = server()
    const name = `Idem ${randomUUID()}`
    const key = randomUUID()
    const raw = rawFor(s, keyA())
    const first = await raw.post("/products", { name, price: 500, currency: "AED" }, withKey(key))
    expect(first.status, first.text).toBe(200)
    expect(first.headers.get("idempotent-replayed")).toBeNull()
    for (let i = 0; i < 3; i++) {
      expectReplay(first, await raw.post("/products", { name, price: 500, currency: "AED" }, withKey(key)))
    }
    // the same JSON with its fields in another order and other whitespace is the same request
    const reordered = await raw.post("/products", `{ "currency": "AED",\n "price": 500, "name": ${JSON.stringify(name)} }`, withKey(key))
    expectReplay(first, reordered)
    const found = await productsNamed(s, keyA(), name)
    expect(found.map((p) => p.product_id)).toEqual([first.json.product_id])
    expect(found[0]).toStrictEqual(first.json)
  })

  it("works with the typed client", async () => {
    const s = server()
    const client = await clientFor(s, keyA())
    const key = randomUUID()
    const name = `Typed ${randomUUID()}`
    const a = await call(client.products.create({ payload: { name, price: 1, currency: "AED" }, headers: { "idempotency-key": key } }))
    const b = await call(client.products.create({ payload: { name, price: 1, currency: "AED" }, headers: { "idempotency-key": key } }))
    expect(b.product_id).toBe(a.product_id)
    expect(await productsNamed(s, keyA(), name)).toHaveLength(1)
  })

  it("refuses the same key with a different body with 422 IDEMPOTENCY_KEY_REUSED, creating nothing", async () => {
    const s = server()
    const key = randomUUID()
    const name = `Reuse ${randomUUID()}`
    const raw = rawFor(s, keyA())
    const first = await raw.post("/products", { name, price: 500, currency: "AED" }, withKey(key))
    expect(first.status).toBe(200)
    const bodies = [
      { name, price: 501, currency: "AED" },
      { name: `${name} changed`, price: 500, currency: "AED" },
      { name, price: 500, currency: "AED", description: "" }
    ]
    for (const body of bodies) {
      const res = await raw.post("/products", body, withKey(key))
      expectError(res, 422, "IDEMPOTENCY_KEY_REUSED")
      expect(res.headers.get("idempotent-replayed")).toBeNull()
    }
    // the same key on another endpoint is another request too
    expectError(await raw.post("/customers", { email: "k@example.ae" }, withKey(key)), 422, "IDEMPOTENCY_KEY_REUSED")
    expect(await productsNamed(s, keyA(), `${name} changed`)).toEqual([])
    // and the original is still replayed
    expectReplay(first, await raw.post("/products", { name, price: 500, currency: "AED" }, withKey(key)))
  })

  it("accepts a key of 255 characters and refuses 256 with 400 INVALID_REQUEST", async () => {
    const s = server()
    const raw = rawFor(s, keyA())
    const name = `Long ${randomUUID()}`
    const ok = await raw.post("/products", { name, price: 1, currency: "AED" }, withKey("k".repeat(255)))
    expect(ok.status, ok.text).toBe(200)
    expectReplay(ok, await raw.post("/products", { name, price: 1, currency: "AED" }, withKey("k".repeat(255))))
    const message = expectError(
      await raw.post("/products", { name, price: 1, currency: "AED" }, withKey("k".repeat(256))),
      400,
      "INVALID_REQUEST"
    )
    expect(message.toLowerCase()).toContain("idempotency-key")
    expectError(await raw.post("/customers", { email: "l@example.ae" }, withKey("k".repeat(256))), 400, "INVALID_REQUEST")
    expect(await productsNamed(s, keyA(), name)).toHaveLength(1)
  })

  it("scopes keys per account and per mode", async () => {
    const s = server()
    const key = randomUUID()
    const name = `Scoped ${randomUUID()}`
    const body = { name, price: 700, currency: "AED" }
    const principals = [s.accountA.test, s.accountA.live, s.accountB.test, s.accountB.live]
    const responses: Array<RawResponse> = []
    for (const p of principals) {
      const res = await rawFor(s, p.key).post("/products", body, withKey(key))
      expect(res.status, `${p.name}: ${res.text}`).toBe(200)
      expect(res.headers.get("idempotent-replayed")).toBeNull()
      expect(res.json.livemode).toBe(p.livemode)
      responses.push(res)
    }
    expect(new Set(responses.map((r) => r.json.product_id)).size).toBe(4)
    for (const [i, p] of principals.entries()) {
      const found = await productsNamed(s, p.key, name)
      expect(found.map((x) => x.product_id)).toEqual([responses[i]!.json.product_id])
      expectReplay(responses[i]!, await rawFor(s, p.key).post("/products", body, withKey(key)))
    }
  })

  it("replays an error response (CURRENCY_NOT_SUPPORTED) too", async () => {
    const s = server()
    const key = randomUUID()
    const raw = rawFor(s, keyA())
    const name = `Dollar ${randomUUID()}`
    const first = await raw.post("/products", { name, price: 1, currency: "USD" }, withKey(key))
    expectError(first, 400, "CURRENCY_NOT_SUPPORTED")
    const again = await raw.post("/products", { name, price: 1, currency: "USD" }, withKey(key))
    expectError(again, 400, "CURRENCY_NOT_SUPPORTED")
    expectReplay(first, again)
    // the key holds that outcome: a corrected body is a different request
    expectError(await raw.post("/products", { name, price: 1, currency: "AED" }, withKey(key)), 422, "IDEMPOTENCY_KEY_REUSED")
    expect(await productsNamed(s, keyA(), name)).toEqual([])
  })

  it("does not keep a request refused before it ran (invalid body): the key stays usable", async () => {
    const s = server()
    const key = randomUUID()
    const raw = rawFor(s, keyA())
    const name = `Fixed ${randomUUID()}`
    expectError(await raw.post("/products", { name, price: "1", currency: "AED" }, withKey(key)), 400, "INVALID_REQUEST")
    const fixed = await raw.post("/products", { name, price: 1, currency: "AED" }, withKey(key))
    expect(fixed.status, fixed.text).toBe(200)
    expect(fixed.headers.get("idempotent-replayed")).toBeNull()
    expect(await productsNamed(s, keyA(), name)).toHaveLength(1)
  })

  it("replays customer creation", async () => {
    const s = server()
    const key = randomUUID()
    const email = `${randomUUID()}@example.ae`
    const raw = rawFor(s, keyA())
    const first = await raw.post("/customers", { email, name: "Once" }, withKey(key))
    expect(first.status).toBe(200)
    expectReplay(first, await raw.post("/customers", { name: "Once", email }, withKey(key)))
    expectError(await raw.post("/customers", { email, name: "Twice" }, withKey(key)), 422, "IDEMPOTENCY_KEY_REUSED")
    const listed = await raw.get(`/customers?email=${encodeURIComponent(email)}`)
    expect(listed.json.items.map((c: any) => c.customer_id)).toEqual([first.json.customer_id])
  })

  it("RACE: 20 concurrent POSTs with one key create exactly one object; each answer is the same 200 or 409", async () => {
    const s = server()
    for (let round = 0; round < 3; round++) {
      const key = randomUUID()
      const name = `Race ${round} ${randomUUID()}`
      const body = { name, price: 100 + round, currency: "AED" }
      const responses = await Promise.all(
        Array.from({ length: 20 }, () => rawFor(s, keyA()).post("/products", body, withKey(key)))
      )
      const ok = responses.filter((r) => r.status === 200)
      const inUse = responses.filter((r) => r.status !== 200)
      expect(ok.length).toBeGreaterThanOrEqual(1)
      for (const r of inUse) expectError(r, 409, "IDEMPOTENCY_KEY_IN_USE")
      expect(new Set(ok.map((r) => r.text)).size, "every 200 carries the same body").toBe(1)
      expect(ok.filter((r) => r.headers.get("idempotent-replayed") === null)).toHaveLength(1)
      const found = await productsNamed(s, keyA(), name)
      expect(found).toHaveLength(1)
      expect(found[0].product_id).toBe(ok[0]!.json.product_id)
      // afterwards the key replays
      expectReplay(ok[0]!, await rawFor(s, keyA()).post("/products", body, withKey(key)))
    }
  })

  it("RACE: concurrent POSTs with one key and different bodies create at most one object", async () => {
    const s = server()
    const key = randomUUID()
    const name = `Mixed ${randomUUID()}`
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        rawFor(s, keyA()).post("/products", { name, price: i, currency: "AED" }, withKey(key)))
    )
    const created = responses.filter((r) => r.status === 200)
    expect(created).toHaveLength(1)
    for (const r of responses.filter((r) => r.status !== 200)) {
      expect([409, 422]).toContain(r.status)
      expect(Object.keys(r.json).sort()).toEqual(["code", "message"])
    }
    expect(await productsNamed(s, keyA(), name)).toHaveLength(1)
  })
})

/**
 * A gate on the products' writes for one product name: the request that inserts it waits (inside its
 * transaction, before its answer is written) until the test opens the gate. `arrived` resolves once it waits.
 */
interface Gate {
  readonly name: string
  readonly arrived: Promise<void>
  readonly open: () => void
  readonly reached: () => void
  readonly opened: Promise<void>
}
let gate: Gate | undefined

const armGate = (name: string): Gate => {
  let reached = () => {}
  let open = () => {}
  const arrived = new Promise<void>((resolve) => (reached = resolve))
  const opened = new Promise<void>((resolve) => (open = resolve))
  gate = { name, arrived, opened, open, reached }
  return gate
}

const withGate = (store: Layer.Layer<Store | Repositories>): Layer.Layer<Store | Repositories> =>
  layerStore(
    Effect.map(Store, (s) => ({
      ...s,
      idempotency: {
        ...s.idempotency,
        // A product created with a key is written with the key's answer (`UnitOfWork`): the gate holds the request
        // just before, its work done and nothing written.
        answerAll: (answers) =>
          Effect.suspend(() => {
            const g = gate
            const write = s.idempotency.answerAll(answers)
            if (g === undefined || !answers.some((a) => a.completion.response.body.includes(g.name))) return write
            g.reached()
            return Effect.zipRight(Effect.promise(() => g.opened), write)
          })
      }
    }))
  ).pipe(Layer.provide(store))

describeStores("idempotency over HTTP, a request held open", (variant) => {
  const server = useServer({ ...variant, store: async () => withGate(await variant.store()) })
  const keyA = () => server().accountA.test.key

  afterEach(() => {
    gate?.open()
    gate = undefined
  })

  it("a retry while the first request still runs is 409 IDEMPOTENCY_KEY_IN_USE; afterwards the first is replayed", async () => {
    const s = server()
    const raw = rawFor(s, keyA())
    const key = randomUUID()
    const name = `Held ${randomUUID()}`
    const body = { name, price: 700, currency: "AED" }
    const held = armGate(name)
    const first = raw.post("/products", body, withKey(key))
    await held.arrived
    // The first holds the key (and has created nothing yet): the same request again, twice, is refused.
    for (let i = 0; i < 2; i++) {
      const retry = await raw.post("/products", body, withKey(key))
      expectError(retry, 409, "IDEMPOTENCY_KEY_IN_USE")
      expect(retry.headers.get("idempotent-replayed")).toBeNull()
    }
    expect(await productsNamed(s, keyA(), name)).toHaveLength(0)
    // Another key is not held by it (in memory, whose transactions take turns, it is written once the held one is
    // through).
    const other = raw.post("/products", { ...body, name: `${name} other` }, withKey(randomUUID()))

    held.open()
    expect((await other).status).toBe(200)
    const done = await first
    expect(done.status, done.text).toBe(200)
    expect(done.json).toMatchObject({ object: "product", name, price: 700 })
    expect(done.headers.get("idempotent-replayed")).toBeNull()
    const replay = await raw.post("/products", body, withKey(key))
    expectReplay(done, replay)
    const found = await productsNamed(s, keyA(), name)
    expect(found.map((p) => p.product_id)).toEqual([done.json.product_id])
  })
})
