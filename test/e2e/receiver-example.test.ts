/**
 * examples/receiver/server.ts as a real process: a signed delivery is acknowledged and logged once, a tampered or
 * badly signed one is 401 and not logged, a duplicate webhook-id is acknowledged but not handled twice. Last, Fils
 * itself (engine + the real HTTP transport) delivers a paid checkout's event to it.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { once } from "node:events"
import { DateTime, Effect, Redacted } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { newSecret, sign } from "../../adapters/crypto/StandardWebhooks.js"
import { Deliveries } from "../../src/application/Deliveries.js"
import { Events } from "../../src/application/Events.js"
import { Webhooks } from "../../src/application/Webhooks.js"
import { operator } from "../../src/domain/Account.js"
import { newAccount, withEngine } from "../application/harness.js"
import { cards, formWith, makeSession, pay } from "../support/checkout.js"
import { freePort, root } from "../support/cli.js"

interface Receiver {
  readonly child: ChildProcess
  readonly url: string
  readonly stdout: () => string
  readonly stderr: () => string
  readonly stop: () => Promise<number | null>
}

const startReceiver = async (env: Record<string, string>, port?: number): Promise<Receiver> => {
  port ??= await freePort()
  const merged: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) merged[k] = v
  Object.assign(merged, { PORT: String(port) }, env)
  const child = spawn(process.execPath, ["--import", "tsx", "examples/receiver/server.ts"], {
    cwd: root,
    env: merged,
    stdio: ["ignore", "pipe", "pipe"]
  })
  let stdout = ""
  let stderr = ""
  child.stdout!.on("data", (chunk) => (stdout += chunk))
  child.stderr!.on("data", (chunk) => (stderr += chunk))
  const exited = once(child, "exit")
  const deadline = Date.now() + 20_000
  while (!stderr.includes("listening")) {
    if (child.exitCode !== null) throw new Error(`the receiver exited early (${child.exitCode}):\n${stderr}`)
    if (Date.now() > deadline) {
      child.kill("SIGKILL")
      throw new Error(`the receiver did not start:\n${stderr}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return {
    child,
    url: `http://127.0.0.1:${port}/`,
    stdout: () => stdout,
    stderr: () => stderr,
    stop: async () => {
      if (child.exitCode !== null) return child.exitCode
      child.kill("SIGTERM")
      const [code] = await exited
      return code as number | null
    }
  }
}

/** The JSON lines the receiver logged so far. */
const logged = (receiver: Receiver): Array<any> =>
  receiver.stdout().split("\n").filter((l) => l.trim() !== "").map((l) => JSON.parse(l))

