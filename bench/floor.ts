/**
 * `node --import tsx bench/floor.ts`: the framework floor on this machine, no database and no Fils. One GET with a
 * path parameter and a small JSON body, served four ways and driven like `npm run bench` (autocannon, 64
 * connections): `@effect/platform` HttpApi (as Fils serves its API, with and without its tracer), its plain
 * HttpRouter, and bare `node:http`. It tells how much of a request's cost the stack takes before any work is done.
 */
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Effect, Layer, ManagedRuntime, Schema } from "effect"
import { createRequire } from "node:module"
import { createServer, type Server } from "node:http"
import { freePort } from "./processes.js"

const autocannon = createRequire(import.meta.url)("autocannon") as (options: object) => Promise<any>
const seconds = Number(process.env["BENCH_DURATION"] ?? 8)

const Payment = Schema.Struct({
  payment_id: Schema.String,
  status: Schema.Literal("succeeded", "failed"),
  total_amount: Schema.Int,
  created_at: Schema.String,
  metadata: Schema.Record({ key: Schema.String, value: Schema.String })
})
const body = (id: string) => ({
  payment_id: id,
  status: "succeeded" as const,
  total_amount: 34_900,
  created_at: new Date().toISOString(),
  metadata: {}
})
const Api = HttpApi.make("floor").add(
  HttpApiGroup.make("payments").add(
    HttpApiEndpoint.get("get", "/api/v1/payments/:id").setPath(Schema.Struct({ id: Schema.String })).addSuccess(Payment)
  )
)
const ApiLive = HttpApiBuilder.api(Api).pipe(
  Layer.provide(HttpApiBuilder.group(Api, "payments", (h) => h.handle("get", ({ path }) => Effect.succeed(body(path.id)))))
)
const router = HttpRouter.empty.pipe(
  HttpRouter.get("/api/v1/payments/:id", Effect.map(HttpRouter.params, (p) => HttpServerResponse.unsafeJson(body(p.id!))))
)

const node = (port: number) =>
  new Promise<Server>((resolve) => {
    const server = createServer((req, res) => {
      res.setHeader("content-type", "application/json")
      res.end(JSON.stringify(body(req.url!.slice("/api/v1/payments/".length))))
    })
    server.listen(port, "127.0.0.1", () => resolve(server))
  })

const stacks: Record<string, (port: number) => Layer.Layer<never, unknown>> = {
  "HttpApi (traced, as Fils)": (port) =>
    HttpApiBuilder.serve().pipe(Layer.provide(ApiLive), Layer.provide(NodeHttpServer.layer(createServer, { port }))),
  "HttpApi, tracer off": (port) =>
    HttpApiBuilder.serve().pipe(
      Layer.provide(ApiLive),
      HttpMiddleware.withTracerDisabledWhen(() => true),
      Layer.provide(NodeHttpServer.layer(createServer, { port }))
    ),
  "HttpRouter, tracer off": (port) =>
    HttpServer.serve(router).pipe(
      HttpMiddleware.withTracerDisabledWhen(() => true),
      Layer.provide(NodeHttpServer.layer(createServer, { port }))
    )
}

const load = async (port: number) => {
  const url = `http://127.0.0.1:${port}/api/v1/payments/pay_0123`
  await autocannon({ url, connections: 64, duration: 2 })
  const r = await autocannon({ url, connections: 64, duration: seconds })
  return `${Math.round(r.requests.average).toLocaleString("en")} req/s, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms`
}

for (const [name, stack] of Object.entries(stacks)) {
  const port = await freePort()
  const runtime = ManagedRuntime.make(stack(port))
  await runtime.runtime()
  process.stdout.write(`${name.padEnd(28)} ${await load(port)}\n`)
  await runtime.dispose()
}
const port = await freePort()
const server = await node(port)
process.stdout.write(`${"node:http".padEnd(28)} ${await load(port)}\n`)
server.close()
