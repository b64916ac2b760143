/**
 * The hosted checkout against script injection, in a real headless Chromium: every string a merchant controls
 * (business name, product names and descriptions, metadata, the customer's name and e-mail, the return URL's query)
 * carries payloads that would call `window.__pwn(where)` or set `window.__pwned` if they ran. The page must show
 * them as text, run none of them, and send headers that would stop an inline script even if one slipped through.
 * A form posted from another origin is refused, with or without the session's real form token (read by the other
 * site's server), while the page's own form pays; and the page cannot be framed.
 */
import { once } from "node:events"
import { createServer, type Server } from "node:http"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { launchChromium } from "../support/browser.js"
import { cards } from "../support/checkout.js"
import { postgresVariant, rawFor, startServer, type TestAccount, type TestServer } from "../support/server.js"

/** Payloads for one place: markup, attribute break-outs, URL schemes, and closers of the tags the page uses. */
const payloads = (where: string) => [
  `<script>window.__pwned="${where}";__pwn("${where}")</script>`,
  `"><img src=x onerror="__pwn('${where}-img')">`,
  `'><svg onload=__pwn('${where}-svg')>`,
  `javascript:__pwn('${where}-js')`,
  `</title></style></td></table><script>__pwn('${where}-close')</script>`,
  `<a href="javascript:__pwn('${where}-a')" id="${where}-link">click</a><iframe srcdoc="<script>parent.__pwn('${where}-frame')</script>">`
]
const hostile = (where: string) => payloads(where).join(" ")

/** A hostile e-mail that still passes the e-mail rule (no spaces, one `@`, a dot after it). */
const hostileEmail = `"><svg/onload=__pwn('email')>@x.co`

interface World {
  readonly server: TestServer
  readonly account: TestAccount
  readonly browser: Browser
  readonly attacker: Server
  readonly attackerOrigin: string
  /** The same attacker's server by another name: `127.0.0.1` on its own port, the checkout's site but not origin. */
  readonly sameSiteOrigin: string
  /** A session whose every merchant string is hostile, and the literal strings the page must show. */
  readonly sessionId: string
  /** A session of the same cart without a customer: its page asks for the contact fields. */
  readonly formSessionId: string
  readonly shown: ReadonlyArray<string>
}

let world: World | undefined

const api = (w: World) => rawFor(w.server, w.account.test.key)

/** The payment form's own button (the discount code's form above it has one too). */
const payButton = "form:not(.code) button[type=submit]"

/** The attacker's site: `/post/<session>` auto-submits a forged form; `/frame/<session>` frames the checkout. */
const startAttacker = async (
  target: () => string
): Promise<{ server: Server; origin: string; sameSiteOrigin: string }> => {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://attacker.invalid")
    const [, kind, id] = url.pathname.split("/")
    const checkout = `${target()}/checkout/${id}`
    const body = kind === "post"
      ? `<form id="f" method="post" action="${checkout}">` +
        `<input name="name" value="Mallory"><input name="email" value="m@evil.example">` +
        `<input name="card_number" value="${cards.visa}"><input name="exp_month" value="12">` +
        `<input name="exp_year" value="2090"><input name="cvc" value="123">` +
        (url.searchParams.has("token")
          ? `<input name="form_token" value="${(url.searchParams.get("token") || "guessed-token").replace(/[^A-Za-z0-9_-]/g, "")}">`
          : "") +
        `</form><script>document.getElementById("f").submit()</script>`
      : kind === "raw"
      ? (url.searchParams.get("html") ?? "")
      : kind === "read"
      ? `<script>fetch(${JSON.stringify(checkout)}).then(r => r.text()).then(t => { window.read = t }, e => { window.read = "blocked: " + e })</script>`
      : `<iframe id="victim" src="${checkout}"></iframe>`
    res.writeHead(200, { "content-type": "text/html; charset=utf-8", connection: "close" })
    res.end(`<!doctype html><html><body>${body}</body></html>`)
  })
  server.listen(0, "127.0.0.1")
  await once(server, "listening")
  const address = server.address()
  if (typeof address !== "object" || address === null) throw new Error("no address")
  // `localhost` is another origin than the checkout's `127.0.0.1`, as another site would be; `127.0.0.1` on this
  // port is the checkout's site (ports do not count) but another origin, as another app on the same host would be.
  return { server, origin: `http://localhost:${address.port}`, sameSiteOrigin: `http://127.0.0.1:${address.port}` }
}

