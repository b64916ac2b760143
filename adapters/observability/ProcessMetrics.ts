/**
 * The process and runtime series operators expect from a Node service, under the names `prom-client` (and so most
 * dashboards) use: CPU seconds, resident memory, heap, event-loop lag, garbage collection, open handles. Read at
 * scrape time, from Node's own counters; the event-loop delay and GC pauses are sampled from the first call on.
 */
import { constants, monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks"
import { header, sample } from "./PrometheusText.js"

/** GC pause buckets, in seconds (prom-client's). */
const gcBuckets = [0.001, 0.01, 0.1, 1, 2, 5] as const

const gcKinds: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MAJOR]: "major",
  [constants.NODE_PERFORMANCE_GC_MINOR]: "minor",
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: "incremental",
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: "weakcb"
}

interface GcHistogram {
  readonly counts: Array<number>
  count: number
  sum: number
}

let sampling: { readonly lag: ReturnType<typeof monitorEventLoopDelay>; readonly gc: Map<string, GcHistogram> } | undefined

/** Starts the samplers once per process (they cost next to nothing). */
const samplers = () => {
  if (sampling !== undefined) return sampling
  const lag = monitorEventLoopDelay({ resolution: 10 })
  lag.enable()
  const gc = new Map<string, GcHistogram>()
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = gcKinds[(entry as { detail?: { kind?: number } }).detail?.kind ?? -1] ?? "other"
      const seconds = entry.duration / 1000
      const h = gc.get(kind) ?? { counts: gcBuckets.map(() => 0), count: 0, sum: 0 }
      gcBuckets.forEach((le, i) => {
        if (seconds <= le) h.counts[i]!++
      })
      h.count++
      h.sum += seconds
      gc.set(kind, h)
    }
  })
  observer.observe({ entryTypes: ["gc"] })
  sampling = { lag, gc }
  return sampling
}

/** Starts sampling now (at server start), so that the first scrape already has event-loop and GC figures. */
export const startSampling = (): void => void samplers()

export const renderProcessMetrics = (): Array<string> => {
  const { gc, lag } = samplers()
  const cpu = process.cpuUsage()
  const memory = process.memoryUsage()
  const resources = process.getActiveResourcesInfo()
  const byType = new Map<string, number>()
  for (const r of resources) byType.set(r, (byType.get(r) ?? 0) + 1)
  const seconds = (nanos: number) => (Number.isFinite(nanos) ? nanos / 1e9 : 0)
  const lines = [
    ...header("process_cpu_user_seconds_total", "counter", "User CPU time spent, in seconds."),
    sample("process_cpu_user_seconds_total", [], cpu.user / 1e6),
    ...header("process_cpu_system_seconds_total", "counter", "System CPU time spent, in seconds."),
    sample("process_cpu_system_seconds_total", [], cpu.system / 1e6),
    ...header("process_cpu_seconds_total", "counter", "User and system CPU time spent, in seconds."),
    sample("process_cpu_seconds_total", [], (cpu.user + cpu.system) / 1e6),
    ...header("process_resident_memory_bytes", "gauge", "Resident memory size, in bytes."),
    sample("process_resident_memory_bytes", [], memory.rss),
    ...header("process_start_time_seconds", "gauge", "When the process started, in seconds since the Unix epoch."),
    sample("process_start_time_seconds", [], Math.round((Date.now() - process.uptime() * 1000) / 1000)),
    ...header("nodejs_heap_size_total_bytes", "gauge", "V8 heap size, in bytes."),
    sample("nodejs_heap_size_total_bytes", [], memory.heapTotal),
    ...header("nodejs_heap_size_used_bytes", "gauge", "V8 heap used, in bytes."),
    sample("nodejs_heap_size_used_bytes", [], memory.heapUsed),
    ...header("nodejs_external_memory_bytes", "gauge", "Memory of C++ objects bound to JavaScript, in bytes."),
    sample("nodejs_external_memory_bytes", [], memory.external),
    ...header("nodejs_eventloop_lag_mean_seconds", "gauge", "Mean event-loop delay since the process started sampling, in seconds."),
    sample("nodejs_eventloop_lag_mean_seconds", [], seconds(lag.mean)),
    ...header("nodejs_eventloop_lag_p99_seconds", "gauge", "99th percentile of the event-loop delay, in seconds."),
    sample("nodejs_eventloop_lag_p99_seconds", [], seconds(lag.percentile(99))),
    ...header("nodejs_eventloop_lag_max_seconds", "gauge", "Longest event-loop delay seen, in seconds."),
    sample("nodejs_eventloop_lag_max_seconds", [], seconds(lag.max)),
    ...header("nodejs_active_handles_total", "gauge", "Open handles and requests keeping the event loop alive (sockets, timers, files)."),
    sample("nodejs_active_handles_total", [], resources.length),
    ...header("nodejs_active_resources", "gauge", "Open handles and requests, by type."),
    ...[...byType].sort(([a], [b]) => (a < b ? -1 : 1)).map(([type, n]) => sample("nodejs_active_resources", [["type", type]], n)),
    ...header("nodejs_gc_duration_seconds", "histogram", "Garbage collection pauses, in seconds, by kind.")
  ]
  for (const [kind, h] of [...gc].sort(([a], [b]) => (a < b ? -1 : 1))) {
    gcBuckets.forEach((le, i) => lines.push(sample("nodejs_gc_duration_seconds_bucket", [["kind", kind], ["le", String(le)]], h.counts[i]!)))
    lines.push(sample("nodejs_gc_duration_seconds_bucket", [["kind", kind], ["le", "+Inf"]], h.count))
    lines.push(sample("nodejs_gc_duration_seconds_sum", [["kind", kind]], h.sum))
    lines.push(sample("nodejs_gc_duration_seconds_count", [["kind", kind]], h.count))
  }
  return lines
}
