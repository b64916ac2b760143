/**
 * PostgreSQL connections for the SQL store: a pool from a URL, the migrations, and the choice the CLI makes between
 * `DATABASE_URL` and the embedded database in the data folder (docs/decisions.md §9).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Migrator from "@effect/sql/Migrator"
import * as PgClient from "@effect/sql-pg/PgClient"
import type { ConfigError } from "effect"
import { Config, Context, Duration, Effect, Layer, Option, Redacted } from "effect"
import { SqlError } from "@effect/sql/SqlError"
import { createRequire } from "node:module"
import type { StoreUnavailable } from "../../src/domain/Errors.js"
import { type EmbeddedPostgresError, embeddedPostgres } from "./EmbeddedPostgres.js"
import { migrations } from "./migrations/index.js"
import { PgListen, PgListenLive } from "./Listen.js"
import { type CopyPool, layerPgCopy, type PgCopy } from "./Copy.js"
import { buildRowsByShape } from "./rowShapes.js"
import { isUnavailable, unavailable } from "./SqlErrors.js"

interface TypeParsers {
  readonly getTypeParser: (oid: number, format?: string) => (value: string) => unknown
}

/** The type parsers of the very `pg` that @effect/sql-pg drives (its dependency, resolved from there). */
const pgDefaults = (): TypeParsers => {
  const require = createRequire(import.meta.url)
  const pg = createRequire(require.resolve("@effect/sql-pg/package.json"))("pg") as { readonly types: TypeParsers }
  return pg.types
}

const INT8 = 20
const INT8_ARRAY = 1016

/** int8 as a JS number (amounts, counts, epoch seconds); a value beyond 2^53 stays exact text rather than rounded. */
const int8 = (text: string): number | string => {
  const n = Number(text)
  return Number.isSafeInteger(n) ? n : text
}

/** node-postgres returns int8 as a string by default; Fils' amounts are safe integers, so read them as numbers. */
export const int8AsNumber: TypeParsers = (() => {
  const defaults = pgDefaults()
  return {
    getTypeParser: (oid, format) => {
      if (format === "binary") return defaults.getTypeParser(oid, format)
      if (oid === INT8) return int8
      if (oid === INT8_ARRAY) {
        const parseArray = defaults.getTypeParser(INT8_ARRAY)
        return (text) => (parseArray(text) as Array<string | null>).map((v) => (v === null ? null : int8(v)))
      }
      return defaults.getTypeParser(oid, format)
    }
  }
})()

export interface PgOptions {
  /** Pool size (default 10). */
  readonly maxConnections?: number | undefined
  /** How long to wait for a connection (also for a free one in the pool) before the store is unavailable. */
  readonly connectTimeout?: Duration.DurationInput | undefined
  /**
   * How long one statement may go unanswered (default 8 s, so a request is answered within 10 s): then its
   * connection is dropped (the server rolls back what it held) and the store is unavailable for that call.
   */
  readonly queryTimeout?: Duration.DurationInput | undefined
  /** Where LISTEN connects (default: `url`); through PgBouncer in transaction mode, a direct route to the primary. */
  readonly listenUrl?: Redacted.Redacted | undefined
}

/** The connection pool's figures now, for `/metrics`. */
export interface DbPoolStats {
  readonly inUse: number
  readonly idle: number
  readonly waiting: number
  readonly max: number
}

/** The pool under the SQL store: what `/metrics` reports of it (absent on the memory store). */
export class DbPool extends Context.Tag("fils/sql/DbPool")<DbPool, { readonly stats: () => DbPoolStats }>() {}

interface ClientLike {
  query(text: string): Promise<{ readonly rows: ReadonlyArray<Record<string, unknown>> }>
  query(...args: ReadonlyArray<unknown>): unknown
  end(callback: () => void): void
}

interface PoolLike extends CopyPool {
  readonly totalCount: number
  readonly idleCount: number
  readonly waitingCount: number
  readonly options: { readonly max?: number }
  on(event: "error", listener: (error: unknown) => void): unknown
  query(text: string): Promise<unknown>
  end(): Promise<void>
}
type PoolClass = new(options: Record<string, unknown>) => PoolLike
type ClientClass = new(options: Record<string, unknown>) => ClientLike

/** The `pg` that @effect/sql-pg drives. */
const pgModule = (): { readonly Pool: PoolClass; readonly Client: ClientClass } => {
  const require = createRequire(import.meta.url)
  const pg = createRequire(require.resolve("@effect/sql-pg/package.json"))("pg")
  buildRowsByShape(pg)
  return pg
}

/** node-postgres' error for a statement unanswered past `query_timeout`. */
const queryTimedOut = (error: unknown) => error instanceof Error && error.message === "Query read timeout"

