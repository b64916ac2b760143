/**
 * `GET /metrics` on a real server (the production middleware: request id, log line, metrics) over each store: the
 * page parses as Prometheus text; request counters and histograms go up by exactly the requests made, with
 * cumulative buckets that end at `_count`; delivery and billing figures are the store's.
 */
import { HttpApiBuilder, HttpServer } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { ConfigProvider, DateTime, Effect, Layer, Logger, LogLevel, ManagedRuntime, Redacted } from "effect"
import * as fc from "fast-check"
import { createServer } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { HttpAppLive } from "../../../adapters/http/App.js"
import { serverMiddleware } from "../../../adapters/http/Server.js"
import { NodeAdapters } from "../../../adapters/runtime/NodeAdapters.js"
import { Accounts } from "../../../src/application/Accounts.js"
import { Billing } from "../../../src/application/Billing.js"
import { Engine } from "../../../src/application/Engine.js"
import type { DeliveryStatus } from "../../../src/domain/Delivery.js"
import type { SubscriptionId } from "../../../src/domain/Ids.js"
import { Store, type Repositories } from "../../../src/ports/Store.js"
import { defaultConfig, storeVariants } from "../../support/server.js"

// Prometheus text, parsed strictly ----------------------------------------------------------------------------------

interface Sample {
  readonly name: string
  readonly labels: Readonly<Record<string, string>>
  readonly value: number
}

interface Family {
  readonly type: string
  readonly samples: Array<Sample>
}

const metricName = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/
const labelPair = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"(,|$)/

const parseValue = (text: string): number => {
  if (text === "+Inf") return Number.POSITIVE_INFINITY
  if (text === "-Inf") return Number.NEGATIVE_INFINITY
  if (text === "NaN") return Number.NaN
  if (!/^-?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(text)) throw new Error(`not a sample value: ${text}`)
  return Number(text)
}

const parseLabels = (text: string): Record<string, string> => {
  const labels: Record<string, string> = {}
  let rest = text
  while (rest.length > 0) {
    const m = labelPair.exec(rest)
    if (m === null) throw new Error(`malformed labels: {${text}}`)
    if (m[1]! in labels) throw new Error(`label ${m[1]} twice in {${text}}`)
    labels[m[1]!] = m[2]!.replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c))
    rest = rest.slice(m[0].length)
    if (m[3] === "," && rest.length === 0) throw new Error(`trailing comma in {${text}}`)
  }
  return labels
}

/** Families by name. Throws on anything the exposition format (0.0.4) does not allow. */
const parsePrometheus = (text: string): Map<string, Family> => {
  expect(text.endsWith("\n")).toBe(true)
  const families = new Map<string, Family>()
  const helped = new Set<string>()
  const series = new Set<string>()
  const familyOf = (sampleName: string) => {
    if (families.has(sampleName)) return families.get(sampleName)!
    const base = sampleName.replace(/_(bucket|sum|count)$/, "")
    const family = families.get(base)
    if (family === undefined || (family.type !== "histogram" && family.type !== "summary")) return undefined
    return family
  }
  for (const line of text.slice(0, -1).split("\n")) {
    if (line.startsWith("# HELP ")) {
      const name = line.slice(7).split(" ")[0]!
      expect(name).toMatch(metricName)
      expect(helped.has(name), `HELP twice for ${name}`).toBe(false)
      helped.add(name)
      continue
    }
    if (line.startsWith("# TYPE ")) {
      const [name, type, ...extra] = line.slice(7).split(" ")
      expect(extra).toEqual([])
      expect(name).toMatch(metricName)
      expect(["counter", "gauge", "histogram", "summary", "untyped"]).toContain(type)
      expect(families.has(name!), `TYPE twice for ${name}`).toBe(false)
      families.set(name!, { type: type!, samples: [] })
      continue
    }
    if (line.startsWith("#")) continue
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (m === null) throw new Error(`not a sample line: ${JSON.stringify(line)}`)
    const sample: Sample = { name: m[1]!, labels: parseLabels(m[2] ?? ""), value: parseValue(m[3]!) }
    const family = familyOf(sample.name)
    if (family === undefined) throw new Error(`sample before its TYPE: ${line}`)
    const id = `${sample.name}${JSON.stringify(Object.entries(sample.labels).sort())}`
    expect(series.has(id), `series twice: ${line}`).toBe(false)
    series.add(id)
    family.samples.push(sample)
  }
  return families
}

const withoutLe = (labels: Readonly<Record<string, string>>) => {
  const { le: _, ...rest } = labels
  return JSON.stringify(Object.entries(rest).sort())
}

