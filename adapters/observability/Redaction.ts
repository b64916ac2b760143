/**
 * What must never reach a log line or a span: API keys, webhook secrets, bearer tokens and card numbers. The
 * logger passes every line it writes through `redactJson`, as a last line of defence: the request log itself never
 * carries bodies or headers, but an error's message or a decode failure's "actual value" may quote its input.
 */
import { isCardNumber } from "../../src/domain/Card.js"

const apiKey = /\b(sk_(?:test|live)_)[A-Za-z0-9_-]+/g
const webhookSecret = /\bwhsec_[A-Za-z0-9+/=_-]+/g
// A token ends at whitespace or a quote, so that redacting JSON text keeps it JSON.
const bearer = /\b(Bearer\s+)[^\s"\\]+/gi
// 12 to 19 digits, optionally grouped by single spaces or dashes (as a card number is typed).
const digitRun = /\b\d(?:[ -]?\d){11,18}\b/g

/**
 * Whether `text` may hold anything the scrub replaces: what each pattern above must begin with, in one pass. Most
 * text (every request's path in the request log, most log lines) holds none, and skips the four passes.
 */
export const mayHoldSecret = (text: string): boolean => anyStart.test(text)
const anyStart = /\bsk_(?:test|live)_|\bwhsec_|\bbearer\s|\b\d(?:[ -]?\d){11}/i

/** `text` with every key, secret, bearer token and Luhn-valid card number replaced. */
export const redactText = (text: string): string => mayHoldSecret(text) ? scrubText(text) : text

/** The scrub itself, whether or not the text may need it (`redactText` asks `mayHoldSecret` first). */
export const scrubText = (text: string): string =>
  secretsRedacted(text).replace(digitRun, (run) => isCardRun(run) ? "[REDACTED]" : run)

const secretsRedacted = (text: string): string =>
  text
    .replace(apiKey, "$1[REDACTED]")
    .replace(webhookSecret, "whsec_[REDACTED]")
    .replace(bearer, "$1[REDACTED]")

const isCardRun = (run: string): boolean => isCardNumber(run.replace(/[ -]/g, ""))

// In JSON text, a run may also be a bare number, with its sign.
const jsonDigitRun = new RegExp(`(-?)(${digitRun.source})`, "g")

/**
 * JSON text with the same things replaced, and still JSON: in a string, a card number becomes `[REDACTED]` as in
 * `redactText`; a bare number that is one becomes the string `"[REDACTED]"`. The digits of a fraction or an
 * exponent are no card number (a bare `0.4242424242424242` stays).
 */
export const redactJson = (json: string): string => mayHoldSecret(json) ? scrubJson(json) : json

/** The JSON scrub itself, whether or not the text may need it (`redactJson` asks `mayHoldSecret` first). */
export const scrubJson = (json: string): string =>
  secretsRedacted(json).replace(jsonDigitRun, (match, sign: string, run: string, offset: number, text: string) => {
    if (!isCardRun(run)) return match
    if (insideString(text, offset)) return `${sign}[REDACTED]`
    const before = text.charCodeAt(offset - 1)
    const after = text[offset + match.length]
    const partOfNumber = before === 46 /* . */ || before === 101 || before === 69 || before === 43 /* e E + */ ||
      after === "." || after === "e" || after === "E"
    return partOfNumber ? match : "\"[REDACTED]\""
  })

/** Whether `offset` in JSON text falls inside a string: rare enough (a Luhn-valid run) to scan for. */
const insideString = (json: string, offset: number): boolean => {
  let inside = false
  for (let i = 0; i < offset; i++) {
    const c = json.charCodeAt(i)
    if (c === 34 /* " */) inside = !inside
    else if (c === 92 /* \ */ && inside) i++
  }
  return inside
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
