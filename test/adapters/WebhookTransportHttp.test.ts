/**
 * The WebhookTransport adapter over node:http against real receivers on 127.0.0.1: answers, failures, timeouts, and
 * the live-mode guard against internal addresses (literal, and after DNS resolution, including DNS rebinding).
 */
import { Effect } from "effect"
import type { LookupAddress } from "node:dns"
import type { lookup as dnsLookup } from "node:dns"
import { once } from "node:events"
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http"
import type { LookupFunction } from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import { publicOnlyLookup, send, WebhookTransportHttp } from "../../adapters/webhooks/WebhookTransportHttp.js"
import type { OutboundRequest } from "../../src/ports/WebhookTransport.js"
import { WebhookTransport } from "../../src/ports/WebhookTransport.js"
import { closedPort, silentServer } from "../support/tcp.js"

interface Received {
  readonly method: string | undefined
  readonly url: string | undefined
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

interface Receiver {
  readonly port: number
  readonly received: Array<Received>
  /** Requests that arrived (also those never answered). */
  readonly arrivals: () => number
}

const open: Array<Server> = []
const closers: Array<() => Promise<void>> = []

afterEach(async () => {
  for (const server of open.splice(0)) {
    server.closeAllConnections()
    server.close()
  }
  for (const close of closers.splice(0)) await close()
})

/** An HTTP receiver on 127.0.0.1; `answer` decides the response (it may also never answer). */
const receiver = async (answer: (res: ServerResponse, req: Received) => void): Promise<Receiver> => {
  const received: Array<Received> = []
  let arrivals = 0
  const server = createServer((req, res) => {
    arrivals++
    let body = ""
    req.setEncoding("utf8")
    req.on("data", (chunk: string) => (body += chunk))
    req.on("end", () => {
      const r = { method: req.method, url: req.url, headers: req.headers, body }
      received.push(r)
      answer(res, r)
    })
  })
  server.listen(0, "127.0.0.1")
  await once(server, "listening")
  open.push(server)
  const address = server.address()
  if (typeof address !== "object" || address === null) throw new Error("no port")
  return { port: address.port, received, arrivals: () => arrivals }
}

const respond = (status: number, body = "") => (res: ServerResponse) => {
  res.statusCode = status
  res.end(body)
}

const request = (url: string, overrides: Partial<OutboundRequest> = {}): OutboundRequest => ({
  url,
  body: JSON.stringify({ id: "evt_1", type: "payment.succeeded", data: { amount: 34900, note: "شكرا ✓" } }),
  headers: {
    "content-type": "application/json",
    "webhook-id": "evt_1",
    "webhook-timestamp": "1700000000",
    "webhook-signature": "v1,abc="
  },
  timeoutMillis: 2_000,
  livemode: false,
  ...overrides
})

/** A resolver standing in for DNS: answers each call with the next list of addresses (the last one repeats). */
const fakeResolver = (...answers: ReadonlyArray<ReadonlyArray<string>>) => {
  const calls: Array<string> = []
  const resolve = ((hostname: string, _options: unknown, callback: (e: Error | null, a: Array<LookupAddress>) => void) => {
    calls.push(hostname)
    const answer = answers[Math.min(calls.length - 1, answers.length - 1)]!
    const list = answer.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }))
    setImmediate(() => callback(null, list))
  }) as unknown as typeof dnsLookup
  return { resolve, calls }
}

/** Wraps a lookup to record what it handed to the socket: the addresses the connection then goes to. */
const recording = (inner: LookupFunction) => {
  const given: Array<string | Error> = []
  const lookup: LookupFunction = (hostname, options, callback) =>
    inner(hostname, options, ((error: NodeJS.ErrnoException | null, address: string | Array<LookupAddress>, family?: number) => {
      if (error) given.push(error)
      else if (Array.isArray(address)) given.push(...address.map((a) => a.address))
      else given.push(address)
      ;(callback as any)(error, address, family)
    }) as any)
  return { lookup, given }
}

