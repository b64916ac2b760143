/**
 * SSRF (docs/webhooks.md "Endpoint URLs"): live webhook URLs that are or resolve to loopback, private or link-local
 * addresses are refused at creation (addresses and internal names on their face, and names by what they resolve to
 * then, through the transport's `checkHost`) and at delivery time, after a fresh DNS lookup, so a name that was public
 * when the endpoint was made and is rebound to an internal address later (DNS rebinding) never reaches it.
 *
 * The DNS is real: a tiny server on 127.0.0.1 (node:dgram) answering A/AAAA queries from a table the test changes,
 * used by the transport through `resolverLookup` (node's `dns.Resolver` with `setServers`). The engine is the real
 * one (memory store, node signer, HTTP transport); the loopback "internal service" is a TCP server that counts
 * connections.
 */
import { EInvoiceAdapters } from "../../adapters/einvoice/ProviderConfig.js"
import { ConfigProvider, Effect, Layer, ManagedRuntime, Redacted } from "effect"
import { createSocket, type Socket } from "node:dgram"
import { once } from "node:events"
import { createServer, type Server } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { SignerNode } from "../../adapters/crypto/SignerNode.js"
import { StoreMemory } from "../../adapters/memory/StoreMemory.js"
import { SimulatedProcessor } from "../../adapters/processor/SimulatedProcessor.js"
import { makeWebHandler } from "../../adapters/http/WebHandler.js"
import {
  checkHost,
  makeWebhookTransportHttp,
  publicOnlyLookup,
  resolverLookup,
  send
} from "../../adapters/webhooks/WebhookTransportHttp.js"
import { Accounts } from "../../src/application/Accounts.js"
import { Deliveries } from "../../src/application/Deliveries.js"
import { Engine } from "../../src/application/Engine.js"
import { Webhooks } from "../../src/application/Webhooks.js"
import type { Scope } from "../../src/domain/Account.js"
import { Store } from "../../src/ports/Store.js"
import { makeDelivery, makeEvent } from "./webhookStoreContract.js"

/** A global unicast address for the DNS answers: checked by the rules, never connected to. */
const publicAddress = "93.184.215.14"

// A DNS server ---------------------------------------------------------------------------------------------------

interface Dns {
  readonly server: string
  /** name -> the A and AAAA answers (no entry: NXDOMAIN). */
  readonly table: Map<string, { a: ReadonlyArray<string>; aaaa: ReadonlyArray<string> }>
  /** Every question asked, as `name TYPE`. */
  readonly queries: Array<string>
  readonly close: () => Promise<void>
}

const A = 1
const AAAA = 28

const ipv4Bytes = (ip: string) => Buffer.from(ip.split(".").map(Number))
const ipv6Bytes = (text: string) => {
  // An IPv4 tail (::ffff:127.0.0.1) becomes two groups.
  const ip = text.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_, a, b, c, d) =>
    `${((+a << 8) | +b).toString(16)}:${((+c << 8) | +d).toString(16)}`)
  const [head, tail = ""] = ip.split("::")
  const h = head === "" ? [] : head!.split(":")
  const t = tail === "" ? [] : tail.split(":")
  const groups = [...h, ...new Array(8 - h.length - t.length).fill("0"), ...t]
  const out = Buffer.alloc(16)
  groups.forEach((g, i) => out.writeUInt16BE(parseInt(g, 16), i * 2))
  return out
}

