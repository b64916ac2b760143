/**
 * A fresh, migrated database per test file on the run's PostgreSQL (`inject("databaseUrl")`, see globalSetup.ts),
 * so files running in parallel never see each other's rows. It is dropped when the layer (or scope) ends.
 */
import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import type { PgClient } from "@effect/sql-pg"
import { Context, Deferred, Effect, Fiber, Layer, Redacted, Schedule } from "effect"
import type { Scope } from "effect"
import { randomBytes } from "node:crypto"
import { inject } from "vitest"
import { MigratedPg, PgLive, type PgOptions } from "../../adapters/sql/Postgres.js"

/** `url` with its database path replaced by `database`. */
export const withDatabase = (url: string, database: string): string => {
  const parsed = new URL(url)
  parsed.pathname = `/${database}`
  return parsed.toString()
}

/** Runs one statement on the server's URL (CREATE/DROP DATABASE cannot run on the database being made). */
const onServer = (url: string, statement: string) =>
  Effect.scoped(
    Effect.flatMap(
      Layer.build(PgLive(Redacted.make(url), { maxConnections: 1 })),
      (context) => Context.get(context, SqlClient.SqlClient).unsafe(statement)
    )
  )

/** Creates `fils_test_<random>` for the scope's lifetime (dropped, with any open connections, at its end). */
export const freshDatabaseUrl: Effect.Effect<Redacted.Redacted, never, Scope.Scope> = Effect.gen(function*() {
  const server = inject("databaseUrl")
  const name = `fils_test_${randomBytes(6).toString("hex")}`
  yield* Effect.acquireRelease(
    onServer(server, `CREATE DATABASE "${name}"`),
    () => onServer(server, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).pipe(Effect.catchAllCause(() => Effect.void))
  )
  return Redacted.make(withDatabase(server, name))
}).pipe(Effect.orDie)

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
