/**
 * The hosted checkout page's routes (docs/decisions.md §3): `GET /checkout/{id}` shows the form, `POST` submits it,
 * `POST /checkout/{id}/discount` applies (or removes) a discount code (docs/discounts.md).
 * `GET /checkout/{id}/invoice` shows a paid session's tax invoice, once issued. The receipt and the invoice are shown
 * only to the browser that paid (its receipt cookie): a checkout link may be posted publicly (docs/checkout.md).
 * Every outcome is an HTML page (never JSON): the payer is a person in a browser, without JavaScript if they like,
 * in English or Arabic (docs/languages.md).
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as UrlParams from "@effect/platform/UrlParams"
import { Cause, DateTime, Duration, Effect, Option } from "effect"
import { Checkout } from "../../../src/application/Checkout.js"
import { Settings } from "../../../src/application/Settings.js"
import { type CheckoutSession, isReturnUrl } from "../../../src/domain/CheckoutSession.js"
import { fields, fromSubmitted, type SubmittedForm } from "../../../src/domain/CheckoutForm.js"
import { CheckoutSessionId, parseId } from "../../../src/domain/Ids.js"
import { declineCode } from "../../../src/domain/Payment.js"
import { renewalCharge, type Subscription } from "../../../src/domain/Subscription.js"
import { invoicePage } from "../documents/TaxDocumentPage.js"
import { htmlResponse, newNonce } from "../html/Document.js"
import { formField, readForm } from "../html/Forms.js"
import { html } from "../html/Html.js"
import { sameOriginSubmission } from "../html/Origin.js"
import { date, money } from "../i18n/Format.js"
import * as Locale from "../i18n/Locale.js"
import { inZone, type Lang, langOf } from "../i18n/Messages.js"
import { formRefusal } from "../i18n/Refusals.js"
import { type CodeField, formAction, type FormValues, messagePage, paidPage, paymentPage } from "./Page.js"

const sessionIdOf = parseId(CheckoutSessionId)
const routeSessionId = Effect.map(HttpRouter.params, (p) => Option.fromNullable(p.id === undefined ? undefined : sessionIdOf(p.id)))

/** The payer's receipt key (`Checkout.bindReceipt`), scoped to its checkout's path. */
const receiptCookie = "fils_receipt"
const receiptKeyFor = Duration.days(90)

const originOf = (url: string | null) => (url !== null && isReturnUrl(url) ? ` ${new URL(url).origin}` : "")

/** A strict policy: nothing loads but our own nonce'd style; the form may post here and redirect to the merchant. */
const page = (status: number, body: string, nonce: string, returnUrl: string | null = null) =>
  htmlResponse(status, body, nonce, { formActions: originOf(returnUrl), referrerPolicy: "no-referrer" })

/**
 * `return_url` with `session_id`, `status` and `payment_id` appended (keeping its own query); a free trial, which
 * has no payment, appends `status=succeeded` and its `subscription_id` instead.
 */
export const returnTo = (
  returnUrl: string,
  session: CheckoutSession,
  paid: { readonly payment_id: string; readonly status: string } | { readonly subscription_id: string }
) => {
  const url = new URL(returnUrl)
  url.searchParams.set("session_id", session.session_id)
  if ("payment_id" in paid) {
    url.searchParams.set("status", paid.status)
    url.searchParams.set("payment_id", paid.payment_id)
  } else {
    url.searchParams.set("status", "succeeded")
    url.searchParams.set("subscription_id", paid.subscription_id)
  }
  return url.toString()
}

/** What a started trial says: nothing charged today, and when the card is first charged, for how much. */
const trialStarted = (lang: Lang, subscription: Subscription) =>
  lang.t.checkout.trialStarted({
    days: subscription.trial_period_days ?? 0,
    amount: money(lang.locale, renewalCharge(subscription).amount, subscription.currency),
    on: date(lang.locale, subscription.next_billing_date, lang.zone)
  })

const notFoundPage = (lang: Lang, nonce: string) =>
  page(404, messagePage({
    lang,
    title: lang.t.checkout.notFoundTitle,
    businessName: lang.t.checkout.checkoutName,
    nonce,
    message: lang.t.checkout.notFound,
    tone: "alert"
  }), nonce)

const expiredPage = (lang: Lang, session: CheckoutSession, businessName: string, nonce: string) =>
  page(410, messagePage({
    lang,
    title: lang.t.checkout.expiredTitle,
    businessName,
    nonce,
    session,
    message: lang.t.checkout.expired,
    tone: "alert"
  }), nonce)

