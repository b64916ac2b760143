/**
 * One log line and one metric sample per HTTP request, with a request id.
 *
 * The id is the caller's `x-request-id` when it is well formed, otherwise a new one; it is echoed in the response's
 * `x-request-id`, annotates every log line written while the request runs, and is an attribute of its server span.
 *
 * What a request was is read back from its server span (made by `@effect/platform`'s tracer middleware, in which
 * this middleware runs): the router records the matched route template there (`http.route`), and authentication
 * the caller's account and mode (`fils.account_id`, `fils.mode`). Bodies, headers, query strings and keys are never
 * logged.
 *
 * The sample is taken just before the response is written (a pre-response handler), so the status is final and a
 * client that reads the response and then scrapes `/metrics` sees its request counted.
 */
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Clock, Effect, Option } from "effect"
import { randomBytes } from "node:crypto"
import { recordRequest } from "./HttpMetrics.js"
import { redactText } from "./Redaction.js"

export const requestIdHeader = "x-request-id"

const wellFormed = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/

const base32 = "abcdefghijklmnopqrstuvwxyz234567"

let pool = Buffer.alloc(0)
let poolOffset = 0
/**
 * A new id: `req_` and 26 base32 characters (130 random bits). Base32 rather than a hex UUID: few digits, so an id
 * can never look like a card number to a scanner of the logs.
 */
export const newRequestId = (): string => {
  if (poolOffset + 26 > pool.length) {
    pool = randomBytes(26 * 256) // one system call per 256 ids
    poolOffset = 0
  }
  let id = "req_"
  for (let i = poolOffset; i < poolOffset + 26; i++) id += base32[pool[i]! & 31]
  poolOffset += 26
  return id
}

/** The caller's id when it is safe to log and echo (short, plain characters, nothing that looks like a key). */
export const requestIdOf = (incoming: string | undefined): string =>
  incoming !== undefined && wellFormed.test(incoming) && redactText(incoming) === incoming ? incoming : newRequestId()

/** `/api/v1/products/:id` → `/api/v1/products/{id}`, as the OpenAPI document writes it. */
export const routeTemplate = (path: string): string => path.replace(/:([A-Za-z0-9_]+)/g, "{$1}")

/** Requests no route matched (404, 405) share one label, whatever their URL. */
export const unmatchedRoute = "unmatched"

const attribute = (span: Option.Option<{ readonly attributes: ReadonlyMap<string, unknown> }>, key: string) =>
  Option.flatMap(span, (s) => Option.fromNullable(s.attributes.get(key)))

const observe = <E, R>(
  app: HttpApp.Default<E, R>,
  request: HttpServerRequest.HttpServerRequest,
  requestId: string
) =>
  Effect.gen(function*() {
    const startedNanos = yield* Clock.currentTimeNanos
    const span = yield* Effect.option(Effect.currentSpan)
    if (Option.isSome(span)) span.value.attribute("fils.request_id", requestId)
    let recorded = false

    const record = (status: number) =>
      Effect.suspend(() => {
        if (recorded) return Effect.void
        recorded = true
        return Effect.gen(function*() {
          const seconds = Number((yield* Clock.currentTimeNanos) - startedNanos) / 1e9
          const route = Option.match(attribute(span, "http.route"), {
            onNone: () => unmatchedRoute,
            onSome: (path) => routeTemplate(String(path))
          })
          yield* recordRequest({ route, method: request.method, status, seconds })
          const line = {
            request_id: requestId,
            account_id: Option.getOrNull(attribute(span, "fils.account_id")),
            mode: Option.getOrNull(attribute(span, "fils.mode")),
            route,
            method: request.method,
            status,
            duration_ms: Math.round(seconds * 1e6) / 1e3
          }
          const log = status >= 500 ? Effect.logError("http request") : Effect.logInfo("http request")
          yield* Effect.annotateLogs(log, line)
        })
      })

    yield* HttpApp.appendPreResponseHandler((_request, response) =>
      Effect.as(record(response.status), HttpServerResponse.setHeader(response, requestIdHeader, requestId))
    )
    const exit = yield* Effect.exit(app)
    // No response was written through the handlers (the client went away, or writing failed): still one line.
    if (!recorded) yield* record(HttpServerError.exitResponse(exit).status)
    return yield* exit
  })

export const observeRequests = HttpMiddleware.make((app) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const requestId = requestIdOf(request.headers[requestIdHeader])
    // Every line logged while the request runs carries its id.
    return Effect.annotateLogs(observe(app, request, requestId), "request_id", requestId)
  })
)
