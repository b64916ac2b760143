/**
 * The hosted checkout page's routes (docs/decisions.md §3): `GET /checkout/{id}` shows the form, `POST` submits it,
 * `POST /checkout/{id}/discount` applies (or removes) a discount code (docs/discounts.md).
 * Every outcome is an HTML page (never JSON): the payer is a person in a browser, without JavaScript if they like.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as UrlParams from "@effect/platform/UrlParams"
import { Cause, DateTime, Effect, Option } from "effect"
import { Checkout } from "../../../src/application/Checkout.js"
import { Settings } from "../../../src/application/Settings.js"
import { type CheckoutSession, isReturnUrl } from "../../../src/domain/CheckoutSession.js"
import { fields, fromSubmitted, type SubmittedForm } from "../../../src/domain/CheckoutForm.js"
import { customerMessage } from "../../../src/domain/Discount.js"
import { CheckoutSessionId, parseId } from "../../../src/domain/Ids.js"
import { formatAmount } from "../../../src/domain/Money.js"
import { declineMessage, type Payment } from "../../../src/domain/Payment.js"
import { renewalCharge, type Subscription } from "../../../src/domain/Subscription.js"
import { htmlResponse, newNonce } from "../html/Document.js"
import { formField, notUtf8Message, readForm } from "../html/Forms.js"
import { sameOriginSubmission } from "../html/Origin.js"
import { type CodeField, day, messagePage, paymentPage } from "./Page.js"

const sessionIdOf = parseId(CheckoutSessionId)
const routeSessionId = Effect.map(HttpRouter.params, (p) => Option.fromNullable(p.id === undefined ? undefined : sessionIdOf(p.id)))

const originOf = (url: string | null) => (url !== null && isReturnUrl(url) ? ` ${new URL(url).origin}` : "")

/** A strict policy: nothing loads but our own nonce'd style; the form may post here and redirect to the merchant. */
const page = (status: number, body: string, nonce: string, returnUrl: string | null = null) =>
  htmlResponse(status, body, nonce, { formActions: originOf(returnUrl), referrerPolicy: "no-referrer" })

/**
 * `return_url` with `session_id`, `status` and `payment_id` appended (keeping its own query); a free trial, which
 * has no payment, appends `status=succeeded` and its `subscription_id` instead.
 */
export const returnTo = (returnUrl: string, session: CheckoutSession, paid: Payment | Subscription) => {
  const url = new URL(returnUrl)
  url.searchParams.set("session_id", session.session_id)
  if (paid.object === "payment") {
    url.searchParams.set("status", paid.status)
    url.searchParams.set("payment_id", paid.payment_id)
  } else {
    url.searchParams.set("status", "succeeded")
    url.searchParams.set("subscription_id", paid.subscription_id)
  }
  return url.toString()
}

/** What a started trial says: nothing charged today, and when the card is first charged, for how much. */
const trialStarted = (subscription: Subscription) =>
  `Your ${subscription.trial_period_days}-day trial has started. Your card will first be charged ` +
  `${formatAmount(renewalCharge(subscription).amount, subscription.currency)} on ${day(subscription.next_billing_date)}; ` +
  "cancel before then and nothing more is charged."

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
      // A free trial completes with no payment.
      title: session.payment_id === null ? "Trial started" : "Payment received",
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

// Whether a customer paid is not known here (a payment may have gone through before the outage): say nothing of it.
const unavailablePage = (nonce: string) =>
  page(503, messagePage({
    title: "Temporarily unavailable",
    businessName: "Checkout",
    nonce,
    message: "This checkout cannot be reached right now. Please try again in a moment.",
    tone: "alert"
  }), nonce)

