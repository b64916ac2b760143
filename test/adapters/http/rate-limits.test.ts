/**
 * Rate limits (docs/decisions.md §8): requests per key per rolling minute with `RateLimit-*` headers on every
 * authenticated response, `429 RATE_LIMITED` with `Retry-After` past the limit, and failed authentications
 * throttled per client address.
 */
import { Effect, Redacted } from "effect"
import { request as httpRequest } from "node:http"
import { describe, expect, it } from "vitest"
import { Accounts } from "../../../src/application/Accounts.js"
import { type RawResponse, rawFor, type TestServer } from "../../support/server.js"
import { describeStores, expectError, useServer } from "../../support/httpSuite.js"

const int = (res: RawResponse, header: string): number => {
  const value = res.headers.get(header)
  expect(value, `${header} on ${res.status} ${res.text.slice(0, 120)}`).toMatch(/^\d+$/)
  return Number(value)
}

const expectRateHeaders = (res: RawResponse, limit: number) => {
  expect(int(res, "ratelimit-limit")).toBe(limit)
  const remaining = int(res, "ratelimit-remaining")
  expect(remaining).toBeLessThanOrEqual(limit)
  expect(int(res, "ratelimit-reset")).toBeLessThanOrEqual(60)
  return remaining
}

/** A GET from a chosen local address (any of 127.0.0.0/8 reaches the server), to act as another client. */
const getFrom = (server: TestServer, localAddress: string, path: string, key?: string) =>
  new Promise<RawResponse>((resolve, reject) => {
    const url = new URL(`${server.baseUrl}${path}`)
    const req = httpRequest({
      host: url.hostname,
      port: url.port,
      path: url.pathname + url.search,
      method: "GET",
      localAddress,
      headers: key === undefined ? {} : { authorization: `Bearer ${key}` }
    }, (res) => {
      let text = ""
      res.setEncoding("utf8")
      res.on("data", (chunk) => (text += chunk))
      res.on("end", () => {
        const headers = new Headers()
        for (const [name, value] of Object.entries(res.headers)) {
          if (typeof value === "string") headers.set(name, value)
        }
        let json: unknown
        try {
          json = JSON.parse(text)
        } catch {
          json = undefined
        }
        resolve({ status: res.statusCode ?? 0, headers, text, json })
      })
    })
    req.on("error", reject)
    req.end()
  })

