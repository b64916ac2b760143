/**
 * Statements on the run's PostgreSQL server itself (CREATE and DROP DATABASE cannot run on the database they make),
 * for globalSetup.ts and database.ts alike: this module reads no vitest state.
 */
import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Redacted } from "effect"
import { PgLive } from "../../adapters/sql/Postgres.js"

/** `url` with its database path replaced by `database`. */
export const withDatabase = (url: string, database: string): string => {
  const parsed = new URL(url)
  parsed.pathname = `/${database}`
  return parsed.toString()
}

/** Runs one statement on the server's URL, on a connection of its own. */
export const onServer = (url: string, statement: string) =>
  Effect.scoped(
    Effect.flatMap(
      Layer.build(PgLive(Redacted.make(url), { maxConnections: 1 })),
      (context) => Context.get(context, SqlClient.SqlClient).unsafe(statement)
    )
  )
