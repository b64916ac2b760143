/**
 * Plan changes (docs/subscriptions.md, "Changing the plan"): preview, change, and cancel a scheduled change. The price
 * is `PlanChange.price`'s, pure, for preview and change alike; a preview's quote pins the instant it priced at, so the
 * change made with it charges exactly what the preview showed, or is refused when anything it priced has changed.
 *
 * An immediate change with a charge goes reserve → charge → record, as a renewal does: one transaction locks the
 * subscription, checks and prices the change, and records it as waiting for its `processing` payment (so a second
 * change, a renewal or a cancellation waits for the outcome); the saved card is charged after the commit under the
 * payment's id (`Renewals.chargeOne`), and `ChargeOutcomes.record` makes the change from the charge's outcome, whoever
 * learns it (this request, or the lookup pass after a crash or a lost answer). With an `Idempotency-Key` the key is
 * claimed in the reserving transaction with the payment's id as its answer, so a retry after any crash carries on
 * that payment instead of reserving another: never two charges for one request.
 *
 * Changes asked at the same time share their transactions, as renewals do: one transaction reserves them all, their
 * charges' outcomes are recorded together (`Renewals.chargeOne`), and they are read back together. A burst costs a
 * few statements, not some twenty round trips each, which would hold every pooled connection and queue the requests
 * behind each other.
 */
import { Cause, DateTime, Effect, Either, Exit, FiberRef, Option, Schema } from "effect"
import type { Scope } from "../domain/Account.js"
import * as Account from "../domain/Account.js"
import * as Discount from "../domain/Discount.js"
import {
  ChargeDeclined,
  type IdempotencyKeyInUse,
  type IdempotencyKeyReused,
  InvalidRequest,
  type InvalidState,
  type NotFound,
  notFound,
  type StoreUnavailable
} from "../domain/Errors.js"
import * as Idempotency from "../domain/Idempotency.js"
import { type PaymentId, prefixes, type ProductId as ProductIdType, ProductId, parseId, type SubscriptionId } from "../domain/Ids.js"
import type * as Pagination from "../domain/Pagination.js"
import * as Payment from "../domain/Payment.js"
import * as PlanChange from "../domain/PlanChange.js"
import type * as Product from "../domain/Product.js"
import * as Subscription from "../domain/Subscription.js"
import { Signer } from "../ports/Signer.js"
import { Transactions } from "../ports/Transactions.js"
import { AccountRepository } from "../ports/repositories/AccountRepository.js"
import { DiscountRepository } from "../ports/repositories/DiscountRepository.js"
import { type IdempotencyCompletion, IdempotencyRepository } from "../ports/repositories/IdempotencyRepository.js"
import { PaymentRepository } from "../ports/repositories/PaymentRepository.js"
import { ProductRepository } from "../ports/repositories/ProductRepository.js"
import { SubscriptionRepository } from "../ports/repositories/SubscriptionRepository.js"
import { batchedCalls, batchedReads } from "./Batched.js"
import { ClockTime } from "./ClockTime.js"
import { redeemableCode } from "./Discounts.js"
import { CurrentRequestId, type EventDraft, EventRecorder } from "./Events.js"
import { newId } from "./Ids.js"
import { Renewals } from "./Renewals.js"
import { transitionEvents } from "./Subscriptions.js"
import { reserveThenCall } from "./ProcessorCall.js"
import { onClockTime } from "./Time.js"
import * as WorkKeys from "./WorkKeys.js"

/** A preview: what the change would charge now, the subscription as it would be, and the quote to change at. */
export interface PlanChangePreview {
  readonly immediate_charge: typeof PlanChange.ImmediateCharge.Type
  readonly new_plan: Subscription.Subscription
  readonly quote_id: string
  /** How the change is made: its direction and the modes used (the request's, else the product's policy). Pages show them; the API does not. */
  readonly terms: {
    readonly direction: PlanChange.Direction
    readonly proration_billing_mode: PlanChange.ProrationBillingMode
    readonly effective_at: PlanChange.EffectiveAt
    readonly on_payment_failure: PlanChange.OnPaymentFailure
  }
}

/** A change made: the subscription after it, and the payment of its immediate charge (null when none). */
export interface PlanChangeResult {
  readonly subscription: Subscription.Subscription
  readonly payment: Payment.Payment | null
}

