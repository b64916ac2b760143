/**
 * The merchant dashboard's routes, under `<public path>/dashboard`: sign-in (e-mail and password, or a
 * one-time link that sets the password), the home page, payments with refunds, and the audit log. Test and live
 * data are apart: the mode is in the URL (`/dashboard/test/…`, `/dashboard/live/…`) and shown on every page.
 *
 * Every page calls the same use cases as the API and the CLI; what a role may do is `DashboardUser.can`. Every form
 * carries the session's CSRF token and is refused from another site (as the checkout is); every page sends a CSP
 * with a nonce and `frame-ancestors 'none'`; the session cookie is HttpOnly, SameSite=Lax, and `__Host-`/Secure
 * when the public URL is https. Every change is written to the audit log.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type * as UrlParams from "@effect/platform/UrlParams"
import { Cause, Clock, DateTime, Effect, Either, Option, Redacted, Schema } from "effect"
import { Accounts } from "../../../src/application/Accounts.js"
import { Settings } from "../../../src/application/Settings.js"
import { TaxDocuments } from "../../../src/application/TaxDocuments.js"
import { Deliveries } from "../../../src/application/Deliveries.js"
import { Events } from "../../../src/application/Events.js"
import { Payments } from "../../../src/application/Payments.js"
import { Portal } from "../../../src/application/Portal.js"
import { Customers } from "../../../src/application/Customers.js"
import { Subscriptions } from "../../../src/application/Subscriptions.js"
import { periods, type Period, Reports } from "../../../src/application/Reports.js"
import { EInvoices } from "../../../src/application/EInvoices.js"
import { Products } from "../../../src/application/Products.js"
import { Webhooks } from "../../../src/application/Webhooks.js"
import { type Signed, Users } from "../../../src/application/Users.js"
import { can } from "../../../src/domain/DashboardUser.js"
import * as TwoFactor from "../../../src/domain/TwoFactor.js"
import { CheckoutSessionId, CustomerId, parseId, PaymentId } from "../../../src/domain/Ids.js"
import * as Payment from "../../../src/domain/Payment.js"
import * as Refund from "../../../src/domain/Refund.js"
import { CreatedOnce, type CreateOnceError } from "../../../src/application/CreatedOnce.js"
import { PaymentStatus } from "../../../src/domain/Payment.js"
import { Signer } from "../../../src/ports/Signer.js"
import { Transactions } from "../../../src/ports/Transactions.js"
import { lookup } from "../html/Attempt.js"
import { htmlResponse, newNonce } from "../html/Document.js"
import { type Confirmation, confirmField, confirmPage, isConfirmed } from "./Confirm.js"
import { formField, isOutOfDate, onceField, postedForm, readFlash, seeOther, withFlash } from "../html/Forms.js"
import { customerRoutes } from "./Customers.js"
import { documentRoutes } from "./Documents.js"
import { developerRoutes } from "./Developers.js"
import { discountRoutes } from "./Discounts.js"
import { eventRoutes } from "./Events.js"
import { exportRoutes } from "./Exports.js"
import { requestLogRoutes } from "./RequestLogs.js"
import { planChangeRoutes } from "./PlanChanges.js"
import { productRoutes } from "./Products.js"
import { settingsRoutes, skipCookie, supportPrompt } from "./Settings.js"
import { subscriptionRoutes } from "./Subscriptions.js"
import { twoFactorRoutes } from "./TwoFactor.js"
import type { Kit, MadeOnce, Response, Scope } from "./Kit.js"
import * as Pages from "./Pages.js"
import { idFilter, parseAed, parseDay } from "./Parse.js"
import { langOf } from "../i18n/Messages.js"
import * as Locale from "../i18n/Locale.js"
import { dashboardLanguageCookie } from "../i18n/dashboard/Catalogues.js"
import { receiptPage } from "../portal/Receipt.js"
import * as ReturnTo from "./ReturnTo.js"

const page = (status: number, body: string, nonce: string) => htmlResponse(status, body, nonce)

const redirect = seeOther

const isStatus = Schema.is(PaymentStatus)
const isRefundReason = Schema.is(Refund.RefundReason)
const decodeNote = Schema.decodeEither(Refund.RefundNote)

/** The refund form as typed: the amount in AED, the reason, the merchant's note (may be empty). */
interface RefundForm {
  readonly amount: string
  readonly reason: string
  readonly note: string
}
const paymentIdOf = parseId(PaymentId)
const customerIdOf = parseId(CustomerId)
const checkoutSessionIdOf = parseId(CheckoutSessionId)

