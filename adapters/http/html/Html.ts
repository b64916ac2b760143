/** HTML escaping for the hosted pages: every merchant- or customer-supplied string goes through `escape`. */

const entities: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" }

export const escape = (value: unknown): string => String(value ?? "").replace(/[&<>"']/g, (c) => entities[c]!)

/** A tagged template whose interpolations are escaped, unless wrapped in `raw`. */
export interface Raw {
  readonly __html: string
}
export const raw = (html: string): Raw => ({ __html: html })

const render = (value: unknown): string =>
  typeof value === "object" && value !== null && "__html" in value
    ? (value as Raw).__html
    : Array.isArray(value)
    ? value.map(render).join("")
    : escape(value)

export const html = (strings: TemplateStringsArray, ...values: ReadonlyArray<unknown>): Raw =>
  raw(strings.reduce((out, s, i) => out + s + (i < values.length ? render(values[i]) : ""), ""))
