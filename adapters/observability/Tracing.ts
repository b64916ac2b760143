/**
 * OpenTelemetry traces over OTLP/HTTP when `OTEL_EXPORTER_OTLP_ENDPOINT` is set: every span Effect makes (the HTTP
 * server span of each request, the `Effect.fn` spans of the use cases, the SQL statements) is batched (every second)
 * and sent as OTLP JSON to `<endpoint>/v1/traces`, under the service name `OTEL_SERVICE_NAME` (default `fils`), with
 * the headers of `OTEL_EXPORTER_OTLP_HEADERS`. The exporter is `@effect/opentelemetry`'s own, over the platform's
 * HttpClient: no OpenTelemetry SDK is involved.
 *
 * Without the variable this is `Layer.empty`: the exporter is not even loaded, and the server makes no spans at all
 * (`RequestSampling` is then `undefined`: see `Server.ts`). With it, `OTEL_TRACES_SAMPLER` and
 * `OTEL_TRACES_SAMPLER_ARG` choose which requests are traced, as the OpenTelemetry SDKs read them.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { Config, ConfigError, Duration, Effect, Either, Layer, Option, Redacted, Tracer } from "effect"
import { UnexportedSpan } from "./UnexportedSpan.js"

/**
 * `OTEL_EXPORTER_OTLP_HEADERS` as the OpenTelemetry specification writes it (`key=value` pairs, comma-separated,
 * values URL-encoded), read through Config so that it may come from a file or the `.env` file like every secret.
 */
export const parseOtlpHeaders = (text: string): Record<string, string> | undefined => {
  const headers: Record<string, string> = {}
  for (const pair of text.split(",")) {
    if (pair.trim() === "") continue
    const at = pair.indexOf("=")
    if (at <= 0) return undefined
    try {
      headers[decodeURIComponent(pair.slice(0, at).trim())] = decodeURIComponent(pair.slice(at + 1).trim())
    } catch {
      return undefined
    }
  }
  return headers
}

export const TracingConfig = Config.all({
  endpoint: Config.option(Config.nonEmptyString("OTEL_EXPORTER_OTLP_ENDPOINT")),
  serviceName: Config.nonEmptyString("OTEL_SERVICE_NAME").pipe(Config.withDefault("fils")),
  headers: Config.option(Config.redacted("OTEL_EXPORTER_OTLP_HEADERS").pipe(
    Config.mapOrFail((secret) => {
      const parsed = parseOtlpHeaders(Redacted.value(secret))
      return parsed === undefined
        ? Either.left(ConfigError.InvalidData(["OTEL_EXPORTER_OTLP_HEADERS"], "OTEL_EXPORTER_OTLP_HEADERS must be key=value pairs separated by commas"))
        : Either.right(parsed)
    })
  ))
})

/** `<endpoint>/v1/traces`, as the OTLP specification builds the per-signal URL from the base endpoint. */
export const tracesUrl = (endpoint: string): string => `${endpoint.replace(/\/+$/, "")}/v1/traces`

/**
 * The exporter's tracer, sampling what starts outside a request (start-up, the billing and delivery workers): a new
 * root trace is kept with the sampler's ratio, a child follows its parent. An HTTP server span is always kept: the
 * server made it only for a request the sampler picked (`RequestSampling`), and made none for the others.
 */
export const sampledTracer = (tracer: Tracer.Tracer, sampler: Sampler, draw: () => number = Math.random): Tracer.Tracer =>
  Tracer.make({
    context: tracer.context,
    span(name, parent, context, links, startTime, kind, options) {
      const keep = kind === "server" ||
        (Option.isSome(parent)
          ? parent.value._tag === "ExternalSpan" && !sampler.parentBased ? draw() < sampler.ratio : parent.value.sampled
          : draw() < sampler.ratio)
      return keep ? tracer.span(name, parent, context, links, startTime, kind, options) : new UnexportedSpan()
    }
  })

