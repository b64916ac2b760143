/**
 * Support for end-to-end tests in a real browser: `fils serve` on a port chosen here (so `FILS_PUBLIC_URL` can name
 * it) with its output captured to a log file, a merchant's "shop" that receives the customer back, headless
 * Chromium through playwright-core, and a full text dump of a PostgreSQL database.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { once } from "node:events"
import { createWriteStream, mkdirSync } from "node:fs"
import { createServer, type IncomingMessage, type Server } from "node:http"
import { dirname, join } from "node:path"
import { setTimeout as delay } from "node:timers/promises"
import pg from "pg"
import { type Browser, chromium } from "playwright-core"
import { commandEnv, filsArgs, freePort, root } from "./cli.js"

/** Where tests leave screenshots and logs (git-ignored). */
export const outputDir = join(root, "test-output")

export const ensureOutputDir = (): string => {
  mkdirSync(outputDir, { recursive: true })
  return outputDir
}

/** Resolves with `fallback` after `ms`, unless `promise` settles first. */
const within = <A, B>(promise: Promise<A>, ms: number, fallback: B): Promise<A | B> => {
  const timer = new AbortController()
  return Promise.race([
    promise.finally(() => timer.abort()),
    delay(ms, fallback, { signal: timer.signal }).catch(() => fallback)
  ])
}

export interface LoggedServer {
  readonly child: ChildProcess
  readonly port: number
  /** `http://127.0.0.1:<port>`, also given to the server as `FILS_PUBLIC_URL`. */
  readonly baseUrl: string
  /** The file that receives everything the server prints (stdout and stderr). */
  readonly logFile: string
  readonly stdout: () => string
  readonly stderr: () => string
  /**
   * Sends `signal` and resolves with the exit code (`null` when killed by a signal). A server that has not exited
   * within `timeoutMs` is killed with SIGKILL (and `"timeout"` is returned). The log file is flushed and closed.
   */
  readonly stop: (signal?: NodeJS.Signals, timeoutMs?: number) => Promise<number | null | "timeout">
}

/**
 * `fils serve --port <free port>` with `FILS_PUBLIC_URL` set to its own base URL, its output teed into `logFile`.
 * Resolves once `/ready` answers 200 and the banner is printed.
 */
export const serveFilsLogged = async (options: {
  readonly env: Record<string, string | undefined>
  readonly logFile: string
  readonly timeoutMs?: number
}): Promise<LoggedServer> => {
  const timeoutMs = options.timeoutMs ?? 45_000
  const port = await freePort()
  const baseUrl = `http://127.0.0.1:${port}`
  mkdirSync(dirname(options.logFile), { recursive: true })
  const log = createWriteStream(options.logFile, { flags: "w" })
  const child = spawn(process.execPath, filsArgs("serve", "--port", String(port)), {
    cwd: root,
    env: commandEnv({ ...options.env, FILS_PUBLIC_URL: baseUrl }),
    stdio: ["ignore", "pipe", "pipe"]
  })
  let stdout = ""
  let stderr = ""
  child.stdout!.on("data", (chunk: Buffer) => {
    stdout += chunk
    log.write(chunk)
  })
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk
    log.write(chunk)
  })
  const exited = once(child, "exit").then(([code]) => code as number | null)
  // Both pipes drained, so the log holds everything the process printed.
  const drained = Promise.all([once(child.stdout!, "end"), once(child.stderr!, "end")]).catch(() => undefined)
  const closeLog = async () => {
    await within(drained, 5_000, undefined)
    if (!log.closed) {
      log.end()
      await within(once(log, "close"), 5_000, undefined)
    }
  }
  const stop = async (signal: NodeJS.Signals = "SIGTERM", stopTimeoutMs = 20_000) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      await closeLog()
      return child.exitCode
    }
    child.kill(signal)
    const code = await within(exited, stopTimeoutMs, "timeout" as const)
    if (code === "timeout") {
      child.kill("SIGKILL")
      await within(exited, 5_000, undefined)
    }
    await closeLog()
    return code
  }

  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      await closeLog()
      throw new Error(`fils serve exited early (${child.exitCode ?? child.signalCode}):\n${stdout}\n${stderr}`)
    }
    if (Date.now() > deadline) {
      await stop("SIGKILL")
      throw new Error(`fils serve not ready within ${timeoutMs} ms:\n${stdout}\n${stderr}`)
    }
    const ready = await fetch(`${baseUrl}/ready`, { signal: AbortSignal.timeout(2_000) }).then(
      (r) => r.status === 200,
      () => false
    )
    if (ready && stdout.includes("Fils is running")) break
    await delay(100)
  }
  return { child, port, baseUrl, logFile: options.logFile, stdout: () => stdout, stderr: () => stderr, stop }
}

// The merchant's shop -------------------------------------------------------------------------------------------

export interface ShopVisit {
  readonly method: string
  readonly path: string
  readonly query: Record<string, string>
  readonly userAgent: string | undefined
}

