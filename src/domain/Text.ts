/**
 * Text as a merchant counts it. A length limit counts characters, that is Unicode code points (as JSON Schema's
 * `maxLength` does), not UTF-16 units: an emoji is one character. Text that cannot be stored as it was sent (a lone
 * surrogate, which PostgreSQL and UTF-8 would turn into U+FFFD, or a NUL, which PostgreSQL refuses) is refused, never
 * altered.
 */
import { Schema } from "effect"

const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

/** Whether `s` is well-formed UTF-16, so that it survives UTF-8 unchanged. */
export const isWellFormed = (s: string): boolean => !loneSurrogate.test(s)

/** The number of characters (code points) in `s`. */
export const characters = (s: string): number => {
  let n = s.length
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i)
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1)
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--
        i++
      }
    }
  }
  return n
}

/**
 * `s` cut to at most `max` characters (code points, never half a pair), the last of them `…` when it was cut: for
 * text made from the merchant's (a payment's description from its lines), not for text they sent, which is refused.
 */
export const shortened = (s: string, max: number): string => {
  if (characters(s) <= max) return s
  return `${Array.from(s).slice(0, max - 1).join("")}…`
}

/** Why `s` cannot be stored as sent, or `undefined` when it can. */
export const unstorable = (s: string): string | undefined =>
  !isWellFormed(s)
    ? "must be valid Unicode text (it holds a lone surrogate)"
    : s.includes("\u0000")
    ? "must not contain NUL characters"
    : undefined

/** The phrase a length limit is stated in: `1 to 200 characters`, `at most 5000 characters`. */
export const lengthPhrase = (min: number, max: number): string =>
  min === 0 ? `at most ${max} characters` : min === max ? `exactly ${min} characters` : `${min} to ${max} characters`

/** Whether `s` is storable and `min` to `max` characters long; the reason in the merchant's words otherwise. */
export const check = (s: string, min: number, max: number): true | string => {
  const bad = unstorable(s)
  if (bad !== undefined) return bad
  const n = characters(s)
  return (n >= min && n <= max) || `must be ${lengthPhrase(min, max)}`
}

/**
 * How the OpenAPI document states "storable": no NUL (JSON Schema has no keyword for a lone surrogate, refused too;
 * the document's descriptions say so).
 */
export const storablePattern = "^[^\\u0000]*$"

/** Any storable string: well-formed and without NUL. */
export const Storable = Schema.String.pipe(
  Schema.filter((s) => unstorable(s) ?? true, { jsonSchema: { pattern: storablePattern } })
)

/** A storable string of `min` to `max` characters (code points). */
export const Text = (min: number, max: number) =>
  Schema.String.pipe(
    Schema.filter((s) => check(s, min, max), {
      jsonSchema: { ...(min > 0 ? { minLength: min } : {}), maxLength: max, pattern: storablePattern }
    })
  )
