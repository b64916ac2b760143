/** Bearer authentication (docs/decisions.md §8): 401 UNAUTHORIZED with `WWW-Authenticate: Bearer`. */
import { Effect, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import { describe, expect, it } from "vitest"
import { Accounts } from "../../../src/application/Accounts.js"
import { type RawResponse, rawFor, request, type TestServer } from "../../support/server.js"
import { describeStores, expectError, useServer } from "../../support/httpSuite.js"

const expectUnauthorized = (res: RawResponse) => {
  expectError(res, 401, "UNAUTHORIZED")
  expect(res.headers.get("www-authenticate")).toMatch(/^Bearer\b/)
  expect(res.headers.get("ratelimit-limit")).toBeNull()
}

const withAuthorization = (server: TestServer, value: string, path = "/products") =>
  request(server, "GET", path, { headers: { authorization: value } })

const revoke = (server: TestServer, keyId: Parameters<Accounts["revokeKey"]>[0]) =>
  server.run(Effect.flatMap(Accounts, (a) => a.revokeKey(keyId)))

describeStores("authentication", (variant) => {
  const server = useServer(variant)

  it("refuses a request without a key", async () => {
    for (const path of ["/products", "/customers", "/account", `/products/pdt_${"0".repeat(32)}`]) {
      expectUnauthorized(await rawFor(server()).get(path))
    }
    expectUnauthorized(await rawFor(server()).post("/products", { name: "x", price: 1, currency: "AED" }))
  })

  it("refuses a malformed key", async () => {
    const s = server()
    const valid = s.accountA.test.key
    const values = [
      "",
      "Bearer",
      "Bearer ",
      "Bearer sk_test_short",
      `Bearer sk_prod_${"a".repeat(32)}`,
      `Bearer pk_test_${"a".repeat(32)}`,
      `Bearer ${valid}!`,
      `Bearer ${valid} extra`,
      `Bearer  ${valid}`,
      "Basic dXNlcjpwYXNzd29yZA==",
      valid // no scheme
    ]
    for (const value of values) expectUnauthorized(await withAuthorization(s, value))
  })

  it("refuses an unknown key, including a real key with the other mode's prefix", async () => {
    const s = server()
    expectUnauthorized(await withAuthorization(s, `Bearer sk_test_${randomBytes(24).toString("base64url")}`))
    expectUnauthorized(await withAuthorization(s, `Bearer sk_live_${randomBytes(24).toString("base64url")}`))
    const swapped = s.accountA.test.key.replace("sk_test_", "sk_live_")
    expectUnauthorized(await withAuthorization(s, `Bearer ${swapped}`))
  })

  it("accepts only the Bearer scheme", async () => {
    const s = server()
    expect((await withAuthorization(s, `Bearer ${s.accountA.test.key}`)).status).toBe(200)
    // a seven-character scheme that is not Bearer must not authenticate
    expectUnauthorized(await withAuthorization(s, `Digest ${s.accountA.test.key}`))
    expectUnauthorized(await withAuthorization(s, `Token: ${s.accountA.test.key}`))
  })

  it("authenticates before validating, so an unauthenticated caller learns nothing", async () => {
    const s = server()
    expectUnauthorized(await rawFor(s).post("/products", "{not json"))
    expectUnauthorized(await rawFor(s).post("/products", { unknown: true }))
    expectUnauthorized(await rawFor(s).get("/products/pdt_bad"))
    expectUnauthorized(await rawFor(s).get("/products?limit=0"))
  })

  it("refuses a revoked key at once; the account's other keys keep working", async () => {
    const s = server()
    const shop = await s.createAccount()
    expect((await rawFor(s, shop.test.key).get("/products")).status).toBe(200)
    const revoked = await revoke(s, shop.test.issued.key_id)
    expect(revoked.revoked_at).not.toBeNull()
    expectUnauthorized(await rawFor(s, shop.test.key).get("/products"))
    expectUnauthorized(await rawFor(s, shop.test.key).post("/products", { name: "x", price: 1, currency: "AED" }))
    expect((await rawFor(s, shop.live.key).get("/products")).status).toBe(200)
    // a new key for the same mode works immediately and sees the same data
    const created = await rawFor(s, shop.live.key).post("/products", { name: "Live", price: 1, currency: "AED" })
    const fresh = await s.run(Effect.flatMap(Accounts, (a) => a.createKey(shop.accountId, "live")))
    const listed = await rawFor(s, Redacted.value(fresh.secret)).get("/products")
    expect(listed.status).toBe(200)
    expect(listed.json.items.map((p: any) => p.product_id)).toEqual([created.json.product_id])
  })

  describe("with the key cache on (5 s)", () => {
    const cached = useServer(variant, { FILS_KEY_CACHE_TTL: "5 seconds" })
    it("refuses a revoked key at once even when the key was cached", async () => {
      const s = cached()
      const shop = await s.createAccount()
      for (let i = 0; i < 3; i++) expect((await rawFor(s, shop.test.key).get("/account")).status).toBe(200)
      await revoke(s, shop.test.issued.key_id)
      expectUnauthorized(await rawFor(s, shop.test.key).get("/account"))
      expect((await rawFor(s, shop.live.key).get("/account")).status).toBe(200)
    })
  })
})
