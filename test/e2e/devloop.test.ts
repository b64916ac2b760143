/**
 * The local webhook loop against `fils serve`: `fils listen` follows the server's events through the API
 * and forwards each new one to a receiver on 127.0.0.1 that verifies it with the `standardwebhooks` package and the
 * secret `listen` printed; `fils trigger` causes each event type the API and the hosted form can cause, and names
 * the command for the others. No webhook endpoint is registered; live keys are refused.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { once } from "node:events"
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Webhook } from "standardwebhooks"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { commandEnv, filsArgs, root, runFils, type Served, serveFils } from "../support/cli.js"
import { ok, type TestDatabase, testDatabase, waitFor } from "../support/load.js"

let db: TestDatabase
let served: Served
let key = ""
let liveKey = ""
/** The other account ("Live"): its id and test key, for a VAT-registered merchant's triggers. */
let other = { accountId: "", testKey: "" }
/** The user's config folder `listen` keeps its secrets in (XDG_CONFIG_HOME), a fresh one for this file. */
const configHome = mkdtempSync(join(tmpdir(), "fils-listen-"))

interface Verified {
  readonly id: string
  readonly type: string
  readonly ok: boolean
}

/** An HTTP server on 127.0.0.1 answering with `handle`, and the URL of its `/hooks`. */
const startServer = async (handle: (req: IncomingMessage, res: ServerResponse) => void) => {
  const server: Server = createServer(handle)
  server.listen(0, "127.0.0.1")
  await once(server, "listening")
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    close: async () => {
      server.closeAllConnections()
      server.close()
      await once(server, "close")
    }
  }
}

/**
 * A receiver that verifies every delivery with `secret()` (standardwebhooks) and answers 200, or 400 if it fails;
 * `answer` may answer first instead (to fail a delivery on purpose), given the event id and how often it came.
 */
const startReceiver = async (
  secret: () => string,
  answer?: (id: string, times: number, res: ServerResponse) => boolean
) => {
  const received: Array<Verified> = []
  const server = await startServer((req, res) => {
    let body = ""
    req.setEncoding("utf8")
    req.on("data", (c) => (body += c))
    req.on("end", () => {
      try {
        const payload = new Webhook(secret()).verify(body, req.headers as Record<string, string>) as { id: string; type: string }
        const times = received.filter((r) => r.id === payload.id).length + 1
        received.push({ id: payload.id, type: payload.type, ok: true })
        if (answer?.(payload.id, times, res) !== true) res.writeHead(200).end()
      } catch {
        received.push({ id: String(req.headers["webhook-id"]), type: "?", ok: false })
        res.writeHead(400).end()
      }
    })
  })
  return { ...server, received }
}

