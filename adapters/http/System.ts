/** Routes outside the API contract: liveness, readiness, the OpenAPI document and the offline reference. */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApiScalar from "@effect/platform/HttpApiScalar"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, Layer } from "effect"
import { createHash } from "node:crypto"
import { Store } from "../../src/ports/Store.js"

const json = (status: number, body: unknown) => HttpServerResponse.unsafeJson(body, { status })

export const SystemRoutes = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const store = yield* Store
    yield* router.get("/health", Effect.succeed(json(200, { status: "ok" })))
    // Browsers ask for it on every page; an empty answer keeps their consoles clean.
    yield* router.get("/favicon.ico", Effect.succeed(HttpServerResponse.empty({ status: 204 })))
    yield* router.get(
      "/ready",
      store.ping.pipe(
        Effect.timeout("2 seconds"),
        Effect.match({
          onSuccess: () => json(200, { status: "ready" }),
          onFailure: () => json(503, { code: "SERVICE_UNAVAILABLE", message: "The store cannot be reached" })
        })
      )
    )
  })
)

/** The `sha256-…` sources of a page's inline scripts (a JSON data block is not a script, and needs none). */
export const inlineScriptHashes = (html: string): ReadonlyArray<string> =>
  [...html.matchAll(/<script(?![^>]*type="application\/json")[^>]*>([\s\S]*?)<\/script>/g)].map((m) =>
    `'sha256-${createHash("sha256").update(m[1]!, "utf8").digest("base64")}'`
  )

/**
 * The reference's policy: only its own two inline scripts run, and the page may load or connect to nothing but this
 * server, so it works offline and nothing leaves the machine; no site may frame it.
 */
export const docsPolicy = (html: string): string =>
  `default-src 'none'; script-src ${inlineScriptHashes(html).join(" ")} 'wasm-unsafe-eval'; style-src 'self' 'unsafe-inline'; ` +
  "img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; " +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

// The page is the same on every request: its policy is worked out once.
let policy: string | undefined
const securedDocs = HttpApiBuilder.middleware((app) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    request.url === "/docs" || request.url.startsWith("/docs?")
      ? Effect.map(app, (response) => {
        if (response.body._tag !== "Uint8Array") return response
        policy ??= docsPolicy(new TextDecoder().decode(response.body.body))
        return HttpServerResponse.setHeaders(response, { "content-security-policy": policy, "x-frame-options": "DENY" })
      })
      : app
  )
)

/** `/api/v1/openapi.json` (OpenAPI 3.1) and `/docs` (Scalar, inlined and without web fonts: works offline). */
export const DocsRoutes = Layer.mergeAll(
  HttpApiBuilder.middlewareOpenApi({ path: "/api/v1/openapi.json" }),
  HttpApiScalar.layer({ path: "/docs", scalar: { withDefaultFonts: false } }),
  securedDocs
)
