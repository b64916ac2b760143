/**
 * What every request to the server is checked for before its route runs (a declared oversize body, a `;` in the
 * path, NUL characters, a non-JSON body for the API, a body that is not UTF-8, nests too deeply, gives a key twice
 * in one object or holds a lone surrogate), and the failure mapping (`ErrorMapping.ts`) around the router. Refusing
 * these up front keeps them from failing deep in a decoder or the store, where they would surface as a 500, or from
 * being read otherwise than sent.
 */
import * as FileSystem from "@effect/platform/FileSystem"
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Effect, Option } from "effect"
import * as Errors from "../../src/domain/Errors.js"
import * as Text from "../../src/domain/Text.js"
import { closeConnection, drainInsteadOfDestroy, maxBodyBytes, payloadTooLarge } from "./BodyLimit.js"
import { maxNesting, shapeOf, strictText, type Unstorable, unstorable } from "./BodyText.js"
import { type ApiFailure, mapFailures } from "./ErrorMapping.js"
import { isApiPath, pathOf } from "./KnownRoutes.js"

const hasBody = (method: string) => method === "POST" || method === "PATCH" || method === "PUT"

/** The refusal of a body that could not be stored as sent (`unstorable`). */
const unstorableRefusal = (problem: Unstorable | undefined) =>
  problem === "lone surrogate"
    ? Effect.fail(new Errors.InvalidRequest({ message: "The request body holds a lone surrogate (\\ud800 to \\udfff unpaired): send valid Unicode text" }))
    : problem === "__proto__"
    ? Effect.fail(new Errors.InvalidRequest({ message: "The request body uses '__proto__' as a key, which Fils cannot store: rename it" }))
    : Effect.void

/** The request checks above, around the API's router, and every failure mapped (`mapFailures`). */
export const mapErrors = (app: HttpApp.Default): HttpApp.Default<ApiFailure> =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    // Refuse a declared oversize body before reading a byte of it.
    const length = Number(request.headers["content-length"] ?? "0")
    if (length > maxBodyBytes) {
      yield* closeConnection
      return yield* payloadTooLarge()
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
        (text) => {
          if (
            text.includes("\u0000") || text.includes("\\u0000") ||
            (/x-www-form-urlencoded/i.test(request.headers["content-type"] ?? "") && /%00/.test(text))
          ) {
            return Effect.fail(new Errors.InvalidRequest({ message: "The request may not contain NUL characters" }))
          }
          if (!isApiPath(request.url)) return Effect.void
          const shape = shapeOf(text)
          if (shape.depth > maxNesting) {
            return Effect.fail(new Errors.InvalidRequest({ message: `The request body is nested deeper than ${maxNesting} levels` }))
          }
          if (shape.repeatedKey !== undefined) {
            return Effect.fail(new Errors.InvalidRequest({
              message: `The request body gives the key '${Text.shortened(shape.repeatedKey, 100)}' twice in one object: send each key once`
            }))
          }
          return unstorableRefusal(unstorable(text))
        }
      )
      : Effect.void
    return yield* Effect.zipRight(nulInBody, app).pipe(
      Effect.provideService(HttpServerRequest.MaxBodySize, Option.some(FileSystem.Size(maxBodyBytes))),
      Effect.catchAllCause(mapFailures(request))
    )
  })
