/**
 * Request metrics, as Effect `Metric`s in the process's registry: a counter and a latency histogram, both by route
 * template (never the raw URL, so the number of series stays bounded), method and status.
 */
import { Effect, Metric, MetricBoundaries, MetricLabel } from "effect"

export const requestsTotalName = "fils_http_requests_total"
export const requestDurationName = "fils_http_request_duration_seconds"

/** Seconds; Prometheus' usual web latency buckets, plus `+Inf` (added by Effect). */
export const durationBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const

export const requestsTotal = Metric.counter(requestsTotalName, {
  description: "HTTP requests answered, by route template, method and status.",
  incremental: true
})

export const requestDuration = Metric.histogram(
  requestDurationName,
  MetricBoundaries.fromIterable(durationBuckets),
  "Time to answer an HTTP request (until the response starts), in seconds, by route template, method and status."
)

export interface RequestSample {
  readonly route: string
  readonly method: string
  readonly status: number
  readonly seconds: number
}

/**
 * The counter and histogram of one label set, made once: tagging a metric builds and hashes a new key, which per
 * request would cost more than the update itself. Routes are templates, so the label sets are few.
 */
const tagged = new Map<string, { readonly count: Effect.Effect<void>; readonly observe: (seconds: number) => Effect.Effect<void> }>()

const metricsFor = (route: string, method: string, status: number) => {
  const key = `${method} ${status} ${route}`
  let found = tagged.get(key)
  if (found === undefined) {
    const labels = [
      MetricLabel.make("route", route),
      MetricLabel.make("method", method),
      MetricLabel.make("status", String(status))
    ]
    const duration = Metric.taggedWithLabels(requestDuration, labels)
    found = {
      count: Metric.increment(Metric.taggedWithLabels(requestsTotal, labels)),
      observe: (seconds) => Metric.update(duration, seconds)
    }
    tagged.set(key, found)
  }
  return found
}

/** Counts one answered request and its duration. */
export const recordRequest = ({ method, route, seconds, status }: RequestSample): Effect.Effect<void> => {
  const metrics = metricsFor(route, method, status)
  return Effect.zipRight(metrics.count, metrics.observe(seconds))
}
