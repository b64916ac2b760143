/**
 * The scenario both host-framework examples (examples/express, examples/hono) must pass, run against the example as
 * a real process on a free port of 127.0.0.1: the host's routes, then a sale through Fils mounted under `/fils`.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { once } from "node:events"
import { createServer } from "node:http"
import { expect } from "vitest"
import { verify } from "../../adapters/crypto/StandardWebhooks.js"
import { freePort, root } from "../support/cli.js"

export interface RunningExample {
  readonly origin: string
  readonly child: ChildProcess
  readonly stdout: () => string
  readonly stderr: () => string
  /** SIGTERM, then the exit code (SIGKILL after 30 s). */
  readonly stop: () => Promise<number | null>
}

/** This process's environment without settings that would point the example elsewhere. */
const inherited = () => {
  const { DATABASE_URL: _db, FILS_PUBLIC_URL: _url, FILS_STORE: _store, ...rest } = process.env
  return rest
}

/** Starts `file` on a free port; resolves once it printed its banner and `/health/host` answers. */
export const startExample = async (file: string, env: Record<string, string>, timeoutMs = 90_000) => {
  const port = await freePort()
  const origin = `http://127.0.0.1:${port}`
  const child = spawn(process.execPath, ["--import", "tsx", file], {
    cwd: root,
    env: { ...inherited(), PORT: String(port), HOST: "127.0.0.1", ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let stdout = ""
  let stderr = ""
  child.stdout!.on("data", (c) => (stdout += c))
  child.stderr!.on("data", (c) => (stderr += c))
  const exited = once(child, "exit")
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${file} exited early (${child.exitCode}):\n${stdout}\n${stderr}`)
    if (Date.now() > deadline) {
      child.kill("SIGKILL")
      throw new Error(`${file} not ready within ${timeoutMs} ms:\n${stdout}\n${stderr}`)
    }
    const up = await fetch(`${origin}/health/host`).then((r) => r.status === 200, () => false)
    if (up && stdout.includes("Reference")) break
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  const stop = async () => {
    if (child.exitCode !== null) return child.exitCode
    child.kill("SIGTERM")
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000)
    const [code] = await exited
    clearTimeout(timer)
    return code as number | null
  }
  return { origin, child, stdout: () => stdout, stderr: () => stderr, stop } satisfies RunningExample
}

/** The test key the example printed for the account it created on an empty store. */
export const testKeyOf = (stdout: string) => {
  const match = /Test key\s+(sk_test_[A-Za-z0-9_-]+)/.exec(stdout)
  expect(match, stdout).not.toBeNull()
  return match![1]!
}

const json = (key: string) => ({ authorization: `Bearer ${key}`, "content-type": "application/json" })

export const expectSecurityHeaders = (res: Response) => {
  expect(res.headers.get("x-content-type-options")).toBe("nosniff")
  expect(res.headers.get("referrer-policy")).toBe("no-referrer")
  expect(res.headers.get("cache-control")).toBe("no-store")
}

/** The host's own routes answer, and only the host answers outside `/fils`. */
export const checkHostRoutes = async (origin: string, service: string, host404: RegExp) => {
  const home = await fetch(`${origin}/`)
  expect(home.status).toBe(200)
  expect(await home.text()).toContain(`${origin}/fils/api/v1`)
  const health = await fetch(`${origin}/health/host`)
  expect(health.status).toBe(200)
  expect(await health.json()).toEqual({ status: "ok", service })
  // Fils' own /health lives under the prefix only.
  const filsHealth = await fetch(`${origin}/fils/health`)
  expect(filsHealth.status).toBe(200)
  expect(await filsHealth.json()).toEqual({ status: "ok" })
  expectSecurityHeaders(filsHealth)
  const unprefixed = await fetch(`${origin}/api/v1/products`)
  expect(unprefixed.status).toBe(404)
  expect(await unprefixed.text()).toMatch(host404)
}

/** 404s: Fils' JSON under the prefix, the host's own page elsewhere. */
export const checkNotFound = async (origin: string, host404: RegExp) => {
  const fils = await fetch(`${origin}/fils/api/v1/nope`)
  expect(fils.status).toBe(404)
  expect(fils.headers.get("content-type")).toMatch(/^application\/json/)
  expect(await fils.json()).toMatchObject({ code: "NOT_FOUND", message: expect.stringContaining("/api/v1/nope") })
  expectSecurityHeaders(fils)
  const host = await fetch(`${origin}/nope`)
  expect(host.status).toBe(404)
  const text = await host.text()
  expect(text).toMatch(host404)
  expect(() => JSON.parse(text)).toThrow()
}

/** `/fils/docs` and the OpenAPI document under the prefix. */
export const checkDocs = async (origin: string) => {
  const docs = await fetch(`${origin}/fils/docs`)
  expect(docs.status).toBe(200)
  expect(docs.headers.get("content-type")).toMatch(/^text\/html/)
  expect(await docs.text()).toContain("/api/v1/checkout_sessions")
  const spec = await fetch(`${origin}/fils/api/v1/openapi.json`)
  expect(spec.status).toBe(200)
  const document = await spec.json()
  expect(document.openapi).toMatch(/^3\.1/)
  expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(["/api/v1/products", "/api/v1/checkout_sessions"]))
}

/**
 * The host process runs the background workers (`workers: true`): an endpoint registered under `/fils` receives a
 * signed `payment.succeeded` for a sale made through `/fils`.
 */
export const checkWebhookDelivery = async (origin: string, key: string, timeoutMs = 60_000) => {
  const received: Array<{ readonly headers: Record<string, string>; readonly body: string }> = []
  const receiver = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const headers: Record<string, string> = {}
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers[k] = v
      received.push({ headers, body: Buffer.concat(chunks).toString("utf8") })
      res.writeHead(200).end("ok")
    })
  })
  receiver.listen(0, "127.0.0.1")
  await once(receiver, "listening")
  const { port } = receiver.address() as { port: number }
  try {
    const created = await fetch(`${origin}/fils/api/v1/webhooks`, {
      method: "POST",
      headers: json(key),
      body: JSON.stringify({ url: `http://127.0.0.1:${port}/hooks`, event_types: ["payment.succeeded"] })
    })
    expect(created.status).toBe(200)
    const endpoint = await created.json()
    const sessionId = await sellThroughPrefix(origin, key)
    const deadline = Date.now() + timeoutMs
    while (received.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
    expect(received.length, "no delivery within the deadline").toBeGreaterThan(0)
    const event = verify({ secret: endpoint.secret, headers: received[0]!.headers, body: received[0]!.body }) as {
      readonly type: string
      readonly livemode: boolean
      readonly data: { readonly checkout_session_id?: string }
    }
    expect(event).toMatchObject({ type: "payment.succeeded", livemode: false })
    expect(event.data.checkout_session_id).toBe(sessionId)
  } finally {
    receiver.closeAllConnections()
    receiver.close()
  }
}

/** A product, a session, the page, the paid form and the redirect, all through `/fils`; returns the session id. */
export const sellThroughPrefix = async (origin: string, key: string) => {
  const api = `${origin}/fils/api/v1`
  const refused = await fetch(`${api}/products`)
  expect(refused.status).toBe(401)
  expect(await refused.json()).toMatchObject({ code: "UNAUTHORIZED" })

  const productRes = await fetch(`${api}/products`, {
    method: "POST",
    headers: json(key),
    body: JSON.stringify({ name: "Single origin, 250 g", price: 6500, currency: "AED" })
  })
  expect(productRes.status).toBe(200)
  const product = await productRes.json()
  expect(product).toMatchObject({ object: "product", price: 6500, livemode: false })

  const returnUrl = "https://dune.example/thanks?order=42"
  const sessionRes = await fetch(`${api}/checkout_sessions`, {
    method: "POST",
    headers: json(key),
    body: JSON.stringify({ product_cart: [{ product_id: product.product_id, quantity: 2 }], return_url: returnUrl })
  })
  expect(sessionRes.status).toBe(200)
  const session = await sessionRes.json()
  expect(session).toMatchObject({ status: "open", total_amount: 13000 })
  expect(session.checkout_url).toBe(`${origin}/fils/checkout/${session.session_id}`)

  const page = await fetch(session.checkout_url)
  expect(page.status).toBe(200)
  expect(page.headers.get("content-type")).toMatch(/^text\/html/)
  expect(page.headers.get("content-security-policy")).toContain("form-action 'self' https://dune.example")
  expectSecurityHeaders(page)
  const html = await page.text()
  expect(html).toContain("AED 130.00")
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1]
  expect(action).toBe(`/fils/checkout/${session.session_id}`)
  const token = /name="form_token" value="([^"]+)"/.exec(html)?.[1]
  expect(token).toBeDefined()

  // As a browser submits the form: urlencoded, to the action resolved against the page's URL.
  const paid = await fetch(new URL(action!, session.checkout_url), {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      form_token: token!,
      name: "Layla Haddad",
      email: "layla@example.ae",
      phone_number: "+971501234567",
      card_number: "4242424242424242",
      exp_month: "12",
      exp_year: "2090",
      cvc: "123"
    }).toString()
  })
  expect(paid.status).toBe(303)
  const location = new URL(paid.headers.get("location")!)
  expect(location.origin + location.pathname).toBe("https://dune.example/thanks")
  expect(location.searchParams.get("order")).toBe("42")
  expect(location.searchParams.get("session_id")).toBe(session.session_id)
  expect(location.searchParams.get("status")).toBe("succeeded")
  const paymentId = location.searchParams.get("payment_id")
  expect(paymentId).toMatch(/^pay_[0-9a-f]{32}$/)

  const after = await (await fetch(`${api}/checkout_sessions/${session.session_id}`, { headers: json(key) })).json()
  expect(after).toMatchObject({ status: "complete", payment_id: paymentId })
  const payment = await (await fetch(`${api}/payments/${paymentId}`, { headers: json(key) })).json()
  expect(payment).toMatchObject({ status: "succeeded", total_amount: 13000, checkout_session_id: session.session_id })

  // The page now says so, and a second submission charges nothing.
  const again = await fetch(session.checkout_url)
  expect(await again.text()).toContain("Payment received")
  return session.session_id as string
}

/**
 * The dashboard under the mount: the printed one-time link sets the owner's password, and the pages it
 * leads to answer under the prefix, their links prefixed too.
 */
export const checkDashboard = async (origin: string, stdout: string) => {
  const link = /Sign in\s+(http\S+)/.exec(stdout)?.[1]
  expect(link, stdout).toMatch(new RegExp(`^${origin}/fils/dashboard/sign-in/[A-Za-z0-9_-]+$`))
  const set = await fetch(link!, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", origin },
    body: "password=a+long+enough+password"
  })
  expect(set.status).toBe(303)
  expect(set.headers.get("location")).toBe("/fils/dashboard/test")
  const cookie = (set.headers.get("set-cookie") ?? "").split(";")[0]!
  const home = await fetch(`${origin}/fils/dashboard/test`, { headers: { cookie } })
  expect(home.status).toBe(200)
  const body = await home.text()
  expect(body).toContain("Test mode")
  expect(body).toContain(`href="/fils/dashboard/test/payments"`)
  const signedOut = await fetch(`${origin}/fils/dashboard/test`, { redirect: "manual" })
  expect(signedOut.headers.get("location")).toBe("/fils/dashboard/login")
}
