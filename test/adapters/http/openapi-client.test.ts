/**
 * A contract consumer outside the Effect world: TypeScript types generated from the served OpenAPI document with
 * `openapi-typescript`, a tiny typed `fetch` wrapper over them, and a program making one request (or two) per endpoint
 * group. The program is type-checked with `tsc` (strict; a type error anywhere in the generated types or the client
 * fails the test, and `@ts-expect-error` lines prove the types are precise, not `any`), then run with Node against a
 * real server on 127.0.0.1 backed by PostgreSQL.
 */
import { execFile } from "node:child_process"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import openapiTS, { astToString } from "openapi-typescript"
import { afterAll, describe, expect, it } from "vitest"
import { cards } from "../../support/checkout.js"
import { useServer } from "../../support/httpSuite.js"
import { postgresVariant, rawFor, type TestServer } from "../../support/server.js"

const repoRoot = fileURLToPath(new URL("../../../", import.meta.url))

interface Run {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs `node args…` with a deadline; never rejects (the caller asserts on the outcome). */
const node = (args: ReadonlyArray<string>, env: Record<string, string> = {}): Promise<Run> =>
  new Promise((resolve) => {
    execFile(
      process.execPath,
      [...args],
      { cwd: repoRoot, env: { ...process.env, ...env }, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : null
        resolve({ code, stdout, stderr: error !== null && error.killed ? `${stderr}\n(killed: deadline)` : stderr })
      }
    )
  })

/** The tiny typed fetch wrapper and the program, written against the generated `paths`. */
const clientSource = `import type { paths } from "./schema.js"

type Method = "get" | "post" | "patch" | "delete"
type Path = keyof paths
/** The methods documented on a path. */
type MethodsOf<P extends Path> = { [M in Method]: [NonNullable<paths[P][M]>] extends [never] ? never : M }[Method]
type Op<P extends Path, M extends Method> = NonNullable<paths[P][M]>
type Params<O> = O extends { parameters: infer X } ? X : never
type Body<O> = O extends { requestBody: { content: { "application/json": infer B } } } ? B : never
type Ok<O> = O extends { responses: { 200: { content: { "application/json": infer R } } } } ? R : never
type Failure<O> = O extends { responses: infer R }
  ? { [S in keyof R]: S extends 200 ? never : R[S] extends { content: { "application/json": infer E } } ? E : never }[keyof R]
  : never
type Init<O> = { params: Params<O> } & ([Body<O>] extends [never] ? { body?: never } : { body: Body<O> })
export type Result<O> =
  | { readonly ok: true; readonly status: 200; readonly data: Ok<O>; readonly headers: Headers }
  | { readonly ok: false; readonly status: number; readonly error: Failure<O>; readonly headers: Headers }

const baseUrl = process.env.FILS_BASE_URL!
const key = process.env.FILS_KEY!

export async function call<P extends Path, M extends MethodsOf<P>>(
  method: M,
  path: P,
  init: Init<Op<P, M>>
): Promise<Result<Op<P, M>>> {
  const params = init.params as {
    path?: Record<string, string>
    query?: Record<string, string | number | undefined>
    header?: Record<string, string>
  }
  let url = String(path)
  for (const [name, value] of Object.entries(params.path ?? {})) url = url.replace(\`{\${name}}\`, encodeURIComponent(value))
  const query = new URLSearchParams()
  for (const [name, value] of Object.entries(params.query ?? {})) if (value !== undefined) query.set(name, String(value))
  const res = await fetch(\`\${baseUrl}\${url}\${query.size > 0 ? \`?\${query}\` : ""}\`, {
    method: method.toUpperCase(),
    headers: {
      authorization: \`Bearer \${key}\`,
      ...(init.body === undefined ? {} : { "content-type": "application/json" }),
      ...params.header
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) })
  })
  // The wire is untyped: the document's types are the claim this program checks.
  const json: unknown = await res.json()
  return res.status === 200
    ? { ok: true, status: 200, data: json as Ok<Op<P, M>>, headers: res.headers }
    : { ok: false, status: res.status, error: json as Failure<Op<P, M>>, headers: res.headers }
}

/** The data of a success; anything else stops the program with the error. */
function must<O>(result: Result<O>, what: string): Ok<O> {
  if (!result.ok) throw new Error(\`\${what}: \${result.status} \${JSON.stringify(result.error)}\`)
  return result.data
}

const run = async () => {
  // account
  const account = must(await call("get", "/api/v1/account", { params: {} }), "account")
  const currencies: ReadonlyArray<"AED"> = account.currencies

  // products
  const created = await call("post", "/api/v1/products", {
    params: { header: { "Idempotency-Key": "client-product-1" } },
    body: { name: "Oud sampler", price: 12500, currency: "AED", metadata: { sku: "OUD-S" } }
  })
  const product = must(created, "create product")
  const price: number = product.price
  const status: "active" | "draft" | "archived" = product.status
  const replay = await call("post", "/api/v1/products", {
    params: { header: { "Idempotency-Key": "client-product-1" } },
    body: { name: "Oud sampler", price: 12500, currency: "AED", metadata: { sku: "OUD-S" } }
  })
  const products = must(await call("get", "/api/v1/products", { params: { query: { limit: 5, status: "active" } } }), "list")

  // customers
  const customer = must(await call("post", "/api/v1/customers", {
    params: {},
    body: { email: "noor@example.ae", name: "Noor Al Mansoori", phone_number: "+971509876543" }
  }), "create customer")

  // checkout sessions
  const session = must(await call("post", "/api/v1/checkout_sessions", {
    params: {},
    body: { product_cart: [{ product_id: product.product_id, quantity: 2 }], customer: { customer_id: customer.customer_id } }
  }), "create session")

  // payments
  const payments = must(await call("get", "/api/v1/payments", { params: { query: { status: "succeeded" } } }), "payments")
  const firstPayment = payments.items[0]
  const net: number | undefined = firstPayment?.net_amount

  // subscriptions
  const subscriptions = must(await call("get", "/api/v1/subscriptions", { params: { query: { status: "active" } } }), "subs")
  const subscription = subscriptions.items[0]
  if (subscription === undefined) throw new Error("expected an active subscription")
  const updated = must(await call("patch", "/api/v1/subscriptions/{id}", {
    params: { path: { id: subscription.subscription_id } },
    body: { cancel_at_period_end: true }
  }), "update subscription")

  // webhooks
  const webhook = must(await call("post", "/api/v1/webhooks", {
    params: {},
    body: { url: "http://127.0.0.1:9/hooks", event_types: ["payment.succeeded"] }
  }), "create webhook")
  const secret = must(await call("get", "/api/v1/webhooks/{id}/secret", {
    params: { path: { id: webhook.webhook_id } }
  }), "secret")

  // events
  const events = must(await call("get", "/api/v1/events", { params: { query: { type: "payment.succeeded", limit: 10 } } }), "events")

  // a typed error
  const missing = await call("get", "/api/v1/products/{id}", { params: { path: { id: "pdt_" + "0".repeat(32) } } })
  const errorCode: string | undefined = missing.ok ? undefined : missing.error.code

  console.log(JSON.stringify({
    currencies,
    productId: product.product_id,
    price,
    status,
    replayed: replay.headers.get("idempotent-replayed"),
    rateLimit: created.headers.get("ratelimit-limit"),
    listed: products.items.map((p) => p.product_id),
    customerId: customer.customer_id,
    sessionId: session.session_id,
    checkoutUrl: session.checkout_url,
    total: session.total_amount,
    payments: payments.items.length,
    net,
    subscriptionId: updated.subscription_id,
    cancelAtPeriodEnd: updated.cancel_at_period_end,
    webhookId: webhook.webhook_id,
    secret: secret.secret,
    eventTypes: events.items.map((e) => e.type),
    errorStatus: missing.status,
    errorCode
  }))
}

/** Never called: each line must be refused by the generated types. */
export async function refused() {
  // @ts-expect-error price is an integer, not a string
  await call("post", "/api/v1/products", { params: {}, body: { name: "x", price: "12", currency: "AED" } })
  // @ts-expect-error only AED is a currency
  await call("post", "/api/v1/products", { params: {}, body: { name: "x", price: 12, currency: "USD" } })
  // @ts-expect-error there is no refunds endpoint
  await call("get", "/api/v1/refunds", { params: {} })
  // @ts-expect-error products cannot be deleted
  await call("delete", "/api/v1/products/{id}", { params: { path: { id: "pdt_x" } } })
  // @ts-expect-error the path id is required
  await call("get", "/api/v1/payments/{id}", { params: {} })
  // @ts-expect-error a subscription status filter is active, on_hold or cancelled
  await call("get", "/api/v1/subscriptions", { params: { query: { status: "paused" } } })
  // @ts-expect-error a subscription update takes no other field
  await call("patch", "/api/v1/subscriptions/{id}", { params: { path: { id: "sub_x" } }, body: { quantity: 2 } })
  const product = must(await call("get", "/api/v1/products/{id}", { params: { path: { id: "pdt_x" } } }), "p")
  // @ts-expect-error a product has no amount field (it is price)
  product.amount
}

run().catch((error) => {
  console.error(error)
  process.exit(1)
})
`

/** A program with one genuine mistake, to show that the type-check sees the client's errors. */
const brokenSource = `import type { paths } from "./schema.js"
type Created = paths["/api/v1/customers"]["post"]["responses"][200]["content"]["application/json"]
export const wrong: Created = { object: "customer", customer_id: 42 }
`

/** Pays a session through its hosted page, as a browser would post the form. */
const payThroughPage = async (server: TestServer, sessionId: string) => {
  const url = `${server.origin}/checkout/${sessionId}`
  const html = await (await fetch(url)).text()
  const token = /name="form_token" value="([^"]*)"/.exec(html)?.[1]
  expect(token, html.slice(0, 300)).toBeDefined()
  const posted = await fetch(url, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      name: "Layla Haddad",
      email: "layla@example.ae",
      phone_number: "+971501234567",
      card_number: cards.visa,
      exp_month: "12",
      exp_year: "2090",
      cvc: "123",
      form_token: token!
    }).toString()
  })
  expect([200, 303]).toContain(posted.status)
}