// Whether a customer paid is not known here (a payment may have gone through before the outage): say nothing of it.
const unavailablePage = (lang: Lang, nonce: string) =>
  page(503, messagePage({
    lang,
    title: lang.t.checkout.unavailableTitle,
    businessName: lang.t.checkout.checkoutName,
    nonce,
    message: lang.t.checkout.unavailable,
    tone: "alert"
  }), nonce)

/** A submission whose outcome is unknown: the charge may have succeeded before the error, so only a re-read tells. */
const unknownOutcomePage = (lang: Lang, id: CheckoutSessionId, nonce: string) =>
  page(503, messagePage({
    lang,
    title: lang.t.checkout.unknownTitle,
    businessName: lang.t.checkout.checkoutName,
    nonce,
    message: lang.t.checkout.unknown,
    tone: "alert",
    link: { href: `/checkout/${id}`, label: lang.t.checkout.reload }
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
    const { publicUrl } = yield* Settings
    const publicOrigin = publicOriginOf(publicUrl)
    const secure = publicOrigin?.startsWith("https:") ?? false

    /** A page in the request's language, remembering a switched one (docs/languages.md). */
    const localized = <E, R>(handler: (lang: Lang, nonce: string) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
      Effect.flatMap(Locale.fromRequest, (negotiated) =>
        Effect.map(handler(langOf(negotiated.locale), newNonce()), Locale.remember(negotiated, secure)))

    /** The response, giving the browser whose submission `formToken` was the key to the session's receipt. */
    const withReceiptCookie = (id: CheckoutSessionId, key: string) => (response: HttpServerResponse.HttpServerResponse) =>
      Effect.succeed(HttpServerResponse.unsafeSetCookie(response, receiptCookie, key, {
        path: `/checkout/${id}`,
        maxAge: receiptKeyFor,
        sameSite: "lax",
        httpOnly: true,
        secure
      }))
    const withReceiptKey = (id: CheckoutSessionId, formToken: string) => (response: HttpServerResponse.HttpServerResponse) =>
      Effect.flatMap(checkout.bindReceipt(id, formToken), (key) =>
        Option.isNone(key) ? Effect.succeed(response) : withReceiptCookie(id, key.value)(response))

    /** The session's receipt data, when this request's browser is the one that paid it; none for anyone else. */
    const payersReceipt = (id: CheckoutSessionId, key?: string) =>
      Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        const found = yield* checkout.receipt(id)
        return (yield* checkout.ownsReceipt(found.session, key ?? request.cookies[receiptCookie])) ? Option.some(found) : Option.none()
      })

    /**
     * A completed session's page: to the browser that paid, its receipt, the way back to the merchant, and its tax
     * invoice once issued; to anyone else with the link, only that it is complete.
     */
    const completePage = (lang: Lang, id: CheckoutSessionId, nonce: string, key?: string) =>
      Effect.flatMap(payersReceipt(id, key), (owned) => Option.isNone(owned) ? strangersPage(lang, id, nonce) : Effect.succeed((() => {
        const { businessName, invoice, payment, session, timeZone } = owned.value
        const { t } = lang
        const processing = payment?.status === "processing"
        const paid = payment ?? (session.subscription_id === null ? null : { subscription_id: session.subscription_id })
        return page(200, paidPage({
          lang: inZone(lang, timeZone),
          // A free trial completes with no payment.
          title: payment === null ? t.checkout.trialStartedTitle : processing ? t.checkout.processingTitle : t.checkout.paidTitle,
          message: processing ? t.checkout.processing : t.checkout.complete,
          businessName,
          nonce,
          session,
          payment,
          paidAt: payment?.paid_at ?? session.completed_at ?? session.created_at,
          returnUrl: session.return_url === null || paid === null ? null : returnTo(session.return_url, session, paid),
          invoiceHref: invoice === null ? null : `${formAction(session)}/invoice`
        }), nonce, session.return_url)
      })()))

    /** What anyone but the payer sees of a completed session: that it is complete, and nothing of what was paid. */
    const strangersPage = (lang: Lang, id: CheckoutSessionId, nonce: string) =>
      Effect.map(checkout.receipt(id), ({ businessName, payment, session }) => {
        const { t } = lang
        const processing = payment?.status === "processing"
        return page(200, messagePage({
          lang,
          title: payment === null ? t.checkout.trialStartedTitle : processing ? t.checkout.processingTitle : t.checkout.paidTitle,
          message: `${processing ? t.checkout.processing : t.checkout.complete} ${t.checkout.receiptPayerOnly}`,
          businessName,
          nonce,
          session,
          cart: false,
          tone: "done"
        }), nonce)
      })

    const closedPage = (lang: Lang, session: CheckoutSession, businessName: string, nonce: string) =>
      session.status === "complete" ? completePage(lang, session.session_id, nonce) : Effect.succeed(expiredPage(lang, session, businessName, nonce))

    /**
     * The payment page, with an `alert` and its `status`; `code`: the discount code field as typed; `values`: what the
     * customer typed, shown again after a refusal (never the card number or CVC).
     */
    const show = (
      lang: Lang,
      id: CheckoutSessionId,
      nonce: string,
      { alert, code, status = 200, values = {} }: {
        readonly alert?: string | undefined
        readonly status?: number
        readonly code?: CodeField
        readonly values?: FormValues
      } = {}
    ) =>
      Effect.flatMap(Effect.zip(checkout.page(id), DateTime.now), ([{ businessName, plan, session, timeZone }, now]) =>
        session.status !== "open"
          ? closedPage(lang, session, businessName, nonce)
          : Effect.succeed(page(
            status,
            paymentPage({
              lang: inZone(lang, timeZone),
              session,
              plan,
              now,
              businessName,
              nonce,
              formToken: session.form_token,
              values,
              errors: {},
              alert,
              code
            }),
            nonce,
            session.return_url
          )))

    /** Store outages and defects still answer with a page (the JSON error mapping is for the API). */
    const guarded = <R>(lang: Lang, nonce: string, effect: Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, R>) =>
      effect.pipe(
        Effect.catchAllCause((cause) => {
          const failure = Cause.failureOption(cause)
          const error = Option.getOrUndefined(failure) as { readonly _tag?: string } | undefined
          if (error?._tag === "NotFound") return Effect.succeed(notFoundPage(lang, nonce))
          if (error?._tag === "StoreUnavailable") return Effect.succeed(unavailablePage(lang, nonce))
          return Effect.zipRight(
            Effect.logError("Checkout page failed", cause),
            Effect.succeed(unavailablePage(lang, nonce))
          )
        })
      )

    yield* router.get(
      "/checkout/:id",
      localized((lang, nonce) =>
        Effect.gen(function*() {
          const id = yield* routeSessionId
          if (Option.isNone(id)) return notFoundPage(lang, nonce)
          return yield* guarded(lang, nonce, show(lang, id.value, nonce))
        })
      )
    )

    /** A paid session's tax invoice, once issued: the printable page (bilingual, as UAE tax documents are). */
    yield* router.get(
      "/checkout/:id/invoice",
      localized((lang, nonce) =>
        Effect.gen(function*() {
          const id = yield* routeSessionId
          if (Option.isNone(id)) return notFoundPage(lang, nonce)
          return yield* guarded(
            lang,
            nonce,
            // Only the browser that paid sees the invoice (it names the buyer): to anyone else there is none.
            Effect.map(payersReceipt(id.value), (owned) =>
              Option.isNone(owned) || owned.value.invoice === null
                ? notFoundPage(lang, nonce)
                : page(200, invoicePage(owned.value.invoice, {
                  nonce,
                  back: html`<a href="${formAction(owned.value.session)}">${lang.t.checkout.receipt}</a>`
                }), nonce))
          )
        })
      )
    )

    /** A submission from another site: refused before anything is read from the form or charged. */
    const refuseCrossSite = (lang: Lang, id: CheckoutSessionId, nonce: string) =>
      guarded(
        lang,
        nonce,
        Effect.flatMap(checkout.page(id), ({ businessName, session }) =>
          session.status === "open"
            ? show(lang, id, nonce, { alert: lang.t.checkout.crossSite, status: 403 })
            : Effect.succeed(page(403, messagePage({
              lang,
              title: lang.t.checkout.notSentTitle,
              businessName,
              nonce,
              session,
              message: lang.t.checkout.crossSite,
              tone: "alert"
            }), nonce)))
      )

    yield* router.post(
      "/checkout/:id",
      localized((lang, nonce) =>
        Effect.gen(function*() {
          const { t } = lang
          const request = yield* HttpServerRequest.HttpServerRequest
          const id = yield* routeSessionId
          if (Option.isNone(id)) return notFoundPage(lang, nonce)
          if (!sameOriginSubmission(request.headers, publicOrigin, request.originalUrl)) {
            yield* Effect.logWarning("Checkout form refused: submitted from another site").pipe(
              Effect.annotateLogs({
                session_id: id.value,
                origin: (request.headers["origin"] ?? "").slice(0, 200),
                sec_fetch_site: (request.headers["sec-fetch-site"] ?? "").slice(0, 40)
              })
            )
            return yield* refuseCrossSite(lang, id.value, nonce)
          }
          const body = yield* Effect.either(readForm)
          if (body._tag === "Left") return yield* guarded(lang, nonce, show(lang, id.value, nonce, { alert: formRefusal(lang.t, body.left), status: 400 }))
          const submitted: SubmittedForm = {}
          for (const name of fields) {
            const value = Option.getOrUndefined(UrlParams.getFirst(body.right, name))
            if (value !== undefined) submitted[name] = value
          }
          // The card number and CVC are `Redacted` from here on (to the processor's adapter).
          const form = fromSubmitted(submitted)
          // A script that posts only the form's named fields (docs/decisions.md §3), no `form_token` at all, pays an
          // open session as it stands now. A modern browser says where a form came from (`Origin`, `Sec-Fetch-Site`;
          // a cross-site one was refused above) and sends the page's token, which must be the session's. A session
          // no longer open is never paid this way, and its token (then its receipt's) is never lent to a script.
          const scripted = Option.isNone(UrlParams.getFirst(body.right, "form_token")) &&
            request.headers["origin"] === undefined && request.headers["sec-fetch-site"] === undefined
          const read = scripted ? yield* Effect.either(checkout.page(id.value)) : undefined
          // The session cannot be read: the outage's page, not a form refused as out of date.
          if (read?._tag === "Left" && read.left._tag === "StoreUnavailable") return unavailablePage(lang, nonce)
          const token = read === undefined
            ? formField(body.right, "form_token")
            : read._tag === "Right" && read.right.session.status === "open" ? read.right.session.form_token : ""
          // This browser paid (or its charge is processing): it gets the key to the receipt.
          const paidBy = withReceiptKey(id.value, token)
          // A failure the page cannot explain (the store lost mid-payment) leaves the outcome unknown: the session is
          // read again, and only a completed one is shown as paid (its receipt to this browser, which sent its form).
          const unknownOutcome = Effect.flatMap(checkout.page(id.value), ({ session }) =>
            session.status === "complete"
              ? Effect.flatMap(checkout.bindReceipt(id.value, token), (key) =>
                Effect.flatMap(
                  completePage(lang, id.value, nonce, Option.getOrUndefined(key)),
                  Option.isNone(key) ? Effect.succeed : withReceiptCookie(id.value, key.value)
                ))
              : Effect.succeed(unknownOutcomePage(lang, id.value, nonce))).pipe(
              Effect.orElseSucceed(() => unknownOutcomePage(lang, id.value, nonce))
            )
          return yield* guarded(
            lang,
            nonce,
            checkout.pay(id.value, token, form).pipe(
              Effect.flatMap((result) =>
                Effect.gen(function*() {
                  if (result._tag === "Invalid") {
                    const { businessName, plan, timeZone } = yield* checkout.page(id.value)
                    return page(400, paymentPage({
                      lang: inZone(lang, timeZone),
                      session: result.session,
                      plan,
                      now: yield* DateTime.now,
                      businessName,
                      nonce,
                      formToken: result.session.form_token,
                      values: form,
                      errors: result.errors,
                      alert: t.checkout.correct
                    }), nonce, result.session.return_url)
                  }
                  if (result._tag === "Refused") {
                    return yield* show(lang, id.value, nonce, { alert: t.declines[declineCode(result.code)], status: 402, values: form })
                  }
                  if (result._tag === "Started") {
                    const { session, subscription } = result
                    if (session.return_url !== null) {
                      return yield* paidBy(HttpServerResponse.empty({
                        status: 303,
                        headers: { location: returnTo(session.return_url, session, subscription), "cache-control": "no-store" }
                      }))
                    }
                    const { businessName, timeZone } = yield* checkout.page(id.value)
                    return yield* paidBy(page(200, paidPage({
                      lang: inZone(lang, timeZone),
                      title: t.checkout.trialStartedTitle,
                      message: trialStarted(inZone(lang, timeZone), subscription),
                      businessName,
                      nonce,
                      session,
                      payment: null,
                      paidAt: session.completed_at ?? (yield* DateTime.now),
                      returnUrl: null,
                      invoiceHref: null
                    }), nonce))
                  }
                  const { payment, session } = result
                  if (payment.status === "failed") {
                    return yield* show(lang, id.value, nonce, { alert: t.declines[declineCode(payment.failure_code)], status: 402, values: form })
                  }
                  if (session.return_url !== null) {
                    return yield* paidBy(HttpServerResponse.empty({
                      status: 303,
                      headers: { location: returnTo(session.return_url, session, payment), "cache-control": "no-store" }
                    }))
                  }
                  const { businessName, invoice, timeZone } = yield* checkout.receipt(id.value)
                  const processing = payment.status === "processing"
                  return yield* paidBy(page(200, paidPage({
                    lang: inZone(lang, timeZone),
                    title: processing ? t.checkout.processingTitle : t.checkout.paidTitle,
                    message: processing ? t.checkout.processing : t.checkout.paid,
                    businessName,
                    nonce,
                    session,
                    payment,
                    paidAt: payment.paid_at ?? payment.created_at,
                    returnUrl: null,
                    invoiceHref: invoice === null ? null : `${formAction(session)}/invoice`
                  }), nonce))
                })
              ),
              Effect.catchTags({
                InvalidState: (e) =>
                  Effect.flatMap(checkout.page(id.value), ({ businessName, session }) =>
                    session.status !== "open"
                      ? closedPage(lang, session, businessName, nonce)
                      : show(lang, id.value, nonce, { alert: t.checkout.notPayableNow(e.message), status: 409, values: form })),
                // The only request `pay` refuses is a stale form (its token not the session's).
                InvalidRequest: () => show(lang, id.value, nonce, { alert: t.checkout.staleForm, status: 403 }),
                // The session's code expired, was used up or deleted since it was applied: nothing was charged.
                DiscountNotRedeemable: (e) =>
                  show(lang, id.value, nonce, {
                    alert: t.checkout.discountNotRedeemable,
                    status: 409,
                    code: { value: e.discount_code, error: t.discountRefusals[e.reason] },
                    values: form
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
    )

    /**
     * The discount code's form: the page again, priced with the code (or without one, for Remove or an empty field),
     * or with the refusal next to the field and the session unchanged. The field shows what was typed.
     */
    yield* router.post(
      "/checkout/:id/discount",
      localized((lang, nonce) =>
        Effect.gen(function*() {
          const request = yield* HttpServerRequest.HttpServerRequest
          const id = yield* routeSessionId
          if (Option.isNone(id)) return notFoundPage(lang, nonce)
          if (!sameOriginSubmission(request.headers, publicOrigin, request.originalUrl)) {
            yield* Effect.logWarning("Checkout discount code refused: submitted from another site").pipe(
              Effect.annotateLogs({ session_id: id.value })
            )
            return yield* refuseCrossSite(lang, id.value, nonce)
          }
          const body = yield* Effect.either(readForm)
          if (body._tag === "Left") return yield* guarded(lang, nonce, show(lang, id.value, nonce, { alert: formRefusal(lang.t, body.left), status: 400 }))
          const typed = formField(body.right, "remove") !== "" ? "" : formField(body.right, "discount_code")
          return yield* guarded(
            lang,
            nonce,
            checkout.applyCode(id.value, formField(body.right, "form_token"), typed).pipe(
              Effect.flatMap(() => show(lang, id.value, nonce, { code: { value: typed } })),
              Effect.catchTags({
                DiscountNotRedeemable: (e) =>
                  show(lang, id.value, nonce, { status: 400, code: { value: typed, error: lang.t.discountRefusals[e.reason] } }),
                InvalidState: (e) =>
                  Effect.flatMap(checkout.page(id.value), ({ businessName, session }) =>
                    session.status !== "open"
                      ? closedPage(lang, session, businessName, nonce)
                      : show(lang, id.value, nonce, { alert: lang.t.checkout.notPayableNow(e.message), status: 409, code: { value: typed } })),
                // The only request `applyCode` refuses is a stale form (its token not the session's).
                InvalidRequest: () => show(lang, id.value, nonce, { alert: lang.t.checkout.staleForm, status: 403, code: { value: typed } })
              })
            )
          )
        })
      )
    )
  })
)