/**
 * A client that drops its connection when a statement times out. node-postgres answers the caller at
 * `query_timeout` but keeps waiting on the connection, so the pool would hand out a connection stuck behind a
 * statement that may never return (a silent network, a pooler waiting for a primary). Destroyed, it leaves the pool.
 */
const droppingClient = (Client: ClientClass): ClientClass =>
  class extends (Client as new(options: Record<string, unknown>) => { query(...args: Array<unknown>): unknown } & ClientLike) {
    override query(...args: Array<unknown>): any {
      // `end` marks the client ending at once (so the pool, given it back, removes it) and, with a statement
      // still running, destroys the socket rather than wait for it.
      const drop = (error: unknown) => {
        if (queryTimedOut(error)) this.end(() => {})
      }
      const last = args.length - 1
      const callback = args[last]
      if (typeof callback === "function" && typeof (args[0] as { submit?: unknown }).submit !== "function") {
        args[last] = (error: unknown, result: unknown) => {
          drop(error)
          ;(callback as (error: unknown, result: unknown) => void)(error, result)
        }
        return super.query(...args)
      }
      const result = super.query(...args)
      if (result instanceof Promise) {
        return result.catch((error: unknown) => {
          drop(error)
          throw error
        })
      }
      return result
    }
  } as unknown as ClientClass

/** SQLSTATE 25006: a read-only transaction, here a standby that a router still sends us to during a failover. */
export const readOnlyCode = "25006"

/**
 * Refuses a new connection to a server that only reads (as libpq's `target_session_attrs=read-write` does): behind a
 * router that follows the primary there is a moment, during a promotion, when it still points at a standby.
 */
const requireWritable = async (client: ClientLike): Promise<void> => {
  const result = await client.query("SELECT current_setting('transaction_read_only') AS read_only")
  if (result.rows[0]?.["read_only"] === "on") {
    throw Object.assign(new Error("the database server is read-only (a standby)"), { code: readOnlyCode })
  }
}

/**
 * A pool on `url`, made here (as @effect/sql-pg would make it) so that its figures can be read. A short connect
 * timeout makes an unreachable database a quick `StoreUnavailable` rather than a hang; other connect failures (bad
 * password, missing database) are configuration bugs, so defects.
 */
export const PgLive = (
  url: Redacted.Redacted,
  options: PgOptions = {}
): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient | DbPool | PgListen | PgCopy, StoreUnavailable> => {
  const connectTimeout = Duration.decode(options.connectTimeout ?? Duration.seconds(2))
  const queryTimeout = Duration.decode(options.queryTimeout ?? Duration.seconds(8))
  const pool = Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        const pg = pgModule()
        const made = new pg.Pool({
          Client: droppingClient(pg.Client),
          connectionString: Redacted.value(url),
          connectionTimeoutMillis: Duration.toMillis(connectTimeout),
          ...(Duration.toMillis(queryTimeout) > 0 ? { query_timeout: Duration.toMillis(queryTimeout) } : {}),
          // A peer that vanished without a word: the kernel gives up on the socket instead of waiting for hours.
          keepAlive: true,
          keepAliveInitialDelayMillis: 10_000,
          onConnect: requireWritable,
          max: options.maxConnections ?? 10,
          application_name: "fils",
          types: int8AsNumber
        })
        made.on("error", () => {}) // an idle connection's error: the next query reports the outage
        try {
          await made.query("SELECT 1")
        } catch (error) {
          await made.end().catch(() => undefined)
          throw error
        }
        return made
      },
      catch: (cause) => new SqlError({ cause, message: "PgClient: Failed to connect" })
    }),
    (made) => Effect.promise(() => made.end()).pipe(Effect.interruptible, Effect.timeoutOption(1000))
  )
  return Layer.unwrapScoped(Effect.map(pool, (made) =>
    Layer.mergeAll(
      PgClient.layerFromPool({ acquire: Effect.succeed(made as never) }),
      PgListenLive(options.listenUrl ?? url),
      layerPgCopy(made),
      Layer.succeed(DbPool, {
        stats: () => ({
          inUse: made.totalCount - made.idleCount,
          idle: made.idleCount,
          waiting: made.waitingCount,
          max: made.options.max ?? 10
        })
      })
    ))).pipe(Layer.catchAll((error) => isUnavailable(error) ? Layer.fail(unavailable()) : Layer.die(error)))
}

const migrationsTable = "effect_sql_migrations"

/**
 * The migrations of `record` below the latest applied that never ran: the migrator runs only ids above the latest, so a
 * migration that landed after a later one (work merged out of order) would be skipped for good on a database migrated
 * in between. Each runs with its row recorded, in one transaction holding the migrator's table lock.
 */
