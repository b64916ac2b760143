/**
 * `COPY … FROM STDIN` on a connection of the pool: the cheapest way PostgreSQL has to take many rows, about half the
 * database's work of an `INSERT … SELECT FROM json_populate_recordset` per row (the parsing of the JSON and of a plan
 * is gone). @effect/sql-pg cannot send a COPY, so `PgLive`, which holds the pool, provides one; a store over a
 * client of the host's own has none and inserts instead.
 */
import { SqlError } from "@effect/sql/SqlError"
import { Context, Effect, Layer } from "effect"
import { createRequire } from "node:module"
import type { Writable } from "node:stream"

export class PgCopy extends Context.Tag("fils/sql/PgCopy")<PgCopy, {
  /**
   * Sends `text` (rows in COPY's text format: `copyRow`) to `COPY table (columns) FROM STDIN`, as one statement:
   * every row is written or none is.
   */
  readonly copyIn: (table: string, columns: ReadonlyArray<string>, text: string) => Effect.Effect<void, SqlError>
}>() {}

/** What of a node-postgres pool COPY needs. */
export interface CopyPool {
  connect(): Promise<{
    query(stream: Writable): Writable
    release(error?: unknown): void
    on(event: "error", listener: (error: unknown) => void): unknown
    off(event: "error", listener: (error: unknown) => void): unknown
  }>
}

const copyFrom = createRequire(import.meta.url)("pg-copy-streams").from as (statement: string) => Writable

/** `PgCopy` on `pool`: a connection per COPY, given back when it ends; one that failed is dropped, not reused. */
export const layerPgCopy = (pool: CopyPool): Layer.Layer<PgCopy> =>
  Layer.succeed(PgCopy, {
    copyIn: (table, columns, text) =>
      Effect.tryPromise({
        try: async () => {
          const client = await pool.connect()
          // A checked-out client has no listener of the pool's: a connection lost now would be an uncaught error.
          // The COPY fails with it; the client is dropped, not given back.
          let lost: unknown = undefined
          const onError = (error: unknown) => {
            lost = error
          }
          client.on("error", onError)
          try {
            await new Promise<void>((resolve, reject) => {
              const stream = client.query(copyFrom(`COPY ${table} (${columns.join(", ")}) FROM STDIN`))
              stream.on("finish", resolve)
              stream.on("error", reject)
              stream.end(text)
            })
          } catch (error) {
            // Dropped: its listener stays, for the socket's end may still be on its way.
            client.release(error)
            throw error
          }
          client.off("error", onError)
          client.release(lost)
        },
        catch: (cause) => new SqlError({ cause, message: `COPY ${table} failed` })
      })
  })

export type CopyValue = string | number | boolean | Date | null

/** A value in COPY's text format: `\N` for null; backslash, tab, newline and carriage return escaped. */
const field = (value: CopyValue): string =>
  value === null
    ? "\\N"
    : typeof value === "string"
    ? (/[\\\t\n\r]/.test(value) ? value.replace(/[\\\t\n\r]/g, (c) => escapes[c]!) : value)
    : typeof value === "boolean"
    ? (value ? "t" : "f")
    : value instanceof Date
    ? value.toISOString()
    : String(value)

const escapes: Record<string, string> = { "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" }

/** One row in COPY's text format, its values in the order of the statement's columns, ending with a newline. */
export const copyRow = (values: ReadonlyArray<CopyValue>): string => {
  let line = field(values[0] ?? null)
  for (let i = 1; i < values.length; i++) line += "\t" + field(values[i]!)
  return line + "\n"
}