/** Hands the socket an error after `inner` answered, so that a public answer is never connected to. */
const stopBeforeConnecting = (inner: LookupFunction): LookupFunction => (hostname, options, callback) =>
  inner(hostname, options, ((error: NodeJS.ErrnoException | null, address: unknown, family?: number) =>
    (callback as any)(error ?? Object.assign(new Error("stopped by the test before connecting"), { code: "ETEST" }), address, family)) as any)

describe("answers", () => {
  it("a 2xx answer is ok; the receiver gets the POST with the headers and the exact body", async () => {
    for (const status of [200, 201, 202, 204, 299]) {
      const r = await receiver(respond(status, status === 204 ? "" : "thanks"))
      const req = request(`http://127.0.0.1:${r.port}/hooks?x=1`)
      const outcome = await send(req)
      expect(outcome).toMatchObject({ ok: true, statusCode: status, error: null })
      expect(outcome.durationMillis).toBeGreaterThanOrEqual(0)
      expect(r.received).toHaveLength(1)
      const got = r.received[0]!
      expect(got.method).toBe("POST")
      expect(got.url).toBe("/hooks?x=1")
      expect(got.body).toBe(req.body)
      expect(got.headers["content-type"]).toBe("application/json")
      expect(got.headers["webhook-id"]).toBe("evt_1")
      expect(got.headers["webhook-timestamp"]).toBe("1700000000")
      expect(got.headers["webhook-signature"]).toBe("v1,abc=")
      expect(got.headers["content-length"]).toBe(String(Buffer.byteLength(req.body)))
    }
  })

  it("a loopback receiver's answer is kept for the delivery log only when the server keeps them (a developer's own)", async () => {
    const r = await receiver(respond(200, "what a local service says"))
    const shared = await send(request(`http://127.0.0.1:${r.port}/`))
    expect(shared).toMatchObject({ ok: true, statusCode: 200 })
    expect(shared.answer, "a server merchants share keeps none").toBeUndefined()
    const own = await send(request(`http://127.0.0.1:${r.port}/`), undefined, { keepLoopbackAnswers: true })
    expect(own).toMatchObject({ ok: true, statusCode: 200, answer: "what a local service says" })
  })

  it("a non-2xx answer is not ok and carries the status", async () => {
    for (const status of [500, 503, 404, 410, 300, 301, 302, 400]) {
      const r = await receiver(respond(status, "nope"))
      const outcome = await send(request(`http://127.0.0.1:${r.port}/`))
      expect(outcome.ok, String(status)).toBe(status >= 200 && status < 300)
      expect(outcome.statusCode).toBe(status)
      expect(r.received).toHaveLength(1)
    }
    const r = await receiver(respond(500))
    expect(await send(request(`http://127.0.0.1:${r.port}/`))).toMatchObject({ ok: false, statusCode: 500 })
  })

  it("a large answer body does not matter: the status decides", async () => {
    const r = await receiver(respond(200, "x".repeat(1024 * 1024)))
    expect(await send(request(`http://127.0.0.1:${r.port}/`))).toMatchObject({ ok: true, statusCode: 200 })
  })

  it("a refused connection is not ok, with no status and an error", async () => {
    const port = await closedPort()
    const outcome = await send(request(`http://127.0.0.1:${port}/`))
    expect(outcome.ok).toBe(false)
    expect(outcome.statusCode).toBeNull()
    expect(outcome.error).toMatch(/ECONNREFUSED/)
  })

  it("an invalid URL is not ok", async () => {
    expect(await send(request("not a url"))).toMatchObject({ ok: false, statusCode: null, error: "invalid url" })
  })
})

