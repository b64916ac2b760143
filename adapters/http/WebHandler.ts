/**
 * Fils inside a host's own server: a fetch-style handler (`Request` → `Response`: Hono, Bun, Deno, any web-standard
 * host) and a Node `(req, res)` listener (Express, connect, plain node:http). Both serve `HttpAppLive` with the same
 * security headers as `fils serve`, over the engine and Store layers the host provides.
 *
 * Mounted under a path (`app.use("/fils", …)`, `app.mount("/fils", …)`), give `publicUrl` with that path
 * (`https://shop.example/fils`): it becomes `FILS_PUBLIC_URL`, so `checkout_url` and the checkout form carry the
 * prefix. Requests may arrive with the prefix stripped (Express, Hono) or not (a bare fetch handler); both work.
 *
 * The layers are built before the handler is returned, so a store that cannot be reached fails at startup rather
 * than on the first request, and `run` gives the host the very engine the handler uses (one memory store, one pool).
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApp from "@effect/platform/HttpApp"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { ConfigProvider, Effect, Exit, flow, Layer, Runtime, Scope } from "effect"
import type { IncomingMessage, ServerResponse } from "node:http"
import { Billing } from "../../src/application/Billing.js"
import { Deliveries } from "../../src/application/Deliveries.js"
import { EInvoices } from "../../src/application/EInvoices.js"
import { HttpAppLive } from "./App.js"
import { clientAddress, TrustedProxies } from "./ClientAddress.js"
import { requestContext, securityHeaders } from "./Server.js"

/** What the handler needs from the host: the engine's services and the Store (`Engine` + a Store + `NodeAdapters`). */
export type FilsServices = Layer.Layer.Context<typeof HttpAppLive> | Billing | Deliveries | EInvoices

export interface HandlerOptions<E> {
  /** The engine and its ports: `Engine` over a Store (`StoreSql` or `StoreMemory`) and `NodeAdapters`. */
  readonly engine: Layer.Layer<FilsServices, E>
  /**
   * Where customers reach this mount, path included (`https://shop.example/fils`). Overrides `FILS_PUBLIC_URL`
   * for this handler; without either, links point at `http://127.0.0.1:4242`.
   */
  readonly publicUrl?: string | undefined
  /**
   * Run the background work in this process too (renewals, retries, session expiry, webhook deliveries, e-invoices), as
   * `fils serve` does; stopped by `dispose`. Off by default; at least one process on the store (this one, or a
   * `fils serve` on the same database) must run it.
   */
  readonly workers?: boolean | undefined
  /** Serve the merchant dashboard under `<publicUrl>/dashboard` too (default true; `FILS_DASHBOARD`). */
  readonly dashboard?: boolean | undefined
}

export interface FilsHandle {
  /** Runs an effect against the handler's own engine, e.g. `Accounts.create` to issue a key. */
  readonly run: <A, E>(effect: Effect.Effect<A, E, FilsServices>) => Promise<A>
  /** Stops the workers and releases the store (closes the pool). */
  readonly dispose: () => Promise<void>
}

export interface WebHandler extends FilsHandle {
  readonly handler: (request: Request) => Promise<Response>
}

export interface NodeHandler extends FilsHandle {
  readonly handler: (request: IncomingMessage, response: ServerResponse) => void
}

/** The path of `publicUrl` without its trailing slash (`""` at the root). */
const prefixOf = (publicUrl: string | undefined) => {
  if (publicUrl === undefined) return ""
  try {
    return new URL(publicUrl).pathname.replace(/\/+$/, "")
  } catch {
    return ""
  }
}

/** `/fils/api/v1/x?y` → `/api/v1/x?y`; any other path as it is (the host already took the prefix off). */
const unprefixed = (prefix: string, pathAndQuery: string) => {
  if (prefix === "" || !pathAndQuery.startsWith(prefix)) return pathAndQuery
  const rest = pathAndQuery.slice(prefix.length)
  if (rest === "") return "/"
  return rest.startsWith("/") ? rest : rest.startsWith("?") ? `/${rest}` : pathAndQuery
}

