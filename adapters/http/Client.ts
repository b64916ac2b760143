/**
 * The typed client of the Fils HTTP API, derived from the same contract the server implements (`FilsApi`): every
 * endpoint is a method with decoded inputs, outputs and typed errors (`client.products.create({ payload })`).
 *
 *   const client = yield* FilsClient.make({ baseUrl: "http://127.0.0.1:4242", apiKey })
 *   const product = yield* client.products.create({ payload: { name: "Beans", price: 6500, currency: "AED" }, headers: {} })
 *
 * It needs an `HttpClient` (`FetchHttpClient.layer`, or `NodeHttpClient.layer` from `@effect/platform-node`), so the
 * host chooses the transport; `makeFetch` uses the global `fetch`.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpApiClient from "@effect/platform/HttpApiClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Effect, Redacted } from "effect"
import { FilsApi } from "./Api.js"

export interface Options {
  /** The server's origin, e.g. `http://127.0.0.1:4242` (the contract's paths carry `/api/v1` themselves). */
  readonly baseUrl: string | URL
  /** A secret key, `sk_test_…` or `sk_live_…`, sent as `Authorization: Bearer …` on every request. */
  readonly apiKey: string | Redacted.Redacted<string>
  /** Further changes to every request (a user agent, a timeout, retries). */
  readonly transformClient?: ((client: HttpClient.HttpClient) => HttpClient.HttpClient) | undefined
}

/** A client for one key, over the `HttpClient` in context. */
export const make = (options: Options) => {
  const key = Redacted.isRedacted(options.apiKey) ? options.apiKey : Redacted.make(options.apiKey)
  const authorize = HttpClient.mapRequest(HttpClientRequest.bearerToken(key))
  const extra = options.transformClient
  return HttpApiClient.make(FilsApi, {
    baseUrl: options.baseUrl,
    transformClient: extra === undefined ? authorize : (client) => extra(authorize(client))
  })
}

/** A client for one key over the global `fetch`. */
export const makeFetch = (options: Options) => make(options).pipe(Effect.provide(FetchHttpClient.layer))

/** The client's type: one property per endpoint group (`account`, `products`, `customers`, …). */
export type Client = Effect.Effect.Success<ReturnType<typeof make>>
