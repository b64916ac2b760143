/**
 * One log line and one metric sample per HTTP request, with a request id.
 *
 * The id is the caller's `x-request-id` when it is well formed, otherwise a new one; it is echoed in the response's
 * `x-request-id`, is an attribute of its server span, and from there is on every log line written while the
 * request runs (`Logging.jsonLineLogger` reads it).
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
import { Clock, Context, Effect, FiberRef, Option } from "effect"
import { randomBytes } from "node:crypto"
import { unsafeRecordRequest } from "./HttpMetrics.js"
import { requestIdAttribute } from "./Logging.js"
import { capabilityRoute, redactText } from "./Redaction.js"
import { UnexportedSpan } from "./UnexportedSpan.js"

export const requestIdHeader = "x-request-id"

const wellFormed = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/

const base32 = "abcdefghijklmnopqrstuvwxyz234567"

let pool = Buffer.alloc(0)
let poolOffset = 0
/**
 * A new id: `req_`, the time in 12 letters `a`–`p` (48 bits of milliseconds, one letter per 4 bits, so ids sort by
 * the time they were made), then 14 base32 characters (70 random bits). Time-ordered so that the indexes keyed by
 * account and request id (request log lines, events) take each new id at the end of its account's part rather than
 * on a random page (ids callers send stay as they are); letters and few digits, so that an id never looks like a
 * card number to a scanner of the logs.
 */
export const newRequestId = (now: number = Date.now()): string => {
  if (poolOffset + 14 > pool.length) {
    pool = randomBytes(14 * 256) // one system call per 256 ids
    poolOffset = 0
  }
  let id = "req_"
  for (let shift = 44; shift >= 0; shift -= 4) id += String.fromCharCode(97 + (Math.floor(now / 2 ** shift) & 15))
  for (let i = poolOffset; i < poolOffset + 14; i++) id += base32[pool[i]! & 31]
  poolOffset += 14
  return id
}

/** The caller's id when it is safe to log and echo (short, plain characters, nothing that looks like a key). */
export const requestIdOf = (incoming: string | undefined): string =>
  incoming !== undefined && wellFormed.test(incoming) && redactText(incoming) === incoming ? incoming : newRequestId()

/** `/api/v1/products/:id` → `/api/v1/products/{id}`, as the OpenAPI document writes it. */
export const routeTemplate = (path: string): string => path.replace(/:([A-Za-z0-9_]+)/g, "{$1}")

/** Requests no route matched (404, 405) share one label, whatever their URL. */
export const unmatchedRoute = "unmatched"

/** On every response `fils serve` and a host's handler give (Server.ts, WebHandler.ts). */
export const securityHeaderValues: Readonly<Record<string, string>> = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store"
}

/**
 * Response headers the request's handlers add through the one pre-response step of `observeRequests`, keyed by the
 * request's source (the Node request or the web `Request`, which every modified copy of the request shares).
 */
const addedHeaders = new WeakMap<object, Record<string, string>>()

/**
 * Adds headers to the response of the request being observed; `false` when no `observeRequests` serves it (a host's
 * handler), and the caller appends them itself. One shared step per request instead of one per part that adds any.
 */
export const addResponseHeaders = (request: HttpServerRequest.HttpServerRequest, headers: Record<string, string>): boolean => {
  const source = request.source as object
  const added = addedHeaders.get(source)
  if (added === undefined) return false
  Object.assign(added, headers)
  return true
}

/**
 * Reads the fiber once (request, clock, server span) and does the rest in plain code: this runs on every request,
 * and each extra effect step there is paid a thousand times a second. The security headers, the request id and
 * what the handlers added go on in one pre-response step.
 *
 * When the platform's tracer made no server span (nothing is exported, the request was not sampled, or its URL holds
 * a secret), the request runs under an `UnexportedSpan` with the tracer off: its use cases and statements make no spans.
 */
export const observeRequests = HttpMiddleware.make(<E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> =>
  Effect.withFiberRuntime((fiber) => {
    const request = Context.unsafeGet(fiber.currentContext, HttpServerRequest.HttpServerRequest)
    const clock = Context.get(fiber.currentDefaultServices, Clock.Clock)
    const current = fiber.currentSpan
    const traced = current?._tag === "Span" && current.kind === "server" ? current : undefined
    const span = traced ?? new UnexportedSpan()
    const requestId = requestIdOf(request.headers[requestIdHeader])
    // Every line logged while the request runs carries its id: the logger reads it from this span.
    span.attribute(requestIdAttribute, requestId)
    const startedNanos = clock.unsafeCurrentTimeNanos()
    const headers: Record<string, string> = { ...securityHeaderValues, [requestIdHeader]: requestId }
    addedHeaders.set(request.source as object, headers)
    let recorded = false

    const record = (status: number): Effect.Effect<void> => {
      if (recorded) return Effect.void
      recorded = true
      const seconds = Number(clock.unsafeCurrentTimeNanos() - startedNanos) / 1e9
      const matched = span.attributes.get("http.route")
      const route = matched === undefined ? capabilityRoute(request.url) ?? unmatchedRoute : routeTemplate(String(matched))
      unsafeRecordRequest({ route, method: request.method, status, seconds })
      const line = {
        request_id: requestId,
        account_id: span.attributes.get("fils.account_id") ?? null,
        mode: span.attributes.get("fils.mode") ?? null,
        route,
        method: request.method,
        status,
        duration_ms: Math.round(seconds * 1e6) / 1e3,
        // The client's, as `FILS_TRUSTED_PROXIES` allows it to be known (ClientAddress.ts).
        client_address: Option.getOrNull(request.remoteAddress)
      }
      return status >= 500 ? Effect.logError("http request", line) : Effect.logInfo("http request", line)
    }

    const observed = Effect.zipRight(
      HttpApp.appendPreResponseHandler((_request, response) =>
        Effect.as(record(response.status), HttpServerResponse.setHeaders(response, headers))
      ),
      // No response was written through the handlers (the client went away, or writing failed): still one line.
      Effect.onExit(app, (exit) => record(HttpServerError.exitResponse(exit).status))
    )
    if (traced !== undefined) return observed
    const local = Effect.withParentSpan(observed, span)
    return fiber.getFiberRef(FiberRef.currentTracerEnabled) ? Effect.withTracerEnabled(local, false) : local
  })
)