export const DashboardRoutes = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function*() {
    const users = yield* Users
    const createdOnce = yield* CreatedOnce
    const transactions = yield* Transactions
    const accounts = yield* Accounts
    const payments = yield* Payments
    const events = yield* Events
    const deliveries = yield* Deliveries
    const reports = yield* Reports
    const subscriptions = yield* Subscriptions
    const webhooks = yield* Webhooks
    const einvoices = yield* EInvoices
    const productCatalog = yield* Products
    const portal = yield* Portal
    const taxDocuments = yield* TaxDocuments
    const signer = yield* Signer
    const publicUrl = new URL((yield* Settings).publicUrl)
    const publicOrigin = publicUrl.origin
    const secure = publicUrl.protocol === "https:"
    const base = `${publicUrl.pathname.replace(/\/+$/, "")}/dashboard`
    /** A request's path (and query) as the links write it: under the public path, whatever prefix a host mounted the routes at. */
    const pathAsLinked = (url: string) => `${base}${url.slice(url.indexOf("/dashboard") + "/dashboard".length)}`
    const cookieName = secure ? "__Host-fils_session" : "fils_session"
    const cookie = (value: string, maxAgeSeconds: number) =>
      `${cookieName}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure ? "; Secure" : ""}`
    /** The page's language: the dashboard's switch, its cookie, the browser's, English (docs/languages.md). */
    const language = Locale.fromRequestIn(dashboardLanguageCookie)
    const frameOf = (negotiated: Locale.Negotiated) => Pages.frameIn(newNonce(), base, negotiated.locale)
    /** A fresh page frame (its nonce) in the request's language. */
    const unsigned = Effect.map(language, frameOf)
    /** A page answered in the request's language, read once: its frame, and the switch remembered when one was made. */
    const inLanguage = <E, R>(answer: (fr: Pages.Frame) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
      Effect.flatMap(language, (negotiated) =>
        Effect.map(answer(frameOf(negotiated)), Locale.remember(negotiated, secure, dashboardLanguageCookie)))

    const request = HttpServerRequest.HttpServerRequest
    const address = Effect.map(request, (r) => Option.getOrElse(r.remoteAddress, () => "unknown"))
    /** A change's audit entry, with the request's address (`Kit.auditEntry`). */
    const auditEntry: Kit["auditEntry"] = (signed, action, livemode) =>
      Effect.map(address, (from) => (objectId) => users.audit(signed, { action, objectId, livemode, address: from }))

    /** The signed-in user, if the request's cookie names a live session. */
    const signedIn = Effect.flatMap(request, (r) => {
      const token = r.cookies[cookieName]
      return token === undefined || token.length > 100 ? Effect.succeed(Option.none<Signed>()) : users.authenticate(Redacted.make(token))
    })

    /** The page's frame, with the flash a change redirected here with (signed with the session's CSRF token). */
    const signedFrame = (signed: Signed, unsignedFrame: Pages.Frame, livemode: boolean) =>
      Effect.gen(function*() {
        const account = yield* accounts.get(signed.user.account_id)
        const [path, search] = (yield* request).url.split("?")
        const query = new URLSearchParams(search ?? "")
        return {
          ...unsignedFrame,
          user: signed.user,
          businessName: account.business_name ?? unsignedFrame.t.frame.defaultBusinessName,
          livemode,
          csrf: signed.session.csrf_token,
          timeZone: account.time_zone,
                    flash: readFlash(query, signed.session.csrf_token),
          query,
          path: pathAsLinked(path ?? "")
        } satisfies Pages.SignedFrame
      })

    const formFields = postedForm(publicOrigin)
    const field = formField

    /** Store outages and defects answer with a page, never JSON. */
    const guarded = <E>(fr: Pages.Frame, effect: Response<E>): Response =>
      effect.pipe(Effect.catchAllCause((cause) =>
        Effect.zipRight(
          Effect.logError("Dashboard page failed", cause).pipe(Effect.when(() => !Cause.isInterruptedOnly(cause))),
          Effect.succeed(page(503, Pages.messagePage(fr, fr.t.frame.pages.unavailable, fr.t.frame.pages.tryAgain), fr.nonce))
        )
      ))

    /**
     * A page for a signed-in user in `mode` (`test`/`live` from the URL): signed out, to the sign-in page. The
     * scope is always the user's own account in that mode, so no URL reaches another account's objects.
     */
    const withUserAs = (enrolling: boolean): Kit["withUser"] => (handler) =>
      inLanguage((fr) => Effect.gen(function*() {
        const mode = (yield* HttpRouter.params).mode ?? "test"
        if (mode !== "test" && mode !== "live") {
          return page(404, Pages.messagePage(fr, fr.t.frame.pages.notFound, fr.t.frame.pages.nothingHere), fr.nonce)
        }
        return yield* guarded(fr, Effect.gen(function*() {
          const signed = yield* signedIn
          if (Option.isNone(signed)) {
            // A page asked for comes back after the sign-in; a form post does not (it is sent again from its page).
            const asked = yield* request
            return redirect(ReturnTo.carrying(`${base}/login`, base, asked.method === "GET" || asked.method === "HEAD" ? pathAsLinked(asked.url) : undefined))
          }
          const f = yield* signedFrame(signed.value, fr, mode === "live")
          // An account that requires two-factor sign-in sends a user without it to set it up, before anything else.
          if (!enrolling && (yield* users.mustEnrol(signed.value))) return redirect(`${base}/two-factor`)
          return yield* handler(signed.value, f, { accountId: signed.value.user.account_id, livemode: mode === "live" })
        }))
      }))
    const withUser = withUserAs(false)
    const withEnrolling = withUserAs(true)

    /** A signed-in form post: from this site, with the session's CSRF token; refused with 403 otherwise. */
    const postAs = (guard: Kit["withUser"]): Kit["withPost"] => (handler) =>
      guard((signed, f, scope) =>
        Effect.gen(function*() {
          const posted = yield* Effect.either(formFields)
          if (posted._tag === "Left") return page(400, Pages.forbiddenPage(f, Pages.formRefused(f, posted.left)), f.nonce)
          const params = posted.right
          const token = params === undefined ? "" : field(params, "csrf_token")
          if (params === undefined || !(yield* signer.sameSecret(token, signed.session.csrf_token))) {
            return page(403, Pages.forbiddenPage(f, f.t.frame.pages.notFromDashboard), f.nonce)
          }
          // Sent after its idempotency key would have gone, a form could act a second time: it is not sent at all.
          if (isOutOfDate(field(params, onceField), yield* Clock.currentTimeMillis)) {
            return page(400, Pages.outOfDatePage(f, ReturnTo.pageOf(base, field(params, Pages.backField)) ?? Pages.modePath(f)), f.nonce)
          }
          return yield* handler(signed, f, scope, params)
        })
      )
    const withPost = postAs(withUser)
    const withEnrollingPost = postAs(withEnrolling)

    // Sign-in -----------------------------------------------------------------------------------------------------

    // A store that cannot say who is signed in answers the "try again" page: a signed-in user is not sent to sign in.
    yield* router.get("/dashboard", inLanguage((fr) =>
      guarded(fr, Effect.map(signedIn, (s) => redirect(Option.isSome(s) ? `${base}/test` : `${base}/login`)))))

    /** The sign-in's `next`, from its query or form, when it names a dashboard page. */
    const nextOf = (value: string | null) => ReturnTo.pageOf(base, value)
    const nextInQuery = Effect.map(request, (r) => nextOf(new URLSearchParams(r.url.split("?")[1] ?? "").get("next")))

    yield* router.get("/dashboard/login", inLanguage((fr) =>
      Effect.map(nextInQuery, (next) => page(200, Pages.loginPage(fr, { next }), fr.nonce))))

    yield* router.post("/dashboard/login", Effect.gen(function*() {
      const fr = yield* unsigned
      const posted = yield* Effect.either(formFields)
      if (posted._tag === "Left") return page(400, Pages.loginPage(fr, { error: Pages.formRefused(fr, posted.left) }), fr.nonce)
      const params = posted.right
      if (params === undefined) {
        return page(403, Pages.loginPage(fr, { error: fr.t.frame.signIn.notFromHere }), fr.nonce)
      }
      const email = field(params, "email")
      const next = nextOf(field(params, "next"))
      return yield* guarded(fr, users.signIn(email, Redacted.make(field(params, "password")), yield* address).pipe(
        // With two-factor sign-in on, the cookie names a sign-in waiting for its code, for its few minutes.
        Effect.map(({ awaitingCode, token }) =>
          awaitingCode
            ? redirect(ReturnTo.carrying(`${base}/login/code`, base, next), cookie(Redacted.value(token), TwoFactor.pendingMillis / 1000))
            : redirect(ReturnTo.after(base, next), cookie(Redacted.value(token), 7 * 24 * 3600))),
        Effect.catchTags({
          Unauthorized: (e) => Effect.succeed(page(401, Pages.loginPage(fr, { error: Pages.refused(fr, e.message), email, next }), fr.nonce)),
          RateLimited: (e) =>
            Effect.succeed(
              page(429, Pages.loginPage(fr, { error: fr.t.frame.rateLimited(e.retryAfterSeconds, e.message), email, next }), fr.nonce).pipe(
                HttpServerResponse.setHeader("retry-after", String(e.retryAfterSeconds))
              )
            )
        })
      ))
    }))

    /** The session cookie's secret, when it has the shape of one. */
    const cookieToken = Effect.map(request, (r) => {
      const token = r.cookies[cookieName]
      return token === undefined || token.length > 100 ? undefined : Redacted.make(token)
    })

    // The second step: the code (or a recovery code) for the sign-in the password step left waiting.
    yield* router.get("/dashboard/login/code", inLanguage((fr) => Effect.gen(function*() {
      const token = yield* cookieToken
      const next = yield* nextInQuery
      return yield* guarded(fr, Effect.map(token === undefined ? Effect.succeed(Option.none()) : users.pendingSignIn(token), (pending) =>
        Option.isNone(pending) ? redirect(ReturnTo.carrying(`${base}/login`, base, next)) : page(200, Pages.codePage(fr, { next }), fr.nonce)))
    })))

    yield* router.post("/dashboard/login/code", Effect.gen(function*() {
      const fr = yield* unsigned
      const posted = yield* Effect.either(formFields)
      if (posted._tag === "Left") return page(400, Pages.codePage(fr, { error: Pages.formRefused(fr, posted.left) }), fr.nonce)
      const params = posted.right
      if (params === undefined) return page(403, Pages.codePage(fr, { error: fr.t.frame.signIn.notFromHere }), fr.nonce)
      const next = nextOf(field(params, "next"))
      const token = yield* cookieToken
      if (token === undefined) return redirect(ReturnTo.carrying(`${base}/login`, base, next))
      return yield* guarded(fr, users.completeSignIn(token, field(params, "code"), yield* address).pipe(
        Effect.map((done) => redirect(ReturnTo.after(base, next), cookie(Redacted.value(done.token), 7 * 24 * 3600))),
        Effect.catchTags({
          Unauthorized: (e) => Effect.succeed(page(401, Pages.codePage(fr, { error: Pages.refused(fr, e.message), next }), fr.nonce)),
          RateLimited: (e) =>
            Effect.succeed(
              page(429, Pages.codePage(fr, { error: fr.t.frame.rateLimited(e.retryAfterSeconds, e.message), next }), fr.nonce).pipe(
                HttpServerResponse.setHeader("retry-after", String(e.retryAfterSeconds))
              )
            )
        })
      ))
    }))

    // The link's secret, read from its path: `Redacted` from here to the digest it is found by.
    const linkToken = Effect.map(HttpRouter.params, (p) => Redacted.make((p.token ?? "").slice(0, 100)))
    const linkAction = (token: Redacted.Redacted<string>) => `${base}/sign-in/${Redacted.value(token)}`
    const linkGone = (fr: Pages.Frame) =>
      page(410, Pages.messagePage(fr, fr.t.frame.signIn.linkNotValid, fr.t.frame.signIn.linkGone), fr.nonce)

    yield* router.get("/dashboard/sign-in/:token", inLanguage((fr) => Effect.gen(function*() {
      const token = yield* linkToken
      return yield* guarded(fr, Effect.map(users.linkUser(token), (user) =>
        Option.isNone(user)
          ? linkGone(fr)
          : page(200, Pages.setPasswordPage(fr, { email: user.value.email, action: linkAction(token) }), fr.nonce)))
    })))

    yield* router.post("/dashboard/sign-in/:token", Effect.gen(function*() {
      const fr = yield* unsigned
      const token = yield* linkToken
      const posted = yield* Effect.either(formFields)
      if (posted._tag === "Left") return page(400, Pages.messagePage(fr, fr.t.frame.signIn.notSent, Pages.formRefused(fr, posted.left)), fr.nonce)
      const params = posted.right
      if (params === undefined) return linkGone(fr)
      return yield* guarded(fr, Effect.gen(function*() {
        const user = yield* users.linkUser(token)
        if (Option.isNone(user)) return linkGone(fr)
        return yield* users.redeem(token, Redacted.make(field(params, "password"))).pipe(
          // With two-factor sign-in on, the link (a password reset too) leads to the code's form, like a password.
          Effect.map((done) =>
            done.awaitingCode
              ? redirect(`${base}/login/code`, cookie(Redacted.value(done.token), TwoFactor.pendingMillis / 1000))
              : redirect(`${base}/test`, cookie(Redacted.value(done.token), 7 * 24 * 3600))),
          Effect.catchTags({
            InvalidRequest: (e) =>
              Effect.succeed(page(400, Pages.setPasswordPage(fr, { email: user.value.email, action: linkAction(token), error: Pages.refused(fr, e.message) }), fr.nonce)),
            InvalidState: (e) =>
              Effect.succeed(page(409, Pages.setPasswordPage(fr, { email: user.value.email, action: linkAction(token), error: Pages.refused(fr, e.message) }), fr.nonce)),
            Unauthorized: () => Effect.succeed(linkGone(fr))
          })
        )
      }))
    }))

    // Signing out is never held up by a two-factor set-up the account requires.
    yield* router.post("/dashboard/logout", withEnrollingPost((signed) =>
      Effect.as(users.signOut(signed), redirect(`${base}/login`, cookie("", 0)))))

    // Pages ---------------------------------------------------------------------------------------------------------

    yield* router.get("/dashboard/:mode", withUser((signed, f, scope) =>
      Effect.gen(function*() {
        const asked = Number(new URLSearchParams((yield* request).url.split("?")[1] ?? "").get("days") ?? "30")
        const days: Period = (periods as ReadonlyArray<number>).includes(asked) ? asked as Period : 30
        // The support e-mail is asked for here until it is set, unless skipped in this browser's session.
        const asks = (yield* accounts.get(signed.user.account_id)).support_email === null && can(signed.user.role, "settings") &&
          (yield* request).cookies[skipCookie] === undefined
        const framed = asks ? { ...f, prompt: supportPrompt(f) } : f
        // Each part one bounded read (a page of a few, or one grouped statement), side by side.
        const [overview, recent, onHold, endpoints, rejected, products, team] = yield* Effect.all([
          reports.overview(scope, days),
          payments.list(scope, { limit: 5 }),
          subscriptions.list(scope, { status: "on_hold", limit: 5 }),
          webhooks.list(scope, { limit: 100 }),
          einvoices.list(scope, { status: "rejected" }, 5),
          productCatalog.list(scope, { limit: 1 }),
          users.team(signed.user.account_id)
        ], { concurrency: 4 })
        const failing = endpoints.items.filter((w) => w.health.failing_since !== null || w.health.auto_disabled_at !== null)
        return page(200, Pages.homePage(framed, overview, periods, {
          recent: recent.items,
          onHold: onHold.items,
          failingEndpoints: failing.map((w) => ({ webhook_id: w.webhook_id, url: w.url, failing_since: w.health.failing_since, disabled: w.disabled })),
          rejectedEInvoices: rejected.map((t) => ({
            document_id: t.document_id,
            number: t.number,
            path: `${Pages.modePath(f)}/${t.kind === "invoice" ? "invoices" : "credit-notes"}/${t.document_id}`
          })),
          steps: {
            product: products.items.length > 0,
            payment: recent.items.length > 0,
            endpoint: endpoints.items.length > 0,
            team: team.length > 1
          }
        }), f.nonce)
      })))

    yield* router.get("/dashboard/:mode/payments", withUser((_, f, scope) =>
      Effect.gen(function*() {
        const query = new URLSearchParams((yield* request).url.split("?")[1] ?? "")
        const status = query.get("status") ?? ""
        const cursor = query.get("cursor") ?? undefined
        const filter = isStatus(status) ? status : undefined
        // Search: what the merchant typed, read by `readSearch` (an id, an e-mail, an amount, the card's last 4).
        const search = (query.get("q") ?? "").trim()
        // A date range in the account's days: from the start of `from` to the end of `to`.
        const from = query.get("from") ?? ""
        const to = query.get("to") ?? ""
        const fromDay = from === "" ? undefined : parseDay(from, f.timeZone)
        const toDay = to === "" ? undefined : parseDay(to, f.timeZone)
        const range = { from, to }
        const dayError = f.t.payments.list.dayRefused
        const errors = {
          ...(from !== "" && fromDay === undefined ? { from: dayError } : {}),
          ...(to !== "" && toDay === undefined ? { to: dayError } : {}),
          ...(status !== "" && filter === undefined ? { status: f.t.frame.common.notAnOption(status) } : {})
        }
        if (Object.keys(errors).length > 0) {
          return page(400, Pages.paymentsPage(f, { items: [], status: filter, next: null, search, range, errors }), f.nonce)
        }
        // The API's own filters pass through too (a customer's or a session's payments, linked from their pages).
        const customerId = idFilter(customerIdOf, query.get("customer_id"))
        const sessionId = idFilter(checkoutSessionIdOf, query.get("checkout_session_id"))
        if (customerId === null || sessionId === null) {
          return page(200, Pages.paymentsPage(f, { items: [], status: filter, next: null, search, range }), f.nonce)
        }
        return yield* payments.search(scope, search, {
          status: filter,
          limit: 50,
          cursor,
          customer_id: customerId,
          checkout_session_id: sessionId,
          created_from: fromDay?.start,
          created_before: toDay?.end
        }).pipe(
          Effect.map((found) =>
            // An id found opens its payment; a search that reads as nothing is refused at its field.
            found.term._tag === "PaymentId" && found.items.length === 1
              ? redirect(`${Pages.modePath(f)}/payments/${found.items[0]!.payment_id}`)
              : found.term._tag === "Unreadable"
              ? page(400, Pages.paymentsPage(f, { items: [], status: filter, next: null, search, range, errors: { q: f.t.payments.list.searchHint } }), f.nonce)
              : page(200, Pages.paymentsPage(f, { items: found.items, status: filter, next: found.next_cursor, search, range }), f.nonce)
          ),
          Effect.catchTag("InvalidRequest", () => Effect.succeed(page(400, Pages.notFoundPage(f), f.nonce)))
        )
      })))

    /** A payment's page; after a refused refund, with the refusal and the refund form as typed. */
    const paymentView = (signed: Signed, f: Pages.SignedFrame, scope: Scope, refused?: { readonly error: string; readonly field?: "amount" | "reason" | "note" } & RefundForm, status = 200) =>
      Effect.gen(function*() {
        const id = paymentIdOf((yield* HttpRouter.params).id ?? "")
        if (id === undefined) return page(404, Pages.notFoundPage(f), f.nonce)
        return yield* payments.get(scope, id).pipe(
          Effect.flatMap((payment) =>
            Effect.gen(function*() {
              const mine = (yield* events.list(scope, { payment_id: payment.payment_id, limit: 100 })).items
              // The timeline shows each event's deliveries (their status; the event's page has the details).
              const sent = yield* Effect.forEach(mine, (e) => Effect.map(deliveries.list({ event_id: e.event_id }, 20), (ds) => [e.event_id, ds] as const))
              // Its tax invoice (at most one) and the credit notes of its refunds.
              const byPayment = { payment_id: payment.payment_id }
              const invoices = yield* taxDocuments.listInvoices(scope, byPayment, { limit: 1, after: undefined })
              const creditNotes = yield* taxDocuments.listCreditNotes(scope, byPayment, { limit: 100, after: undefined })
              const refunds = yield* payments.refundsOf(scope, payment.payment_id)
              return page(status, Pages.paymentPage(f, {
                payment,
                events: mine,
                deliveries: Object.fromEntries(sent),
                documents: { invoices: invoices.items, creditNotes: creditNotes.items },
                canRefund: can(signed.user.role, "refund"),
                refunds,
                error: refused?.error,
                errorField: refused?.field,
                amount: refused?.amount,
                reason: refused?.reason,
                note: refused?.note
              }), f.nonce)
            })
          ),
          Effect.catchTag("NotFound", () => Effect.succeed(page(404, Pages.notFoundPage(f), f.nonce)))
        )
      })

    yield* router.get("/dashboard/:mode/payments/:id", withUser((signed, f, scope) => paymentView(signed, f, scope)))

    // The customer's receipt, as the portal shows it (any role may read it).
    yield* router.get("/dashboard/:mode/payments/:id/receipt", withUser((_, f, scope) =>
      Effect.gen(function*() {
        const id = paymentIdOf((yield* HttpRouter.params).id ?? "")
        if (id === undefined) return page(404, Pages.notFoundPage(f), f.nonce)
        return yield* portal.receipt(scope, id).pipe(
          Effect.map((view) =>
            page(200, receiptPage({ nonce: f.nonce, base, lang: langOf(f.locale, view.account.time_zone) }, view, {
              href: `${Pages.modePath(f)}/payments/${id}`,
              label: f.t.payments.payment.backFromReceipt
            }), f.nonce)),
          Effect.catchTag("NotFound", () => Effect.succeed(page(404, Pages.notFoundPage(f), f.nonce)))
        )
      })))

    /** Why a refund of `amount` cannot be made, in the merchant's words, with its status; none when it can. */
    const refundRefusal = (
      f: Pages.Frame,
      error: { readonly _tag: string; readonly message: string; readonly remaining?: number; readonly pending?: number }
    ) => {
      const t = f.t.payments.refused
      if (error._tag === "RefundExceedsRemaining") {
        const pending = error.pending ?? 0
        const remaining = error.remaining ?? 0
        const held = pending > 0 ? Pages.amount(f, pending) : null
        return { status: 409, error: remaining > 0 ? t.upTo(Pages.amount(f, remaining), held) : t.nothingLeft(held) }
      }
      return { status: 409, error: Pages.refused(f, error.message) }
    }

    /**
     * What a refund of the form's amount will do, checked as far as the page can (the payment's own rule, without
     * the refunds still pending: the refund itself checks those); or the refusal, shown on the payment's page.
     */
    const refundConfirmation = (signed: Signed, f: Pages.SignedFrame, scope: Scope, params: RefundForm, confirmed = false) =>
      Effect.gen(function*() {
        const t = f.t.payments
        if (!can(signed.user.role, "refund")) {
          return { refused: page(403, Pages.forbiddenPage(f, t.refused.cannotRefund(f.t.frame.roles[signed.user.role])), f.nonce) } as const
        }
        const id = paymentIdOf((yield* HttpRouter.params).id ?? "")
        // The payment must be this scope's: another account's or mode's id is not found, and nothing is refunded.
        const found = id === undefined ? undefined : yield* lookup(payments.get(scope, id))
        if (found === undefined) return { refused: page(404, Pages.notFoundPage(f), f.nonce) } as const
        const refused = (error: string, status: number, field: "amount" | "reason" | "note" = "amount") =>
          Effect.map(paymentView(signed, f, scope, { error, field, ...params }, status), (r) => ({ refused: r }) as const)
        const amount = parseAed(params.amount)
        if (amount === undefined || amount <= 0) return yield* refused(t.refused.amount, 400)
        if (!isRefundReason(params.reason)) return yield* refused(t.refused.reason, 400, "reason")
        const note = params.note === "" ? Either.right(null) : decodeNote(params.note)
        if (Either.isLeft(note)) return yield* refused(t.refused.note(Refund.noteProblem(params.note) ?? "cannot be read"), 400, "note")
        const why: Refund.RefundWhy = { reason: params.reason, note: note.right }
        // A confirmed post is judged by the refund itself, after its one-time token: a form posted again is answered
        // as the first post was, even when that refund left nothing more to refund.
        const judged = confirmed ? undefined : Payment.transition(found, { _tag: "Refund", amount }, yield* DateTime.now)
        if (judged !== undefined && Either.isLeft(judged)) {
          const why = refundRefusal(f, judged.left)
          return yield* refused(why.error, why.status)
        }
        const p = found
        const paymentPath = `${Pages.modePath(f)}/payments/${p.payment_id}`
        const shown = Pages.amount(f, amount)
        const confirmation: Confirmation = {
          title: t.confirm.title(shown),
          what: [
            t.confirm.goesBack(shown, p.customer, p.card),
            amount === p.total_amount - p.refunded_amount
              ? t.confirm.allOfIt
              : t.confirm.restLater(Pages.amount(f, p.total_amount - p.refunded_amount - amount)),
            t.confirm.final,
            t.confirm.reason(Pages.refundWhy(f, why) ?? ""),
            t.confirm.webhooks("refund.succeeded")
          ],
          action: `${paymentPath}/refund`,
          fields: { amount: params.amount, reason: params.reason, note: params.note },
          button: t.confirm.button(shown),
          back: paymentPath,
          moneyMoves: true
        }
        return { confirmation, id: p.payment_id, amount, why, paymentPath } as const
      })

    /**
     * The refund's confirmation page, from the payment page's form: posted, so the note stays out of URLs, the
     * browser's history and request logs, yet it changes nothing (its own form posts the refund, confirmed).
     */
    yield* router.post("/dashboard/:mode/payments/:id/refund/review", withPost((signed, f, scope, params) =>
      Effect.map(
        refundConfirmation(signed, f, scope, { amount: field(params, "amount"), reason: field(params, "reason"), note: field(params, "note") }),
        (checked) => "refused" in checked ? checked.refused : page(200, confirmPage(f, checked.confirmation), f.nonce)
      )))

    /** The same confirmation reached by a link (it changes nothing). */
    yield* router.get("/dashboard/:mode/payments/:id/refund", withUser((signed, f, scope) =>
      Effect.gen(function*() {
        const query = new URLSearchParams((yield* request).url.split("?")[1] ?? "")
        const checked = yield* refundConfirmation(signed, f, scope, {
          amount: query.get("amount") ?? "",
          reason: query.get("reason") ?? "",
          note: query.get("note") ?? ""
        })
        return "refused" in checked ? checked.refused : page(200, confirmPage(f, checked.confirmation), f.nonce)
      })))

    /**
     * A refund, posted from its confirmation page. The form's one-time token is the refund's idempotency key: the
     * same form posted twice (a double click, a resent request) refunds once, and the second post is answered as the
     * first was. A refund redirects to the payment's page with its outcome; a refusal shows the payment's page with
     * the amount as typed; a post without the confirmation refunds nothing and shows the confirmation.
     */
    yield* router.post("/dashboard/:mode/payments/:id/refund", withPost((signed, f, scope, params) =>
      Effect.gen(function*() {
        const typed: RefundForm = { amount: field(params, "amount"), reason: field(params, "reason"), note: field(params, "note") }
        const confirmed = isConfirmed(field(params, confirmField))
        const checked = yield* refundConfirmation(signed, f, scope, typed, confirmed)
        if ("refused" in checked) return checked.refused
        if (!confirmed) return page(400, confirmPage(f, checked.confirmation, true), f.nonce)
        const { amount, id, paymentPath, why } = checked
        const refused = (error: string, status: number) => paymentView(signed, f, scope, { error, ...typed }, status)
        const once = field(params, onceField)
        if (once.length < 16 || once.length > 64) {
          return yield* refused(f.t.payments.refused.outOfDate, 400)
        }
        // The token is the refund's own idempotency key: the refund use case claims it in the transaction that
        // reserves the refund, so even a crash between the processor's answer and ours leaves one refund, and a
        // second post of the form (at once, or later) carries that same refund on and is answered with it.
        // Its audit entry is written with the reservation: with the refund, or not at all.
        const audited = (yield* auditEntry(signed, "payment.refund", scope.livemode))(id)
        const result = yield* Effect.either(payments.refund(scope, id, amount, `dashboard.refund.${once}`, why, audited))
        if (result._tag === "Left") {
          const error = result.left
          if (error._tag === "IdempotencyKeyReused") {
            return yield* refused(f.t.payments.refused.otherAmount, 409)
          }
          // The refund may be under way (the store failed after the processor was asked, or the first post is still
          // running): the confirmation again, under the same token, finishes that refund; a new form would start another.
          if (error._tag === "StoreUnavailable" || error._tag === "IdempotencyKeyInUse") {
            return page(503, confirmPage(f, { ...checked.confirmation, once }, f.t.payments.refused.notNow), f.nonce)
          }
          const why = refundRefusal(f, error)
          return yield* refused(why.error, why.status)
        }
        const { refund } = result.right
        const done = f.t.payments.done
        const text = refund.status === "pending" ? done.pending(Pages.amount(f, refund.amount)) : done.refunded(Pages.amount(f, refund.amount))
        return redirect(withFlash(paymentPath, { tone: "done", text }, f.csrf))
      })))

    const makeOnce: Kit["makeOnce"] = <A, E, R>(
      signed: Signed,
      scope: Scope,
      params: UrlParams.UrlParams,
      made: MadeOnce<A, E, R>
    ) =>
      Effect.flatMap(auditEntry(signed, made.action, scope.livemode), (audited): Effect.Effect<A | undefined, E | CreateOnceError, R> => {
        const token = field(params, onceField)
        return token === ""
          ? Effect.tap(made.create, (value) => audited(made.idOf(value)))
          : Effect.flatMap(
            createdOnce.create({ ...made, scope, token, alongside: (value) => audited(made.idOf(value)) }),
            (m) => m._tag === "Created" ? Effect.succeed(m.value) : made.find(m.id)
          )
      })

    const kit: Kit = {
      base,
      page,
      redirect: (location) => redirect(location),
      done: (f, location, text) => redirect(withFlash(location, { tone: "done", text }, f.csrf)),
      get: (path, handler) => router.get(path, handler),
      post: (path, handler) => router.post(path, handler),
      withUser,
      withPost,
      withEnrolling,
      withEnrollingPost,
      field,
      audit: (signed, action, objectId, livemode) => Effect.flatMap(auditEntry(signed, action, livemode), (entry) => entry(objectId)),
      audited: (signed, action, objectId, livemode, change) =>
        Effect.flatMap(auditEntry(signed, action, livemode), (entry) => transactions.transact(Effect.tap(change, () => entry(objectId)))),
      auditEntry,
      makeOnce,
      param: (name) => Effect.map(HttpRouter.params, (p) => (p[name] ?? "").slice(0, 200)),
      query: Effect.map(request, (r) => new URLSearchParams(r.url.split("?")[1] ?? "")),
      address
    }
    yield* developerRoutes(kit)
    yield* requestLogRoutes(kit)
    yield* productRoutes(kit)
    yield* discountRoutes(kit)
    yield* subscriptionRoutes(kit)
    yield* planChangeRoutes(kit)
    yield* settingsRoutes(kit)
    yield* twoFactorRoutes(kit)
    yield* customerRoutes(kit)
    yield* eventRoutes(kit)
    yield* documentRoutes(kit)
    yield* exportRoutes(kit, { payments, customers: yield* Customers, subscriptions })

    yield* router.get("/dashboard/audit", withUser((signed, f) =>
      can(signed.user.role, "audit")
        ? Effect.map(users.auditLog(signed.user.account_id), (entries) => page(200, Pages.auditPage(f, entries), f.nonce))
        : Effect.succeed(page(403, Pages.forbiddenPage(f, f.t.audit.forbidden), f.nonce))))
  })
)
