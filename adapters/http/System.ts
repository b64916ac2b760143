/** Routes outside the API contract: liveness, readiness, the OpenAPI document and the offline reference. */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApiScalar from "@effect/platform/HttpApiScalar"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, Layer } from "effect"
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

/** `/api/v1/openapi.json` (OpenAPI 3.1) and `/docs` (Scalar, inlined: works offline). */
export const DocsRoutes = Layer.mergeAll(
  HttpApiBuilder.middlewareOpenApi({ path: "/api/v1/openapi.json" }),
  HttpApiScalar.layer({ path: "/docs" })
)
