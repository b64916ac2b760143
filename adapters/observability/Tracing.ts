/**
 * OpenTelemetry traces over OTLP/HTTP when `OTEL_EXPORTER_OTLP_ENDPOINT` is set: every span Effect makes (the HTTP
 * server span of each request, the `Effect.fn` spans of the use cases, the SQL statements) is batched and sent to
 * `<endpoint>/v1/traces`, under the service name `OTEL_SERVICE_NAME` (default `fils`).
 *
 * Without the variable this is `Layer.empty`: the OpenTelemetry SDK is not even loaded (the modules are imported
 * only when tracing is on), and Effect keeps its built-in in-process spans, which export nothing.
 */
import { Config, Effect, Layer, Option } from "effect"

export const TracingConfig = Config.all({
  endpoint: Config.option(Config.nonEmptyString("OTEL_EXPORTER_OTLP_ENDPOINT")),
  serviceName: Config.nonEmptyString("OTEL_SERVICE_NAME").pipe(Config.withDefault("fils"))
})

/** `<endpoint>/v1/traces`, as the OTLP specification builds the per-signal URL from the base endpoint. */
export const tracesUrl = (endpoint: string): string => `${endpoint.replace(/\/+$/, "")}/v1/traces`

export const TracingLive: Layer.Layer<never> = Layer.unwrapEffect(
  Effect.gen(function*() {
    const { endpoint, serviceName } = yield* Effect.orDie(TracingConfig)
    if (Option.isNone(endpoint)) return Layer.empty
    const [NodeSdk, { BatchSpanProcessor }, { OTLPTraceExporter }] = yield* Effect.promise(() =>
      Promise.all([
        import("@effect/opentelemetry/NodeSdk"),
        import("@opentelemetry/sdk-trace-base"),
        import("@opentelemetry/exporter-trace-otlp-http")
      ])
    )
    return NodeSdk.layer(() => ({
      resource: { serviceName },
      spanProcessor: new BatchSpanProcessor(new OTLPTraceExporter({ url: tracesUrl(endpoint.value) }))
    })).pipe(Layer.discard)
  })
)