/** Every histogram: buckets per series ascending in `le`, cumulative, ending at `+Inf` equal to `_count`. */
const checkHistograms = (families: Map<string, Family>) => {
  for (const [name, family] of families) {
    if (family.type !== "histogram") continue
    const bySeries = new Map<string, { buckets: Array<Sample>; sum?: number; count?: number }>()
    for (const sample of family.samples) {
      const key = withoutLe(sample.labels)
      const entry = bySeries.get(key) ?? { buckets: [] }
      bySeries.set(key, entry)
      if (sample.name === `${name}_bucket`) entry.buckets.push(sample)
      else if (sample.name === `${name}_sum`) entry.sum = sample.value
      else if (sample.name === `${name}_count`) entry.count = sample.value
      else throw new Error(`unexpected sample ${sample.name} in histogram ${name}`)
    }
    for (const [key, entry] of bySeries) {
      expect(entry.count, key).toBeDefined()
      expect(entry.sum, key).toBeDefined()
      expect(entry.sum!).toBeGreaterThanOrEqual(0)
      const les = entry.buckets.map((b) => parseValue(b.labels.le!))
      expect(les, key).toEqual([...les].sort((a, b) => a - b))
      expect(les.at(-1)).toBe(Number.POSITIVE_INFINITY)
      for (let i = 1; i < entry.buckets.length; i++) {
        expect(entry.buckets[i]!.value).toBeGreaterThanOrEqual(entry.buckets[i - 1]!.value)
      }
      expect(entry.buckets.at(-1)!.value, key).toBe(entry.count)
    }
  }
}

const valueOf = (families: Map<string, Family>, name: string, labels: Record<string, string>): number => {
  const family = families.get(name.replace(/_(bucket|sum|count)$/, "")) ?? families.get(name)
  const found = family?.samples.find((s) =>
    s.name === name && Object.keys(labels).length === Object.keys(s.labels).length &&
    Object.entries(labels).every(([k, v]) => s.labels[k] === v)
  )
  return found?.value ?? 0
}

// A server with the production middleware ---------------------------------------------------------------------------

const startServer = async (store: Layer.Layer<Store | Repositories>) => {
  const provider = ConfigProvider.fromMap(new Map(Object.entries(defaultConfig))).pipe(
    ConfigProvider.orElse(() => ConfigProvider.fromEnv())
  )
  const engine = Engine.pipe(Layer.provideMerge(Layer.mergeAll(store, NodeAdapters)))
  const http = HttpApiBuilder.serve(serverMiddleware).pipe(
    Layer.provide(HttpAppLive),
    Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }))
  )
  const runtime = ManagedRuntime.make(http.pipe(
    Layer.provideMerge(engine),
    Layer.provide(Logger.minimumLogLevel(LogLevel.Error)),
    Layer.provide(Layer.setConfigProvider(provider))
  ))
  const address = await runtime.runPromise(HttpServer.addressWith((a) => Effect.succeed(a)))
  if (address._tag !== "TcpAddress") throw new Error("expected a TCP address")
  const created = await runtime.runPromise(Effect.flatMap(Accounts, (a) => a.create({ business_name: "Metered Souq" })))
  return { runtime, origin: `http://127.0.0.1:${address.port}`, key: Redacted.value(created.keys.test.secret) }
}

