/** The Node HTTP server: `HttpAppLive` on a port, with security headers, a request id, a log line and metrics per request. */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Etag from "@effect/platform/Etag"
import * as FileSystem from "@effect/platform/FileSystem"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpPlatform from "@effect/platform/HttpPlatform"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as Path from "@effect/platform/Path"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Config, Context, Effect, FiberRef, Layer, Scope } from "effect"
import { createServer, type Deadlines, defaultDeadlines } from "./ClientErrors.js"
import { capabilityRoute } from "../observability/Redaction.js"
import { observeRequests, securityHeaderValues } from "../observability/RequestObservation.js"
import { RequestSampling } from "../observability/Tracing.js"
import { HttpAppLive } from "./App.js"
import { clientAddress, TrustedProxies } from "./ClientAddress.js"

/**
 * The security headers for a host's handler (`WebHandler.ts`); `fils serve` sets them with the request id in
 * `observeRequests`. A server middleware sees the response only after it was written, so the headers go on through
 * a pre-response handler.
 */
export const securityHeaders = HttpMiddleware.make((app) =>
  Effect.zipRight(
    HttpApp.appendPreResponseHandler((_request, response) =>
      Effect.succeed(HttpServerResponse.setHeaders(response, securityHeaderValues))
    ),
    app
  )
)

/** Everything this server does around each request: request id, log line, metrics, security headers. */
export const serverMiddleware = observeRequests

export interface ListenOptions {
  readonly port: number
  readonly host: string
}

const seconds = (name: string, fallback: number) =>
  Config.integer(name).pipe(
    Config.withDefault(fallback),
    Config.validate({ message: "must be a whole number of seconds from 1 to 3600", validation: (n) => n >= 1 && n <= 3600 })
  )

/** The request deadlines from `FILS_HEADERS_TIMEOUT_SECONDS` and `FILS_REQUEST_TIMEOUT_SECONDS`. */
export const RequestDeadlines: Config.Config<Deadlines> = Config.all({
  headersSeconds: seconds("FILS_HEADERS_TIMEOUT_SECONDS", defaultDeadlines.headersSeconds),
  requestSeconds: seconds("FILS_REQUEST_TIMEOUT_SECONDS", defaultDeadlines.requestSeconds)
}).pipe(Config.validate({
  message: "FILS_HEADERS_TIMEOUT_SECONDS must not be longer than FILS_REQUEST_TIMEOUT_SECONDS",
  validation: (d) => d.headersSeconds <= d.requestSeconds
}))

/** Node's HTTP server on a port, with Fils' answers to unparsable and too slow requests. */
export const NodeServer = (options: ListenOptions) =>
  Layer.unwrapEffect(Effect.map(RequestDeadlines, (deadlines) =>
    NodeHttpServer.layer(() => createServer(deadlines), { port: options.port, host: options.host })))

/**
 * `HttpApiBuilder.serve`, with each request run in a context of the server's scope and the platform's services
 * alone. The app took the services it uses when it was built, and its type asks nothing more of a request (the
 * `mapInputContext` below fails to compile otherwise). This is for speed: a request's context is copied whenever a
 * service is added to it (the request itself, each span's parent), and copying the engine's seventy services made a
 * third of what a `GET /payments/{id}` allocated (docs/performance.md).
 */
const serveApp = (middleware: HttpMiddleware.HttpMiddleware) =>
  Layer.scopedDiscard(Effect.gen(function*() {
    const app = yield* HttpApiBuilder.httpApp
    const server = yield* HttpServer.HttpServer
    const platform = requestContext(yield* Effect.context<HttpRouter.HttpRouter.DefaultServices>())
    const context = Context.add(platform, Scope.Scope, yield* Effect.scope)
    yield* Effect.mapInputContext(server.serve(app, middleware), (_: Context.Context<never>) => context)
  })).pipe(Layer.provide([HttpApiBuilder.Router.Live, HttpApiBuilder.Middleware.layer]))

/** The services a request of the app reads from its context (`serveApp`; a host's handler, `WebHandler.ts`). */
export const requestContext = (context: Context.Context<HttpRouter.HttpRouter.DefaultServices>) =>
  Context.pick(HttpPlatform.HttpPlatform, Etag.Generator, FileSystem.FileSystem, Path.Path)(context)

/** Serves the app; requires the engine's services and the Store. */
export const ServerLive = (options: ListenOptions) =>
  Layer.unwrapEffect(Effect.map(Config.all({ trust: TrustedProxies, sampled: RequestSampling }), ({ sampled, trust }) =>
    // Outermost: the client's address is settled before the log, the throttles and the pages read it.
    serveApp(HttpMiddleware.make((app) => clientAddress(trust)(serverMiddleware(app)))).pipe(
      // Spans only for requests whose trace is exported (the sampler's choice); none for a one-time link's, whose
      // span would record its secret (cookies are redacted from spans by the platform).
      HttpMiddleware.withTracerDisabledWhen((request) =>
        sampled === undefined || !sampled(request.headers.traceparent) || capabilityRoute(request.url) !== undefined
      ),
      // Nothing exported: no request makes a span of any kind (observeRequests would turn the tracer off for each).
      (served) => sampled === undefined ? Layer.locally(served, FiberRef.currentTracerEnabled, false) : served
    ))).pipe(
    Layer.provide(HttpAppLive),
    HttpServer.withLogAddress,
    Layer.provide(NodeServer(options))
  )
