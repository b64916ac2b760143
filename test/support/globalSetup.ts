/**
 * Once for the whole test run:
 * - one PostgreSQL: `DATABASE_URL` when set, otherwise an embedded one in a fresh temp folder that is stopped and
 *   deleted at the end. Test files get their own database on it (see `database.ts`), copied from a template with
 *   every migration applied, made here once: the suite makes about a hundred and fifty;
 * - the `fils` command bundled from the sources as it ships (`scripts/bundle-bin.mjs`), which the tests spawn
 *   (`support/cli.ts`): one file starts in about a third of the time the sources take through tsx, and the suite
 *   starts `fils` a few hundred times.
 */
import { execFile } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtemp, readdir, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { basename, dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { Effect, Layer, Redacted } from "effect"
import type { TestProject } from "vitest/node"
import { startEmbeddedPostgres } from "../../adapters/sql/EmbeddedPostgres.js"
import { MigratedPg } from "../../adapters/sql/Postgres.js"
import { onServer, withDatabase } from "./pgServer.js"

declare module "vitest" {
  export interface ProvidedContext {
    /** A PostgreSQL URL whose role may create databases. */
    databaseUrl: string
    /** The `fils` command bundled for this run: `node <filsBin> <args>`. */
    filsBin: string
    /** A database on `databaseUrl` with every migration applied, to copy (never to connect to). */
    templateDatabase: string
  }
}

const root = fileURLToPath(new URL("../..", import.meta.url))

/** The `fils` command of this run, bundled beside the repository's node_modules (its externals resolve from there). */
const bin = join(root, ".tmp", "bin", `fils-${process.pid}.js`)

const bundleFils = () => promisify(execFile)(process.execPath, [join(root, "scripts", "bundle-bin.mjs"), bin], { cwd: root })

/** The launcher, its bundle, the bundle's code cache and any cache a killed command left half-written. */
const removeBin = async () => {
  const dir = dirname(bin)
  const mine = (await readdir(dir).catch(() => [])).filter((name) => name.startsWith(`${basename(bin, ".js")}.`))
  for (const name of mine) await rm(join(dir, name), { force: true })
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const configured = process.env["DATABASE_URL"]
  const useConfigured = configured !== undefined && configured.trim() !== ""
  const dir = useConfigured ? undefined : await mkdtemp(join(tmpdir(), "fils-test-"))
  // A name of this run's own, on a server other runs may share.
  const template = `fils_template_${process.pid}_${randomBytes(4).toString("hex")}`
  const [bundled, started] = await Promise.allSettled([
    bundleFils(),
    dir === undefined ? Promise.resolve(undefined) : startEmbeddedPostgres(dir)
  ])
  const db = started.status === "fulfilled" ? started.value : undefined
  const server = db?.url ?? configured!
  const teardown = async () => {
    if (server !== undefined) {
      await Effect.runPromise(onServer(server, `DROP DATABASE IF EXISTS "${template}" WITH (FORCE)`)).catch(() => undefined)
    }
    await removeBin()
    if (db !== undefined) await db.stop()
    if (dir !== undefined) await rm(dir, { recursive: true, force: true })
  }
  try {
    if (bundled.status === "rejected") throw bundled.reason
    if (started.status === "rejected") throw started.reason
    await Effect.runPromise(Effect.gen(function*() {
      yield* onServer(server, `CREATE DATABASE "${template}"`)
      // Migrated, and its pool closed: a database is copied only while nobody is connected to it.
      yield* Effect.scoped(Layer.build(MigratedPg(Redacted.make(withDatabase(server, template)), { maxConnections: 1 })))
    }))
  } catch (error) {
    await teardown()
    throw error
  }
  project.provide("filsBin", bin)
  project.provide("databaseUrl", server)
  project.provide("templateDatabase", template)
  return teardown
}
