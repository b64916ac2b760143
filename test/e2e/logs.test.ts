/**
 * `fils serve` logs as an operator's log pipeline reads them: stdout is the start-up banner and JSON lines, one per
 * request with its id, account, mode, route template, method, status and duration; and no key, webhook secret,
 * bearer token or card number ever appears in them, however a caller sends it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Redacted } from "effect"
import { runFils, type Served, serveFils } from "../support/cli.js"
import { fileDatabaseUrl } from "../support/postgresStore.js"

let served: Served | undefined
let env: Record<string, string | undefined> = {}
let keys = { test: "", live: "", accountId: "" }

beforeAll(async () => {
  const url = Redacted.value(await fileDatabaseUrl())
  env = {
    DATABASE_URL: url,
    FILS_KEY_CACHE_TTL: "0 millis",
    FILS_RATE_LIMIT_PER_MIN: "100000",
    FILS_AUTH_FAILURES_PER_MIN: "100000",
    FILS_LOG_LEVEL: undefined,
    OTEL_EXPORTER_OTLP_ENDPOINT: undefined
  }
  // An account made first: the banner then prints no key, so every key in stdout would be a leak.
  const created = await runFils(["accounts", "create", "--name", "Logged Souq"], env)
  expect(created.code, created.stderr).toBe(0)
  const account = JSON.parse(created.stdout)
  keys = { test: account.keys.test.secret, live: account.keys.live.secret, accountId: account.account_id }
}, 60_000)

afterAll(async () => {
  await served?.stop("SIGKILL")
})

const bannerLine = /^(Fils is running\.|  (API|Reference|OpenAPI|Health|Dashboard) +http:\/\/\S+( +http:\/\/\S+)?)$/

/** Stdout as lines: the banner's, and every other line parsed as JSON (a line that is not JSON fails the test). */
const parseStdout = (stdout: string) => {
  const banner: Array<string> = []
  const records: Array<Record<string, unknown>> = []
  for (const line of stdout.split("\n")) {
    if (line === "") continue
    if (bannerLine.test(line)) {
      banner.push(line)
      continue
    }
    let parsed: unknown
    try {
      parsed = JSON.parse(line)
    } catch {
      throw new Error(`a stdout line is neither the banner nor JSON: ${line}`)
    }
    expect(typeof parsed === "object" && parsed !== null && !Array.isArray(parsed), line).toBe(true)
    records.push(parsed as Record<string, unknown>)
  }
  return { banner, records }
}

const requestLines = (records: ReadonlyArray<Record<string, unknown>>) =>
  records.filter((r) => r.message === "http request")

