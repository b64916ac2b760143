/**
 * The embedded PostgreSQL never outlives the process that owns it for good (issue 20): `fils serve` on its own data
 * folder is killed with SIGKILL (its postgres keeps running, as nothing can run in a process killed so); the next
 * `fils serve` adopts that postgres, and on SIGTERM stops it with itself: no PostgreSQL process is left on the data
 * folder, and nothing written before the crash is lost. An operator command run beside a live server stays a guest
 * and leaves the server's database running.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { runFils, serveFils, stopOrphanedPostgres } from "../support/cli.js"
import { ok } from "../support/load.js"

const dataDir = mkdtempSync(join(tmpdir(), "fils-crash-hygiene-"))
const pgDir = resolve(dataDir, "pg")
const env = { FILS_DATA_DIR: dataDir, DATABASE_URL: undefined }

/** Every live process whose command line names this data folder's cluster (postgres and its workers). */
const postgresOnFolder = (): Array<number> =>
  readdirSync("/proc").filter((d) => /^[0-9]+$/.test(d)).filter((pid) => {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8")
      return cmdline.includes("postgres") && cmdline.split("\0").includes(pgDir)
    } catch {
      return false
    }
  }).map(Number)

afterAll(async () => {
  await stopOrphanedPostgres(dataDir)
  rmSync(dataDir, { recursive: true, force: true })
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
})
