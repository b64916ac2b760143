/**
 * The local webhook loop (issue 20) against `fils serve`: `fils listen` follows the server's events through the API
 * and forwards each new one to a receiver on 127.0.0.1 that verifies it with the `standardwebhooks` package and the
 * secret `listen` printed; `fils trigger` causes each event type the API and the hosted form can cause, and names
 * the command for the others. No webhook endpoint is registered; live keys are refused.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { once } from "node:events"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { Webhook } from "standardwebhooks"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { commandEnv, filsArgs, root, runFils, type Served, serveFils } from "../support/cli.js"
import { ok, type TestDatabase, testDatabase, waitFor } from "../support/load.js"

let db: TestDatabase
let served: Served
let key = ""
let liveKey = ""

interface Verified {
  readonly id: string
  readonly type: string
  readonly ok: boolean
}

/** A receiver that verifies every delivery with `secret()` (standardwebhooks) and answers 200, or 400 if it fails. */
const startReceiver = async (secret: () => string) => {
  const received: Array<Verified> = []
  const server: Server = createServer((req, res) => {
    let body = ""
    req.setEncoding("utf8")
    req.on("data", (c) => (body += c))
    req.on("end", () => {
      try {
        const payload = new Webhook(secret()).verify(body, req.headers as Record<string, string>) as { id: string; type: string }
        received.push({ id: payload.id, type: payload.type, ok: true })
        res.writeHead(200).end()
      } catch {
        received.push({ id: String(req.headers["webhook-id"]), type: "?", ok: false })
        res.writeHead(400).end()
      }
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

/** `fils listen`, until its secret is printed. */
const startListen = async (args: ReadonlyArray<string>) => {
  const child: ChildProcess = spawn(process.execPath, filsArgs("listen", "--api", served.baseUrl, "--key", key, "--interval-ms", "200", ...args), {
    cwd: root,
    env: commandEnv({ DATABASE_URL: undefined }),
    stdio: ["ignore", "pipe", "pipe"]
  })
  let out = ""
  child.stdout!.on("data", (c) => (out += c))
  child.stderr!.on("data", (c) => (out += c))
  await waitFor("listen's secret", () => /Webhook signing secret: whsec_\S+/.test(out), 30_000)
  return {
    secret: /Webhook signing secret: (whsec_\S+)/.exec(out)![1]!,
    output: () => out,
    stop: async () => {
      child.kill("SIGINT")
      await once(child, "exit")
    }
  }
}

const trigger = (type: string, extra: ReadonlyArray<string> = []) =>
  runFils(["trigger", type, "--api", served.baseUrl, "--key", key, ...extra], { DATABASE_URL: undefined })

beforeAll(async () => {
  db = await testDatabase()
  served = await serveFils({ DATABASE_URL: db.url, FILS_DATA_DIR: undefined }, 60_000)
  key = /Test key\s+(sk_test_\S+)/.exec(served.stdout())![1]!
  const made = JSON.parse((await runFils(["accounts", "create", "--name", "Live"], { DATABASE_URL: db.url, FILS_DATA_DIR: undefined })).stdout)
  liveKey = made.keys.live.secret
}, 90_000)

afterAll(async () => {
  await served?.stop("SIGTERM")
  await db?.close()
})

describe("fils listen and fils trigger", () => {
  it("trigger causes each event; listen forwards each new one, signed with its secret, verified by standardwebhooks; nothing registered", async () => {
    // An event before listen starts is not forwarded.
    const before = await trigger("payment.succeeded")
    expect(before.code, before.stderr).toBe(0)
    let secret = ""
    const receiver = await startReceiver(() => secret)
    const listen = await startListen(["--forward-to", receiver.url])
    secret = listen.secret
    try {
      const caused: Array<{ type: string; event_id: string }> = []
      for (const type of ["payment.succeeded", "payment.failed", "subscription.active", "subscription.cancelled"]) {
        const run = await trigger(type)
        expect(run.code, `${type}: ${run.stderr}`).toBe(0)
        const result = JSON.parse(run.stdout)
        expect(result.type).toBe(type)
        expect((await ok(served.baseUrl, key, "GET", `/events/${result.event_id}`)).type).toBe(type)
        caused.push(result)
      }
      await waitFor("every caused event forwarded", () => caused.every((c) => receiver.received.some((r) => r.id === c.event_id)), 20_000)
      expect(receiver.received.every((r) => r.ok)).toBe(true)
      expect(receiver.received.map((r) => r.id)).not.toContain(JSON.parse(before.stdout).event_id)
      // Each event once (the receiver saw every event of the triggers: payments and subscriptions).
      const ids = receiver.received.map((r) => r.id)
      expect(new Set(ids).size).toBe(ids.length)
      for (const c of caused) expect(listen.output()).toMatch(new RegExp(`${c.type.replace(".", "\\.")}  ${c.event_id}  → 200 \\(\\d+ ms\\)`))
      expect((await ok(served.baseUrl, key, "GET", "/webhooks")).items).toEqual([])
    } finally {
      await listen.stop()
      await receiver.close()
    }
  }, 120_000)

  it("--events keeps only those types; a receiver with another secret refuses them", async () => {
    const receiver = await startReceiver(() => "whsec_" + Buffer.alloc(24, 7).toString("base64"))
    const listen = await startListen(["--forward-to", receiver.url, "--events", "payment.failed"])
    try {
      const failed = JSON.parse((await trigger("payment.failed")).stdout)
      await trigger("payment.succeeded")
      await waitFor("the failed payment forwarded", () => receiver.received.some((r) => r.id === failed.event_id), 20_000)
      await new Promise((r) => setTimeout(r, 1000))
      expect(receiver.received.map((r) => r.ok)).toEqual([false])
      expect(listen.output()).toContain(`payment.failed  ${failed.event_id}  → 400`)
    } finally {
      await listen.stop()
      await receiver.close()
    }
  }, 60_000)

  it("trigger names the command for what the API cannot cause; both refuse live keys and unknown types", async () => {
    for (const [type, hint] of [["subscription.renewed", "fils billing run --at"], ["subscription.on_hold", "4000 0000 0000 0341"], ["refund.succeeded", "fils refunds create"]] as const) {
      const run = await trigger(type)
      expect(run.code).toBe(1)
      expect(JSON.parse(run.stderr.trim()).message).toContain(hint)
    }
    const unknown = await trigger("payment.maybe")
    expect(unknown.code).toBe(1)
    expect(JSON.parse(unknown.stderr.trim()).message).toContain("Unknown event type")
    for (const args of [["trigger", "payment.succeeded"], ["listen", "--forward-to", "http://127.0.0.1:9/x"]]) {
      const live = await runFils([...args, "--api", served.baseUrl, "--key", liveKey], { DATABASE_URL: undefined })
      expect(live.code, args[0]).toBe(1)
      expect(JSON.parse(live.stderr.trim()).message).toContain("test mode only")
    }
  }, 60_000)
})
