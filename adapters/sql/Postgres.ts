/**
 * PostgreSQL connections for the SQL store: a pool from a URL, the migrations, and the choice the CLI makes between
 * `DATABASE_URL` and the embedded database in the data folder (decisions.md §9).
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

interface PoolLike {
  readonly totalCount: number
  readonly idleCount: number
  readonly waitingCount: number
  readonly options: { readonly max?: number }
  on(event: "error", listener: (error: unknown) => void): unknown
  query(text: string): Promise<unknown>
  end(): Promise<void>
}
type PoolClass = new(options: Record<string, unknown>) => PoolLike

/** The `Pool` of the very `pg` that @effect/sql-pg drives. */
const PgPool = (): PoolClass => {
  const require = createRequire(import.meta.url)
  return (createRequire(require.resolve("@effect/sql-pg/package.json"))("pg") as { readonly Pool: PoolClass }).Pool
}

/**
 * A pool on `url`, made here (as @effect/sql-pg would make it) so that its figures can be read. A short connect
 * timeout makes an unreachable database a quick `StoreUnavailable` rather than a hang; other connect failures (bad
 * password, missing database) are configuration bugs, so defects.
 */
export const PgLive = (
  url: Redacted.Redacted,
  options: PgOptions = {}
): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient | DbPool, StoreUnavailable> => {
  const connectTimeout = Duration.decode(options.connectTimeout ?? Duration.seconds(2))
  const pool = Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        const Pool = PgPool()
        const made = new Pool({
          connectionString: Redacted.value(url),
          connectionTimeoutMillis: Duration.toMillis(connectTimeout),
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
    Layer.merge(
      PgClient.layerFromPool({ acquire: Effect.succeed(made as never) }),
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

/** Applies pending migrations (concurrent runners wait on the migrator's table lock; one applies them). */
export const migrate: Effect.Effect<ReadonlyArray<readonly [id: number, name: string]>, StoreUnavailable, SqlClient.SqlClient> =
  Migrator.make({})({ loader: Migrator.fromRecord(migrations) }).pipe(
    // Two processes creating the migrations table on a brand-new database race once; the retry finds it made.
    Effect.retry({ times: 1, while: (error) => !isUnavailable(error) }),
    Effect.catchAll((error) => isUnavailable(error) ? Effect.fail(unavailable()) : Effect.die(error)),
    Effect.withSpan("Postgres.migrate")
  )

/** A migrated pool on `url`. */
export const MigratedPg = (
  url: Redacted.Redacted,
  options: PgOptions = {}
): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient | DbPool, StoreUnavailable> =>
  Layer.effectDiscard(migrate).pipe(Layer.provideMerge(PgLive(url, options)))

/** `DATABASE_URL` when it is set (and not empty). */
export const databaseUrlConfig: Config.Config<Option.Option<Redacted.Redacted>> = Config.option(
  Config.redacted("DATABASE_URL")
).pipe(Config.map(Option.filter((url) => Redacted.value(url).trim() !== "")))

/**
 * The database the CLI runs on, migrated: `DATABASE_URL` when set, otherwise the embedded PostgreSQL in
 * `FILS_DATA_DIR` (started for as long as the layer lives, or reused when it is already running).
 */
export const DatabaseLive: Layer.Layer<
  PgClient.PgClient | SqlClient.SqlClient | DbPool,
  StoreUnavailable | EmbeddedPostgresError | ConfigError.ConfigError
> = Layer.unwrapScoped(
  Effect.gen(function*() {
    const configured = yield* databaseUrlConfig
    const url = Option.isSome(configured) ? configured.value : yield* embeddedPostgres
    return MigratedPg(url)
  })
)

