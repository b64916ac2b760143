/**
 * Where SQL errors stop (docs/architecture.md): a database that cannot be reached becomes the domain's `StoreUnavailable`
 * (transient: 503, callers may retry); anything else is a bug or a broken invariant, so it is a defect.
 */
import type { SqlError } from "@effect/sql/SqlError"
import { Effect } from "effect"
import { StoreUnavailable } from "../../src/domain/Errors.js"

/**
 * Socket errors of Node and the SQLSTATEs of a database that cannot serve us now (class 08; admin/crash shutdown,
 * cannot connect now, too many connections, read-only).
 */
const unavailableCodes = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
  "57P01",
  "57P02",
  "57P03",
  "53300", // too many connections: the server is up but cannot take us now
  "25006" // a read-only transaction: a standby, reached while a failover promotes another node
])

/** Messages of node-postgres and pg-pool (and @effect/sql-pg) for a lost or never-made connection. */
const unavailableMessage =
  /connection terminated|connection timed out|timeout exceeded when trying to connect|connection error|not queryable|client was closed|cannot use a pool after calling end|query read timeout/i

const causes = function*(error: unknown): Generator<unknown> {
  const seen = new Set<unknown>()
  let current: unknown = error
  while (current !== undefined && current !== null && !seen.has(current)) {
    seen.add(current)
    yield current
    // Node reports a refused dual-stack connect as an AggregateError of one error per address.
    if (current instanceof AggregateError) for (const inner of current.errors) yield inner
    current = typeof current === "object" ? (current as { cause?: unknown }).cause : undefined
  }
}

const isUnavailableCause = (cause: unknown): boolean => {
  if (typeof cause !== "object" || cause === null) return false
  const code = (cause as { code?: unknown }).code
  if (typeof code === "string" && (unavailableCodes.has(code) || code.startsWith("08"))) return true
  const message = (cause as { message?: unknown }).message
  return typeof message === "string" && unavailableMessage.test(message)
}

/** Whether the error means the database could not be reached (rather than that the statement was wrong). */
export const isUnavailable = (error: unknown): boolean => {
  for (const cause of causes(error)) {
    if (isUnavailableCause(cause)) return true
  }
  return false
}

/** The SQLSTATE of a unique index refusing a row, and which index (the statement may then answer for it). */
export const uniqueViolation = (error: unknown): string | undefined => {
  for (const cause of causes(error)) {
    const { code, constraint } = cause as { code?: unknown; constraint?: unknown }
    if (code === "23505" && typeof constraint === "string") return constraint
  }
  return undefined
}

/** The message a client may see: no host, port or driver text. */
export const unavailable = () => new StoreUnavailable({ message: "The database cannot be reached; try again shortly" })

/** SqlError → StoreUnavailable when the database is unreachable, otherwise a defect. */
export const orUnavailable = <A, R>(effect: Effect.Effect<A, SqlError, R>): Effect.Effect<A, StoreUnavailable, R> =>
  Effect.catchAll(effect, (error) => isUnavailable(error) ? Effect.fail(unavailable()) : Effect.die(error))
