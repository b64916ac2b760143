/**
 * `/metrics` of `fils serve` on PostgreSQL, read by a real Prometheus text-format parser: the process and
 * runtime series operators expect (CPU seconds, resident memory, heap, event-loop lag, GC pauses, open handles) and
 * the database pool's connections, beside Fils' own series, each with its type.
 */
import parse, { type Family } from "parse-prometheus-text-format"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Served, serveFils } from "../support/cli.js"
import { type TestDatabase, testDatabase } from "../support/load.js"

let db: TestDatabase
let served: Served

beforeAll(async () => {
  db = await testDatabase()
  served = await serveFils({ DATABASE_URL: db.url, FILS_DATA_DIR: undefined }, 60_000)
}, 90_000)

afterAll(async () => {
  await served?.stop("SIGTERM")
  await db?.close()
})

const scrape = async (): Promise<Map<string, Family>> => {
  const res = await fetch(`${served.baseUrl}/metrics`)
  expect(res.status).toBe(200)
  expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/)
  return new Map(parse(await res.text()).map((f) => [f.name, f]))
}

const value = (family: Family | undefined, labels: Record<string, string> = {}) => {
  const found = family?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))
  return Number(found?.value)
}

describe("GET /metrics, parsed", () => {
  it("has the process, runtime and pool series with their types, and they move", async () => {
    const key = /Test key\s+(sk_test_\S+)/.exec(served.stdout())![1]!
    // Some work: requests that allocate (and so collect garbage) and use the pool.
    await Promise.all(Array.from({ length: 200 }, (_, i) =>
      fetch(`${served.baseUrl}/api/v1/products?limit=100&n=${i}`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.text())))
    const first = await scrape()
    const types: Record<string, Family["type"]> = {
      process_cpu_seconds_total: "COUNTER",
      process_cpu_user_seconds_total: "COUNTER",
      process_cpu_system_seconds_total: "COUNTER",
      process_resident_memory_bytes: "GAUGE",
      process_start_time_seconds: "GAUGE",
      nodejs_heap_size_total_bytes: "GAUGE",
      nodejs_heap_size_used_bytes: "GAUGE",
      nodejs_external_memory_bytes: "GAUGE",
      nodejs_eventloop_lag_mean_seconds: "GAUGE",
      nodejs_eventloop_lag_p99_seconds: "GAUGE",
      nodejs_eventloop_lag_max_seconds: "GAUGE",
      nodejs_active_handles_total: "GAUGE",
      nodejs_active_resources: "GAUGE",
      nodejs_gc_duration_seconds: "HISTOGRAM",
      fils_db_pool_connections: "GAUGE",
      fils_db_pool_waiting: "GAUGE",
      fils_db_pool_max: "GAUGE",
      fils_store_up: "GAUGE",
      fils_deliveries: "GAUGE",
      fils_http_requests_total: "COUNTER",
      fils_http_request_duration_seconds: "HISTOGRAM"
    }
    for (const [name, type] of Object.entries(types)) {
      expect(first.get(name)?.type, name).toBe(type)
      expect(first.get(name)?.metrics.length, name).toBeGreaterThan(0)
    }
    expect(value(first.get("process_resident_memory_bytes"))).toBeGreaterThan(20_000_000)
    expect(value(first.get("nodejs_heap_size_used_bytes"))).toBeGreaterThan(1_000_000)
    expect(value(first.get("nodejs_heap_size_used_bytes"))).toBeLessThanOrEqual(value(first.get("nodejs_heap_size_total_bytes")))
    expect(value(first.get("nodejs_active_handles_total"))).toBeGreaterThan(0)
    expect(Math.abs(value(first.get("process_start_time_seconds")) - Date.now() / 1000)).toBeLessThan(600)
    expect(value(first.get("fils_db_pool_max"))).toBe(10)
    const connections = value(first.get("fils_db_pool_connections"), { state: "idle" }) + value(first.get("fils_db_pool_connections"), { state: "in_use" })
    expect(connections).toBeGreaterThanOrEqual(1)
    expect(connections).toBeLessThanOrEqual(10)
    expect(value(first.get("fils_store_up"))).toBe(1)
    const gc = first.get("nodejs_gc_duration_seconds")!.metrics
    expect(gc.some((m) => Number(m.buckets?.["+Inf"]) > 0)).toBe(true)

    // CPU time only grows.
    const cpu = value(first.get("process_cpu_seconds_total"))
    await Promise.all(Array.from({ length: 100 }, () => fetch(`${served.baseUrl}/api/v1/account`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.text())))
    const second = await scrape()
    expect(value(second.get("process_cpu_seconds_total"))).toBeGreaterThan(cpu)
  }, 60_000)
})
