/**
 * The hosted checkout page's routes (decisions.md §3): `GET /checkout/{id}` shows the form, `POST` submits it.
 * Every outcome is an HTML page (never JSON): the payer is a person in a browser, without JavaScript if they like.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as UrlParams from "@effect/platform/UrlParams"
import { Cause, Effect, Option } from "effect"
import { Checkout, PublicUrl } from "../../../src/application/Checkout.js"
import { type CheckoutSession, isReturnUrl } from "../../../src/domain/CheckoutSession.js"
import { fields } from "../../../src/domain/CheckoutForm.js"
import { CheckoutSessionId, parseId } from "../../../src/domain/Ids.js"
import { declineMessage, type Payment } from "../../../src/domain/Payment.js"
import { htmlResponse, newNonce } from "./Document.js"
import { messagePage, paymentPage } from "./Page.js"

const sessionIdOf = parseId(CheckoutSessionId)
const routeSessionId = Effect.map(HttpRouter.params, (p) => Option.fromNullable(p.id === undefined ? undefined : sessionIdOf(p.id)))

const originOf = (url: string | null) => (url !== null && isReturnUrl(url) ? ` ${new URL(url).origin}` : "")

/** A strict policy: nothing loads but our own nonce'd style; the form may post here and redirect to the merchant. */
const page = (status: number, body: string, nonce: string, returnUrl: string | null = null) =>
  htmlResponse(status, body, nonce, { formActions: originOf(returnUrl), referrerPolicy: "no-referrer" })

/**
 * An `Origin` header's value as a URL when it is an http(s) origin exactly as browsers serialize one (lower case,
 * no default port, no path, no credentials), else `undefined`.
 */
const parsedOrigin = (value: string): URL | undefined => {
  try {
    const url = new URL(value)
    return (url.protocol === "http:" || url.protocol === "https:") && url.origin === value
      ? url
      : undefined
  } catch {
    return undefined
  }
}

