/**
 * `GET /metrics`: Prometheus text. Unauthenticated like `/health` (an operator's scraper has no API key); it shows
 * counts only, never merchant data, and can be kept off the public internet by the proxy in front.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Duration, Effect } from "effect"
import * as Prometheus from "../observability/Prometheus.js"
import { Store } from "../../src/ports/Store.js"

/** A scrape answers even when the store does not (with `fils_store_up 0`). */
const statsTimeout = Duration.seconds(3)

export const MetricsRoutes = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const store = yield* Store
    yield* router.get(
      "/metrics",
      Effect.gen(function*() {
        const stats = yield* store.stats.pipe(Effect.timeout(statsTimeout), Effect.option)
        const pairs = yield* Prometheus.snapshot
        return HttpServerResponse.text(Prometheus.render(pairs, stats), { contentType: Prometheus.contentType })
      })
    )
  })
)
