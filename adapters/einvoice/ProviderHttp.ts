/**
 * The EInvoiceProvider port for an Accredited Service Provider reached over HTTP, by Fils' small wire protocol
 * (docs/einvoicing.md, "Writing an adapter for a real ASP"):
 *
 * - `POST {url}/documents`, the PINT AE XML as the body (`application/xml`), `Authorization: Bearer <token>`,
 *   `Idempotency-Key: <document id>`, and `Fils-Document-Kind`, `Fils-Document-UUID`, `Fils-Livemode`.
 *   `2xx {"reference": "…"}`: accepted. `422 {"errors": [{"code": "…", "message": "…"}]}`: rejected. Anything else,
 *   no answer within the timeout, or a connection that fails: unavailable (retried later, under the same key).
 * - `GET {url}/documents/{reference}`: `2xx {"reference", "status", "detail"?}`.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Duration, Effect, Layer, type Redacted, Schema } from "effect"
import { Accepted, type Answer, ProviderError, Rejected } from "../../src/domain/EInvoiceTransmission.js"
import { EInvoiceProvider, type EInvoiceProviderShape, ProviderUnavailable } from "../../src/ports/EInvoiceProvider.js"

export interface ProviderHttpOptions {
  /** The ASP's base URL, without a trailing slash. */
  readonly url: string
  readonly token: Redacted.Redacted
  /** How long an answer may take (default 10 s, as a webhook receiver's). */
  readonly timeout?: Duration.DurationInput
  /** The modes it takes documents of. */
  readonly livemodes: ReadonlyArray<boolean>
}

const AcceptedBody = Schema.Struct({ reference: Schema.String.pipe(Schema.minLength(1)) })
const RejectedBody = Schema.Struct({ errors: Schema.Array(ProviderError).pipe(Schema.minItems(1)) })
const StatusBody = Schema.Struct({
  reference: Schema.String,
  status: Schema.String,
  detail: Schema.optional(Schema.NullOr(Schema.String))
})

const unavailable = (message: string) => new ProviderUnavailable({ message })

/** The port over the context's HttpClient. */
export const makeProviderHttp = (options: ProviderHttpOptions): Effect.Effect<EInvoiceProviderShape, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const base = options.url.replace(/\/+$/, "")
    const timeout = Duration.decode(options.timeout ?? Duration.seconds(10))
    const client = (yield* HttpClient.HttpClient).pipe(
      HttpClient.mapRequest(HttpClientRequest.bearerToken(options.token))
    )
    /** One request and its decoded body, or unavailable with why (never the token: it is only in the request). */
    const exchange = <A>(
      request: HttpClientRequest.HttpClientRequest,
      answer: (status: number, body: unknown) => Effect.Effect<A, ProviderUnavailable>
    ) =>
      client.execute(request).pipe(
        Effect.flatMap((response) =>
          Effect.flatMap(
            response.text.pipe(Effect.map((text) => {
              try {
                return JSON.parse(text) as unknown
              } catch {
                return undefined
              }
            })),
            (body) => answer(response.status, body)
          )
        ),
        Effect.scoped,
        // Cut off at the timeout even when the caller runs uninterruptibly (a worker waiting out its attempt).
        Effect.interruptible,
        Effect.timeoutFail({ duration: timeout, onTimeout: () => unavailable(`No answer within ${Duration.format(timeout)}`) }),
        Effect.catchTags({
          RequestError: (e) => Effect.fail(unavailable(`The provider cannot be reached: ${e.message}`)),
          ResponseError: (e) => Effect.fail(unavailable(`The provider's answer broke off: ${e.message}`))
        })
      )
    const decode = <A, I>(schema: Schema.Schema<A, I>, status: number, body: unknown) =>
      Schema.decodeUnknown(schema)(body).pipe(
        Effect.mapError(() => unavailable(`The provider answered ${status} with a body that is not its protocol's`))
      )

    return EInvoiceProvider.of({
      serves: (livemode) => options.livemodes.includes(livemode),
      submit: (submission) =>
        exchange(
          HttpClientRequest.post(`${base}/documents`).pipe(
            HttpClientRequest.setHeaders({
              "idempotency-key": submission.document_id,
              "fils-document-kind": submission.kind,
              "fils-document-uuid": submission.uuid,
              "fils-livemode": String(submission.livemode),
              accept: "application/json"
            }),
            HttpClientRequest.bodyText(submission.xml, "application/xml")
          ),
          (status, body): Effect.Effect<Answer, ProviderUnavailable> =>
            status >= 200 && status < 300
              ? Effect.map(decode(AcceptedBody, status, body), ({ reference }) => new Accepted({ reference }))
              : status === 422
              ? Effect.map(decode(RejectedBody, status, body), ({ errors }) => new Rejected({ errors }))
              : Effect.fail(unavailable(`The provider answered ${status}`))
        ),
      status: (reference) =>
        exchange(
          HttpClientRequest.get(`${base}/documents/${encodeURIComponent(reference)}`).pipe(
            HttpClientRequest.setHeader("accept", "application/json")
          ),
          (status, body) =>
            status >= 200 && status < 300
              ? Effect.map(decode(StatusBody, status, body), (s) => ({ ...s, detail: s.detail ?? null }))
              : Effect.fail(unavailable(`The provider answered ${status}`))
        )
    })
  })

export const ProviderHttp = (options: ProviderHttpOptions) => Layer.effect(EInvoiceProvider, makeProviderHttp(options))
