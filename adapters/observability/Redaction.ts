/**
 * What must never reach a log line or a span: API keys, webhook secrets, bearer tokens and card numbers. The
 * logger passes every string it writes through `redact`, as a last line of defence: the request log itself never
 * carries bodies or headers, but an error's message or a decode failure's "actual value" may quote its input.
 */

const apiKey = /\b(sk_(?:test|live)_)[A-Za-z0-9_-]+/g
const webhookSecret = /\bwhsec_[A-Za-z0-9+/=_-]+/g
// A token ends at whitespace or a quote, so that redacting JSON text keeps it JSON.
const bearer = /\b(Bearer\s+)[^\s"\\]+/gi
// 12 to 19 digits, optionally grouped by single spaces or dashes (as a card number is typed).
const digitRun = /\b\d(?:[ -]?\d){11,18}\b/g

/** Luhn's check: the card-number shape, so order numbers and timestamps stay readable. */
export const luhn = (digits: string): boolean => {
  let sum = 0
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48
    if (i % 2 === 1) {
      d *= 2
      if (d > 9) d -= 9
    }
    sum += d
  }
  return sum % 10 === 0
}

/** `text` with every key, secret, bearer token and Luhn-valid card number replaced. */
export const redactText = (text: string): string =>
  text
    .replace(apiKey, "$1[REDACTED]")
    .replace(webhookSecret, "whsec_[REDACTED]")
    .replace(bearer, "$1[REDACTED]")
    .replace(digitRun, (run) => {
      const digits = run.replace(/[ -]/g, "")
      return digits.length >= 12 && luhn(digits) ? "[REDACTED]" : run
    })

/** A JSON-ready value with every string in it redacted (keys too); numbers are left alone. */
export const redact = (value: unknown): unknown => {
  if (typeof value === "string") return redactText(value)
  if (Array.isArray(value)) return value.map(redact)
  if (typeof value === "object" && value !== null) {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) out[redactText(k)] = redact(v)
    return out
  }
  return value
}

/**
 * The route of a request whose path is a one-time capability (a customer portal link, a dashboard sign-in link),
 * with its secret left out: such requests are not traced (their span would record the URL, secret and all), so
 * this names them in the request log and metrics instead. `undefined` for any other path.
 */
export const capabilityRoute = (url: string): string | undefined => {
  // Every request asks (the tracer's predicate): most paths are turned away without the regex.
  if (!url.includes("/portal/") && !url.includes("/dashboard/sign-in/")) return undefined
  const match = /\/(portal|dashboard\/sign-in)\/(?!sign-out(?:[?#]|$))[^/?#]+(?:[?#]|$)/.exec(url)
  return match === null ? undefined : `/${match[1]}/{token}`
}
