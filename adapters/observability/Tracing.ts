/**
 * OpenTelemetry traces over OTLP/HTTP when `OTEL_EXPORTER_OTLP_ENDPOINT` is set: every span Effect makes (the HTTP
 * server span of each request, the `Effect.fn` spans of the use cases, the SQL statements) is batched (every second)
 * and sent as OTLP JSON to `<endpoint>/v1/traces`, under the service name `OTEL_SERVICE_NAME` (default `fils`), with
 * the headers of `OTEL_EXPORTER_OTLP_HEADERS`. The exporter is `@effect/opentelemetry`'s own, over the platform's
 * HttpClient: no OpenTelemetry SDK is involved.
 *
 * Without the variable this is `Layer.empty`: the exporter is not even loaded, and Effect keeps its built-in
 * in-process spans, which export nothing.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { Config, ConfigError, Duration, Effect, Either, Layer, Option, Redacted } from "effect"

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

export const TracingLive: Layer.Layer<never> = Layer.unwrapEffect(
  Effect.gen(function*() {
    const { endpoint, headers, serviceName } = yield* Effect.orDie(TracingConfig)
    if (Option.isNone(endpoint)) return Layer.empty
    // Effect's own OTLP exporter (JSON over the platform's HttpClient): no OpenTelemetry SDK to install or load.
    const [OtlpTracer, OtlpSerialization] = yield* Effect.promise(() =>
      Promise.all([import("@effect/opentelemetry/OtlpTracer"), import("@effect/opentelemetry/OtlpSerialization")])
    )
    return OtlpTracer.layer({
      url: tracesUrl(endpoint.value),
      resource: { serviceName },
      headers: Option.getOrElse(headers, () => ({})),
      exportInterval: Duration.seconds(1),
      shutdownTimeout: Duration.seconds(5)
    }).pipe(Layer.provide(OtlpSerialization.layerJson), Layer.provide(FetchHttpClient.layer))
  })
)
