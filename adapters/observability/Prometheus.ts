/**
 * The Prometheus text exposition format (version 0.0.4), rendered from Effect's metric snapshot and the store's
 * counts. Request metrics are this process's own (each process is scraped on its own, as usual); delivery and
 * billing figures come from the shared store, so they are right whichever process answers.
 */
import { Metric, MetricState, Option } from "effect"
import type { MetricPair } from "effect"
import { droppedName } from "../../src/application/RequestLogs.js"
import type { StoreStats } from "../../src/ports/Store.js"
import { requestDurationName, requestsTotalName } from "./HttpMetrics.js"
import { formatLabels, formatValue, header, type Labels, sample } from "./PrometheusText.js"

export { contentType } from "./PrometheusText.js"

const byLabels = (a: { readonly labels: Labels }, b: { readonly labels: Labels }) => {
  const ka = formatLabels(a.labels)
  const kb = formatLabels(b.labels)
  return ka < kb ? -1 : ka > kb ? 1 : 0
}

const labelsOf = (pair: MetricPair.MetricPair.Untyped): Labels => pair.metricKey.tags.map((t) => [t.key, t.value] as const)

/** The request counter and histogram of this process, one series per (route, method, status) seen. */
export const renderRequestMetrics = (pairs: ReadonlyArray<MetricPair.MetricPair.Untyped>): Array<string> => {
  const lines: Array<string> = []
  const counters = pairs
    .filter((p) => p.metricKey.name === requestsTotalName && MetricState.isCounterState(p.metricState))
    .map((p) => ({ labels: labelsOf(p), state: p.metricState as MetricState.MetricState.Counter<number> }))
    .sort(byLabels)
  lines.push(...header(requestsTotalName, "counter", "HTTP requests answered, by route template, method and status."))
  for (const { labels, state } of counters) lines.push(sample(requestsTotalName, labels, state.count))

  const histograms = pairs
    .filter((p) => p.metricKey.name === requestDurationName && MetricState.isHistogramState(p.metricState))
    .map((p) => ({ labels: labelsOf(p), state: p.metricState as MetricState.MetricState.Histogram }))
    .sort(byLabels)
  lines.push(...header(
    requestDurationName,
    "histogram",
    "Time to answer an HTTP request (until the response starts), in seconds, by route template, method and status."
  ))
  for (const { labels, state } of histograms) {
    // Effect's buckets are already cumulative and end with +Inf.
    for (const [le, count] of state.buckets) {
      lines.push(sample(`${requestDurationName}_bucket`, [...labels, ["le", formatValue(le)]], count))
    }
    lines.push(sample(`${requestDurationName}_sum`, labels, state.sum))
    lines.push(sample(`${requestDurationName}_count`, labels, state.count))
  }
  return lines
}

const deliveryStatuses = ["pending", "succeeded", "failed", "cancelled"] as const
const modes = [false, true] as const
const modeLabel = (livemode: boolean) => (livemode ? "live" : "test")

/**
 * Renewal outcomes: a succeeded charge stays `succeeded` when it is later refunded; `processing` ones have no outcome
 * yet and are a gauge of their own (an outcome counter must never go down).
 */
const outcomeOf = (status: string): "succeeded" | "failed" | "processing" =>
  status === "failed" ? "failed" : status === "processing" ? "processing" : "succeeded"

/** Delivery and billing figures of the whole store; every series is present, zeros included. */
export const renderStoreStats = (stats: StoreStats): Array<string> => {
  const lines: Array<string> = []
  lines.push(...header("fils_deliveries", "gauge", "Webhook deliveries in the store now, by status and mode."))
  for (const status of deliveryStatuses) {
    for (const livemode of modes) {
      const count = stats.deliveries
        .filter((d) => d.status === status && d.livemode === livemode)
        .reduce((n, d) => n + d.count, 0)
      lines.push(sample("fils_deliveries", [["status", status], ["mode", modeLabel(livemode)]], count))
    }
  }
  const renewals = (outcome: string, livemode: boolean) =>
    stats.renewals
      .filter((r) => outcomeOf(r.status) === outcome && r.livemode === livemode)
      .reduce((n, r) => n + r.count, 0)
  lines.push(...header(
    "fils_billing_outcomes_total",
    "counter",
    "Subscription renewal charges (renewals and their retries) with an outcome, by outcome and mode."
  ))
  for (const outcome of ["succeeded", "failed"] as const) {
    for (const livemode of modes) {
      lines.push(sample("fils_billing_outcomes_total", [["outcome", outcome], ["mode", modeLabel(livemode)]], renewals(outcome, livemode)))
    }
  }
  lines.push(...header("fils_billing_processing", "gauge", "Subscription renewal charges still processing, by mode."))
  for (const livemode of modes) {
    lines.push(sample("fils_billing_processing", [["mode", modeLabel(livemode)]], renewals("processing", livemode)))
  }
  return lines
}

/** The connection pool of this process (each process has its own). */
export const renderPool = (pool: { readonly inUse: number; readonly idle: number; readonly waiting: number; readonly max: number }): Array<string> => [
  ...header("fils_db_pool_connections", "gauge", "This process's database connections, by state (in_use, idle)."),
  sample("fils_db_pool_connections", [["state", "idle"]], pool.idle),
  sample("fils_db_pool_connections", [["state", "in_use"]], pool.inUse),
  ...header("fils_db_pool_waiting", "gauge", "Queries waiting for a free database connection."),
  sample("fils_db_pool_waiting", [], pool.waiting),
  ...header("fils_db_pool_max", "gauge", "The most database connections this process opens."),
  sample("fils_db_pool_max", [], pool.max)
]

/** Request log lines this process dropped rather than slow its requests (docs/operations.md). */
export const renderRequestLogDrops = (pairs: ReadonlyArray<MetricPair.MetricPair.Untyped>): Array<string> => {
  const found = pairs.find((p) => p.metricKey.name === droppedName && MetricState.isCounterState(p.metricState))
  const count = found === undefined ? 0 : (found.metricState as MetricState.MetricState.Counter<number>).count
  return [
    ...header(droppedName, "counter", "API request log lines dropped: the buffer was full (the database fell behind) or their write failed."),
    sample(droppedName, [], count)
  ]
}

/** The whole page: the store's figures (when it answered), the pool's, and this process's request metrics. */
export const render = (
  pairs: ReadonlyArray<MetricPair.MetricPair.Untyped>,
  stats: Option.Option<StoreStats>,
  pool: Option.Option<Parameters<typeof renderPool>[0]> = Option.none()
): string =>
  [
    ...(Option.isSome(stats) ? renderStoreStats(stats.value) : []),
    ...header("fils_store_up", "gauge", "Whether the store answered this scrape (1) or not (0)."),
    sample("fils_store_up", [], Option.isSome(stats) ? 1 : 0),
    ...(Option.isSome(pool) ? renderPool(pool.value) : []),
    ...renderRequestMetrics(pairs),
    ...renderRequestLogDrops(pairs)
  ].join("\n") + "\n"

/** This process's metric registry (the request metrics live there). */
export const snapshot = Metric.snapshot