const runSkipped = (record: Record<string, Effect.Effect<void, unknown, SqlClient.SqlClient>>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const known = Object.entries(record).map(([key, effect]) => {
      const [, id, name] = /^(\d+)_(.+)$/.exec(key)!
      return { id: Number(id), name: name!, effect }
    })
    const ran: Array<readonly [number, string]> = []
    yield* sql.withTransaction(Effect.gen(function*() {
      yield* sql`LOCK TABLE ${sql(migrationsTable)} IN ACCESS EXCLUSIVE MODE`
      const applied = new Set((yield* sql<{ migration_id: number }>`SELECT migration_id FROM ${sql(migrationsTable)}`).map((r) => r.migration_id))
      const latest = Math.max(0, ...applied)
      for (const m of known.filter((m) => m.id < latest && !applied.has(m.id)).sort((a, b) => a.id - b.id)) {
        yield* m.effect
        yield* sql`INSERT INTO ${sql(migrationsTable)} ${sql.insert({ migration_id: m.id, name: m.name })}`
        ran.push([m.id, m.name])
      }
    }))
    return ran
  })

/**
 * Applies pending migrations of `record` (concurrent runners wait on the migrator's table lock; one applies them), and
 * any it skipped (`runSkipped`).
 */
export const migrateWith = (
  record: Record<string, Effect.Effect<void, unknown, SqlClient.SqlClient>>
): Effect.Effect<ReadonlyArray<readonly [id: number, name: string]>, StoreUnavailable, SqlClient.SqlClient> =>
  Effect.zipWith(
    Migrator.make({})({ loader: Migrator.fromRecord(record) }),
    runSkipped(record),
    (applied, skipped) => [...skipped, ...applied]
  ).pipe(
    // Two processes creating the migrations table on a brand-new database race once; the retry finds it made.
    Effect.retry({ times: 1, while: (error) => !isUnavailable(error) }),
    Effect.catchAll((error) => isUnavailable(error) ? Effect.fail(unavailable()) : Effect.die(error)),
    Effect.withSpan("Postgres.migrate")
  )

/** Applies Fils' pending migrations (`migrateWith`). */
export const migrate = migrateWith(migrations)

/** A migrated pool on `url`. */
export const MigratedPg = (
  url: Redacted.Redacted,
  options: PgOptions = {}
): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient | DbPool | PgListen | PgCopy, StoreUnavailable> =>
  Layer.effectDiscard(migrate).pipe(Layer.provideMerge(PgLive(url, options)))

/** `DATABASE_URL` when it is set (and not empty). */
export const databaseUrlConfig: Config.Config<Option.Option<Redacted.Redacted>> = Config.option(
  Config.redacted("DATABASE_URL")
).pipe(Config.map(Option.filter((url) => Redacted.value(url).trim() !== "")))

/** `FILS_LISTEN_DATABASE_URL`: where LISTEN connects when the pool goes through a pooler that cannot hold it. */
export const listenUrlConfig: Config.Config<Option.Option<Redacted.Redacted>> = Config.option(
  Config.redacted("FILS_LISTEN_DATABASE_URL")
).pipe(Config.map(Option.filter((url) => Redacted.value(url).trim() !== "")))

/** `FILS_DB_STATEMENT_TIMEOUT_SECONDS`: how long one statement may go unanswered (0: no limit). */
export const statementTimeoutConfig: Config.Config<Duration.Duration> = Config.integer(
  "FILS_DB_STATEMENT_TIMEOUT_SECONDS"
).pipe(
  Config.withDefault(8),
  Config.validate({ message: "must be a whole number of seconds from 0 to 3600", validation: (n) => n >= 0 && n <= 3600 }),
  Config.map(Duration.seconds)
)

/**
 * The database the CLI runs on, migrated: `DATABASE_URL` when set, otherwise the embedded PostgreSQL in
 * `FILS_DATA_DIR` (started for as long as the layer lives, or reused when it is already running).
 */
export const DatabaseLive: Layer.Layer<
  PgClient.PgClient | SqlClient.SqlClient | DbPool | PgListen | PgCopy,
  StoreUnavailable | EmbeddedPostgresError | ConfigError.ConfigError
> = Layer.unwrapScoped(
  Effect.gen(function*() {
    const configured = yield* databaseUrlConfig
    const url = Option.isSome(configured) ? configured.value : yield* embeddedPostgres
    const listenUrl = yield* listenUrlConfig
    const queryTimeout = yield* statementTimeoutConfig
    return MigratedPg(url, { listenUrl: Option.getOrUndefined(listenUrl), queryTimeout })
  })
)