/** `fils listen`, until its secret is printed. */
const startListen = async (args: ReadonlyArray<string>) => {
  const child: ChildProcess = spawn(process.execPath, filsArgs("listen", "--api", served.baseUrl, "--key", key, "--interval-ms", "200", ...args), {
    cwd: root,
    env: commandEnv({ DATABASE_URL: undefined, XDG_CONFIG_HOME: configHome }),
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
  // listen looks five times a second here: more than the default 240 requests a minute per key.
  served = await serveFils({ DATABASE_URL: db.url, FILS_DATA_DIR: undefined, FILS_RATE_LIMIT_PER_MIN: "100000" }, 60_000)
  key = /Test key\s+(sk_test_\S+)/.exec(served.stdout())![1]!
  const made = JSON.parse((await runFils(["accounts", "create", "--name", "Live"], { DATABASE_URL: db.url, FILS_DATA_DIR: undefined })).stdout)
  liveKey = made.keys.live.secret
  other = { accountId: made.account_id, testKey: made.keys.test.secret }
}, 90_000)

afterAll(async () => {
  await served?.stop("SIGTERM")
  await db?.close()
  rmSync(configHome, { recursive: true, force: true })
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
      // Each line is printed once the receiver's answer is back, a moment after the receiver saw the event.
      const line = (c: { type: string; event_id: string }) => new RegExp(`${c.type.replace(".", "\\.")}  ${c.event_id}  → 200 \\(\\d+ ms\\)`)
      await waitFor("every forward printed", () => caused.every((c) => line(c).test(listen.output())), 10_000)
      for (const c of caused) expect(listen.output()).toMatch(line(c))
      expect((await ok(served.baseUrl, key, "GET", "/webhooks")).items).toEqual([])
      // Its reads of the event list (five a second here, for seconds) are no request log lines; each trigger's one
      // read of the list (to name the event it caused) and this test's reads of each event are.
      await new Promise((r) => setTimeout(r, 500))
      const logged = (await ok(served.baseUrl, key, "GET", "/request_logs?path=/api/v1/events&limit=100")).items as Array<{ path: string }>
      expect(logged.filter((l) => l.path === "/api/v1/events")).toHaveLength(caused.length + 1)
      expect(logged.filter((l) => l.path.startsWith("/api/v1/events/"))).toHaveLength(caused.length)
    } finally {
      await listen.stop()
      await receiver.close()
    }
  }, 240_000)

  it("--events keeps only those types and --print-json prints each one's JSON; a receiver with another secret refuses them", async () => {
    const receiver = await startReceiver(() => "whsec_" + Buffer.alloc(24, 7).toString("base64"))
    const listen = await startListen(["--forward-to", receiver.url, "--events", "payment.failed", "--print-json"])
    try {
      const failed = JSON.parse((await trigger("payment.failed")).stdout)
      const succeeded = JSON.parse((await trigger("payment.succeeded")).stdout)
      await waitFor("the failed payment forwarded", () => receiver.received.some((r) => r.id === failed.event_id), 20_000)
      await new Promise((r) => setTimeout(r, 1000))
      // Refused each time it was tried (a refused forward is retried, as a delivery is); nothing else came.
      expect(receiver.received.length).toBeGreaterThan(0)
      expect(receiver.received.every((r) => !r.ok && r.id === failed.event_id)).toBe(true)
      // The receiver's answer per event, after the event's JSON (the delivery body), printed once.
      expect(listen.output()).toContain(`payment.failed  ${failed.event_id}  → 400`)
      const printed = (listen.output().match(/^\{$[\s\S]*?^\}$/gm) ?? []).map((block) => JSON.parse(block))
      expect(printed.map((e) => [e.id, e.type])).toEqual([[failed.event_id, "payment.failed"]])
      expect(printed[0].data).toMatchObject({ object: "payment", status: "failed" })
      // trigger names the failed payment, though the declined session has none.
      expect(failed.payment_id).toMatch(/^pay_[0-9a-f]{32}$/)
      expect(printed[0].data.payment_id).toBe(failed.payment_id)
      expect(listen.output()).not.toContain(succeeded.event_id)
    } finally {
      await listen.stop()
      await receiver.close()
    }
    const neither = await runFils(["listen", "--api", served.baseUrl, "--key", key], { DATABASE_URL: undefined, XDG_CONFIG_HOME: configHome })
    expect(neither.code).toBe(1)
    expect(JSON.parse(neither.stderr.trim().split("\n").pop()!).message).toContain("--print-json")
  }, 120_000)

  it("trigger refunds on the server's database; invoices and credit notes on a VAT-registered account only; both refuse live keys and unknown types", async () => {
    const onServerDatabase = (type: string, testKey: string) =>
      runFils(["trigger", type, "--api", served.baseUrl, "--key", testKey], { DATABASE_URL: db.url, FILS_DATA_DIR: undefined })
    // A refund is an operator's act: the payment is refunded through the processor, and refund.succeeded says so.
    const refunded = await onServerDatabase("refund.succeeded", key)
    expect(refunded.code, refunded.stderr).toBe(0)
    const refund = JSON.parse(refunded.stdout)
    const event = await ok(served.baseUrl, key, "GET", `/events/${refund.event_id}`)
    expect(event.type).toBe("refund.succeeded")
    expect(event.data).toMatchObject({ payment_id: refund.payment_id, status: "refunded", refund_amount: 1000 })
    expect((await ok(served.baseUrl, key, "GET", `/payments/${refund.payment_id}`)).status).toBe("refunded")
    // Without a tax profile no invoice is issued, so neither type can come: refused, saying what to set.
    for (const type of ["invoice.issued", "credit_note.issued"]) {
      const run = await trigger(type)
      expect(run.code, type).toBe(1)
      expect(JSON.parse(run.stderr.trim()).message).toContain("fils accounts tax-profile set")
    }
    const taxed = await runFils(["accounts", "tax-profile", "set", "--legal-name", "Trigger Trading LLC", "--trn", "100123456700003",
      "--line1", "Al Fahidi St", "--city", "Dubai", "--emirate", "DXB", other.accountId], { DATABASE_URL: db.url, FILS_DATA_DIR: undefined })
    expect(taxed.code, taxed.stderr).toBe(0)
    const invoiced = await runFils(["trigger", "invoice.issued", "--api", served.baseUrl, "--key", other.testKey], { DATABASE_URL: undefined })
    expect(invoiced.code, invoiced.stderr).toBe(0)
    const invoice = await ok(served.baseUrl, other.testKey, "GET", `/events/${JSON.parse(invoiced.stdout).event_id}`)
    expect(invoice).toMatchObject({ type: "invoice.issued", data: { payment_id: JSON.parse(invoiced.stdout).payment_id } })
    const credited = await onServerDatabase("credit_note.issued", other.testKey)
    expect(credited.code, credited.stderr).toBe(0)
    const note = await ok(served.baseUrl, other.testKey, "GET", `/events/${JSON.parse(credited.stdout).event_id}`)
    expect(note.type).toBe("credit_note.issued")
    expect(note.data.reason).toContain("Requested by the customer")
    expect((await ok(served.baseUrl, other.testKey, "GET", `/payments/${JSON.parse(credited.stdout).payment_id}`)).status).toBe("refunded")
    // Three days of failures cannot be caused at once: the command says what sends a signed example instead.
    const disabled = await trigger("webhook.disabled")
    expect(disabled.code).toBe(1)
    expect(JSON.parse(disabled.stderr.trim()).message).toContain("POST /webhooks/{id}/test")
    // A card that gives nothing is named by its last four digits only, as everywhere else.
    for (const type of ["subscription.cancelled", "payment.succeeded"]) {
      const declined = await trigger(type, ["--card", "4000000000000002"])
      expect(declined.code, type).toBe(1)
      const message = JSON.parse(declined.stderr.trim()).message as string
      expect(message).toContain("•••• 0002")
      expect(declined.stdout + declined.stderr).not.toMatch(/4000\D?0000\D?0000\D?0002/)
    }
    const unknown = await trigger("payment.maybe")
    expect(unknown.code).toBe(1)
    expect(JSON.parse(unknown.stderr.trim()).message).toContain("Unknown event type")
    for (const args of [["trigger", "payment.succeeded"], ["listen", "--forward-to", "http://127.0.0.1:9/x"]]) {
      const live = await runFils([...args, "--api", served.baseUrl, "--key", liveKey], { DATABASE_URL: undefined })
      expect(live.code, args[0]).toBe(1)
      expect(JSON.parse(live.stderr.trim()).message).toContain("test mode only")
    }
  }, 180_000)

  it("trigger causes renewals, holds and plan changes on a test clock; --override sets what it makes; fils clocks", async () => {
    // Each on a clock of its own: the three at once.
    const types = ["subscription.renewed", "subscription.on_hold", "subscription.plan_changed"] as const
    const runs = await Promise.all(types.map((type) =>
      trigger(type, type === "subscription.renewed" ? ["--override", "product.price=2500", "--override", "customer.email=renew@example.ae"] : [])))
    for (const [i, type] of types.entries()) {
      const run = runs[i]!
      expect(run.code, `${type}: ${run.stderr}`).toBe(0)
      const result = JSON.parse(run.stdout)
      expect(result.test_clock_id).toMatch(/^clk_[0-9a-f]{32}$/)
      const event = await ok(served.baseUrl, key, "GET", `/events/${result.event_id}`)
      expect(event.type).toBe(type)
      expect(event.data.subscription_id).toBe(result.subscription_id)
      // Recorded now; the subscription's times are the clock's, a period on.
      expect(Math.abs(Date.parse(event.created_at) - Date.now())).toBeLessThan(120_000)
      const clock = await ok(served.baseUrl, key, "GET", `/test_clocks/${result.test_clock_id}`)
      expect(clock.status).toBe("ready")
      expect(Date.parse(clock.frozen_time)).toBeGreaterThan(Date.now() + 25 * 24 * 3600_000)
      if (type === "subscription.renewed") {
        expect(event.data.recurring_amount).toBe(2500)
        expect((await ok(served.baseUrl, key, "GET", `/customers/${result.customer_id}`)).email).toBe("renew@example.ae")
      }
    }
    // Refused before anything is made; a value the API's schema refuses, in its words.
    const refusals = [
      [["--override", "product.colour=red"], "unknown field 'product.colour'"],
      [["--override", "toString=x"], "unknown field 'toString'"],
      [["--override", "product.price=cheap"], "whole number"],
      [["--override", "customer.email=nobody"], "e-mail"]
    ] as const
    const refused = await Promise.all(refusals.map(([args]) => trigger("payment.succeeded", args)))
    for (const [i, [, hint]] of refusals.entries()) {
      expect(refused[i]!.code, hint).toBe(1)
      expect(JSON.parse(refused[i]!.stderr.trim())).toMatchObject({ code: "INVALID_REQUEST", message: expect.stringContaining(hint) })
    }

    const clocks = (args: ReadonlyArray<string>) => runFils(["clocks", ...args, "--api", served.baseUrl, "--key", key], { DATABASE_URL: undefined })
    const created = await clocks(["create", "--frozen-time", "2030-01-31T09:00:00Z", "--name", "cli"])
    expect(created.code, created.stderr).toBe(0)
    const clock = JSON.parse(created.stdout)
    expect(clock).toMatchObject({ object: "test_clock", name: "cli", frozen_time: "2030-01-31T09:00:00.000Z", status: "ready" })
    // Without --api or FILS_API_URL, the CLI talks to the server FILS_PORT names (as `fils serve` listens).
    const listed = await runFils(["clocks", "list", "--key", key], {
      DATABASE_URL: undefined,
      FILS_API_URL: undefined,
      FILS_PORT: new URL(served.baseUrl).port
    })
    expect(listed.code, listed.stderr).toBe(0)
    expect(listed.stdout).toContain(clock.test_clock_id)
    const moved = await clocks(["advance", clock.test_clock_id, "--by", "1mo"])
    expect(moved.code, moved.stderr).toBe(0)
    expect(JSON.parse(moved.stdout).frozen_time).toBe("2030-02-28T09:00:00.000Z")
    const backwards = await clocks(["advance", clock.test_clock_id, "--to", "2030-01-01T00:00:00Z"])
    expect(backwards.code).toBe(1)
    expect(JSON.parse(backwards.stderr.trim()).message).toContain("only moves forward")
    const deleted = await clocks(["delete", clock.test_clock_id])
    expect(JSON.parse(deleted.stdout)).toEqual({ object: "test_clock", test_clock_id: clock.test_clock_id, deleted: true })
  }, 180_000)

  it("after billing run --at a future renewal date, the renewal and every later event are forwarded", async () => {
    let secret = ""
    const receiver = await startReceiver(() => secret)
    const listen = await startListen(["--forward-to", receiver.url])
    secret = listen.secret
    try {
      const active = JSON.parse((await trigger("subscription.active")).stdout)
      const subscription = await ok(served.baseUrl, key, "GET", `/subscriptions/${active.subscription_id}`)
      const billed = await runFils(["billing", "run", "--at", subscription.next_billing_date], { DATABASE_URL: db.url, FILS_DATA_DIR: undefined })
      expect(billed.code, billed.stderr).toBe(0)
      const renewed = ((await ok(served.baseUrl, key, "GET", "/events?type=subscription.renewed&limit=100")).items as Array<any>)
        .find((e) => e.data.subscription_id === active.subscription_id)
      expect(Date.parse(renewed.created_at)).toBeGreaterThan(Date.now() + 20 * 24 * 3600_000)
      await waitFor("the renewal forwarded", () => receiver.received.some((r) => r.id === renewed.event_id), 20_000)
      // Events of today, made after the future-dated one, still reach the receiver.
      const later = JSON.parse((await trigger("payment.succeeded")).stdout)
      await waitFor("a later event forwarded", () => receiver.received.some((r) => r.id === later.event_id), 20_000, () => listen.output())
      expect(receiver.received.every((r) => r.ok)).toBe(true)
      const ids = receiver.received.map((r) => r.id)
      expect(new Set(ids).size).toBe(ids.length)
    } finally {
      await listen.stop()
      await receiver.close()
    }
  }, 120_000)

  it("a failed forward is retried; a redirect is a failed forward, never followed", async () => {
    const elsewhere: Array<string> = []
    const target = await startServer((req, res) => {
      elsewhere.push(String(req.headers["webhook-id"]))
      res.writeHead(200).end()
    })
    let secret = ""
    // The first try of each event is answered 503, the second redirected (307 keeps the method and body), the third 200.
    const receiver = await startReceiver(() => secret, (_id, times, res) => {
      if (times === 1) res.writeHead(503).end()
      else if (times === 2) res.writeHead(307, { location: target.url }).end()
      else return false
      return true
    })
    const listen = await startListen(["--forward-to", receiver.url])
    secret = listen.secret
    try {
      const paid = JSON.parse((await trigger("payment.succeeded")).stdout)
      await waitFor("the third try of the payment", () => receiver.received.filter((r) => r.id === paid.event_id).length >= 3, 30_000, () => listen.output())
      await waitFor("its line", () => listen.output().includes(`${paid.event_id}  → 200`), 5_000, () => listen.output())
      const lines = listen.output().split("\n").filter((l) => l.includes(paid.event_id))
      expect(lines.map((l) => /→ (\S+)/.exec(l)?.[1])).toEqual(["503", "307", "200"])
      expect(receiver.received.filter((r) => r.id === paid.event_id)).toHaveLength(3)
      expect(elsewhere).toEqual([])
    } finally {
      await listen.stop()
      await receiver.close()
      await target.close()
    }
  }, 90_000)

  it("the signing secret is kept per account on this machine (mode 0600), or taken from --secret", async () => {
    const account = await ok(served.baseUrl, key, "GET", "/account")
    const first = await startListen(["--forward-to", "http://127.0.0.1:9/hooks"])
    await first.stop()
    const second = await startListen(["--forward-to", "http://127.0.0.1:9/hooks"])
    await second.stop()
    expect(second.secret).toBe(first.secret)
    const folder = join(configHome, "fils", "listen")
    expect(readdirSync(folder)).toEqual([`${account.account_id}.secret`])
    const file = join(folder, `${account.account_id}.secret`)
    expect(readFileSync(file, "utf8").trim()).toBe(first.secret)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(statSync(folder).mode & 0o077).toBe(0)

    const given = "whsec_" + Buffer.alloc(24, 9).toString("base64")
    let secret = ""
    const receiver = await startReceiver(() => secret)
    const listen = await startListen(["--forward-to", receiver.url, "--secret", given])
    secret = given
    try {
      expect(listen.secret).toBe(given)
      const paid = JSON.parse((await trigger("payment.succeeded")).stdout)
      await waitFor("the payment forwarded", () => receiver.received.some((r) => r.id === paid.event_id), 20_000)
      expect(receiver.received.every((r) => r.ok)).toBe(true)
    } finally {
      await listen.stop()
      await receiver.close()
    }
    expect(readFileSync(file, "utf8").trim(), "--secret leaves the kept one alone").toBe(first.secret)


    for (const bad of ["whsec_", "whsec_not base64!", "sk_test_abc", "whsec_" + Buffer.alloc(8).toString("base64")]) {
      const run = await runFils(["listen", "--forward-to", "http://127.0.0.1:9/x", "--api", served.baseUrl, "--key", key, "--secret", bad], {
        DATABASE_URL: undefined,
        XDG_CONFIG_HOME: configHome
      })
      expect(run.code, bad).toBe(1)
      expect(JSON.parse(run.stderr.trim().split("\n").pop()!).message).toContain("--secret")
    }
  }, 180_000)
})
