/**
 * Bearer authentication and the per-key rate limit, as one security middleware: failed authentications are
 * throttled per client address (so keys cannot be guessed at speed), and every authenticated response carries the
 * `RateLimit-*` headers.
 */
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, Layer, Option, Redacted } from "effect"
import { Accounts } from "../../src/application/Accounts.js"
import { RateLimits } from "../../src/application/RateLimits.js"
import type { RateLimited, Unauthorized } from "../../src/domain/Errors.js"
import type { RateDecision } from "../../src/domain/RateWindow.js"
import { addResponseHeaders } from "../observability/RequestObservation.js"
import { Authentication } from "./Api.js"
import { noteCaller } from "./RequestLog.js"

/**
 * Whether an `Authorization` header carries a bearer token. The framework strips its first seven characters whatever
 * the scheme; only `Bearer` is a bearer token.
 */
export const isBearer = (authorization: string | undefined): boolean => /^Bearer\s+\S/i.test(authorization ?? "")

const rateHeaders = (decision: RateDecision): Record<string, string> => ({
  "ratelimit-limit": String(decision.limit),
  "ratelimit-remaining": String(decision.remaining),
  "ratelimit-reset": String(decision.resetSeconds),
  ...(decision.allowed ? {} : { "retry-after": String(decision.resetSeconds) })
})

/** With the request log's own headers when it observes the request (`fils serve`), else in a step of their own. */
const addHeaders = (request: HttpServerRequest.HttpServerRequest, headers: Record<string, string>) =>
  addResponseHeaders(request, headers)
    ? Effect.void
    : HttpApp.appendPreResponseHandler((_request, response) => Effect.succeed(HttpServerResponse.setHeaders(response, headers)))

export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.gen(function*() {
    const accounts = yield* Accounts
    const limits = yield* RateLimits
    return Authentication.of({
      bearer: (token) =>
        Effect.gen(function*() {
          const request = yield* HttpServerRequest.HttpServerRequest
          const address = Option.getOrElse(request.remoteAddress, () => "unknown")
          const scheme = isBearer(request.headers.authorization)
          // The per-address limit is there to stop guessing, so it refuses only keys that are not valid: a merchant
          // whose address others share (a NAT, a proxy) keeps working while someone there fails to authenticate.
          const principal = yield* accounts.authenticate(scheme ? token : Redacted.make("")).pipe(
            Effect.catchTag("Unauthorized", (unauthorized) =>
              limits.checkAddress(address).pipe(
                Effect.zipRight(limits.recordAuthFailure(address)),
                Effect.tapError((e) => e._tag === "RateLimited" ? addHeaders(request, { "retry-after": String(e.retryAfterSeconds) }) : Effect.void),
                Effect.flatMap((refusal): Effect.Effect<never, Unauthorized | RateLimited> =>
                  refusal === undefined
                    ? Effect.zipRight(addHeaders(request, { "www-authenticate": "Bearer" }), Effect.fail(unauthorized))
                    : Effect.zipRight(addHeaders(request, { "retry-after": String(refusal.retryAfterSeconds) }), Effect.fail(refusal))
                )
              ))
          )
          // Whose request this is: for its request log line, and on the server span, where the request's log line
          // on stdout and traces read it (never the key).
          noteCaller(request, principal)
          yield* Effect.annotateCurrentSpan({
            "fils.account_id": principal.accountId,
            "fils.mode": principal.livemode ? "live" : "test"
          })
          const decision = yield* limits.consumeKey(principal.keyId)
          yield* addHeaders(request, rateHeaders(decision))
          if (!decision.allowed) return yield* limits.limited(decision, "requests")
          return principal
        })
    })
  })
)