describe("timeouts", () => {
  const timeoutMillis = 300

  it("a receiver that reads the request and never answers: not ok within about the timeout", async () => {
    const r = await receiver(() => {})
    const started = performance.now()
    const outcome = await send(request(`http://127.0.0.1:${r.port}/`, { timeoutMillis }))
    const elapsed = performance.now() - started
    expect(outcome).toMatchObject({ ok: false, statusCode: null })
    expect(outcome.error).toMatch(/timeout/i)
    expect(r.arrivals()).toBe(1)
    expect(elapsed).toBeGreaterThanOrEqual(timeoutMillis - 20)
    expect(elapsed).toBeLessThan(timeoutMillis + 1_000)
  })

  it("a TCP peer that accepts and never speaks HTTP: not ok within about the timeout", async () => {
    const silent = await silentServer()
    closers.push(silent.close)
    const started = performance.now()
    const outcome = await send(request(`http://127.0.0.1:${silent.port}/`, { timeoutMillis }))
    const elapsed = performance.now() - started
    expect(outcome).toMatchObject({ ok: false, statusCode: null })
    expect(outcome.error).toMatch(/timeout/i)
    expect(elapsed).toBeGreaterThanOrEqual(timeoutMillis - 20)
    expect(elapsed).toBeLessThan(timeoutMillis + 1_000)
  })

  it("an answer inside the timeout is ok", async () => {
    const r = await receiver((res) => setTimeout(() => respond(200)(res), 100))
    expect(await send(request(`http://127.0.0.1:${r.port}/`, { timeoutMillis: 1_000 }))).toMatchObject({ ok: true })
  })
})

describe("live mode refuses internal addresses", () => {
  it("literal loopback and private addresses are refused before any connection", async () => {
    const r = await receiver(respond(200))
    for (const host of ["127.0.0.1", "[::1]", "[::ffff:127.0.0.1]", "10.0.0.1", "169.254.169.254", "0.0.0.0"]) {
      const outcome = await send(request(`http://${host}:${r.port}/`, { livemode: true }))
      expect(outcome, host).toMatchObject({ ok: false, statusCode: null })
      expect(outcome.error, host).toMatch(/^refused/)
    }
    const https = await send(request(`https://127.0.0.1:${r.port}/`, { livemode: true }))
    expect(https.error).toMatch(/^refused/)
    expect(r.arrivals()).toBe(0)
    // The same receiver is reachable: it is the mode that refused.
    expect(await send(request(`http://127.0.0.1:${r.port}/`, { livemode: false }))).toMatchObject({ ok: true })
    expect(r.arrivals()).toBe(1)
  })

  it("internal names (localhost, *.localhost, *.internal) are refused without asking DNS", async () => {
    const r = await receiver(respond(200))
    const dns = fakeResolver(["127.0.0.1"])
    for (const host of ["localhost", "api.localhost", "metadata.google.internal"]) {
      const outcome = await send(request(`http://${host}:${r.port}/`, { livemode: true }), publicOnlyLookup(dns.resolve))
      expect(outcome.ok, host).toBe(false)
      expect(outcome.error, host).toMatch(/^refused/)
    }
    // The default lookup too.
    expect((await send(request(`http://localhost:${r.port}/`, { livemode: true }))).error).toMatch(/^refused/)
    expect(dns.calls).toEqual([])
    expect(r.arrivals()).toBe(0)
  })

  it("a public-looking name that resolves to loopback is refused at connection time", async () => {
    const r = await receiver(respond(200))
    for (const answer of [["127.0.0.1"], ["::1"], ["10.1.2.3"], ["::ffff:127.0.0.1"], ["169.254.169.254"]]) {
      const dns = fakeResolver(answer)
      const outcome = await send(
        request(`http://hooks.merchant.example:${r.port}/`, { livemode: true, timeoutMillis: 1_000 }),
        publicOnlyLookup(dns.resolve)
      )
      expect(outcome, answer[0]).toMatchObject({ ok: false, statusCode: null })
      expect(outcome.error, answer[0]).toMatch(/^refused: hooks\.merchant\.example resolves to an internal address/)
      expect(dns.calls).toEqual(["hooks.merchant.example"])
    }
    expect(r.arrivals()).toBe(0)
  })

  it("an answer that mixes a public and an internal address is refused as a whole", async () => {
    const r = await receiver(respond(200))
    const dns = fakeResolver(["93.184.215.14", "127.0.0.1"])
    const outcome = await send(
      request(`http://rebind.example:${r.port}/`, { livemode: true, timeoutMillis: 300 }),
      publicOnlyLookup(dns.resolve)
    )
    expect(outcome.error).toMatch(/^refused/)
    expect(r.arrivals()).toBe(0)
  })

  it("DNS rebinding: public on the first answer, internal afterwards; the connection never reaches the internal one", async () => {
    const r = await receiver(respond(200))
    const dns = fakeResolver(["93.184.215.14"], ["127.0.0.1"])
    const spy = recording(publicOnlyLookup(dns.resolve))
    const req = request(`http://rebind.example:${r.port}/`, { livemode: true, timeoutMillis: 300 })

    // First delivery: the one lookup answers the public address, and that is what the socket is handed (the test
    // stops it there: nothing is sent off this machine); no second resolution happens between check and connection.
    const first = await send(req, stopBeforeConnecting(spy.lookup))
    expect(dns.calls).toEqual(["rebind.example"])
    expect(spy.given).toEqual(["93.184.215.14"])
    expect(first.ok).toBe(false)
    expect(first.error).not.toMatch(/^refused/)

    // Next delivery: the name now points inside; it is refused.
    const second = await send(req, spy.lookup)
    expect(dns.calls).toEqual(["rebind.example", "rebind.example"])
    expect(spy.given).toHaveLength(2)
    expect(spy.given[1]).toBeInstanceOf(Error)
    expect(second).toMatchObject({ ok: false, statusCode: null })
    expect(second.error).toMatch(/^refused/)

    expect(r.arrivals()).toBe(0)
  })

  it("test mode checks resolved addresses too: loopback passes, a name that turns private is refused", async () => {
    const r = await receiver(respond(200))
    // The first name resolves to loopback, the second to a private address.
    const dns = fakeResolver(["127.0.0.1"], ["10.0.0.5"])
    const lookup = publicOnlyLookup(dns.resolve, { allowLoopback: true })
    const first = await send(request(`http://hooks.example:${r.port}/`, { livemode: false }), lookup)
    expect(first).toMatchObject({ ok: true, statusCode: 200 })
    const second = await send(request(`http://private.example:${r.port}/`, { livemode: false }), lookup)
    expect(second).toMatchObject({ ok: false, statusCode: null })
    expect(second.error).toMatch(/^refused/)
    expect(dns.calls).toEqual(["hooks.example", "private.example"])
    expect(r.received).toHaveLength(1)
    // A private literal is refused in test mode before any connection.
    const literal = await send(request(`http://10.0.0.5:${r.port}/`, { livemode: false }))
    expect(literal.error).toMatch(/^refused/)
  })
})

