/**
 * The hosted checkout's browser-level check against forged submissions (docs/decisions.md §3), where Fils is mounted
 * under a path in a host's server: `POST /checkout/{id}` is refused when the browser says it comes from another site
 * (`Sec-Fetch-Site`) or another origin (`Origin`), even with the session's valid form token, which anyone can read
 * by fetching the page from their own server. The origin the page was served from is `FILS_PUBLIC_URL`'s (its path,
 * the mount prefix, plays no part) or the request's own host. Plus the decision itself, header by header.
 */
import { Effect, Layer } from "effect"
import { once } from "node:events"
import { createServer, request as httpRequest } from "node:http"
import { describe, expect, it } from "vitest"
import { sameOriginSubmission } from "../../../adapters/http/html/Origin.js"
import { type FilsHandle, makeNodeHandler, makeWebHandler } from "../../../adapters/http/WebHandler.js"
import { StoreMemory } from "../../../adapters/memory/StoreMemory.js"
import { NodeAdapters } from "../../../adapters/runtime/NodeAdapters.js"
import { Accounts } from "../../../src/application/Accounts.js"
import { Engine } from "../../../src/application/Engine.js"
import { Payments } from "../../../src/application/Payments.js"
import { Products } from "../../../src/application/Products.js"
import { Checkout } from "../../../src/application/Checkout.js"
import type { Scope } from "../../../src/domain/Account.js"
import type { CheckoutSessionId } from "../../../src/domain/Ids.js"

const EngineMemory = Engine.pipe(Layer.provideMerge(Layer.mergeAll(StoreMemory, NodeAdapters)))

const futureYear = String(new Date().getUTCFullYear() + 5)
const card = (token: string) =>
  new URLSearchParams({
    form_token: token,
    name: "Layla Haddad",
    email: "layla@example.ae",
    card_number: "4242424242424242",
    exp_month: "12",
    exp_year: futureYear,
    cvc: "123"
  }).toString()

const tokenOf = (html: string) => {
  const m = /name="form_token" value="([^"]+)"/.exec(html)
  if (m === null) throw new Error(`no form token:\n${html.slice(0, 300)}`)
  return m[1]!
}

/** An account, a product and an open session made through the handle's own engine; and how to count its payments. */
const sessionOn = async (fils: FilsHandle) =>
  fils.run(Effect.gen(function*() {
    const { account } = yield* (yield* Accounts).create({ business_name: "Mounted Shop" })
    const scope: Scope = { accountId: account.account_id, livemode: false }
    const product = yield* (yield* Products).create(scope, { name: "Beans", price: 5000, currency: "AED" })
    const session = yield* (yield* Checkout).create(scope, {
      product_cart: [{ product_id: product.product_id, quantity: 1 }],
      return_url: "https://shop.example/thanks"
    })
    return { scope, id: session.session_id as CheckoutSessionId }
  }))

const paymentsOf = (fils: FilsHandle, scope: Scope, id: CheckoutSessionId) =>
  fils.run(Effect.flatMap(Payments, (p) => p.list(scope, { checkout_session_id: id, limit: 100 }))).then(
    (page) => page.items.map((p) => ({ status: p.status }))
  )

/** A raw node:http POST, so that the `Host` header is ours to choose (fetch sets its own). */
const rawPost = (port: number, path: string, headers: Record<string, string>, body: string) =>
  new Promise<{ status: number; location: string | undefined; text: string }>((resolve, reject) => {
    const req = httpRequest({
      host: "127.0.0.1",
      port,
      path,
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "content-length": String(Buffer.byteLength(body)), ...headers }
    }, (res) => {
      let text = ""
      res.setEncoding("utf8")
      res.on("data", (c: string) => (text += c))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, location: res.headers.location, text }))
    })
    req.on("error", reject)
    req.end(body)
  })

