/**
 * A merchant's webhook receiver: a plain node:http server, no framework, no Effect. It reads the raw body, verifies
 * the Standard Webhooks signature with the endpoint's secret before trusting anything, acknowledges with 2xx, and
 * handles each event once even though Fils delivers at least once (a retry carries the same `webhook-id`).
 *
 *   FILS_WEBHOOK_SECRET=whsec_… PORT=4343 npx tsx examples/receiver/server.ts
 *
 * Then create an endpoint for it with a test key (`POST /api/v1/webhooks` with `{ "url": "http://127.0.0.1:4343/" }`)
 * and use the `secret` from that response (or `GET /api/v1/webhooks/{id}/secret`).
 *
 * Answers: 401 for a missing or bad signature or a stale timestamp, 413 for a body over 1 MiB, 405 for anything but
 * POST, 200 otherwise (also for a duplicate, which is acknowledged and not handled again, and for a test event, sent by
 * "Send test event", which is acknowledged and changes nothing). Prints one JSON line per event handled on stdout;
 * diagnostics go to stderr.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import { verify } from "../../adapters/crypto/StandardWebhooks.js"

const secret = process.env["FILS_WEBHOOK_SECRET"] ?? ""
if (!secret.startsWith("whsec_")) {
  console.error("Set FILS_WEBHOOK_SECRET to the endpoint's signing secret (whsec_…).")
  process.exit(1)
}
const port = Number(process.env["PORT"] ?? 4343)
const maxBodyBytes = 1024 * 1024

/**
 * The webhook-ids already handled. Retries of one event span about a day, so remember many; a real receiver keeps
 * this in its database, next to the effect of handling the event, in the same transaction.
 */
const handled = new Set<string>()
const rememberAtMost = 100_000
const remember = (id: string) => {
  handled.add(id)
  if (handled.size > rememberAtMost) handled.delete(handled.values().next().value!)
}

interface FilsEvent {
  readonly id: string
  readonly type: string
  readonly livemode: boolean
  readonly created_at: string
  readonly data: Record<string, unknown>
  /** Present (true) only on a test event: an example, not something that happened. */
  readonly test?: boolean
}

const reply = (res: ServerResponse, status: number, body: Record<string, unknown>) => {
  res.writeHead(status, { "content-type": "application/json" })
  res.end(JSON.stringify(body))
}

/** What this shop does with an event: here, one JSON line. Replace with your own fulfilment. */
const handle = (event: FilsEvent) => {
  const data = event.data
  console.log(JSON.stringify({
    webhook_id: event.id,
    type: event.type,
    livemode: event.livemode,
    created_at: event.created_at,
    object: data["object"] ?? null,
    // The object's own id (`invoice_id` of an invoice, `refund_id` of a refund, …).
    object_id: data[`${String(data["object"])}_id`] ?? data["payment_id"] ?? data["subscription_id"] ?? null,
    status: data["status"] ?? null
  }))
}

/** The raw body, or undefined when it is over the limit (the rest is read and dropped, so the client gets the 413). */
const readBody = (req: IncomingMessage): Promise<string | undefined> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    let size = 0
    req.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size <= maxBodyBytes) chunks.push(chunk)
    })
    req.on("end", () => resolve(size <= maxBodyBytes ? Buffer.concat(chunks).toString("utf8") : undefined))
    req.on("error", reject)
  })

const server = createServer(async (req, res) => {
  if (req.method !== "POST") return reply(res, 405, { error: "POST only" })
  let body: string | undefined
  try {
    body = await readBody(req)
  } catch {
    return
  }
  if (body === undefined) return reply(res, 413, { error: "body too large" })

  // The raw body, exactly as received: re-serializing parsed JSON would break the signature.
  let event: FilsEvent
  try {
    event = verify({ secret, headers: req.headers, body }) as FilsEvent
  } catch (error) {
    console.error(`refused a delivery: ${(error as Error).message}`)
    return reply(res, 401, { error: "invalid signature" })
  }

  const id = String(req.headers["webhook-id"])
  if (event.test === true) {
    console.error(`acknowledged test event ${id} (${event.type}); nothing done`)
    return reply(res, 200, { received: true, test: true })
  }
  if (handled.has(id)) return reply(res, 200, { received: true, duplicate: true })
  handle(event)
  remember(id)
  reply(res, 200, { received: true })
})

server.listen(port, () => console.error(`Fils webhook receiver listening on http://localhost:${port}/`))

const stop = () => server.close(() => process.exit(0))
process.on("SIGTERM", stop)
process.on("SIGINT", stop)
