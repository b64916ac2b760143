/**
 * OpenTelemetry traces from `fils serve` as a collector receives them: a real OTLP/HTTP receiver on 127.0.0.1
 * collects `POST /v1/traces` (JSON encoding); the HTTP server spans and the use-case spans (`Products.create`) of the
 * requests arrive in one trace, joined to the caller's `traceparent`. Without `OTEL_EXPORTER_OTLP_ENDPOINT` nothing
 * is exported at all, even with the SDK's own endpoint variables pointing at the receiver.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Redacted } from "effect"
import { once } from "node:events"
import { createServer, type Server } from "node:http"
import { runFils, type Served, serveFils } from "../support/cli.js"
import { openPortalLink } from "../support/portal.js"
import { fileDatabaseUrl } from "../support/postgresStore.js"

interface Received {
  readonly path: string
  readonly contentType: string
  readonly body: string
  readonly headers: Record<string, string | string[] | undefined>
}

interface OtlpSpan {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly kind: number
  readonly attributes?: ReadonlyArray<{ readonly key: string; readonly value: Record<string, unknown> }>
}

let receiver: Server
let received: Array<Received> = []
let endpoint = ""
let served: Served | undefined
let env: Record<string, string | undefined> = {}
let key = ""

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = ""
    req.setEncoding("utf8")
    req.on("data", (chunk) => (body += chunk))
    req.on("end", () => {
      received.push({ path: req.url ?? "", contentType: req.headers["content-type"] ?? "", body, headers: req.headers })
      res.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
  })
  receiver.listen(0, "127.0.0.1")
  await once(receiver, "listening")
  const address = receiver.address()
  endpoint = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`

  env = {
    DATABASE_URL: Redacted.value(await fileDatabaseUrl()),
    FILS_KEY_CACHE_TTL: "0 millis",
    OTEL_EXPORTER_OTLP_ENDPOINT: undefined,
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: undefined,
    OTEL_SERVICE_NAME: undefined,
    // Export soon after each request (the SIGTERM flush below makes it certain anyway).
    OTEL_BSP_SCHEDULE_DELAY: "200"
  }
  const created = await runFils(["accounts", "create", "--name", "Traced Souq"], env)
  expect(created.code, created.stderr).toBe(0)
  key = JSON.parse(created.stdout).keys.test.secret
}, 60_000)

afterAll(async () => {
  await served?.stop("SIGKILL")
  receiver.closeAllConnections()
  receiver.close()
})

const api = (path: string, init: RequestInit = {}) =>
  fetch(`${served!.baseUrl}/api/v1${path}`, {
    ...init,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...(init.headers ?? {}) },
    signal: AbortSignal.timeout(15_000)
  })

const spansOf = (payloads: ReadonlyArray<Received>) =>
  payloads.flatMap((p) => {
    const json = JSON.parse(p.body) as {
      resourceSpans: Array<{
        resource: { attributes: Array<{ key: string; value: { stringValue?: string } }> }
        scopeSpans: Array<{ spans: Array<OtlpSpan> }>
      }>
    }
    return json.resourceSpans.flatMap((rs) =>
      rs.scopeSpans.flatMap((ss) =>
        ss.spans.map((span) => ({
          span,
          service: rs.resource.attributes.find((a) => a.key === "service.name")?.value.stringValue
        }))
      )
    )
  })

const attr = (span: OtlpSpan, name: string): unknown => {
  const value = span.attributes?.find((a) => a.key === name)?.value
  return value === undefined ? undefined : Object.values(value)[0]
}

describe("traces over OTLP/HTTP", () => {
  it("exports the HTTP server span and the use-case spans of each request, in the caller's trace", async () => {
    served = await serveFils({
      ...env,
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_SERVICE_NAME: "fils-e2e",
      // The collector's credentials, as the specification writes them (values URL-encoded).
      OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20collector-token,x-tenant=dune"
    }, 60_000)
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736"
    const callerSpan = "00f067aa0ba902b7"
    const created = await api("/products", {
      method: "POST",
      body: JSON.stringify({ name: "Cardamom, 50 g", price: 2500, currency: "AED" }),
      headers: { traceparent: `00-${traceId}-${callerSpan}-01` }
    })
    expect(created.status).toBe(200)
    const product = await created.json()
    expect((await api(`/products/${product.product_id}`)).status).toBe(200)
    // A customer portal link opened: its secret is in the URL, so that request is not traced at all.
    const customer = await (await api("/customers", { method: "POST", body: JSON.stringify({ email: "traced@example.ae" }) })).json()
    const portal = await (await api("/customer_portal_sessions", { method: "POST", body: JSON.stringify({ customer_id: customer.customer_id }) })).json()
    const sessionCookie = await openPortalLink(portal.url)
    const portalCookie = sessionCookie.split("=")[1]!
    expect((await fetch(`${served.baseUrl}/portal`, { headers: { cookie: sessionCookie } })).status).toBe(200)

    // SIGTERM flushes the batch before the process exits.
    expect(await served.stop("SIGTERM")).toBe(0)
    served = undefined

    const traces = received.filter((r) => r.path === "/v1/traces")
    expect(traces.length).toBeGreaterThan(0)
    expect(received.every((r) => r.path === "/v1/traces")).toBe(true)
    for (const t of traces) {
      expect(t.contentType).toMatch(/^application\/json/)
      expect(t.headers["authorization"]).toBe("Bearer collector-token")
      expect(t.headers["x-tenant"]).toBe("dune")
    }
    const spans = spansOf(traces)
    expect(spans.every((s) => s.service === "fils-e2e")).toBe(true)

    // The server span of the POST: kind SERVER (2), a child of the caller's span, with the route template.
    const server = spans.map((s) => s.span).find((s) => s.name === "http.server POST" && s.traceId === traceId)
    expect(server, JSON.stringify(spans.map((s) => s.span.name))).toBeDefined()
    expect(server!.kind).toBe(2)
    expect(server!.parentSpanId).toBe(callerSpan)
    expect(attr(server!, "http.route")).toBe("/api/v1/products")
    expect(Number(attr(server!, "http.response.status_code"))).toBe(200)
    expect(attr(server!, "fils.mode")).toBe("test")
    expect(typeof attr(server!, "fils.request_id")).toBe("string")

    // The use case ran inside it: Products.create is a descendant of the server span, in the same trace.
    const inTrace = spans.map((s) => s.span).filter((s) => s.traceId === traceId)
    const byId = new Map(inTrace.map((s) => [s.spanId, s]))
    const create = inTrace.find((s) => s.name === "Products.create")
    expect(create, JSON.stringify(inTrace.map((s) => s.name))).toBeDefined()
    let ancestor: OtlpSpan | undefined = create
    while (ancestor !== undefined && ancestor.spanId !== server!.spanId) {
      ancestor = ancestor.parentSpanId === undefined ? undefined : byId.get(ancestor.parentSpanId)
    }
    expect(ancestor?.spanId).toBe(server!.spanId)

    // The GET, in a trace of its own.
    const get = spans.map((s) => s.span).find((s) => s.name === "http.server GET" && attr(s, "http.route") === "/api/v1/products/:id")
    expect(get).toBeDefined()
    expect(get!.traceId).not.toBe(traceId)
    expect(spans.some((s) => s.span.name === "Products.get" && s.span.traceId === get!.traceId)).toBe(true)

    // The key never reaches a span (the authorization header is redacted).
    const everything = traces.map((t) => t.body).join("\n")
    expect(everything).not.toContain(key)
    // Nor does a portal link's secret, nor its cookie; the portal's own pages are traced.
    expect(everything).not.toContain(new URL(portal.url).pathname)
    expect(everything).not.toContain(portalCookie)
    expect(spans.some((s) => s.span.name === "http.server GET" && attr(s.span, "http.route") === "/portal")).toBe(true)
  })

  it("traces the share of requests the sampler picks: at a ratio of 0, only those whose caller sampled them", async () => {
    received = []
    served = await serveFils({
      ...env,
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
      OTEL_TRACES_SAMPLER_ARG: "0"
    }, 60_000)
    const sampled = "5bf92f3577b34da6a3ce929d0e0e4736"
    const unsampled = "6bf92f3577b34da6a3ce929d0e0e4736"
    const create = (name: string, traceparent?: string) =>
      api("/products", {
        method: "POST",
        body: JSON.stringify({ name, price: 900, currency: "AED" }),
        ...(traceparent === undefined ? {} : { headers: { traceparent } })
      })
    expect((await create("Saffron, 1 g", `00-${sampled}-00f067aa0ba902b7-01`)).status).toBe(200)
    expect((await create("Mace, 20 g", `00-${unsampled}-00f067aa0ba902b7-00`)).status).toBe(200)
    for (let i = 0; i < 5; i++) expect((await create(`Clove ${i}`)).status).toBe(200)
    expect(await served.stop("SIGTERM")).toBe(0)
    served = undefined
    const spans = spansOf(received.filter((r) => r.path === "/v1/traces")).map((s) => s.span)
    // The caller's sampled trace, whole: its server span and the use case under it; nothing of the others.
    expect(spans.some((s) => s.name === "http.server POST" && s.traceId === sampled)).toBe(true)
    expect(spans.some((s) => s.name === "Products.create" && s.traceId === sampled)).toBe(true)
    expect([...new Set(spans.filter((s) => s.traceId !== sampled).map((s) => s.name))]).toEqual([])
  })

  it("exports nothing without OTEL_EXPORTER_OTLP_ENDPOINT, even with the SDK's own variables set", async () => {
    received = []
    served = await serveFils({ ...env, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${endpoint}/v1/traces` }, 60_000)
    const created = await api("/products", {
      method: "POST",
      body: JSON.stringify({ name: "Sumac, 100 g", price: 1800, currency: "AED" })
    })
    expect(created.status).toBe(200)
    expect(await served.stop("SIGTERM")).toBe(0)
    served = undefined
    // Longer than the schedule delay a loaded SDK would have used.
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    expect(received).toEqual([])
  })
})
