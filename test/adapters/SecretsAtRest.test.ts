/**
 * Webhook secrets at rest on real PostgreSQL, through `fils serve` and `fils secrets rotate` as processes (so the
 * CLI's configuration is what is tested): with FILS_SECRET_KEY set the `secret` column never holds the `whsec_…`
 * value, the API still returns it and deliveries verify with it; rows written without a key stay readable beside
 * sealed ones; `fils secrets rotate` moves every row to the new key id (once); a server whose keys cannot open the
 * stored secrets, or given a malformed key, refuses to start with a clear message.
 */
import { Effect, Redacted } from "effect"
import { once } from "node:events"
import { createServer, type Server } from "node:http"
import { randomBytes } from "node:crypto"
import pg from "pg"
import { Webhook } from "standardwebhooks"
import { postCheckoutForm } from "../support/load.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { keyIdFor, makeSecretBox } from "../../adapters/crypto/SecretBox.js"
import { commandEnv, filsArgs, freePort, root, runFils, type Served, serveFils } from "../support/cli.js"
import { spawn } from "node:child_process"
import { fileDatabaseUrl } from "../support/postgresStore.js"

const keyA = randomBytes(32)
const keyB = randomBytes(32)

let url = ""
const servers: Array<Served> = []
let receiver: { readonly url: string; readonly bodies: Array<{ headers: Record<string, string>; body: string }>; readonly server: Server }
let db: pg.Client

const envWith = (extra: Record<string, string | undefined>) => ({
  DATABASE_URL: url,
  FILS_DATA_DIR: undefined,
  FILS_SECRET_KEY: undefined,
  FILS_SECRET_KEY_PREVIOUS: undefined,
  FILS_KEY_CACHE_TTL: "0 millis",
  FILS_RATE_LIMIT_PER_MIN: undefined,
  ...extra
})

const serve = async (extra: Record<string, string | undefined>) => {
  const served = await serveFils(envWith(extra), 60_000)
  servers.push(served)
  return served
}

beforeAll(async () => {
  url = Redacted.value(await fileDatabaseUrl())
  db = new pg.Client({ connectionString: url })
  await db.connect()
  const bodies: Array<{ headers: Record<string, string>; body: string }> = []
  const server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const headers: Record<string, string> = {}
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers[k] = v
      bodies.push({ headers, body: Buffer.concat(chunks).toString("utf8") })
      res.writeHead(200).end("ok")
    })
  })
  server.listen(0, "127.0.0.1")
  await once(server, "listening")
  const address = server.address() as { port: number }
  receiver = { url: `http://127.0.0.1:${address.port}/hooks`, bodies, server }
}, 60_000)

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop("SIGKILL").catch(() => undefined)))
  receiver?.server.closeAllConnections()
  receiver?.server.close()
  await db?.end()
}, 30_000)

