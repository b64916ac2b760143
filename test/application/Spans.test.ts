/**
 * `whenTraced`: a traced call runs in a span of its name, as `Effect.fn(name)` gives; with the tracer off (a request
 * not sampled) it runs with no span of its own, and its result and failure are the function's either way.
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Option } from "effect"
import { whenTraced } from "../../src/application/Spans.js"

const spanName = Effect.map(Effect.option(Effect.currentSpan), Option.map((s) => s.name))
const probe = whenTraced("Probe.run", Effect.fnUntraced(function*(n: number) {
  if (n < 0) return yield* Effect.fail(`negative: ${n}`)
  return { n: n + 1, span: yield* spanName }
}))

describe("whenTraced", () => {
  it.effect("traced: the call runs in a span of its name", () =>
    Effect.gen(function*() {
      const result = yield* probe(1).pipe(Effect.withSpan("request"))
      expect(result).toEqual({ n: 2, span: Option.some("Probe.run") })
    }))

  it.effect("tracer off: no span of its own, the caller's stays current", () =>
    Effect.gen(function*() {
      const result = yield* probe(1).pipe(Effect.withTracerEnabled(false), Effect.withSpan("request"))
      expect(result).toEqual({ n: 2, span: Option.some("request") })
    }))

  it.effect("a traced failure names the use case and where it is defined", () =>
    Effect.gen(function*() {
      const failing = whenTraced("Probe.fail", Effect.fnUntraced(function*() {
        return yield* Effect.fail(new Error("declined"))
      }))
      const exit = yield* Effect.exit(failing())
      expect(Exit.isFailure(exit)).toBe(true)
      if (Exit.isFailure(exit)) expect(Cause.pretty(exit.cause)).toMatch(/at Probe\.fail \(.*Spans\.test\.ts:\d+/)
    }))

  it.effect("fails as the function fails, traced or not", () =>
    Effect.gen(function*() {
      for (const enabled of [true, false]) {
        const exit = yield* Effect.exit(probe(-1).pipe(Effect.withTracerEnabled(enabled)))
        expect(exit).toEqual(Exit.fail("negative: -1"))
      }
    }))
})