/** A submission whose outcome is unknown: the charge may have succeeded before the error, so only a re-read tells. */
const unknownOutcomePage = (id: CheckoutSessionId, nonce: string) =>
  page(503, messagePage({
    title: "Payment status not known yet",
    businessName: "Checkout",
    nonce,
    message: "We could not confirm whether your payment went through. Please do not pay again yet: reload this " +
      "page in a moment to see its status.",
    tone: "alert",
    link: { href: `/checkout/${id}`, label: "Reload the payment status" }
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
    const publicOrigin = publicOriginOf((yield* Settings).publicUrl)

    const show = (id: CheckoutSessionId, nonce: string, alert?: string, status = 200, code?: CodeField) =>
      Effect.flatMap(Effect.zip(checkout.page(id), DateTime.now), ([{ businessName, plan, session }, now]) =>
        session.status !== "open"
          ? Effect.succeed(closedPage(session, businessName, nonce))
          : Effect.succeed(page(
            status,
            paymentPage({
              session,
              plan,
              now,
              businessName,
              nonce,
              formToken: session.form_token,
              values: {
                name: session.customer?.name ?? undefined,
                email: session.customer?.email,
                phone_number: session.customer?.phone_number ?? undefined
              },
              errors: {},
              alert,
              code
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
        const body = yield* Effect.either(readForm)
        if (body._tag === "Left") return yield* guarded(nonce, show(id.value, nonce, notUtf8Message, 400))
        const submitted: SubmittedForm = {}
        for (const name of fields) {
          const value = Option.getOrUndefined(UrlParams.getFirst(body.right, name))
          if (value !== undefined) submitted[name] = value
        }
        // The card number and CVC are `Redacted` from here on (to the processor's adapter).
        const form = fromSubmitted(submitted)
        const token = formField(body.right, "form_token")
        // A failure the page cannot explain (the store lost mid-payment) leaves the outcome unknown: the session is
        // read again, and only a completed one is shown as paid.
        const unknownOutcome = Effect.flatMap(checkout.page(id.value), ({ businessName, session }) =>
          session.status === "complete"
            ? Effect.succeed(closedPage(session, businessName, nonce))
            : Effect.succeed(unknownOutcomePage(id.value, nonce))).pipe(
            Effect.orElseSucceed(() => unknownOutcomePage(id.value, nonce))
          )
        return yield* guarded(
          nonce,
          checkout.pay(id.value, token, form).pipe(
            Effect.flatMap((result) =>
              Effect.gen(function*() {
                if (result._tag === "Invalid") {
                  const { businessName, plan } = yield* checkout.page(id.value)
                  return page(400, paymentPage({
                    session: result.session,
                    plan,
                    now: yield* DateTime.now,
                    businessName,
                    nonce,
                    formToken: result.session.form_token,
                    values: form,
                    errors: result.errors,
                    alert: "Please correct the highlighted fields."
                  }), nonce, result.session.return_url)
                }
                if (result._tag === "Refused") return yield* show(id.value, nonce, declineMessage(result.code), 402)
                if (result._tag === "Started") {
                  const { session, subscription } = result
                  if (session.return_url !== null) {
                    return HttpServerResponse.empty({
                      status: 303,
                      headers: { location: returnTo(session.return_url, session, subscription), "cache-control": "no-store" }
                    })
                  }
                  const { businessName } = yield* checkout.page(id.value)
                  return page(200, messagePage({
                    title: "Trial started",
                    businessName,
                    nonce,
                    session,
                    message: trialStarted(subscription),
                    tone: "done"
                  }), nonce)
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
              InvalidRequest: (e) => show(id.value, nonce, e.message, 403),
              // The session's code expired, was used up or deleted since it was applied: nothing was charged.
              DiscountNotRedeemable: (e) =>
                show(id.value, nonce, "Nothing was charged: remove the discount code to pay without it.", 409, {
                  value: e.discount_code,
                  error: customerMessage(e.reason)
                })
            }),
            Effect.catchAllCause((cause) => {
              const error = Option.getOrUndefined(Cause.failureOption(cause)) as { readonly _tag?: string } | undefined
              if (error?._tag === "NotFound") return Effect.failCause(cause)
              return Effect.zipRight(
                error?._tag === "StoreUnavailable" ? Effect.void : Effect.logError("Checkout payment failed", cause),
                unknownOutcome
              )
            })
          )
        )
      })
    )

    /**
     * The discount code's form: the page again, priced with the code (or without one, for Remove or an empty field),
     * or with the refusal next to the field and the session unchanged. The field shows what was typed.
     */
    yield* router.post(
      "/checkout/:id/discount",
      Effect.gen(function*() {
        const nonce = newNonce()
        const request = yield* HttpServerRequest.HttpServerRequest
        const id = yield* routeSessionId
        if (Option.isNone(id)) return notFoundPage(nonce)
        if (!sameOriginSubmission(request.headers, publicOrigin, request.originalUrl)) {
          yield* Effect.logWarning("Checkout discount code refused: submitted from another site").pipe(
            Effect.annotateLogs({ session_id: id.value })
          )
          return yield* refuseCrossSite(id.value, nonce)
        }
        const body = yield* Effect.either(readForm)
        if (body._tag === "Left") return yield* guarded(nonce, show(id.value, nonce, notUtf8Message, 400))
        const typed = formField(body.right, "remove") !== "" ? "" : formField(body.right, "discount_code")
        return yield* guarded(
          nonce,
          checkout.applyCode(id.value, formField(body.right, "form_token"), typed).pipe(
            Effect.flatMap(() => show(id.value, nonce, undefined, 200, { value: typed })),
            Effect.catchTags({
              DiscountNotRedeemable: (e) =>
                show(id.value, nonce, undefined, 400, { value: typed, error: customerMessage(e.reason) }),
              InvalidState: (e) =>
                Effect.flatMap(checkout.page(id.value), ({ businessName, session }) =>
                  session.status !== "open"
                    ? Effect.succeed(closedPage(session, businessName, nonce))
                    : show(id.value, nonce, e.message, 409, { value: typed })),
              InvalidRequest: (e) => show(id.value, nonce, e.message, 403, { value: typed })
            })
          )
        )
      })
    )
  })
)
