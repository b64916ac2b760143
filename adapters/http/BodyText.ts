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

export type Unstorable = "lone surrogate" | "__proto__"

/**
 * What in a JSON text could not be stored as sent, found in one walk over it, or undefined:
 *
 * - `lone surrogate`: a string or key holding one (UTF-8 cannot carry it: it would be stored as U+FFFD). Only a `\u`
 *   escape can produce one.
 * - `__proto__`: an object key `__proto__`. JSON.parse keeps it, but decoding a record (metadata) copies entries by
 *   assignment, which would drop it. Only a text that spells "proto" or has a `\u` escape can hold one.
 *
 * A text that can hold neither is not parsed; malformed JSON holds neither (its handler refuses it).
 */
export const unstorable = (text: string): Unstorable | undefined => {
  const escaped = text.includes("\\u")
  if (!escaped && !text.includes("proto")) return undefined
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  const problemIn = (v: unknown): Unstorable | undefined => {
    if (typeof v === "string") return escaped && !isWellFormed(v) ? "lone surrogate" : undefined
    if (typeof v !== "object" || v === null) return undefined
    if (Array.isArray(v)) {
      for (const item of v) {
        const problem = problemIn(item)
        if (problem !== undefined) return problem
      }
      return undefined
    }
    for (const key of Object.keys(v)) {
      if (key === "__proto__") return "__proto__"
      if (escaped && !isWellFormed(key)) return "lone surrogate"
      const problem = problemIn((v as Record<string, unknown>)[key])
      if (problem !== undefined) return problem
    }
    return undefined
  }
  return problemIn(value)
}