describe("the WebhookTransportHttp layer", () => {
  const sendVia = (req: OutboundRequest) =>
    Effect.runPromise(Effect.flatMap(WebhookTransport, (t) => t.send(req)).pipe(Effect.provide(WebhookTransportHttp)))

  it("test mode reaches a loopback receiver; live mode refuses it", async () => {
    const r = await receiver(respond(200))
    expect(await sendVia(request(`http://127.0.0.1:${r.port}/`))).toMatchObject({ ok: true, statusCode: 200 })
    expect(await sendVia(request(`http://localhost:${r.port}/`))).toMatchObject({ ok: true, statusCode: 200 })
    expect(r.received).toHaveLength(2)
    const live = await sendVia(request(`http://127.0.0.1:${r.port}/`, { livemode: true }))
    expect(live).toMatchObject({ ok: false, statusCode: null })
    expect(live.error).toMatch(/^refused/)
    const liveName = await sendVia(request(`https://localhost:${r.port}/`, { livemode: true }))
    expect(liveName.error).toMatch(/^refused/)
    expect(r.arrivals()).toBe(2)
  })

  it("never fails: a refused connection and a timeout are outcomes", async () => {
    const port = await closedPort()
    expect(await sendVia(request(`http://127.0.0.1:${port}/`))).toMatchObject({ ok: false, statusCode: null })
    const r = await receiver(() => {})
    const outcome = await sendVia(request(`http://127.0.0.1:${r.port}/`, { timeoutMillis: 300 }))
    expect(outcome).toMatchObject({ ok: false, statusCode: null })
    expect(outcome.durationMillis).toBeGreaterThanOrEqual(250)
    expect(outcome.durationMillis).toBeLessThan(1_300)
  })
})