beforeAll(async () => {
  const server = await startServer(await postgresVariant.store())
  const browserPromise = launchChromium()
  const businessName = `Souq ${payloads("business")[0]} ${payloads("business")[1]}`.slice(0, 200)
  const account = await server.createAccount({ business_name: businessName })
  const raw = rawFor(server, account.test.key)
  const ok = async (p: Promise<{ status: number; text: string; json: any }>) => {
    const r = await p
    expect(r.status, r.text).toBe(200)
    return r.json
  }
  const names = payloads("product").map((p) => `Dates ${p}`.slice(0, 200))
  const products = []
  for (const [i, name] of names.entries()) {
    products.push(await ok(raw.post("/products", {
      name,
      price: 1_000 + i,
      currency: "AED",
      description: hostile("description").slice(0, 5000),
      metadata: Object.fromEntries(payloads("metadata").map((p, j) => [`k${j}`, p.slice(0, 500)]))
    })))
  }
  const customerName = `Layla ${payloads("customer")[1]}`.slice(0, 200)
  const session = await ok(raw.post("/checkout_sessions", {
    product_cart: products.map((p) => ({ product_id: p.product_id })),
    customer: { email: hostileEmail, name: customerName },
    return_url: `https://shop.example:8443/thanks?q=${encodeURIComponent(hostile("return"))}`,
    metadata: { note: hostile("session-metadata").slice(0, 500) }
  }))
  const formSession = await ok(raw.post("/checkout_sessions", { product_cart: products.map((p) => ({ product_id: p.product_id })) }))
  const attacker = await startAttacker(() => server.origin)
  world = {
    server,
    account,
    browser: await browserPromise,
    attacker: attacker.server,
    attackerOrigin: attacker.origin,
    sameSiteOrigin: attacker.sameSiteOrigin,
    sessionId: session.session_id,
    formSessionId: formSession.session_id,
    shown: [businessName, ...names, customerName, hostileEmail]
  }
}, 120_000)

afterAll(async () => {
  await world?.browser.close().catch(() => undefined)
  world?.attacker.closeAllConnections()
  world?.attacker.close()
  await world?.server.close()
}, 60_000)

/** A fresh context whose pages report every `__pwn` call and every dialog. */
const openContext = async (w: World) => {
  const context: BrowserContext = await w.browser.newContext({ javaScriptEnabled: true })
  const hits: Array<string> = []
  await context.exposeFunction("__pwn", (where: string) => {
    hits.push(String(where))
  })
  const pageOf = async (): Promise<Page> => {
    const page = await context.newPage()
    page.on("dialog", (d) => {
      hits.push(`dialog: ${d.message()}`)
      void d.dismiss()
    })
    return page
  }
  return { context, hits, pageOf }
}

