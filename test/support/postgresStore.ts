/**
 * The PostgreSQL Store for HTTP tests: `StoreSql` on this test file's fresh, migrated database (database.ts). The
 * database is made on first use and shared by every server the file starts (as several `fils serve` processes share
 * one database); it is dropped after the file's last test.
 */
import { Context, Effect, Exit, Layer, Redacted, Scope } from "effect"
import { MigratedPg, PgLive, type PgOptions } from "../../adapters/sql/Postgres.js"
import { StoreSql } from "../../adapters/sql/StoreSql.js"
import { type Repositories, Store, type StoreShape } from "../../src/ports/Store.js"
import { freshDatabaseUrl } from "./database.js"
import { onFileEnd } from "./fileEnd.js"
import { type CommitCutter, commitCutter } from "./tcp.js"

let database: Promise<Redacted.Redacted> | undefined

/** This file's database URL (created on first call, dropped after the file's last test and its servers ended). */
export const fileDatabaseUrl = (): Promise<Redacted.Redacted> => {
  if (database === undefined) {
    const scope = Effect.runSync(Scope.make())
    database = Effect.runPromise(Scope.extend(freshDatabaseUrl, scope))
    onFileEnd(async () => {
      database = undefined
      await Effect.runPromise(Scope.close(scope, Exit.void))
    })
  }
  return database
}

/** `StoreSql` on the database at `url` (migrated), with a pool of its own. */
export const storeAt = (url: Redacted.Redacted, maxConnections: number): Layer.Layer<Store | Repositories> =>
  StoreSql.pipe(Layer.provide(MigratedPg(url, { maxConnections })), Layer.orDie)

/** A StoreSql on the database at `url` with a pool of its own (a server), for the scope's lifetime. */
export const storeOn = (url: Redacted.Redacted, options: PgOptions = {}): Effect.Effect<StoreShape, unknown, Scope.Scope> =>
  Effect.map(Layer.build(StoreSql.pipe(Layer.provide(PgLive(url, options)))), Context.get(Store))

/** A Store layer on this file's database; each server built from it has its own pool. */
export const postgresStore = async (): Promise<Layer.Layer<Store | Repositories>> => storeAt(await fileDatabaseUrl(), 8)

/**
 * A Store layer on this file's database whose pool goes through a `commitCutter` (tcp.ts), to cut the database off
 * right after a chosen commit. The caller closes the cutter.
 */
export const postgresStoreBehindCutter = async (): Promise<{ readonly store: Layer.Layer<Store | Repositories>; readonly cutter: CommitCutter }> => {
  const url = new URL(Redacted.value(await fileDatabaseUrl()))
  const cutter = await commitCutter(url.hostname, Number(url.port || 5432))
  url.port = String(cutter.port)
  return { store: storeAt(Redacted.make(url.toString()), 4), cutter }
}
