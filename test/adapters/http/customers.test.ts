/** `/api/v1/customers` over a real HTTP server, on both stores. */
import { expect, it } from "vitest"
import { call, clientFor, rawFor, type TestAccount } from "../../support/server.js"
import { describeStores, expectError, useServer } from "../../support/httpSuite.js"
import { businessJson } from "../../support/taxProfile.js"

const isoMillis = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

describeStores("customers over HTTP", (variant) => {
  const server = useServer(variant)
  const rawA = () => rawFor(server(), server().accountA.test.key)

  it("creates a customer with the typed client; optional fields are null", async () => {
    const client = await clientFor(server(), server().accountA.test.key)
    const customer = await call(client.customers.create({ payload: { email: "layla@example.ae" }, headers: {} }))
    expect(customer.customer_id).toMatch(/^cus_[0-9a-f]{32}$/)
    expect(customer).toMatchObject({
      object: "customer",
      email: "layla@example.ae",
      name: null,
      phone_number: null,
      metadata: {},
      livemode: false
    })
    const read = await call(client.customers.get({ path: { id: customer.customer_id } }))
    expect(read.email).toBe("layla@example.ae")
    const updated = await call(
      client.customers.update({ path: { id: customer.customer_id }, payload: { name: "Layla Haddad" } })
    )
    expect(updated.name).toBe("Layla Haddad")
    expect(updated.email).toBe("layla@example.ae")
  })

  it("answers exactly the documented fields", async () => {
    const res = await rawA().post("/customers", {
      email: "omar@example.ae",
      name: "Omar",
      phone_number: "+971501234567",
      metadata: { crm: "42" }
    })
    expect(res.status, res.text).toBe(200)
    expect(Object.keys(res.json).sort()).toEqual([
      "business",
      "created_at",
      "customer_id",
      "email",
      "livemode",
      "metadata",
      "name",
      "object",
      "phone_number",
      "test_clock_id"
    ])
    expect(res.json).toMatchObject({
      object: "customer",
      email: "omar@example.ae",
      name: "Omar",
      phone_number: "+971501234567",
      business: null,
      metadata: { crm: "42" },
      livemode: false
    })
    expect(res.json.created_at).toMatch(isoMillis)
  })

  it("attaches a test customer to a test clock (shown on it); test clocks are test mode only", async () => {
    const raw = rawA()
    const clock = await raw.post("/test_clocks", { frozen_time: "2030-01-31T09:00:00Z", name: "renewals" })
    expect(clock.status, clock.text).toBe(200)
    expect(clock.json).toEqual({
      object: "test_clock",
      test_clock_id: expect.stringMatching(/^clk_[0-9a-f]{32}$/),
      name: "renewals",
      frozen_time: "2030-01-31T09:00:00.000Z",
      status: "ready",
      advancing_to: null,
      livemode: false,
      created_at: expect.stringMatching(isoMillis)
    })
    const customer = await raw.post("/customers", { email: "clocked@example.ae", test_clock_id: clock.json.test_clock_id })
    expect(customer.status, customer.text).toBe(200)
    expect(customer.json.test_clock_id).toBe(clock.json.test_clock_id)
    expect((await raw.get(`/test_clocks/${clock.json.test_clock_id}`)).json).toEqual(clock.json)
    expect((await raw.get("/test_clocks")).json.items.map((c: { test_clock_id: string }) => c.test_clock_id)).toContain(clock.json.test_clock_id)
    const unknown = expectError(await raw.post("/customers", { email: "x@example.ae", test_clock_id: `clk_${"0".repeat(32)}` }), 400, "INVALID_REQUEST")
    expect(unknown).toContain("no such test clock")
    expectError(await raw.post(`/test_clocks/${clock.json.test_clock_id}/advance`, { frozen_time: "2029-12-31T00:00:00Z" }), 400, "INVALID_REQUEST")
    expectError(await raw.post("/test_clocks", { frozen_time: "1999-12-31T23:59:59Z" }), 400, "INVALID_REQUEST")
    // A date that does not exist is refused, never moved to the one `Date` would make of it.
    for (const frozen_time of ["2030-02-30T00:00:00Z", "2030-04-31T00:00:00Z", "2030-01-31T24:00:00Z"]) {
      expect(expectError(await raw.post("/test_clocks", { frozen_time }), 400, "INVALID_REQUEST")).toContain("frozen_time is not a date and time that exists")
      expectError(await raw.post(`/test_clocks/${clock.json.test_clock_id}/advance`, { frozen_time }), 400, "INVALID_REQUEST")
    }
    // Nor is a time read by guessing: ISO 8601 with its zone, or refused.
    for (const frozen_time of ["2030-2-1", "2030-02-01", "2030-02-01T00:00:00", "2030-02-01 00:00:00Z", "2030-02-01T00:00:00.123456Z"]) {
      expect(expectError(await raw.post(`/test_clocks/${clock.json.test_clock_id}/advance`, { frozen_time }), 400, "INVALID_REQUEST"))
        .toBe("frozen_time must be an ISO 8601 time with its zone, e.g. 2026-11-27T09:00:00Z")
    }
    expect((await raw.get(`/test_clocks/${clock.json.test_clock_id}`)).json).toEqual(clock.json)
    const live = rawFor(server(), server().accountA.live.key)
    expect(expectError(await live.post("/test_clocks", { frozen_time: "2030-01-31T09:00:00Z" }), 404, "NOT_FOUND")).toContain("test mode only")
    expectError(await live.get(`/test_clocks/${clock.json.test_clock_id}`), 404, "NOT_FOUND")
    expectError(await live.post("/customers", { email: "x@example.ae", test_clock_id: clock.json.test_clock_id }), 400, "INVALID_REQUEST")
    const deleted = await raw.send("DELETE", `/test_clocks/${clock.json.test_clock_id}`)
    expect(deleted.json).toEqual({ object: "test_clock", test_clock_id: clock.json.test_clock_id, deleted: true })
    expectError(await raw.get(`/customers/${customer.json.customer_id}`), 404, "NOT_FOUND")
  })

  it("validates the e-mail", async () => {
    const raw = rawA()
    for (const email of ["not-an-email", "a@b", "a b@example.ae", "@example.ae", "a@@example.ae", "", `${"a".repeat(250)}@x.ae`]) {
      expectError(await raw.post("/customers", { email }), 400, "INVALID_REQUEST")
    }
    const missing = expectError(await raw.post("/customers", { name: "No Mail" }), 400, "INVALID_REQUEST")
    expect(missing).toContain("email")
    expectError(await raw.post("/customers", { email: 5 }), 400, "INVALID_REQUEST")
    const longest = `${"a".repeat(254 - "@x.ae".length)}@x.ae`
    expect(longest).toHaveLength(254)
    expect((await raw.post("/customers", { email: longest })).status).toBe(200)
  })

  it("validates the phone number as E.164 ('+' and 8 to 15 digits)", async () => {
    const raw = rawA()
    for (const phone_number of ["+97150123456", "+12345678", "+123456789012345"]) {
      const res = await raw.post("/customers", { email: "p@example.ae", phone_number })
      expect(res.status, `${phone_number}: ${res.text}`).toBe(200)
      expect(res.json.phone_number).toBe(phone_number)
    }
    for (const phone_number of ["0501234567", "+1234567", "+1234567890123456", "+971 50 123 4567", "+97150-1234567", "971501234567", "+", 971501234567]) {
      expectError(await raw.post("/customers", { email: "p@example.ae", phone_number }), 400, "INVALID_REQUEST")
    }
  })

  it("validates the name and metadata, refuses unknown fields naming them", async () => {
    const raw = rawA()
    expectError(await raw.post("/customers", { email: "n@example.ae", name: "" }), 400, "INVALID_REQUEST")
    expectError(await raw.post("/customers", { email: "n@example.ae", name: "n".repeat(201) }), 400, "INVALID_REQUEST")
    expect((await raw.post("/customers", { email: "n@example.ae", name: "n".repeat(200) })).status).toBe(200)
    expect((await raw.post("/customers", { email: "n@example.ae", name: null })).status).toBe(200)
    expectError(await raw.post("/customers", { email: "n@example.ae", metadata: { a: 1 } }), 400, "INVALID_REQUEST")
    const unknown = expectError(
      await raw.post("/customers", { email: "n@example.ae", address: "Dubai" }),
      400,
      "INVALID_REQUEST"
    )
    expect(unknown).toContain("address")
    expectError(await raw.post("/customers", "{\"email\": "), 400, "INVALID_REQUEST")
    expectError(await raw.post("/customers", JSON.stringify(["n@example.ae"])), 400, "INVALID_REQUEST")
    expectError(
      await raw.post("/customers", JSON.stringify({ email: "n@example.ae" }), { headers: { "content-type": "text/plain" } }),
      400,
      "INVALID_REQUEST"
    )
  })

  it("updates: null clears name and phone, metadata is replaced, invalid updates change nothing", async () => {
    const raw = rawA()
    const created = await raw.post("/customers", {
      email: "mira@example.ae",
      name: "Mira",
      phone_number: "+971501111111",
      metadata: { a: "1", b: "2" }
    })
    const id = created.json.customer_id as string
    const patched = await raw.patch(`/customers/${id}`, {
      email: "Mira.New@example.ae",
      name: null,
      phone_number: null,
      metadata: { c: "3" }
    })
    expect(patched.status, patched.text).toBe(200)
    expect(patched.json).toMatchObject({
      customer_id: id,
      email: "Mira.New@example.ae",
      name: null,
      phone_number: null,
      metadata: { c: "3" },
      created_at: created.json.created_at
    })
    for (const body of [{ email: "nope" }, { phone_number: "123" }, { name: "" }, { livemode: true }, { customer_id: id }]) {
      expectError(await raw.patch(`/customers/${id}`, body), 400, "INVALID_REQUEST")
    }
    const named = expectError(await raw.patch(`/customers/${id}`, { nickname: "M" }), 400, "INVALID_REQUEST")
    expect(named).toContain("nickname")
    const read = await raw.get(`/customers/${id}`)
    expect(read.json).toStrictEqual(patched.json)
  })

  it("answers 404 NOT_FOUND for an unknown, malformed, other-account or other-mode id", async () => {
    const s = server()
    const own = await rawA().post("/customers", { email: "own@example.ae" })
    const id = own.json.customer_id as string
    for (const path of [`/customers/cus_${"f".repeat(32)}`, "/customers/cus_1", `/customers/${id.replace("cus_", "pdt_")}`]) {
      expectError(await rawA().get(path), 404, "NOT_FOUND")
      expectError(await rawA().patch(path, { name: "x" }), 404, "NOT_FOUND")
    }
    for (const key of [s.accountB.test.key, s.accountA.live.key, s.accountB.live.key]) {
      expectError(await rawFor(s, key).get(`/customers/${id}`), 404, "NOT_FOUND")
      expectError(await rawFor(s, key).patch(`/customers/${id}`, { name: "Thief" }), 404, "NOT_FOUND")
    }
    expect((await rawA().get(`/customers/${id}`)).json).toStrictEqual(own.json)
  })

  let shop: TestAccount

  it("lists newest first, pages with the cursor, bounds the limit", async () => {
    shop = await server().createAccount()
    const raw = rawFor(server(), shop.test.key)
    const ids: Array<string> = []
    for (let i = 0; i < 23; i++) {
      const res = await raw.post("/customers", { email: `buyer${i}@example.ae` })
      ids.push(res.json.customer_id)
    }
    const first = await raw.get("/customers")
    expect(first.json.items).toHaveLength(20)
    expect(first.json.has_more).toBe(true)
    expect(first.json.items.map((c: any) => c.customer_id)).toEqual([...ids].reverse().slice(0, 20))
    const second = await raw.get(`/customers?cursor=${encodeURIComponent(first.json.next_cursor)}`)
    expect(second.json.items.map((c: any) => c.customer_id)).toEqual([...ids].reverse().slice(20))
    expect(second.json).toMatchObject({ has_more: false, next_cursor: null })
    for (const limit of ["0", "101", "x"]) expectError(await raw.get(`/customers?limit=${limit}`), 400, "INVALID_REQUEST")
    expectError(await raw.get("/customers?cursor=bogus"), 400, "INVALID_REQUEST")
  })

  it("filters by e-mail case-insensitively; the cursor belongs to its filter", async () => {
    const raw = rawFor(server(), shop.test.key)
    const a = await raw.post("/customers", { email: "Sara.Ali@Example.AE" })
    const b = await raw.post("/customers", { email: "sara.ali@example.ae" })
    await raw.post("/customers", { email: "sara.ali@example.com" })
    for (const query of ["sara.ali@example.ae", "SARA.ALI@EXAMPLE.AE", "Sara.Ali@Example.AE"]) {
      const res = await raw.get(`/customers?email=${encodeURIComponent(query)}`)
      expect(res.status).toBe(200)
      expect(res.json.items.map((c: any) => c.customer_id)).toEqual([b.json.customer_id, a.json.customer_id])
      // the stored e-mail keeps the case it was given
      expect(res.json.items[1].email).toBe("Sara.Ali@Example.AE")
    }
    const none = await raw.get(`/customers?email=${encodeURIComponent("nobody@example.ae")}`)
    expect(none.json).toStrictEqual({ items: [], has_more: false, next_cursor: null })
    // no partial matches
    const partial = await raw.get(`/customers?email=${encodeURIComponent("sara.ali@example.a")}`)
    expect(partial.status).toBe(200)
    expect(partial.json.items).toEqual([])
    // the filter is typed as an e-mail: anything else is refused, not answered with an empty list
    for (const bad of ["sara.ali@example", "not-an-email", "", "a b@example.ae", `${"a".repeat(250)}@x.ae`]) {
      const res = await raw.get(`/customers?email=${encodeURIComponent(bad)}`)
      expectError(res, 400, "INVALID_REQUEST")
      expect(res.json.message).toContain("email")
    }

    const page = await raw.get(`/customers?limit=1&email=${encodeURIComponent("sara.ali@example.ae")}`)
    const cursor = page.json.next_cursor as string
    expect(cursor).not.toBeNull()
    const next = await raw.get(`/customers?limit=1&email=${encodeURIComponent("SARA.ALI@example.ae")}&cursor=${encodeURIComponent(cursor)}`)
    expect(next.status, next.text).toBe(200)
    expect(next.json.items.map((c: any) => c.customer_id)).toEqual([a.json.customer_id])
    expectError(await raw.get(`/customers?cursor=${encodeURIComponent(cursor)}`), 400, "INVALID_REQUEST")
    expectError(
      await raw.get(`/customers?email=${encodeURIComponent("other@example.ae")}&cursor=${encodeURIComponent(cursor)}`),
      400,
      "INVALID_REQUEST"
    )
    // other accounts and modes do not see them
    const other = await rawFor(server(), server().accountB.test.key).get(`/customers?email=${encodeURIComponent("sara.ali@example.ae")}`)
    expect(other.json.items).toEqual([])
    const live = await rawFor(server(), shop.live.key).get(`/customers?email=${encodeURIComponent("sara.ali@example.ae")}`)
    expect(live.json.items).toEqual([])
  })

  it("takes a business customer's details, returns them, and replaces or removes them whole", async () => {
    const raw = rawA()
    const created = await raw.post("/customers", { email: "accounts@falcon.example.ae", business: businessJson })
    expect(created.status, created.text).toBe(200)
    expect(created.json.business).toStrictEqual(businessJson)
    const id = created.json.customer_id as string
    expect((await raw.get(`/customers/${id}`)).json.business).toStrictEqual(businessJson)
    // Without a TRN (and so without a Peppol endpoint): a simplified invoice's buyer.
    const unregistered = { business_name: "Corner Café", trn: null, address: null, peppol_endpoint: null }
    const replaced = await raw.patch(`/customers/${id}`, { business: unregistered })
    expect(replaced.status, replaced.text).toBe(200)
    expect(replaced.json.business).toStrictEqual(unregistered)
    const removed = await raw.patch(`/customers/${id}`, { business: null })
    expect(removed.json.business).toBeNull()
    expect((await raw.get(`/customers/${id}`)).json.business).toBeNull()
  })

  it("refuses business details that break a rule, in the merchant's words, and changes nothing", async () => {
    const raw = rawA()
    const email = "refused@falcon.example.ae"
    const badTrn = await raw.post("/customers", { email, business: { ...businessJson, trn: "12345", peppol_endpoint: null } })
    expect(expectError(badTrn, 400, "INVALID_REQUEST")).toMatch(/TRN is 15 digits/)
    const otherEndpoint = await raw.post("/customers", {
      email,
      business: { ...businessJson, peppol_endpoint: { scheme: "0235", id: "1999999999" } }
    })
    expect(expectError(otherEndpoint, 400, "INVALID_REQUEST")).toMatch(/TRN's first 10 digits/)
    expect((await raw.get(`/customers?email=${encodeURIComponent(email)}`)).json.items).toEqual([])

    const kept = await raw.post("/customers", { email: "kept@falcon.example.ae", business: businessJson })
    const id = kept.json.customer_id as string
    const patched = await raw.patch(`/customers/${id}`, { business: { ...businessJson, trn: "1002345678000031" } })
    expect(expectError(patched, 400, "INVALID_REQUEST")).toMatch(/TRN is 15 digits/)
    expect((await raw.get(`/customers/${id}`)).json).toStrictEqual(kept.json)
  })
})
