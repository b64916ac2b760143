/**
 * `fils serve` behind a reverse proxy: a real `node:http` proxy on 127.0.0.1 forwards every request and
 * appends the address it saw to `X-Forwarded-For`, as nginx's `proxy_add_x_forwarded_for` does. Clients come from
 * distinct loopback addresses (127.0.0.2, 127.0.0.3, …). With `FILS_TRUSTED_PROXIES` naming the proxy, each client
 * has its own failed-authentication budget and its own address in the request log; a header a client writes itself
 * is not believed past the trusted hop, and a peer that is not a trusted proxy is not believed at all. Without it
 * (the default), every client behind the proxy shares the proxy's one address.
 */
import { once } from "node:events"
import { createServer, request as httpRequest, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parseTrust } from "../../adapters/http/ClientAddress.js"
import { runFils, type Served, serveFils } from "../support/cli.js"
import { type TestDatabase, testDatabase, waitFor } from "../support/load.js"

let db: TestDatabase

/** A reverse proxy to `target`: forwards method, path, headers and body, appending the peer to X-Forwarded-For. */
const startProxy = async (target: string): Promise<{ readonly url: string; readonly close: () => Promise<void> }> => {
  const upstream = new URL(target)
  const server: Server = createServer((req, res) => {
    const peer = (req.socket.remoteAddress ?? "").replace(/^::ffff:/, "")
    const prior = req.headers["x-forwarded-for"]
    const headers = { ...req.headers, "x-forwarded-for": prior === undefined ? peer : `${prior}, ${peer}` }
    const out = httpRequest({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(res)
    })
    out.on("error", () => res.writeHead(502).end())
    req.pipe(out)
  })
  server.listen(0, "127.0.0.1")
  await once(server, "listening")
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections()
      server.close()
      await once(server, "close")
    }
  }
}

/** A GET of `/api/v1/account` with a bad key, from the local address `from`, with extra headers. */
const badKey = (base: string, from: string, headers: Record<string, string> = {}) =>
  new Promise<number>((resolve, reject) => {
    const url = new URL(`${base}/api/v1/account`)
    const req = httpRequest({
      host: url.hostname,
      port: url.port,
      path: url.pathname,
      localAddress: from,
      headers: { authorization: `Bearer sk_test_${"x".repeat(32)}`, ...headers }
    }, (res) => {
      res.resume()
      res.on("end", () => resolve(res.statusCode ?? 0))
    })
    req.on("error", reject)
    req.end()
  })

const logLines = (served: Served) =>
  served.stdout().split("\n").filter((l) => l.includes("http request")).map((l) => JSON.parse(l) as Record<string, any>)

/** The client addresses of the request lines once `count` of them (not `/ready`'s) reached stdout (within ~20 ms). */
const loggedAddresses = async (served: Served, count: number): Promise<ReadonlyArray<string>> => {
  const requests = () => logLines(served).filter((l) => l.route !== "/ready")
  await waitFor(`${count} request lines`, () => requests().length >= count, 5_000, () => served.stdout())
  return requests().map((l) => String(l.client_address))
}

beforeAll(async () => {
  db = await testDatabase()
}, 60_000)

afterAll(async () => {
  await db?.close()
})

/** `fils serve` with `trust`, a failed-authentication limit of 3 a minute, and a proxy in front. */
const behindProxy = async (trust: string | undefined) => {
  const served = await serveFils({
    DATABASE_URL: db.url,
    FILS_DATA_DIR: undefined,
    FILS_TRUSTED_PROXIES: trust,
    FILS_AUTH_FAILURES_PER_MIN: "3",
    FILS_LOG_LEVEL: "info"
  }, 60_000)
  const proxy = await startProxy(served.baseUrl)
  return {
    served,
    proxy,
    close: async () => {
      await proxy.close()
      await served.stop("SIGTERM")
    }
  }
}

describe("behind a reverse proxy", () => {
  it("FILS_TRUSTED_PROXIES naming the proxy: each client its own budget and its own address in the log; a client's own X-Forwarded-For is not believed", async () => {
    const { close, proxy, served } = await behindProxy("127.0.0.1")
    try {
      const a = []
      for (let i = 0; i < 4; i++) a.push(await badKey(proxy.url, "127.0.0.2"))
      expect(a).toEqual([401, 401, 401, 429])
      // Another client behind the same proxy still has its budget.
      expect(await badKey(proxy.url, "127.0.0.3")).toBe(401)
      // A forged header does not buy client A a new budget: the proxy saw 127.0.0.2.
      expect(await badKey(proxy.url, "127.0.0.2", { "x-forwarded-for": "203.0.113.9" })).toBe(429)
      // A peer that is not the trusted proxy, writing the header itself, is taken for what its socket says.
      for (let i = 0; i < 3; i++) expect(await badKey(served.baseUrl, "127.0.0.4", { "x-forwarded-for": `198.51.100.${i}` })).toBe(401)
      expect(await badKey(served.baseUrl, "127.0.0.4", { "x-forwarded-for": "198.51.100.77" })).toBe(429)
      const addresses = await loggedAddresses(served, 10)
      expect(new Set(addresses)).toEqual(new Set(["127.0.0.2", "127.0.0.3", "127.0.0.4"]))
    } finally {
      await close()
    }
  }, 90_000)

  it("a hop count of 1 trusts the nearest peer (the proxy)", async () => {
    const { close, proxy } = await behindProxy("1")
    try {
      for (let i = 0; i < 3; i++) expect(await badKey(proxy.url, "127.0.0.5")).toBe(401)
      expect(await badKey(proxy.url, "127.0.0.5")).toBe(429)
      expect(await badKey(proxy.url, "127.0.0.6")).toBe(401)
    } finally {
      await close()
    }
  }, 90_000)

  it("by default no proxy is trusted: behind one, every client shares its address (and its budget)", async () => {
    const { close, proxy, served } = await behindProxy(undefined)
    try {
      for (let i = 0; i < 3; i++) expect(await badKey(proxy.url, "127.0.0.7", { "x-forwarded-for": `192.0.2.${i}` })).toBe(401)
      expect(await badKey(proxy.url, "127.0.0.8")).toBe(429)
      const addresses = (await loggedAddresses(served, 4)).map((a) => a.replace(/^::ffff:/, ""))
      expect(new Set(addresses)).toEqual(new Set(["127.0.0.1"]))
    } finally {
      await close()
    }
  }, 90_000)

  it("a bad FILS_TRUSTED_PROXIES is refused with a message naming it, before the database is touched", async () => {
    const refused = await runFils(["serve", "--port", "0"], { DATABASE_URL: "postgres://nobody@127.0.0.1:1/none", FILS_TRUSTED_PROXIES: "10.0.0.0/33" })
    expect(refused.code).not.toBe(0)
    expect(refused.stdout + refused.stderr).toContain("FILS_TRUSTED_PROXIES must be a hop count or a comma-separated list")
    expect(refused.stdout + refused.stderr).not.toContain("database cannot be reached")
    for (const bad of ["10.0.0.0/33", "not-an-address", "1,,2", "99"]) expect(parseTrust(bad)._tag, bad).toBe("Left")
    for (const good of ["", "0", "2", "loopback", "10.0.0.0/8, 192.168.1.1", "::1", "uniquelocal"]) expect(parseTrust(good)._tag, good).toBe("Right")
  })
})
