/**
 * Structured logs for `fils serve`: one JSON object per line on stdout, built from Effect's structured logger with
 * the annotations flattened to top-level fields (`request_id`, `route`, `status`, …), so a log pipeline can index
 * them without knowing Effect. Every line goes through `Redaction.redactJson`. `FILS_LOG_LEVEL` (default `info`)
 * sets the minimum level.
 */
import { Cause, Config, ConfigError, Context, Effect, Either, FiberId, FiberRef, FiberRefs, HashMap, HashSet, Inspectable, Layer, List, Logger, LogLevel, Option, Tracer } from "effect"
import { redactJson } from "./Redaction.js"

/** The request fields first, in reading order; other annotations after them, alphabetically. */
const fieldOrder = ["request_id", "account_id", "mode", "route", "method", "status", "duration_ms"]
const rank = (key: string) => {
  const i = fieldOrder.indexOf(key)
  return i === -1 ? fieldOrder.length : i
}

/** The attribute of a request's server span that holds its id (set by `RequestObservation`). */
export const requestIdAttribute = "fils.request_id"

/**
 * The id of the request the logging fiber works for: the nearest span up its trace that carries one. Reading it
 * there when a line is written costs nothing on the many requests that log nothing else, where annotating every
 * request's logs would cost each of them.
 */
const requestIdFromSpans = (context: FiberRefs.FiberRefs): unknown => {
  let span = Context.getOrElse(FiberRefs.getOrDefault(context, FiberRef.currentContext), Tracer.ParentSpan, () => undefined)
  while (span !== undefined && span._tag === "Span") {
    const id = span.attributes.get(requestIdAttribute)
    if (id !== undefined) return id
    span = Option.getOrUndefined(span.parent)
  }
  return undefined
}

/** A plain object (not an array, an error, a date…): the fields of a line, as `Effect.logInfo("…", { … })` gives them. */
const isFields = (u: unknown): u is Record<string, unknown> =>
  typeof u === "object" && u !== null && Object.getPrototypeOf(u) === Object.prototype

/** A line's own fields when they are all strings, finite numbers, booleans or null: JSON as they are. */
const isFlat = (fields: Record<string, unknown>): boolean => {
  for (const key in fields) {
    const v = fields[key]
    if (v !== null && typeof v !== "string" && typeof v !== "boolean" && !(typeof v === "number" && Number.isFinite(v))) return false
  }
  return true
}

/** What a line is made of, before its fields are ordered. */
interface Entry {
  readonly timestamp: string
  readonly level: string
  readonly message: unknown
  /** Annotations and the message's own fields. */
  readonly values: Record<string, unknown>
  readonly cause?: string | undefined
  readonly spans?: Record<string, number> | undefined
  readonly fiber: string
  /** Only strings, numbers, booleans and nulls: JSON as they are, no cycle possible. */
  readonly plain: boolean
}

/**
 * A line whose message is text, optionally followed by flat fields, with no annotations, log spans or cause (the
 * request line, and most others): what the general walk below would give, without `Logger.structuredLogger`.
 */
const plainEntry = (options: Logger.Logger.Options<unknown>): Entry | undefined => {
  if (HashMap.size(options.annotations) > 0 || List.isCons(options.spans) || !Cause.isEmpty(options.cause)) return undefined
  const parts = Array.isArray(options.message) ? options.message : [options.message]
  if (typeof parts[0] !== "string" || parts.length > 2) return undefined
  const fields = parts.length === 2 && isFields(parts[1]) && isFlat(parts[1]) ? parts[1] : parts.length === 1 ? {} : undefined
  if (fields === undefined) return undefined
  return {
    timestamp: options.date.toISOString(),
    level: options.logLevel.label,
    message: parts[0],
    values: { ...fields },
    fiber: FiberId.threadName(options.fiberId),
    plain: true
  }
}

