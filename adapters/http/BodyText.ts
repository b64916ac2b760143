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

/** What `shapeOf` finds in a JSON text. */
export interface JsonShape {
  /** How deeply arrays and objects nest. */
  readonly depth: number
  /** The first key an object gives twice (as decoded, `"\u0061"` being `"a"`), if any. */
  readonly repeatedKey: string | undefined
}

const isJsonSpace = (c: number) => c === 32 || c === 9 || c === 10 || c === 13

/** A key as JSON spells it (`raw`, quotes included) decoded; as spelled when it is malformed (the handler refuses it). */
const decodedKey = (raw: string): string => {
  try {
    return JSON.parse(raw) as string
  } catch {
    return raw
  }
}

/**
 * How deeply a JSON text nests arrays and objects, and the first key an object repeats, in one walk (strings
 * skipped). Checked before decoding: a schema error's message quotes the value it got, and formatting a value nested
 * thousands deep overflows the stack (a 500); `JSON.parse` keeps the last of a repeated key and drops the others, so
 * `{"price":100000,"price":1}` would be read as a price of 1 without a word.
 */
export const shapeOf = (text: string): JsonShape => {
  let deepest = 0
  let repeatedKey: string | undefined = undefined
  // One entry per open bracket: the keys of an object so far, or null for an array.
  const open: Array<Set<string> | null> = []
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 34) {
      const start = i
      let escaped = false
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i)
        if (d === 92) {
          escaped = true
          i++ // skip the escaped character
        } else if (d === 34) break
      }
      const keys = open[open.length - 1]
      if (keys === undefined || keys === null || repeatedKey !== undefined) continue
      // In an object, a string followed by `:` is a key.
      let next = i + 1
      while (next < text.length && isJsonSpace(text.charCodeAt(next))) next++
      if (text.charCodeAt(next) !== 58) continue
      const key = escaped ? decodedKey(text.slice(start, i + 1)) : text.slice(start + 1, i)
      if (keys.has(key)) repeatedKey = key
      else keys.add(key)
    } else if (c === 123 || c === 91) {
      open.push(c === 123 ? new Set() : null)
      deepest = Math.max(deepest, open.length)
    } else if (c === 125 || c === 93) open.pop()
  }
  return { depth: deepest, repeatedKey }
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
