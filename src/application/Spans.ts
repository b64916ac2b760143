/**
 * Spans for the use cases every API request runs, made only when the request is traced.
 *
 * `Effect.fn(name)` makes a span on each call, and a span costs even while the tracer is off (a request not sampled,
 * or no exporter configured): a captured stack, a no-op span, the fiber's context copied to hold it, about 12 µs.
 * On `GET /payments/{id}` that was 2 % of the request (docs/performance.md). `whenTraced(name, f)` gives a traced
 * request a span of that name, located where the use case is defined (as `Effect.fn`'s first location), and an
 * untraced one none: a failure there is then printed without the use case's name among its spans.
 */
import { Effect, FiberRef } from "effect"

/** Where `whenTraced` was called: the line that defines the use case, as Effect prints a span's location. */
const definedAt = (): string | false => {
  const limit = Error.stackTraceLimit
  Error.stackTraceLimit = 3
  const line = new Error().stack?.split("\n")[3]?.trim()
  Error.stackTraceLimit = limit
  return line === undefined ? false : line.includes("(") ? line : line.replace(/^at (.*)$/, "at ($1)")
}

export const whenTraced = <F extends (...args: Array<any>) => Effect.Effect<any, any, any>>(name: string, f: F): F => {
  const location = definedAt()
  const options = { captureStackTrace: location === false ? false : () => location }
  return ((...args: Parameters<F>) =>
    Effect.withFiberRuntime((fiber) =>
      fiber.getFiberRef(FiberRef.currentTracerEnabled) ? Effect.withSpan(f(...args), name, options) : f(...args)
    )) as F
}