/** Any line, through `Logger.structuredLogger`: a plain object last in the message gives the line its fields. */
const generalEntry = (options: Logger.Logger.Options<unknown>): Entry => {
  const entry = Logger.structuredLogger.log(options)
  const parts = Array.isArray(entry.message) ? [...entry.message] : [entry.message]
  const fields = parts.length > 1 && isFields(parts[parts.length - 1]) ? parts.pop() as Record<string, unknown> : {}
  return {
    timestamp: entry.timestamp,
    level: entry.logLevel,
    message: parts.length === 1 ? parts[0] : parts,
    values: { ...entry.annotations, ...fields },
    cause: entry.cause,
    spans: Object.keys(entry.spans).length > 0 ? entry.spans : undefined,
    fiber: entry.fiberId,
    plain: false
  }
}

/**
 * A log entry as one JSON line: `timestamp`, `level`, `message`, the request id of the request it was logged in,
 * the annotations, then `cause` and `spans`. A plain object after the message (`Effect.logInfo("…", { status })`)
 * gives the line fields of its own, as annotations do, without annotating the fiber.
 */
export const jsonLineLogger = Logger.make((options) => jsonLine(options, plainEntry(options) ?? generalEntry(options)))

/** The line through the general walk only (`jsonLineLogger` takes a shortcut for plain entries): for tests. */
export const jsonLineGeneral = (options: Logger.Logger.Options<unknown>): string => jsonLine(options, generalEntry(options))

const jsonLine = (options: Logger.Logger.Options<unknown>, entry: Entry): string => {
  const line: Record<string, unknown> = { timestamp: entry.timestamp, level: entry.level, message: entry.message }
  const values = entry.values
  if (!("request_id" in values)) {
    const id = requestIdFromSpans(options.context)
    if (id !== undefined) values.request_id = id
  }
  const keys = Object.keys(values).sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0))
  for (const key of keys) if (!(key in line)) line[key] = values[key]
  if (entry.cause !== undefined) line.cause = entry.cause
  if (entry.spans !== undefined) line.spans = entry.spans
  line.fiber = entry.fiber
  // stringifyCircular: an annotation may hold a cyclic value; it must not cost the line (a plain one cannot hold
  // one). Redacting the JSON text once costs a fraction of walking the value.
  return redactJson(entry.plain ? JSON.stringify(line) : Inspectable.stringifyCircular(line))
}

/** `FILS_LOG_LEVEL`: `all`, `trace`, `debug`, `info` (default), `warn` (or `warning`), `error`, `fatal` or `none`. */
export const LogLevelConfig = Config.string("FILS_LOG_LEVEL").pipe(
  Config.mapOrFail((raw) => {
    const given = raw.trim().toUpperCase()
    // Effect's own labels for these two are WARN and OFF.
    const label = given === "WARNING" ? "WARN" : given === "NONE" ? "OFF" : given
    const level = LogLevel.allLevels.find((l) => l.label === label)
    return level === undefined
      ? Either.left(ConfigError.InvalidData(
        ["FILS_LOG_LEVEL"],
        `Expected one of all, trace, debug, info, warn, error, fatal, none; got '${raw}'`
      ))
      : Either.right(level)
  }),
  Config.withDefault(LogLevel.Info)
)

/**
 * Lines written to stdout together, about 20 ms after the first of them: one write per batch instead of one per line
 * (a request line per request made the log the server's largest single cost in the benchmark's profile; at a paced
 * 1,000 requests a second, writing once per turn of the event loop still cost a write per request). Whatever is
 * pending when the process exits is written then; a process killed by a signal it does not handle loses it.
 */
const flushAfterMillis = 20
const pending: Array<string> = []
const flush = () => {
  if (pending.length === 0) return
  const text = pending.join("\n") + "\n"
  pending.length = 0
  process.stdout.write(text)
}
process.once("exit", flush)
const writeLine = (line: string): void => {
  if (pending.push(line) === 1) setTimeout(flush, flushAfterMillis).unref()
}

/**
 * The JSON logger on stdout as the only logger (whatever the caller installed before), at `FILS_LOG_LEVEL`. Every
 * fiber started under it (request handlers, workers) inherits both.
 */
export const JsonLogging: Layer.Layer<never, never, never> = Layer.unwrapEffect(
  Effect.map(Effect.orDie(LogLevelConfig), (level) =>
    Layer.mergeAll(
      Layer.locallyScoped(FiberRef.currentLoggers, HashSet.make(Logger.map(jsonLineLogger, writeLine))),
      Logger.minimumLogLevel(level)
    ))
)
