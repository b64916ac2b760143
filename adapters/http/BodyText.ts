/**
 * A request body's text, read strictly and checked before any handler decodes it: text that is not UTF-8, that
 * nests too deeply, or that holds a lone surrogate is refused up front, because each would otherwise be stored
 * altered or crash deep inside a decoder (`RequestChecks.ts` applies these).
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Cause, Effect, Option } from "effect"
import * as Errors from "../../src/domain/Errors.js"
import { isWellFormed } from "../../src/domain/Text.js"

/** No body of the contract nests beyond a few levels. */
export const maxNesting = 32

/**
 * How deeply a JSON text nests arrays and objects (strings skipped). Checked before decoding: a schema error's
 * message quotes the value it got, and formatting a value nested thousands deep overflows the stack (a 500).
 */
export const nestingOf = (text: string): number => {
  let depth = 0
  let deepest = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 92) i++ // backslash: skip the escaped character
      else if (c === 34) inString = false
    } else if (c === 34) inString = true
    else if (c === 91 || c === 123) deepest = Math.max(deepest, ++depth)
    else if (c === 93 || c === 125) depth--
  }
  return deepest
}

const invalidUtf8 = () => new Errors.InvalidRequest({ message: "The request body is not valid UTF-8" })
const strictDecoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })

/**
 * The body as text, refused when its bytes are not valid UTF-8. The framework decodes leniently (an invalid byte
 * becomes U+FFFD, and the text would be stored altered), so the bytes are read and decoded strictly here, and the
 * request's cached text is seeded with the result for the handlers to read. Both request implementations of the
 * pinned @effect/platform versions cache their text in `textEffect`; without it, the lenient text is used.
 */
export const strictText = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<string, unknown> => {
  if (!("textEffect" in request) || request.textEffect !== undefined) return request.text
  const cache: { textEffect: unknown } = request
  const read = Effect.flatMap(request.arrayBuffer, (bytes) =>
    Effect.try({ try: () => strictDecoder.decode(bytes), catch: invalidUtf8 }))
  return Effect.flatMap(Effect.exit(read), (exit) => {
    // Refused bodies read as empty for the handlers (they never run); a read that failed fails them the same way.
    const refused = exit._tag === "Failure" && Option.exists(Cause.failureOption(exit.cause), (e) => e instanceof Errors.InvalidRequest)
    cache.textEffect = refused ? Effect.succeed("") : exit
    return exit
  })
}

/**
 * Whether some string or object key of a JSON text passes `test`. Malformed JSON passes nothing (its handler
 * refuses it).
 */
const anyTextIn = (text: string, test: { readonly key: (k: string) => boolean; readonly value: (s: string) => boolean }) => {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return false
  }
  const visit = (v: unknown): boolean =>
    typeof v === "string"
      ? test.value(v)
      : Array.isArray(v)
      ? v.some(visit)
      : typeof v === "object" && v !== null && Object.keys(v).some((k) => test.key(k) || visit((v as Record<string, unknown>)[k]))
  return visit(value)
}

/**
 * Whether a JSON text has an object key `__proto__`. JSON.parse keeps it as a key, but decoding a record (metadata)
 * copies entries by assignment, which would drop it: the body is refused instead of stored altered. Only a text that
 * spells "proto" or has a `\u` escape can hold one, so other texts are not parsed.
 */
export const hasProtoKey = (text: string): boolean =>
  (text.includes("proto") || text.includes("\\u")) && anyTextIn(text, { key: (k) => k === "__proto__", value: () => false })

/**
 * Whether a JSON text decodes to a string holding a lone surrogate (which UTF-8 cannot carry: it would be stored as
 * U+FFFD). Only a `\u` escape can produce one, so a text without an escape is not parsed.
 */
export const hasLoneSurrogate = (text: string): boolean =>
  text.includes("\\u") && anyTextIn(text, { key: (k) => !isWellFormed(k), value: (s) => !isWellFormed(s) })
