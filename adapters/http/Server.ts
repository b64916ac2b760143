/** The Node HTTP server: `HttpAppLive` on a port, with security headers on every response. */
import { HttpApiBuilder, HttpMiddleware, HttpServer, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { createServer } from "node:http"
import { HttpAppLive } from "./App.js"

const securityHeaders = HttpMiddleware.make((app) =>
  Effect.map(
    app,
    HttpServerResponse.setHeaders({
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
      "cache-control": "no-store"
    })
  )
)

export interface ListenOptions {
  readonly port: number
  readonly host: string
}

/** Serves the app; requires the engine's services and the Store. */
export const ServerLive = (options: ListenOptions) =>
  HttpApiBuilder.serve(securityHeaders).pipe(
    Layer.provide(HttpAppLive),
    HttpServer.withLogAddress,
    Layer.provide(NodeHttpServer.layer(createServer, { port: options.port, host: options.host }))
  )
