/**
 * `node --import tsx bench/edge.ts`: what each part of a `GET /payments/{id}` costs, on PostgreSQL, driven like
 * `npm run bench` (autocannon, 64 connections, from a child process). Each step runs in a process of its own, the
 * server in-process so that its CPU per request is the process's own (`process.cpuUsage`). The steps add one part
 * of Fils' request path at a time on a plain `@effect/platform` HttpRouter, then serve the whole app as
 * `fils serve` does:
 *
 * - the bare baseline of `npm run bench` (`bench/baseline.ts`, `node:http` + `pg`);
 * - an HttpRouter route: authentication (the key cache), `Payments.get` (batched read), the resource's encoding;
 * - + the tracer (the server span, and the spans of the use case and its SQL);
 * - + the security headers;
 * - + the request id, log line and metrics (`serverMiddleware`);
 * - + the per-key rate limit (counted in the store);
 * - Fils as served (`ServerLive`, as `fils serve` runs it): the same middleware, the bearer security and its
 *   `RateLimit-*` headers, and the read through its hot route (`ApiMiddleware.ts`);
 * - the same with request logs off (`FILS_REQUEST_LOG_RETENTION_DAYS=0`): what the request log line costs.
 *
 * BENCH_DURATION (seconds, default 8) per step.
 */
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { ConfigProvider, Effect, Layer, ManagedRuntime, Redacted, Schema } from "effect"
import { spawn } from "node:child_process"
import { chmodSync, mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { securityHeaders, serverMiddleware, ServerLive } from "../adapters/http/Server.js"
import { ObservabilityLive } from "../adapters/observability/Observability.js"
import { NodeAdapters } from "../adapters/runtime/NodeAdapters.js"
import { startEmbeddedPostgres } from "../adapters/sql/EmbeddedPostgres.js"
import { MigratedPg } from "../adapters/sql/Postgres.js"
import { StoreSql } from "../adapters/sql/StoreSql.js"
import { Accounts } from "../src/application/Accounts.js"
import { Engine } from "../src/application/Engine.js"
import { Payments } from "../src/application/Payments.js"
import { RateLimits } from "../src/application/RateLimits.js"
import { parseId, PaymentId } from "../src/domain/Ids.js"
import { PaymentResource } from "../src/domain/Payment.js"
import { binNodeFlags, freePort, root } from "./processes.js"
import * as Seed from "./seed.js"

const steps = ["baseline", "router", "tracer", "headers", "observed", "limited", "fils", "unlogged"] as const
type Step = (typeof steps)[number]
const titles: Record<Step, string> = {
  baseline: "node:http + pg (the bare baseline)",
  router: "HttpRouter: auth, read, encode",
  tracer: "+ tracer",
  headers: "+ security headers",
  observed: "+ request id, log line, metrics",
  limited: "+ rate limit",
  fils: "Fils as served",
  unlogged: "Fils as served, request logs off"
}
const seconds = Number(process.env["BENCH_DURATION"] ?? 8)

/** autocannon in a child process, so that this process's CPU time is the server's alone. */
const drive = (url: string, key: string, duration: number) =>
  new Promise<{ readonly rps: number; readonly total: number; readonly non2xx: number }>((resolve, reject) => {
    const script = `require("autocannon")({ url: ${JSON.stringify(url)}, connections: 64, duration: ${duration},
      headers: { authorization: ${JSON.stringify(`Bearer ${key}`)} } }).then((r) => process.stdout.write(JSON.stringify(
      { rps: r.requests.average, total: r.requests.total, non2xx: r.non2xx })))`
    const child = spawn(process.execPath, ["-e", script], { cwd: root, stdio: ["ignore", "pipe", "inherit"] })
    let out = ""
    child.stdout.on("data", (d: Buffer) => (out += d.toString()))
    child.on("close", (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`autocannon exited ${code}`))))
  })

