/**
 * Every failure of an API request, from every layer, as the API's `{ code, message }` error with its status
 * (docs/decisions.md §8): the engine's tagged errors as they are (`Errors.ts` gives each its code and status), and
 * the framework's failures (schema decode failures, malformed JSON, oversized bodies, unknown routes and methods)
 * restated in the merchant's words. A defect is a 500 with no internals in the message; its cause is logged.
 */
import * as HttpApiError from "@effect/platform/HttpApiError"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerError from "@effect/platform/HttpServerError"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Cause, Effect, Option } from "effect"
import * as Errors from "../../src/domain/Errors.js"
import { closeConnection, payloadTooLarge } from "./BodyLimit.js"
import { InternalError, isApiError, MethodNotAllowed, PayloadTooLarge } from "./Errors.js"
import { allowedMethods, pathOf } from "./KnownRoutes.js"
import { describeDecodeError } from "./SchemaIssues.js"

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

const isMaxBytes = (u: unknown) =>
  u instanceof Error && u.message.includes("maxBytes exceeded")

/** The query parameters `url` names more than once. */
const repeatedQueryKeys = (url: string): ReadonlyArray<string> => {
  const start = url.indexOf("?")
  if (start === -1) return []
  const seen = new Set<string>()
  const repeated = new Set<string>()
  for (const key of new URLSearchParams(url.slice(start + 1)).keys()) (seen.has(key) ? repeated : seen).add(key)
  return [...repeated]
}

const mapFailure = (error: unknown, request: HttpServerRequest.HttpServerRequest): ApiFailure | undefined => {
  // Already one of ours, endpoint-specific ones included: the API's error schema (every endpoint's errors) encodes
  // it. The middleware's type names only the top-level errors, hence the cast.
  if (isApiError(error)) return error as ApiFailure
  if (error instanceof HttpApiError.HttpApiDecodeError) {
    // A query parameter given twice reaches its schema as a list: say so, rather than what the list is not.
    const repeated = repeatedQueryKeys(request.url).filter((key) => error.issues.some((issue) => String(issue.path[0]) === key))
    return new Errors.InvalidRequest({
      message: repeated.length > 0 ? repeated.map((key) => `${key} may be given only once`).join("; ") : describeDecodeError(error)
    })
  }
  if (HttpServerError.isServerError(error)) {
    if (error._tag === "RouteNotFound") {
      const path = pathOf(request.url)
      const allowed = allowedMethods(path)
      // A path of a known shape that the router still did not take with this very method (an id past the router's
      // length for a parameter, a `%` that does not decode) names nothing: 404, as an id of the wrong shape is.
      return allowed.length === 0 || allowed.includes(request.method.toUpperCase())
        ? new Errors.NotFound({ message: `No route for ${request.method} ${path}` })
        : new MethodNotAllowed({ message: `${request.method} is not allowed on ${path}; use ${allowed.join(", ")}` })
    }
    if (error._tag === "RequestError" && error.reason === "Decode") {
      return isMaxBytes(error.cause)
        ? payloadTooLarge()
        : new Errors.InvalidRequest({ message: "The request body is not valid JSON" })
    }
  }
  return undefined
}

/**
 * Any failure of a request as the API's error to encode: its own errors as they are, the framework's as `{ code,
 * message }` errors of the contract, a defect as `500 INTERNAL` (logged with its cause).
 */
export const mapFailures = (request: HttpServerRequest.HttpServerRequest) =>
  (cause: Cause.Cause<unknown>): Effect.Effect<never, ApiFailure> => {
    // An interruption holds no failure to map: it goes on as it is.
    if (Cause.isInterruptedOnly(cause)) return Effect.failCause(Cause.stripFailures(cause))
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
