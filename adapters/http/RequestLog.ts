/**
 * Each API request an account's key made, as a request log line (docs/api.md, "Request logs"): who (key), what
 * (method, the path without its query string, `Idempotency-Key`), how it ended (status, error code, duration), and
 * its request id, which the events it causes carry too. Never a body, a header's secret or a query string; the path
 * and key are scrubbed as log lines are (`redactText`), should a caller put a secret there.
 *
 * The line is handed to `RequestLogs.record`, which only buffers it: the request never waits for the store.
 * Requests that fail authentication belong to no account and make no line (one refused before authentication ran,
 * an unknown path or method, is looked up by its key); reading the logs makes none either, nor `fils listen`'s polls.
 */
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Cause, Clock, Context, DateTime, Effect, Exit, FiberRef, Option } from "effect"
import type { Principal } from "../../src/application/Accounts.js"
import { CurrentRequestId } from "../../src/application/Events.js"
import * as RequestLog from "../../src/domain/RequestLog.js"
import { requestIdAttribute } from "../observability/Logging.js"
import { redactText } from "../observability/Redaction.js"
import { addResponseHeaders, requestIdHeader, requestIdOf } from "../observability/RequestObservation.js"
import { basePath } from "./Api.js"
import { statusOf } from "./Errors.js"

/** Who made each request being served, keyed by its source (which every modified copy of the request shares). */
const callers = new WeakMap<object, Principal>()

/** Authentication names the request's caller here, before anything can refuse it (a rate limit's 429 is logged). */
export const noteCaller = (request: HttpServerRequest.HttpServerRequest, principal: Principal): void => {
  callers.set(request.source as object, principal)
}

const apiPrefix = `${basePath}/`
/** Reading the logs is not logged: a tail polling them would otherwise fill them with itself. */
const logsPrefix = `${basePath}/request_logs`
const eventsList = `${basePath}/events`
const eventsListQuery = `${eventsList}?`

/**
 * `fils listen` reads the event list every second or so, and says so with this header: those reads are not logged
 * either (a line a second would bury the requests a developer is looking for). Only the event list's reads.
 */
export const listenHeader = { name: "fils-client", value: "listen" } as const

const listening = (request: HttpServerRequest.HttpServerRequest) =>
  request.headers[listenHeader.name] === listenHeader.value && request.method === "GET" &&
  (request.url === eventsList || request.url.startsWith(eventsListQuery))

