/**
 * Text over HTTP: lengths count characters (code points), text that would not survive storage unchanged
 * (lone surrogates, invalid UTF-8) is refused rather than altered, and every refusal speaks the merchant's language.
 */
import { expect, it } from "vitest"
import { rawFor, type TestAccount } from "../../support/server.js"
import { describeStores, expectError, useServer } from "../../support/httpSuite.js"

const product = (extra: Record<string, unknown>) => ({ name: "Beans", price: 6500, currency: "AED", ...extra })

describeStores("text in requests", (variant) => {
  const server = useServer(variant)
  let shop: TestAccount
  const raw = () => rawFor(server(), shop.test.key)
  const count = async (path: string) => (await raw().get(`${path}?limit=100`)).json.items.length as number

  it("counts characters, not UTF-16 units, for every length limit", async () => {
    shop = await server().createAccount()
    const emoji = (n: number) => "😀".repeat(n)
    const ok = await raw().post("/products", product({ name: emoji(200), description: emoji(5000), metadata: { [emoji(40)]: emoji(500) } }))
    expect(ok.status, ok.text).toBe(200)
    expect(ok.json.name).toBe(emoji(200))
    expect((await raw().get(`/products/${ok.json.product_id}`)).json.metadata).toStrictEqual({ [emoji(40)]: emoji(500) })
    for (const bad of [{ name: emoji(201) }, { description: emoji(5001) }, { metadata: { [emoji(41)]: "v" } }, { metadata: { k: emoji(501) } }]) {
      expectError(await raw().post("/products", product(bad)), 400, "INVALID_REQUEST")
    }
    const customer = await raw().post("/customers", { email: "emoji@example.ae", name: emoji(200) })
    expect(customer.status, customer.text).toBe(200)
    expectError(await raw().post("/customers", { email: "emoji@example.ae", name: emoji(201) }), 400, "INVALID_REQUEST")
    const hook = await raw().post("/webhooks", { url: "http://127.0.0.1:9/hook", description: emoji(5000) })
    expect(hook.status, hook.text).toBe(200)
    expectError(await raw().post("/webhooks", { url: "http://127.0.0.1:9/hook", description: emoji(5001) }), 400, "INVALID_REQUEST")
  })

  it("refuses a lone surrogate in any string, changing nothing", async () => {
    const before = await count("/products")
    for (const body of [
      product({ name: "Beans \ud800" }),
      product({ description: "\udfff" }),
      product({ metadata: { k: "v\ud83d" } }),
      product({ metadata: { ["k\udc00"]: "v" } })
    ]) {
      const res = await raw().post("/products", body)
      expectError(res, 400, "INVALID_REQUEST")
      expect(res.json.message).toMatch(/surrogate/)
    }
    expectError(await raw().post("/customers", { email: "s@example.ae", name: "\ud800" }), 400, "INVALID_REQUEST")
    expect(await count("/products")).toBe(before)
    // A pair sent as escapes is a character like any other.
    const pair = await raw().post("/products", JSON.stringify(product({ name: "x" })).replace('"x"', '"\\ud83d\\ude00"'))
    expect(pair.status, pair.text).toBe(200)
    expect(pair.json.name).toBe("😀")
  })

  it("refuses a '__proto__' key (spelled out or escaped) rather than dropping it, changing nothing", async () => {
    const before = await count("/products")
    const made = (await raw().post("/products", product({ metadata: { a: "1" } }))).json
    for (const [method, path, body] of [
      ["post", "/products", '{"name":"p","price":1,"currency":"AED","metadata":{"__proto__":"x","b":"c"}}'],
      ["post", "/products", '{"name":"p","price":1,"currency":"AED","metadata":{"\\u005f_proto__":"x"}}'],
      ["post", "/customers", '{"email":"proto@example.ae","metadata":{"__proto__":"x"}}'],
      ["patch", `/products/${made.product_id}`, '{"metadata":{"__proto__":"x"}}']
    ] as const) {
      const res = method === "post" ? await raw().post(path, body) : await raw().patch(path, body)
      expectError(res, 400, "INVALID_REQUEST")
      expect(res.json.message).toMatch(/__proto__/)
    }
    expect(await count("/products")).toBe(before + 1)
    expect((await raw().get(`/products/${made.product_id}`)).json.metadata).toStrictEqual({ a: "1" })
    // A key that merely contains the word is text like any other.
    const kept = await raw().post("/products", product({ metadata: { proto: "x", __proto: "y" } }))
    expect(kept.status, kept.text).toBe(200)
    expect(kept.json.metadata).toStrictEqual({ proto: "x", __proto: "y" })
  })

  it("refuses a key given twice in one object (spelled out or escaped) rather than keeping the last, changing nothing", async () => {
    const before = await count("/products")
    const made = (await raw().post("/products", product({ metadata: { a: "1" } }))).json
    for (const [method, path, body, key] of [
      ["post", "/products", '{"name":"p","currency":"AED","price":100000,"price":1}', "price"],
      ["post", "/products", '{"name":"p","price":1,"currency":"AED","metadata":{"k":"a", "k" :"b"}}', "k"],
      ["post", "/products", '{"name":"p","price":1,"currency":"AED","metadata":{"k":"a","\\u006b":"b"}}', "k"],
      ["post", "/checkout_sessions", `{"product_cart":[{"product_id":"${made.product_id}","quantity":1,"quantity":2}]}`, "quantity"],
      ["patch", `/products/${made.product_id}`, '{"metadata":{"a":"2"},"metadata":{}}', "metadata"]
    ] as const) {
      const res = method === "post" ? await raw().post(path, body) : await raw().patch(path, body)
      expectError(res, 400, "INVALID_REQUEST")
      expect(res.json.message).toBe(`The request body gives the key '${key}' twice in one object: send each key once`)
    }
    expect(await count("/products")).toBe(before + 1)
    expect((await raw().get(`/products/${made.product_id}`)).json.metadata).toStrictEqual({ a: "1" })
    // The same key in two objects, or as a value, is no repeat.
    const kept = await raw().post("/products", '{"name":"name","price":1,"currency":"AED","metadata":{"name":"price","price":"name"}}')
    expect(kept.status, kept.text).toBe(200)
    expect(kept.json.metadata).toStrictEqual({ name: "price", price: "name" })
  })

  it("refuses a body that is not valid UTF-8, changing nothing", async () => {
    const before = await count("/products")
    const json = Buffer.from(JSON.stringify(product({ name: "Beans XX" })))
    for (const bytes of [[0xff], [0xc3], [0xed, 0xa0, 0x80], [0xf0, 0x9f, 0x98]]) {
      const body = Buffer.concat([json.subarray(0, json.indexOf("XX")), Buffer.from(bytes), json.subarray(json.indexOf("XX") + 2)])
      const res = await raw().post("/products", new Uint8Array(body))
      expectError(res, 400, "INVALID_REQUEST")
      expect(res.json.message).toBe("The request body is not valid UTF-8")
    }
    expect(await count("/products")).toBe(before)
    // U+FFFD sent as valid UTF-8 is kept as it was sent.
    const replacement = await raw().post("/products", new Uint8Array(Buffer.from(JSON.stringify(product({ name: "a\ufffdb" })))))
    expect(replacement.status, replacement.text).toBe(200)
    expect((await raw().get(`/products/${replacement.json.product_id}`)).json.name).toBe("a\ufffdb")
  })

  it("states every refusal in the merchant's words, naming the field and never a schema", async () => {
    const cases: Array<[string, string, unknown, RegExp]> = [
      ["post", "/products", product({ name: "" }), /^name must be 1 to 200 characters$/],
      ["post", "/products", product({ price: 1.5 }), /^price must be a whole number$/],
      ["post", "/products", product({ price: -1 }), /^price must be 0 or more$/],
      ["post", "/products", product({ price: "1" }), /^price must be a number$/],
      ["post", "/products", product({ status: "gone" }), /^status must be one of 'active', 'draft', 'archived'$/],
      ["post", "/products", product({ metadata: { k: 1 } }), /^metadata\.k must be a string$/],
      ["post", "/products", product({ metadata: [] }), /^metadata /],
      ["post", "/customers", { email: 5 }, /^email must be a string$/],
      ["post", "/webhooks", { url: "http://127.0.0.1:9/", disabled: "no" }, /^disabled must be true or false$/],
      ["post", "/webhooks", { url: "http://127.0.0.1:9/", event_types: "payment.succeeded" }, /^event_types must be a list$/],
      ["post", "/checkout_sessions", { product_cart: [] }, /^product_cart must list at least 1 item$/],
      ["get", "/products?status=zzz", undefined, /^status must be one of 'active', 'draft', 'archived'$/],
      // A whole number too large to be exact is refused for its size, not called fractional.
      ["post", "/products", product({ price: 9007199254740992 }), /^price must be from -9007199254740991 to 9007199254740991$/],
      ["post", "/products", product({ price: 1e20 }), /^price must be from -9007199254740991 to 9007199254740991$/],
      // A query parameter given twice is said to be, not called "not a string".
      ["get", "/products?limit=2&limit=3", undefined, /^limit may be given only once$/]
    ]
    for (const [method, path, body, expected] of cases) {
      const res = method === "get" ? await raw().get(path) : await raw().post(path, body)
      expectError(res, 400, "INVALID_REQUEST")
      expect(res.json.message, `${method} ${path} ${JSON.stringify(body)}`).toMatch(expected)
      expect(res.json.message).not.toMatch(/Expected|actual|Schema|[a-z][A-Z]|\b[A-Z][a-z]+[A-Z][A-Za-z]+\b/)
    }
    // An Idempotency-Key sent empty: its rule, as for one too long.
    for (const key of ["", "k".repeat(256)]) {
      const res = await raw().post("/products", product({}), { headers: { "idempotency-key": key } })
      expect(expectError(res, 400, "INVALID_REQUEST")).toBe("idempotency-key must be 1 to 255 characters")
    }
  })
})
