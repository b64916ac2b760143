/**
 * Card numbers never reach the database or the logs (docs/reliability.md). `fils serve` runs as a process on a fresh
 * database; every test card is posted through the hosted checkout form (successes, declines, processing ones that
 * settle either way, a processing error), plus numbers typed with spaces, a Luhn-invalid one and a 13- and a
 * 19-digit one; subscriptions are renewed and retried with `fils billing run --at`, payments refunded with
 * `fils refunds create`, and every event delivered to a webhook receiver.
 *
 * Then every column of every table (read through information_schema, each value as text, bytea decoded), the
 * server's stdout and stderr, the CLI's output and the webhook deliveries are searched for each full card number,
 * and for any run of 13 to 19 digits (spaces or dashes allowed between them) that passes the Luhn check. None may
 * appear. The detector is checked on planted numbers first, so a blind scanner cannot pass.
 */
import { Redacted } from "effect"
import { once } from "node:events"
import { createServer, type Server } from "node:http"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { cards as testCards } from "../../adapters/processor/SimulatedProcessor.js"
import { runFils, type Served, serveFils } from "../support/cli.js"
import { fileDatabaseUrl } from "../support/postgresStore.js"

/** Every test card of the simulated processor (SimulatedProcessor.ts) and a few other forms a customer may type. */
const cards = {
  ...testCards,
  otherValid: "4111111111111111",
  thirteenDigits: "4222222222222",
  nineteenDigits: "6011000000000000001"
} as const
const typedForms = ["4242 4242 4242 4242", "5555-5555-5555-4444", "4242424242424241" /* fails Luhn */]

const digitsOf = (s: string) => s.replace(/\D/g, "")

const luhn = (digits: string): boolean => {
  let sum = 0
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i])
    if (i % 2 === 1) {
      d *= 2
      if (d > 9) d -= 9
    }
    sum += d
  }
  return sum % 10 === 0
}

/**
 * Runs of 13–19 digits (single spaces or dashes allowed between digits) that pass the Luhn check. A run inside a
 * word (random hex ids such as `evt_…` hold long digit runs, a tenth of which pass Luhn) is not a typed card
 * number; the exact search for every card used covers those positions too.
 */
const cardLike = (text: string): Array<string> =>
  (text.match(/(?<![A-Za-z0-9_])\d(?:[ -]?\d)*(?![A-Za-z0-9_])/g) ?? []).filter((run) => {
    const d = digitsOf(run)
    return d.length >= 13 && d.length <= 19 && luhn(d)
  })

/** Where a full card number (its digits, or as typed) or a card-like run appears in `text`. */
const findings = (where: string, text: string): Array<string> => {
  const found: Array<string> = []
  const plain = text.replace(/[ -]/g, "")
  for (const card of [...Object.values(cards), ...typedForms]) {
    if (text.includes(card) || plain.includes(digitsOf(card))) found.push(`${where}: ${card}`)
  }
  for (const run of cardLike(text)) found.push(`${where}: card-like ${run}`)
  return found
}

let url = ""
let served: Served | undefined
let receiver: { url: string; server: Server; bodies: Array<string>; ids: Set<string> }
const cliOutput: Array<string> = []

beforeAll(async () => {
  url = Redacted.value(await fileDatabaseUrl())
  const bodies: Array<string> = []
  const ids = new Set<string>()
  const server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      bodies.push(JSON.stringify(req.headers) + Buffer.concat(chunks).toString("utf8"))
      if (typeof req.headers["webhook-id"] === "string") ids.add(req.headers["webhook-id"])
      res.writeHead(200).end("ok")
    })
  })
  server.listen(0, "127.0.0.1")
  await once(server, "listening")
  receiver = { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hooks`, server, bodies, ids }
}, 60_000)

afterAll(async () => {
  await served?.stop("SIGKILL").catch(() => undefined)
  receiver?.server.closeAllConnections()
  receiver?.server.close()
}, 30_000)

const env = () => ({
  DATABASE_URL: url,
  FILS_DATA_DIR: undefined,
  FILS_SECRET_KEY: undefined,
  FILS_SECRET_KEY_PREVIOUS: undefined,
  FILS_KEY_CACHE_TTL: "0 millis",
  FILS_RATE_LIMIT_PER_MIN: "100000",
  // Every log line the server can write, down to trace, is part of the scan.
  FILS_LOG_LEVEL: "all"
})

const cli = async (args: ReadonlyArray<string>): Promise<any> => {
  const result = await runFils(args, env())
  cliOutput.push(result.stdout, result.stderr)
  expect(result.code, `fils ${args.join(" ")}: ${result.stderr}`).toBe(0)
  return JSON.parse(result.stdout)
}

const api = async (key: string, method: string, path: string, body?: unknown): Promise<any> => {
  const res = await fetch(`${served!.baseUrl}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(20_000)
  })
  const json = await res.json()
  expect(res.status, `${method} ${path}: ${JSON.stringify(json)}`).toBe(200)
  return json
}