/** A change to reserve: the request, its key (with the request's fingerprint), the id its charge's payment gets. */
interface Ask {
  readonly scope: Scope
  readonly id: SubscriptionId
  readonly body: PlanChange.PlanChangeRequest
  readonly key: WorkKeys.WorkKey | undefined
  readonly paymentId: PaymentId
  /** The request that asked (its events carry it: a gathered reservation runs in a fiber of its own). */
  readonly requestId: string | null
}

/** A reserved change: made at once, waiting for its charge, or the payment reserved under its key before. */
type Reserved =
  | { readonly _tag: "Made"; readonly subscription: Subscription.Subscription }
  | { readonly _tag: "Charge"; readonly payment: Payment.Payment; readonly clockAt: DateTime.Utc | undefined }
  | { readonly _tag: "Earlier"; readonly paymentId: PaymentId; readonly clockAt: DateTime.Utc | undefined }

/** Whose time a subscription lives on (`ClockTime`). */
const ownerOf = (s: Subscription.Subscription) => ({ livemode: s.livemode, customer_id: s.customer.customer_id })

/** Why a change is refused (nothing written). */
type Refusal =
  | NotFound
  | InvalidRequest
  | InvalidState
  | IdempotencyKeyReused
  | IdempotencyKeyInUse
  | Discount.DiscountNotRedeemable

/** A refusal is the change's own; the store out of reach fails the whole transaction, as any fault of the database does. */
const isRefusal = (error: Refusal | StoreUnavailable): error is Refusal => error._tag !== "StoreUnavailable"

/** At most this many changes per reserving transaction, and per read of their subscriptions or payments. */
const batch = 100

/** A subscription's payments read at once when looking for what its period was charged. */
const periodPage = 10

const encodeCharge = Schema.encodeSync(PlanChange.ImmediateCharge)
const encodeSubscription = Schema.encodeSync(Subscription.SubscriptionResource)
const parseProductId = parseId(ProductId)

const distinct = <A>(values: ReadonlyArray<A>): ReadonlyArray<A> => [...new Set(values)]

/** The keys of plan changes have a scope of their own: the API's record of the request's response is another. */
/**
 * The asks (by index) in rounds where no key comes twice: a key asked again waits for a round after, so that it
 * meets what the first ask under it left.
 */
const rounds = (asks: ReadonlyArray<Ask>): ReadonlyArray<ReadonlyArray<number>> => {
  const all: Array<Array<number>> = []
  const taken: Array<Set<string>> = []
  asks.forEach((ask, i) => {
    const key = ask.key === undefined ? undefined : `${ask.key.scope}\u0000${ask.key.key}`
    const round = key === undefined ? 0 : taken.findIndex((keys) => !keys.has(key))
    const at = round === -1 ? all.length : round
    if (at === all.length) {
      all.push([])
      taken.push(new Set())
    }
    all[at]!.push(i)
    if (key !== undefined) taken[at]!.add(key)
  })
  return all
}

/** The codes a change names, each once (compared as codes are) and at most `PlanChange.maxDiscountCodes`. */
const checkCodes = (codes: ReadonlyArray<string>) => {
  if (codes.length > PlanChange.maxDiscountCodes) {
    return Effect.fail(new InvalidRequest({ message: `discount_codes: at most ${PlanChange.maxDiscountCodes} codes a change` }))
  }
  const twice = codes.findIndex((c, i) => codes.findIndex((o) => Discount.codeKey(o) === Discount.codeKey(c)) !== i)
  return twice === -1
    ? Effect.void
    : Effect.fail(new InvalidRequest({ message: `discount_codes.${twice}: ${[...codes[twice]!].slice(0, 40).join("")} is named twice` }))
}

