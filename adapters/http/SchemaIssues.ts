/**
 * A schema's decode issues as sentences in the merchant's words (`price must be a whole number`, `unknown field
 * 'x'`), never naming a schema. Its own module because two callers share it: the API's `INVALID_REQUEST`
 * (`ErrorMapping.ts`) and the dashboard's forms, which decode with the API's own schemas.
 */
import type * as HttpApiError from "@effect/platform/HttpApiError"

const quoted = (literals: string) => literals.split(" | ").map((l) => `'${l.replace(/^"|"$/g, "")}'`).join(", ")

/** The literal a union member's issue expected (`Expected "draft", actual "x"` gives `"draft"`). */
const literalOf = (message: string): string | undefined =>
  /^Expected ("[^"]*"|\d+|true|false|null), actual /s.exec(message)?.[1]

/**
 * A schema issue's message as a merchant would say it, never naming a schema: the domain's own messages already
 * start with "must"; the built-in ones ("Expected an integer, actual 1.5") are restated.
 */
export const inMerchantWords = (message: string): string => {
  if (/^(must|is|has) /.test(message)) return message
  const expected = /^Expected (.*?), actual /s.exec(message)?.[1] ?? message.replace(/^Expected /, "")
  let m: RegExpExecArray | null
  if ((m = /^a string at least (\d+) character\(s\) long$/.exec(expected)) !== null) {
    return m[1] === "1" ? "must not be empty" : `must be at least ${m[1]} characters`
  }
  if ((m = /^a string at most (\d+) character\(s\) long$/.exec(expected)) !== null) return `must be at most ${m[1]} characters`
  if (/^(a )?string\b/.test(expected)) return "must be a string"
  if (/^an integer$/.test(expected)) {
    // A whole number too large to be exact (2^53 and beyond) is refused for its size, not called fractional.
    const actual = Number(/, actual (\S+)$/s.exec(message)?.[1])
    return Number.isInteger(actual) ? `must be from ${-Number.MAX_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER}` : "must be a whole number"
  }
  if (/^a non-negative number$/.test(expected)) return "must be 0 or more"
  if (/^a positive number$/.test(expected)) return "must be more than 0"
  if ((m = /^a number between (\S+) and (\S+)$/.exec(expected)) !== null) return `must be from ${m[1]} to ${m[2]}`
  if ((m = /^a number greater than or equal to (\S+)$/.exec(expected)) !== null) return `must be ${m[1]} or more`
  if ((m = /^a number less than or equal to (\S+)$/.exec(expected)) !== null) return `must be ${m[1]} or less`
  if (/^(a )?number\b/.test(expected)) return "must be a number"
  if (/^boolean$/.test(expected)) return "must be true or false"
  if (/^null$/.test(expected)) return "must be null"
  if ((m = /^an array of at least (\d+) item/.exec(expected)) !== null) return `must list at least ${m[1]} item${m[1] === "1" ? "" : "s"}`
  if ((m = /^an array of at most (\d+) item/.exec(expected)) !== null) return `must list at most ${m[1]} items`
  if (/^(ReadonlyArray<|array\b|an array)/.test(expected)) return "must be a list"
  if (/^("[^"]*"|\d+|true|false)( \| ("[^"]*"|\d+|true|false|null))*$/.test(expected)) {
    const options = quoted(expected)
    return expected.includes(" | ") ? `must be one of ${options}` : `must be ${options}`
  }
  if (/^(\{|object\b|an object)/.test(expected)) return "must be an object"
  return "is not valid"
}

/**
 * A message the domain wrote as a sentence of its own (`A TRN is 15 digits`, `item_code must be …`), not one of
 * Schema's built-in ones (`Expected …`, `Unable to decode …`) nor a phrase that follows the field (`must …`).
 */
const ownSentence = (message: string): boolean => !/^(Expected|Unable to decode) |^(must|is|has) /.test(message)

/** The domain's sentence after the field it is about, unless it names the field itself. */
const ownWords = (path: string, message: string): string =>
  message.startsWith(`${path} `) ? message : `${path}: ${message}`

/** One readable sentence per schema issue: `name must be …`, `unknown field 'x'`, `price is required`. */
export const describeDecodeError = (error: Pick<HttpApiError.HttpApiDecodeError, "issues">): string => {
  // A union (e.g. an optional field) reports one issue per member, and a nested failure also fails its parent:
  // keep the first, most specific issue per path.
  const keyed = error.issues.map((issue) => ({ issue, path: issue.path.map(String).join(".") }))
  const seen = new Set<string>()
  const issues = keyed.filter(({ path }) => {
    if (seen.has(path)) return false
    seen.add(path)
    return !keyed.some((other) => other.path.startsWith(path === "" ? "" : `${path}.`) && other.path !== path)
  })
  const parts = issues.map(({ issue, path }) => {
    switch (issue._tag) {
      case "Unexpected":
        return path === "" ? "unexpected value" : `unknown field '${path}'`
      case "Missing":
        return path === "" ? "a value is required" : `${path} is required`
      default: {
        if (path === "") return "The request body must be a JSON object of the documented fields"
        // A union of literals fails once per member: name them all.
        const literals = keyed
          .filter((k) => k.path === path && !k.issue.message.startsWith("Expected undefined,"))
          .map((k) => literalOf(k.issue.message))
        if (literals.length > 1 && literals.every((l) => l !== undefined)) {
          return `${path} must be one of ${quoted([...new Set(literals)].join(" | "))}`
        }
        return ownSentence(issue.message) ? ownWords(path, issue.message) : `${path} ${inMerchantWords(issue.message)}`
      }
    }
  })
  return parts.length === 0 ? "The request is invalid" : parts.join("; ")
}
