/**
 * The customer portal's routes, under `<public path>/portal`. `GET /portal/{link secret}` shows a page
 * whose button (`POST` to the same path) opens a portal session's one-time link and starts the browser session (a
 * cookie, an hour, or until signing out ends it on the server); the other pages need that cookie:
 * the home page (subscriptions, payments and tax documents), cancelling at the period end and undoing it, replacing a
 * card, changing plan (the plans offered, a preview, its confirmation at the preview's quote), receipts, and tax
 * invoices and credit notes. Every object is reached through the session's customer (`Portal`): another customer's is not found.
 *
 * As on the dashboard: every form carries the session's CSRF token and is refused from another site; every page
 * sends a CSP with a nonce and `frame-ancestors 'none'`; the cookie is HttpOnly, SameSite=Lax, and `__Host-`/Secure
 * when the public URL is https. The link's secret is never logged (the request log records route templates, and
 * the server does not trace those requests: `Server.ts`).
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as UrlParams from "@effect/platform/UrlParams"
import { Cause, DateTime, Effect, Either, Option, ParseResult, Redacted, Schema } from "effect"
import { Settings } from "../../../src/application/Settings.js"
import { Portal, type PortalLinkGone, scopeOf } from "../../../src/application/Portal.js"
import { cardFields as cardFieldNames, fromSubmitted, type SubmittedForm, validateCard } from "../../../src/domain/CheckoutForm.js"
import { CreditNoteId, InvoiceId, parseId, PaymentId, SubscriptionId } from "../../../src/domain/Ids.js"
import { declineCode } from "../../../src/domain/Payment.js"
import * as PlanChange from "../../../src/domain/PlanChange.js"
import type { PortalSession } from "../../../src/domain/PortalSession.js"
import { Signer } from "../../../src/ports/Signer.js"
import { htmlResponse, newNonce } from "../html/Document.js"
import { formField, onceField, postedForm } from "../html/Forms.js"
import * as Pages from "./Pages.js"
import * as PlanPages from "./PlanPages.js"
import { receiptPage } from "./Receipt.js"
import { creditNotePage, invoicePage } from "../documents/TaxDocumentPage.js"
import { attempt } from "../html/Attempt.js"
import { html } from "../html/Html.js"
import * as Locale from "../i18n/Locale.js"
import { inZone, type Lang, langOf } from "../i18n/Messages.js"
import { formRefusal, refusal } from "../i18n/Refusals.js"

const page = (status: number, body: string, nonce: string) => htmlResponse(status, body, nonce)

const subscriptionIdOf = parseId(SubscriptionId)
const paymentIdOf = parseId(PaymentId)
const invoiceIdOf = parseId(InvoiceId)
const creditNoteIdOf = parseId(CreditNoteId)
const decodeChoice = Schema.decodeUnknownEither(PlanChange.PortalPlanChoice, { errors: "all" })

/** What a change tells the customer on the page it returns to (a fixed text per key: nothing reflected). */
const noticeKeys = [
  "cancel_scheduled",
  "cancel_undone",
  "card_saved",
  "card_paid",
  "card_processing",
  "plan_changed",
  "plan_scheduled",
  "plan_kept",
  "plan_processing",
  "signed_out"
] as const
type NoticeKey = (typeof noticeKeys)[number]
const isNotice = (key: string): key is NoticeKey => (noticeKeys as ReadonlyArray<string>).includes(key)
const notice = (lang: Lang, key: string) => (isNotice(key) ? { tone: "done" as const, text: lang.t.portal.notices[key] } : undefined)

