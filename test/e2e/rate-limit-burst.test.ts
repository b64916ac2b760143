/**
 * The per-key rate limit against real `fils serve` processes on one PostgreSQL, at the default 240 a minute
 * (docs/api.md: `429 RATE_LIMITED` for more than 240 requests a minute with one key):
 *
 *   - a fresh key's burst of 300 at once to one server (after one request that puts the key in its key cache):
 *     exactly 240 accepted in all, the rest `429` with a `Retry-After` of 1 to 60 whole seconds;
 *   - the same spread over three servers: never more than 240 accepted, and once the servers' unused shares are
 *     given back, exactly 240 (a share a server took and did not hand out is not lost for the minute).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Agent, request } from "node:http"
import { join } from "node:path"
import { ensureOutputDir, type LoggedServer, serveFilsLogged } from "../support/browser.js"
import { runFils } from "../support/cli.js"
import { delay, type TestDatabase, testDatabase } from "../support/load.js"

const limit = 240
const output = ensureOutputDir()

let db: TestDatabase
const servers: Array<LoggedServer> = []
let env: Record<string, string | undefined> = {}

interface Answer {
  readonly status: number
  readonly retryAfter: string | null
  /** `RateLimit-Limit`: set once the rate limit decided (so on a 503 of the handler after it, too). */
  readonly limit: string | null
  readonly code: unknown
}

/**
 * Whether the rate limit let the request through. On a machine this busy, a request let through may still find no
 * free database connection in its handler (`503`); it was admitted all the same.
 */
const admitted = (a: Answer) => a.status !== 429 && a.limit === String(limit)

// Connections opened before a burst (`warm`) and kept: the burst's requests then reach the server together instead
// of one connection setup apart.
const agent = new Agent({ keepAlive: true, maxSockets: 400 })

const get = (baseUrl: string, path: string, key?: string) =>
  new Promise<Answer>((resolve, reject) => {
    const url = new URL(baseUrl)
    const req = request({
      agent,
      host: url.hostname,
      port: url.port,
      path,
      timeout: 30_000,
      headers: key === undefined ? {} : { authorization: `Bearer ${key}` }
    }, (res) => {
      let text = ""
      res.setEncoding("utf8")
      res.on("data", (chunk) => (text += chunk))
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          retryAfter: typeof res.headers["retry-after"] === "string" ? res.headers["retry-after"] : null,
          limit: typeof res.headers["ratelimit-limit"] === "string" ? res.headers["ratelimit-limit"] : null,
          code: (JSON.parse(text) as { code?: unknown }).code
        }))
    })
    req.on("error", reject)
    req.end()
  })

const warm = (baseUrl: string, connections: number) =>
  Promise.all(Array.from({ length: connections }, () => get(baseUrl, "/health")))

/** `n` requests of `key` sent at once, the `i`-th to `targets[i % targets.length]`. */
const burst = (targets: ReadonlyArray<LoggedServer>, key: string, n: number) =>
  Promise.all(Array.from({ length: n }, (_, i) => get(targets[i % targets.length]!.baseUrl, "/api/v1/account", key)))

/** A new account's test key: a key nothing has counted yet. */
const freshKey = async (): Promise<string> => {
  const made = await runFils(["accounts", "create", "--name", `Burst ${Date.now()}`], env)
  expect(made.code, made.stderr).toBe(0)
  return JSON.parse(made.stdout).keys.test.secret
}

const expectRefusals = (answers: ReadonlyArray<Answer>) => {
  expect(answers.filter((a) => a.status !== 429 && !admitted(a)), "each one admitted or refused").toEqual([])
  for (const a of answers.filter((a) => a.status === 429)) {
    expect(a.code).toBe("RATE_LIMITED")
    expect(a.retryAfter).toMatch(/^\d+$/)
    expect(Number(a.retryAfter)).toBeGreaterThanOrEqual(1)
    expect(Number(a.retryAfter)).toBeLessThanOrEqual(60)
  }
}

beforeAll(async () => {
  db = await testDatabase()
  env = {
    DATABASE_URL: db.url,
    FILS_DATA_DIR: undefined,
    FILS_RATE_LIMIT_PER_MIN: undefined,
    // A key looked up once stays cached through a test: the bursts measure the rate limit, not 300 key lookups.
    FILS_KEY_CACHE_TTL: "60 seconds",
    FILS_SIMULATED_LIVE: undefined
  }
  servers.push(await serveFilsLogged({ env, logFile: join(output, "burst-0.log"), timeoutMs: 60_000 }))
  servers.push(...await Promise.all([1, 2].map((n) =>
    serveFilsLogged({ env, logFile: join(output, `burst-${n}.log`), timeoutMs: 60_000 }))))
}, 120_000)

afterAll(async () => {
  agent.destroy()
  await Promise.all(servers.map((s) => s.stop("SIGKILL", 5_000).catch(() => undefined)))
  await db?.close()
}, 30_000)

describe("the per-key rate limit under a burst (240 a minute)", () => {
  it("accepts exactly 240 of a fresh key's 300 requests sent at once to one server", async () => {
    const key = await freshKey()
    await warm(servers[0]!.baseUrl, 300)
    const started = Date.now()
    // One request first, so that the burst finds the key in the server's key cache rather than 300 lookups at once.
    expect(admitted((await burst([servers[0]!], key, 1))[0]!)).toBe(true)
    const answers = await burst([servers[0]!], key, 300)
    expect(Date.now() - started, "the burst fits in one window").toBeLessThan(50_000)
    expectRefusals(answers)
    console.info(`burst on one server: ${answers.filter(admitted).length} of 300 in ${Date.now() - started} ms`)
    expect(1 + answers.filter(admitted).length).toBe(limit)
  }, 60_000)

  it("over three servers: never more than 240, and 240 once unused shares are given back", async () => {
    const key = await freshKey()
    await Promise.all(servers.map((s) => warm(s.baseUrl, 100)))
    const started = Date.now()
    const looked = await burst(servers, key, 3) // the key into each server's key cache, as above
    expect(looked.map(admitted)).toEqual([true, true, true])
    const answers = await burst(servers, key, 300)
    expectRefusals(answers)
    const first = 3 + answers.filter(admitted).length
    console.info(`burst on three servers: ${first} of 300 in ${Date.now() - started} ms`)
    expect(first).toBeLessThanOrEqual(limit)
    // Past a server's lease period (a second), what it took and did not hand out is back in the store.
    await delay(2_500)
    const more = await burst(servers, key, 60)
    expectRefusals(more)
    expect(Date.now() - started, "all of it within one window").toBeLessThan(50_000)
    expect(first + more.filter(admitted).length, `${first} in the burst`).toBe(limit)
  }, 60_000)
})
