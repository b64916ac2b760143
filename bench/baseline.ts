/**
 * The bare baseline of `npm run bench`: plain `node:http` + `pg`, no framework, running the same SQL as Fils for the
 * same requests (auth by key-hash lookup on every request, the payment read, the list page, the checkout-session
 * insert with its idempotency record, the product insert). It validates nothing beyond what the SQL needs and has
 * no rate limit, no events, no tracing: it is the floor Fils is measured against, not a second implementation.
 *
 * Env: DATABASE_URL (required), PORT (default 4300), BASELINE_POOL (default 10, as Fils' pool).
 */
import { createHash, randomBytes } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import pg from "pg"

const url = process.env["DATABASE_URL"]
if (url === undefined || url === "") throw new Error("DATABASE_URL is required")
const port = Number(process.env["PORT"] ?? 4300)
const pool = new pg.Pool({ connectionString: url, max: Number(process.env["BASELINE_POOL"] ?? 10) })

// int8 as a number, as Fils reads amounts.
pg.types.setTypeParser(20, (text: string) => Number(text))

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex")

const hex = (bytes: number) => randomBytes(bytes).toString("hex")
/** A UUIDv7-shaped id (time first), as Fils makes them. */
const newId = (prefix: string) => `${prefix}_${Date.now().toString(16).padStart(12, "0")}7${hex(10).slice(0, 19)}`

interface Principal {
  readonly accountId: string
  readonly livemode: boolean
  readonly keyId: string
}

const authenticate = async (req: IncomingMessage): Promise<Principal | undefined> => {
  const header = req.headers.authorization ?? ""
  if (!header.startsWith("Bearer ")) return undefined
  const { rows } = await pool.query({
    name: "key_by_hash",
    text: "SELECT key_id, account_id, livemode, revoked_at FROM api_keys WHERE hash = $1",
    values: [sha256(header.slice(7))]
  })
  const key = rows[0]
  if (key === undefined || key.revoked_at !== null) return undefined
  return { accountId: key.account_id, livemode: key.livemode, keyId: key.key_id }
}

const send = (res: ServerResponse, status: number, body: unknown) => {
  const text = JSON.stringify(body)
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) })
  res.end(text)
}

const readBody = (req: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    req.on("error", reject)
  })

const iso = (d: Date | null) => (d === null ? null : d.toISOString())

const paymentResource = (row: any) => ({
  object: "payment",
  payment_id: row.payment_id,
  livemode: row.livemode,
  status: row.status,
  total_amount: row.total_amount,
  refunded_amount: row.refunded_amount,
  fee_amount: row.fee_amount,
  net_amount: row.net_amount,
  currency: row.currency,
  description: row.description,
  customer: row.customer_id === null
    ? null
    : { customer_id: row.customer_id, name: row.customer_name, email: row.customer_email, phone_number: row.customer_phone_number },
  checkout_session_id: row.checkout_session_id,
  subscription_id: row.subscription_id,
  billing_reason: row.billing_reason,
  metadata: row.metadata,
  card: row.card_brand === null
    ? null
    : { brand: row.card_brand, last4: row.card_last4, exp_month: row.card_exp_month, exp_year: row.card_exp_year },
  failure_code: row.failure_code,
  created_at: iso(row.created_at),
  paid_at: iso(row.paid_at)
})

const getPayment = async (res: ServerResponse, who: Principal, id: string) => {
  const { rows } = await pool.query({
    name: "payment_get",
    text: "SELECT * FROM payments WHERE payment_id = $1 AND account_id = $2 AND livemode = $3",
    values: [id, who.accountId, who.livemode]
  })
  if (rows[0] === undefined) return send(res, 404, { code: "NOT_FOUND", message: `No such payment: '${id}'` })
  send(res, 200, paymentResource(rows[0]))
}

const listPayments = async (res: ServerResponse, who: Principal, limit: number) => {
  const { rows } = await pool.query({
    name: "payment_list",
    text: `SELECT * FROM payments WHERE account_id = $1 AND livemode = $2
      ORDER BY created_at DESC, payment_id DESC LIMIT $3`,
    values: [who.accountId, who.livemode, limit + 1]
  })
  const items = rows.slice(0, limit).map(paymentResource)
  const last = items[items.length - 1]
  send(res, 200, {
    items,
    has_more: rows.length > limit,
    next_cursor: rows.length > limit && last !== undefined ? Buffer.from(`${last.created_at}|${last.payment_id}`).toString("base64url") : null
  })
}

