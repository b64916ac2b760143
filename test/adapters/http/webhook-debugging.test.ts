/**
 * Webhooks you can debug, over a real HTTP server on both stores (docs/webhooks.md "Delivery log", "Test events",
 * "Endpoint health", "Recover"): the delivery log's pages with every attempt's status, latency, first 4 KiB of the
 * answer and exactly what was sent (never the secret); test events, signed and verifiable; an endpoint failing every
 * attempt for 3 days disabled on the clock, with `webhook.disabled`; recover, once. Receivers are real HTTP servers on
 * 127.0.0.1; the dispatcher runs a round at a time (`Deliveries.dispatchOnce`), on a stopped clock where time matters.
 */
import { DateTime, Effect } from "effect"
import { once } from "node:events"
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"
import { expect, it } from "vitest"
import { verify } from "../../../adapters/crypto/StandardWebhooks.js"
import { stoppedClock } from "../../../src/application/Billing.js"
import { Deliveries } from "../../../src/application/Deliveries.js"
import { call, clientFor, rawFor, type TestAccount } from "../../support/server.js"
import { describeStores, expectError, useServer } from "../../support/httpSuite.js"

interface Received {
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

/** A receiver on 127.0.0.1 answering `answer(body)`: a status and a body. */
const startReceiver = async (answer: (body: any, times: number) => { status: number; body: string }) => {
  const received: Array<Received> = []
  const server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8")
      received.push({ headers: req.headers, body })
      const parsed = JSON.parse(body)
      const a = answer(parsed, received.filter((r) => JSON.parse(r.body).id === parsed.id).length)
      res.writeHead(a.status, { "content-type": "text/plain; charset=utf-8" }).end(a.body)
    })
  })
  server.listen(0, "127.0.0.1")
  await once(server, "listening")
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received,
    close: async () => {
      server.closeAllConnections()
      server.close()
      await once(server, "close")
    }
  }
}

const day = 24 * 3600_000

