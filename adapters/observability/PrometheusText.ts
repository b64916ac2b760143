/** The Prometheus text exposition format (version 0.0.4): names, labels, values, HELP and TYPE lines. */

export const contentType = "text/plain; version=0.0.4; charset=utf-8"

export type Labels = ReadonlyArray<readonly [string, string]>

const escapeLabel = (value: string) => value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, "\\\"")
const escapeHelp = (value: string) => value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n")

export const formatLabels = (labels: Labels) =>
  labels.length === 0 ? "" : `{${labels.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(",")}}`

export const formatValue = (value: number | bigint) =>
  typeof value === "bigint"
    ? value.toString()
    : value === Number.POSITIVE_INFINITY
    ? "+Inf"
    : value === Number.NEGATIVE_INFINITY
    ? "-Inf"
    : Number.isNaN(value)
    ? "NaN"
    : String(value)

export const sample = (name: string, labels: Labels, value: number | bigint) => `${name}${formatLabels(labels)} ${formatValue(value)}`

export const header = (name: string, type: "counter" | "gauge" | "histogram", help: string) => [
  `# HELP ${name} ${escapeHelp(help)}`,
  `# TYPE ${name} ${type}`
]

