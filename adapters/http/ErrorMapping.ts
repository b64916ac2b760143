/**
 * Every failure, from every layer, becomes `{ code, message }` with its status (docs/decisions.md §8): schema decode
 * failures, malformed JSON, oversized bodies, unknown routes and methods, an unreachable store, and defects (500,
 * with no internals in the message; the cause is logged).
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiError from "@effect/platform/HttpApiError"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Cause, Effect, Option } from "effect"
import * as Errors from "../../src/domain/Errors.js"
import { isWellFormed } from "../../src/domain/Text.js"
import { FilsApi } from "./Api.js"
import { InternalError, isApiError, MethodNotAllowed, PayloadTooLarge } from "./Errors.js"

export const maxBodyBytes = 1024 * 1024

/** Routes outside the API contract (pages, health, documents), for telling 405 from 404. */
export const extraRoutes: Array<{ readonly method: string; readonly path: string }> = [
  { method: "GET", path: "/health" },
  { method: "GET", path: "/ready" },
  { method: "GET", path: "/metrics" },
  { method: "GET", path: "/favicon.ico" },
  { method: "GET", path: "/docs" },
  { method: "GET", path: "/api/v1/openapi.json" },
  { method: "GET", path: "/checkout/:id" },
  { method: "POST", path: "/checkout/:id" }
]

const toPattern = (path: string) =>
  new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/\/:[^/]+/g, "/[^/]+")}/?$`)

const routes: Array<{ readonly method: string; readonly pattern: RegExp }> = []
HttpApi.reflect(FilsApi, {
  onGroup: () => {},
  onEndpoint: ({ endpoint }) => routes.push({ method: endpoint.method, pattern: toPattern(endpoint.path) })
})

/** The methods a path accepts (empty when no route has that path). */
export const allowedMethods = (path: string): ReadonlyArray<string> => [
  ...new Set([
    ...routes.filter((r) => r.pattern.test(path)).map((r) => r.method),
    ...extraRoutes.filter((r) => toPattern(r.path).test(path)).map((r) => r.method)
  ])
]

const pathOf = (url: string): string => {
  const q = url.indexOf("?")
  const path = q === -1 ? url : url.slice(0, q)
  // An absolute-form target (`GET http://host/api/v1/… HTTP/1.1`) is routed by its path.
  if (!path.startsWith("/")) {
    try {
      return new URL(path).pathname
    } catch {
      return path
    }
  }
  return path
}

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
  if (/^(a )?string\b/.test(expected)) return "must be a string"
  if (/^an integer$/.test(expected)) return "must be a whole number"
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
        return `${path} ${inMerchantWords(issue.message)}`
      }
    }
  })
  return parts.length === 0 ? "The request is invalid" : parts.join("; ")
}

const isMaxBytes = (u: unknown) =>
  u instanceof Error && u.message.includes("maxBytes exceeded")

/** Every error the API declares at the top level (the endpoint-specific ones pass through as they are). */
export type ApiFailure =
  | Errors.InvalidRequest
  | Errors.NotFound
  | Errors.Unauthorized
  | Errors.RateLimited
  | Errors.StoreUnavailable
  | MethodNotAllowed
  | PayloadTooLarge
  | InternalError

const mapFailure = (error: unknown, request: HttpServerRequest.HttpServerRequest): ApiFailure | undefined => {
  // Already one of ours, endpoint-specific ones included: the API's error schema encodes it.
  if (isApiError(error)) return error as ApiFailure
  if (error instanceof HttpApiError.HttpApiDecodeError) {
    return new Errors.InvalidRequest({ message: describeDecodeError(error) })
  }
  if (HttpServerError.isServerError(error)) {
    if (error._tag === "RouteNotFound") {
      const path = pathOf(request.url)
      const allowed = allowedMethods(path)
      return allowed.length === 0
        ? new Errors.NotFound({ message: `No route for ${request.method} ${path}` })
        : new MethodNotAllowed({ message: `${request.method} is not allowed on ${path}; use ${allowed.join(", ")}` })
    }
    if (error._tag === "RequestError" && error.reason === "Decode") {
      return isMaxBytes(error.cause)
        ? new PayloadTooLarge({ message: `The request body is larger than ${maxBodyBytes} bytes` })
        : new Errors.InvalidRequest({ message: "The request body is not valid JSON" })
    }
  }
  return undefined
}

