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
  // `https:shop.example/done` parses (as https://shop.example/done) but is not how anyone writes a URL: refused.
  if (!/^https?:\/\//i.test(raw)) return Either.left("must start with http:// or https://")
  return Either.right(url)
}

/** `word` in either case, as a pattern without flags (JSON Schema's patterns take none). */
const anyCase = (word: string) => [...word].map((c) => `[${c.toUpperCase()}${c.toLowerCase()}]`).join("")

const octet = "(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])"
const hex = "[0-9A-Fa-f]{1,4}"
const ipv4 = `(?:${octet}\\.){3}${octet}`
/** An IPv6 address in any of its text forms, IPv4 tails included. */
const ipv6 = [
  `(?:${hex}:){6}${ipv4}`,
  `::(?:[Ff]{4}(?::0{1,4})?:)?${ipv4}`,
  `(?:${hex}:){1,4}:${ipv4}`,
  `(?:${hex}:){7}${hex}`,
  `(?:${hex}:){1,7}:`,
  `(?:${hex}:){1,6}:${hex}`,
  ...[2, 3, 4, 5, 6].map((n) => `(?:${hex}:){1,${7 - n}}(?::${hex}){1,${n}}`),
  `:(?:(?::${hex}){1,7}|:)`
].join("|")
const port = "(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[0-9]{1,4})"

/**
 * The shape of a webhook endpoint's URL, checked on the URL as sent and stated as is in the OpenAPI document:
 * `http(s)://`, a host that is a name with a dot (`localhost` aside: a name without one is never public), an IPv4 or
 * a bracketed IPv6 address, an optional port, then a path, query or fragment without spaces or controls. No user
 * information: credentials do not belong in a URL that is shown and logged. Which hosts an endpoint may reach is
 * decided after this, on the parsed URL (Network.ts): the pattern cannot say which addresses are internal.
 */
export const webhookUrlPattern = new RegExp(
  `^${anyCase("http")}[Ss]?://` +
    `(?:(?:[A-Za-z0-9_-]+\\.)+[A-Za-z][A-Za-z0-9_-]*\\.?|${anyCase("localhost")}\\.?|${ipv4}|\\[(?:${ipv6})\\])` +
    `(?::${port})?(?:[/?#][^\\u0000-\\u0020\\u007f]*)?$`
)