describeStores("webhooks you can debug", (variant) => {
  const server = useServer(variant)
  const raw = (account: TestAccount) => rawFor(server(), account.test.key)
  /** One dispatcher round, on a clock stopped at `at` (Unix millis) when given. */
  const dispatch = (at?: number) =>
    server().run(Effect.flatMap(Deliveries, (d) => at === undefined ? d.dispatchOnce() : Effect.withClock(d.dispatchOnce(), stoppedClock(at))))

  it("GET /webhooks/{id}/deliveries: newest first in pages; each attempt's status, latency, first 4 KiB of the answer and exactly what was sent; test events signed and verifiable; the secret never shown", async () => {
    const long = "é".repeat(3000) // 6,000 bytes: only 4 KiB of it is kept
    const receiver = await startReceiver((_body, times) => (times === 1 ? { status: 500, body: long } : { status: 200, body: "ok" }))
    try {
      const account = await server().createAccount()
      const r = raw(account)
      const created = (await r.post("/webhooks", { url: receiver.url, event_types: ["payment.succeeded", "subscription.active"] })).json
      const id = created.webhook_id as string
      const sent: Array<any> = []
      for (const type of ["payment.succeeded", "subscription.active", "payment.succeeded"]) {
        const res = await r.post(`/webhooks/${id}/test`, { type })
        expect(res.status, res.text).toBe(200)
        expect(res.json).toMatchObject({ object: "webhook_delivery", webhook_id: id, event_type: type, test: true, status: "pending", attempts: [] })
        sent.push(res.json)
      }
      const t0 = Date.now()
      await dispatch(t0)
      await dispatch(t0 + 10_000) // the second attempts, after the 5 s wait
      expect(receiver.received).toHaveLength(6)

      const first = await r.get(`/webhooks/${id}/deliveries?limit=2`)
      expect(first.status, first.text).toBe(200)
      expect(first.json.has_more).toBe(true)
      const second = await r.get(`/webhooks/${id}/deliveries?limit=2&cursor=${encodeURIComponent(first.json.next_cursor)}`)
      expect(second.json).toMatchObject({ has_more: false, next_cursor: null })
      const items = [...first.json.items, ...second.json.items]
      const newestFirst = [...sent].sort((a, b) => b.created_at.localeCompare(a.created_at) || b.delivery_id.localeCompare(a.delivery_id))
      expect(items.map((d: any) => d.delivery_id)).toEqual(newestFirst.map((d) => d.delivery_id))

      for (const d of items) {
        expect(d).toMatchObject({ status: "succeeded", test: true, next_attempt_at: null })
        expect(d.attempts.map((a: any) => [a.attempt, a.status_code, a.error])).toEqual([[1, 500, null], [2, 200, null]])
        const [failed, succeeded] = d.attempts
        expect(Buffer.byteLength(failed.response_body)).toBeLessThanOrEqual(4096)
        expect(failed.response_body).toBe("é".repeat(2048))
        expect(succeeded.response_body).toBe("ok")
        for (const a of d.attempts) {
          expect(Number.isInteger(a.latency_ms) && a.latency_ms >= 0).toBe(true)
          // Exactly what the receiver got: every header Fils set, and the body byte for byte.
          const got = receiver.received.find((x) => x.headers["webhook-signature"] === a.request.headers["webhook-signature"])!
          expect(got, "the receiver got this attempt").toBeDefined()
          // The body is given once, for every attempt (it is not stored per attempt), byte for byte as received.
          expect(Object.keys(a.request)).toEqual(["headers"])
          expect(got.body).toBe(d.request_body)
          // And the body the test request answered with is that body too.
          expect(sent.find((x) => x.delivery_id === d.delivery_id).request_body).toBe(got.body)
          for (const [name, value] of Object.entries(a.request.headers)) expect(got.headers[name], name).toBe(value)
          expect(Object.keys(a.request.headers).sort()).toEqual(
            ["content-length", "content-type", "user-agent", "webhook-id", "webhook-signature", "webhook-timestamp"]
          )
          // Beside them, only what Node adds to every request (docs/webhooks.md says so).
          expect(Object.keys(got.headers).filter((h) => !(h in a.request.headers)).sort()).toEqual(["connection", "host"])
          // Signed as any delivery: StandardWebhooks.verify takes it with the endpoint's secret, and it says it is a test.
          const event = verify({ secret: created.secret, headers: a.request.headers, body: d.request_body, now: Number(a.request.headers["webhook-timestamp"]) }) as any
          expect(event).toMatchObject({ id: d.event_id, type: d.event_type, livemode: false, test: true })
          expect(typeof event.data).toBe("object")
        }
      }
      // The test events are delivered, not recorded.
      expect((await r.get("/events")).json.items).toEqual([])
      expectError(await r.get(`/events/${sent[0].event_id}`), 404, "NOT_FOUND")
      // The secret is never shown, in any form.
      const key = created.secret.slice("whsec_".length)
      expect(first.text + second.text).not.toContain(key)
      expect(first.text + second.text).not.toContain(Buffer.from(key, "base64").toString("hex"))

      // A cursor of another list, another account's endpoint, a bad page size.
      const other = await server().createAccount()
      expectError(await raw(other).get(`/webhooks/${id}/deliveries`), 404, "NOT_FOUND")
      expectError(await r.get(`/webhooks/${id}/deliveries?cursor=${encodeURIComponent((await r.get("/webhooks?limit=1")).json.next_cursor ?? "eyJsIjoid2ViaG9va3MiLCJ0IjowLCJpIjoid2hfMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAwMDAifQ")}`), 400, "INVALID_REQUEST")
      expectError(await r.get(`/webhooks/${id}/deliveries?limit=101`), 400, "INVALID_REQUEST")
      // A page of deliveries carries their answers: at most 20 of them.
      expect(expectError(await r.get(`/webhooks/${id}/deliveries?limit=21`), 400, "INVALID_REQUEST")).toContain("from 1 to 20")
      expect((await r.get(`/webhooks/${id}/deliveries?limit=20`)).status).toBe(200)
    } finally {
      await receiver.close()
    }
  })

  it("POST /webhooks/{id}/test refuses a type the endpoint does not subscribe to, a disabled endpoint and unknown fields; changes nothing then", async () => {
    const account = await server().createAccount()
    const r = raw(account)
    const w = (await r.post("/webhooks", { url: "http://127.0.0.1:9/hooks", event_types: ["payment.failed"] })).json
    // The typed client has the new operations, with their types.
    const client = await clientFor(server(), account.test.key)
    const queued = await call(client.webhooks.test({ path: { id: w.webhook_id }, payload: { type: "payment.failed" }, headers: {} }))
    expect(queued).toMatchObject({ object: "webhook_delivery", event_type: "payment.failed", test: true })
    const listed = await call(client.webhooks.deliveries({ path: { id: w.webhook_id }, urlParams: {} }))
    expect(listed.items.map((d) => d.delivery_id)).toEqual([queued.delivery_id])
    const recovered = await call(client.webhooks.recover({ path: { id: w.webhook_id }, payload: { since: DateTime.unsafeMake(0) }, headers: {} }))
    expect(recovered.resent).toBe(0)
    expect(expectError(await r.post(`/webhooks/${w.webhook_id}/test`, { type: "payment.succeeded" }), 400, "INVALID_REQUEST"))
      .toContain("payment.failed")
    expectError(await r.post(`/webhooks/${w.webhook_id}/test`, { type: "payment.nope" }), 400, "INVALID_REQUEST")
    expect(expectError(await r.post(`/webhooks/${w.webhook_id}/test`, { type: "payment.failed", test: true }), 400, "INVALID_REQUEST")).toContain("test")
    await r.patch(`/webhooks/${w.webhook_id}`, { disabled: true })
    expectError(await r.post(`/webhooks/${w.webhook_id}/test`, { type: "payment.failed" }), 409, "INVALID_STATE")
    expect((await r.get(`/webhooks/${w.webhook_id}/deliveries`)).json.items.map((d: any) => d.delivery_id)).toEqual([queued.delivery_id])
    expectError(await rawFor(server(), (await server().createAccount()).test.key).post(`/webhooks/${w.webhook_id}/test`, { type: "payment.failed" }), 404, "NOT_FOUND")
    // Test events are test mode's only: a live endpoint is refused, and the test mode's is not found with a live key.
    const live = rawFor(server(), account.live.key)
    const liveEndpoint = (await live.post("/webhooks", { url: "https://8.8.8.8/hooks", event_types: ["payment.failed"] })).json
    expect(expectError(await live.post(`/webhooks/${liveEndpoint.webhook_id}/test`, { type: "payment.failed" }), 400, "INVALID_REQUEST"))
      .toContain("test mode only")
    expectError(await live.post(`/webhooks/${w.webhook_id}/test`, { type: "payment.failed" }), 404, "NOT_FOUND")
  })

  it("an endpoint failing every attempt for 3 days, at least 9 of them, is disabled (not a second sooner, not after a quiet spell), its pending deliveries stop, and webhook.disabled goes to the endpoints that name it; its health shows the failure share", async () => {
    const failing = await startReceiver(() => ({ status: 503, body: "down" }))
    const watching = await startReceiver(() => ({ status: 200, body: "ok" }))
    try {
      const account = await server().createAccount()
      const r = raw(account)
      const a = (await r.post("/webhooks", { url: failing.url })).json
      const b = (await r.post("/webhooks", { url: watching.url, event_types: ["webhook.disabled"] })).json
      expect(a.health).toEqual({ attempts_last_day: 0, failed_last_day: 0, failure_rate_last_day: null, failing_since: null, auto_disabled_at: null })
      const testEvent = async () => expect((await r.post(`/webhooks/${a.webhook_id}/test`, { type: "payment.succeeded" })).status).toBe(200)

      await testEvent()
      const t0 = Date.now()
      await dispatch(t0)
      const afterOne = (await r.get(`/webhooks/${a.webhook_id}`)).json
      expect(afterOne.health).toEqual({
        attempts_last_day: 1,
        failed_last_day: 1,
        failure_rate_last_day: 1,
        failing_since: new Date(t0).toISOString(),
        auto_disabled_at: null
      })

      await testEvent()
      await dispatch(t0 + 3 * day - 1000)
      expect((await r.get(`/webhooks/${a.webhook_id}`)).json.disabled, "3 days less a second").toBe(false)

      // 3 days on, a fourth failure: the time is up but the failures are few (a quiet spell, not an outage).
      await testEvent()
      await dispatch(t0 + 3 * day)
      const quiet = (await r.get(`/webhooks/${a.webhook_id}`)).json
      expect(quiet.disabled, "4 failed attempts in 3 days").toBe(false)
      expect(quiet.health.failing_since).toBe(new Date(t0).toISOString())

      // Five more, each a delivery's first attempt (the earlier ones' next are not due yet): the ninth disables it.
      for (let i = 0; i < 5; i++) await testEvent()
      await dispatch(t0 + 3 * day + 1000)
      const disabled = (await r.get(`/webhooks/${a.webhook_id}`)).json
      expect(disabled.disabled).toBe(true)
      expect(disabled.health).toMatchObject({ failing_since: new Date(t0).toISOString(), auto_disabled_at: new Date(t0 + 3 * day + 1000).toISOString() })
      const log = (await r.get(`/webhooks/${a.webhook_id}/deliveries`)).json.items as Array<any>
      expect(log.filter((d) => d.status === "pending")).toEqual([])

      // webhook.disabled: recorded, and delivered (by name) to b, with the endpoint as it was disabled.
      const events = (await r.get("/events?type=webhook.disabled")).json.items as Array<any>
      expect(events).toHaveLength(1)
      expect(events[0].data).toMatchObject({ object: "webhook", webhook_id: a.webhook_id, disabled: true })
      expect(events[0].data).not.toHaveProperty("secret")
      await dispatch(t0 + 3 * day + 2000)
      expect(watching.received.map((x) => JSON.parse(x.body))).toMatchObject([{ id: events[0].event_id, type: "webhook.disabled" }])
      const toB = (await r.get(`/webhooks/${b.webhook_id}/deliveries`)).json.items as Array<any>
      expect(toB.map((d) => [d.event_type, d.status, d.test])).toEqual([["webhook.disabled", "succeeded", false]])

      // Enabled again: the notice and the streak go.
      const enabled = (await r.patch(`/webhooks/${a.webhook_id}`, { disabled: false })).json
      expect(enabled.health).toMatchObject({ failing_since: null, auto_disabled_at: null })
    } finally {
      await failing.close()
      await watching.close()
    }
  })

  it("POST /webhooks/{id}/recover sends again, once, only what did not arrive (failed or cancelled) since the time", async () => {
    let down = true
    // Subscription events always arrive; payment ones only once the receiver is back.
    const receiver = await startReceiver((body) => ({ status: down && body.type.startsWith("payment.") ? 500 : 200, body: "" }))
    try {
      const account = await server().createAccount()
      const r = raw(account)
      const w = (await r.post("/webhooks", { url: receiver.url })).json
      const test = async (type: string) => (await r.post(`/webhooks/${w.webhook_id}/test`, { type })).json
      const before = await test("payment.succeeded")
      await new Promise((done) => setTimeout(done, 20))
      const since = new Date().toISOString()
      const failed = await test("payment.succeeded")
      const arrived = await test("subscription.active")
      // Eight attempts, ten hours apart: every wait of the schedule has passed (and not 3 days of failures).
      const t0 = Date.now()
      for (let k = 0; k <= 7; k++) await dispatch(t0 + k * 10 * 3600_000 + 1000)
      const statuses = async () =>
        Object.fromEntries(((await r.get(`/webhooks/${w.webhook_id}/deliveries?limit=20`)).json.items as Array<any>).map((d) => [d.delivery_id, d.status]))
      // One more, cancelled by disabling the endpoint while it waits.
      const cancelled = await test("payment.failed")
      await r.patch(`/webhooks/${w.webhook_id}`, { disabled: true })
      expect(await statuses()).toEqual({
        [before.delivery_id]: "failed",
        [failed.delivery_id]: "failed",
        [arrived.delivery_id]: "succeeded",
        [cancelled.delivery_id]: "cancelled"
      })
      expectError(await r.post(`/webhooks/${w.webhook_id}/recover`, { since }), 409, "INVALID_STATE")
      await r.patch(`/webhooks/${w.webhook_id}`, { disabled: false })
      expectError(await r.post(`/webhooks/${w.webhook_id}/recover`, { since: "yesterday" }), 400, "INVALID_REQUEST")
      expectError(await r.post(`/webhooks/${w.webhook_id}/recover`, { since: "2026-02-30T00:00:00Z" }), 400, "INVALID_REQUEST")
      expectError(await r.post(`/webhooks/${w.webhook_id}/recover`, {}), 400, "INVALID_REQUEST")

      const recovered = await r.post(`/webhooks/${w.webhook_id}/recover`, { since })
      expect(recovered.status, recovered.text).toBe(200)
      expect(recovered.json).toEqual({ object: "webhook_recovery", webhook_id: w.webhook_id, since, resent: 2 })
      expect((await r.post(`/webhooks/${w.webhook_id}/recover`, { since })).json.resent, "asked again").toBe(0)
      expect(await statuses()).toEqual({
        [before.delivery_id]: "failed",
        [failed.delivery_id]: "pending",
        [arrived.delivery_id]: "succeeded",
        [cancelled.delivery_id]: "pending"
      })
      down = false
      const count = (eventId: string) => receiver.received.filter((x) => JSON.parse(x.body).id === eventId).length
      const sentBefore = [before, failed, arrived].map((d) => count(d.event_id))
      await dispatch()
      await dispatch()
      expect([before, failed, arrived, cancelled].map((d) => count(d.event_id))).toEqual([sentBefore[0], sentBefore[1]! + 1, sentBefore[2], 1])
      expect((await r.post(`/webhooks/${w.webhook_id}/recover`, { since })).json.resent, "nothing left to recover").toBe(0)
    } finally {
      await receiver.close()
    }
  })
})
