/**
 * A paced load: `rate` requests per second, each sent at its own moment (every 1/rate s) over up to `connections`
 * keep-alive connections, whether or not earlier ones were answered. The latency of a request runs from the moment
 * it was due, not from when a free connection sent it, so a stalled server shows in the figures instead of
 * slowing the load down (what wrk2 calls coordinated omission).
 *
 * Why not autocannon's `overallRate`: it gives each connection a quota per second and sends the quota at once
 * when the second starts, so "1,000 req/s" arrives as one burst of 1,000 requests a second. Its p99 is the time to
 * drain that burst: on the benchmark's machine even the bare baseline measured 45 ms that way.
 */
import { Agent, request as httpRequest } from "node:http"
import { monitorEventLoopDelay } from "node:perf_hooks"

export interface PacedRequest {
  readonly method: string
  /** Required unless `setupRequest` gives it. */
  readonly path?: string | undefined
  readonly body?: string | undefined
  readonly headers?: Record<string, string> | undefined
  /** As autocannon's: given the request, returns the one to send (a new path, an idempotency key). */
  readonly setupRequest?: ((request: any) => any) | undefined
}

export interface PacedOptions {
  readonly url: string
  readonly headers: Record<string, string>
  readonly request: PacedRequest
  readonly rate: number
  readonly seconds: number
  readonly connections: number
}

export interface PacedFigures {
  /** Answered requests per second. */
  readonly rps: number
  readonly p50: number
  readonly p99: number
  readonly requests: number
  /** Non-2xx answers and transport errors. */
  readonly failed: number
  /**
   * The load generator's own event-loop delay (p99 and worst, ms): a request the generator itself was too busy to
   * send or to read counts as the server's latency, so a p99 near these figures measured the generator.
   */
  readonly generatorDelayP99: number
  readonly generatorDelayMax: number
}

/** The value at quantile `q` of sorted `values`, in milliseconds rounded to 0.1. */
const quantile = (values: Float64Array, q: number) =>
  values.length === 0 ? 0 : Math.round(values[Math.min(values.length - 1, Math.floor(q * values.length))]! * 10) / 10

export const paced = (options: PacedOptions): Promise<PacedFigures> =>
  new Promise((resolve) => {
    const agent = new Agent({ keepAlive: true, maxSockets: options.connections })
    const target = new URL(options.url)
    const total = Math.round(options.rate * options.seconds)
    const latencies = new Float64Array(total)
    let sent = 0
    let answered = 0
    let failed = 0
    const started = performance.now()
    const delay = monitorEventLoopDelay({ resolution: 1 })
    delay.enable()

    let finished = false
    const finish = (force = false) => {
      if (finished || (answered < total && !force)) return
      finished = true
      clearInterval(ticker)
      clearTimeout(deadline)
      agent.destroy()
      delay.disable()
      const sorted = latencies.slice(0, answered).sort()
      resolve({
        rps: answered / ((performance.now() - started) / 1000),
        p50: quantile(sorted, 0.5),
        p99: quantile(sorted, 0.99),
        requests: answered,
        // Whatever was never answered by the deadline failed too.
        failed: failed + (total - answered),
        generatorDelayP99: Math.round(delay.percentile(99) / 1e5) / 10,
        generatorDelayMax: Math.round(delay.max / 1e5) / 10
      })
    }
    // Bounded: requests still unanswered 30 s after the last one fell due end the run.
    const deadline = setTimeout(() => finish(true), options.seconds * 1000 + 30_000)

    const send = (due: number) => {
      const base = { ...options.request, headers: { ...options.headers, ...options.request.headers } }
      const r = options.request.setupRequest === undefined ? base : options.request.setupRequest(base)
      const done = (ok: boolean) => {
        if (finished) return
        latencies[answered++] = performance.now() - due
        if (!ok) failed++
        finish()
      }
      const req = httpRequest({
        agent,
        host: target.hostname,
        port: target.port,
        method: r.method,
        path: r.path,
        headers: r.body === undefined ? r.headers : { ...r.headers, "content-length": Buffer.byteLength(r.body) }
      }, (res) => {
        res.resume()
        res.on("end", () => done(res.statusCode !== undefined && res.statusCode >= 200 && res.statusCode < 300))
        res.on("error", () => done(false))
      })
      req.on("error", () => done(false))
      req.end(r.body)
    }

    // Every millisecond, send whatever fell due since the last tick, each stamped with its own due time.
    const ticker = setInterval(() => {
      const now = performance.now()
      while (sent < total) {
        const due = started + (sent * 1000) / options.rate
        if (due > now) break
        sent++
        send(due)
      }
    }, 1)
  })
