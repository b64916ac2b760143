/**
 * Two servers on one store (docs/decisions.md §8, §9: any number of `fils serve` share one database): the rate limit,
 * revocations, idempotency keys and cursors hold across them.
 */
import { Effect, type Layer } from "effect"
import { randomUUID } from "node:crypto"
import { beforeAll, expect, it } from "vitest"
import { Accounts } from "../../../src/application/Accounts.js"
import { type Store, type Repositories } from "../../../src/ports/Store.js"
import { rawFor, type TestAccount } from "../../support/server.js"
import { describeStores, expectError, useServer } from "../../support/httpSuite.js"

describeStores("two servers sharing one store", (variant) => {
  let store: Layer.Layer<Store | Repositories> | undefined
  const shared = async () => (store ??= await variant.store())
  const config = { FILS_RATE_LIMIT_PER_MIN: "20", FILS_KEY_CACHE_TTL: "0 millis" }
  const one = useServer({ ...variant, store: shared }, config)
  const two = useServer({ ...variant, store: shared }, config)
  let shop: TestAccount

  beforeAll(async () => {
    shop = await one().createAccount()
  })

  it("enforces one rate limit per key across both servers", async () => {
    const [a, b] = [rawFor(one(), shop.test.key), rawFor(two(), shop.test.key)]
    const remaining: Array<string | null> = []
    for (let i = 0; i < 20; i++) {
      const res = await (i % 3 === 0 ? a : b).get("/account")
      expect(res.status).toBe(200)
      remaining.push(res.headers.get("ratelimit-remaining"))
    }
    expect(remaining).toEqual(Array.from({ length: 20 }, (_, i) => String(19 - i)))
    expectError(await b.get("/account"), 429, "RATE_LIMITED")
    expectError(await a.get("/account"), 429, "RATE_LIMITED")
  })

  it("shares objects, cursors and idempotency keys", async () => {
    const key = shop.live.key
    const created = await rawFor(one(), key).post("/products", { name: "Shared", price: 1, currency: "AED" })
    expect(created.status).toBe(200)
    const read = await rawFor(two(), key).get(`/products/${created.json.product_id}`)
    expect(read.json).toStrictEqual(created.json)
    const second = await rawFor(two(), key).post("/products", { name: "Shared 2", price: 1, currency: "AED" })
    const page = await rawFor(one(), key).get("/products?limit=1")
    expect(page.json.items[0].product_id).toBe(second.json.product_id)
    const next = await rawFor(two(), key).get(`/products?limit=1&cursor=${encodeURIComponent(page.json.next_cursor)}`)
    expect(next.json.items.map((p: any) => p.product_id)).toEqual([created.json.product_id])

    const idem = randomUUID()
    const body = { name: `Once ${idem}`, price: 1, currency: "AED" }
    const headers = { "idempotency-key": idem }
    const responses = await Promise.all([
      rawFor(one(), key).post("/products", body, { headers }),
      rawFor(two(), key).post("/products", body, { headers })
    ])
    const replay = await rawFor(two(), key).post("/products", body, { headers })
    const ok = [...responses, replay].filter((r) => r.status === 200)
    for (const r of [...responses, replay].filter((r) => r.status !== 200)) expectError(r, 409, "IDEMPOTENCY_KEY_IN_USE")
    expect(new Set(ok.map((r) => r.text)).size).toBe(1)
    expect(replay.status).toBe(200)
    expect(replay.headers.get("idempotent-replayed")).toBe("true")
    const again = await rawFor(one(), key).post("/products", { ...body, price: 2 }, { headers })
    expectError(again, 422, "IDEMPOTENCY_KEY_REUSED")
  })

  it("refuses a key revoked through the other server at once (key cache off)", async () => {
    const other = await two().createAccount()
    expect((await rawFor(one(), other.test.key).get("/account")).status).toBe(200)
    await two().run(Effect.flatMap(Accounts, (a) => a.revokeKey(other.test.issued.key_id)))
    const refused = await rawFor(one(), other.test.key).get("/account")
    expectError(refused, 401, "UNAUTHORIZED")
    expect(refused.headers.get("www-authenticate")).toMatch(/^Bearer/)
  })
})