/** Posts the hosted form of a new session for `productId` with `card`; the page's status and the session id. */
const pay = async (key: string, productId: string, card: string, email: string) => {
  const session = await api(key, "POST", "/checkout_sessions", { product_cart: [{ product_id: productId }] })
  const page = `${served!.baseUrl}/checkout/${session.session_id}`
  const html = await (await fetch(page, { signal: AbortSignal.timeout(20_000) })).text()
  const token = /name="form_token" value="([^"]*)"/.exec(html)?.[1]
  expect(token, html.slice(0, 300)).toBeDefined()
  const posted = await fetch(page, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      name: "Layla Haddad",
      email,
      phone_number: "+971501234567",
      card_number: card,
      exp_month: "12",
      exp_year: "2040",
      cvc: "123",
      form_token: token!
    }).toString(),
    redirect: "manual",
    signal: AbortSignal.timeout(20_000)
  })
  await posted.text()
  return { status: posted.status, sessionId: session.session_id as string }
}

const waitFor = async (what: string, check: () => Promise<boolean>, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 250))
  }
}

describe("card numbers never reach the database or the logs", () => {
  it("the detector finds planted numbers (so the scan below can fail)", () => {
    expect(findings("x", `{"note":"card 4242424242424242"}`)).not.toEqual([])
    expect(cardLike("paid with 4242 4242 4242 4242 today")).toEqual(["4242 4242 4242 4242"])
    expect(cardLike("6011-0000-0000-0000-001")).toHaveLength(1)
    expect(cardLike("4222222222222")).toHaveLength(1)
    expect(cardLike("last4 4242, amount 74800, 2026-11-22 10:00:00, +971501234567")).toEqual([])
    expect(cardLike("4242424242424241")).toEqual([]) // fails Luhn
    expect(cardLike("evt_0a201155804733193f")).toEqual([]) // part of an id
    expect(findings("x", "evt_4242424242424242")).not.toEqual([]) // but a card used is found anywhere
  })

  it("checkouts with every test card, renewals, retries, refunds and deliveries leave no card number behind", async () => {
    served = await serveFils(env(), 60_000)
    const key = /Test key\s+(sk_test_\S+)/.exec(served.stdout())?.[1]
    expect(key, served.stdout()).toBeDefined()
    const testKey = key!
    await api(testKey, "POST", "/webhooks", {
      url: receiver.url,
      event_types: [
        "payment.succeeded",
        "payment.failed",
        "refund.succeeded",
        "subscription.active",
        "subscription.renewed",
        "subscription.on_hold",
        "subscription.cancelled"
      ]
    })

    // One-time checkouts with every card and typed form.
    const once = await api(testKey, "POST", "/products", { name: "Saffron", price: 7_400, currency: "AED" })
    const statuses: Record<string, number> = {}
    for (const [name, card] of Object.entries(cards)) {
      statuses[name] = (await pay(testKey, once.product_id, card, `${name}@example.ae`)).status
    }
    for (const card of typedForms) statuses[card] = (await pay(testKey, once.product_id, card, "typed@example.ae")).status
    expect(statuses.visa).toBe(200)
    expect(statuses.mastercard).toBe(200)
    expect(statuses.declined).toBe(402)
    expect(statuses.insufficientFunds).toBe(402)
    expect(statuses["4242424242424241"]).toBe(400)

    // Subscriptions: one renews, one is declined at renewal (then retried and cancelled).
    const monthly = await api(testKey, "POST", "/products", {
      name: "Coffee club",
      price: 9_900,
      currency: "AED",
      billing: "recurring",
      billing_interval: "month"
    })
    for (const card of [cards.visa, cards.declineLater, cards.mastercard]) {
      expect((await pay(testKey, monthly.product_id, card, `sub-${card.slice(-4)}@example.ae`)).status).toBe(200)
    }
    const subs = (await api(testKey, "GET", "/subscriptions?limit=100")).items as Array<any>
    expect(subs).toHaveLength(3)
    const due = Math.max(...subs.map((s) => Date.parse(s.next_billing_date)))
    await cli(["billing", "run"])
    for (const days of [0, 1, 3, 5, 6]) {
      await cli(["billing", "run", "--at", new Date(due + days * 86_400_000 + 60_000).toISOString()])
    }

    // Refunds: in full and in part.
    const payments = (await api(testKey, "GET", "/payments?limit=100")).items as Array<any>
    const succeeded = payments.filter((p) => p.status === "succeeded")
    expect(succeeded.length).toBeGreaterThanOrEqual(4)
    await cli(["refunds", "create", succeeded[0].payment_id])
    await cli(["refunds", "create", succeeded[1].payment_id, "--amount", "100"])

    // Every event delivered (those of `billing run --at` are dated, and due, in the future: not those).
    const dueEvents = async () =>
      ((await api(testKey, "GET", "/events?limit=100")).items as Array<any>)
        .filter((e) => Date.parse(e.created_at) <= Date.now())
        .map((e) => e.event_id as string)
    await waitFor("every due event delivered", async () => {
      const ids = await dueEvents()
      return ids.length > 0 && ids.every((id) => receiver.ids.has(id))
    }, 90_000)
    expect(receiver.bodies.length).toBeGreaterThanOrEqual(10)
    await served.stop("SIGTERM")

    // The scan.
    const db = new pg.Client({ connectionString: url })
    await db.connect()
    const haystacks: Array<{ where: string; text: string }> = []
    let columns = 0
    try {
      // Fils' tables and the simulated processor's own (its ledger, schema fils_sim).
      const { rows: columnRows } = await db.query<
        { table_schema: string; table_name: string; column_name: string; data_type: string }
      >(`
        SELECT c.table_schema, c.table_name, c.column_name, c.data_type FROM information_schema.columns c
        JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
        WHERE c.table_schema IN ('public', 'fils_sim') AND t.table_type = 'BASE TABLE'
        ORDER BY c.table_schema, c.table_name, c.ordinal_position`)
      expect(columnRows.some((c) => c.table_schema === "fils_sim" && c.table_name === "charges")).toBe(true)
      expect(columnRows.length).toBeGreaterThan(50)
      for (const { column_name, data_type, table_name, table_schema } of columnRows) {
        columns++
        const column = `"${column_name.replace(/"/g, "\"\"")}"`
        const value = data_type === "bytea" ? `encode(${column}, 'escape')` : `${column}::text`
        const { rows } = await db.query<{ v: string | null }>(
          `SELECT ${value} AS v FROM "${table_schema}"."${table_name.replace(/"/g, "\"\"")}" WHERE ${column} IS NOT NULL`
        )
        const where = table_schema === "public" ? `${table_name}.${column_name}` : `${table_schema}.${table_name}.${column_name}`
        haystacks.push({ where, text: rows.map((r) => r.v).join("\n") })
      }
    } finally {
      await db.end()
    }
    const text = (where: string) => haystacks.find((h) => h.where === where)?.text ?? ""
    // The scan sees the card data Fils does keep: brand and last four digits, never more.
    expect(text("payments.card_last4")).toContain("4242")
    expect(text("payments.card_last4")).toContain("4444")
    haystacks.push(
      { where: "server stdout", text: served.stdout() },
      { where: "server stderr", text: served.stderr() },
      { where: "cli output", text: cliOutput.join("\n") },
      { where: "webhook deliveries", text: receiver.bodies.join("\n") }
    )
    expect(served.stdout()).toContain("Fils is running")
    const found = haystacks.flatMap((h) => findings(h.where, h.text))
    console.log(`card scan: ${columns} columns of ${new Set(haystacks.map((h) => h.where.split(".")[0])).size - 4} ` +
      `tables, ${haystacks.reduce((n, h) => n + h.text.length, 0)} characters searched, ` +
      `server log ${served.stdout().length + served.stderr().length} characters, ` +
      `${receiver.bodies.length} deliveries, checkout statuses ${JSON.stringify(statuses)}`)
    expect(found).toEqual([])
  }, 300_000)
})
