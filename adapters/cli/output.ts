/**
 * CLI output. Piped (or with `--json`), a command prints JSON on stdout and an error as a `{ code, message }` JSON
 * line on stderr, for scripts. On a terminal it prints the same result for people: a summary of `key  value` lines,
 * lists as aligned tables; errors as one readable line. Long commands show their progress on stderr when it is a
 * terminal. The exit status is the same either way (1 on an error).
 */
import { Console, Duration, Effect, Fiber, Schedule } from "effect"

/** `--json` (taken out of the arguments by main.ts) forces JSON on a terminal too. */
export const outputMode = { json: false }

export const forPeople = (stream: NodeJS.WriteStream) => stream.isTTY === true && !outputMode.json

type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }

const isScalar = (v: unknown): boolean => v === null || typeof v !== "object"
const scalar = (v: unknown): string => (v === null || v === undefined ? "–" : String(v))
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)

/** Rows of flat records as an aligned table: a header of their keys, then one line each. */
export const table = (rows: ReadonlyArray<Record<string, unknown>>, indent = ""): Array<string> => {
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))]
  const cells = rows.map((r) => columns.map((c) => (isScalar(r[c]) ? scalar(r[c]) : JSON.stringify(r[c]))))
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i]!.length)))
  const line = (values: ReadonlyArray<string>) => indent + values.map((v, i) => v.padEnd(widths[i]!)).join("  ").trimEnd()
  return [line(columns.map((c) => c.toUpperCase())), ...cells.map(line)]
}

/** A result for people: scalars as `key  value` lines, nested records indented, lists of records as tables. */
export const render = (value: unknown, indent = ""): Array<string> => {
  if (isScalar(value)) return [indent + scalar(value)]
  if (Array.isArray(value)) {
    if (value.length === 0) return [`${indent}(none)`]
    if (value.every((v) => isRecord(v) && Object.values(v).every((x) => isScalar(x) || (Array.isArray(x) && x.every(isScalar))))) {
      return table(value as ReadonlyArray<Record<string, unknown>>, indent)
    }
    return value.every(isScalar) ? [indent + value.map(scalar).join(", ")] : value.flatMap((v, i) => [...(i > 0 ? [""] : []), ...render(v, indent)])
  }
  const record = value as Record<string, unknown>
  const width = Math.max(0, ...Object.keys(record).filter((k) => isScalar(record[k])).map((k) => k.length))
  return Object.entries(record).flatMap(([key, v]) =>
    isScalar(v) || (Array.isArray(v) && v.every(isScalar) && v.length > 0)
      ? [`${indent}${key.padEnd(width)}  ${Array.isArray(v) ? v.map(scalar).join(", ") : scalar(v)}`]
      : [`${indent}${key}:`, ...render(v, `${indent}  `)]
  )
}

/** A command's result: JSON when piped or with `--json`, a summary or table on a terminal. */
export const printResult = (value: unknown) =>
  Console.log(forPeople(process.stdout) ? render(value as Json).join("\n") : JSON.stringify(value, null, 2))

const describe = (error: unknown): { readonly code: string; readonly message: string } =>
  typeof error === "object" && error !== null && "code" in error && "message" in error &&
    typeof error.code === "string" && typeof error.message === "string"
    ? { code: error.code, message: error.message }
    : { code: "INTERNAL_ERROR", message: error instanceof Error ? error.message : String(error) }

/** An error on stderr: the JSON line, or on a terminal `Error: message (CODE)`. */
export const printError = (error: { readonly code: string; readonly message: string }) =>
  Console.error(forPeople(process.stderr) ? `Error: ${error.message} (${error.code})` : JSON.stringify(error))

/** Reports a failure on stderr and sets a non-zero exit code, instead of a stack trace. */
export const reportFailure = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<void, never, R> =>
  effect.pipe(
    Effect.asVoid,
    Effect.catchAll((error) =>
      Effect.zipRight(
        printError(describe(error)),
        Effect.sync(() => {
          process.exitCode = 1
        })
      )
    )
  )

/**
 * Runs a long command with a progress line on stderr when it is a terminal (`what… 3.2 s`, redrawn in place and
 * cleared at the end); otherwise just runs it.
 */
export const withProgress = (what: string) => <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
  if (!forPeople(process.stderr)) return effect
  const started = Date.now()
  const draw = Effect.sync(() => process.stderr.write(`\r\u001b[K${what}… ${((Date.now() - started) / 1000).toFixed(1)} s`))
  // The ticker is forked interruptible (a fiber forked where interruption is off could never be stopped).
  return Effect.acquireUseRelease(
    Effect.forkDaemon(Effect.interruptible(Effect.repeat(draw, Schedule.spaced(Duration.millis(200))))),
    () => effect,
    (ticker) => Effect.zipRight(Fiber.interrupt(ticker), Effect.sync(() => process.stderr.write("\r\u001b[K")))
  )
}
