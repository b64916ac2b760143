/** The Node HTTP server: `HttpAppLive` on a port, with security headers, a request id, a log line and metrics per request. */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Effect, flow, Layer } from "effect"
import { createServer } from "./ClientErrors.js"
import { observeRequests } from "../observability/RequestObservation.js"
import { HttpAppLive } from "./App.js"

/**
 * On every response, however Fils is served (this server, or a host's handler: see `WebHandler.ts`). A server
 * middleware sees the response only after it was written, so the headers go on through a pre-response handler.
 */
export const securityHeaders = HttpMiddleware.make((app) =>
  Effect.zipRight(
    HttpApp.appendPreResponseHandler((_request, response) =>
      Effect.succeed(HttpServerResponse.setHeaders(response, {
        "x-content-type-options": "nosniff",
        "referrer-policy": "no-referrer",
        "cache-control": "no-store"
      }))
    ),
    app
  )
)

/** Everything this server does around each request: request id, log line, metrics, security headers. */
export const serverMiddleware = flow(securityHeaders, observeRequests)

export interface ListenOptions {
  readonly port: number
  readonly host: string
}

/** Serves the app; requires the engine's services and the Store. */
export const ServerLive = (options: ListenOptions) =>
  HttpApiBuilder.serve(serverMiddleware).pipe(
    Layer.provide(HttpAppLive),
    HttpServer.withLogAddress,
    Layer.provide(NodeHttpServer.layer(createServer, { port: options.port, host: options.host }))
  )