const measureStep = async (step: Step) => {
  const work = mkdtempSync(join(tmpdir(), "fils-edge-"))
  chmodSync(work, 0o755)
  const db = await startEmbeddedPostgres(join(work, "pg"))
  try {
    const port = await freePort()
    const engine = Engine.pipe(
      Layer.provideMerge(Layer.mergeAll(StoreSql, NodeAdapters)),
      Layer.provideMerge(MigratedPg(Redacted.make(db.url)))
    )
    const paymentId = parseId(PaymentId)
    const encode = Schema.encodeSync(PaymentResource)
    const route = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const { id } = yield* HttpRouter.params
      const principal = yield* (yield* Accounts).authenticate(Redacted.make((request.headers.authorization ?? "").slice(7)))
      if (step === "limited") yield* (yield* RateLimits).consumeKey(principal.keyId)
      const payment = yield* (yield* Payments).get(principal, paymentId(id ?? "")!)
      return HttpServerResponse.unsafeJson(encode(payment))
    }).pipe(Effect.catchAll(() => Effect.succeed(HttpServerResponse.empty({ status: 404 }))))
    const router = HttpRouter.empty.pipe(HttpRouter.get("/api/v1/payments/:id", route))
    const listen = NodeHttpServer.layer(createServer, { port, host: "127.0.0.1" })
    const middleware = step === "headers" ? securityHeaders : serverMiddleware
    const served = step === "router"
      ? HttpServer.serve(router).pipe(HttpMiddleware.withTracerDisabledWhen(() => true))
      : step === "tracer"
      ? HttpServer.serve(router)
      : HttpServer.serve(router, middleware)
    const layer = step === "baseline"
      ? engine
      : step === "fils" || step === "unlogged"
      ? ServerLive({ port, host: "127.0.0.1" }).pipe(Layer.provideMerge(engine), Layer.provide(ObservabilityLive))
      : served.pipe(Layer.provide(listen), Layer.provideMerge(engine), Layer.provide(ObservabilityLive))
    const config = ConfigProvider.fromMap(new Map([
      ["FILS_RATE_LIMIT_PER_MIN", "1000000000"],
      ["FILS_REQUEST_LOG_RETENTION_DAYS", step === "unlogged" ? "0" : "7"]
    ]))
    const runtime = ManagedRuntime.make(layer.pipe(Layer.provide(Layer.setConfigProvider(config))))
    const { account, keys } = await runtime.runPromise(Effect.flatMap(Accounts, (a) => a.create({ business_name: "Edge" })))
    const sql = await Seed.connect(db.url)
    await Seed.seedPayments(sql, account.account_id, 1, 20_000)
    const [id] = await Seed.samplePaymentIds(sql, account.account_id, 1)
    await sql.end()
    if (step === "baseline") {
      process.env["DATABASE_URL"] = db.url
      process.env["PORT"] = String(port)
      await import("./baseline.js")
    }
    const url = `http://127.0.0.1:${port}/api/v1/payments/${id}`
    const key = Redacted.value(keys.test.secret)
    const check = await fetch(url, { headers: { authorization: `Bearer ${key}` } })
    if (check.status !== 200) throw new Error(`${step}: ${check.status} ${await check.text()}`)
    await drive(url, key, 3)
    const before = process.cpuUsage()
    const result = await drive(url, key, seconds)
    const cpu = process.cpuUsage(before)
    if (result.non2xx > 0) throw new Error(`${step}: ${result.non2xx} answers were not 2xx`)
    return { step, rps: result.rps, cpuMicros: (cpu.user + cpu.system) / result.total }
  } finally {
    // The baseline's pool has no error listener: PostgreSQL stopping under it must not fail the step.
    process.on("uncaughtException", () => undefined)
    await db.stop()
    rmSync(work, { recursive: true, force: true })
  }
}

const step = process.argv[2] as Step | undefined
if (step !== undefined) {
  // One step, in a child: its result goes to the parent over IPC.
  const result = await measureStep(step)
  process.send?.(result)
  process.exit(0)
} else {
  const rows: Array<{ readonly step: Step; readonly rps: number; readonly cpuMicros: number }> = []
  for (const s of steps) {
    rows.push(
      await new Promise((resolve, reject) => {
        // The request log goes to /dev/null: a pipe nobody drains would block it (see bench/processes.ts).
        const child = spawn(
          process.execPath,
          [...binNodeFlags, "--import", "tsx", "bench/edge.ts", s],
          { cwd: root, stdio: ["ignore", "ignore", "inherit", "ipc"] }
        )
        child.once("message", (m) => resolve(m as never))
        child.once("exit", (code) => (code === 0 ? undefined : reject(new Error(`step ${s} exited ${code}`))))
      })
    )
    const row = rows[rows.length - 1]!
    process.stdout.write(
      `${titles[s].padEnd(36)} ${Math.round(row.rps).toLocaleString("en").padStart(7)} req/s ${
        Math.round(row.cpuMicros).toString().padStart(4)
      } µs CPU/req ${(row.rps / rows[0]!.rps).toFixed(2).padStart(5)} × baseline\n`
    )
  }
}
