/** Routing errors and the error shape: every error, from every layer, is exactly `{ code, message }` JSON. */
import { Effect, Layer } from "effect"
import { afterEach, expect, it } from "vitest"
import { Store, layerStore, type Repositories } from "../../../src/ports/Store.js"
import { rawFor } from "../../support/server.js"
import { describeStores, expectError, useServer } from "../../support/httpSuite.js"

/** What `products.get` does for the product it is armed for: nothing special, die, or throw inside `Effect.sync`. */
let defect: { readonly productId: string; readonly how: "die" | "throw" } | undefined
const secret = "kaboom: relation internal_ledger at /srv/fils/adapters/sql/repos/products.ts:42 password=hunter2"

/** The real store, but one read (`products.get` of one product) is a defect instead of an answer. */
const withDefectiveRead = (store: Layer.Layer<Store | Repositories>): Layer.Layer<Store | Repositories> =>
  layerStore(
    Effect.map(Store, (s) => ({
      ...s,
      products: {
        ...s.products,
        get: (scope, id) =>
          Effect.suspend(() => {
            if (defect === undefined || defect.productId !== id) return s.products.get(scope, id)
            return defect.how === "die"
              ? Effect.die(new Error(secret))
              : Effect.sync(() => {
                throw new TypeError(secret)
              })
          })
      }
    }))
  ).pipe(Layer.provide(store))

describeStores("HTTP errors", (variant) => {
  const server = useServer(variant)

  it("answers an unknown route with 404 NOT_FOUND in the JSON error body, with or without a key", async () => {
    const s = server()
    const paths = [
      "/api/v1/nope",
      "/api/v1/products/pdt_00000000000000000000000000000000/prices",
      "/api/v2/products",
      "/",
      "/api",
      "/api/v1",
      "/robots.txt",
      "/api/v1/refunds"
    ]
    for (const path of paths) {
      expectError(await rawFor(s).get(path.startsWith("/api/") ? path : `${s.origin}${path}`), 404, "NOT_FOUND")
      expectError(
        await rawFor(s, s.accountA.test.key).get(path.startsWith("/api/") ? path : `${s.origin}${path}`),
        404,
        "NOT_FOUND"
      )
    }
    expectError(await rawFor(s).post("/api/v1/refunds", { amount: 1 }), 404, "NOT_FOUND")
  })

  it("answers a known path with the wrong method with 405 METHOD_NOT_ALLOWED", async () => {
    const s = server()
    const key = s.accountA.test.key
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["DELETE", "/products"],
      ["PUT", "/products"],
      ["PATCH", "/products"],
      ["POST", `/products/pdt_${"0".repeat(32)}`],
      ["DELETE", `/products/pdt_${"0".repeat(32)}`],
      ["PUT", `/customers/cus_${"0".repeat(32)}`],
      ["DELETE", "/customers"],
      ["POST", "/account"],
      ["PATCH", "/account"],
      ["PATCH", "/test_clocks"],
      ["PUT", `/test_clocks/clk_${"0".repeat(32)}`],
      ["DELETE", `/test_clocks/clk_${"0".repeat(32)}/advance`]
    ]
    for (const [method, path] of cases) {
      for (const k of [key, undefined]) {
        const res = await rawFor(s, k).send(method, path, { body: method === "DELETE" ? undefined : { name: "x" } })
        const message = expectError(res, 405, "METHOD_NOT_ALLOWED")
        expect(message).toContain(method)
      }
    }
    expectError(await rawFor(s).send("POST", `${s.origin}/health`), 405, "METHOD_NOT_ALLOWED")
  })

  it("gives every API error exactly { code, message } with a JSON content type and no internals", async () => {
    const s = server()
    const raw = rawFor(s, s.accountA.test.key)
    const cases = [
      [await rawFor(s).get("/products"), 401, "UNAUTHORIZED"],
      [await raw.get("/products/pdt_nope"), 404, "NOT_FOUND"],
      // An id past the router's length for a parameter, or one that does not decode, names nothing: not a 405.
      [await raw.get(`/products/pdt_${"a".repeat(200)}`), 404, "NOT_FOUND"],
      [await raw.get("/payments/%ZZ"), 404, "NOT_FOUND"],
      [await raw.get("/products?limit=0"), 400, "INVALID_REQUEST"],
      [await raw.post("/products", "{"), 400, "INVALID_REQUEST"],
      [await raw.post("/products", { name: "x", price: 1, currency: "USD" }), 400, "CURRENCY_NOT_SUPPORTED"],
      [await raw.post("/products", { name: "x", price: 1, currency: "AED", extra: 1 }), 400, "INVALID_REQUEST"],
      [await raw.post("/customers", { email: "bad" }), 400, "INVALID_REQUEST"],
      [await raw.send("DELETE", "/customers"), 405, "METHOD_NOT_ALLOWED"],
      [await raw.get("/unknown"), 404, "NOT_FOUND"]
    ] as const
    for (const [res, status, code] of cases) {
      const message = expectError(res, status, code)
      expect(message).not.toMatch(/_tag|HttpApiDecodeError|ParseError|at .*\.ts|Error:/)
    }
  })

  it("refuses NUL characters in bodies and query strings with 400, never a 500 from the store", async () => {
    const api = rawFor(server(), server().accountA.test.key)
    expectError(await api.post("/api/v1/customers", { email: "nul@example.ae", name: "a\u0000b" }), 400, "INVALID_REQUEST")
    expectError(await api.post("/api/v1/products", { name: "x", price: 1, currency: "AED", metadata: { k: "\u0000" } }), 400, "INVALID_REQUEST")
    expectError(await api.get("/api/v1/customers?email=a%00b"), 400, "INVALID_REQUEST")
    const list = await api.get("/api/v1/customers?email=nul@example.ae")
    expect(list.status).toBe(200)
    expect((list.json as { items: Array<unknown> }).items).toHaveLength(0)
  })

  it("names the offending field in validation messages", async () => {
    const raw = rawFor(server(), server().accountA.test.key)
    const price = expectError(await raw.post("/products", { name: "x", price: "1", currency: "AED" }), 400, "INVALID_REQUEST")
    expect(price).toContain("price")
    const limit = expectError(await raw.get("/products?limit=500"), 400, "INVALID_REQUEST")
    expect(limit).toContain("limit")
    const status = expectError(await raw.get("/products?status=gone"), 400, "INVALID_REQUEST")
    expect(status).toContain("status")
  })
})

