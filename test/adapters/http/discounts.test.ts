/**
 * `/api/v1/discounts` over a real HTTP server (docs/discounts.md, docs/api.md): the typed client creates, reads,
 * lists, changes and deletes discount codes; refusals are `{ code, message }` in the merchant's words (a taken code
 * 409 ALREADY_EXISTS, a bad amount or an unknown product 400), another account's or mode's discount is 404, a retry
 * under one Idempotency-Key creates one discount, and a checkout session takes `discount_code`. The HTTP layer is the
 * same whatever the store (the stores' own rules are tested on both in DiscountsStore.test.ts): memory only.
 */
import { DateTime, Effect, Either } from "effect"
import { describe, expect, it } from "vitest"
import { expectError, useServer } from "../../support/httpSuite.js"
import { call, clientFor, memoryVariant, rawFor } from "../../support/server.js"

const discountKeys = [
  "amount", "code", "created_at", "discount_id", "expires_at", "livemode", "metadata", "name", "object",
  "preserve_on_plan_change", "restricted_to", "subscription_cycles", "times_used", "type", "usage_limit"
]

describe("discounts over HTTP", () => {
  const server = useServer(memoryVariant)

  it("the typed client creates, reads, lists, updates and deletes; every field is present", async () => {
    const account = await server().createAccount()
    const client = await clientFor(server(), account.test.key)
    const product = await call(client.products.create({ payload: { name: "Beans", price: 5000, currency: "AED" }, headers: {} }))
    const created = await call(client.discounts.create({
      payload: { code: "Eid-25", type: "percentage", amount: 2500, restricted_to: [product.product_id], subscription_cycles: 2 },
      headers: {}
    }))
    expect(created).toMatchObject({ object: "discount", code: "Eid-25", type: "percentage", amount: 2500, times_used: 0, livemode: false })
    const raw = await rawFor(server(), account.test.key).get(`/discounts/${created.discount_id}`)
    expect(Object.keys(raw.json).sort()).toEqual(discountKeys)
    expect(raw.json).toMatchObject({ usage_limit: null, expires_at: null, name: null, preserve_on_plan_change: false, metadata: {} })
    const read = await call(client.discounts.get({ path: { id: created.discount_id } }))
    expect(read.discount_id).toBe(created.discount_id)
    const second = await call(client.discounts.create({ payload: { type: "flat", amount: 1000 }, headers: {} }))
    const page = await call(client.discounts.list({ urlParams: { limit: 1 } }))
    expect(page.items.map((d) => d.discount_id)).toEqual([second.discount_id])
    expect(page.has_more).toBe(true)
    const next = await call(client.discounts.list({ urlParams: { limit: 1, cursor: page.next_cursor! } }))
    expect(next.items.map((d) => d.discount_id)).toEqual([created.discount_id])
    const updated = await call(client.discounts.update({
      path: { id: created.discount_id },
      payload: { usage_limit: 10, expires_at: DateTime.unsafeMake("2031-01-01T00:00:00.000Z"), name: "Eid" }
    }))
    expect(updated).toMatchObject({ usage_limit: 10, name: "Eid", code: "Eid-25" })
    expect(updated.expires_at === null ? null : DateTime.formatIso(updated.expires_at)).toBe("2031-01-01T00:00:00.000Z")
    expect(await call(client.discounts.delete({ path: { id: created.discount_id } }))).toEqual({
      object: "discount",
      discount_id: created.discount_id,
      deleted: true
    })
    const gone = await call(Effect.either(client.discounts.get({ path: { id: created.discount_id } })))
    expect(Either.isLeft(gone) && gone.left._tag).toBe("NotFound")
  })

  it("refuses in the merchant's words and changes nothing: a taken code (any case), a bad amount, an unknown product, another scope's discount", async () => {
    const account = await server().createAccount()
    const other = await server().createAccount()
    const raw = rawFor(server(), account.test.key)
    const created = await raw.post("/discounts", { code: "Ramadan", type: "flat", amount: 2000 })
    expect(created.status, created.text).toBe(200)
    expect(expectError(await raw.post("/discounts", { code: "RAMADAN", type: "flat", amount: 500 }), 409, "ALREADY_EXISTS"))
      .toBe("A discount with the code RAMADAN already exists in this mode (codes are compared ignoring case); choose another code")
    expect((await rawFor(server(), account.live.key).post("/discounts", { code: "ramadan", type: "flat", amount: 500 })).status).toBe(200)
    expect(expectError(await raw.post("/discounts", { type: "percentage", amount: 12000 }), 400, "INVALID_REQUEST"))
      .toBe("amount of a percentage discount is in basis points, 1 to 10000 (540 is 5.4 %, 10000 is 100 %)")
    expect(expectError(await raw.post("/discounts", { type: "flat", amount: 12.5 }), 400, "INVALID_REQUEST")).toContain("amount")
    expect(expectError(await raw.post("/discounts", { type: "flat", amount: 100, expires_at: "2031-02-30T00:00:00Z" }), 400, "INVALID_REQUEST"))
      .toContain("expires_at is not a date and time that exists")
    expect(expectError(await raw.post("/discounts", { type: "flat", amount: 100, code: "no spaces" }), 400, "INVALID_REQUEST"))
      .toContain("code")
    const theirs = (await rawFor(server(), other.test.key).post("/products", { name: "Tea", price: 100, currency: "AED" })).json
    expect(expectError(await raw.post("/discounts", { type: "flat", amount: 100, restricted_to: [theirs.product_id] }), 400, "INVALID_REQUEST"))
      .toBe(`restricted_to.0: no such product '${theirs.product_id}'`)
    expectError(await raw.post("/discounts", { type: "flat", amount: 100, colour: "red" }), 400, "INVALID_REQUEST")
    const id = created.json.discount_id
    for (const key of [other.test.key, account.live.key]) {
      expectError(await rawFor(server(), key).get(`/discounts/${id}`), 404, "NOT_FOUND")
      expectError(await rawFor(server(), key).patch(`/discounts/${id}`, { amount: 1 }), 404, "NOT_FOUND")
      expectError(await rawFor(server(), key).send("DELETE", `/discounts/${id}`), 404, "NOT_FOUND")
    }
    expectError(await raw.patch(`/discounts/${id}`, { type: "percentage" }), 400, "INVALID_REQUEST")
    expect((await raw.get(`/discounts/${id}`)).json).toMatchObject({ code: "Ramadan", type: "flat", amount: 2000 })
  })

  it("a retry under one Idempotency-Key creates one discount; a checkout session takes its code or says why not", async () => {
    const account = await server().createAccount()
    const raw = rawFor(server(), account.test.key)
    const body = { code: "Once", type: "flat", amount: 700, usage_limit: 1 }
    const first = await raw.post("/discounts", body, { headers: { "idempotency-key": "discount-once" } })
    const again = await raw.post("/discounts", body, { headers: { "idempotency-key": "discount-once" } })
    expect(first.status, first.text).toBe(200)
    expect(again.headers.get("idempotent-replayed")).toBe("true")
    expect(again.json.discount_id).toBe(first.json.discount_id)
    expect((await raw.get("/discounts")).json.items).toHaveLength(1)

    const product = (await raw.post("/products", { name: "Beans", price: 5000, currency: "AED" })).json
    const session = await raw.post("/checkout_sessions", { product_cart: [{ product_id: product.product_id, quantity: 2 }], discount_code: "once" })
    expect(session.status, session.text).toBe(200)
    expect(session.json).toMatchObject({
      total_amount: 9300,
      discounts: [{ discount_id: first.json.discount_id, code: "Once", type: "flat", amount: 700, subscription_cycles: null, amount_off: 700 }]
    })
    expect(expectError(await raw.post("/checkout_sessions", { product_cart: [{ product_id: product.product_id }], discount_code: "TWICE" }), 400, "INVALID_REQUEST"))
      .toBe("discount_code: no discount has the code 'TWICE'")
  })
})
