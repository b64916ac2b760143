/**
 * Request metrics, as Effect `Metric`s in the process's registry: a counter and a latency histogram, both by route
 * template (never the raw URL, so the number of series stays bounded), method and status.
 */
import { Metric, MetricBoundaries, MetricKey, MetricLabel } from "effect"

export const requestsTotalName = "fils_http_requests_total"
export const requestDurationName = "fils_http_request_duration_seconds"

/** Seconds; Prometheus' usual web latency buckets, plus `+Inf` (added by Effect). */
export const durationBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const

const requestsTotalKey = MetricKey.counter(requestsTotalName, {
  description: "HTTP requests answered, by route template, method and status.",
  incremental: true
})

const requestDurationKey = MetricKey.histogram(
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
 * The counter and histogram of one label set, made once from their full keys: such a metric finds its registry
 * entry once and keeps it. (`Metric.taggedWithLabels` looks it up again on every update, building and hashing a
 * new key each time.) Routes are templates, so the label sets are few.
 */
const tagged = new Map<string, {
  readonly count: Metric.Metric.Counter<number>
  readonly duration: Metric.Metric.Histogram<number>
}>()

const metricsFor = (route: string, method: string, status: number) => {
  const key = `${method} ${status} ${route}`
  let found = tagged.get(key)
  if (found === undefined) {
    const labels = [
      MetricLabel.make("route", route),
      MetricLabel.make("method", method),
      MetricLabel.make("status", String(status))
    ]
    found = {
      count: Metric.fromMetricKey(MetricKey.taggedWithLabels(requestsTotalKey, labels)),
      duration: Metric.fromMetricKey(MetricKey.taggedWithLabels(requestDurationKey, labels))
    }
    tagged.set(key, found)
  }
  return found
}

/** Counts one answered request and its duration, at once (the caller is already inside an effect). */
export const unsafeRecordRequest = ({ method, route, seconds, status }: RequestSample): void => {
  const metrics = metricsFor(route, method, status)
  metrics.count.unsafeUpdate(1, [])
  metrics.duration.unsafeUpdate(seconds, [])
}