describeStores("rate limits", (variant) => {
  describe("per key, FILS_RATE_LIMIT_PER_MIN=5", () => {
    const server = useServer(variant, { FILS_RATE_LIMIT_PER_MIN: "5" })

    it("accepts 5 requests counting down RateLimit-Remaining, then answers 429 RATE_LIMITED with Retry-After", async () => {
      const s = server()
      const shop = await s.createAccount()
      const raw = rawFor(s, shop.test.key)
      const remaining: Array<number> = []
      for (let i = 0; i < 5; i++) {
        const res = await raw.get("/products")
        expect(res.status, `request ${i + 1}`).toBe(200)
        remaining.push(expectRateHeaders(res, 5))
        expect(res.headers.get("retry-after")).toBeNull()
      }
      expect(remaining).toEqual([4, 3, 2, 1, 0])
      const sixth = await raw.get("/products")
      const message = expectError(sixth, 429, "RATE_LIMITED")
      expect(message.length).toBeGreaterThan(0)
      const retryAfter = sixth.headers.get("retry-after")
      expect(retryAfter).toMatch(/^\d+$/)
      expect(Number(retryAfter)).toBeGreaterThanOrEqual(1)
      expect(Number(retryAfter)).toBeLessThanOrEqual(60)
      expect(int(sixth, "ratelimit-reset")).toBe(Number(retryAfter))
      expect(expectRateHeaders(sixth, 5)).toBe(0)
      // still refused, whatever the endpoint
      expectError(await raw.post("/products", { name: "x", price: 1, currency: "AED" }), 429, "RATE_LIMITED")
      expectError(await raw.get("/account"), 429, "RATE_LIMITED")
    })

    it("counts per key: the account's other keys keep their own budget", async () => {
      const s = server()
      const shop = await s.createAccount()
      for (let i = 0; i < 5; i++) expect((await rawFor(s, shop.test.key).get("/account")).status).toBe(200)
      expectError(await rawFor(s, shop.test.key).get("/account"), 429, "RATE_LIMITED")
      const live = await rawFor(s, shop.live.key).get("/account")
      expect(live.status).toBe(200)
      expect(expectRateHeaders(live, 5)).toBe(4)
      const second = await s.run(Effect.flatMap(Accounts, (a) => a.createKey(shop.accountId, "test")))
      const other = await rawFor(s, Redacted.value(second.secret)).get("/account")
      expect(other.status).toBe(200)
      expect(expectRateHeaders(other, 5)).toBe(4)
    })

    it("does not run a refused request", async () => {
      const s = server()
      const shop = await s.createAccount()
      const raw = rawFor(s, shop.test.key)
      for (let i = 0; i < 5; i++) expect((await raw.get("/account")).status).toBe(200)
      expectError(await raw.post("/products", { name: "Refused", price: 1, currency: "AED" }), 429, "RATE_LIMITED")
      expectError(
        await raw.post("/products", { name: "Refused", price: 1, currency: "AED" }, { headers: { "idempotency-key": "k1" } }),
        429,
        "RATE_LIMITED"
      )
      const second = await s.run(Effect.flatMap(Accounts, (a) => a.createKey(shop.accountId, "test")))
      const listed = await rawFor(s, Redacted.value(second.secret)).get("/products")
      expect(listed.json.items).toEqual([])
    })

    it("counts bad requests and not-found answers too, with the headers on them", async () => {
      const s = server()
      const shop = await s.createAccount()
      const raw = rawFor(s, shop.test.key)
      const responses = [
        await raw.get(`/products/pdt_${"0".repeat(32)}`),
        await raw.post("/products", { name: "" }),
        await raw.get("/products?limit=0"),
        await raw.post("/products", "{"),
        await raw.post("/products", { name: "x", price: 1, currency: "USD" })
      ]
      expect(responses.map((r) => r.status)).toEqual([404, 400, 400, 400, 400])
      expect(responses.map((r) => expectRateHeaders(r, 5))).toEqual([4, 3, 2, 1, 0])
      expectError(await raw.get("/account"), 429, "RATE_LIMITED")
    })
  })

  describe("headers on every authenticated response", () => {
    const server = useServer(variant, { FILS_RATE_LIMIT_PER_MIN: "1000" })

    it("sends RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset on success and on errors", async () => {
      const s = server()
      const shop = await s.createAccount()
      const raw = rawFor(s, shop.test.key)
      const created = await raw.post("/products", { name: "P", price: 1, currency: "AED" })
      const customer = await raw.post("/customers", { email: "c@example.ae" })
      const product = `/products/${created.json.product_id}`
      const person = `/customers/${customer.json.customer_id}`
      const key = { headers: { "idempotency-key": "same" } }
      const calls: ReadonlyArray<readonly [number, () => Promise<RawResponse>]> = [
        [200, () => raw.get("/account")],
        [200, () => raw.get("/products")],
        [200, () => raw.get(product)],
        [200, () => raw.patch(product, { name: "Q" })],
        [200, () => raw.get("/customers")],
        [200, () => raw.get(person)],
        [200, () => raw.patch(person, { name: "C" })],
        [404, () => raw.get("/products/pdt_x")],
        [404, () => raw.patch(`/customers/cus_${"0".repeat(32)}`, { name: "C" })],
        [400, () => raw.post("/products", { bad: true })],
        [400, () => raw.get("/customers?limit=1000")],
        [200, () => raw.post("/products", { name: "P", price: 1, currency: "AED" }, key)],
        [200, () => raw.post("/products", { name: "P", price: 1, currency: "AED" }, key)], // replayed
        [422, () => raw.post("/products", { name: "P2", price: 1, currency: "AED" }, key)]
      ]
      expect(expectRateHeaders(created, 1000)).toBe(999)
      expect(expectRateHeaders(customer, 1000)).toBe(998)
      let expected = 997
      for (const [status, call] of calls) {
        const res = await call()
        expect(res.status, res.text.slice(0, 200)).toBe(status)
        expect(expectRateHeaders(res, 1000)).toBe(expected--)
      }
    })
  })

  describe("failed authentications per address, FILS_AUTH_FAILURES_PER_MIN=3", () => {
    const server = useServer(variant, { FILS_AUTH_FAILURES_PER_MIN: "3" })

    it("answers 429 RATE_LIMITED with Retry-After once an address spent its failures; other addresses are not affected", async () => {
      const s = server()
      const address = "127.0.0.1"
      for (let i = 0; i < 3; i++) {
        const res = await getFrom(s, address, "/products", `sk_test_${"x".repeat(30)}${i}`)
        expectError(res, 401, "UNAUTHORIZED")
      }
      for (let i = 0; i < 3; i++) {
        const res = await getFrom(s, address, "/products", `sk_test_${"y".repeat(30)}${i}`)
        expectError(res, 429, "RATE_LIMITED")
        const retryAfter = res.headers.get("retry-after")
        expect(retryAfter).toMatch(/^\d+$/)
        expect(Number(retryAfter)).toBeGreaterThanOrEqual(1)
        expect(Number(retryAfter)).toBeLessThanOrEqual(60)
      }
      expectError(await getFrom(s, address, "/products"), 429, "RATE_LIMITED")
      // The limit stops guessing: a valid key from that very address is never refused by it.
      for (let i = 0; i < 3; i++) {
        const valid = await getFrom(s, address, "/products", s.accountA.test.key)
        expect(valid.status, valid.text).toBe(200)
        expect(valid.headers.get("retry-after")).toBeNull()
      }
      expectError(await getFrom(s, address, "/products", `sk_test_${"w".repeat(32)}`), 429, "RATE_LIMITED")
      // another client address still gets a plain 401 for a bad key, and in with a good one
      expectError(await getFrom(s, "127.0.0.2", "/products", `sk_test_${"z".repeat(32)}`), 401, "UNAUTHORIZED")
      const ok = await getFrom(s, "127.0.0.3", "/products", s.accountA.test.key)
      expect(ok.status, ok.text).toBe(200)
    })
  })
})
