/**
 * Addresses a merchant gives us (a checkout's `return_url`, a webhook endpoint's `url`): an absolute http(s) URL as
 * the WHATWG URL parser reads it, taken only as sent. The parser would quietly drop surrounding spaces and C0
 * controls and remove tabs and newlines anywhere; such input is refused instead, and what is kept is the parser's
 * normalized form (`href`), so what we store is what every browser and HTTP client will use.
 */
import { Either } from "effect"

/** How the OpenAPI document states the rule (the parser's normalizing is more than a pattern can say). */
export const httpUrlJsonSchema = { format: "uri", pattern: "^[Hh][Tt][Tt][Pp][Ss]?://[^\\s\\u0000-\\u001f]+$", maxLength: 2048 } as const

/** Spaces and controls the parser would strip or remove, and any other control character. */
const altered = /^[\u0000-\u0020]|[\u0000-\u001f\u007f]|[\u0000-\u0020]$/

/** The URL in `raw`, or why it is not an absolute http(s) URL taken as sent (a phrase after the field's name). */
export const parseHttpUrl = (raw: string): Either.Either<URL, string> => {
  if (altered.test(raw)) return Either.left("must not contain spaces or control characters around or inside it")
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return Either.left("must be an absolute URL")
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return Either.left("must use http or https")
  return Either.right(url)
}
