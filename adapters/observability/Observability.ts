/**
 * What `fils serve` installs at its edge: JSON logs on stdout (`FILS_LOG_LEVEL`), and OpenTelemetry traces when
 * `OTEL_EXPORTER_OTLP_ENDPOINT` is set. Request metrics need nothing installed (Effect's registry is built in);
 * `GET /metrics` renders them.
 */
import { Layer } from "effect"
import { JsonLogging } from "./Logging.js"
import { TracingLive } from "./Tracing.js"

export const ObservabilityLive: Layer.Layer<never> = Layer.mergeAll(JsonLogging, TracingLive)