/**
 * The framework's body reader destroys a request whose body passes the limit, and Node then drops the connection
 * before any answer. For a Node request, make that "destroy" drain the rest instead, so the client reads a 413.
 */
const drainInsteadOfDestroy = (request: HttpServerRequest.HttpServerRequest) => {
  const source = (request as unknown as { readonly source?: unknown }).source
  if (typeof source !== "object" || source === null || !("resume" in source) || !("destroy" in source)) return
  const incoming = source as { resume: () => void; destroy: (...args: ReadonlyArray<unknown>) => unknown }
  incoming.destroy = () => {
    incoming.resume()
    return incoming
  }
}

const closeConnection = HttpApp.appendPreResponseHandler((_request, response) =>
  Effect.succeed(HttpServerResponse.setHeader(response, "connection", "close"))
)

/**
 * Whether the request is for the API, as the router would see it: it matches case-insensitively, after decoding
 * `%xx` and with repeated slashes collapsed (`//%61pi/v1/…` reaches the API too). A non-JSON body that slipped
 * past this check would make the framework wait forever for a multipart stream that was already read.
 */
const isApiPath = (url: string) => {
  let path = pathOf(url)
  try {
    path = decodeURIComponent(path)
  } catch {
    // Malformed escapes: matched as written.
  }
  return /^\/+api\//i.test(path.replace(/\/{2,}/g, "/"))
}

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

/**
 * The body as text, refused when its bytes are not valid UTF-8. The framework decodes leniently (an invalid byte
 * becomes U+FFFD, and the text would be stored altered), so the bytes are read and decoded strictly here, and the
 * request's cached text is seeded with the result for the handlers to read. Both request implementations of the
 * pinned @effect/platform versions cache their text in `textEffect`; without it, the lenient text is used.
 */
const strictText = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<string, unknown> => {
  const cache = request as unknown as { textEffect?: Effect.Effect<string, unknown> }
  if (!("textEffect" in cache) || cache.textEffect !== undefined) return request.text
  const read = Effect.flatMap(request.arrayBuffer, (bytes) =>
    Effect.try({ try: () => strictDecoder.decode(bytes), catch: invalidUtf8 }))
  return Effect.flatMap(Effect.exit(read), (exit) => {
    // Refused bodies read as empty for the handlers (they never run); a read that failed fails them the same way.
    const refused = exit._tag === "Failure" && Option.exists(Cause.failureOption(exit.cause), (e) => e instanceof Errors.InvalidRequest)
    cache.textEffect = refused ? Effect.succeed("") : exit
    return exit
  })
}
const strictDecoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })

/**
 * Whether a JSON text decodes to a string holding a lone surrogate (which UTF-8 cannot carry: it would be stored as
 * U+FFFD). Only a `\u` escape can produce one, so a text without an escape is not parsed.
 */
export const hasLoneSurrogate = (text: string): boolean => {
  if (!text.includes("\\u")) return false
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return false // malformed JSON: the handler refuses it
  }
  const visit = (v: unknown): boolean =>
    typeof v === "string"
      ? !isWellFormed(v)
      : Array.isArray(v)
      ? v.some(visit)
      : typeof v === "object" && v !== null && Object.entries(v).some(([k, x]) => !isWellFormed(k) || visit(x))
  return visit(value)
}

const hasBody = (method: string) => method === "POST" || method === "PATCH" || method === "PUT"

/**
 * Any failure of a request as the API's error to encode: its own errors as they are, the framework's as `{ code,
 * message }` errors of the contract, a defect as `500 INTERNAL` (logged with its cause).
 */