export class PlanChanges extends Effect.Service<PlanChanges>()("fils/PlanChanges", {
  scoped: Effect.gen(function*() {
    const subscriptionRepo = yield* SubscriptionRepository
    const productRepo = yield* ProductRepository
    const paymentRepo = yield* PaymentRepository
    const accountRepo = yield* AccountRepository
    const discountRepo = yield* DiscountRepository
    const idempotencyRepo = yield* IdempotencyRepository
    const transactions = yield* Transactions
    const signer = yield* Signer
    const clockTime = yield* ClockTime
    const renewals = yield* Renewals
    const recorder = yield* EventRecorder

    const scoped = (scope: Scope, id: SubscriptionId) =>
      Effect.flatMap(subscriptionRepo.get(scope, id), Option.match({
        onNone: () => Effect.fail(notFound("subscription", id)),
        onSome: Effect.succeed
      }))

    /**
     * The discounts a change to `productId` keeps and redeems: the subscription's own kept when their discount (as it
     * is now) says `preserve_on_plan_change` and applies to the product; each code redeemable for it, as checkout
     * judges one (`redeemableCode`), locked when `locked` (the reserving transaction, which holds its use). None to
     * look up when the subscription has no discounts and the change names no codes.
     */
    const discountsFor = (scope: Scope, s: Subscription.Subscription, codes: ReadonlyArray<string>, productId: ProductIdType, locked: boolean) =>
      Effect.gen(function*() {
        if (codes.length === 0 && s.discounts.length === 0) return { change: undefined, redeemed: [] }
        const redeemed: Array<Discount.Discount> = []
        for (const code of codes) {
          const found = yield* redeemableCode(discountRepo, scope, code, [productId])
          if (!locked) {
            redeemed.push(found)
            continue
          }
          const current = yield* discountRepo.lock(scope, found.discount_id)
          if (Option.isNone(current)) return yield* new Discount.DiscountNotRedeemable({ discount_code: code, reason: "unknown" })
          redeemed.push(yield* Discount.redeemable(current.value, code, yield* DateTime.now, [productId]))
        }
        const own = yield* Effect.forEach(s.discounts, (d) => discountRepo.get(scope, d.discount_id))
        const change: PlanChange.PlanDiscounts = {
          keep_discounts: s.discounts
            .filter((_, i) => Discount.keptOnPlanChange(Option.getOrUndefined(own[i]!), productId))
            .map((d) => d.discount_id),
          new_discounts: redeemed.map(Discount.forPlanChange)
        }
        return { change, redeemed }
      })

    /**
     * What a subscription's current period was charged (`PlanChange.periodPaidBy`): the newest of its payments that
     * paid a period, a page at a time (on-demand charges may come between). 0 when none did: nothing paid, nothing
     * credited.
     */
    const periodCharge = (scope: Scope, id: SubscriptionId) =>
      Effect.gen(function*() {
        let after: Pagination.Position | undefined = undefined
        for (;;) {
          const page: Pagination.Page<Payment.Payment> = yield* paymentRepo.list(scope, { subscription_id: id }, { limit: periodPage, after })
          for (const p of page.items) {
            const paid = PlanChange.periodPaidBy(p)
            if (paid !== undefined) return paid
          }
          const last = page.items.at(-1)
          if (!page.hasMore || last === undefined) return 0
          after = Payment.position(last)
        }
      })

    /**
     * `periodCharge` of several subscriptions: their first pages in one read; one whose period was paid further back
     * pages on alone.
     */
    const periodCharges = (subscriptions: ReadonlyArray<{ readonly scope: Scope; readonly id: SubscriptionId }>) =>
      Effect.gen(function*() {
        // Each asked in its own scope: the same id asked from another scope reads nothing of this one's.
        const named = new Map(subscriptions.map(({ id, scope }) => [`${Account.scopeKey(scope)} ${id}`, { scope, subscriptionId: id }]))
        const newest = yield* paymentRepo.newestOfSubscriptions([...named.values()], periodPage)
        return yield* Effect.forEach(subscriptions, ({ id, scope }) => {
          const page = newest.filter((p) => p.subscription_id === id && Account.inScope(p, scope))
          const paid = page.map(PlanChange.periodPaidBy).find((amount) => amount !== undefined)
          return paid !== undefined ? Effect.succeed(paid) : page.length < periodPage ? Effect.succeed(0) : periodCharge(scope, id)
        })
      })

    /**
     * Prices the change at `at`: `product`, the one the body names (in the scope, else 400), the merchant's VAT and
     * the discounts (`discountsFor`).
     */
    const priceWith = (
      scope: Scope,
      s: Subscription.Subscription,
      body: PlanChange.PlanChangePreviewRequest,
      found: {
        readonly product: Option.Option<Product.Product>
        readonly account: Option.Option<Account.Account>
        readonly periodCharge: number
      },
      at: DateTime.Utc,
      locked = false
    ) =>
      Effect.gen(function*() {
        const codes = body.discount_codes ?? []
        yield* checkCodes(codes)
        const product = found.product
        if (Option.isNone(product)) {
          return yield* new InvalidRequest({ message: `product_id: no product '${body.product_id}' in this account and mode` })
        }
        const discounts = yield* discountsFor(scope, s, codes, product.value.product_id, locked)
        const priced = yield* PlanChange.price({
          subscription: s,
          product: product.value,
          quantity: body.quantity,
          request: body,
          at,
          vat: Option.match(found.account, { onNone: () => null, onSome: Account.vatPricing }),
          discounts: discounts.change,
          periodCharge: found.periodCharge
        })
        return { ...priced, redeemed: discounts.redeemed }
      })

    /** The preview of a priced change, with its quote: the digest of what it shows, at the instant it priced at. */
    const previewOf = (s: Subscription.Subscription, body: PlanChange.PlanChangePreviewRequest, priced: PlanChange.Priced) =>
      Effect.gen(function*() {
        const immediate_charge = PlanChange.immediateCharge(s, priced)
        const new_plan = PlanChange.wouldBe(s, priced)
        const shown = { immediate_charge: encodeCharge(immediate_charge), new_plan: encodeSubscription(new_plan) }
        const digest = yield* signer.digest(PlanChange.quoteText(s.subscription_id, body, shown))
        const terms = {
          direction: priced.direction,
          proration_billing_mode: priced.mode,
          effective_at: priced.effectiveAt,
          on_payment_failure: priced.onPaymentFailure
        }
        return { immediate_charge, new_plan, quote_id: PlanChange.quoteId(priced.at, digest), terms } satisfies PlanChangePreview
      })

    // What a preview prices from, and what a change answers with, read with what concurrent requests read: one
    // statement for many. Inside a caller's transaction, each on its own (a batch reads on a connection of its own).
    const readSubscriptions = yield* batchedReads(subscriptionRepo.findAll, (s) => s.subscription_id, { max: batch })
    const readPayments = yield* batchedReads(paymentRepo.findAll, (p) => p.payment_id, { max: batch })
    const readProducts = yield* batchedReads(productRepo.findAll, (p) => p.product_id, { max: batch })
    const readAccounts = yield* batchedCalls(
      (ids: ReadonlyArray<Account.Account["account_id"]>) =>
        Effect.map(accountRepo.findAll(ids), (found) => ids.map((id) => Option.fromNullable(found.find((a) => a.account_id === id)))),
      { max: batch }
    )
    const readPeriodCharges = yield* batchedCalls(periodCharges, { max: batch })
    const first = <A>(rows: ReadonlyArray<A>) => Option.fromNullable(rows[0])
    const reads = Effect.map(transactions.inTransaction, (inside) => ({
      subscription: (scope: Scope, id: SubscriptionId) =>
        inside ? scoped(scope, id) : Effect.flatMap(readSubscriptions(scope, [id]), (found) =>
          found.length === 0 ? Effect.fail(notFound("subscription", id)) : Effect.succeed(found[0]!)),
      payment: (scope: Scope, id: PaymentId) => inside ? paymentRepo.get(scope, id) : Effect.map(readPayments(scope, [id]), first),
      /** The product a body names, in the scope. */
      product: (scope: Scope, name: string) => {
        const id = parseProductId(name)
        return id === undefined
          ? Effect.succeed(Option.none<Product.Product>())
          : inside
          ? productRepo.get(scope, id)
          : Effect.map(readProducts(scope, [id]), first)
      },
      account: (scope: Scope) => inside ? accountRepo.get(scope.accountId) : readAccounts(scope.accountId),
      periodCharge: (scope: Scope, id: SubscriptionId) => inside ? periodCharge(scope, id) : readPeriodCharges({ scope, id })
    }))

    const preview = Effect.fn("PlanChanges.preview")(function*(
      scope: Scope,
      id: SubscriptionId,
      body: PlanChange.PlanChangePreviewRequest
    ) {
      const read = yield* reads
      const { s, ...found } = yield* Effect.all({
        s: read.subscription(scope, id),
        product: read.product(scope, body.product_id),
        account: read.account(scope),
        periodCharge: read.periodCharge(scope, id)
      }, { concurrency: "unbounded" })
      // Priced on the time the subscription lives on (a test clock's, if it is on one).
      return yield* clockTime.onTimeOf(ownerOf(s))(
        Effect.flatMap(DateTime.now, (at) => Effect.flatMap(priceWith(scope, s, body, found, at), (priced) => previewOf(s, body, priced)))
      )
    })

    /**
     * One transaction reserves the changes asked together, each as it would be alone, in the order asked: the
     * subscriptions locked (in id order), the keys claimed, each change checked and priced (at the quote's instant
     * when one is given, which must still give the quote) against its subscription as the changes before it in the
     * batch left it, then made at once (scheduled, or without a charge) or reserved with its `processing` payment.
     * A key is answered with the id the charge's payment has (a change without a charge never gets that payment);
     * under a key already answered, the change is that payment's. A refused change writes nothing: the key it
     * claimed is given back in the same transaction. Each ask gets its own outcome; the transaction fails only
     * as a whole (the store out of reach).
     */
    const reserveAll = (asks: ReadonlyArray<Ask>) =>
      transactions.transact(Effect.gen(function*() {
        const now = yield* DateTime.now
        const subscriptions = new Map(
          (yield* subscriptionRepo.lockAll(distinct(asks.map((a) => a.id)))).map((s) => [s.subscription_id, s])
        )
        const found = (ask: Ask) => {
          const s = subscriptions.get(ask.id)
          return s !== undefined && Account.inScope(s, ask.scope) ? s : undefined
        }
        // Claimed as running; answered or given back below, before the commit, so no other transaction sees that.
        const keyed = asks.flatMap((ask, i) => (ask.key !== undefined && found(ask) !== undefined ? [i] : []))
        const claims = yield* idempotencyRepo.claimAll(keyed.map((i) => ({
          ...asks[i]!.key!,
          response: null,
          lockedUntil: DateTime.addDuration(now, Idempotency.lease),
          expiresAt: DateTime.addDuration(now, Idempotency.retention)
        })), now)
        const claimOf = new Map(keyed.map((i, j) => [i, claims[j]!]))
        const products = new Map((yield* productRepo.findAll(distinct(asks.flatMap((a) => {
          const id = parseProductId(a.body.product_id)
          return id === undefined ? [] : [id]
        })))).map((p) => [p.product_id, p]))
        const accounts = new Map(
          (yield* accountRepo.findAll(distinct(asks.map((a) => a.scope.accountId)))).map((a) => [a.account_id, a])
        )
        // What the periods of the subscriptions to price were charged (not those of an answer given before).
        const toPrice = asks.flatMap((ask, i) => (found(ask) !== undefined && claimOf.get(i)?._tag !== "Existing" ? [ask] : []))
        const charged = new Map((yield* periodCharges(toPrice)).map((amount, j) => [toPrice[j]!.id, amount]))
        // A subscription on a test clock changes on the clock's time (`ClockTime`).
        const clockTimeOf = yield* clockTime.timesOf([...subscriptions.values()].map(ownerOf))

        /** Decides an ask on the time its subscription lives on (`clockAt`: a test clock's, else the real time). */
        const decide = (ask: Ask, i: number, clockAt: DateTime.Utc | undefined) =>
          Effect.gen(function*() {
            const s = found(ask)
            if (s === undefined) return yield* notFound("subscription", ask.id)
            const claim = claimOf.get(i)
            if (claim?._tag === "Existing") {
              return { _tag: "Earlier", paymentId: yield* WorkKeys.answeredBy<PaymentId>(claim.record, ask.key!), clockAt } as const
            }
            const now = yield* DateTime.now
            const { body, paymentId, scope } = ask
            const quote = body.quote_id === undefined ? undefined : yield* PlanChange.readQuote(body.quote_id, now)
            const productId = parseProductId(body.product_id)
            const product = productId === undefined ? undefined : products.get(productId)
            const priced = yield* priceWith(scope, s, body, {
              product: product !== undefined && Account.inScope(product, scope) ? Option.some(product) : Option.none(),
              account: Option.fromNullable(accounts.get(scope.accountId)),
              periodCharge: charged.get(ask.id)!
            }, quote?.at ?? now, true)
            if (quote !== undefined && (yield* previewOf(s, body, priced)).quote_id !== body.quote_id) {
              return yield* PlanChange.staleQuote()
            }
            // Each code redeemed: a use held for the charge (counted or given back by `ChargeOutcomes`), or counted now
            // when the change charges nothing now. Written at once, in this transaction: a change after this one in the
            // batch that names the same code meets the use this one took.
            const redeem = priced.charge === null ? Discount.redeem : Discount.hold
            yield* Effect.forEach(priced.redeemed, (d) => discountRepo.update(redeem(d)), { discard: true })
            if (priced.effectiveAt === "next_billing_date") {
              return { _tag: "Made", transition: PlanChange.schedule(s, priced) } as const
            }
            if (priced.charge === null) {
              return { _tag: "Made", transition: PlanChange.changeWithoutCharge(s, priced) } as const
            }
            const payment = PlanChange.changePayment(s, { ...priced, charge: priced.charge }, paymentId, body.metadata, now)
            return { _tag: "Charge", payment, next: PlanChange.awaitCharge(s, priced, paymentId), clockAt } as const
          }).pipe((decided) => clockAt === undefined ? decided : onClockTime(clockAt)(decided))

        const outcomes: Array<Exit.Exit<Reserved, Refusal>> = []
        const changed = new Set<SubscriptionId>()
        const payments: Array<Payment.Payment> = []
        const drafts: Array<EventDraft> = []
        const answered: Array<IdempotencyCompletion> = []
        const givenBack: Array<Ask> = []
        for (const [i, ask] of asks.entries()) {
          const s = found(ask)
          const decided = yield* decide(ask, i, s === undefined ? undefined : clockTimeOf(ownerOf(s))).pipe(
            Effect.map(Either.right),
            Effect.catchIf(isRefusal, (e) => Effect.succeed(Either.left(e)))
          )
          const claimed = claimOf.get(i)?._tag === "Claimed"
          if (Either.isLeft(decided)) {
            if (claimed) givenBack.push(ask)
            outcomes.push(Exit.fail(decided.left))
            continue
          }
          const d = decided.right
          if (claimed) {
            answered.push({
              ...ask.key!,
              response: { status: 200, body: ask.paymentId }
            })
          }
          if (d._tag === "Earlier") {
            outcomes.push(Exit.succeed(d))
          } else if (d._tag === "Made") {
            subscriptions.set(ask.id, d.transition.next)
            changed.add(ask.id)
            drafts.push(...transitionEvents(d.transition).map((draft) => ({ ...draft, requestId: ask.requestId })))
            outcomes.push(Exit.succeed({ _tag: "Made", subscription: d.transition.next }))
          } else {
            subscriptions.set(ask.id, d.next)
            changed.add(ask.id)
            payments.push(d.payment)
            outcomes.push(Exit.succeed({ _tag: "Charge", payment: d.payment, clockAt: d.clockAt }))
          }
        }
        yield* subscriptionRepo.updateAll([...changed].map((id) => subscriptions.get(id)!))
        yield* paymentRepo.insertAll(payments)
        yield* idempotencyRepo.completeAll(answered)
        for (const ask of givenBack) yield* idempotencyRepo.release(ask.key!.scope, ask.key!.key, ask.key!.fingerprint)
        yield* recorder.record(drafts)
        return outcomes
      }))

    /**
     * `reserveAll` for asks gathered from concurrent requests. A key asked twice in one gathering waits for a
     * transaction after the first's, where it meets the first's answer (or a key the first gave back). Should the
     * database refuse a batch (a fault in one ask), each of its asks is reserved again on its own, so that one
     * ask's fault is not another's.
     */
    const reserveGathered = (asks: ReadonlyArray<Ask>) =>
      Effect.gen(function*() {
        const outcomes = new Array<Exit.Exit<Reserved, Refusal | StoreUnavailable>>(asks.length)
        for (const round of rounds(asks)) {
          const alone = (i: number) =>
            Effect.map(Effect.exit(reserveAll([asks[i]!])), (exit) => (outcomes[i] = Exit.flatten(Exit.map(exit, (o) => o[0]!))))
          yield* round.length === 1 ? alone(round[0]!) : reserveAll(round.map((i) => asks[i]!)).pipe(
            Effect.map((exits) => round.forEach((i, j) => (outcomes[i] = exits[j]!))),
            Effect.catchAllCause((cause) =>
              Cause.isFailType(cause)
                ? Effect.sync(() => round.forEach((i) => (outcomes[i] = Exit.failCause(cause))))
                : Effect.forEach(round, alone, { discard: true })
            )
          )
        }
        return outcomes
      })
    // Changes asked at once are reserved in one transaction (a handful of statements however many), one
    // transaction at a time: each request waits for its own outcome.
    const reserveTogether = yield* batchedCalls(reserveGathered, { max: batch })
    /** Reserves one change: with those asked meanwhile, or alone inside a caller's transaction (a batch has its own). */
    const reserve = (ask: Ask) =>
      Effect.flatMap(
        transactions.inTransaction,
        (inside) => inside ? Effect.map(reserveAll([ask]), (o) => o[0]!) : reserveTogether(ask)
      ).pipe(Effect.flatten)

    /**
     * `POST /subscriptions/{id}/change-plan`. A change made now with a charge answers once the charge has an outcome
     * (or, its answer lost, with the payment still `processing`: the change is made when it settles). A declined
     * charge with `prevent_change` is `ChargeDeclined` (the failed payment stays on record); with `apply_change` the
     * subscription is on the new plan and `on_hold`.
     */
    const change = Effect.fn("PlanChanges.change")(function*(
      scope: Scope,
      id: SubscriptionId,
      body: PlanChange.PlanChangeRequest,
      idempotencyKey?: string
    ) {
      const ask: Ask = {
        scope,
        id,
        body,
        key: idempotencyKey === undefined
          ? undefined
          : yield* WorkKeys.workKey(signer, scope, "plan_changes", idempotencyKey, `change-plan ${id} ${PlanChange.canonicalJson(body)}`),
        paymentId: yield* newId<PaymentId>(prefixes.payment),
        requestId: yield* FiberRef.get(CurrentRequestId)
      }
      const after = yield* reserveThenCall(reserve(ask), (reserved) =>
        Effect.gen(function*() {
          if (reserved._tag === "Made") return { subscription: reserved.subscription, payment: null } satisfies PlanChangeResult
          const read = yield* reads
          const reservedPayment = reserved._tag === "Charge"
            ? Option.some(reserved.payment)
            : yield* read.payment(scope, reserved.paymentId)
          // Under a key whose first request made its change without a charge: that change stands.
          if (Option.isNone(reservedPayment)) {
            return { subscription: yield* read.subscription(scope, id), payment: null } satisfies PlanChangeResult
          }
          const pending = reservedPayment.value
          // A retry meeting a charge still `processing` asks again under the same reference: the processor answers it
          // once, however many ask. The outcome is recorded on the subscription's time (a test clock's, if it is on one).
          if (pending.status === "processing" && pending.card !== null) {
            const charge = renewals.chargeOne(pending, pending.card.token)
            yield* reserved.clockAt === undefined ? charge : onClockTime(reserved.clockAt)(charge)
          }
          return yield* Effect.all({
            subscription: read.subscription(scope, id),
            payment: Effect.map(read.payment(scope, pending.payment_id), Option.getOrThrow)
          }, { concurrency: "unbounded" })
        }))
      const payment = after.payment
      if (payment?.status === "failed" && (body.on_payment_failure ?? "apply_change") === "prevent_change") {
        const code = payment.failure_code ?? "card_declined"
        return yield* new ChargeDeclined({
          payment_id: payment.payment_id,
          decline_code: code,
          message: `The card was declined (${code}), so the plan was not changed; the failed charge is payment ${payment.payment_id}`
        })
      }
      return after
    })

    /** `DELETE /subscriptions/{id}/change-plan/scheduled`: the subscription without its scheduled change. */
    const cancelScheduled = Effect.fn("PlanChanges.cancelScheduled")(function*(scope: Scope, id: SubscriptionId) {
      return yield* transactions.transact(Effect.gen(function*() {
        yield* scoped(scope, id)
        const s = Option.getOrThrow(yield* subscriptionRepo.lock(id))
        const next = yield* PlanChange.cancelScheduled(s)
        yield* subscriptionRepo.update(next)
        // The codes it redeemed were counted when it was scheduled: their uses are given back.
        for (const d of s.scheduled_change?.new_discounts ?? []) {
          const found = yield* discountRepo.lock(scope, d.discount_id)
          if (Option.isSome(found)) yield* discountRepo.update(Discount.giveBack(found.value))
        }
        return next
      }))
    })

    return { preview, change, cancelScheduled } as const
  }),
  dependencies: [EventRecorder.Default, Renewals.Default, ClockTime.Default]
}) {}