/** Answers one query: the question copied, then one record per address of the asked type. */
const answer = (query: Buffer, dns: Dns): Buffer => {
  let offset = 12
  const labels: Array<string> = []
  while (query[offset]! !== 0) {
    const length = query[offset]!
    labels.push(query.subarray(offset + 1, offset + 1 + length).toString("latin1"))
    offset += 1 + length
  }
  offset += 1
  const type = query.readUInt16BE(offset)
  const question = query.subarray(12, offset + 4)
  const name = labels.join(".").toLowerCase()
  dns.queries.push(`${name} ${type === A ? "A" : type === AAAA ? "AAAA" : type}`)
  const entry = dns.table.get(name)
  const addresses = entry === undefined ? [] : type === A ? entry.a : type === AAAA ? entry.aaaa : []
  const header = Buffer.alloc(12)
  query.copy(header, 0, 0, 2) // id
  header.writeUInt16BE(0x8000 | (query.readUInt16BE(2) & 0x0100) | 0x0080 | (entry === undefined ? 3 : 0), 2)
  header.writeUInt16BE(1, 4)
  header.writeUInt16BE(addresses.length, 6)
  const records = addresses.map((address) => {
    const data = type === A ? ipv4Bytes(address) : ipv6Bytes(address)
    const record = Buffer.alloc(12)
    record.writeUInt16BE(0xc00c, 0) // the name: a pointer to the question's
    record.writeUInt16BE(type, 2)
    record.writeUInt16BE(1, 4) // IN
    record.writeUInt32BE(0, 6) // TTL 0: never cached
    record.writeUInt16BE(data.length, 10)
    return Buffer.concat([record, data])
  })
  return Buffer.concat([header, question, ...records])
}

const startDns = async (): Promise<Dns> => {
  const socket: Socket = createSocket("udp4")
  const dns: Dns = {
    server: "",
    table: new Map(),
    queries: [],
    close: () => new Promise((resolve) => socket.close(() => resolve()))
  }
  socket.on("message", (message, remote) => {
    try {
      socket.send(answer(message, dns), remote.port, remote.address)
    } catch {
      // a malformed query: no answer
    }
  })
  socket.bind(0, "127.0.0.1")
  await once(socket, "listening")
  return { ...dns, server: `127.0.0.1:${socket.address().port}` }
}

// The engine with the transport on this DNS --------------------------------------------------------------------

let dns: Dns
let internal: { server: Server; port: number; connections: number }
let runtime: ManagedRuntime.ManagedRuntime<any, never>

const liveHost = "shop-hooks.fils-rebind.test"

beforeAll(async () => {
  dns = await startDns()
  const server = createServer((socket) => {
    internal.connections++
    socket.destroy()
  })
  server.listen(0, "127.0.0.1")
  await once(server, "listening")
  internal = { server, port: (server.address() as { port: number }).port, connections: 0 }
  runtime = ManagedRuntime.make(engineOnThisDns() as Layer.Layer<any, never>)
})

/** The engine (memory store, node signer) with the HTTP transport resolving names through this test's DNS server. */
const engineOnThisDns = () =>
  Engine.pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        StoreMemory,
        SignerNode,
        SimulatedProcessor,
        makeWebhookTransportHttp({ resolve: resolverLookup([dns.server]) }),
        EInvoiceAdapters
      )
    ),
    Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map())))
  )

afterAll(async () => {
  await runtime?.dispose()
  internal?.server.close()
  await dns?.close()
})

const run = <A>(effect: Effect.Effect<A, unknown, any>): Promise<A> => runtime.runPromise(effect as Effect.Effect<A, never, never>)

const createEndpoint = (scope: Scope, url: string) =>
  Effect.flatMap(Webhooks, (w) => w.create(scope, { url, event_types: ["payment.succeeded"] }))

/** A live scope of a new account. */
const liveScope = () =>
  run(Effect.gen(function*() {
    const accounts = yield* Accounts
    const { keys } = yield* accounts.create({ business_name: "Souq" })
    const p = yield* accounts.authenticate(keys.live.secret)
    return { accountId: p.accountId, livemode: true } satisfies Scope
  }))

const updateUrl = (scope: Scope, id: string, url: string) =>
  Effect.flatMap(Webhooks, (w) => w.update(scope, id as never, { url }))

const listed = (scope: Scope) => Effect.map(Effect.flatMap(Webhooks, (w) => w.list(scope, {})), (l) => l.items)

