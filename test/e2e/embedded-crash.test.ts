/**
 * The embedded PostgreSQL never outlives the process that owns it for good: `fils serve` on its own data
 * folder is killed with SIGKILL (its postgres keeps running, as nothing can run in a process killed so); the next
 * `fils serve` adopts that postgres, and on SIGTERM stops it with itself: no PostgreSQL process is left on the data
 * folder, and nothing written before the crash is lost. An operator command run beside a live server leaves the
 * server's database running.
 *
 * And the restart race: after a kill -9, an operator command finds the orphaned postgres first, a new `fils serve`
 * joins it at once, and the command exits while the server starts. The server comes up and stays up: no process
 * stops a PostgreSQL another live process uses. The migrator's table lock, held by the test, parks the command and
 * then the server inside their start-up, so the order is the reported one on every run.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import pg from "pg"
import { afterAll, describe, expect, it } from "vitest"
import { type CliResult, runFils, type Served, serveFils, stopOrphanedPostgres } from "../support/cli.js"
import { delay, ok, waitFor } from "../support/load.js"

const dataDir = mkdtempSync(join(tmpdir(), "fils-crash-hygiene-"))
const raceDir = mkdtempSync(join(tmpdir(), "fils-restart-race-"))
const env = { FILS_DATA_DIR: dataDir, DATABASE_URL: undefined }
const servers: Array<Served> = []

/** Every live process whose command line names the data folder's cluster (postgres and its workers). */
const postgresOnFolder = (folder = dataDir): Array<number> => {
  const pgDir = resolve(folder, "pg")
  return readdirSync("/proc").filter((d) => /^[0-9]+$/.test(d)).filter((pid) => {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8")
      return cmdline.includes("postgres") && cmdline.split("\0").includes(pgDir)
    } catch {
      return false
    }
  }).map(Number)
}

afterAll(async () => {
  for (const server of servers) await server.stop("SIGKILL").catch(() => undefined)
  for (const dir of [dataDir, raceDir]) {
    await stopOrphanedPostgres(dir)
    rmSync(dir, { recursive: true, force: true })
  }
})

describe("crash hygiene of the embedded database", () => {
  it("kill -9, restart, SIGTERM: no PostgreSQL left on the data folder, no data lost; a guest leaves the owner's running", async () => {
    const first = await serveFils(env, 90_000)
    const key = /Test key\s+(sk_test_\S+)/.exec(first.stdout())![1]!
    const product = await ok(first.baseUrl, key, "POST", "/products", { name: "Before the crash", price: 1200, currency: "AED" })
    // A guest beside the live owner: it leaves the server's database running.
    const guest = await runFils(["accounts", "create", "--name", "Guest shop"], env)
    expect(guest.code, guest.stderr).toBe(0)
    expect(postgresOnFolder().length).toBeGreaterThan(0)
    expect((await fetch(`${first.baseUrl}/ready`)).status).toBe(200)

    await first.stop("SIGKILL")
    expect(postgresOnFolder().length, "postgres outlives a SIGKILL (nothing runs in a killed process)").toBeGreaterThan(0)

    const second = await serveFils(env, 90_000)
    expect(second.stdout()).toContain("Adopted the embedded PostgreSQL left running by a process that died")
    expect(await ok(second.baseUrl, key, "GET", `/products/${product.product_id}`)).toMatchObject({ name: "Before the crash" })
    expect(await second.stop("SIGTERM")).toBe(0)
    expect(postgresOnFolder(), "no postgres left after a clean exit").toEqual([])

    // And the data is all there on the next start, which starts (not adopts) its own.
    const third = await serveFils(env, 90_000)
    expect(third.stdout()).toContain("Started the embedded PostgreSQL")
    expect(await ok(third.baseUrl, key, "GET", `/products/${product.product_id}`)).toMatchObject({ name: "Before the crash" })
    const accounts = await runFils(["accounts", "create", "--name", "Another"], env)
    expect(accounts.code).toBe(0)
    expect(await third.stop("SIGTERM")).toBe(0)
    expect(postgresOnFolder()).toEqual([])
  }, 240_000)

  it("kill -9, a CLI command on the orphan, a server at once: the server comes up and stays up after the command exits", async () => {
    const raceEnv = { FILS_DATA_DIR: raceDir, DATABASE_URL: undefined }
    const first = await serveFils(raceEnv, 90_000)
    servers.push(first)
    const key = /Test key\s+(sk_test_\S+)/.exec(first.stdout())![1]!
    const product = await ok(first.baseUrl, key, "POST", "/products", { name: "Before the crash", price: 1200, currency: "AED" })
    await first.stop("SIGKILL")
    expect(postgresOnFolder(raceDir).length, "postgres outlives a SIGKILL").toBeGreaterThan(0)

    // The migrator's table lock, taken on the orphaned postgres: whoever starts now waits inside its start-up.
    const port = Number(readFileSync(join(raceDir, "pg", "postmaster.pid"), "utf8").split("\n")[3])
    const password = readFileSync(join(raceDir, "pg-password"), "utf8").trim()
    const connect = async () => {
      const client = new pg.Client({ host: "127.0.0.1", port, user: "postgres", password, database: "fils" })
      client.on("error", () => undefined) // ended by the postgres shutdown when a test fails
      await client.connect()
      return client
    }
    const holder = await connect()
    await holder.query("BEGIN")
    await holder.query("LOCK TABLE effect_sql_migrations IN ACCESS EXCLUSIVE MODE")
    // Another connection watches: a transaction sees pg_stat_activity as it was at its first look.
    const watcher = await connect()
    let ran: CliResult | undefined
    const parked = (n: number) =>
      waitFor(`${n} process(es) waiting on the migrator's lock`, async () => {
        const { rows } = await watcher.query(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'fils' AND wait_event_type = 'Lock'"
        )
        return rows[0].n >= n
      }, 150_000, () => ({ exited: ran }))

    // The command finds the orphan first; the new server joins it while the command still runs.
    const command = runFils(["accounts", "create", "--name", "Beside the restart"], raceEnv).then((r) => (ran = r))
    await parked(1)
    const starting = serveFils(raceEnv, 180_000)
    starting.catch(() => undefined) // awaited below; a failure is the test's answer
    await parked(2)
    await holder.query("COMMIT")
    await Promise.all([holder.end(), watcher.end()])

    const done = await command
    expect(done.code, done.stderr).toBe(0)
    const second = await starting
    servers.push(second)
    // Up after the command exited, and still up a moment later: its database was left running.
    await delay(1_000)
    expect(second.child.exitCode, second.stderr()).toBeNull()
    expect((await fetch(`${second.baseUrl}/ready`)).status).toBe(200)
    expect(await ok(second.baseUrl, key, "GET", `/products/${product.product_id}`)).toMatchObject({ name: "Before the crash" })
    // The server, the last process using it, stops it.
    expect(await second.stop("SIGTERM")).toBe(0)
    expect(postgresOnFolder(raceDir)).toEqual([])
  }, 480_000)
})