const createSession = async (req: IncomingMessage, res: ServerResponse, who: Principal, text: string) => {
  const input = JSON.parse(text) as { product_cart: Array<{ product_id: string; quantity?: number }>; return_url?: string }
  const key = req.headers["idempotency-key"]
  const scope = `${who.accountId}:${who.livemode ? "live" : "test"}`
  const fingerprint = sha256(`POST ${req.url}\n${text}`)
  const now = new Date()
  if (typeof key === "string") {
    const claimed = await pool.query({
      name: "idem_claim",
      text: `INSERT INTO idempotency_keys (scope, key, fingerprint, response_status, response_body, locked_until, expires_at)
        VALUES ($1, $2, $3, NULL, NULL, $4, $5) ON CONFLICT (scope, key) DO NOTHING RETURNING true AS claimed`,
      values: [scope, key, fingerprint, new Date(now.getTime() + 60_000), new Date(now.getTime() + 86_400_000)]
    })
    if (claimed.rows.length === 0) return send(res, 409, { code: "IDEMPOTENCY_CONFLICT", message: "in use" })
  }
  const ids = input.product_cart.map((l) => l.product_id)
  const { rows: products } = await pool.query({
    name: "products_many",
    text: "SELECT * FROM products WHERE product_id = ANY($1) AND account_id = $2 AND livemode = $3",
    values: [ids, who.accountId, who.livemode]
  })
  const byId = new Map(products.map((p: any) => [p.product_id, p]))
  const lines = input.product_cart.map((l) => {
    const p = byId.get(l.product_id)
    const quantity = l.quantity ?? 1
    return { product_id: p.product_id, name: p.name, quantity, unit_amount: p.price, amount: p.price * quantity }
  })
  const total = lines.reduce((sum, l) => sum + l.amount, 0)
  const id = newId("cks")
  const session = {
    object: "checkout_session",
    session_id: id,
    livemode: who.livemode,
    kind: "payment",
    status: "open",
    checkout_url: `http://127.0.0.1:${port}/checkout/${id}`,
    total_amount: total,
    currency: "AED",
    product_cart: lines,
    customer: null,
    return_url: input.return_url ?? null,
    metadata: {},
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + 86_400_000).toISOString()
  }
  await pool.query({
    name: "session_insert",
    text: `INSERT INTO checkout_sessions (session_id, account_id, livemode, kind, status, checkout_url, total_amount,
        currency, product_cart, return_url, metadata, form_token, created_at, expires_at)
      VALUES ($1, $2, $3, 'payment', 'open', $4, $5, 'AED', $6, $7, '{}', $8, $9, $10)`,
    values: [id, who.accountId, who.livemode, session.checkout_url, total, JSON.stringify(lines), session.return_url,
      randomBytes(24).toString("base64url"), now, new Date(now.getTime() + 86_400_000)]
  })
  const body = JSON.stringify(session)
  if (typeof key === "string") {
    await pool.query({
      name: "idem_complete",
      text: `UPDATE idempotency_keys SET response_status = 200, response_body = $4
        WHERE scope = $1 AND key = $2 AND fingerprint = $3`,
      values: [scope, key, fingerprint, body]
    })
  }
  res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
  res.end(body)
}

const createProduct = async (res: ServerResponse, who: Principal, text: string) => {
  const input = JSON.parse(text) as { name: string; price: number; currency: string; description?: string }
  const { rows } = await pool.query({
    name: "product_insert",
    text: `INSERT INTO products (product_id, account_id, livemode, name, description, price, currency, billing, status,
        metadata, created_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7, 'one_time', 'active', '{}', now()) RETURNING *`,
    values: [newId("pdt"), who.accountId, who.livemode, input.name, input.description ?? "", input.price, input.currency]
  })
  const p = rows[0]
  send(res, 200, {
    object: "product",
    product_id: p.product_id,
    livemode: p.livemode,
    name: p.name,
    description: p.description,
    price: p.price,
    currency: p.currency,
    billing: p.billing,
    status: p.status,
    metadata: p.metadata,
    created_at: iso(p.created_at)
  })
}

const handle = async (req: IncomingMessage, res: ServerResponse) => {
  const path = req.url ?? "/"
  if (path === "/ready") return send(res, 200, { status: "ready" })
  const text = req.method === "POST" ? await readBody(req) : ""
  const who = await authenticate(req)
  if (who === undefined) return send(res, 401, { code: "UNAUTHORIZED", message: "Invalid API key" })
  const [route, query = ""] = path.split("?") as [string, string?]
  if (req.method === "GET" && route.startsWith("/api/v1/payments/")) {
    return getPayment(res, who, route.slice("/api/v1/payments/".length))
  }
  if (req.method === "GET" && route === "/api/v1/payments") {
    const limit = Math.min(100, Math.max(1, Number(new URLSearchParams(query).get("limit") ?? 10)))
    return listPayments(res, who, limit)
  }
  if (req.method === "POST" && route === "/api/v1/checkout_sessions") return createSession(req, res, who, text)
  if (req.method === "POST" && route === "/api/v1/products") return createProduct(res, who, text)
  send(res, 404, { code: "NOT_FOUND", message: "No such route" })
}

createServer((req, res) => {
  handle(req, res).catch((error: unknown) => {
    if (!res.headersSent) send(res, 500, { code: "INTERNAL", message: String(error) })
  })
}).listen(port, "127.0.0.1", () => {
  process.stdout.write(`baseline listening on ${port}\n`)
})

process.on("SIGTERM", () => {
  void pool.end().finally(() => process.exit(0))
})
