/**
 * A fresh, migrated database per test file on the run's PostgreSQL (`inject("databaseUrl")`, see globalSetup.ts),
 * so files running in parallel never see each other's rows. It is dropped when the layer (or scope) ends.
 */
import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import type { PgClient } from "@effect/sql-pg"
import { Deferred, Effect, Fiber, Layer, Redacted, Schedule } from "effect"
import type { Scope } from "effect"
import { randomBytes } from "node:crypto"
import { inject } from "vitest"
import { MigratedPg, type PgOptions } from "../../adapters/sql/Postgres.js"
import { onServer, withDatabase } from "./pgServer.js"

/** Creates `fils_test_<random>` by `create` for the scope's lifetime (dropped, with any open connections, at its end). */
const databaseUrl = (create: (name: string) => string): Effect.Effect<Redacted.Redacted, never, Scope.Scope> =>
  Effect.gen(function*() {
    const server = inject("databaseUrl")
    const name = `fils_test_${randomBytes(6).toString("hex")}`
    yield* Effect.acquireRelease(
      onServer(server, create(name)),
      () => onServer(server, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).pipe(Effect.catchAllCause(() => Effect.void))
    )
    return Redacted.make(withDatabase(server, name))
  }).pipe(Effect.orDie)

/**
 * A database of the test's own with every migration applied: a copy of the run's migrated template (globalSetup.ts),
 * which costs the server half of what running the migrations again would. The engine's own layers still run the
 * migrator on it, and find nothing to do.
 */
export const freshDatabaseUrl = databaseUrl((name) => `CREATE DATABASE "${name}" TEMPLATE "${inject("templateDatabase")}"`)

/** A fresh database, migrated (not only copied from the template: the migrator has run on it), for the scope's lifetime. */
export const migratedDatabaseUrl = Effect.tap(freshDatabaseUrl, (url) => Layer.build(MigratedPg(url)))

/** A database of the test's own without any table, for the tests of the migrations themselves. */
export const emptyDatabaseUrl = databaseUrl((name) => `CREATE DATABASE "${name}"`)

/** A migrated pool on a fresh database. */
export const FreshDatabase = (
  options: PgOptions = {}
): Layer.Layer<SqlClient.SqlClient | PgClient.PgClient> =>
  Layer.unwrapScoped(Effect.map(freshDatabaseUrl, (url) => MigratedPg(url, options))).pipe(Layer.orDie)

/** Waits until a statement like `pattern` (a LIKE pattern) waits for a lock, as `monitor`, another connection, sees. */
export const waitsForLock = (monitor: SqlClient.SqlClient, pattern: string) =>
  monitor<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity
    WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE ${pattern}`.pipe(
    Effect.map((rows) => rows[0]!.n > 0),
    Effect.repeat({ schedule: Schedule.spaced("10 millis"), until: (waiting) => waiting }),
    Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => `nothing waited for a lock: ${pattern}` }),
    Effect.orDie
  )

/**
 * Takes the row locks of `lock` in a transaction of its own on `sql` and holds them: the returned effect commits it.
 * Whoever then asks for those rows queues behind it, in the order they asked, which is how a test lines up two
 * statements on the rows they share.
 */
export const holdingLocks = (sql: SqlClient.SqlClient, lock: Effect.Effect<unknown, SqlError>) =>
  Effect.gen(function*() {
    const held = yield* Deferred.make<void>()
    const release = yield* Deferred.make<void>()
    const holder = yield* Effect.fork(
      sql.withTransaction(Effect.zipRight(Effect.zipRight(lock, Deferred.succeed(held, undefined)), Deferred.await(release))).pipe(
        Effect.orDie
      )
    )
    yield* Deferred.await(held)
    return Effect.zipRight(Deferred.succeed(release, undefined), Fiber.join(holder))
  })