describe("a client generated with openapi-typescript", () => {
  const server = useServer(postgresVariant)
  let dir: string | undefined

  afterAll(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true })
  })

  it("compiles against the served document and makes one request per endpoint group", async () => {
    const s = server()
    const raw = rawFor(s, s.accountA.test.key)
    // A paid subscription, so that payments, subscriptions and events have something to show.
    const plan = await raw.post("/products", {
      name: "Dates box",
      price: 9900,
      currency: "AED",
      billing: "recurring",
      billing_interval: "month"
    })
    expect(plan.status, plan.text).toBe(200)
    const paid = await raw.post("/checkout_sessions", { product_cart: [{ product_id: plan.json.product_id }] })
    expect(paid.status, paid.text).toBe(200)
    await payThroughPage(s, paid.json.session_id)

    const served = await raw.get("/api/v1/openapi.json")
    expect(served.status).toBe(200)
    const schema = astToString(await openapiTS(served.json))
    expect(schema).toContain("export interface paths")

    dir = await mkdtemp(join(tmpdir(), "fils-openapi-client-"))
    await writeFile(join(dir, "schema.d.ts"), schema)
    await writeFile(join(dir, "client.ts"), clientSource)
    await writeFile(join(dir, "broken.ts"), brokenSource)
    await writeFile(join(dir, "package.json"), JSON.stringify({ type: "module" }))
    await writeFile(join(dir, "tsconfig.json"), JSON.stringify({
      compilerOptions: {
        strict: true,
        exactOptionalPropertyTypes: true,
        noUncheckedIndexedAccess: true,
        noEmit: true,
        target: "ES2022",
        lib: ["ES2022"],
        module: "NodeNext",
        moduleResolution: "NodeNext",
        types: ["node"],
        typeRoots: [join(repoRoot, "node_modules/@types")]
      },
      files: ["schema.d.ts", "client.ts", "broken.ts"]
    }))

    const tsc = await node([join(repoRoot, "node_modules/typescript/bin/tsc"), "-p", join(dir, "tsconfig.json"), "--pretty", "false"])
    const diagnostics = tsc.stdout.split("\n").filter((line) => /error TS\d+/.test(line))
    const inBroken = (line: string) => /(^|[/\\])broken\.ts\(/.test(line)
    // The generated types and the client compile cleanly (every @ts-expect-error is used, so the types are precise)…
    expect(diagnostics.filter((line) => !inBroken(line)), tsc.stdout + tsc.stderr).toEqual([])
    // …and the check is real: the one mistake in broken.ts is reported.
    expect(diagnostics.length, tsc.stdout + tsc.stderr).toBeGreaterThan(0)
    expect(diagnostics.every(inBroken)).toBe(true)
    expect(diagnostics.join("\n")).toMatch(/broken\.ts\(3,\d+\): error TS2322/)

    const client = await node(["--import", "tsx", join(dir, "client.ts")], {
      FILS_BASE_URL: s.origin,
      FILS_KEY: s.accountA.test.key
    })
    expect(client.code, client.stderr).toBe(0)
    const out = JSON.parse(client.stdout.trim().split("\n").pop()!)

    expect(out.currencies).toEqual(["AED"])
    expect(out).toMatchObject({ price: 12500, status: "active", replayed: "true", total: 25000, errorStatus: 404 })
    expect(out.errorCode).toBe("NOT_FOUND")
    expect(Number(out.rateLimit)).toBeGreaterThan(0)
    // What the program did is what the server holds.
    const product = await raw.get(`/products/${out.productId}`)
    expect(product.json).toMatchObject({ name: "Oud sampler", price: 12500, metadata: { sku: "OUD-S" } })
    expect(out.listed).toContain(out.productId)
    const products = await raw.get("/products")
    expect(products.json.items.filter((p: { name: string }) => p.name === "Oud sampler")).toHaveLength(1)
    expect((await raw.get(`/customers/${out.customerId}`)).json.email).toBe("noor@example.ae")
    const session = await raw.get(`/checkout_sessions/${out.sessionId}`)
    expect(session.json).toMatchObject({ status: "open", checkout_url: out.checkoutUrl })
    expect(session.json.customer.email).toBe("noor@example.ae")
    expect(out.payments).toBe((await raw.get("/payments?status=succeeded")).json.items.length)
    expect(out.payments).toBeGreaterThan(0)
    expect(out.net).toBeGreaterThan(0)
    expect((await raw.get(`/subscriptions/${out.subscriptionId}`)).json.cancel_at_period_end).toBe(true)
    expect(out.cancelAtPeriodEnd).toBe(true)
    expect(out.secret).toMatch(/^whsec_/)
    expect((await raw.get(`/webhooks/${out.webhookId}/secret`)).json.secret).toBe(out.secret)
    expect(out.eventTypes.length).toBeGreaterThan(0)
    expect(new Set(out.eventTypes)).toEqual(new Set(["payment.succeeded"]))
  }, 240_000)
})