/** Queues one delivery of a new event to `webhookId` and runs one dispatch pass; returns the delivery's attempts. */
const deliverOnce = (scope: Scope, webhookId: string) =>
  run(Effect.gen(function*() {
    const store = yield* Store
    const endpoint = (yield* (yield* Webhooks).get(scope, webhookId as never))
    const event = yield* makeEvent(scope)
    yield* store.events.insert(event)
    const delivery = yield* makeDelivery(event, endpoint)
    yield* store.deliveries.enqueue([delivery])
    const deliveries = yield* Deliveries
    yield* deliveries.dispatchOnce()
    const attempts = yield* deliveries.attempts(delivery.delivery_id)
    const after = yield* store.deliveries.get(delivery.delivery_id)
    return { attempts, delivery: after }
  }))

describe("SSRF: live webhook URLs", () => {
  it("internal addresses and names are refused at creation", async () => {
    const scope = await liveScope()
    const refused = [
      "https://127.0.0.1/hook",
      "https://127.8.9.10/hook",
      "https://10.0.0.5/hook",
      "https://172.16.4.4/hook",
      "https://192.168.1.1/hook",
      "https://169.254.169.254/latest/meta-data",
      "https://[::1]/hook",
      "https://[fe80::1]/hook",
      "https://[fd00::1]/hook",
      "https://[::ffff:127.0.0.1]/hook",
      "https://localhost/hook",
      "https://api.localhost/hook",
      "https://metadata.google.internal/hook",
      "https://printer.local/hook",
      "https://intranet/hook"
    ]
    for (const url of refused) {
      const result = await run(Effect.either(createEndpoint(scope, url)))
      expect(result._tag, url).toBe("Left")
      if (result._tag === "Left") expect((result.left as { _tag: string })._tag, url).toBe("InvalidRequest")
    }
    // A public name is accepted (names are checked again at every delivery, below).
    dns.table.set(liveHost, { a: [publicAddress], aaaa: [] })
    const ok = await run(Effect.either(createEndpoint(scope, `https://${liveHost}:${internal.port}/hook`)))
    expect(ok._tag).toBe("Right")
  })

  it("DNS rebinding: public at creation, internal at delivery: refused, recorded as a failed attempt, never connected", async () => {
    const scope = await liveScope()
    dns.table.set(liveHost, { a: [publicAddress], aaaa: [] })
    const endpoint = await run(createEndpoint(scope, `https://${liveHost}:${internal.port}/hook`))
    const rebound: ReadonlyArray<{ a: ReadonlyArray<string>; aaaa: ReadonlyArray<string> }> = [
      { a: ["127.0.0.1"], aaaa: [] },
      { a: ["10.1.2.3"], aaaa: [] },
      { a: ["169.254.169.254"], aaaa: [] },
      { a: ["192.168.0.10"], aaaa: [] },
      // One internal answer among public ones is enough to refuse.
      { a: [publicAddress, "127.0.0.1"], aaaa: [] },
      { a: [], aaaa: ["::1"] },
      { a: [], aaaa: ["::ffff:127.0.0.1"] },
      { a: [publicAddress], aaaa: ["fe80::1"] }
    ]
    for (const answers of rebound) {
      dns.table.set(liveHost, answers)
      const asked = dns.queries.length
      const { attempts, delivery } = await deliverOnce(scope, endpoint.webhook_id)
      const label = JSON.stringify(answers)
      // The name was resolved again for this attempt, through our DNS server.
      expect(dns.queries.slice(asked), label).toContain(`${liveHost} A`)
      expect(attempts, label).toHaveLength(1)
      expect(attempts[0]!.status_code, label).toBeNull()
      expect(attempts[0]!.error, label).toMatch(/^refused: .*internal address/)
      expect(delivery._tag === "Some" && delivery.value.status, label).toBe("pending") // failed, retried later
      expect(delivery._tag === "Some" && delivery.value.last_error, label).toMatch(/^refused: /)
    }
    expect(internal.connections).toBe(0)
  }, 60_000)

  it("controls: a public answer passes the lookup; test mode and this DNS server reach the loopback receiver", async () => {
    // A public answer passes the transport's lookup unchanged (it is handed to the connection; no test connects to a
    // public address: nothing leaves this machine).
    dns.table.set(liveHost, { a: [publicAddress], aaaa: [] })
    const lookup = publicOnlyLookup(resolverLookup([dns.server]))
    const passed = await new Promise<unknown>((resolve) =>
      lookup(liveHost, { all: true }, (error, addresses) => resolve(error ?? addresses))
    )
    expect(passed).toEqual([{ address: publicAddress, family: 4 }])
    // Test mode may use loopback receivers (development): the same name, rebound to 127.0.0.1, connects.
    dns.table.set(liveHost, { a: ["127.0.0.1"], aaaa: [] })
    const before = internal.connections
    const resolved = await new Promise<unknown>((resolve) =>
      resolverLookup([dns.server])(liveHost, { all: true }, (error, addresses) => resolve(error ?? addresses))
    )
    expect(resolved).toEqual([{ address: "127.0.0.1", family: 4 }])
    await send({
      url: `http://127.0.0.1:${internal.port}/hook`,
      body: "{}",
      headers: {},
      timeoutMillis: 2_000,
      livemode: false
    })
    expect(internal.connections).toBe(before + 1)
  })
})