const pathOf = (url: string): string => {
  const end = url.search(/[?#]/)
  const path = end === -1 ? url : url.slice(0, end)
  return redactText(path.length > RequestLog.maxPathLength ? path.slice(0, RequestLog.maxPathLength) : path)
}

const decoder = new TextDecoder()

/** The `code` of an error answered as a response (an idempotent replay of a refusal), when its body says one. */
const codeOfBody = (response: HttpServerResponse.HttpServerResponse): string | null => {
  if (response.body._tag !== "Uint8Array") return null
  try {
    const parsed: unknown = JSON.parse(decoder.decode(response.body.body))
    return typeof parsed === "object" && parsed !== null && "code" in parsed && typeof parsed.code === "string" ? parsed.code : null
  } catch {
    return null
  }
}

interface Outcome {
  readonly status: number
  readonly code: string | null
}

/** The router's refusals, given before authentication runs: no such route (`404`) or method (`405`). */
const refusedBeforeAuthentication = new Set([404, 405])

/** How a request ended: its status and, for an error, its code; `undefined` when it was interrupted (no answer). */
const outcomeOf = (exit: Exit.Exit<HttpServerResponse.HttpServerResponse, unknown>): Outcome | undefined => {
  if (Exit.isSuccess(exit)) {
    const status = exit.value.status
    return { status, code: status >= 400 ? codeOfBody(exit.value) : null }
  }
  if (Cause.isInterruptedOnly(exit.cause)) return undefined
  const failure = Cause.failureOption(exit.cause)
  const error = Option.isSome(failure) ? failure.value : undefined
  const code = typeof error === "object" && error !== null && "code" in error && typeof error.code === "string" ? error.code : null
  return code === null ? { status: 500, code: "INTERNAL_ERROR" } : { status: statusOf({ code }), code }
}

/**
 * Around the API's app: each API request runs with its request id as `CurrentRequestId` (its events carry it), and
 * once answered its line goes to `record`. The id is the one `fils serve` gave the request (`observeRequests`);
 * served otherwise (a test server, a host's handler), it is made here and echoed in `x-request-id`.
 */
export const logRequests = (
  record: (line: RequestLog.RequestLogDraft) => boolean,
  /**
   * Whose key a request carries, for a request refused before authentication ran (a path or method the router
   * does not know): a line of that key's account, as any other of its requests. Not a sign-in: nothing is counted.
   */
  identify: (request: HttpServerRequest.HttpServerRequest) => Effect.Effect<Principal | undefined>
) =>
<E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R> =>
  Effect.withFiberRuntime((fiber) => {
    const request = Context.unsafeGet(fiber.currentContext, HttpServerRequest.HttpServerRequest)
    if (!request.url.startsWith(apiPrefix) || request.url.startsWith(logsPrefix) || listening(request)) return app
    const clock = Context.get(fiber.currentDefaultServices, Clock.Clock)
    const startedMillis = clock.unsafeCurrentTimeMillis()
    const startedNanos = clock.unsafeCurrentTimeNanos()
    const span = fiber.currentSpan
    const given = span?._tag === "Span" ? span.attributes.get(requestIdAttribute) : undefined
    const requestId = typeof given === "string" ? given : requestIdOf(request.headers[requestIdHeader])

    const write = (outcome: Outcome, caller: Principal) => {
      const key = request.headers["idempotency-key"]
      record({
        account_id: caller.accountId,
        livemode: caller.livemode,
        key_id: caller.keyId,
        request_id: requestId,
        method: request.method,
        path: pathOf(request.url),
        status: outcome.status,
        error_code: outcome.code,
        idempotency_key: key === undefined ? null : redactText(key.slice(0, RequestLog.maxKeyLength)),
        duration_ms: Math.round(Number(clock.unsafeCurrentTimeNanos() - startedNanos) / 1e3) / 1e3,
        created_at: DateTime.unsafeMake(startedMillis)
      })
    }

    // Written as the answer leaves (an interrupted request, which has none, makes no line). The id is set on the
    // request's own fiber, which ends with it: for the rest of its life, not restored (a step less).
    // A request the router refused never reached authentication (`noteCaller`): its key is looked up (`identify`).
    // Any other without a caller failed authentication, and is nobody's.
    const written = <A>(exit: Exit.Exit<HttpServerResponse.HttpServerResponse, E>, after: Effect.Effect<A, E>) => {
      const outcome = outcomeOf(exit)
      if (outcome === undefined) return after
      const caller = callers.get(request.source as object)
      if (caller !== undefined) {
        write(outcome, caller)
        return after
      }
      if (!refusedBeforeAuthentication.has(outcome.status)) return after
      return Effect.zipRight(
        Effect.map(identify(request), (found) => found !== undefined && write(outcome, found)),
        after
      )
    }
    const logged = Effect.matchCauseEffect(Effect.zipRight(FiberRef.set(CurrentRequestId, requestId), app), {
      onFailure: (cause) => written(Exit.failCause(cause), Effect.failCause(cause)),
      onSuccess: (response) => written(Exit.succeed(response), Effect.succeed(response))
    })
    if (typeof given === "string") return logged
    // No `observeRequests` made the id: echoed here.
    const headers = { [requestIdHeader]: requestId }
    return addResponseHeaders(request, headers)
      ? logged
      : Effect.zipRight(
        HttpApp.appendPreResponseHandler((_request, response) => Effect.succeed(HttpServerResponse.setHeaders(response, headers))),
        logged
      )
  })