/** A `Host` header's value as `URL.host` writes it for `protocol` (lower case, no default port), if it is one. */
const hostFor = (protocol: string, host: string | undefined): string | undefined => {
  if (host === undefined || host === "" || /[/?#@\\\s]/.test(host)) return undefined
  try {
    return new URL(`${protocol}//${host}`).host
  } catch {
    return undefined
  }
}

/**
 * Whether a form submission comes from a page of this server, as far as the browser says (decisions.md §3): the
 * form token alone cannot tell, since anyone may fetch the page from their own server and read it.
 *
 * - `Sec-Fetch-Site: cross-site` or `same-site` (another site, or another port or subdomain of this one) is refused.
 * - An `Origin` other than where the page was served from is refused: the origin of `FILS_PUBLIC_URL` (its path,
 *   a host framework's mount prefix, plays no part), or the request's own host whatever the scheme: its `Host` (or
 *   `X-Forwarded-Host`) header, or the host of its URL when a fetch-style host hands over an absolute one. A page
 *   on another site cannot set any of these. `Origin: null` (a browser hiding the origin, as Chromium does for a
 *   page under `Referrer-Policy: no-referrer`; the page's own `<meta name="referrer">` avoids that) passes only
 *   when `Sec-Fetch-Site` says `same-origin` or `none`.
 * - Neither header (a script, `curl`, an old browser): nothing to go on; the form token still applies.
 */
export const sameOriginSubmission = (
  headers: Readonly<Record<string, string | undefined>>,
  publicOrigin: string | undefined,
  requestUrl?: string | undefined
): boolean => {
  const site = headers["sec-fetch-site"]?.trim().toLowerCase()
  if (site === "cross-site" || site === "same-site") return false
  const origin = headers["origin"]?.trim()
  if (origin === undefined) return true
  if (origin.toLowerCase() === "null") return site === "same-origin" || site === "none"
  const claimed = parsedOrigin(origin)
  if (claimed === undefined) return false
  if (publicOrigin !== undefined && claimed.origin === publicOrigin) return true
  const forwarded = headers["x-forwarded-host"]?.split(",")[0]?.trim()
  const ownHosts = [headers["host"], forwarded, absoluteHostOf(requestUrl)]
  return ownHosts.some((host) => hostFor(claimed.protocol, host) === claimed.host)
}

/** A form's fields, once the browser says it was sent from this site (`undefined` otherwise): the dashboard's and portal's posts. */
export const postedForm = (publicOrigin: string | undefined) =>
  Effect.gen(function*() {
    const r = yield* HttpServerRequest.HttpServerRequest
    if (!sameOriginSubmission(r.headers, publicOrigin, r.originalUrl)) return undefined
    return yield* r.urlParamsBody.pipe(Effect.orElseSucceed(() => UrlParams.empty))
  })

/** A posted field as text (empty when absent), at most 1,000 characters. */
export const formField = (params: UrlParams.UrlParams, name: string): string =>
  Option.getOrElse(UrlParams.getFirst(params, name), () => "").slice(0, 1000)

/** The host of an absolute http(s) URL (`request.originalUrl` of a fetch-style request); `undefined` for a path. */
const absoluteHostOf = (url: string | undefined) => {
  if (url === undefined || !/^https?:\/\//i.test(url)) return undefined
  try {
    return new URL(url).host
  } catch {
    return undefined
  }
}

/** `return_url` with `session_id`, `status` and `payment_id` appended (keeping its own query). */
export const returnTo = (returnUrl: string, session: CheckoutSession, payment: Payment) => {
  const url = new URL(returnUrl)
  url.searchParams.set("session_id", session.session_id)
  url.searchParams.set("status", payment.status)
  url.searchParams.set("payment_id", payment.payment_id)
  return url.toString()
}

const notFoundPage = (nonce: string) =>
  page(404, messagePage({
    title: "Checkout not found",
    businessName: "Checkout",
    nonce,
    message: "This checkout link is not valid. Ask the merchant for a new one.",
    tone: "alert"
  }), nonce)

const closedPage = (session: CheckoutSession, businessName: string, nonce: string) =>
  session.status === "complete"
    ? page(200, messagePage({
      title: "Payment received",
      businessName,
      nonce,
      session,
      message: "This checkout is complete. Thank you!",
      tone: "done"
    }), nonce)
    : page(410, messagePage({
      title: "Checkout expired",
      businessName,
      nonce,
      session,
      message: "This checkout has expired. Return to the merchant to start again.",
      tone: "alert"
    }), nonce)

const unavailablePage = (nonce: string) =>
  page(503, messagePage({
    title: "Temporarily unavailable",
    businessName: "Checkout",
    nonce,
    message: "We cannot take payments right now. Please try again in a moment; you have not been charged.",
    tone: "alert"
  }), nonce)

/** The origin customers reach this server at (`FILS_PUBLIC_URL` without its path), if it is a URL. */
const publicOriginOf = (publicUrl: string) => {
  try {
    const url = new URL(publicUrl)
    return url.protocol === "http:" || url.protocol === "https:" ? url.origin : undefined
  } catch {
    return undefined
  }
}

export const CheckoutPageRoutes = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const checkout = yield* Checkout
    const publicOrigin = publicOriginOf(yield* PublicUrl)

    const show = (id: CheckoutSessionId, nonce: string, alert?: string, status = 200) =>
      Effect.flatMap(checkout.page(id), ({ businessName, session }) =>
        session.status !== "open"
          ? Effect.succeed(closedPage(session, businessName, nonce))
          : Effect.succeed(page(
            status,
            paymentPage({
              session,
              businessName,
              nonce,
              formToken: session.form_token,
              values: {
                name: session.customer?.name ?? undefined,
                email: session.customer?.email,
                phone_number: session.customer?.phone_number ?? undefined
              },
              errors: {},
              alert
            }),
            nonce,
            session.return_url
          )))

    /** Store outages and defects still answer with a page (the JSON error mapping is for the API). */
    const guarded = (nonce: string, effect: Effect.Effect<HttpServerResponse.HttpServerResponse, unknown>) =>
      effect.pipe(
        Effect.catchAllCause((cause) => {
          const failure = Cause.failureOption(cause)
          const error = Option.getOrUndefined(failure) as { readonly _tag?: string } | undefined
          if (error?._tag === "NotFound") return Effect.succeed(notFoundPage(nonce))
          if (error?._tag === "StoreUnavailable") return Effect.succeed(unavailablePage(nonce))
          return Effect.zipRight(
            Effect.logError("Checkout page failed", cause),
            Effect.succeed(unavailablePage(nonce))
          )
        })
      )

    yield* router.get(
      "/checkout/:id",
      Effect.gen(function*() {
        const nonce = newNonce()
        const id = yield* routeSessionId
        if (Option.isNone(id)) return notFoundPage(nonce)
        return yield* guarded(nonce, show(id.value, nonce))
      })
    )

    /** A submission from another site: refused before anything is read from the form or charged. */
    const crossSiteMessage = "This payment was not sent from this checkout page, so nothing was charged. " +
      "Reload the checkout page and try again."
    const refuseCrossSite = (id: CheckoutSessionId, nonce: string) =>
      guarded(
        nonce,
        Effect.flatMap(checkout.page(id), ({ businessName, session }) =>
          session.status === "open"
            ? show(id, nonce, crossSiteMessage, 403)
            : Effect.succeed(page(403, messagePage({
              title: "Payment not sent",
              businessName,
              nonce,
              session,
              message: crossSiteMessage,
              tone: "alert"
            }), nonce)))
      )

    yield* router.post(
      "/checkout/:id",
      Effect.gen(function*() {
        const nonce = newNonce()
        const request = yield* HttpServerRequest.HttpServerRequest
        const id = yield* routeSessionId
        if (Option.isNone(id)) return notFoundPage(nonce)
        if (!sameOriginSubmission(request.headers, publicOrigin, request.originalUrl)) {
          yield* Effect.logWarning("Checkout form refused: submitted from another site").pipe(
            Effect.annotateLogs({
              session_id: id.value,
              origin: (request.headers["origin"] ?? "").slice(0, 200),
              sec_fetch_site: (request.headers["sec-fetch-site"] ?? "").slice(0, 40)
            })
          )
          return yield* refuseCrossSite(id.value, nonce)
        }
        const body = yield* request.urlParamsBody.pipe(Effect.orElseSucceed(() => UrlParams.empty))
        const form: Record<string, string> = {}
        for (const name of fields) {
          const value = Option.getOrUndefined(UrlParams.getFirst(body, name))
          if (value !== undefined) form[name] = value.slice(0, 1000)
        }
        const token = Option.getOrElse(UrlParams.getFirst(body, "form_token"), () => "")
        return yield* guarded(
          nonce,
          checkout.pay(id.value, token, form).pipe(
            Effect.flatMap((result) =>
              Effect.gen(function*() {
                if (result._tag === "Invalid") {
                  const { businessName } = yield* checkout.page(id.value)
                  return page(400, paymentPage({
                    session: result.session,
                    businessName,
                    nonce,
                    formToken: result.session.form_token,
                    values: form,
                    errors: result.errors,
                    alert: "Please correct the highlighted fields."
                  }), nonce, result.session.return_url)
                }
                const { payment, session } = result
                if (payment.status === "failed") {
                  return yield* show(id.value, nonce, declineMessage(payment.failure_code), 402)
                }
                if (session.return_url !== null) {
                  return HttpServerResponse.empty({
                    status: 303,
                    headers: { location: returnTo(session.return_url, session, payment), "cache-control": "no-store" }
                  })
                }
                const { businessName } = yield* checkout.page(id.value)
                return page(200, messagePage({
                  title: payment.status === "processing" ? "Payment processing" : "Payment received",
                  businessName,
                  nonce,
                  session,
                  message: payment.status === "processing"
                    ? "Your payment is being processed. You will hear from the merchant once it completes."
                    : "Thank you! Your payment was successful.",
                  tone: "done"
                }), nonce)
              })
            ),
            Effect.catchTags({
              InvalidState: (e) =>
                Effect.flatMap(checkout.page(id.value), ({ businessName, session }) =>
                  session.status !== "open"
                    ? Effect.succeed(closedPage(session, businessName, nonce))
                    : show(id.value, nonce, e.message, 409)),
              InvalidRequest: (e) => show(id.value, nonce, e.message, 403)
            })
          )
        )
      })
    )
  })
)