/** Waits until stdout holds the request line of `requestId` (a line reaches it within about 20 ms of its response). */
const lineOf = async (requestId: string): Promise<Record<string, unknown>> => {
  const deadline = Date.now() + 15_000
  for (;;) {
    const found = requestLines(parseStdout(served!.stdout()).records).filter((r) => r.request_id === requestId)
    if (found.length > 0) {
      expect(found).toHaveLength(1)
      return found[0]!
    }
    if (Date.now() > deadline) throw new Error(`no log line for request ${requestId}:\n${served!.stdout()}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

const send = async (method: string, path: string, init: { key?: string; body?: unknown; headers?: Record<string, string> } = {}) => {
  const headers: Record<string, string> = { ...(init.headers ?? {}) }
  if (init.key !== undefined) headers.authorization = `Bearer ${init.key}`
  if (init.body !== undefined) headers["content-type"] = "application/json"
  const res = await fetch(`${served!.baseUrl}${path}`, {
    method,
    headers,
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    redirect: "manual",
    signal: AbortSignal.timeout(15_000)
  })
  const text = await res.text()
  const requestId = res.headers.get("x-request-id")
  expect(requestId, `${method} ${path}`).not.toBeNull()
  return { status: res.status, text, json: text.startsWith("{") ? JSON.parse(text) : undefined, requestId: requestId! }
}

const generatedId = /^req_[a-z2-7]{26}$/

describe("fils serve logs", () => {
  const secrets: Array<string> = []
  const cardNumbers = ["4242424242424242", "4000000000000002"]

  it("writes one JSON line per request with its id, account, mode, route template, method, status and duration", async () => {
    served = await serveFils(env, 60_000)
    secrets.push(keys.test, keys.live)

    // The caller's id is kept when well formed, and echoed.
    const health = await send("GET", "/health", { headers: { "x-request-id": "edge-7f3a.trace:01" } })
    expect(health.requestId).toBe("edge-7f3a.trace:01")
    expect(await lineOf(health.requestId)).toMatchObject({
      level: "INFO",
      request_id: "edge-7f3a.trace:01",
      account_id: null,
      mode: null,
      route: "/health",
      method: "GET",
      status: 200
    })

    // A malformed id (spaces, too long, or shaped like a key) is replaced by a fresh one.
    const created = await send("POST", "/api/v1/products", {
      key: keys.test,
      body: { name: "Saffron, 5 g", price: 4500, currency: "AED" },
      headers: { "x-request-id": "not a valid id" }
    })
    expect(created.status).toBe(200)
    expect(created.requestId).toMatch(generatedId)
    const productLine = await lineOf(created.requestId)
    expect(productLine).toMatchObject({
      account_id: keys.accountId,
      mode: "test",
      route: "/api/v1/products",
      method: "POST",
      status: 200
    })
    expect(typeof productLine.duration_ms).toBe("number")
    expect(productLine.duration_ms as number).toBeGreaterThanOrEqual(0)
    expect(typeof productLine.timestamp).toBe("string")

    const keyAsId = await send("GET", "/api/v1/account", { key: keys.live, headers: { "x-request-id": keys.test } })
    expect(keyAsId.requestId).not.toBe(keys.test)
    expect(await lineOf(keyAsId.requestId)).toMatchObject({ account_id: keys.accountId, mode: "live", route: "/api/v1/account" })

    // The route is the template, never the URL with its id or query.
    const product = created.json
    const read = await send("GET", `/api/v1/products/${product.product_id}?expand=x`, { key: keys.test })
    expect(await lineOf(read.requestId)).toMatchObject({ route: "/api/v1/products/{id}", status: 200 })

    const refused = await send("GET", "/api/v1/products", { key: "sk_test_thisKeyDoesNotExist0000000000" })
    expect(refused.status).toBe(401)
    secrets.push("sk_test_thisKeyDoesNotExist0000000000")
    expect(await lineOf(refused.requestId)).toMatchObject({ account_id: null, mode: null, status: 401 })

    const unknown = await send("GET", `/api/v1/nothing/here?token=${keys.test}`, { key: keys.test })
    expect(unknown.status).toBe(404)
    expect(await lineOf(unknown.requestId)).toMatchObject({ route: "unmatched", status: 404 })
  })

  it("never logs keys, webhook secrets, authorization headers or card numbers", async () => {
    // A key in other headers too, where a careless logger would pick it up.
    const webhook = await send("POST", "/api/v1/webhooks", {
      key: keys.test,
      body: { url: "http://127.0.0.1:9/hook" },
      headers: { "x-api-key": keys.live, cookie: `session=${keys.live}` }
    })
    expect(webhook.status).toBe(200)
    secrets.push(webhook.json.secret)
    const cardAsId = await send("GET", "/health", { headers: { "x-request-id": cardNumbers[0]! } })
    expect(cardAsId.requestId).toMatch(generatedId)
    const secret = await send("GET", `/api/v1/webhooks/${webhook.json.webhook_id}/secret`, { key: keys.test })
    expect(secret.json.secret).toBe(webhook.json.secret)

    const product = (await send("POST", "/api/v1/products", {
      key: keys.test,
      body: { name: "Dates, 1 kg", price: 3000, currency: "AED" }
    })).json
    for (const card of cardNumbers) {
      const session = (await send("POST", "/api/v1/checkout_sessions", {
        key: keys.test,
        body: { product_cart: [{ product_id: product.product_id }], return_url: "https://example.com/thanks" }
      })).json
      const page = await fetch(`${served!.baseUrl}/checkout/${session.session_id}`, { signal: AbortSignal.timeout(15_000) })
      const token = /name="form_token" value="([^"]*)"/.exec(await page.text())?.[1]
      expect(token).toBeDefined()
      const posted = await fetch(`${served!.baseUrl}/checkout/${session.session_id}`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", "x-request-id": `pay-${card.slice(-4)}` },
        body: new URLSearchParams({
          name: "Layla Haddad",
          email: "layla@example.ae",
          card_number: card,
          exp_month: "12",
          exp_year: "2040",
          cvc: "123",
          form_token: token!
        }).toString(),
        redirect: "manual",
        signal: AbortSignal.timeout(15_000)
      })
      expect(posted.status).toBe(card === cardNumbers[0] ? 303 : 402)
      expect(await lineOf(`pay-${card.slice(-4)}`)).toMatchObject({
        route: "/checkout/{id}",
        method: "POST",
        status: posted.status
      })
    }
    // A form that fails validation quotes nothing of what was typed either.
    const invalid = (await send("POST", "/api/v1/checkout_sessions", {
      key: keys.test,
      body: { product_cart: [{ product_id: product.product_id }] }
    })).json
    await fetch(`${served!.baseUrl}/checkout/${invalid.session_id}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ card_number: "4242 4242 4242 4242", exp_month: "13", form_token: "wrong" }).toString(),
      redirect: "manual",
      signal: AbortSignal.timeout(15_000)
    })

    const stdout = served!.stdout()
    const { banner, records } = parseStdout(stdout)
    expect(banner[0]).toBe("Fils is running.")
    expect(banner).toHaveLength(6)
    // Every line is JSON with the basic fields (start-up and worker lines too, not only requests).
    for (const record of records) {
      expect(typeof record.timestamp).toBe("string")
      expect(typeof record.level).toBe("string")
      expect(record).toHaveProperty("message")
    }
    expect(records.some((r) => r.message !== "http request")).toBe(true)
    for (const record of requestLines(records)) {
      for (const field of ["request_id", "account_id", "mode", "route", "method", "status", "duration_ms"]) {
        expect(record, JSON.stringify(record)).toHaveProperty(field)
      }
    }
    const everything = stdout + served!.stderr()
    for (const leaked of [...secrets, ...cardNumbers, "4242 4242 4242 4242"]) expect(everything).not.toContain(leaked)
    expect(everything).not.toMatch(/sk_(test|live)_[A-Za-z0-9]/)
    expect(everything).not.toMatch(/whsec_[A-Za-z0-9]/)
    expect(everything.toLowerCase()).not.toContain("bearer ")
  })

  it("FILS_LOG_LEVEL raises the minimum level: at warning, answered requests write nothing", async () => {
    await served!.stop("SIGTERM")
    served = await serveFils({ ...env, FILS_LOG_LEVEL: "warning" }, 60_000)
    const res = await send("GET", "/api/v1/products", { key: keys.test })
    expect(res.status).toBe(200)
    // The request finished (its response was read); its line would have reached stdout within about 20 ms.
    await send("GET", "/health")
    await new Promise((resolve) => setTimeout(resolve, 200))
    const { records } = parseStdout(served.stdout())
    expect(requestLines(records)).toEqual([])
    expect(records.every((r) => r.level === "WARN" || r.level === "ERROR" || r.level === "FATAL")).toBe(true)
    expect(await served.stop("SIGTERM")).toBe(0)
    served = undefined
  })
})
