/**
 * Spans for the use cases every API request runs, made only when the request is traced.
 *
 * `Effect.fn(name)` makes a span on each call, and a span costs even while the tracer is off (a request not sampled,
 * or no exporter configured): a captured stack, a no-op span, the fiber's context copied to hold it, about 12 µs.
 * On `GET /payments/{id}` that was 2 % of the request (docs/performance.md). `whenTraced(name, f)` gives a traced
 * request the same span `Effect.fn(name)` would and an untraced one none.
 */
import { Effect, FiberRef } from "effect"

export const whenTraced = <F extends (...args: Array<any>) => Effect.Effect<any, any, any>>(name: string, f: F): F =>
  ((...args: Parameters<F>) =>
    Effect.withFiberRuntime((fiber) =>
      fiber.getFiberRef(FiberRef.currentTracerEnabled) ? Effect.withSpan(f(...args), name) : f(...args)
    )) as F