describeStores("HTTP errors: a defect inside a request", (variant) => {
  const server = useServer({ ...variant, store: async () => withDefectiveRead(await variant.store()) })

  afterEach(() => {
    defect = undefined
  })

  it("answers 500 INTERNAL_ERROR as { code, message } with no stack and no defect text; the server keeps serving", async () => {
    const s = server()
    const raw = rawFor(s, s.accountA.test.key)
    const created = await raw.post("/products", { name: "Beans", price: 5000, currency: "AED" })
    expect(created.status, created.text).toBe(200)
    const id = created.json.product_id as string
    expect((await raw.get(`/products/${id}`)).status).toBe(200)
    for (const how of ["die", "throw"] as const) {
      defect = { productId: id, how }
      const res = await raw.get(`/products/${id}`)
      const message = expectError(res, 500, "INTERNAL_ERROR")
      for (const leak of ["kaboom", "internal_ledger", "hunter2", "/srv/", ".ts", "Error", "TypeError", "stack", "    at "]) {
        expect(res.text, how).not.toContain(leak)
      }
      expect(message).not.toMatch(/_tag|Cause|Die|defect/i)
      // Only the read that died: the rest of the API, and the same read once repaired, still answer.
      expect((await raw.get("/products")).status).toBe(200)
      defect = undefined
      const again = await raw.get(`/products/${id}`)
      expect(again.status, again.text).toBe(200)
      expect(again.json.product_id).toBe(id)
    }
  })
})
