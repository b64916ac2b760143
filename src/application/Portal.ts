/**
 * The customer portal: a merchant creates a portal session for a customer (`POST
 * /customer_portal_sessions`) and sends them its link; opening it starts the customer's browser session, in which
 * they see their subscriptions and payments, set or undo cancellation at the period end, replace a subscription's
 * card (`PaymentMethods`), change plan to one the merchant offers there (`PlanChanges`, on the portal's terms:
 * `PlanChange.portalRequest`), and read receipts and tax documents. Every object is reached through the session's customer in its
 * account and mode: another customer's is not found, whatever its id. The link's and the cookie's secrets are
 * `Redacted` from the page that reads them; only their digests are looked up.
 */
import { Data, DateTime, Effect, Option, Redacted } from "effect"
import type { Scope } from "../domain/Account.js"
import type * as Account from "../domain/Account.js"
import type * as CheckoutSession from "../domain/CheckoutSession.js"
import type { Customer } from "../domain/Customer.js"
import { notFound, RateLimited } from "../domain/Errors.js"
import {
  type CreditNoteId,
  CustomerId,
  type InvoiceId,
  parseId,
  type PaymentId,
  type PortalSessionId,
  prefixes,
  ProductId,
  type SubscriptionId
} from "../domain/Ids.js"
import type * as Payment from "../domain/Payment.js"
import * as PlanChange from "../domain/PlanChange.js"
import type * as Product from "../domain/Product.js"
import * as PortalSession from "../domain/PortalSession.js"
import * as Receipt from "../domain/Receipt.js"
import type * as TaxDocument from "../domain/TaxDocument.js"
import type { Refund } from "../domain/Refund.js"
import type * as Subscription from "../domain/Subscription.js"
import type { CardDetails } from "../ports/PaymentProcessor.js"
import { Signer } from "../ports/Signer.js"
import { AccountRepository } from "../ports/repositories/AccountRepository.js"
import { CheckoutSessionRepository } from "../ports/repositories/CheckoutSessionRepository.js"
import { CustomerRepository } from "../ports/repositories/CustomerRepository.js"
import { DocumentRepository } from "../ports/repositories/DocumentRepository.js"
import { PaymentRepository } from "../ports/repositories/PaymentRepository.js"
import { PortalSessionRepository } from "../ports/repositories/PortalSessionRepository.js"
import { ProductRepository } from "../ports/repositories/ProductRepository.js"
import { RateLimitRepository } from "../ports/repositories/RateLimitRepository.js"
import { SubscriptionRepository } from "../ports/repositories/SubscriptionRepository.js"
import { newId } from "./Ids.js"
import * as Secrets from "./Secrets.js"
import { PaymentMethods } from "./PaymentMethods.js"
import { PlanChanges } from "./PlanChanges.js"
import { Settings } from "./Settings.js"
import { Subscriptions } from "./Subscriptions.js"
import * as UnitOfWork from "./UnitOfWork.js"

/** A portal link that does not open: unknown, opened already, or past its hour. */
/**
 * A link that cannot be opened. A used or expired one says whose it was, so that its page can offer the merchant's
 * support e-mail and the way back to its site; an unknown one says nothing.
 */
export class PortalLinkGone extends Data.TaggedError("PortalLinkGone")<{
  readonly reason: PortalSession.LinkGone | "unknown"
  readonly merchant?: {
    readonly business_name: string | null
    readonly support_email: string | null
    readonly return_url: string | null
  } | undefined
}> {}

/** What the portal's home shows. Lists are the newest 100 (a customer has few). */
export interface PortalOverview {
  readonly account: Account.Account
  readonly customer: Customer
  readonly subscriptions: ReadonlyArray<Subscription.Subscription>
  readonly payments: ReadonlyArray<Payment.Payment>
  /** The merchant's active recurring products offered in the portal (the newest 100), for "Change plan". */
  readonly plans: ReadonlyArray<Product.Product>
}

/** The session customer's tax documents, as the portal lists them beside the receipts. */
export interface PortalDocuments {
  readonly invoices: ReadonlyArray<TaxDocument.Invoice>
  readonly creditNotes: ReadonlyArray<TaxDocument.CreditNote>
}

export interface ReceiptView {
  readonly account: Account.Account
  readonly payment: Payment.Payment
  readonly lines: ReadonlyArray<Receipt.ReceiptLine>
  readonly refunds: ReadonlyArray<Refund>
}