/** Waits (briefly) until the receiver has logged `n` lines. */
const untilLogged = async (receiver: Receiver, n: number) => {
  const deadline = Date.now() + 5_000
  while (logged(receiver).length < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
  return logged(receiver)
}

let counter = 0
const event = (overrides: Record<string, unknown> = {}) => {
  counter++
  const id = `evt_${counter.toString(16).padStart(32, "0")}`
  return {
    id,
    type: "payment.succeeded",
    livemode: false,
    created_at: "2026-11-21T10:00:00.000Z",
    data: { object: "payment", payment_id: `pay_${"a".repeat(31)}${counter % 10}`, status: "succeeded", total_amount: 34900 },
    ...overrides
  }
}

const post = async (
  receiver: Receiver,
  body: string,
  headers: Record<string, string>
): Promise<{ status: number; text: string }> => {
  const res = await fetch(receiver.url, { method: "POST", body, headers: { "content-type": "application/json", ...headers } })
  return { status: res.status, text: await res.text() }
}

const signed = (secret: string, id: string, body: string, timestamp = Math.floor(Date.now() / 1000)) => ({
  "webhook-id": id,
  "webhook-timestamp": String(timestamp),
  "webhook-signature": sign({ secret, id, timestamp, body })
})

describe("examples/receiver/server.ts", () => {
  const secret = newSecret()
  let receiver: Receiver

  beforeAll(async () => {
    receiver = await startReceiver({ FILS_WEBHOOK_SECRET: secret })
  }, 30_000)

  afterAll(async () => {
    if (receiver !== undefined) expect(await receiver.stop()).toBe(0)
  })

  it("acknowledges a correctly signed delivery with 2xx and logs one JSON line for it", async () => {
    const e = event()
    const body = JSON.stringify(e)
    const before = logged(receiver).length
    const res = await post(receiver, body, signed(secret, e.id, body))
    expect(res.status, res.text).toBeGreaterThanOrEqual(200)
    expect(res.status).toBeLessThan(300)
    const lines = await untilLogged(receiver, before + 1)
    expect(lines).toHaveLength(before + 1)
    expect(lines[before]).toStrictEqual({
      webhook_id: e.id,
      type: "payment.succeeded",
      livemode: false,
      created_at: "2026-11-21T10:00:00.000Z",
      object: "payment",
      object_id: e.data.payment_id,
      status: "succeeded"
    })
  })

  it("answers 401 to a tampered body, a wrong secret, a stale timestamp or missing headers, and logs nothing", async () => {
    const e = event()
    const body = JSON.stringify(e)
    const headers = signed(secret, e.id, body)
    const before = logged(receiver).length

    const tampered = body.replace("34900", "1")
    expect(tampered).not.toBe(body)
    expect((await post(receiver, tampered, headers)).status).toBe(401)
    expect((await post(receiver, body, signed(newSecret(), e.id, body))).status).toBe(401)
    expect((await post(receiver, body, { ...headers, "webhook-id": `${e.id}0` })).status).toBe(401)
    const stale = Math.floor(Date.now() / 1000) - 600
    expect((await post(receiver, body, signed(secret, e.id, body, stale))).status).toBe(401)
    expect((await post(receiver, body, {})).status).toBe(401)
    const { "webhook-signature": _, ...unsigned } = headers
    expect((await post(receiver, body, unsigned)).status).toBe(401)

    // Give a wrongly logged line the time to show up, then check there is none.
    await new Promise((r) => setTimeout(r, 200))
    expect(logged(receiver)).toHaveLength(before)
    expect(receiver.stderr()).toMatch(/refused a delivery/)

    // The untampered delivery of the same event is still handled (the refusals did not mark its id as seen).
    expect((await post(receiver, body, headers)).status).toBe(200)
    const lines = await untilLogged(receiver, before + 1)
    expect(lines.map((l) => l.webhook_id).filter((id) => id === e.id)).toHaveLength(1)
  })

  it("acknowledges a duplicate webhook-id (a retry: fresh timestamp and signature) without handling it again", async () => {
    const e = event({ type: "refund.succeeded" })
    const body = JSON.stringify(e)
    const before = logged(receiver).length
    expect((await post(receiver, body, signed(secret, e.id, body))).status).toBe(200)
    await untilLogged(receiver, before + 1)

    const retry = await post(receiver, body, signed(secret, e.id, body, Math.floor(Date.now() / 1000) + 1))
    expect(retry.status, retry.text).toBeGreaterThanOrEqual(200)
    expect(retry.status).toBeLessThan(300)
    const again = await post(receiver, body, signed(secret, e.id, body))
    expect(again.status).toBe(200)

    // Another event right after proves the log is flushed up to here.
    const next = event()
    const nextBody = JSON.stringify(next)
    expect((await post(receiver, nextBody, signed(secret, next.id, nextBody))).status).toBe(200)
    const lines = await untilLogged(receiver, before + 2)
    expect(lines.slice(before).map((l) => l.webhook_id)).toEqual([e.id, next.id])
    expect(lines.slice(before)[0].type).toBe("refund.succeeded")
  })

  it("acknowledges a test event without handling it, and names an invoice by its own id", async () => {
    const before = logged(receiver).length
    const test = event({ test: true })
    const testBody = JSON.stringify(test)
    const res = await post(receiver, testBody, signed(secret, test.id, testBody))
    expect([res.status, JSON.parse(res.text)]).toStrictEqual([200, { received: true, test: true }])
    const invoice = event({ type: "invoice.issued", data: { object: "invoice", invoice_id: "inv_1", payment_id: "pay_1", status: "issued" } })
    const invoiceBody = JSON.stringify(invoice)
    expect((await post(receiver, invoiceBody, signed(secret, invoice.id, invoiceBody))).status).toBe(200)
    const lines = await untilLogged(receiver, before + 1)
    expect(lines.slice(before).map((l) => [l.webhook_id, l.object_id])).toStrictEqual([[invoice.id, "inv_1"]])
    expect(receiver.stderr()).toContain(`acknowledged test event ${test.id}`)
  })

  it("refuses anything but POST and a body over 1 MiB", async () => {
    expect((await fetch(receiver.url)).status).toBe(405)
    const e = event()
    const big = JSON.stringify({ ...e, data: { pad: "x".repeat(1024 * 1024 + 10) } })
    expect((await post(receiver, big, signed(secret, e.id, big))).status).toBe(413)
  })

  it("a delivery from Fils signed with another endpoint's secret is refused (401) and the delivery stays pending", async () => {
    const before = logged(receiver).length
    const { delivery, sent } = await Effect.runPromise(
      Effect.gen(function*() {
        const { test } = yield* newAccount
        // This endpoint gets a fresh secret of its own, not the one the receiver was started with.
        const hook = yield* (yield* Webhooks).create(test, { url: receiver.url, event_types: ["payment.succeeded"] })
        const session = yield* makeSession(test)
        const result = yield* pay(session.session_id, formWith(cards.visa))
        if (result._tag !== "Paid") throw new Error("expected a payment")
        const deliveries = yield* Deliveries
        const sent = yield* deliveries.dispatchOnce()
        const [delivery] = yield* deliveries.list({ webhook_id: hook.webhook_id })
        return { delivery: delivery!, sent }
      }).pipe(withEngine())
    )
    expect(sent).toBe(1)
    expect(delivery).toMatchObject({ status: "pending", attempts: 1, last_status_code: 401 })
    await new Promise((r) => setTimeout(r, 100))
    expect(logged(receiver)).toHaveLength(before)
  })
})

describe("examples/receiver/server.ts with the endpoint's own secret", () => {
  it("receives, verifies and logs what Fils delivers; the delivery succeeds", async () => {
    // Create the endpoint first (its secret is generated), then start the receiver with that secret on its URL.
    const port = await freePort()
    await Effect.runPromise(
      Effect.gen(function*() {
        const { test } = yield* newAccount
        const webhooks = yield* Webhooks
        const deliveries = yield* Deliveries
        const hook = yield* webhooks.create(test, { url: `http://127.0.0.1:${port}/`, event_types: ["payment.succeeded"] })
        const receiver = yield* Effect.acquireRelease(
          Effect.promise(() => startReceiverOn(port, Redacted.value(hook.secret))),
          (r) => Effect.promise(() => r.stop())
        )
        const session = yield* makeSession(test)
        const result = yield* pay(session.session_id, formWith(cards.visa))
        if (result._tag !== "Paid") throw new Error("expected a payment")
        const [e] = (yield* (yield* Events).list(test, { type: "payment.succeeded" })).items

        expect(yield* deliveries.dispatchOnce()).toBe(1)
        const [delivery] = yield* deliveries.list({ webhook_id: hook.webhook_id })
        expect(delivery).toMatchObject({ status: "succeeded", attempts: 1, last_status_code: 200 })

        const lines = yield* Effect.promise(() => untilLogged(receiver, 1))
        expect(lines).toStrictEqual([{
          webhook_id: e!.event_id,
          type: "payment.succeeded",
          livemode: false,
          created_at: DateTime.formatIso(e!.created_at),
          object: "payment",
          object_id: result.payment.payment_id,
          status: "succeeded"
        }])

        // Redelivered by hand: the same webhook-id, acknowledged (the delivery succeeds again), not handled twice.
        yield* deliveries.retry(operator, delivery!.delivery_id)
        expect(yield* deliveries.dispatchOnce()).toBe(1)
        const [again] = yield* deliveries.list({ webhook_id: hook.webhook_id })
        expect(again).toMatchObject({ status: "succeeded", attempts: 2, last_status_code: 200 })
        yield* Effect.promise(() => new Promise((r) => setTimeout(r, 100)))
        expect(logged(receiver)).toHaveLength(1)
      }).pipe(Effect.scoped, withEngine())
    )
  }, 30_000)
})

const startReceiverOn = (port: number, secret: string) => startReceiver({ FILS_WEBHOOK_SECRET: secret }, port)

describe("examples/receiver/server.ts configuration", () => {
  it("refuses to start without a whsec_ secret", async () => {
    for (const value of ["", "not-a-secret"]) {
      const child = spawn(process.execPath, ["--import", "tsx", "examples/receiver/server.ts"], {
        cwd: root,
        env: { ...process.env, FILS_WEBHOOK_SECRET: value, PORT: String(await freePort()) },
        stdio: ["ignore", "pipe", "pipe"]
      })
      let stderr = ""
      child.stderr.on("data", (c) => (stderr += c))
      const [code] = await once(child, "exit")
      expect(code).toBe(1)
      expect(stderr).toContain("FILS_WEBHOOK_SECRET")
    }
  }, 30_000)
})
