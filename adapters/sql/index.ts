/**
 * `fils/sql`: the Store on PostgreSQL through `@effect/sql-pg`. `StoreSql` needs an `SqlClient`: `MigratedPg(url)`
 * (a pool with the migrations applied), or `DatabaseLive` (`DATABASE_URL`, else an embedded PostgreSQL in
 * `FILS_DATA_DIR`), as `fils serve` does.
 *
 *   const StoreLive = StoreSql.pipe(Layer.provide(MigratedPg(Redacted.make(url))))
 */
export { makeStoreSql, StoreSql } from "./StoreSql.js"
export {
  DatabaseLive,
  databaseUrlConfig,
  int8AsNumber,
  migrate,
  MigratedPg,
  PgLive,
  type PgOptions
} from "./Postgres.js"
export { migrations } from "./migrations/index.js"
export {
  type EmbeddedDatabase,
  embeddedConfig,
  type EmbeddedOptions,
  embeddedPostgres,
  embeddedPostgresAt,
  EmbeddedPostgresError,
  startEmbeddedPostgres
} from "./EmbeddedPostgres.js"