export const TracingLive: Layer.Layer<never> = Layer.unwrapEffect(
  Effect.gen(function*() {
    const { endpoint, headers, serviceName } = yield* Effect.orDie(TracingConfig)
    if (Option.isNone(endpoint)) return Layer.empty
    const sampler = yield* Effect.orDie(SamplerConfig)
    // Effect's own OTLP exporter (JSON over the platform's HttpClient): no OpenTelemetry SDK to install or load.
    const [OtlpTracer, OtlpSerialization] = yield* Effect.promise(() =>
      Promise.all([import("@effect/opentelemetry/OtlpTracer"), import("@effect/opentelemetry/OtlpSerialization")])
    )
    const exporter = OtlpTracer.make({
      url: tracesUrl(endpoint.value),
      resource: { serviceName },
      headers: Option.getOrElse(headers, () => ({})),
      exportInterval: Duration.seconds(1),
      shutdownTimeout: Duration.seconds(5)
    })
    return Layer.unwrapScoped(Effect.map(exporter, (tracer) => Layer.setTracer(sampledTracer(tracer, sampler)))).pipe(
      Layer.provide(OtlpSerialization.layerJson),
      Layer.provide(FetchHttpClient.layer)
    )
  })
)

/**
 * Which requests are traced: a root request (no `traceparent`) with probability `ratio`; with `parentBased`, a
 * request that continues a caller's trace follows the caller's sampled flag instead.
 */
export interface Sampler {
  readonly parentBased: boolean
  readonly ratio: number
}

const samplers: Record<string, (ratio: number) => Sampler> = {
  always_on: () => ({ parentBased: false, ratio: 1 }),
  always_off: () => ({ parentBased: false, ratio: 0 }),
  traceidratio: (ratio) => ({ parentBased: false, ratio }),
  parentbased_always_on: () => ({ parentBased: true, ratio: 1 }),
  parentbased_always_off: () => ({ parentBased: true, ratio: 0 }),
  parentbased_traceidratio: (ratio) => ({ parentBased: true, ratio })
}

/**
 * `OTEL_TRACES_SAMPLER` (default `parentbased_always_on`, as in the OpenTelemetry SDKs) and, for the two ratio
 * samplers, `OTEL_TRACES_SAMPLER_ARG`: the share of root requests traced, from 0 to 1 (default 1).
 */
export const SamplerConfig: Config.Config<Sampler> = Config.all({
  name: Config.string("OTEL_TRACES_SAMPLER").pipe(
    Config.withDefault("parentbased_always_on"),
    Config.validate({
      message: `OTEL_TRACES_SAMPLER must be one of ${Object.keys(samplers).join(", ")}`,
      validation: (name) => name.trim().toLowerCase() in samplers
    })
  ),
  ratio: Config.number("OTEL_TRACES_SAMPLER_ARG").pipe(
    Config.withDefault(1),
    Config.validate({ message: "OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1", validation: (r) => r >= 0 && r <= 1 })
  )
}).pipe(Config.map(({ name, ratio }) => samplers[name.trim().toLowerCase()]!(ratio)))

/** A W3C `traceparent`'s sampled flag, or `undefined` when the header is absent or malformed. */
export const parentSampled = (traceparent: string | undefined): boolean | undefined => {
  if (traceparent === undefined) return undefined
  const match = /^[\da-f]{2}-[\da-f]{32}-[\da-f]{16}-([\da-f]{2})$/.exec(traceparent.trim())
  return match === null ? undefined : (parseInt(match[1]!, 16) & 1) === 1
}

/** Whether a request is traced: its caller's decision when the sampler follows parents, else a draw in [0, 1). */
export const isSampled = (sampler: Sampler, traceparent: string | undefined, draw: number): boolean => {
  const parent = sampler.parentBased ? parentSampled(traceparent) : undefined
  return parent ?? draw < sampler.ratio
}

/**
 * Which requests the server traces, from the request's `traceparent` header: `undefined` when nothing is exported
 * (no `OTEL_EXPORTER_OTLP_ENDPOINT`), so that the server makes no spans at all.
 */
export const RequestSampling: Config.Config<((traceparent: string | undefined) => boolean) | undefined> = Config.all({
  tracing: TracingConfig,
  sampler: SamplerConfig
}).pipe(Config.map(({ sampler, tracing }) =>
  Option.isNone(tracing.endpoint) ? undefined : (traceparent: string | undefined) => isSampled(sampler, traceparent, Math.random())
))
