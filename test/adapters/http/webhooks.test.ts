/**
 * `/api/v1/webhooks` over a real HTTP server, on both stores (docs/api.md "Endpoints", docs/webhooks.md "Endpoint
 * URLs"; docs/decisions.md §7, §8): create (with its secret), read, list, update, delete, read the secret; the URL
 * rules of each mode; strict bodies; 404 across mode and account; idempotent creation.
 */
import { randomUUID } from "node:crypto"
import { expect, it } from "vitest"
import { rawFor, type TestAccount } from "../../support/server.js"
import { describeStores, expectError, useServer } from "../../support/httpSuite.js"

const isoMillis = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const webhookId = /^wh_[0-9a-f]{32}$/
const secretShape = /^whsec_[A-Za-z0-9+/]{32}$/
const allTypes = [
  "payment.succeeded",
  "payment.failed",
  "refund.succeeded",
  "subscription.active",
  "subscription.renewed",
  "subscription.on_hold",
  "subscription.cancelled"
]
const resourceKeys = ["created_at", "description", "disabled", "event_types", "health", "livemode", "object", "url", "webhook_id"]

describeStores("webhooks over HTTP", (variant) => {
  const server = useServer(variant)
  const fresh = () => server().createAccount()
  const raw = (account: TestAccount, mode: "test" | "live" = "test") => rawFor(server(), account[mode].key)

  it("POST creates an endpoint: the documented fields plus its whsec_ secret; defaults applied", async () => {
    const account = await fresh()
    const res = await raw(account).post("/webhooks", { url: "http://127.0.0.1:4343/hooks" })
    expect(res.status, res.text).toBe(200)
    expect(res.headers.get("content-type")).toMatch(/^application\/json/)
    expect(Object.keys(res.json).sort()).toEqual([...resourceKeys, "secret"].sort())
    expect(res.json).toMatchObject({
      object: "webhook",
      url: "http://127.0.0.1:4343/hooks",
      description: "",
      event_types: allTypes,
      disabled: false,
      livemode: false
    })
    expect(res.json.webhook_id).toMatch(webhookId)
    expect(res.json.created_at).toMatch(isoMillis)
    expect(res.json.secret).toMatch(secretShape)
    expect(Buffer.from(res.json.secret.slice(6), "base64")).toHaveLength(24)
  })

  it("POST keeps the given description, event types and disabled flag; a type named twice is refused, not merged", async () => {
    const account = await fresh()
    const body = { url: "https://example.com/fils", description: "ERP", event_types: ["refund.succeeded", "payment.succeeded"], disabled: true }
    const twice = await raw(account).post("/webhooks", { ...body, event_types: [...body.event_types, "refund.succeeded"] })
    expect([twice.status, twice.json]).toStrictEqual([400, {
      code: "INVALID_REQUEST",
      message: "event_types names 'refund.succeeded' more than once"
    }])
    expect((await raw(account).get("/webhooks")).json.items).toStrictEqual([])
    const res = await raw(account).post("/webhooks", body)
    expect(res.status, res.text).toBe(200)
    expect(res.json).toMatchObject({ url: "https://example.com/fils", description: "ERP", disabled: true })
    expect([...res.json.event_types].sort()).toEqual(["payment.succeeded", "refund.succeeded"])
    const patched = await raw(account).patch(`/webhooks/${res.json.webhook_id}`, { event_types: ["payment.failed", "payment.failed"] })
    expect([patched.status, patched.json.code]).toStrictEqual([400, "INVALID_REQUEST"])
  })

  it("GET /webhooks/{id} and GET /webhooks show it without the secret; GET …/secret returns it", async () => {
    const account = await fresh()
    const r = raw(account)
    const created = (await r.post("/webhooks", { url: "https://example.com/a", description: "a" })).json
    const { secret, ...resource } = created

    const got = await r.get(`/webhooks/${created.webhook_id}`)
    expect(got.status, got.text).toBe(200)
    expect(got.json).toStrictEqual(resource)
    expect(Object.keys(got.json).sort()).toEqual(resourceKeys)

    const list = await r.get("/webhooks")
    expect(list.status, list.text).toBe(200)
    expect(list.json).toStrictEqual({ items: [resource], has_more: false, next_cursor: null })

    const s = await r.get(`/webhooks/${created.webhook_id}/secret`)
    expect(s.status, s.text).toBe(200)
    expect(s.json).toStrictEqual({ secret })
    expect(s.json.secret).toMatch(secretShape)
  })

  it("every endpoint has its own secret", async () => {
    const account = await fresh()
    const r = raw(account)
    const secrets = new Set<string>()
    for (let i = 0; i < 5; i++) secrets.add((await r.post("/webhooks", { url: `https://example.com/${i}` })).json.secret)
    expect(secrets.size).toBe(5)
  })

  it("GET /webhooks lists newest first and pages with limit and cursor", async () => {
    const account = await fresh()
    const r = raw(account)
    const ids: Array<string> = []
    for (let i = 0; i < 3; i++) ids.push((await r.post("/webhooks", { url: `https://example.com/${i}` })).json.webhook_id)
    const page1 = await r.get("/webhooks?limit=2")
    expect(page1.status, page1.text).toBe(200)
    expect(page1.json.items.map((w: any) => w.webhook_id)).toEqual([ids[2], ids[1]])
    expect(page1.json.has_more).toBe(true)
    expect(typeof page1.json.next_cursor).toBe("string")
    for (const item of page1.json.items) expect(item).not.toHaveProperty("secret")
    const page2 = await r.get(`/webhooks?limit=2&cursor=${encodeURIComponent(page1.json.next_cursor)}`)
    expect(page2.json).toMatchObject({ has_more: false, next_cursor: null })
    expect(page2.json.items.map((w: any) => w.webhook_id)).toEqual([ids[0]])
    expectError(await r.get("/webhooks?limit=0"), 400, "INVALID_REQUEST")
    expectError(await r.get("/webhooks?cursor=garbage"), 400, "INVALID_REQUEST")
  })

  it("PATCH changes the given fields only and answers the resource without the secret", async () => {
    const account = await fresh()
    const r = raw(account)
    const created = (await r.post("/webhooks", { url: "https://example.com/a", description: "a" })).json
    const { secret, ...resource } = created

    const res = await r.patch(`/webhooks/${created.webhook_id}`, {
      url: "https://example.com/b",
      event_types: ["subscription.renewed"],
      disabled: true
    })
    expect(res.status, res.text).toBe(200)
    expect(res.json).toStrictEqual({
      ...resource,
      url: "https://example.com/b",
      event_types: ["subscription.renewed"],
      disabled: true
    })
    expect((await r.get(`/webhooks/${created.webhook_id}`)).json).toStrictEqual(res.json)

    const desc = await r.patch(`/webhooks/${created.webhook_id}`, { description: "renamed", disabled: false })
    expect(desc.json).toStrictEqual({ ...res.json, description: "renamed", disabled: false })
    const empty = await r.patch(`/webhooks/${created.webhook_id}`, {})
    expect(empty.status, empty.text).toBe(200)
    expect(empty.json).toStrictEqual(desc.json)
    // The secret does not change with updates.
    expect((await r.get(`/webhooks/${created.webhook_id}/secret`)).json).toStrictEqual({ secret })
  })

  it("DELETE answers { object, webhook_id, deleted: true }; afterwards every call on it is 404", async () => {
    const account = await fresh()
    const r = raw(account)
    const created = (await r.post("/webhooks", { url: "https://example.com/a" })).json
    const kept = (await r.post("/webhooks", { url: "https://example.com/kept" })).json
    const id = created.webhook_id

    const res = await r.send("DELETE", `/webhooks/${id}`)
    expect(res.status, res.text).toBe(200)
    expect(res.json).toStrictEqual({ object: "webhook", webhook_id: id, deleted: true })

    expectError(await r.send("DELETE", `/webhooks/${id}`), 404, "NOT_FOUND")
    expectError(await r.get(`/webhooks/${id}`), 404, "NOT_FOUND")
    expectError(await r.get(`/webhooks/${id}/secret`), 404, "NOT_FOUND")
    expectError(await r.patch(`/webhooks/${id}`, { description: "x" }), 404, "NOT_FOUND")
    const list = await r.get("/webhooks")
    expect(list.json.items.map((w: any) => w.webhook_id)).toEqual([kept.webhook_id])
  })

  it("live key: https to a public host only", async () => {
    const account = await fresh()
    const live = raw(account, "live")
    for (const url of [
      "http://example.com/hooks",
      "https://127.0.0.1/hooks",
      "https://10.0.0.1/hooks",
      "https://192.168.1.1/",
      "https://169.254.169.254/latest/meta-data/",
      "https://[::1]/",
      "https://[::ffff:127.0.0.1]/",
      "https://localhost/",
      "https://hooks.internal/",
      `http://127.0.0.1:4343/hooks`
    ]) {
      expectError(await live.post("/webhooks", { url }), 400, "INVALID_REQUEST")
    }
    expect((await live.get("/webhooks")).json.items).toEqual([])

    const ok = await live.post("/webhooks", { url: "https://example.com/hooks" })
    expect(ok.status, ok.text).toBe(200)
    expect(ok.json).toMatchObject({ url: "https://example.com/hooks", livemode: true })
    expect(ok.json.secret).toMatch(secretShape)

    // The same rules on update; a refused update changes nothing.
    for (const url of ["http://example.com/", "https://10.0.0.1/", "https://127.0.0.1/"]) {
      expectError(await live.patch(`/webhooks/${ok.json.webhook_id}`, { url }), 400, "INVALID_REQUEST")
    }
    expect((await live.get(`/webhooks/${ok.json.webhook_id}`)).json.url).toBe("https://example.com/hooks")
  })

  it("test key: http and loopback are allowed (local receivers), other internal hosts are not", async () => {
    const account = await fresh()
    const test = raw(account)
    for (const url of ["http://127.0.0.1:4343/hooks", "http://localhost:4343/hooks", "https://127.0.0.1/"]) {
      const res = await test.post("/webhooks", { url })
      expect(res.status, `${url}: ${res.text}`).toBe(200)
      expect(res.json).toMatchObject({ url, livemode: false })
    }
    for (const url of ["http://10.0.0.1/", "http://169.254.169.254/latest/meta-data/", "http://[fd00::1]/"]) {
      expectError(await test.post("/webhooks", { url }), 400, "INVALID_REQUEST")
    }
    expect((await test.get("/webhooks")).json.items).toHaveLength(3)
  })

  it("garbage URLs, credentials and other schemes are 400 in both modes", async () => {
    const account = await fresh()
    for (const mode of ["test", "live"] as const) {
      const r = raw(account, mode)
      for (const url of ["", "not a url", "/hooks", "example.com/hooks", "ftp://example.com/", "https://user:pw@example.com/", 42, null]) {
        expectError(await r.post("/webhooks", { url }), 400, "INVALID_REQUEST")
      }
      expectError(await r.post("/webhooks", {}), 400, "INVALID_REQUEST")
      expect((await r.get("/webhooks")).json.items).toEqual([])
    }
  })

  it("event_types: empty, an unknown type, or not a list is 400; on create and on update", async () => {
    const account = await fresh()
    const r = raw(account)
    for (const event_types of [[], ["payment.created"], ["payment.succeeded", "nope"], "payment.succeeded", null]) {
      expectError(await r.post("/webhooks", { url: "https://example.com/", event_types }), 400, "INVALID_REQUEST")
    }
    expect((await r.get("/webhooks")).json.items).toEqual([])
    const created = (await r.post("/webhooks", { url: "https://example.com/", event_types: ["payment.failed"] })).json
    for (const event_types of [[], ["payment.created"]]) {
      expectError(await r.patch(`/webhooks/${created.webhook_id}`, { event_types }), 400, "INVALID_REQUEST")
    }
    expect((await r.get(`/webhooks/${created.webhook_id}`)).json.event_types).toEqual(["payment.failed"])
  })

  it("an unknown field or a wrongly typed one is 400 INVALID_REQUEST naming the field", async () => {
    const account = await fresh()
    const r = raw(account)
    const message = expectError(
      await r.post("/webhooks", { url: "https://example.com/", secret: "whsec_mine" }),
      400,
      "INVALID_REQUEST"
    )
    expect(message).toContain("secret")
    expect(expectError(await r.post("/webhooks", { url: "https://example.com/", enabled: true }), 400, "INVALID_REQUEST"))
      .toContain("enabled")
    expectError(await r.post("/webhooks", { url: "https://example.com/", disabled: "yes" }), 400, "INVALID_REQUEST")
    expectError(await r.post("/webhooks", { url: "https://example.com/", description: 5 }), 400, "INVALID_REQUEST")
    expectError(await r.post("/webhooks", "{not json"), 400, "INVALID_REQUEST")
    expect((await r.get("/webhooks")).json.items).toEqual([])

    const created = (await r.post("/webhooks", { url: "https://example.com/" })).json
    expect(expectError(await r.patch(`/webhooks/${created.webhook_id}`, { livemode: true }), 400, "INVALID_REQUEST"))
      .toContain("livemode")
    expectError(await r.patch(`/webhooks/${created.webhook_id}`, { disabled: 1 }), 400, "INVALID_REQUEST")
    const { secret: _, ...resource } = created
    expect((await r.get(`/webhooks/${created.webhook_id}`)).json).toStrictEqual(resource)
  })

  it("404 for another mode's or another account's endpoint, on every operation; it stays intact", async () => {
    const a = await fresh()
    const b = await fresh()
    const owner = raw(a)
    const created = (await owner.post("/webhooks", { url: "https://example.com/mine" })).json
    const { secret: _, ...resource } = created
    const id = created.webhook_id
    for (const [who, r] of [["a/live", raw(a, "live")], ["b/test", raw(b)], ["b/live", raw(b, "live")]] as const) {
      expectError(await r.get(`/webhooks/${id}`), 404, "NOT_FOUND")
      expectError(await r.get(`/webhooks/${id}/secret`), 404, "NOT_FOUND")
      expectError(await r.patch(`/webhooks/${id}`, { disabled: true }), 404, "NOT_FOUND")
      expectError(await r.send("DELETE", `/webhooks/${id}`), 404, "NOT_FOUND")
      const list = await r.get("/webhooks")
      expect(list.json.items.map((w: any) => w.webhook_id), who).not.toContain(id)
    }
    expect((await owner.get(`/webhooks/${id}`)).json).toStrictEqual(resource)
  })

  it("ids that do not match wh_ + 32 hex, and unknown ones, are 404", async () => {
    const account = await fresh()
    const r = raw(account)
    for (const id of ["wh_123", `pdt_${"0".repeat(32)}`, `wh_${"G".repeat(32)}`, `wh_${"0".repeat(32)}`]) {
      expectError(await r.get(`/webhooks/${id}`), 404, "NOT_FOUND")
      expectError(await r.get(`/webhooks/${id}/secret`), 404, "NOT_FOUND")
      expectError(await r.patch(`/webhooks/${id}`, { description: "x" }), 404, "NOT_FOUND")
      expectError(await r.send("DELETE", `/webhooks/${id}`), 404, "NOT_FOUND")
    }
  })

  it("needs a key", async () => {
    const anonymous = rawFor(server())
    expectError(await anonymous.get("/webhooks"), 401, "UNAUTHORIZED")
    expectError(await anonymous.post("/webhooks", { url: "https://example.com/" }), 401, "UNAUTHORIZED")
    expectError(await anonymous.get(`/webhooks/wh_${"0".repeat(32)}/secret`), 401, "UNAUTHORIZED")
  })

  it("POST with an Idempotency-Key replays the first response (secret included) and creates one endpoint", async () => {
    const account = await fresh()
    const r = raw(account)
    const key = { headers: { "idempotency-key": randomUUID() } }
    const body = { url: "https://example.com/idem", event_types: ["payment.succeeded"] }
    const first = await r.post("/webhooks", body, key)
    expect(first.status, first.text).toBe(200)
    expect(first.headers.get("idempotent-replayed")).toBeNull()
    const again = await r.post("/webhooks", body, key)
    expect(again.status).toBe(200)
    expect(again.text).toBe(first.text)
    expect(again.headers.get("idempotent-replayed")).toBe("true")
    expect(again.json.secret).toBe(first.json.secret)

    const list = await r.get("/webhooks")
    expect(list.json.items.map((w: any) => w.webhook_id)).toEqual([first.json.webhook_id])

    expectError(await r.post("/webhooks", { ...body, description: "other" }, key), 422, "IDEMPOTENCY_KEY_REUSED")
    // Without a key, the same body creates another endpoint.
    expect((await r.post("/webhooks", body)).json.webhook_id).not.toBe(first.json.webhook_id)
    expect((await r.get("/webhooks")).json.items).toHaveLength(2)
  })
})
