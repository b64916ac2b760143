/**
 * The API's middleware: the request log (`RequestLog.ts`) around everything; the request checks of `RequestChecks.ts`
 * and the error mapping of `ErrorMapping.ts` around the router, and in front of them the two hottest reads,
 * `GET /api/v1/payments/{id}` and `GET /api/v1/payments`, answered on their own.
 *
 * A hot read skips what HttpApi's router does per request (find the route, copy the request's context, merge the
 * group's, decode through effectful schemas, run the security middleware's plumbing), about a quarter of such a
 * request's CPU. `Api.ts` stays the contract: the query and response schemas are the endpoints' own (compiled once
 * here, `Encoders.ts`), the handler is the group's (`paymentReads`), authentication is the same `Authentication` service, and a
 * failure is the API's error, mapped and encoded by HttpApi as the routed request's would be. Only a plain request
 * takes this way (a `GET` without a body, a path of plain characters, a query of known characters without a repeated
 * key that the schema accepts); any other, whatever it holds, goes the full way, so its answer is HttpApi's own.
 * `test/adapters/http/hot-reads.test.ts` compares the two ways' answers, byte for byte.
 */
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Context, Effect, Either, Redacted, Schema, type Tracer } from "effect"
import { Accounts, type Principal } from "../../src/application/Accounts.js"
import { Payments } from "../../src/application/Payments.js"
import { RequestLogs } from "../../src/application/RequestLogs.js"
import { PaymentResource } from "../../src/domain/Payment.js"
import { Authentication, basePath, PaymentList, PaymentListQuery } from "./Api.js"
import { isBearer } from "./Authentication.js"
import { encoderOf, jsonSuccess } from "./Encoders.js"
import { type ApiFailure, mapFailures } from "./ErrorMapping.js"
import { paymentReads } from "./handlers/Payments.js"
import { mapErrors } from "./RequestChecks.js"
import { logRequests } from "./RequestLog.js"

const paymentPath = new RegExp(`^${basePath}/payments/([A-Za-z0-9_]{1,100})$`)
const listPath = new RegExp(`^${basePath}/payments(?:\\?([A-Za-z0-9_=&.-]{0,2000}))?$`)

/** The route templates, as the router records them on the request's span (`http.route`). */
const paymentRoute = `${basePath}/payments/:id`
const listRoute = `${basePath}/payments`

/** A query as the router parses it (`a=1&b=2`), or `undefined` when a key repeats (the router would make a list). */
export const plainQuery = (query: string | undefined): Record<string, string> | undefined => {
  const params: Record<string, string> = {}
  if (query === undefined || query === "") return params
  for (const [key, value] of new URLSearchParams(query)) {
    if (Object.hasOwn(params, key)) return undefined
    params[key] = value
  }
  return params
}

const decodeQuery = Schema.decodeUnknownEither(PaymentListQuery)
const encodePayment = encoderOf(PaymentResource)
const encodeList = encoderOf(PaymentList)

const hasBody = (headers: HttpServerRequest.HttpServerRequest["headers"]) =>
  headers["transfer-encoding"] !== undefined || (headers["content-length"] !== undefined && headers["content-length"] !== "0")

/** `hotReads(app)`: the hot reads in front of the full app (`mapErrors` around HttpApi's router). */
export const makeApiMiddleware = Effect.gen(function*() {
  const authentication = yield* Authentication
  const reads = paymentReads(yield* Payments)
  const logs = yield* RequestLogs
  const accounts = yield* Accounts
  // Off (`FILS_REQUEST_LOG_RETENTION_DAYS=0`): not even the wrapper.
  const logged: <E, R>(app: HttpApp.Default<E, R>) => HttpApp.Default<E, R> = logs.enabled
    ? logRequests(logs.record, (request) =>
      isBearer(request.headers.authorization)
        ? accounts.authenticate(Redacted.make(request.headers.authorization!.slice(7))).pipe(
          Effect.orElseSucceed(() => undefined)
        )
        : Effect.succeed(undefined))
    : (app) => app

  /**
   * As the security middleware decodes a bearer token: the header after its first seven characters. Of the
   * router's services, `AuthenticationLive` reads only the request, which is in the context here too.
   */
  const authenticate = (request: HttpServerRequest.HttpServerRequest) =>
    authentication.bearer(Redacted.make((request.headers.authorization ?? "").slice(7))) as Effect.Effect<
      Principal,
      Effect.Effect.Error<ReturnType<typeof authentication.bearer>>,
      HttpServerRequest.HttpServerRequest
    >

  /** The route, where the router would have recorded it: on the request's span (the request log reads it there). */
  const matched = (span: Tracer.AnySpan | undefined, route: string) => {
    if (span?._tag === "Span") span.attribute("http.route", route)
  }

  const answer = <A>(
    request: HttpServerRequest.HttpServerRequest,
    read: (principal: Principal) => Effect.Effect<A, unknown>,
    encode: (a: A) => unknown
  ) =>
    Effect.catchAllCause(
      Effect.map(Effect.flatMap(authenticate(request), read), (a) => jsonSuccess(encode(a))),
      mapFailures(request)
    )

  return (app: HttpApp.Default): HttpApp.Default<ApiFailure> => {
    const full = mapErrors(app)
    return logged(Effect.withFiberRuntime((fiber) => {
      const request = Context.unsafeGet(fiber.currentContext, HttpServerRequest.HttpServerRequest)
      if (request.method !== "GET" || hasBody(request.headers)) return full
      const byId = paymentPath.exec(request.url)
      if (byId !== null) {
        matched(fiber.currentSpan, paymentRoute)
        return answer(request, (principal) => reads.get(principal, byId[1]!), encodePayment)
      }
      const list = listPath.exec(request.url)
      if (list === null) return full
      const params = plainQuery(list[1])
      const query = params === undefined ? undefined : decodeQuery(params)
      if (query === undefined || Either.isLeft(query)) return full
      matched(fiber.currentSpan, listRoute)
      return answer(request, (principal) => reads.list(principal, query.right), encodeList)
    }))
  }
})