export const PortalRoutes = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const portal = yield* Portal
    const signer = yield* Signer
    const publicUrl = new URL((yield* Settings).publicUrl)
    const publicOrigin = publicUrl.origin
    const secure = publicUrl.protocol === "https:"
    const base = `${publicUrl.pathname.replace(/\/+$/, "")}/portal`
    const cookieName = secure ? "__Host-fils_portal" : "fils_portal"
    const cookie = (value: string, maxAgeSeconds: number) =>
      `${cookieName}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure ? "; Secure" : ""}`
    /** Set with a link's page, repeated by its button's form: the post comes from that page (`POST /portal/:token`). */
    const openCookieName = secure ? "__Host-fils_portal_open" : "fils_portal_open"
    const openCookie = (value: string) =>
      `${openCookieName}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=3600${secure ? "; Secure" : ""}`
    const redirect = (location: string, setCookie?: string) =>
      HttpServerResponse.empty({
        status: 303,
        headers: { location, "cache-control": "no-store", ...(setCookie === undefined ? {} : { "set-cookie": setCookie }) }
      })

    const request = HttpServerRequest.HttpServerRequest

    /** A response in the request's language, remembering a switched one (docs/languages.md). */
    const withLang = <E, R>(handler: (lang: Lang) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
      Effect.flatMap(Locale.fromRequest, (negotiated) =>
        Effect.map(handler(langOf(negotiated.locale)), Locale.remember(negotiated, secure)))
    // The browser session's cookie and the link's secret are `Redacted` from here to the digests they are found by.
    const cookieOf = Effect.map(request, (r) => {
      const value = r.cookies[cookieName]
      return value === undefined ? undefined : Redacted.make(value)
    })

    /** Store outages and defects answer with a page, never JSON. */
    const guarded = (
      nonce: string,
      lang: Lang,
      effect: Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, HttpServerRequest.HttpServerRequest | HttpRouter.RouteContext>
    ) =>
      effect.pipe(Effect.catchAllCause((cause) =>
        Effect.zipRight(
          Effect.logError("Customer portal page failed", cause).pipe(Effect.when(() => !Cause.isInterruptedOnly(cause))),
          Effect.succeed(page(503, Pages.messagePage({ nonce, base, lang }, lang.t.portal.unavailableTitle, lang.t.portal.unavailable), nonce))
        )
      ))

    const ended = (nonce: string, lang: Lang) =>
      page(401, Pages.messagePage({ nonce, base, lang }, lang.t.portal.endedTitle, lang.t.portal.ended), nonce)
    const backHomeLink = (frame: Pages.Frame) => ({ href: base, label: frame.lang.t.portal.back })
    const notFound = (frame: Pages.Frame) =>
      page(404, Pages.messagePage(frame, frame.lang.t.portal.notFoundTitle, frame.lang.t.portal.notFound, backHomeLink(frame)), frame.nonce)
    /** The frame in the account's time zone, once the page has read the account. */
    const zoned = (frame: Pages.Frame, account: { readonly time_zone: string }): Pages.Frame => ({
      ...frame,
      lang: inZone(frame.lang, account.time_zone)
    })

    type Handler = (session: PortalSession, frame: Pages.Frame) => Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, HttpServerRequest.HttpServerRequest | HttpRouter.RouteContext>

    /** A page of a live portal session; without one, the "session ended" page. */
    const withSession = (handler: Handler) =>
      withLang((lang) => {
        const nonce = newNonce()
        return guarded(nonce, lang, Effect.gen(function*() {
          const token = yield* cookieOf
          const session = token === undefined ? Option.none() : yield* portal.authenticate(token)
          if (Option.isNone(session)) return ended(nonce, lang)
          return yield* handler(session.value, { nonce, base, csrf: session.value.csrf_token ?? "", lang })
        }))
      })

    const field = formField

    /** A form post of a live session: from this site, with the session's CSRF token; refused with 403 otherwise. */
    const withPost = (handler: (session: PortalSession, frame: Pages.Frame, params: UrlParams.UrlParams) => ReturnType<Handler>) =>
      withSession((session, frame) =>
        Effect.gen(function*() {
          const posted = yield* Effect.either(postedForm(publicOrigin))
          if (posted._tag === "Left") {
            return page(400, Pages.messagePage(frame, frame.lang.t.portal.notSentTitle, formRefusal(frame.lang.t, posted.left), backHomeLink(frame)), frame.nonce)
          }
          const params = posted.right
          const token = params === undefined ? "" : field(params, "csrf_token")
          if (params === undefined || !(yield* signer.sameSecret(token, session.csrf_token ?? ""))) {
            return page(403, Pages.messagePage(frame, frame.lang.t.portal.notSentTitle, frame.lang.t.portal.notSent, backHomeLink(frame)), frame.nonce)
          }
          return yield* handler(session, frame, params)
        })
      )

    const param = (name: string) => Effect.map(HttpRouter.params, (p) => (p[name] ?? "").slice(0, 200))
    const linkToken = Effect.map(param("token"), Redacted.make)

    // The home page ----------------------------------------------------------------------------------------------

    yield* router.get("/portal", withSession((session, frame) =>
      Effect.gen(function*() {
        const key = new URLSearchParams((yield* request).url.split("?")[1] ?? "").get("notice") ?? ""
        const overview = yield* portal.overview(session)
        const documents = yield* portal.documents(session)
        return page(200, Pages.homePage(zoned(frame, overview.account), {
          overview,
          documents,
          returnUrl: session.return_url,
          livemode: session.livemode,
          notice: notice(frame.lang, key)
        }), frame.nonce)
      })))

    // Opening a link ---------------------------------------------------------------------------------------------

    /**
     * A link that cannot be opened: unknown, used or expired. A used or expired one offers its merchant's support
     * e-mail and the way back to its site, where a new link is had.
     */
    const linkGone = (nonce: string, lang: Lang) => ({ merchant, reason }: PortalLinkGone) => {
      const { t } = lang
      const frame = { nonce, base, lang }
      if (reason === "unknown") return Effect.succeed(page(404, Pages.messagePage(frame, t.portal.linkUnknownTitle, t.portal.linkUnknown), nonce))
      const email = merchant?.support_email ?? null
      const more = email === null ? undefined : html`<p data-testid="support">${t.portal.askSupport(html`<a href="mailto:${email}">${email}</a>`)}</p>`
      const site = merchant?.return_url ?? null
      return Effect.succeed(page(410, Pages.messagePage(
        frame,
        reason === "used" ? t.portal.linkUsedTitle : t.portal.linkExpiredTitle,
        reason === "used" ? t.portal.linkUsed : t.portal.linkExpired,
        site === null ? undefined : { href: site, label: t.portal.returnTo(merchant?.business_name ?? t.portal.yourMerchant) },
        more
      ), nonce))
    }

    // Following a link changes nothing: mail scanners follow links before the customer does, and would use it up.
    // The page's button opens it. That post must come from the page itself, or another site could sign a visitor
    // into the portal of a link of its own: the browser's origin headers (`postedForm`), and a random value in a
    // SameSite=Strict cookie set with the page that the form repeats (a page on another site can neither send the
    // cookie nor read the value).
    yield* router.get("/portal/:token", withLang((lang) => Effect.gen(function*() {
      const nonce = newNonce()
      const token = yield* linkToken
      return yield* guarded(nonce, lang, portal.peek(token, yield* cookieOf).pipe(
        Effect.flatMap((found) =>
          found === "browsing"
            ? Effect.succeed(redirect(base))
            : Effect.map(signer.randomToken(24), (openToken) =>
              page(200, Pages.openPage({ nonce, base, lang }, `${base}/${Redacted.value(token)}`, openToken), nonce).pipe(
                HttpServerResponse.setHeader("set-cookie", openCookie(openToken))
              ))
        ),
        Effect.catchTag("PortalLinkGone", linkGone(nonce, lang))
      ))
    })))

    yield* router.post("/portal/:token", withLang((lang) => Effect.gen(function*() {
      const nonce = newNonce()
      const token = yield* linkToken
      return yield* guarded(nonce, lang, Effect.gen(function*() {
        const posted = yield* Effect.either(postedForm(publicOrigin))
        if (posted._tag === "Left") {
          return page(400, Pages.messagePage({ nonce, base, lang }, lang.t.portal.notSentTitle, formRefusal(lang.t, posted.left)), nonce)
        }
        const params = posted.right
        const sent = params === undefined ? "" : field(params, "open_token")
        const expected = (yield* request).cookies[openCookieName] ?? ""
        if (params === undefined || expected === "" || !(yield* signer.sameSecret(sent, expected))) {
          return page(403, Pages.messagePage({ nonce, base, lang }, lang.t.portal.notOpenedTitle, lang.t.portal.notOpened), nonce)
        }
        return yield* portal.open(token, yield* cookieOf).pipe(
          Effect.flatMap(({ cookie: value, session }) =>
            Effect.map(DateTime.now, (now) => {
              // The cookie lasts as long as the session it names.
              const left = session.session_expires_at === null ? 0 : DateTime.distance(now, session.session_expires_at)
              return redirect(base, cookie(Redacted.value(value), Math.max(1, Math.floor(left / 1000))))
            })
          ),
          Effect.catchTag("PortalLinkGone", linkGone(nonce, lang))
        )
      }))
    })))

    // Signing out ends the session on the server (a kept cookie is worth nothing), then shows a page of its own.
    yield* router.post("/portal/sign-out", withPost((session) =>
      Effect.as(portal.signOut(session), redirect(`${base}/sign-out`, cookie("", 0)))))

    yield* router.get("/portal/sign-out", withLang((lang) => Effect.sync(() => {
      const nonce = newNonce()
      return page(200, Pages.messagePage({ nonce, base, lang }, lang.t.portal.signedOutTitle, lang.t.portal.notices.signed_out), nonce)
    })))

    /** A subscription change refused (409): nothing changed, and why. */
    const nothingChanged = (frame: Parameters<typeof Pages.messagePage>[0], why: string) =>
      page(409, Pages.messagePage(frame, frame.lang.t.portal.nothingChangedTitle, why, backHomeLink(frame)), frame.nonce)

    // Subscriptions ----------------------------------------------------------------------------------------------

    /** The session customer's subscription the path's `id` names; none when malformed, unknown or another's (a 404). */
    const pathSubscription = (session: PortalSession) =>
      Effect.gen(function*() {
        const id = subscriptionIdOf(yield* param("id"))
        return id === undefined ? Option.none() : Either.getRight(yield* attempt(portal.subscription(session, id)))
      })

    /** Cancelling at the period end asks first: what will happen, and the button that does it (no JavaScript needed). */
    yield* router.get("/portal/subscriptions/:id/cancel-at-period-end", withSession((session, frame) =>
      Effect.gen(function*() {
        const found = yield* pathSubscription(session)
        if (Option.isNone(found)) return notFound(frame)
        const { account, subscription } = found.value
        // Nothing to confirm for one already ending or ended: its card on the home page says so.
        if (subscription.status === "cancelled" || subscription.cancel_at_period_end) return redirect(base)
        return page(200, Pages.confirmCancelPage(zoned(frame, account), {
          businessName: account.business_name ?? frame.lang.t.portal.yourMerchant,
          livemode: session.livemode,
          subscription
        }), frame.nonce)
      })))

    yield* router.post("/portal/subscriptions/:id/cancel-at-period-end", withPost((session, frame, params) =>
      Effect.gen(function*() {
        const id = subscriptionIdOf(yield* param("id"))
        const value = field(params, "cancel_at_period_end")
        if (id === undefined) return notFound(frame)
        if (value !== "true" && value !== "false") {
          return page(400, Pages.messagePage(frame, frame.lang.t.portal.nothingChangedTitle, frame.lang.t.portal.chooseEnd, backHomeLink(frame)), frame.nonce)
        }
        return yield* portal.setCancelAtPeriodEnd(session, id, value === "true").pipe(
          Effect.map(() => redirect(`${base}?notice=${value === "true" ? "cancel_scheduled" : "cancel_undone"}`)),
          Effect.catchTags({
            NotFound: () => Effect.succeed(notFound(frame)),
            SubscriptionNotChangeable: (e) => Effect.succeed(nothingChanged(frame, refusal(frame.lang.t, e))),
            RenewalInProgress: (e) => Effect.succeed(nothingChanged(frame, refusal(frame.lang.t, e))),
            InvalidRequest: (e) =>
              Effect.succeed(page(400, Pages.messagePage(frame, frame.lang.t.portal.nothingChangedTitle, refusal(frame.lang.t, e), backHomeLink(frame)), frame.nonce))
          })
        )
      })))

    /** The card form of the session customer's subscription `id` (active or on hold); 404 for any other. */
    const cardForm = (
      session: PortalSession,
      frame: Pages.Frame,
      form: { readonly values: Pages.FormValues; readonly errors: Record<string, string>; readonly alert?: string | undefined },
      status: number
    ) =>
      Effect.gen(function*() {
        const found = yield* pathSubscription(session)
        if (Option.isNone(found)) return notFound(frame)
        const { account, subscription } = found.value
        if (subscription.status === "cancelled") {
          return page(409, Pages.messagePage(frame, frame.lang.t.portal.cancelledTitle, frame.lang.t.portal.cancelledCard, backHomeLink(frame)), frame.nonce)
        }
        return page(status, Pages.cardPage(zoned(frame, account), {
          businessName: account.business_name ?? frame.lang.t.portal.yourMerchant,
          livemode: session.livemode,
          subscription,
          values: form.values,
          errors: form.errors,
          alert: form.alert
        }), frame.nonce)
      })

    yield* router.get("/portal/subscriptions/:id/card", withSession((session, frame) =>
      cardForm(session, frame, { values: {}, errors: {} }, 200)))

    yield* router.post("/portal/subscriptions/:id/card", withPost((session, frame, params) =>
      Effect.gen(function*() {
        const id = subscriptionIdOf(yield* param("id"))
        if (id === undefined) return notFound(frame)
        const input: SubmittedForm = {}
        // Only the fields sent: the expiry comes as `exp`, or as `exp_month` and `exp_year`.
        for (const name of cardFieldNames) {
          const value = Option.getOrUndefined(UrlParams.getFirst(params, name))
          if (value !== undefined) input[name] = value
        }
        // The expiry is shown again on an error; the number and CVC never are.
        const values = { exp: input.exp, exp_month: input.exp_month, exp_year: input.exp_year }
        const card = validateCard(fromSubmitted(input), yield* DateTime.now)
        if (Either.isLeft(card)) {
          return yield* cardForm(session, frame, { values, errors: card.left, alert: frame.lang.t.checkout.correct }, 400)
        }
        const overdue = Pages.overdueOf(field(params, "overdue"))
        if (overdue === null) {
          return yield* cardForm(session, frame, { values, errors: {}, alert: frame.lang.t.portal.cardOutOfDate }, 400)
        }
        return yield* portal.replaceCard(session, id, card.right, overdue).pipe(
          Effect.flatMap(({ retry }) =>
            retry === null
              ? Effect.succeed(redirect(`${base}?notice=card_saved`))
              : retry.status === "succeeded"
              ? Effect.succeed(redirect(`${base}?notice=card_paid`))
              : retry.status === "processing"
              ? Effect.succeed(redirect(`${base}?notice=card_processing`))
              : cardForm(session, frame, {
                values: {},
                errors: {},
                alert: frame.lang.t.portal.savedButDeclined(frame.lang.t.declines[declineCode(retry.failure_code)])
              }, 402)
          ),
          Effect.catchTags({
            NotFound: () => Effect.succeed(notFound(frame)),
            CardRefused: (e) => cardForm(session, frame, { values, errors: {}, alert: refusal(frame.lang.t, e) }, 402),
            ProcessorUnavailable: () =>
              cardForm(session, frame, { values, errors: {}, alert: frame.lang.t.portal.processorDown }, 503),
            InvalidState: (e) => cardForm(session, frame, { values, errors: {}, alert: refusal(frame.lang.t, e) }, 409),
            SubscriptionNotChangeable: (e) => cardForm(session, frame, { values, errors: {}, alert: refusal(frame.lang.t, e) }, 409),
            RenewalInProgress: (e) => cardForm(session, frame, { values, errors: {}, alert: refusal(frame.lang.t, e) }, 409),
            RateLimited: (e) =>
              Effect.map(
                cardForm(session, frame, { values, errors: {}, alert: refusal(frame.lang.t, e) }, 429),
                HttpServerResponse.setHeader("retry-after", String(e.retryAfterSeconds))
              )
          })
        )
      })))

    // Changing plan: the plans offered, a preview, its confirmation at the preview's quote ------------------------

    /** The plans page of the session customer's subscription `id`; 404 for any other. */
    const plansPage = (
      session: PortalSession,
      frame: Pages.Frame,
      form: { readonly values: { readonly product_id: string; readonly quantity: string }; readonly errors: Record<string, string>; readonly alert?: string | undefined },
      status: number
    ) =>
      Effect.gen(function*() {
        const id = subscriptionIdOf(yield* param("id"))
        if (id === undefined) return notFound(frame)
        const found = yield* attempt(portal.plans(session, id))
        if (found._tag === "Left") return notFound(frame)
        const { account, offered, refusal, subscription } = found.right
        return page(status, PlanPages.plansPage(zoned(frame, account), {
          businessName: account.business_name ?? frame.lang.t.portal.yourMerchant,
          livemode: session.livemode,
          subscription,
          offered,
          canChange: refusal === undefined,
          values: form.values.quantity === "" ? { ...form.values, quantity: String(subscription.quantity) } : form.values,
          errors: form.errors,
          alert: form.alert
        }), frame.nonce)
      })

    /** The choice a plan form posted, as typed, and as the use case takes it (or each field's refusal). */
    const choiceOf = (lang: Lang, params: UrlParams.UrlParams) => {
      const values = { product_id: field(params, "product_id"), quantity: field(params, "quantity") }
      const decoded = decodeChoice({
        product_id: values.product_id,
        quantity: /^[0-9]{1,9}$/.test(values.quantity) ? Number(values.quantity) : values.quantity
      })
      const errors: Record<string, string> = {}
      if (values.product_id === "") errors.product_id = lang.t.portal.choosePlan
      if (Either.isLeft(decoded)) {
        for (const issue of ParseResult.ArrayFormatter.formatErrorSync(decoded.left)) {
          if (issue.path[0] === "quantity") errors.quantity = lang.t.portal.quantityRange
        }
      }
      return { values, choice: Either.isRight(decoded) && Object.keys(errors).length === 0 ? decoded.right : undefined, errors }
    }

    /** The preview of `choice`: its page, or the plans page again with why not (404 for a plan not offered). */
    const previewOrPlans = (
      session: PortalSession,
      frame: Pages.Frame,
      values: { readonly product_id: string; readonly quantity: string },
      choice: PlanChange.PortalPlanChoice,
      alert?: { readonly text: string; readonly status: number }
    ) =>
      Effect.gen(function*() {
        const id = subscriptionIdOf(yield* param("id"))
        if (id === undefined) return notFound(frame)
        const found = yield* attempt(portal.plans(session, id))
        if (found._tag === "Left") return notFound(frame)
        const preview = yield* attempt(portal.previewPlanChange(session, id, choice))
        if (preview._tag === "Left") {
          const error = preview.left
          if (error._tag === "NotFound") return notFound(frame)
          return yield* plansPage(session, frame, { values, errors: {}, alert: frame.lang.t.portal.cannotChange(error.message) }, error._tag === "InvalidState" ? 409 : 400)
        }
        return page(alert?.status ?? 200, PlanPages.previewPage(zoned(frame, found.right.account), {
          businessName: found.right.account.business_name ?? frame.lang.t.portal.yourMerchant,
          livemode: session.livemode,
          subscription: found.right.subscription,
          preview: preview.right,
          choice: values,
          alert: alert?.text
        }), frame.nonce)
      })

    yield* router.get("/portal/subscriptions/:id/plan", withSession((session, frame) =>
      plansPage(session, frame, { values: { product_id: "", quantity: "" }, errors: {} }, 200)))

    yield* router.post("/portal/subscriptions/:id/plan/preview", withPost((session, frame, params) =>
      Effect.gen(function*() {
        const { choice, errors, values } = choiceOf(frame.lang, params)
        if (choice === undefined) return yield* plansPage(session, frame, { values, errors, alert: frame.lang.t.checkout.correct }, 400)
        return yield* previewOrPlans(session, frame, values, choice)
      })))

    /**
     * The confirmation: the change at the preview's quote, under the form's one-time token (posted twice, one change
     * and one charge). Anything changed since the preview, or a declined card, shows the preview again, made now.
     */
    yield* router.post("/portal/subscriptions/:id/plan", withPost((session, frame, params) =>
      Effect.gen(function*() {
        const id = subscriptionIdOf(yield* param("id"))
        if (id === undefined) return notFound(frame)
        const { choice, errors, values } = choiceOf(frame.lang, params)
        if (choice === undefined) return yield* plansPage(session, frame, { values, errors, alert: frame.lang.t.checkout.correct }, 400)
        const again = (text: string, status: number) => previewOrPlans(session, frame, values, choice, { text, status })
        const once = field(params, onceField)
        if (once.length < 16 || once.length > 64) return yield* again(frame.lang.t.portal.planOutOfDate, 400)
        const made = yield* Effect.either(portal.changePlan(session, id, { ...choice, quote_id: field(params, "quote_id") }, once))
        if (made._tag === "Left") {
          const error = made.left
          switch (error._tag) {
            case "NotFound":
              return notFound(frame)
            case "ChargeDeclined":
              return yield* again(frame.lang.t.portal.planDeclined(frame.lang.t.declines[declineCode(error.decline_code)]), 402)
            case "StoreUnavailable":
            case "IdempotencyKeyInUse":
              return yield* again(frame.lang.t.portal.planUnavailable, 503)
            default:
              return yield* again(frame.lang.t.portal.planStale, 409)
          }
        }
        const { payment, subscription } = made.right
        const notice = subscription.scheduled_change !== null && payment === null
          ? "plan_scheduled"
          : payment?.status === "processing"
          ? "plan_processing"
          : "plan_changed"
        return redirect(`${base}?notice=${notice}`)
      })))

    // Keeping the current plan: the scheduled change cancelled (posted again, nothing more happens).
    yield* router.post("/portal/subscriptions/:id/plan/scheduled/cancel", withPost((session, frame) =>
      Effect.gen(function*() {
        const id = subscriptionIdOf(yield* param("id"))
        if (id === undefined) return notFound(frame)
        return yield* portal.cancelScheduledChange(session, id).pipe(
          Effect.as(redirect(`${base}?notice=plan_kept`)),
          Effect.catchTag("NotFound", () => Effect.succeed(notFound(frame)))
        )
      })))

    // Receipts ---------------------------------------------------------------------------------------------------

    yield* router.get("/portal/receipts/:id", withSession((session, frame) =>
      Effect.gen(function*() {
        const id = paymentIdOf(yield* param("id"))
        if (id === undefined) return notFound(frame)
        return yield* portal.receipt(scopeOf(session), id, session.customer_id).pipe(
          Effect.map((view) => page(200, receiptPage(zoned(frame, view.account), view, backHomeLink(frame)), frame.nonce)),
          Effect.catchTag("NotFound", () => Effect.succeed(notFound(frame)))
        )
      })))

    // Tax documents: the printable page of the session customer's own, as the merchant's dashboard shows it.

    const backHome = (frame: Pages.Frame) => html`<a href="${base}">${frame.lang.t.portal.back}</a>`

    yield* router.get("/portal/invoices/:id", withSession((session, frame) =>
      Effect.gen(function*() {
        const id = invoiceIdOf(yield* param("id"))
        if (id === undefined) return notFound(frame)
        return yield* portal.invoice(session, id).pipe(
          Effect.map((d) => page(200, invoicePage(d, { nonce: frame.nonce, back: backHome(frame) }), frame.nonce)),
          Effect.catchTag("NotFound", () => Effect.succeed(notFound(frame)))
        )
      })))

    yield* router.get("/portal/credit-notes/:id", withSession((session, frame) =>
      Effect.gen(function*() {
        const id = creditNoteIdOf(yield* param("id"))
        if (id === undefined) return notFound(frame)
        return yield* portal.creditNote(session, id).pipe(
          Effect.map((d) => page(200, creditNotePage(d, { nonce: frame.nonce, back: backHome(frame) }), frame.nonce)),
          Effect.catchTag("NotFound", () => Effect.succeed(notFound(frame)))
        )
      })))
  })
)