const api = async (base: string, key: string, method: string, path: string, body?: unknown): Promise<any> => {
  const res = await fetch(`${base}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(15_000)
  })
  const json = await res.json()
  expect(res.status, `${method} ${path}: ${JSON.stringify(json)}`).toBe(200)
  return json
}

const rawSecrets = async (): Promise<Map<string, string>> => {
  const { rows } = await db.query<{ webhook_id: string; secret: string }>("SELECT webhook_id, secret FROM webhook_endpoints")
  return new Map(rows.map((r) => [r.webhook_id, r.secret]))
}

/** Pays a new session with the test card by posting the hosted form; returns the payment's event ids. */
const payOnce = async (base: string, key: string) => {
  const product = await api(base, key, "POST", "/products", { name: "Dates", price: 2_500, currency: "AED" })
  const session = await api(base, key, "POST", "/checkout_sessions", { product_cart: [{ product_id: product.product_id }] })
  const posted = await postCheckoutForm(base, session.session_id, { card_number: "4242424242424242" })
  expect(posted.status).toBe(200)
  return session.session_id as string
}

/** Waits for `n` deliveries to the receiver whose webhook-id was not seen before `from`. */
const waitForBodies = async (n: number, timeoutMs = 30_000) => {
  const deadline = Date.now() + timeoutMs
  while (receiver.bodies.length < n) {
    if (Date.now() > deadline) throw new Error(`only ${receiver.bodies.length} of ${n} deliveries arrived`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

/** Which endpoint (by secret) signed each received delivery; throws when none verifies. */
const signer = (secrets: Record<string, string>, delivery: { headers: Record<string, string>; body: string }) => {
  for (const [id, secret] of Object.entries(secrets)) {
    try {
      new Webhook(secret).verify(delivery.body, delivery.headers)
      return id
    } catch {
      // not this one
    }
  }
  throw new Error(`no endpoint's secret verifies delivery ${delivery.headers["webhook-id"]}`)
}

/**
 * `fils serve` expected to refuse to start: its exit code and everything it printed (the runtime reports a failed
 * start as a JSON log line on stdout). Killed after 60 s if it starts after all.
 */
const serveRefused = async (extra: Record<string, string | undefined>) => {
  const child = spawn(process.execPath, filsArgs("serve", "--port", String(await freePort())), {
    cwd: root,
    env: commandEnv(envWith(extra)),
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  child.stderr.on("data", (c) => (output += c))
  child.stdout.on("data", (c) => (output += c))
  const timer = setTimeout(() => child.kill("SIGKILL"), 60_000)
  const [code] = await once(child, "close")
  clearTimeout(timer)
  return { code: code as number | null, output }
}

const testKeyOf = (stdout: string) => {
  const key = /Test key\s+(sk_test_\S+)/.exec(stdout)?.[1]
  expect(key, stdout).toBeDefined()
  return key!
}

describe("webhook secrets at rest (FILS_SECRET_KEY)", () => {
  it("seals secrets, keeps plaintext rows readable, rotates to a new key, and refuses keys that cannot open them", async () => {
    const idA = keyIdFor(keyA)
    const idB = keyIdFor(keyB)

    // 1. No key: a secret is written as it is (the trade-off documented in docs/webhooks.md).
    const plain = await serve({})
    const key = testKeyOf(plain.stdout())
    const p = await api(plain.baseUrl, key, "POST", "/webhooks", { url: receiver.url, event_types: ["payment.succeeded"] })
    expect((await rawSecrets()).get(p.webhook_id)).toBe(p.secret)
    await plain.stop()

    // 2. FILS_SECRET_KEY (hex): new secrets are sealed; the plaintext row stays readable; the API shows both.
    const sealedServer = await serve({ FILS_SECRET_KEY: keyA.toString("hex") })
    const s = await api(sealedServer.baseUrl, key, "POST", "/webhooks", {
      url: receiver.url,
      event_types: ["payment.succeeded"]
    })
    expect(s.secret).toMatch(/^whsec_/)
    let raw = await rawSecrets()
    expect(raw.get(p.webhook_id)).toBe(p.secret)
    expect(raw.get(s.webhook_id)).toMatch(new RegExp(`^enc:v1:${idA}:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]+$`))
    expect(raw.get(s.webhook_id)).not.toContain(s.secret)
    expect(raw.get(s.webhook_id)).not.toContain(s.secret.slice(6))
    expect((await api(sealedServer.baseUrl, key, "GET", `/webhooks/${s.webhook_id}/secret`)).secret).toBe(s.secret)
    expect((await api(sealedServer.baseUrl, key, "GET", `/webhooks/${p.webhook_id}/secret`)).secret).toBe(p.secret)
    // An update rewrites the secret under the current key (same value).
    await api(sealedServer.baseUrl, key, "PATCH", `/webhooks/${p.webhook_id}`, { description: "resealed" })
    raw = await rawSecrets()
    expect(raw.get(p.webhook_id)).toMatch(new RegExp(`^enc:v1:${idA}:`))
    expect((await api(sealedServer.baseUrl, key, "GET", `/webhooks/${p.webhook_id}/secret`)).secret).toBe(p.secret)

    // A customer portal link is sealed too; the API reads it back.
    const customer = await api(sealedServer.baseUrl, key, "POST", "/customers", { email: "sealed@example.ae" })
    const portal = await api(sealedServer.baseUrl, key, "POST", "/customer_portal_sessions", { customer_id: customer.customer_id })
    const rawLink = async () =>
      (await db.query("SELECT url FROM customer_portal_sessions WHERE customer_portal_session_id = $1", [portal.customer_portal_session_id])).rows[0].url as string
    expect(await rawLink()).toMatch(new RegExp(`^enc:v1:${idA}:`))
    expect(await rawLink()).not.toContain(new URL(portal.url).pathname.split("/").pop())
    expect((await api(sealedServer.baseUrl, key, "GET", `/customer_portal_sessions/${portal.customer_portal_session_id}`)).url).toBe(portal.url)

    // Deliveries are signed with the plaintext secret: one per endpoint, each verifying with its own secret.
    await payOnce(sealedServer.baseUrl, key)
    await waitForBodies(2)
    const secrets: Record<string, string> = { [p.webhook_id]: p.secret, [s.webhook_id]: s.secret }
    expect(receiver.bodies.map((d) => signer(secrets, d)).sort()).toEqual([p.webhook_id, s.webhook_id].sort())
    await sealedServer.stop()

    // A plaintext row again (as written by a server without the key), for the mixed-mode rotation below.
    await db.query("UPDATE webhook_endpoints SET secret = $1 WHERE webhook_id = $2", [p.secret, p.webhook_id])

    // 3. Rotation: FILS_SECRET_KEY = B (base64), previous = A. Every row moves to B; a second run does nothing.
    const rotateEnv = envWith({ FILS_SECRET_KEY: keyB.toString("base64"), FILS_SECRET_KEY_PREVIOUS: keyA.toString("hex") })
    const rotated = await runFils(["secrets", "rotate"], rotateEnv)
    expect(rotated.code, rotated.stderr).toBe(0)
    expect(JSON.parse(rotated.stdout)).toEqual({ key_id: idB, endpoints: 2, portal_links: 1, responses: 0, two_factor_secrets: 0, resealed: 3 })
    expect(await rawLink()).toMatch(new RegExp(`^enc:v1:${idB}:`))
    raw = await rawSecrets()
    for (const [id, value] of raw) {
      expect(value, id).toMatch(new RegExp(`^enc:v1:${idB}:`))
      expect(value).not.toContain(secrets[id]!.slice(6))
    }
    const again = await runFils(["secrets", "rotate"], rotateEnv)
    expect(JSON.parse(again.stdout)).toEqual({ key_id: idB, endpoints: 2, portal_links: 1, responses: 0, two_factor_secrets: 0, resealed: 0 })
    expect(await rawSecrets()).toEqual(raw)

    // 4. A server (or rotation) with only the old key cannot open them: it refuses to start, saying why.
    const wrong = await serveRefused({ FILS_SECRET_KEY: keyA.toString("hex") })
    expect(wrong.code).toBe(1)
    expect(wrong.output).toContain(`3 sealed under key id ${idB}`)
    expect(wrong.output).toContain(`hold key ids ${idA}`)
    const refusals: ReadonlyArray<readonly [Record<string, string>, string]> = [
      [{}, "FILS_SECRET_KEY is not set"],
      [{ FILS_SECRET_KEY: keyA.toString("hex") }, idA]
    ]
    for (const [extra, held] of refusals) {
      const refused = await runFils(["secrets", "rotate"], envWith(extra))
      expect(refused.code).toBe(1)
      const error = JSON.parse(refused.stderr.trim().split("\n").at(-1)!)
      expect(error.code).toBe("SECRET_KEY_ERROR")
      expect(error.message).toContain(`3 sealed under key id ${idB}`)
      expect(error.message).toContain(held)
    }
    expect(await rawSecrets()).toEqual(raw)

    // 5. A malformed key is refused before anything is touched.
    for (const bad of ["not-a-key", randomBytes(16).toString("base64"), keyB.toString("hex").slice(2)]) {
      const refused = await runFils(["secrets", "rotate"], envWith({ FILS_SECRET_KEY: bad }))
      expect(refused.code).toBe(1)
      expect(refused.stderr).toContain("FILS_SECRET_KEY is not a valid key: it must be 32 random bytes")
      expect(refused.stderr).not.toContain(bad)
    }
    const badServe = await serveRefused({ FILS_SECRET_KEY: "not-a-key" })
    expect(badServe.code).toBe(1)
    expect(badServe.output).toContain("FILS_SECRET_KEY is not a valid key")

    // 6. With key B (url-safe base64 this time) the API returns the same secrets, and deliveries still verify.
    const next = await serve({ FILS_SECRET_KEY: keyB.toString("base64url") })
    for (const [id, secret] of Object.entries(secrets)) {
      expect((await api(next.baseUrl, key, "GET", `/webhooks/${id}/secret`)).secret).toBe(secret)
    }
    const before = receiver.bodies.length
    await payOnce(next.baseUrl, key)
    await waitForBodies(before + 2)
    expect(receiver.bodies.slice(before).map((d) => signer(secrets, d)).sort()).toEqual(Object.keys(secrets).sort())

    // A secret this server cannot open (sealed under a key it never had, behind its back) holds up only its own
    // endpoint's delivery: the other endpoint's still arrives.
    const kept = (await rawSecrets()).get(p.webhook_id)!
    const foreign = await Effect.runPromise(makeSecretBox(randomBytes(32)).seal(p.secret, p.webhook_id))
    await db.query("UPDATE webhook_endpoints SET secret = $1 WHERE webhook_id = $2", [foreign, p.webhook_id])
    const before2 = receiver.bodies.length
    await payOnce(next.baseUrl, key)
    await waitForBodies(before2 + 1)
    await new Promise((r) => setTimeout(r, 3_000))
    expect(receiver.bodies.slice(before2).map((d) => signer(secrets, d))).toEqual([s.webhook_id])
    // Its delivery is kept, pending, for when the key is back.
    const waiting = await db.query("SELECT status FROM webhook_deliveries WHERE webhook_id = $1 AND status = 'pending'", [
      p.webhook_id
    ])
    expect(waiting.rowCount).toBe(1)
    await db.query("UPDATE webhook_endpoints SET secret = $1 WHERE webhook_id = $2", [kept, p.webhook_id])
    await next.stop()

    // 7. Back to plaintext: the key moves to FILS_SECRET_KEY_PREVIOUS and rotate writes the secrets as they are.
    const off = await runFils(["secrets", "rotate"], envWith({ FILS_SECRET_KEY_PREVIOUS: keyB.toString("hex") }))
    expect(JSON.parse(off.stdout)).toEqual({ key_id: null, endpoints: 2, portal_links: 1, responses: 0, two_factor_secrets: 0, resealed: 3 })
    expect(Object.fromEntries(await rawSecrets())).toEqual(secrets)
  }, 240_000)

  it("keeps an idempotent POST /webhooks response sealed, rotates it, and leaves no secret unsealed in any table", async () => {
    // Whatever earlier tests left in plaintext is sealed first: from here on, every secret must rest sealed.
    const sealAll = await runFils(["secrets", "rotate"], envWith({ FILS_SECRET_KEY: keyA.toString("hex"), FILS_SECRET_KEY_PREVIOUS: keyB.toString("hex") }))
    expect(sealAll.code, sealAll.stderr).toBe(0)
    const served = await serve({ FILS_SECRET_KEY: keyA.toString("hex") })
    const accounts = await runFils(["accounts", "create", "--name", "Sealed Souq"], envWith({ FILS_SECRET_KEY: keyA.toString("hex") }))
    expect(accounts.code, accounts.stderr).toBe(0)
    const key: string = JSON.parse(accounts.stdout).keys.test.secret
    const post = (base: string) =>
      fetch(`${base}/api/v1/webhooks`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "idempotency-key": "hook-once" },
        body: JSON.stringify({ url: receiver.url, event_types: ["refund.succeeded"] })
      })
    const first = await post(served.baseUrl)
    const created = await first.json()
    expect(first.status, JSON.stringify(created)).toBe(200)
    expect(created.secret).toMatch(/^whsec_/)
    const replay = await post(served.baseUrl)
    expect(replay.headers.get("idempotent-replayed")).toBe("true")
    expect((await replay.json()).secret).toBe(created.secret)

    /** Every text of every row of every table, for a secret or key anywhere at rest. */
    const everything = async () => {
      const tables = await db.query<{ schema: string; name: string }>(
        `SELECT table_schema AS schema, table_name AS name FROM information_schema.tables
         WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`
      )
      expect(tables.rows.map((t) => t.name)).toEqual(expect.arrayContaining(["idempotency_keys", "webhook_endpoints", "api_keys"]))
      let text = ""
      for (const t of tables.rows) {
        const rows = await db.query(`SELECT row_to_json(t)::text AS j FROM "${t.schema}"."${t.name}" AS t`)
        text += rows.rows.map((r) => r.j).join("\n")
      }
      return text
    }
    const atRest = await everything()
    expect(atRest).toContain("hook-once") // the record is there...
    for (const secret of [created.secret, created.secret.slice(6), key, key.slice(8)]) expect(atRest).not.toContain(secret)
    expect(atRest).not.toMatch(/whsec_|sk_(test|live)_[A-Za-z0-9_-]{8}/) // ...but nothing readable as a secret
    await served.stop()

    // Rotation reseals the stored response too, and a server with only the new key replays it.
    const rotated = await runFils(["secrets", "rotate"], envWith({ FILS_SECRET_KEY: keyB.toString("hex"), FILS_SECRET_KEY_PREVIOUS: keyA.toString("hex") }))
    expect(rotated.code, rotated.stderr).toBe(0)
    const report = JSON.parse(rotated.stdout)
    expect(report.responses).toBeGreaterThanOrEqual(1)
    expect(report.resealed).toBe(report.endpoints + report.portal_links + report.responses + report.two_factor_secrets)
    const { rows } = await db.query<{ response_body: string }>("SELECT response_body FROM idempotency_keys WHERE key = 'hook-once'")
    expect(rows[0]!.response_body).toMatch(new RegExp(`^enc:v1:${keyIdFor(keyB)}:`))
    const next = await serve({ FILS_SECRET_KEY: keyB.toString("hex") })
    const again = await post(next.baseUrl)
    expect(again.headers.get("idempotent-replayed")).toBe("true")
    expect((await again.json()).secret).toBe(created.secret)
    await next.stop()
  }, 120_000)
})
