/** `/api/v1/customer_portal_sessions` over a real HTTP server, on both stores. */
import { expect, it } from "vitest"
import { call, clientFor, rawFor } from "../../support/server.js"
import { describeStores, expectError, useServer } from "../../support/httpSuite.js"

const isoMillis = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

describeStores("customer portal sessions over HTTP", (variant) => {
  const server = useServer(variant)
  const rawA = () => rawFor(server(), server().accountA.test.key)
  const newCustomer = async (email = `c${Math.random().toString(16).slice(2)}@example.ae`) => {
    const res = await rawA().post("/customers", { email })
    expect(res.status, res.text).toBe(200)
    return res.json.customer_id as string
  }

  it("creates one with the typed client: exactly the documented fields, a link at the public URL, an hour to open it; read back as created", async () => {
    const customerId = await newCustomer()
    const client = await clientFor(server(), server().accountA.test.key)
    const created = await call(client.customerPortalSessions.create({
      payload: { customer_id: customerId, return_url: "https://shop.example.ae/account" },
      headers: {}
    }))
    expect(created.customer_portal_session_id).toMatch(/^cps_[0-9a-f]{32}$/)
    const res = await rawA().get(`/customer_portal_sessions/${created.customer_portal_session_id}`)
    expect(res.status, res.text).toBe(200)
    expect(Object.keys(res.json).sort()).toEqual(
      ["created_at", "customer_id", "customer_portal_session_id", "expires_at", "livemode", "object", "return_url", "url"]
    )
    expect(res.json).toMatchObject({
      object: "customer_portal_session",
      customer_id: customerId,
      return_url: "https://shop.example.ae/account",
      livemode: false
    })
    expect(res.json.url).toMatch(/^http:\/\/127\.0\.0\.1(:\d+)?\/portal\/[A-Za-z0-9_-]{40,}$/)
    expect(res.json.created_at).toMatch(isoMillis)
    expect(Date.parse(res.json.expires_at) - Date.parse(res.json.created_at)).toBe(3_600_000)
    const again = await rawA().post("/customer_portal_sessions", { customer_id: customerId })
    expect(again.json.return_url).toBeNull()
    expect(again.json.url).not.toBe(res.json.url)
  })

  it("a customer of the other mode or of another account is 404, as is an unknown or malformed one; nothing is created", async () => {
    const customerId = await newCustomer()
    for (const key of [server().accountA.live.key, server().accountB.test.key]) {
      expectError(await rawFor(server(), key).post("/customer_portal_sessions", { customer_id: customerId }), 404, "NOT_FOUND")
    }
    expectError(await rawA().post("/customer_portal_sessions", { customer_id: `cus_${"0".repeat(32)}` }), 404, "NOT_FOUND")
    expectError(await rawA().post("/customer_portal_sessions", { customer_id: "layla" }), 404, "NOT_FOUND")
    const created = await rawA().post("/customer_portal_sessions", { customer_id: customerId })
    for (const key of [server().accountA.live.key, server().accountB.test.key]) {
      expectError(await rawFor(server(), key).get(`/customer_portal_sessions/${created.json.customer_portal_session_id}`), 404, "NOT_FOUND")
    }
    expectError(await rawA().get("/customer_portal_sessions/cps_nope"), 404, "NOT_FOUND")
  })

  it("refuses a body without customer_id, with an unknown field, or with a return_url that is not an absolute http(s) URL", async () => {
    const customerId = await newCustomer()
    const bodies: ReadonlyArray<unknown> = [
      {},
      { customer_id: customerId, extra: true },
      { customer_id: customerId, return_url: "javascript:alert(1)" },
      { customer_id: customerId, return_url: "/relative" },
      { customer_id: 42 }
    ]
    for (const body of bodies) {
      const message = expectError(await rawA().post("/customer_portal_sessions", body), 400, "INVALID_REQUEST")
      expect(message.length).toBeGreaterThan(5)
    }
  })

  it("an Idempotency-Key replays the same session (and its link); another body under it is refused", async () => {
    const customerId = await newCustomer()
    const headers = { "idempotency-key": `portal-${customerId}` }
    const first = await rawA().post("/customer_portal_sessions", { customer_id: customerId }, { headers })
    const second = await rawA().post("/customer_portal_sessions", { customer_id: customerId }, { headers })
    expect(second.headers.get("idempotent-replayed")).toBe("true")
    expect(second.json).toEqual(first.json)
    const other = await rawA().post("/customer_portal_sessions", { customer_id: customerId, return_url: "https://x.example" }, { headers })
    expectError(other, 422, "IDEMPOTENCY_KEY_REUSED")
  })
})