export const mapFailures = (request: HttpServerRequest.HttpServerRequest) =>
  (cause: Cause.Cause<unknown>): Effect.Effect<never, ApiFailure> => {
    if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
    const failure = Cause.failureOption(cause)
    const squashed = Option.isSome(failure) ? failure.value : Cause.squash(cause)
    const mapped = mapFailure(squashed, request)
    if (mapped instanceof PayloadTooLarge) return Effect.zipRight(closeConnection, Effect.fail(mapped))
    if (mapped instanceof MethodNotAllowed) {
      const allow = allowedMethods(pathOf(request.url)).join(", ")
      return Effect.zipRight(
        HttpApp.appendPreResponseHandler((_request, response) =>
          Effect.succeed(HttpServerResponse.setHeader(response, "allow", allow))
        ),
        Effect.fail(mapped)
      )
    }
    if (mapped !== undefined) return Effect.fail(mapped)
    return Effect.zipRight(
      Effect.logError("Unexpected error while handling a request", cause),
      Effect.fail(new InternalError({ message: "An unexpected error occurred" }))
    )
  }

/** The request checks above, around the API's router, and every failure mapped (`mapFailures`). */
export const mapErrors = (app: HttpApp.Default): HttpApp.Default<ApiFailure> =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    // Refuse a declared oversize body before reading a byte of it.
    const length = Number(request.headers["content-length"] ?? "0")
    if (length > maxBodyBytes) {
      yield* closeConnection
      return yield* new PayloadTooLarge({ message: `The request body is larger than ${maxBodyBytes} bytes` })
    }
    // The router would cut the path at a `;` and read the rest as the query (dropping the real one): no route of
    // ours has a `;`, so such a path names nothing.
    if (pathOf(request.url).includes(";")) {
      return yield* new Errors.NotFound({ message: `No route for ${request.method} ${pathOf(request.url)}` })
    }
    // PostgreSQL cannot store a NUL character in text; refuse it up front rather than fail deep in the store.
    if (/%00/.test(request.url)) {
      return yield* new Errors.InvalidRequest({ message: "The request may not contain NUL characters" })
    }
    if (hasBody(request.method)) {
      const type = request.headers["content-type"]
      if (type !== undefined && isApiPath(request.url) && !/^application\/json\s*(;|$)/i.test(type)) {
        return yield* new Errors.InvalidRequest({ message: "Content-Type must be application/json" })
      }
      if (request.headers["content-length"] === undefined) drainInsteadOfDestroy(request)
    }
    const nulInBody = hasBody(request.method)
      ? Effect.flatMap(
        // A body that cannot be read is the handler's to refuse (413, malformed); one that is not UTF-8 is ours.
        Effect.catchAll(strictText(request), (e) => e instanceof Errors.InvalidRequest ? Effect.fail(e) : Effect.succeed("")),
        (text) =>
          text.includes("\u0000") || text.includes("\\u0000") ||
            (/x-www-form-urlencoded/i.test(request.headers["content-type"] ?? "") && /%00/.test(text))
            ? Effect.fail(new Errors.InvalidRequest({ message: "The request may not contain NUL characters" }))
            : isApiPath(request.url) && nestingOf(text) > maxNesting
            ? Effect.fail(new Errors.InvalidRequest({ message: `The request body is nested deeper than ${maxNesting} levels` }))
            : isApiPath(request.url) && hasLoneSurrogate(text)
            ? Effect.fail(new Errors.InvalidRequest({ message: "The request body holds a lone surrogate (\\ud800 to \\udfff unpaired): send valid Unicode text" }))
            : Effect.void
      )
      : Effect.void
    return yield* Effect.zipRight(nulInBody, app).pipe(
      Effect.provideService(HttpServerRequest.MaxBodySize, Option.some(FileSystem.Size(maxBodyBytes))),
      Effect.catchAllCause(mapFailures(request))
    )
  })
