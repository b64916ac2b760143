/**
 * Load and fault helpers for the reliability e2e tests (crash, outage, slow receivers, many processes): webhook
 * receivers on 127.0.0.1 that record what they got, API calls that never hang, paying a session through the hosted
 * form, a database of the suite's PostgreSQL for the file, and `fils check` run in-process on it.
 */
import { SqlClient } from "@effect/sql"
import { Effect, Exit, Layer, ManagedRuntime, Redacted, Scope } from "effect"
import { once } from "node:events"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import { setTimeout as delay } from "node:timers/promises"
import { check, type Violation } from "../../adapters/sql/Check.js"
import { MigratedPg, PgLive } from "../../adapters/sql/Postgres.js"
import { freshDatabaseUrl } from "./database.js"

import { runFils } from "./cli.js"

export { delay }

export { cards } from "../../adapters/processor/SimulatedProcessor.js"

/**
 * `fils reconcile` on the database of `env`: its report, which the test expects clean (exit 0, no mismatch). Run
 * once every payment has left `processing` or is left to the servers (those in flight are not mismatches).
 */
export const reconcile = async (env: Record<string, string | undefined>) => {
  const result = await runFils(["reconcile"], env)
  return { code: result.code, report: JSON.parse(result.stdout || "null"), stderr: result.stderr }
}

// Receivers ---------------------------------------------------------------------------------------------------------

export interface Received {
  /** Date.now() when the body was complete. */
  readonly at: number
  /** The `webhook-id` header: the event id. */
  readonly id: string
  readonly body: string
  readonly status: number
}

export interface Receiver {
  readonly url: string
  readonly received: Array<Received>
  /** How to answer: a status, or `"hang"` (never answer), or a delay then a status. */
  respond: (req: IncomingMessage) => number | "hang" | { readonly afterMillis: number; readonly status: number }
  readonly close: () => Promise<void>
}

/** An HTTP receiver on 127.0.0.1 that records every request and answers per `respond` (default 200). */
export const startReceiver = async (respond: Receiver["respond"] = () => 200): Promise<Receiver> => {
  const received: Array<Received> = []
  const timers = new Set<NodeJS.Timeout>()
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      const answer = receiver.respond(req)
      const id = typeof req.headers["webhook-id"] === "string" ? req.headers["webhook-id"] : ""
      const body = Buffer.concat(chunks).toString("utf8")
      if (answer === "hang") {
        received.push({ at: Date.now(), id, body, status: 0 })
        return
      }
      const status = typeof answer === "number" ? answer : answer.status
      received.push({ at: Date.now(), id, body, status })
      const send = () => {
        if (!res.destroyed) res.writeHead(status, { "content-type": "text/plain" }).end("ok")
      }
      if (typeof answer === "number") return send()
      const timer = setTimeout(() => {
        timers.delete(timer)
        send()
      }, answer.afterMillis)
      timers.add(timer)
    })
  })
  server.listen(0, "127.0.0.1")
  await once(server, "listening")
  const address = server.address()
  if (typeof address !== "object" || address === null) throw new Error("the receiver has no TCP address")
  const receiver: Receiver = {
    url: `http://127.0.0.1:${address.port}/hooks`,
    received,
    respond,
    close: async () => {
      for (const t of timers) clearTimeout(t)
      server.closeAllConnections()
      if (server.listening) {
        server.close()
        await Promise.race([once(server, "close"), delay(5_000)])
      }
    }
  }
  return receiver
}

/** Event ids a receiver answered 2xx, with how many times each. */
export const acceptedIds = (r: Receiver): Map<string, number> => {
  const counts = new Map<string, number>()
  for (const x of r.received) if (x.status >= 200 && x.status < 300) counts.set(x.id, (counts.get(x.id) ?? 0) + 1)
  return counts
}

// HTTP --------------------------------------------------------------------------------------------------------------

export interface ApiResult {
  readonly status: number
  readonly body: any
  readonly contentType: string
  readonly millis: number
}

