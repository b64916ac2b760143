/** Routes outside the API contract: liveness, readiness, the OpenAPI document and the offline reference. */
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import type * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as OpenApi from "@effect/platform/OpenApi"
import { Effect, Layer } from "effect"
import { createHash } from "node:crypto"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
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

/**
 * Scalar's page as `HttpApiScalar.layer` makes it (the same HTML, byte for byte), but made on the first request
 * rather than when the server starts. The layer imports Scalar's 3.4 MB script into every server and holds it, with
 * the page built from it, as two-byte strings: about 20 MB, a tenth of a busy server's memory, for a page an
 * operator opens now and then. Scalar's script is read from @effect/platform's own copy of it, then let go.
 */
const scalarPage = (api: HttpApi.HttpApi<string, HttpApiGroup.HttpApiGroup.AnyWithProps>): HttpServerResponse.HttpServerResponse => {
  const spec = OpenApi.fromApi(api)
  const config = { _integration: "html", withDefaultFonts: false }
  const page = `<!doctype html>
<html>
  <head>
    <meta charset="utf-8" />
    <title>${escapeText(spec.info.title)}</title>
    ${!spec.info.description ? "" : `<meta name="description" content="${escapeAttribute(spec.info.description)}"/>`}
    ${!spec.info.description ? "" : `<meta name="og:description" content="${escapeAttribute(spec.info.description)}"/>`}
    <meta
      name="viewport"
      content="width=device-width, initial-scale=1" />
  </head>
  <body>
    <script id="api-reference" type="application/json">
      ${escapeJson(spec)}
    </script>
    <script>
      document.getElementById('api-reference').dataset.configuration = JSON.stringify(${escapeJson(config)})
    </script>
    <script>${takeScalarScript()}</script>
  </body>
</html>`
  return HttpServerResponse.html(page).pipe(
    HttpServerResponse.setHeaders({ "content-security-policy": docsPolicy(page), "x-frame-options": "DENY" })
  )
}

/** The script `HttpApiScalar` inlines, from @effect/platform's module, which is then dropped from the cache. */
const takeScalarScript = (): string => {
  const require = createRequire(import.meta.url)
  const module = join(dirname(require.resolve("@effect/platform/HttpApiScalar")), "internal", "httpApiScalar.js")
  try {
    return (require(module) as { readonly javascript: string }).javascript
  } finally {
    delete require.cache[module]
  }
}

// As @effect/platform's internal html module escapes, so that the page is the one its layer serves.
const escapeText = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
const escapeAttribute = (s: string) => escapeText(s).replace(/"/g, "&quot;").replace(/'/g, "&#39;")
const escapeJson = (value: unknown) =>
  JSON.stringify(value).replace(/</g, "\\u003c").replace(/[\u2028\u2029]/g, (c) => c === "\u2028" ? "\\u2028" : "\\u2029")

/** `/api/v1/openapi.json` (OpenAPI 3.1) and `/docs` (Scalar, inlined and without web fonts: works offline). */
export const DocsRoutes = Layer.mergeAll(
  HttpApiBuilder.middlewareOpenApi({ path: "/api/v1/openapi.json" }),
  HttpApiBuilder.Router.use((router) =>
    Effect.gen(function*() {
      const { api } = yield* HttpApi.Api
      let page: HttpServerResponse.HttpServerResponse | undefined
      yield* router.get("/docs", Effect.sync(() => (page ??= scalarPage(api))))
    })
  )
)