describe("the checkout's origin check under a host's mount prefix", () => {
  it("a Node listener behind a proxy (FILS_PUBLIC_URL https://shop.example/fils): its public origin or its own host", async () => {
    const fils = await makeNodeHandler({ engine: EngineMemory, publicUrl: "https://shop.example/fils" })
    const server = createServer(fils.handler).listen(0, "127.0.0.1")
    await once(server, "listening")
    const { port } = server.address() as { port: number }
    try {
      const submitWith = async (headers: Record<string, string>) => {
        const { id, scope } = await sessionOn(fils)
        const page = await fetch(`http://127.0.0.1:${port}/fils/checkout/${id}`)
        const html = await page.text()
        expect(html).toContain(`action="/fils/checkout/${id}"`)
        const res = await rawPost(port, `/fils/checkout/${id}`, headers, card(tokenOf(html)))
        return { ...res, payments: await paymentsOf(fils, scope, id) }
      }
      const allowed: ReadonlyArray<Record<string, string>> = [
        // The public URL's origin, whatever Host the proxy passes on.
        { origin: "https://shop.example", "sec-fetch-site": "same-origin" },
        // The request's own host (a proxy that keeps Host, or no proxy at all).
        { origin: `http://127.0.0.1:${port}` },
        { origin: "https://pay.example", host: "pay.example" },
        { origin: "https://pay.example", "x-forwarded-host": "pay.example" },
        { "sec-fetch-site": "none" },
        {}
      ]
      for (const headers of allowed) {
        const res = await submitWith(headers)
        expect(res.status, `${JSON.stringify(headers)} ${res.text.slice(0, 300)}`).toBe(303)
        expect(res.location).toMatch(/^https:\/\/shop\.example\/thanks\?.*status=succeeded/)
        expect(res.payments.map((p) => p.status)).toEqual(["succeeded"])
      }
      const refused: ReadonlyArray<Record<string, string>> = [
        { origin: "https://evil.example" },
        // The mount's path is not part of an origin; another scheme or port of the public host is another origin.
        { origin: "https://shop.example/fils" },
        { origin: "http://shop.example" },
        { origin: "https://shop.example:8443" },
        { origin: "https://evil.example", host: "shop.example" },
        { origin: "https://shop.example", "sec-fetch-site": "same-site" },
        { "sec-fetch-site": "cross-site" },
        { origin: "null" }
      ]
      for (const headers of refused) {
        const res = await submitWith(headers)
        expect(res.status, `${JSON.stringify(headers)} ${res.text.slice(0, 300)}`).toBe(403)
        expect(res.location).toBeUndefined()
        expect(res.text).toMatch(/not sent from this checkout page/)
        expect(res.payments).toEqual([])
      }
    } finally {
      server.close()
      await fils.dispose()
    }
  }, 60_000)

  it("a bare web handler: the origin of the request's own URL, with the prefix or without", async () => {
    const fils = await makeWebHandler({ engine: EngineMemory, publicUrl: "https://shop.example/fils" })
    try {
      const post = async (base: string, headers: Record<string, string>) => {
        const { id, scope } = await sessionOn(fils)
        const html = await (await fils.handler(new Request(`${base}/fils/checkout/${id}`))).text()
        const res = await fils.handler(new Request(`${base}/fils/checkout/${id}`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
          body: card(tokenOf(html)),
          redirect: "manual"
        }))
        await res.text()
        return { status: res.status, payments: await paymentsOf(fils, scope, id) }
      }
      // A host that serves Fils at another address than the public URL says (a Deno or Bun server, say).
      expect(await post("http://127.0.0.1:8080", { origin: "http://127.0.0.1:8080", "sec-fetch-site": "same-origin" }))
        .toMatchObject({ status: 303, payments: [{ status: "succeeded" }] })
      expect(await post("http://127.0.0.1:8080", { origin: "https://shop.example" }))
        .toMatchObject({ status: 303, payments: [{ status: "succeeded" }] })
      expect(await post("http://127.0.0.1:8080", { origin: "http://127.0.0.1:9090" }))
        .toEqual({ status: 403, payments: [] })
      expect(await post("https://shop.example", { origin: "https://evil.example", "sec-fetch-site": "cross-site" }))
        .toEqual({ status: 403, payments: [] })
    } finally {
      await fils.dispose()
    }
  }, 60_000)
})

describe("sameOriginSubmission", () => {
  const pub = "https://shop.example"
  const cases: ReadonlyArray<readonly [Record<string, string>, string | undefined, string | undefined, boolean]> = [
    [{}, pub, undefined, true],
    [{ "sec-fetch-site": "same-origin" }, pub, undefined, true],
    [{ "sec-fetch-site": "none" }, pub, undefined, true],
    [{ "sec-fetch-site": "cross-site" }, pub, undefined, false],
    [{ "sec-fetch-site": "Cross-Site" }, pub, undefined, false],
    [{ "sec-fetch-site": "same-site" }, pub, undefined, false],
    [{ origin: pub }, pub, undefined, true],
    [{ origin: pub }, undefined, undefined, false],
    // Not as a browser writes an origin: a trailing slash, a default port.
    [{ origin: `${pub}/` }, pub, undefined, false],
    [{ origin: "https://shop.example:443", host: "shop.example" }, pub, undefined, false],
    [{ origin: "https://evil.example" }, pub, undefined, false],
    [{ origin: "https://evil.example", host: "evil.example" }, pub, undefined, true],
    [{ origin: "http://a.example:80", host: "a.example" }, undefined, undefined, false],
    [{ origin: "http://a.example", host: "a.example:80" }, undefined, undefined, true],
    [{ origin: "http://a.example", host: "a.example:8080" }, undefined, undefined, false],
    [{ origin: "http://A.example", host: "a.example" }, undefined, undefined, false],
    [{ origin: "https://a.example", host: "a.example/x" }, undefined, undefined, false],
    [{ origin: "https://a.example", host: "evil@a.example" }, undefined, undefined, false],
    [{ origin: "https://a.example", "x-forwarded-host": "a.example, b.example" }, undefined, undefined, true],
    [{ origin: "https://b.example", "x-forwarded-host": "a.example, b.example" }, undefined, undefined, false],
    [{ origin: "https://a.example" }, undefined, "https://a.example/checkout/x", true],
    [{ origin: "https://a.example" }, undefined, "/checkout/x", false],
    [{ origin: "https://a.example/checkout" }, "https://a.example", undefined, false],
    [{ origin: "https://user@a.example" }, "https://a.example", undefined, false],
    [{ origin: "javascript:1" }, pub, undefined, false],
    [{ origin: "file://" }, pub, undefined, false],
    [{ origin: "" }, pub, undefined, false],
    [{ origin: "null" }, pub, undefined, false],
    [{ origin: "null", "sec-fetch-site": "same-origin" }, pub, undefined, true],
    [{ origin: "null", "sec-fetch-site": "none" }, pub, undefined, true],
    [{ origin: "null", "sec-fetch-site": "cross-site" }, pub, undefined, false],
    [{ origin: pub, "sec-fetch-site": "cross-site" }, pub, undefined, false]
  ]
  it.each(cases)("%j (public %s, url %s) → %s", (headers, publicOrigin, url, expected) => {
    expect(sameOriginSubmission(headers, publicOrigin, url)).toBe(expected)
  })
})