const customerIdOf = parseId(CustomerId)
const productIdOf = parseId(ProductId)

/** What the portal's plan page shows: the subscription, the plans offered for it, and why it cannot change now, if it cannot. */
export interface PortalPlans {
  readonly account: Account.Account
  readonly subscription: Subscription.Subscription
  /** The merchant's plans offered in the portal (`PlanChange.offeredInPortal`), newest first (the newest 100). */
  readonly offered: ReadonlyArray<Product.Product>
  readonly refusal: string | undefined
}
/** Secrets of the link and of the cookie: 32 random bytes each. */
const secretBytes = 32
/** Longer than any secret this portal makes: a longer one is not looked up. */
const maxSecretLength = 100
const plausible = (secret: Redacted.Redacted<string>) => {
  const text = Redacted.value(secret)
  return text.length > 0 && text.length <= maxSecretLength
}
/**
 * Cards a portal session may try per rolling minute: enough for a customer's typos, too few for testing stolen
 * cards against the processor through a leaked link.
 */
export const cardAttemptsPerMinute = 5

export const scopeOf = (session: PortalSession.PortalSession): Scope => ({
  accountId: session.account_id,
  livemode: session.livemode
})

export class Portal extends Effect.Service<Portal>()("fils/Portal", {
  effect: Effect.gen(function*() {
    const accountRepo = yield* AccountRepository
    const customerRepo = yield* CustomerRepository
    const paymentRepo = yield* PaymentRepository
    const portalRepo = yield* PortalSessionRepository
    const rateLimitRepo = yield* RateLimitRepository
    const sessionRepo = yield* CheckoutSessionRepository
    const subscriptionRepo = yield* SubscriptionRepository
    const documentRepo = yield* DocumentRepository
    const productRepo = yield* ProductRepository
    const signer = yield* Signer
    const subscriptions = yield* Subscriptions
    const paymentMethods = yield* PaymentMethods
    const planChanges = yield* PlanChanges
    const { publicUrl } = yield* Settings
    const newSecret = Secrets.newSecret(signer, secretBytes)
    const digestOf = (secret: Redacted.Redacted<string>) => Secrets.digestOf(signer, secret)

    const customerOf = (scope: Scope, raw: string) =>
      Effect.gen(function*() {
        const id = customerIdOf(raw)
        const found = id === undefined ? Option.none() : yield* customerRepo.get(scope, id)
        return Option.isSome(found) ? found.value : yield* notFound("customer", raw)
      })

    /** A new portal session for a customer of `scope`: its `url` opens the portal once, within the hour. */
    const create = Effect.fn("Portal.create")(function*(scope: Scope, input: PortalSession.PortalSessionCreate) {
      const customer = yield* customerOf(scope, input.customer_id)
      const token = yield* newSecret
      const now = yield* DateTime.now
      const session: PortalSession.PortalSession = {
        object: "customer_portal_session",
        customer_portal_session_id: yield* newId<PortalSessionId>(prefixes.portalSession),
        account_id: scope.accountId,
        livemode: scope.livemode,
        customer_id: customer.customer_id,
        url: Redacted.make(`${publicUrl}/portal/${Redacted.value(token)}`),
        return_url: input.return_url ?? null,
        token_hash: yield* digestOf(token),
        created_at: now,
        expires_at: DateTime.add(now, { millis: PortalSession.linkMillis }),
        opened_at: null,
        cookie_hash: null,
        csrf_token: null,
        session_expires_at: null
      }
      yield* UnitOfWork.create(UnitOfWork.Created.PortalSession({ session }), portalRepo.insert(session))
      return PortalSession.toResource(session)
    })

    const get = Effect.fn("Portal.get")(function*(scope: Scope, id: PortalSessionId) {
      const found = yield* portalRepo.get(scope, id)
      return Option.isSome(found) ? PortalSession.toResource(found.value) : yield* notFound("customer portal session", id)
    })

    const linked = (token: Redacted.Redacted<string>) =>
      Effect.gen(function*() {
        const found = plausible(token) ? yield* portalRepo.findByToken(yield* digestOf(token)) : Option.none()
        return Option.isSome(found) ? found.value : yield* new PortalLinkGone({ reason: "unknown" })
      })

    /** A known link gone: with its merchant's name, support e-mail and the session's return URL. */
    const linkGone = (session: PortalSession.PortalSession, reason: PortalSession.LinkGone) =>
      Effect.flatMap(accountRepo.get(session.account_id), (account) =>
        new PortalLinkGone({
          reason,
          merchant: {
            business_name: Option.isSome(account) ? account.value.business_name : null,
            support_email: Option.isSome(account) ? account.value.support_email : null,
            return_url: session.return_url
          }
        }))

    /** Whether `currentCookie`, the browser's own cookie, names the live browser session that `session`'s link started. */
    const openedHere = (session: PortalSession.PortalSession, currentCookie: Redacted.Redacted<string> | undefined) =>
      Effect.gen(function*() {
        if (currentCookie === undefined || !plausible(currentCookie) || session.cookie_hash === null) return false
        const same = yield* signer.sameSecret(yield* digestOf(currentCookie), session.cookie_hash)
        return same && PortalSession.browsing(session, yield* DateTime.now)
      })

    /**
     * What following a link finds, changing nothing (a mail scanner follows links before the customer does):
     * `browsing` for the browser that opened it, while its session lasts; `openable` while the link can still be
     * opened; `PortalLinkGone` otherwise.
     */
    const peek = Effect.fn("Portal.peek")(function*(token: Redacted.Redacted<string>, currentCookie?: Redacted.Redacted<string>) {
      const session = yield* linked(token)
      if (yield* openedHere(session, currentCookie)) return "browsing" as const
      const gone = PortalSession.linkGone(session, yield* DateTime.now)
      return gone === undefined ? "openable" as const : yield* linkGone(session, gone)
    })

    /**
     * Opens a link: starts the browser session (the cookie's secret, returned once, and the session). A link opens
     * once, within its hour; two opening it at once, one wins. `currentCookie`, the browser's own cookie, lets the
     * browser that opened it follow it again.
     */
    const open = Effect.fn("Portal.open")(function*(token: Redacted.Redacted<string>, currentCookie?: Redacted.Redacted<string>) {
      const found = yield* linked(token)
      // The browser that opened it, following the link again while its session lasts, simply carries on.
      if (currentCookie !== undefined && (yield* openedHere(found, currentCookie))) return { cookie: currentCookie, session: found }
      const cookie = yield* newSecret
      const browser = { cookieHash: yield* digestOf(cookie), csrfToken: yield* signer.randomToken(24) }
      const opened = PortalSession.open(found, yield* DateTime.now, browser)
      if (opened._tag === "Left") return yield* linkGone(found, opened.left)
      if (!(yield* portalRepo.markOpened(opened.right))) return yield* linkGone(found, "used")
      return { cookie, session: opened.right }
    })

    /** The session a browser's cookie names, while it lasts. */
    const authenticate = Effect.fn("Portal.authenticate")(function*(cookie: Redacted.Redacted<string>) {
      if (!plausible(cookie)) return Option.none<PortalSession.PortalSession>()
      const found = yield* portalRepo.findByCookie(yield* digestOf(cookie))
      const now = yield* DateTime.now
      return Option.filter(found, (s) => PortalSession.browsing(s, now))
    })

    /** Signs out: the browser session ends now, on the server, whatever the browser keeps of its cookie. */
    const signOut = Effect.fn("Portal.signOut")(function*(session: PortalSession.PortalSession) {
      yield* portalRepo.endBrowsing(session.customer_portal_session_id, yield* DateTime.now)
    })

    /** The scope's active recurring products offered in the portal, newest first (the newest 100). */
    /** The plans the portal offers: the newest 100 active recurring products the merchant offers there. */
    const offeredPlans = (scope: Scope) =>
      Effect.map(
        productRepo.list(scope, { status: "active", billing: "recurring", offered_in_portal: true }, { limit: 100, after: undefined }),
        (listed) => listed.items
      )

    const overview = Effect.fn("Portal.overview")(function*(session: PortalSession.PortalSession) {
      const scope = scopeOf(session)
      const account = yield* accountRepo.get(session.account_id)
      const customer = yield* customerRepo.get(scope, session.customer_id)
      if (Option.isNone(account) || Option.isNone(customer)) return yield* notFound("customer", session.customer_id)
      const filter = { customer_id: session.customer_id }
      const subs = yield* subscriptionRepo.list(scope, filter, { limit: 100, after: undefined })
      const payments = yield* paymentRepo.list(scope, filter, { limit: 100, after: undefined })
      return {
        account: account.value,
        customer: customer.value,
        subscriptions: subs.items,
        payments: payments.items,
        plans: yield* offeredPlans(scope)
      } satisfies PortalOverview
    })

    /** The session customer's subscription `id`; any other is not found. */
    const subscriptionOf = (session: PortalSession.PortalSession, id: SubscriptionId) =>
      Effect.gen(function*() {
        const found = yield* subscriptionRepo.get(scopeOf(session), id)
        return Option.isSome(found) && found.value.customer.customer_id === session.customer_id
          ? found.value
          : yield* notFound("subscription", id)
      })

    /** One of the session customer's subscriptions, with its merchant (the card form); any other is not found. */
    const subscription = Effect.fn("Portal.subscription")(function*(session: PortalSession.PortalSession, id: SubscriptionId) {
      const found = yield* subscriptionOf(session, id)
      const account = yield* accountRepo.get(session.account_id)
      return Option.isSome(account) ? { account: account.value, subscription: found } : yield* notFound("subscription", id)
    })

    /** Sets or undoes cancellation at the period end: the same change as `PATCH /subscriptions/{id}`. */
    const setCancelAtPeriodEnd = Effect.fn("Portal.setCancelAtPeriodEnd")(
      function*(session: PortalSession.PortalSession, id: SubscriptionId, value: boolean) {
        yield* subscriptionOf(session, id)
        return yield* subscriptions.update(scopeOf(session), id, { cancel_at_period_end: value })
      }
    )

    /**
     * Replaces the subscription's card (and retries one on hold at once): `PaymentMethods.replace`, at most
     * `cardAttemptsPerMinute` times a minute per portal session.
     */
    const replaceCard = Effect.fn("Portal.replaceCard")(
      function*(session: PortalSession.PortalSession, id: SubscriptionId, card: CardDetails, overdue?: Subscription.DueAttempt) {
        yield* subscriptionOf(session, id)
        const now = DateTime.toEpochMillis(yield* DateTime.now)
        const decision = yield* rateLimitRepo.hit(`portal-card:${session.customer_portal_session_id}`, now, cardAttemptsPerMinute, 60)
        if (!decision.allowed) {
          return yield* RateLimited.after("cards tried", decision.resetSeconds)
        }
        return yield* paymentMethods.replace(scopeOf(session), id, card, overdue)
      }
    )

    /** The session customer's subscription `id` and the plans the portal offers it; any other subscription is not found. */
    const plans = Effect.fn("Portal.plans")(function*(session: PortalSession.PortalSession, id: SubscriptionId) {
      const { account, subscription: s } = yield* subscription(session, id)
      return {
        account,
        subscription: s,
        offered: (yield* offeredPlans(scopeOf(session))).filter((p) => PlanChange.offeredInPortal(p, s)),
        refusal: PlanChange.changeRefusal(s)?.message
      } satisfies PortalPlans
    })

    /** The plan `productId` names, if the portal offers it for `s`: any other product, of any scope, is not found. */
    const offeredPlan = (session: PortalSession.PortalSession, s: Subscription.Subscription, productId: string) =>
      Effect.gen(function*() {
        const id = productIdOf(productId)
        const found = id === undefined ? Option.none() : yield* productRepo.get(scopeOf(session), id)
        return Option.isSome(found) && PlanChange.offeredInPortal(found.value, s) ? found.value : yield* notFound("plan", productId)
      })

    /** The preview of a change of the session customer's subscription `id` to an offered plan (`PlanChange.portalRequest`). */
    const previewPlanChange = Effect.fn("Portal.previewPlanChange")(
      function*(session: PortalSession.PortalSession, id: SubscriptionId, choice: PlanChange.PortalPlanChoice) {
        const s = yield* subscriptionOf(session, id)
        const product = yield* offeredPlan(session, s, choice.product_id)
        return yield* planChanges.preview(scopeOf(session), id, PlanChange.portalRequest(product, choice.quantity))
      }
    )

    /**
     * The change a preview showed, at its quote: `PlanChanges.change` with the same request and `key` (the form's
     * one-time token), so a confirmation posted twice changes and charges once. A declined charge changes nothing
     * (`ChargeDeclined`).
     */
    const changePlan = Effect.fn("Portal.changePlan")(
      function*(
        session: PortalSession.PortalSession,
        id: SubscriptionId,
        choice: PlanChange.PortalPlanChoice & { readonly quote_id: string },
        key: string
      ) {
        const s = yield* subscriptionOf(session, id)
        const product = yield* offeredPlan(session, s, choice.product_id)
        return yield* planChanges.change(
          scopeOf(session),
          id,
          { ...PlanChange.portalRequest(product, choice.quantity), quote_id: choice.quote_id },
          `portal.${session.customer_portal_session_id}.${key}`
        )
      }
    )

    /**
     * Keeps the current plan: the session customer's subscription `id` without its scheduled change. One already
     * without (the form posted twice) is answered as it is.
     */
    const cancelScheduledChange = Effect.fn("Portal.cancelScheduledChange")(
      function*(session: PortalSession.PortalSession, id: SubscriptionId) {
        const s = yield* subscriptionOf(session, id)
        return s.scheduled_change === null ? s : yield* planChanges.cancelScheduled(scopeOf(session), id)
      }
    )

    /**
     * The receipt of a succeeded payment of `scope` (the merchant's view), or only of `customerId`'s payments (the
     * portal's). Any other payment, and one that never succeeded, is not found.
     */
    const receipt = Effect.fn("Portal.receipt")(function*(scope: Scope, id: PaymentId, customerId?: CustomerId) {
      const found = yield* paymentRepo.get(scope, id)
      const payment = Option.filter(found, (p) =>
        Receipt.hasReceipt(p) && (customerId === undefined || p.customer?.customer_id === customerId))
      if (Option.isNone(payment)) return yield* notFound("payment", id)
      const account = yield* accountRepo.get(scope.accountId)
      if (Option.isNone(account)) return yield* notFound("payment", id)
      const p = payment.value
      const session: Option.Option<CheckoutSession.CheckoutSession> = p.checkout_session_id === null
        ? Option.none()
        : yield* sessionRepo.get(scope, p.checkout_session_id)
      const subscription = p.subscription_id === null ? Option.none() : yield* subscriptionRepo.get(scope, p.subscription_id)
      return {
        account: account.value,
        payment: p,
        lines: Receipt.lines(p, { session: Option.getOrUndefined(session), subscription: Option.getOrUndefined(subscription) }),
        refunds: yield* paymentRepo.refunds.ofPayment(p.payment_id)
      } satisfies ReceiptView
    })

    /** The session customer's tax invoices and credit notes, newest first (the newest 100 of each: a customer has few). */
    const documents = Effect.fn("Portal.documents")(function*(session: PortalSession.PortalSession) {
      const mine = { customer_id: session.customer_id }
      const first = { limit: 100, after: undefined }
      return {
        invoices: (yield* documentRepo.listInvoices(scopeOf(session), mine, first)).items,
        creditNotes: (yield* documentRepo.listCreditNotes(scopeOf(session), mine, first)).items
      } satisfies PortalDocuments
    })

    /** A tax invoice of the session customer; anyone else's is not found. */
    const invoice = Effect.fn("Portal.invoice")(function*(session: PortalSession.PortalSession, id: InvoiceId) {
      const found = Option.filter(yield* documentRepo.getInvoice(scopeOf(session), id), (d) => d.buyer.customer_id === session.customer_id)
      return Option.isSome(found) ? found.value : yield* notFound("invoice", id)
    })

    /** A tax credit note of the session customer; anyone else's is not found. */
    const creditNote = Effect.fn("Portal.creditNote")(function*(session: PortalSession.PortalSession, id: CreditNoteId) {
      const found = Option.filter(yield* documentRepo.getCreditNote(scopeOf(session), id), (d) => d.buyer.customer_id === session.customer_id)
      return Option.isSome(found) ? found.value : yield* notFound("credit_note", id)
    })

    return {
      create,
      get,
      peek,
      open,
      authenticate,
      signOut,
      overview,
      subscription,
      setCancelAtPeriodEnd,
      replaceCard,
      plans,
      previewPlanChange,
      changePlan,
      cancelScheduledChange,
      receipt,
      documents,
      invoice,
      creditNote
    } as const
  }),
  dependencies: [PaymentMethods.Default, PlanChanges.Default, Subscriptions.Default]
}) {}