for (const variant of storeVariants) {
  describe(`GET /metrics [${variant.name}]`, () => {
    let server: Awaited<ReturnType<typeof startServer>>
    beforeAll(async () => {
      server = await startServer(await variant.store())
    }, 60_000)
    afterAll(async () => {
      await server?.runtime.dispose()
    })

    const scrape = async () => {
      const res = await fetch(`${server.origin}/metrics`, { signal: AbortSignal.timeout(15_000) })
      expect(res.status).toBe(200)
      expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8")
      const families = parsePrometheus(await res.text())
      checkHistograms(families)
      return families
    }

    const send = async (method: string, path: string, options: { key?: string; body?: unknown } = {}) => {
      const headers: Record<string, string> = {}
      if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`
      if (options.body !== undefined) headers["content-type"] = "application/json"
      const res = await fetch(`${server.origin}${path}`, {
        method,
        headers,
        ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
        redirect: "manual",
        signal: AbortSignal.timeout(15_000)
      })
      const text = await res.text()
      return { status: res.status, json: text.startsWith("{") ? JSON.parse(text) : undefined }
    }

    it("is Prometheus text with every family declared, unauthenticated, with the store's figures present", async () => {
      const families = await scrape()
      expect(families.get("fils_http_requests_total")?.type).toBe("counter")
      expect(families.get("fils_http_request_duration_seconds")?.type).toBe("histogram")
      expect(families.get("fils_deliveries")?.type).toBe("gauge")
      expect(families.get("fils_billing_outcomes_total")?.type).toBe("counter")
      expect(valueOf(families, "fils_store_up", {})).toBe(1)
      for (const status of ["pending", "succeeded", "failed", "cancelled"]) {
        expect(families.get("fils_deliveries")!.samples.some((s) => s.labels.status === status)).toBe(true)
      }
      // Only GET: another method is 405 like every known path.
      const posted = await fetch(`${server.origin}/metrics`, { method: "POST", signal: AbortSignal.timeout(15_000) })
      expect(posted.status).toBe(405)
      expect(posted.headers.get("allow")).toBe("GET")
    })

    /** The requests a property draws from: what each is, and the series it must count in. */
    const kinds = {
      create: { method: "POST", route: "/api/v1/products", status: 200 },
      read: { method: "GET", route: "/api/v1/products/{id}", status: 200 },
      missing: { method: "GET", route: "/api/v1/products/{id}", status: 404 },
      unauthorized: { method: "GET", route: "/api/v1/products", status: 401 },
      unmatched: { method: "GET", route: "unmatched", status: 404 },
      notAllowed: { method: "DELETE", route: "unmatched", status: 405 },
      health: { method: "GET", route: "/health", status: 200 }
    } as const
    type Kind = keyof typeof kinds

    it("counts each request once, by route template, method and status, in the counter and the histogram", async () => {
      const product = (await send("POST", "/api/v1/products", {
        key: server.key,
        body: { name: "Rose water", price: 1500, currency: "AED" }
      })).json
      const run = async (kind: Kind) => {
        switch (kind) {
          case "create":
            return send("POST", "/api/v1/products", { key: server.key, body: { name: "Za'atar", price: 900, currency: "AED" } })
          case "read":
            return send("GET", `/api/v1/products/${product.product_id}`, { key: server.key })
          case "missing":
            return send("GET", "/api/v1/products/pdt_0190f0c2a1b27c3d8e4f5a6b7c8d9e0f", { key: server.key })
          case "unauthorized":
            return send("GET", "/api/v1/products", { key: "sk_test_nobody" })
          case "unmatched":
            return send("GET", `/api/v1/no/such/${Math.random().toString(36).slice(2)}`)
          case "notAllowed":
            return send("DELETE", "/api/v1/products")
          case "health":
            return send("GET", "/health")
        }
      }
      const seriesKey = (s: Sample) => JSON.stringify([s.labels.route, s.labels.method, s.labels.status])
      const counts = (families: Map<string, Family>, name: string) =>
        new Map(families.get(name.replace(/_count$/, ""))!.samples.filter((s) => s.name === name).map((s) => [seriesKey(s), s.value]))

      await fc.assert(
        fc.asyncProperty(fc.array(fc.constantFrom(...(Object.keys(kinds) as Array<Kind>)), { maxLength: 12 }), async (drawn) => {
          const before = await scrape()
          for (const kind of drawn) expect((await run(kind)).status, kind).toBe(kinds[kind].status)
          const after = await scrape()
          const expected = new Map<string, number>()
          for (const kind of drawn) {
            const { method, route, status } = kinds[kind]
            const key = JSON.stringify([route, method, String(status)])
            expected.set(key, (expected.get(key) ?? 0) + 1)
          }
          // The scrape that read `before` is itself counted by the time `after` is read.
          const scrapeKey = JSON.stringify(["/metrics", "GET", "200"])
          expected.set(scrapeKey, 1)
          for (const name of ["fils_http_requests_total", "fils_http_request_duration_seconds_count"]) {
            const b = counts(before, name)
            const a = counts(after, name)
            for (const key of new Set([...a.keys(), ...b.keys(), ...expected.keys()])) {
              expect((a.get(key) ?? 0) - (b.get(key) ?? 0), `${name} ${key}`).toBe(expected.get(key) ?? 0)
            }
          }
        }),
        // Every kind at least once in the first run, then random sequences.
        { numRuns: 8, examples: [[Object.keys(kinds) as Array<Kind>]] }
      )
    }, 120_000)

    it("reports the store's deliveries by status and its renewal outcomes", async () => {
      const store = <A, E>(f: (s: typeof Store.Service) => Effect.Effect<A, E>) =>
        server.runtime.runPromise(Effect.flatMap(Store, f))
      // An endpoint for every event type; no dispatcher runs in this server, so deliveries stay as the test leaves them.
      const webhook = await send("POST", "/api/v1/webhooks", { key: server.key, body: { url: "http://127.0.0.1:9/hook" } })
      expect(webhook.status).toBe(200)
      const product = (await send("POST", "/api/v1/products", {
        key: server.key,
        body: { name: "Coffee club", price: 9900, currency: "AED", billing: "recurring", billing_interval: "month" }
      })).json

      // Two subscriptions: one whose renewals succeed, one whose renewals are declined.
      const subscriptions: Array<string> = []
      for (const card of ["4242424242424242", "4000000000000341"]) {
        const session = (await send("POST", "/api/v1/checkout_sessions", {
          key: server.key,
          body: { product_cart: [{ product_id: product.product_id }], return_url: "https://shop.example/done" }
        })).json
        const page = await (await fetch(`${server.origin}/checkout/${session.session_id}`)).text()
        const token = /name="form_token" value="([^"]*)"/.exec(page)?.[1]
        const posted = await fetch(`${server.origin}/checkout/${session.session_id}`, {
          method: "POST",
          redirect: "manual",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({
            name: "Layla Haddad",
            email: "layla@example.ae",
            card_number: card,
            exp_month: "12",
            exp_year: "2040",
            cvc: "123",
            form_token: token!
          }).toString()
        })
        expect(posted.status).toBe(303)
        const listed = (await send("GET", `/api/v1/subscriptions?limit=100`, { key: server.key })).json
        subscriptions.push(
          listed.items.find((s: { checkout_session_id: string }) => s.checkout_session_id === session.session_id).subscription_id
        )
      }
      const nextBilling = Date.now() + 32 * 24 * 3600 * 1000
      await server.runtime.runPromise(
        Effect.flatMap(Billing, (b) => b.runOnce({ livemode: false, asOf: nextBilling }))
      )

      // Move two deliveries on: one succeeds, one fails for good.
      const now = DateTime.unsafeNow()
      const claimed = await store((s) => s.deliveries.claimDue(DateTime.add(now, { hours: 1 }), 2, 60_000))
      expect(claimed).toHaveLength(2)
      for (const [i, c] of claimed.entries()) {
        await store((s) =>
          s.deliveries.recordAttempt({
            deliveryId: c.delivery.delivery_id,
            attempt: c.attempt,
            startedAt: now,
            outcome: { ok: i === 0, statusCode: i === 0 ? 200 : 500, error: null, durationMillis: 3 },
            nextAttemptAt: undefined
          })
        )
      }

      const families = await scrape()
      const statuses: ReadonlyArray<DeliveryStatus> = ["pending", "succeeded", "failed", "cancelled"]
      for (const status of statuses) {
        const listed = await store((s) => s.deliveries.list({ status }, 1000))
        for (const livemode of [false, true]) {
          const inStore = listed.filter((d) => d.livemode === livemode).length
          const mode = livemode ? "live" : "test"
          expect(valueOf(families, "fils_deliveries", { status, mode }), `${status} ${mode}`).toBe(inStore)
        }
      }
      expect(valueOf(families, "fils_deliveries", { status: "succeeded", mode: "test" })).toBeGreaterThanOrEqual(1)
      expect(valueOf(families, "fils_deliveries", { status: "failed", mode: "test" })).toBeGreaterThanOrEqual(1)
      expect(valueOf(families, "fils_deliveries", { status: "pending", mode: "test" })).toBeGreaterThanOrEqual(1)

      // Renewal outcomes as the store records them: each attempt's payment status.
      const outcomes = { succeeded: 0, failed: 0, processing: 0 }
      for (const id of subscriptions) {
        for (const attempt of await store((s) => s.subscriptions.attempts(id as SubscriptionId))) {
          const payment = await store((s) => s.payments.find(attempt.payment_id))
          const status = payment._tag === "Some" ? payment.value.status : "missing"
          if (status === "failed") outcomes.failed++
          else if (status === "processing") outcomes.processing++
          else if (status !== "missing") outcomes.succeeded++
        }
      }
      expect(outcomes).toEqual({ succeeded: 1, failed: 1, processing: 0 })
      expect(valueOf(families, "fils_billing_outcomes_total", { outcome: "succeeded", mode: "test" })).toBe(outcomes.succeeded)
      expect(valueOf(families, "fils_billing_outcomes_total", { outcome: "failed", mode: "test" })).toBe(outcomes.failed)
      expect(valueOf(families, "fils_billing_processing", { mode: "test" })).toBe(outcomes.processing)
      expect(valueOf(families, "fils_billing_outcomes_total", { outcome: "succeeded", mode: "live" })).toBe(0)
    }, 120_000)
  })
}
