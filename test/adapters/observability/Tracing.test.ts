/**
 * Which requests are traced when an exporter is set: `OTEL_TRACES_SAMPLER` and `OTEL_TRACES_SAMPLER_ARG` as the
 * OpenTelemetry SDKs read them, and the caller's sampled flag for the parent-based samplers.
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Either, Option, Tracer } from "effect"
import fc from "fast-check"
import { isSampled, parentSampled, RequestSampling, SamplerConfig, sampledTracer } from "../../../adapters/observability/Tracing.js"

const read = <A>(config: Effect.Effect<A, unknown>, env: Record<string, string>) =>
  Effect.either(Effect.withConfigProvider(config, ConfigProvider.fromMap(new Map(Object.entries(env)))))

const traceparent = (flags: number) => `00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-${flags.toString(16).padStart(2, "0")}`

describe("the trace sampler", () => {
  it.effect("defaults to parentbased_always_on; each SDK sampler name, in any case, and a ratio from 0 to 1", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* read(SamplerConfig, {}), Either.right({ parentBased: true, ratio: 1 }))
      assert.deepStrictEqual(
        yield* read(SamplerConfig, { OTEL_TRACES_SAMPLER: "TraceIdRatio", OTEL_TRACES_SAMPLER_ARG: "0.1" }),
        Either.right({ parentBased: false, ratio: 0.1 })
      )
      assert.deepStrictEqual(yield* read(SamplerConfig, { OTEL_TRACES_SAMPLER: "always_off" }), Either.right({ parentBased: false, ratio: 0 }))
      for (const env of [{ OTEL_TRACES_SAMPLER: "sometimes" }, { OTEL_TRACES_SAMPLER_ARG: "1.5" }, { OTEL_TRACES_SAMPLER_ARG: "-0.1" }, { OTEL_TRACES_SAMPLER_ARG: "half" }]) {
        assert.isTrue(Either.isLeft(yield* read(SamplerConfig, env)), JSON.stringify(env))
      }
    }))

  it.effect("no exporter, no sampling at all: the server then makes no spans", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* read(RequestSampling, { OTEL_TRACES_SAMPLER: "always_on" }), Either.right(undefined))
      const sampling = yield* read(RequestSampling, { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318", OTEL_TRACES_SAMPLER: "always_off" })
      assert.isTrue(Either.isRight(sampling) && sampling.right !== undefined && !sampling.right(undefined))
    }))

  it("a parent-based sampler follows a well-formed traceparent's flag; otherwise a draw below the ratio is traced", () => {
    fc.assert(fc.property(fc.boolean(), fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }), fc.integer({ min: 0, max: 255 }), fc.constantFrom("none", "valid", "malformed"), (parentBased, ratio, draw, flags, header) => {
      const given = header === "none" ? undefined : header === "valid" ? traceparent(flags) : `00-xyz-${flags}`
      const sampled = isSampled({ parentBased, ratio }, given, draw)
      const follows = parentBased && header === "valid"
      assert.strictEqual(sampled, follows ? (flags & 1) === 1 : draw < ratio)
    }))
    assert.strictEqual(parentSampled(traceparent(1)), true)
    assert.strictEqual(parentSampled(traceparent(0)), false)
    assert.strictEqual(parentSampled("garbage"), undefined)
  })
})

describe("the exporter's tracer under a sampler", () => {
  it("keeps a root with the ratio, a child as its parent, an external parent's child by the rule, a server span always", () => {
    const exported: Array<string> = []
    const inner = Tracer.make({
      context: (f) => f(),
      span: (name, parent) => {
        exported.push(name)
        return { _tag: "Span", name, sampled: true, parent, attributes: new Map(), attribute() {}, end() {}, event() {}, addLinks() {} } as never
      }
    })
    const kinds = fc.constantFrom<Tracer.SpanKind>("internal", "server", "client")
    fc.assert(fc.property(fc.boolean(), fc.double({ min: 0, max: 1, noNaN: true }), fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }), kinds, fc.boolean(), fc.nat(3)), { maxLength: 12 }), (parentBased, ratio, steps) => {
      exported.length = 0
      const draws = steps.map(([d]) => d)
      let i = 0
      const tracer = sampledTracer(inner, { parentBased, ratio }, () => draws[i++ % Math.max(draws.length, 1)] ?? 0)
      const made: Array<Tracer.Span> = []
      const expected: Array<string> = []
      steps.forEach(([, kind, external, pick], n) => {
        const parent: Option.Option<Tracer.AnySpan> = external
          ? Option.some(Tracer.externalSpan({ spanId: "a", traceId: "b", sampled: pick % 2 === 0 }))
          : pick < made.length ? Option.some(made[pick]!) : Option.none()
        const before = i
        const span = tracer.span(`s${n}`, parent, undefined as never, [], 0n, kind, {})
        const draw = draws[before % Math.max(draws.length, 1)] ?? 0
        const keep = kind === "server" || (Option.isSome(parent)
          ? parent.value._tag === "ExternalSpan" && !parentBased ? draw < ratio : parent.value.sampled
          : draw < ratio)
        if (keep) expected.push(`s${n}`)
        assert.strictEqual(span.sampled, keep)
        made.push(span)
      })
      assert.deepStrictEqual(exported, expected)
    }))
  })
})