export interface Shop {
  readonly origin: string
  /** Every request the shop received, oldest first. */
  readonly visits: ReadonlyArray<ShopVisit>
  readonly close: () => Promise<void>
}

/** A merchant site on 127.0.0.1 that answers every GET with a small "thank you" page and records the query. */
export const startShop = async (): Promise<Shop> => {
  const visits: Array<ShopVisit> = []
  const server: Server = createServer((req: IncomingMessage, res) => {
    const url = new URL(req.url ?? "/", "http://shop.invalid")
    if (url.pathname === "/favicon.ico") {
      res.writeHead(204).end()
      return
    }
    visits.push({
      method: req.method ?? "GET",
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      userAgent: req.headers["user-agent"]
    })
    const status = url.searchParams.get("status") ?? "unknown"
    res.writeHead(200, { "content-type": "text/html; charset=utf-8", connection: "close" })
    res.end(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop: order ${status}</title></head>` +
        `<body><h1>Thank you for your order</h1><p id="status">Payment status: ${status.replace(/[^a-z_]/g, "")}</p>` +
        `</body></html>`
    )
  })
  server.listen(0, "127.0.0.1")
  await once(server, "listening")
  const address = server.address()
  if (typeof address !== "object" || address === null) throw new Error("the shop has no TCP address")
  return {
    origin: `http://127.0.0.1:${address.port}`,
    visits,
    close: async () => {
      server.closeAllConnections()
      if (server.listening) {
        server.close()
        await within(once(server, "close"), 5_000, undefined)
      }
    }
  }
}

// Chromium -------------------------------------------------------------------------------------------------------

export const chromiumPath = "/usr/bin/chromium"

/** Debian's Chromium, headless, with nothing phoning home. */
export const launchChromium = (): Promise<Browser> =>
  chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    timeout: 30_000,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync"
    ]
  })

// Database dump ----------------------------------------------------------------------------------------------------

const quoteIdent = (name: string) => `"${name.replaceAll("\"", "\"\"")}"`

/**
 * Every row of every table of every schema but the system ones, each row as PostgreSQL's text form of the whole
 * record (so every column of every type is included), one line per row prefixed by its table, for every database of
 * the cluster that `url` reaches (templates excluded).
 */
export const dumpDatabases = async (url: string): Promise<{ readonly text: string; readonly tables: number; readonly rows: number }> => {
  const lines: Array<string> = []
  let tables = 0
  let rows = 0
  const admin = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000, statement_timeout: 20_000 })
  await admin.connect()
  let databases: Array<string>
  try {
    const result = await admin.query<{ datname: string }>("SELECT datname FROM pg_database WHERE NOT datistemplate")
    databases = result.rows.map((r) => r.datname)
  } finally {
    await admin.end()
  }
  for (const database of databases) {
    const target = new URL(url)
    target.pathname = `/${encodeURIComponent(database)}`
    const client = new pg.Client({
      connectionString: target.toString(),
      connectionTimeoutMillis: 10_000,
      statement_timeout: 20_000
    })
    await client.connect()
    try {
      const list = await client.query<{ table_schema: string; table_name: string }>(
        `SELECT table_schema, table_name FROM information_schema.tables
         WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')
           AND table_schema NOT LIKE 'pg\\_%'
         ORDER BY table_schema, table_name`
      )
      for (const { table_schema, table_name } of list.rows) {
        tables++
        const qualified = `${quoteIdent(table_schema)}.${quoteIdent(table_name)}`
        const result = await client.query<{ row: string }>(`SELECT t::text AS row FROM ${qualified} AS t`)
        for (const { row } of result.rows) {
          rows++
          lines.push(`${database}.${table_schema}.${table_name}: ${row}`)
        }
      }
    } finally {
      await client.end()
    }
  }
  return { text: lines.join("\n"), tables, rows }
}

/** A card number's digits as they could be written anywhere: plain, grouped by spaces or dashes, form- or URL-encoded. */
export const cardPattern = (digits: string): RegExp =>
  new RegExp(digits.match(/.{1,4}/g)!.join("(?:[\\s+-]|%20)?"))

// PDF text ----------------------------------------------------------------------------------------------------------

/** The text of a PDF (Chromium's `page.pdf`), page after page, through Mozilla's pdf.js. */
export const pdfText = async (pdf: Uint8Array): Promise<string> => {
  const pdfjs = await import("pdfjs-dist/legacy/build/pdf.mjs")
  const doc = await pdfjs.getDocument({ data: new Uint8Array(pdf), isEvalSupported: false, useSystemFonts: false }).promise
  const pages: Array<string> = []
  for (let i = 1; i <= doc.numPages; i++) {
    const content = await (await doc.getPage(i)).getTextContent()
    // Items break within words (a ligature is its own item): join them as they are, lines by their ends.
    pages.push(content.items.map((item) => ("str" in item ? item.str + (item.hasEOL ? "\n" : "") : "")).join(""))
  }
  await doc.destroy()
  return pages.join("\n")
}
