/**
 * An `Idempotency-Key` over PostgreSQL when the database goes away right after the work commits (docs/decisions.md §8):
 * the object and its key's answer commit in one transaction, so a retry replays the answer and never makes a
 * second object. The crash is real: the server's pool goes through a proxy that cuts every connection right after
 * the product's commit is acknowledged (`commitCutter`).
 */
import { SqlClient } from "@effect/sql"
import { Effect, Layer, type Redacted } from "effect"
import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, expect, it } from "vitest"
import { PgLive } from "../../../adapters/sql/Postgres.js"
import { fileDatabaseUrl, postgresStoreBehindCutter } from "../../support/postgresStore.js"
import { rawFor, startServer, type TestServer } from "../../support/server.js"
import type { CommitCutter } from "../../support/tcp.js"

let server: TestServer
let cutter: CommitCutter
let url: Redacted.Redacted

/** One statement on the database, directly (not through the proxy). */
const query = <A extends object>(text: string, ...params: Array<unknown>) =>
  Effect.runPromise(Effect.scoped(Effect.flatMap(
    Layer.build(PgLive(url, { maxConnections: 1 })),
    (context) => Effect.flatMap(SqlClient.SqlClient.pipe(Effect.provide(context)), (sql) => sql.unsafe<A>(text, params))
  )))

beforeAll(async () => {
  url = await fileDatabaseUrl()
  const behind = await postgresStoreBehindCutter()
  cutter = behind.cutter
  server = await startServer(behind.store)
})

afterAll(async () => {
  await server?.close()
  await cutter?.close()
})

const withKey = (key: string) => ({ headers: { "idempotency-key": key } })

it("a product and its key's answer are written by one transaction", async () => {
  const raw = rawFor(server, server.accountA.test.key)
  const key = randomUUID()
  const created = await raw.post("/products", { name: `One ${key}`, price: 900, currency: "AED" }, withKey(key))
  expect(created.status, created.text).toBe(200)
  const [product] = await query<{ xmin: string }>("SELECT xmin::text FROM products WHERE product_id = $1", created.json.product_id)
  const [record] = await query<{ xmin: string; response_status: number }>(
    "SELECT xmin::text, response_status FROM idempotency_keys WHERE key = $1",
    key
  )
  expect(record?.response_status).toBe(200)
  expect(product?.xmin).toBe(record?.xmin)
})

it("every create with a key writes its objects in its answer's transaction", async () => {
  const raw = rawFor(server, server.accountA.test.key)
  const sameTransaction = async (key: string, table: string, column: string, id: string) => {
    const [object] = await query<{ xmin: string }>(`SELECT xmin::text FROM ${table} WHERE ${column} = $1`, id)
    const [record] = await query<{ xmin: string; response_status: number }>(
      "SELECT xmin::text, response_status FROM idempotency_keys WHERE key = $1",
      key
    )
    expect(record?.response_status, `${table}: answered`).toBe(200)
    expect(object?.xmin, `${table}: same transaction as the answer`).toBe(record?.xmin)
  }
  const post = async (path: string, body: unknown) => {
    const key = randomUUID()
    const res = await raw.post(path, body, withKey(key))
    expect(res.status, res.text).toBe(200)
    return { key, json: res.json }
  }
  const product = await post("/products", { name: "Tea", price: 1500, currency: "AED" })
  await sameTransaction(product.key, "products", "product_id", product.json.product_id)
  const customer = await post("/customers", { name: "Layla", email: `layla-${randomUUID()}@example.com` })
  await sameTransaction(customer.key, "customers", "customer_id", customer.json.customer_id)
  // A checkout that makes its customer: both objects, one answer.
  const email = `omar-${randomUUID()}@example.com`
  const session = await post("/checkout_sessions", {
    product_cart: [{ product_id: product.json.product_id }],
    customer: { name: "Omar", email }
  })
  await sameTransaction(session.key, "checkout_sessions", "session_id", session.json.session_id)
  const [made] = await query<{ customer_id: string }>("SELECT customer_id FROM checkout_sessions WHERE session_id = $1", session.json.session_id)
  await sameTransaction(session.key, "customers", "customer_id", made!.customer_id)
  const endpoint = await post("/webhooks", { url: "https://example.com/hooks" })
  await sameTransaction(endpoint.key, "webhook_endpoints", "webhook_id", endpoint.json.webhook_id)
  const portal = await post("/customer_portal_sessions", { customer_id: customer.json.customer_id })
  await sameTransaction(portal.key, "customer_portal_sessions", "customer_portal_session_id", portal.json.customer_portal_session_id)
})

it("the database dies right after the product's commit: a retry with the key replays it, one product", async () => {
  const raw = rawFor(server, server.accountA.test.key)
  const key = randomUUID()
  const name = `Crash ${key}`
  const body = { name, price: 1200, currency: "AED" }
  const cut = cutter.arm("INSERT INTO products")
  const first = await raw.post("/products", body, withKey(key))
  await cut
  cutter.heal()
  // Whatever the first request managed to answer, its retry is the same request: after the lease it may run anew.
  await query("UPDATE idempotency_keys SET locked_until = now() - interval '1 second' WHERE key = $1 AND response_status IS NULL", key)
  let retry = await raw.post("/products", body, withKey(key))
  // The pool may still hand out a connection the cut closed: that attempt is a 503 and is not kept.
  for (let i = 0; i < 5 && retry.status === 503; i++) retry = await raw.post("/products", body, withKey(key))
  const products = await query<{ product_id: string }>("SELECT product_id FROM products WHERE name = $1", name)
  expect(products).toHaveLength(1)
  expect(retry.status, retry.text).toBe(200)
  expect(retry.headers.get("idempotent-replayed")).toBe("true")
  expect(retry.json.product_id).toBe(products[0]!.product_id)
  if (first.status === 200) expect(retry.text).toBe(first.text)
})

it("the database goes away before the work commits: once it is back, the key is free again well inside the lease", async () => {
  const raw = rawFor(server, server.accountA.test.key)
  const key = randomUUID()
  const name = `Lost ${key}`
  const body = { name, price: 1500, currency: "AED" }
  const cut = cutter.armBefore("INSERT INTO products")
  const first = await raw.post("/products", body, withKey(key))
  await cut
  expect(first.status, first.text).toBe(503)
  // The first attempt could not release its key (the database was gone); it keeps trying, so a retry once the
  // database is back runs the work rather than meeting 409 IDEMPOTENCY_KEY_IN_USE for the rest of the lease.
  cutter.heal()
  const started = Date.now()
  let retry = await raw.post("/products", body, withKey(key))
  while (retry.status !== 200 && Date.now() - started < 10_000) {
    expect([409, 503], retry.text).toContain(retry.status)
    await new Promise((r) => setTimeout(r, 200))
    retry = await raw.post("/products", body, withKey(key))
  }
  expect(retry.status, retry.text).toBe(200)
  expect(retry.headers.get("idempotent-replayed")).toBeNull()
  const products = await query<{ product_id: string }>("SELECT product_id FROM products WHERE name = $1", name)
  expect(products.map((p) => p.product_id)).toEqual([retry.json.product_id])
})
