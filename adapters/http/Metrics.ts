/**
 * `GET /metrics`: Prometheus text. Unauthenticated like `/health` (an operator's scraper has no API key); it shows
 * counts only, never merchant data, and can be kept off the public internet by the proxy in front.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Duration, Effect, Option } from "effect"
import { renderProcessMetrics, startSampling } from "../observability/ProcessMetrics.js"
import { DbPool } from "../sql/Postgres.js"
import * as Prometheus from "../observability/Prometheus.js"
import { Store } from "../../src/ports/Store.js"

/** A scrape answers even when the store does not (with `fils_store_up 0`). */
const statsTimeout = Duration.seconds(3)

export const MetricsRoutes = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const store = yield* Store
    // The SQL store's pool, when there is one (an embedding team's memory store has none).
    const pool = yield* Effect.serviceOption(DbPool)
    startSampling()
    yield* router.get(
      "/metrics",
      Effect.gen(function*() {
        const stats = yield* store.stats.pipe(Effect.timeout(statsTimeout), Effect.option)
        const pairs = yield* Prometheus.snapshot
        const page = Prometheus.render(pairs, stats, Option.map(pool, (p) => p.stats())) + renderProcessMetrics().join("\n") + "\n"
        return HttpServerResponse.text(page, { contentType: Prometheus.contentType })
      })
    )
  })
)