/** Nothing executable in the DOM: no script, no event-handler attribute, no javascript: URL, no frames or images. */
const executableParts = (page: Page) =>
  page.evaluate(() => {
    const found: Array<string> = []
    for (const el of Array.from(document.querySelectorAll("*"))) {
      const tag = el.tagName.toLowerCase()
      // The page's own links: the language switch, and back to the merchant's site (an http(s) origin).
      const ownLink = tag === "a" && /^(\?lang=(en|ar)|https?:\/\/[^/"<>]+\/)$/.test(el.getAttribute("href") ?? "")
      if (["script", "img", "svg", "iframe", "object", "embed", "a", "base", "meta"].includes(tag) && !ownLink) {
        if (!(tag === "meta" && ["charset", "viewport", "robots", "referrer"].some((n) => el.hasAttribute(n) || el.getAttribute("name") === n))) {
          found.push(tag)
        }
      }
      for (const attribute of Array.from(el.attributes)) {
        if (attribute.name.startsWith("on")) found.push(`${tag}[${attribute.name}]`)
        if (/^\s*javascript:/i.test(attribute.value)) found.push(`${tag}[${attribute.name}=javascript:]`)
      }
    }
    return found
  })

describe("the hosted checkout keeps merchant and customer strings inert, in Chromium", () => {
  it("shows every hostile string as text and runs none of it", async () => {
    const w = world!
    const { context, hits, pageOf } = await openContext(w)
    try {
      const page = await pageOf()
      const res = await page.goto(`${w.server.origin}/checkout/${w.sessionId}`)
      expect(res?.status()).toBe(200)
      await page.waitForLoadState("load")
      expect(await page.evaluate(() => (window as any).__pwned)).toBeUndefined()
      expect(hits).toEqual([])
      expect(await executableParts(page)).toEqual([])
      // Shown as written: names in the text, the customer's details as the (read-only) fields' values.
      const text = await page.locator("body").innerText()
      expect(await page.title()).toContain(w.shown[0]!.slice(0, 40))
      for (const s of w.shown.slice(1, -2)) expect(text).toContain(s)
      expect(await page.inputValue("#name")).toBe(w.shown.at(-2))
      expect(await page.inputValue("#email")).toBe(hostileEmail)
      // No payload from any place (shown or not: descriptions, metadata) is in the HTML as written.
      const html = await res!.text()
      const places = ["business", "product", "description", "metadata", "customer", "return", "session-metadata"]
      for (const p of places.flatMap(payloads).filter((p) => /[<>"']/.test(p))) expect(html).not.toContain(p)
      expect(html).not.toContain(hostileEmail)
      // Nothing ran later either (a deferred handler, a lazy image).
      await page.waitForTimeout(500)
      expect(hits).toEqual([])

      // The same strings pasted unescaped into a page without a policy do run: the checks above can fail.
      const control = await pageOf()
      await control.goto(`${w.attackerOrigin}/raw/x?html=${encodeURIComponent(w.shown.join("<br>"))}`)
      await control.waitForTimeout(500)
      expect(hits.length, "payloads run where they are not escaped").toBeGreaterThan(0)
      expect(await control.evaluate(() => (window as any).__pwned)).toBeDefined()
      expect((await executableParts(control)).length).toBeGreaterThan(0)
    } finally {
      await context.close()
    }
  })

  it("re-shows hostile form input escaped after a failed submission, and runs none of it", async () => {
    const w = world!
    const { context, hits, pageOf } = await openContext(w)
    try {
      const page = await pageOf()
      await page.goto(`${w.server.origin}/checkout/${w.formSessionId}`)
      await page.fill("#name", hostile("typed-name").slice(0, 900))
      await page.fill("#email", `${hostileEmail}<script>__pwn('typed-email')</script>`)
      await page.fill("#phone_number", `"><img src=x onerror=__pwn('typed-phone')>`)
      await page.fill("#card_number", `${cards.visa}<script>`)
      await page.fill("#exp", `12"><script>__pwn('typed-expiry')</script>`)
      await page.fill("#cvc", "123")
      const [response] = await Promise.all([page.waitForNavigation(), page.click(payButton)])
      expect(response?.status()).toBe(400)
      expect(await page.evaluate(() => (window as any).__pwned)).toBeUndefined()
      expect(await executableParts(page)).toEqual([])
      expect(await page.inputValue("#phone_number")).toBe(`"><img src=x onerror=__pwn('typed-phone')>`)
      await page.waitForTimeout(300)
      expect(hits).toEqual([])
      const payments = await api(w).get(`/payments?checkout_session_id=${w.formSessionId}`)
      expect(payments.json.items).toEqual([])
    } finally {
      await context.close()
    }
  })

  it("sends a strict CSP that blocks inline script even if one were injected", async () => {
    const w = world!
    const { context, hits, pageOf } = await openContext(w)
    try {
      const page = await pageOf()
      const violations: Array<string> = []
      page.on("console", (m) => {
        if (/Content Security Policy/i.test(m.text())) violations.push(m.text())
      })
      await page.goto(`${w.server.origin}/checkout/${w.sessionId}`)
      // As if markup had slipped through: an inline script and an event handler added to the DOM.
      await page.evaluate(() => {
        const s = document.createElement("script")
        s.textContent = "window.__inline = 1; __pwn('inline')"
        document.body.appendChild(s)
        const img = document.createElement("img")
        img.setAttribute("onerror", "window.__handler = 1; __pwn('handler')")
        img.src = "data:,nope"
        document.body.appendChild(img)
      })
      await page.waitForTimeout(500)
      expect(await page.evaluate(() => [(window as any).__inline, (window as any).__handler])).toEqual([undefined, undefined])
      expect(hits).toEqual([])
      expect(violations.length, "Chromium reported the blocked script").toBeGreaterThan(0)

      // The same DOM insertion on a page without the policy runs: the check above can fail.
      const control = await pageOf()
      await control.goto(`${w.attackerOrigin}/none/x`)
      await control.evaluate(() => {
        const s = document.createElement("script")
        s.textContent = "window.__inline = 1"
        document.body.appendChild(s)
      })
      expect(await control.evaluate(() => (window as any).__inline)).toBe(1)
    } finally {
      await context.close()
    }
  })

  it("answers with strict security headers", async () => {
    const w = world!
    const res = await fetch(`${w.server.origin}/checkout/${w.sessionId}`)
    expect(res.status).toBe(200)
    await res.text()
    const csp = res.headers.get("content-security-policy") ?? ""
    const directives = new Map(
      csp.split(";").map((d) => d.trim()).filter((d) => d !== "").map((d) => {
        const [name, ...values] = d.split(/\s+/)
        return [name!, values] as const
      })
    )
    expect(directives.get("default-src"), csp).toEqual(["'none'"])
    expect(directives.get("frame-ancestors"), csp).toEqual(["'none'"])
    expect(directives.get("base-uri"), csp).toEqual(["'none'"])
    // Forms go here, and to the return URL's origin only: never its path or query (which are hostile here).
    expect(directives.get("form-action"), csp).toEqual(["'self'", "https://shop.example:8443"])
    expect(directives.has("script-src") ? directives.get("script-src") : ["'none'"], csp).toEqual(["'none'"])
    for (const [name, values] of directives) {
      expect(values.join(" "), `${name}`).not.toMatch(/unsafe-inline|unsafe-eval|\*|data:|javascript:/)
    }
    expect(directives.get("style-src")?.every((v) => /^'nonce-[A-Za-z0-9+/=]{16,}'$/.test(v)), csp).toBe(true)
    expect(res.headers.get("x-content-type-options")).toBe("nosniff")
    expect(res.headers.get("referrer-policy")).toBe("no-referrer")
    expect(res.headers.get("x-frame-options")).toBe("DENY")
    expect(res.headers.get("content-type")).toMatch(/^text\/html; charset=utf-8/i)
    // A fresh nonce per response.
    const again = await fetch(`${w.server.origin}/checkout/${w.sessionId}`)
    await again.text()
    expect(again.headers.get("content-security-policy")).not.toBe(csp)
  })

  it("refuses a return URL with a javascript: or other non-http scheme", async () => {
    const w = world!
    const product = (await api(w).post("/products", { name: "Plain", price: 100, currency: "AED" })).json
    for (const url of ["javascript:__pwn('return')//", "data:text/html,<script>__pwn(1)</script>", "JaVaScRiPt:alert(1)", "//evil.example/"]) {
      const res = await api(w).post("/checkout_sessions", { product_cart: [{ product_id: product.product_id }], return_url: url })
      expect(res.status, url).toBe(400)
      expect(res.json.code).toBe("INVALID_REQUEST")
    }
  })

  it("refuses a form posted from another site without the session's token, and cannot be framed", async () => {
    const w = world!
    const product = (await api(w).post("/products", { name: "Tea", price: 2_500, currency: "AED" })).json
    const session = (await api(w).post("/checkout_sessions", { product_cart: [{ product_id: product.product_id }] })).json
    const { context, hits, pageOf } = await openContext(w)
    try {
      // Without a token, and with a guessed one.
      for (const query of ["", "?token"]) {
        const variant = `forged form${query}`
        const page = await pageOf()
        const landed = page.waitForResponse((r) => r.url().startsWith(`${w.server.origin}/checkout/`) && r.request().method() === "POST")
        await page.goto(`${w.attackerOrigin}/post/${session.session_id}${query}`)
        const response = await landed
        expect(response.status(), variant).toBe(403)
        await page.waitForLoadState("load")
        expect(await page.locator("[role=alert]").innerText()).toMatch(/out of date|reload/i)
      }
      const payments = await api(w).get(`/payments?checkout_session_id=${session.session_id}`)
      expect(payments.json.items, "no payment from a forged form").toEqual([])
      const read = await api(w).get(`/checkout_sessions/${session.session_id}`)
      expect(read.json.status).toBe("open")

      // Another site cannot read the page (and its token) either: no CORS allowance.
      const reader = await pageOf()
      await reader.goto(`${w.attackerOrigin}/read/${session.session_id}`)
      await reader.waitForFunction(() => (window as any).read !== undefined)
      expect(await reader.evaluate(() => (window as any).read)).toMatch(/^blocked: /)

      // Nor frame it: frame-ancestors 'none' leaves the frame without the checkout.
      const framer = await pageOf()
      await framer.goto(`${w.attackerOrigin}/frame/${session.session_id}`)
      await framer.waitForTimeout(1_000)
      const frame = framer.frames().find((f) => f !== framer.mainFrame())
      const framedForm = frame === undefined ? 0 : await frame.locator("form").count().catch(() => 0)
      expect(framedForm, "the checkout form inside another site's frame").toBe(0)
      expect(hits).toEqual([])
    } finally {
      await context.close()
    }
  })

  it("refuses a form auto-submitted from another site or port even with the session's real token; the page itself pays", async () => {
    const w = world!
    const product = (await api(w).post("/products", { name: "Coffee", price: 3_000, currency: "AED" })).json
    const session = (await api(w).post("/checkout_sessions", { product_cart: [{ product_id: product.product_id }] })).json
    // The attacker's server fetches the page and reads the token: nothing stops that.
    const served = await fetch(`${w.server.origin}/checkout/${session.session_id}`)
    const token = /name="form_token" value="([^"]+)"/.exec(await served.text())?.[1]
    expect(token).toMatch(/^[A-Za-z0-9_-]{16,}$/)
    const { context, hits, pageOf } = await openContext(w)
    try {
      for (const origin of [w.attackerOrigin, w.sameSiteOrigin]) {
        const page = await pageOf()
        const landed = page.waitForResponse((r) => r.url().startsWith(`${w.server.origin}/checkout/`) && r.request().method() === "POST")
        await page.goto(`${origin}/post/${session.session_id}?token=${token}`)
        const response = await landed
        const sent = await response.request().allHeaders()
        expect(sent["origin"], origin).toBe(origin)
        expect(sent["sec-fetch-site"], origin).toBe(origin === w.attackerOrigin ? "cross-site" : "same-site")
        expect(response.status(), origin).toBe(403)
        await page.waitForLoadState("load")
        expect(await page.locator("[role=alert]").innerText()).toMatch(/not sent from this checkout page/i)
      }
      const payments = await api(w).get(`/payments?checkout_session_id=${session.session_id}`)
      expect(payments.json.items, "no payment from a forged form carrying the real token").toEqual([])
      expect((await api(w).get(`/checkout_sessions/${session.session_id}`)).json.status).toBe("open")

      // The checkout's own form, in the same browser, is not mistaken for one: it pays.
      const own = await pageOf()
      await own.goto(`${w.server.origin}/checkout/${session.session_id}`)
      await own.fill("#name", "Layla Haddad")
      await own.fill("#email", "layla@example.ae")
      await own.fill("#card_number", cards.visa)
      await own.fill("#exp", `12 / ${String(new Date().getUTCFullYear() + 5).slice(2)}`)
      await own.fill("#cvc", "123")
      const posted = own.waitForRequest((r) => r.method() === "POST")
      const [response] = await Promise.all([own.waitForNavigation(), own.click(payButton)])
      expect(response?.status(), await own.content()).toBe(200)
      // It names its origin (the page's `same-origin` referrer policy; `no-referrer` would make it `null`).
      const ownHeaders = await (await posted).allHeaders()
      expect(ownHeaders["origin"]).toBe(w.server.origin)
      expect(ownHeaders["sec-fetch-site"]).toBe("same-origin")
      expect(await own.locator("[role=status]").innerText()).toMatch(/successful/i)
      const paid = await api(w).get(`/payments?checkout_session_id=${session.session_id}`)
      expect(paid.json.items.map((p: { status: string }) => p.status)).toEqual(["succeeded"])
      expect(hits).toEqual([])
    } finally {
      await context.close()
    }
  })
})
