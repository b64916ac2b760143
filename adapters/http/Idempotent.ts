/**
 * Idempotent POSTs, built once for every create endpoint: with an `Idempotency-Key` header the handler's outcome
 * (success or error) is recorded and replayed verbatim, with `Idempotent-Replayed: true`. A success is recorded in
 * one transaction with the objects the handler created (see `IdempotencyService` and `UnitOfWork`), so what it
 * created and its answer commit together.
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, Schema } from "effect"
import { IdempotencyService } from "../../src/application/Idempotency.js"
import type { StoredResponse } from "../../src/domain/Idempotency.js"
import { CurrentPrincipal } from "./Api.js"
import { encoderOf, jsonSuccess } from "./Encoders.js"
import { statusOf } from "./Errors.js"

/** JSON with object keys sorted at every depth, so that key order does not change a request's identity. */
const canonical = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`
  if (value !== null && typeof value === "object") {
    const entries = Object.keys(value).sort().map((k) =>
      `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`
    )
    return `{${entries.join(",")}}`
  }
  return JSON.stringify(value) ?? "null"
}

const respond = (stored: StoredResponse, replayed: boolean) =>
  HttpServerResponse.text(stored.body, {
    status: stored.status,
    contentType: "application/json",
    headers: replayed ? { "idempotent-replayed": "true" } : {}
  })

/**
 * Wraps a POST handler's work. Without a key it runs as is; with one, through `IdempotencyService.run`. The
 * success is encoded with `success` (the endpoint's schema, through its compiled encoder: the JSON HttpApi would
 * give), an error as `{ code, message }`.
 */
export const idempotent = <A, I, E extends { readonly code: string; readonly message: string }, R>(
  key: string | undefined,
  success: Schema.Schema<A, I>,
  work: Effect.Effect<A, E, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, E | Effect.Effect.Error<ReturnType<IdempotencyService["run"]>>, R | IdempotencyService | CurrentPrincipal | HttpServerRequest.HttpServerRequest> => {
  const encode = encoderOf(success)
  return key === undefined ? Effect.map(work, (a) => jsonSuccess(encode(a))) : Effect.gen(function*() {
    const service = yield* IdempotencyService
    const principal = yield* CurrentPrincipal
    const request = yield* HttpServerRequest.HttpServerRequest
    // The body was already read and decoded by the endpoint; `text` is cached, so this costs no I/O.
    const text = yield* Effect.orElseSucceed(request.text, () => "")
    let body: unknown
    try {
      body = text === "" ? null : JSON.parse(text)
    } catch {
      body = text
    }
    const execute = work.pipe(
      Effect.match({
        onSuccess: (a): StoredResponse => ({ status: 200, body: JSON.stringify(encode(a)) }),
        onFailure: (error): StoredResponse => ({
          status: statusOf(error),
          body: JSON.stringify({ code: error.code, message: error.message })
        })
      })
    )
    const result = yield* service.run(principal, key, `${request.method} ${request.url}\n${canonical(body)}`, execute)
    return respond(result.response, result.replayed)
  })
}