/** The app, its runtime and a scope holding both (and the workers), built eagerly. */
const build = async <E>(options: HandlerOptions<E>) => {
  const given = new Map<string, string>()
  if (options.publicUrl !== undefined) given.set("FILS_PUBLIC_URL", options.publicUrl)
  if (options.dashboard !== undefined) given.set("FILS_DASHBOARD", String(options.dashboard))
  const config = given.size === 0
    ? ConfigProvider.fromEnv()
    : ConfigProvider.fromMap(given).pipe(
      ConfigProvider.orElse(() => ConfigProvider.fromEnv())
    )
  const workers = options.workers === true
    ? Layer.scopedDiscard(Effect.gen(function*() {
      yield* Effect.forkScoped((yield* Billing).worker)
      yield* Effect.forkScoped((yield* Deliveries).worker)
      yield* Effect.forkScoped((yield* EInvoices).worker)
    }))
    : Layer.empty
  // The same composition as `HttpApiBuilder.toWebHandler`, plus the node platform services, in one build.
  const layer = Layer.mergeAll(
    HttpAppLive,
    workers,
    HttpApiBuilder.Router.Live,
    HttpApiBuilder.Middleware.layer,
    NodeHttpServer.layerContext
  ).pipe(
    Layer.provideMerge(options.engine),
    Layer.provide(Layer.setConfigProvider(config))
  )
  const scope = Effect.runSync(Scope.make())
  const dispose = () => Effect.runPromise(Scope.close(scope, Exit.void))
  const exit = await Effect.runPromiseExit(Scope.extend(
    Effect.flatMap(Layer.toRuntime(layer), (runtime) =>
      Effect.provide(
        Effect.all({ app: HttpApiBuilder.httpApp, trust: TrustedProxies }),
        runtime
      ).pipe(Effect.map(({ app, trust }) => ({ runtime, app, middleware: flow(securityHeaders, clientAddress(trust)) })))),
    scope
  ))
  if (Exit.isFailure(exit)) {
    await dispose()
    throw Runtime.makeFiberFailure(exit.cause)
  }
  const { app, middleware, runtime } = exit.value
  const run = <A, E2>(effect: Effect.Effect<A, E2, FilsServices>) => Runtime.runPromise(runtime)(effect)
  // Requests run on the platform's services alone, as `fils serve`'s do (Server.ts, `serveApp`).
  const serving = Runtime.make({ ...runtime, context: requestContext(runtime.context) })
  return { app, middleware, serving, run, dispose, prefix: prefixOf(options.publicUrl) }
}

/** A fetch-style handler: `app.mount("/fils", fils.handler)` in Hono, or `(request) => fils.handler(request)`. */
export const makeWebHandler = async <E>(options: HandlerOptions<E>): Promise<WebHandler> => {
  const { app, dispose, middleware, prefix, run, serving } = await build(options)
  const handle = HttpApp.toWebHandlerRuntime(serving)(app, middleware)
  const handler = (request: Request) => {
    if (prefix === "") return handle(request)
    const url = new URL(request.url)
    const path = unprefixed(prefix, url.pathname + url.search)
    if (path === url.pathname + url.search) return handle(request)
    return handle(new Request(new URL(path, url.origin), request))
  }
  return { handler, run, dispose }
}

/**
 * A Node listener: `app.use("/fils", fils.handler)` in Express (before any body parser on that path: Fils reads
 * the body itself), or `createServer(fils.handler)`.
 */
export const makeNodeHandler = async <E>(options: HandlerOptions<E>): Promise<NodeHandler> => {
  const { app, dispose, middleware, prefix, run, serving } = await build(options)
  const handle = Runtime.runSync(serving)(NodeHttpServer.makeHandler(app, middleware))
  const handler = (request: IncomingMessage, response: ServerResponse) => {
    if (prefix !== "" && request.url !== undefined) request.url = unprefixed(prefix, request.url)
    handle(request, response)
  }
  return { handler, run, dispose }
}
