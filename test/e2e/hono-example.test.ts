/**
 * examples/hono/server.ts as a real process: a Hono app with its own routes and Fils mounted under `/fils` through
 * the fetch-style web handler (`app.mount`), on the memory store. Then both handlers in-process, where no framework
 * takes the prefix off, and a store that cannot be reached failing the handler's construction.
 */
import { Effect, Layer, Redacted } from "effect"
import { once } from "node:events"
import { createServer } from "node:http"
import { afterAll, describe, expect, it } from "vitest"
import { makeNodeHandler, makeWebHandler } from "../../adapters/http/WebHandler.js"
import { StoreMemory } from "../../adapters/memory/StoreMemory.js"
import { NodeAdapters } from "../../adapters/runtime/NodeAdapters.js"
import { PgLive } from "../../adapters/sql/Postgres.js"
import { StoreSql } from "../../adapters/sql/StoreSql.js"
import { Accounts } from "../../src/application/Accounts.js"
import { Engine } from "../../src/application/Engine.js"
import { closedPort } from "../support/tcp.js"
import {
  checkDashboard,
  checkDocs,
  checkHostRoutes,
  checkNotFound,
  checkWebhookDelivery,
  type RunningExample,
  sellThroughPrefix,
  startExample,
  testKeyOf
} from "./hostExample.js"

const host404 = /^404 Not Found$/
let running: RunningExample | undefined

afterAll(() => {
  if (running !== undefined && running.child.exitCode === null) running.child.kill("SIGKILL")
})

describe("examples/hono: Fils under /fils of a Hono app, through the web handler", () => {
  let key = ""

  it("starts, prints the URLs under /fils and a test key; the host's own routes answer", async () => {
    running = await startExample("examples/hono/server.ts", { FILS_STORE: "memory" })
    const out = running.stdout()
    expect(out).toContain(`Fils API     ${running.origin}/fils/api/v1`)
    expect(out).toContain(`Reference    ${running.origin}/fils/docs`)
    key = testKeyOf(out)
    await checkHostRoutes(running.origin, "hono-host", host404)
  }, 120_000)

  it("sells through /fils: product, session with a prefixed checkout_url, the page, the paid form, the redirect", async () => {
    await sellThroughPrefix(running!.origin, key)
  }, 120_000)

  it("answers Fils JSON 404s under /fils and leaves other 404s to Hono", async () => {
    await checkNotFound(running!.origin, host404)
  }, 60_000)

  it("serves the dashboard under /fils: the printed sign-in link, then its pages with prefixed links", async () => {
    await checkDashboard(running!.origin, running!.stdout())
  }, 60_000)

  it("serves /fils/docs and /fils/api/v1/openapi.json", async () => {
    await checkDocs(running!.origin)
  }, 60_000)

  it("runs the background workers in the host process: a webhook registered under /fils is delivered, signed", async () => {
    await checkWebhookDelivery(running!.origin, key)
  }, 120_000)

  it("stops on SIGTERM", async () => {
    expect(await running!.stop()).toBe(0)
  }, 60_000)
})

const EngineMemory = Engine.pipe(Layer.provideMerge(Layer.mergeAll(StoreMemory, NodeAdapters)))

describe("the handlers on their own (no framework taking the prefix off)", () => {
  it("a bare web handler answers with or without the public URL's path, with the security headers", async () => {
    const fils = await makeWebHandler({ engine: EngineMemory, publicUrl: "https://shop.example/fils/" })
    try {
      for (const path of ["/fils/health", "/health", "/fils/health?x=1"]) {
        const res = await fils.handler(new Request(`https://shop.example${path}`))
        expect(res.status, path).toBe(200)
        expect(await res.json()).toEqual({ status: "ok" })
        expect(res.headers.get("x-content-type-options")).toBe("nosniff")
      }
      // `/filsx` is not under `/fils`: Fils' own 404, not a stripped path.
      const other = await fils.handler(new Request("https://shop.example/filsx/health"))
      expect(other.status).toBe(404)
      expect(await other.json()).toMatchObject({ code: "NOT_FOUND" })
    } finally {
      await fils.dispose()
    }
  }, 60_000)

  it("a Node listener on a plain node:http server serves under the prefix, and its checkout_url carries it", async () => {
    const fils = await makeNodeHandler({ engine: EngineMemory, publicUrl: "http://127.0.0.1:1/fils" })
    const server = createServer(fils.handler).listen(0, "127.0.0.1")
    await once(server, "listening")
    const { port } = server.address() as { port: number }
    try {
      const { keys } = await fils.run(Effect.flatMap(Accounts, (a) => a.create({ business_name: "Plain Node" })))
      const headers = { authorization: `Bearer ${Redacted.value(keys.test.secret)}`, "content-type": "application/json" }
      const product = await (await fetch(`http://127.0.0.1:${port}/fils/api/v1/products`, {
        method: "POST",
        headers,
        body: JSON.stringify({ name: "Beans", price: 5000, currency: "AED" })
      })).json()
      const session = await (await fetch(`http://127.0.0.1:${port}/fils/api/v1/checkout_sessions`, {
        method: "POST",
        headers,
        body: JSON.stringify({ product_cart: [{ product_id: product.product_id }] })
      })).json()
      expect(session.checkout_url).toBe(`http://127.0.0.1:1/fils/checkout/${session.session_id}`)
      const page = await fetch(`http://127.0.0.1:${port}/fils/checkout/${session.session_id}`)
      expect(page.status).toBe(200)
      expect(await page.text()).toContain(`action="/fils/checkout/${session.session_id}"`)
    } finally {
      server.close()
      await fils.dispose()
    }
  }, 60_000)

  it("fails at construction when the store cannot be reached, not on the first request", async () => {
    const port = await closedPort()
    const engine = Engine.pipe(Layer.provideMerge(Layer.mergeAll(
      StoreSql.pipe(Layer.provide(PgLive(Redacted.make(`postgres://fils:x@127.0.0.1:${port}/fils`)))),
      NodeAdapters
    )))
    await expect(makeWebHandler({ engine, publicUrl: "http://127.0.0.1/fils" })).rejects.toThrow(/database cannot be reached/)
  }, 60_000)
})