/** One API call with a deadline (never hangs): a network failure is status 0. */
export const api = async (
  baseUrl: string,
  key: string,
  method: string,
  path: string,
  body?: unknown,
  options: { readonly timeoutMs?: number; readonly headers?: Record<string, string> } = {}
): Promise<ApiResult> => {
  const started = Date.now()
  try {
    const res = await fetch(`${baseUrl}/api/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...options.headers
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(options.timeoutMs ?? 15_000)
    })
    const text = await res.text()
    let parsed: unknown = text
    try {
      parsed = text === "" ? undefined : JSON.parse(text)
    } catch {
      // not JSON: the caller sees the text
    }
    return { status: res.status, body: parsed, contentType: res.headers.get("content-type") ?? "", millis: Date.now() - started }
  } catch {
    return { status: 0, body: undefined, contentType: "", millis: Date.now() - started }
  }
}

/** Like `api`, but the call must answer 200. */
export const ok = async (baseUrl: string, key: string, method: string, path: string, body?: unknown): Promise<any> => {
  const res = await api(baseUrl, key, method, path, body)
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body
}

/**
 * Opens a new session for `productId` and pays it through the hosted form. Returns the form post's status (200 paid,
 * 402 declined), or 0 when a request failed (the server died, say); never throws.
 */
export const payThroughForm = async (baseUrl: string, key: string, productId: string, card: string, timeoutMs = 20_000) => {
  const session = await api(baseUrl, key, "POST", "/checkout_sessions", { product_cart: [{ product_id: productId }] }, { timeoutMs })
  if (session.status !== 200) return { status: 0, sessionId: undefined }
  const sessionId = session.body.session_id as string
  try {
    const posted = await postCheckoutForm(baseUrl, sessionId, { card_number: card }, timeoutMs)
    return { status: posted.status, sessionId }
  } catch {
    return { status: 0, sessionId }
  }
}

/**
 * Posts the hosted page of `sessionId` as a browser without JavaScript would: reads the page's `form_token`, then
 * submits the form (a good name, e-mail, phone and expiry unless `fields` says otherwise). Status 0 when the page
 * has no form.
 */
export const postCheckoutForm = async (
  baseUrl: string,
  sessionId: string,
  fields: Readonly<Record<string, string>> & { readonly card_number: string },
  timeoutMs = 20_000
): Promise<{ readonly status: number; readonly body: string }> => {
  const pageUrl = `${baseUrl}/checkout/${sessionId}`
  const html = await (await fetch(pageUrl, { signal: AbortSignal.timeout(timeoutMs) })).text()
  const token = /name="form_token" value="([^"]*)"/.exec(html)?.[1]
  if (token === undefined) return { status: 0, body: html }
  const posted = await fetch(pageUrl, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      name: "Layla Haddad",
      email: "layla@example.ae",
      phone_number: "+971501234567",
      exp_month: "12",
      exp_year: "2040",
      cvc: "123",
      ...fields,
      form_token: token
    }).toString(),
    redirect: "manual",
    signal: AbortSignal.timeout(timeoutMs)
  })
  return { status: posted.status, body: await posted.text() }
}

/** Polls `check` every 100 ms until true; throws with `what` (and `state()`) after `timeoutMs`. */
export const waitFor = async (
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  state?: () => unknown
): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) {
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}` +
        (state === undefined ? "" : `\n${JSON.stringify(await state(), null, 1).slice(0, 3_000)}`))
    }
    await delay(100)
  }
}

/** Runs `f` over `items`, at most `n` at once. */
export const mapLimit = async <A, B>(items: ReadonlyArray<A>, n: number, f: (a: A, i: number) => Promise<B>): Promise<Array<B>> => {
  const results: Array<B> = new Array(items.length)
  let next = 0
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, async () => {
    while (next < items.length) {
      const i = next++
      results[i] = await f(items[i]!, i)
    }
  }))
  return results
}

// The database ------------------------------------------------------------------------------------------------------

export interface TestDatabase {
  readonly url: string
  /** A statement on a small pool of the test's own. */
  readonly sql: <A = any>(text: string) => Promise<ReadonlyArray<A>>
  /** `fils check` as an Effect on this database. */
  readonly check: (options?: Parameters<typeof check>[0]) => Promise<ReadonlyArray<Violation>>
  readonly close: () => Promise<void>
}

/** A fresh, migrated database on the suite's PostgreSQL, with a pool for the test itself. */
export const testDatabase = async (): Promise<TestDatabase> => {
  const scope = Effect.runSync(Scope.make())
  const url = await Effect.runPromise(Scope.extend(freshDatabaseUrl, scope))
  const runtime = ManagedRuntime.make(MigratedPg(url, { maxConnections: 2 }).pipe(Layer.orDie))
  await runtime.runPromise(Effect.void)
  return {
    url: Redacted.value(url),
    sql: (text) => runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (c) => c.unsafe(text))) as never,
    check: (options) => runtime.runPromise(check(options)),
    close: async () => {
      await runtime.dispose()
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  }
}

/** A pool on any URL (used against a database the test starts and stops). */
export const poolOn = (url: string) => {
  const runtime = ManagedRuntime.make(PgLive(Redacted.make(url), { maxConnections: 2 }).pipe(Layer.orDie))
  return {
    sql: (text: string) =>
      runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (c) => c.unsafe<any>(text))) as Promise<ReadonlyArray<any>>,
    check: (options?: Parameters<typeof check>[0]) => runtime.runPromise(check(options)),
    close: () => runtime.dispose()
  }
}