describe("SSRF: names are resolved when an endpoint is created or re-pointed", () => {
  const inside = "hooks.fils-inside.test"

  it("checkHost answers by the delivery's rules: live refuses any internal address, test mode lets loopback through", async () => {
    const resolve = resolverLookup([dns.server])
    const live = publicOnlyLookup(resolve)
    const test = publicOnlyLookup(resolve, { allowLoopback: true })
    dns.table.set("public.fils-check.test", { a: [publicAddress], aaaa: [] })
    dns.table.set("loopback.fils-check.test", { a: ["127.0.0.1"], aaaa: [] })
    dns.table.set("private.fils-check.test", { a: ["10.1.2.3"], aaaa: [] })
    dns.table.delete("missing.fils-check.test")
    const answers = async (lookup: typeof live) => ({
      public: await checkHost("public.fils-check.test", lookup),
      loopback: await checkHost("loopback.fils-check.test", lookup),
      private: await checkHost("private.fils-check.test", lookup),
      missing: await checkHost("missing.fils-check.test", lookup),
      internalName: await checkHost("metadata.google.internal", lookup)
    })
    expect(await answers(live)).toEqual({
      public: "allowed",
      loopback: "internal",
      private: "internal",
      missing: "unresolved",
      internalName: "internal"
    })
    expect(await answers(test)).toEqual({
      public: "allowed",
      loopback: "allowed",
      private: "internal",
      missing: "unresolved",
      internalName: "internal"
    })
    // A resolver that never answers: unresolved after the timeout, not a hang.
    const silent = (() => undefined) as unknown as typeof live
    const started = Date.now()
    expect(await checkHost("slow.fils-check.test", silent, 200)).toBe("unresolved")
    expect(Date.now() - started).toBeLessThan(2_000)
  })

  it("a live name that already resolves to 10.1.2.3 (or any internal address) is 400 INVALID_REQUEST over the API", async () => {
    dns.table.set(inside, { a: ["10.1.2.3"], aaaa: [] })
    const web = await makeWebHandler({ engine: engineOnThisDns() })
    try {
      const { keys } = await web.run(Effect.flatMap(Accounts, (a) => a.create({ business_name: "Souq" })))
      const asked = dns.queries.length
      const res = await web.handler(new Request("http://fils.test/api/v1/webhooks", {
        method: "POST",
        headers: { authorization: `Bearer ${Redacted.value(keys.live.secret)}`, "content-type": "application/json" },
        body: JSON.stringify({ url: `https://${inside}/hook` })
      }))
      expect(res.status).toBe(400)
      expect(await res.json()).toEqual({
        code: "INVALID_REQUEST",
        message: `A live endpoint's url must reach a public host: ${inside} resolves to an internal address`
      })
      // Resolved through the transport's resolver (this DNS server), as a delivery would be.
      expect(dns.queries.slice(asked)).toContain(`${inside} A`)
      const list = await web.handler(new Request("http://fils.test/api/v1/webhooks", {
        headers: { authorization: `Bearer ${Redacted.value(keys.live.secret)}` }
      }))
      expect((await list.json()).items).toEqual([])
    } finally {
      await web.dispose()
    }
  })

  it("any internal answer refuses a live name, at creation and on a url change (the endpoint is left as it was)", async () => {
    const scope = await liveScope()
    const internalAnswers: ReadonlyArray<{ a: ReadonlyArray<string>; aaaa: ReadonlyArray<string> }> = [
      { a: ["10.1.2.3"], aaaa: [] },
      { a: [publicAddress, "169.254.169.254"], aaaa: [] },
      { a: [], aaaa: ["fd00::1"] },
      { a: ["127.0.0.1"], aaaa: [] }
    ]
    for (const answers of internalAnswers) {
      dns.table.set(inside, answers)
      const result = await run(Effect.either(createEndpoint(scope, `https://${inside}/hook`)))
      expect(result._tag, JSON.stringify(answers)).toBe("Left")
      if (result._tag === "Left") {
        expect(result.left, JSON.stringify(answers)).toMatchObject({ _tag: "InvalidRequest", code: "INVALID_REQUEST" })
      }
    }
    expect(await run(listed(scope))).toEqual([])

    dns.table.set(liveHost, { a: [publicAddress], aaaa: [] })
    const endpoint = await run(createEndpoint(scope, `https://${liveHost}/hook`))
    dns.table.set(inside, { a: ["10.1.2.3"], aaaa: [] })
    const moved = await run(Effect.either(updateUrl(scope, endpoint.webhook_id, `https://${inside}/hook`)))
    expect(moved._tag).toBe("Left")
    if (moved._tag === "Left") expect(moved.left).toMatchObject({ _tag: "InvalidRequest" })
    expect((await run(listed(scope))).map((w) => w.url)).toEqual([`https://${liveHost}/hook`])
  })

  it("a name that does not resolve (yet) is accepted: DNS may be down, and every delivery resolves it again", async () => {
    const scope = await liveScope()
    const unknown = "not-yet-published.fils-inside.test"
    dns.table.delete(unknown)
    const created = await run(Effect.either(createEndpoint(scope, `https://${unknown}/hook`)))
    expect(created._tag).toBe("Right")
  })

  it("test mode: a name resolving to loopback is accepted (local receivers), one resolving to 10.x is refused", async () => {
    const { test } = await run(Effect.gen(function*() {
      const { account } = yield* (yield* Accounts).create({ business_name: "Souq" })
      return { test: { accountId: account.account_id, livemode: false } satisfies Scope }
    }))
    const local = "receiver.fils-local.test"
    dns.table.set(local, { a: ["127.0.0.1"], aaaa: [] })
    const ok = await run(Effect.either(createEndpoint(test, `http://${local}:${internal.port}/hook`)))
    expect(ok._tag).toBe("Right")
    dns.table.set(inside, { a: ["10.1.2.3"], aaaa: [] })
    const refused = await run(Effect.either(createEndpoint(test, `http://${inside}/hook`)))
    expect(refused._tag).toBe("Left")
    if (refused._tag === "Left") {
      expect(refused.left).toMatchObject({
        _tag: "InvalidRequest",
        message: `A test endpoint's url must reach a public host or this machine (loopback): ${inside} resolves to an internal address`
      })
    }
  })
})
