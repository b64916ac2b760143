/**
 * Checkout: sessions a merchant creates and a customer pays on the hosted page (docs/decisions.md §2, §3).
 *
 * Paying runs in three steps so that no lock is held across the processor's network call: reserve (one
 * transaction: the session is locked, a `processing` payment recorded, so a second submission waits for it),
 * charge, then record the outcome (`ChargeOutcomes.recordOne`). A free trial charges nothing: the card is saved
 * (verified by its issuer), then one transaction starts the subscription and completes the session.
 */
import { DateTime, Effect, Either, Option } from "effect"
import * as Account from "../domain/Account.js"
import * as CheckoutForm from "../domain/CheckoutForm.js"
import * as CheckoutSession from "../domain/CheckoutSession.js"
import * as Customer from "../domain/Customer.js"
import * as Discount from "../domain/Discount.js"
import type { Trn } from "../domain/Vat.js"
import { InvalidRequest, InvalidState, notFound, PaymentsDisabled } from "../domain/Errors.js"
import type { CheckoutSessionId, PaymentId, TestClockId } from "../domain/Ids.js"
import { CustomerId as CustomerIdSchema, parseId, prefixes, ProductId as ProductIdSchema } from "../domain/Ids.js"
import * as Pagination from "../domain/Pagination.js"
import * as Payment from "../domain/Payment.js"
import type { BillingInterval } from "../domain/Product.js"
import type * as Subscription from "../domain/Subscription.js"
import * as Text from "../domain/Text.js"
import type { Invoice } from "../domain/TaxDocument.js"
import { type CardDetails, PaymentProcessor } from "../ports/PaymentProcessor.js"
import { Signer } from "../ports/Signer.js"
import { Transactions } from "../ports/Transactions.js"
import { AccountRepository } from "../ports/repositories/AccountRepository.js"
import { CheckoutSessionRepository } from "../ports/repositories/CheckoutSessionRepository.js"
import { CustomerRepository } from "../ports/repositories/CustomerRepository.js"
import { DocumentRepository } from "../ports/repositories/DocumentRepository.js"
import { DiscountRepository } from "../ports/repositories/DiscountRepository.js"
import { PaymentRepository } from "../ports/repositories/PaymentRepository.js"
import { ProductRepository } from "../ports/repositories/ProductRepository.js"
import { SubscriptionRepository } from "../ports/repositories/SubscriptionRepository.js"
import { batched, batchedCalls, batchedReads } from "./Batched.js"
import { ClockTime } from "./ClockTime.js"
import { Customers } from "./Customers.js"
import { redeemableCode } from "./Discounts.js"
import { EventRecorder } from "./Events.js"
import { newId } from "./Ids.js"
import { callProcessor, reserveThenCall } from "./ProcessorCall.js"
import { Settings } from "./Settings.js"
import { type ChargeReport, lookedUpCharge, ChargeOutcomes } from "./ChargeOutcomes.js"
import { startFromSession, transitionEvents } from "./Subscriptions.js"
import * as UnitOfWork from "./UnitOfWork.js"
import { whenTraced } from "./Spans.js"

const productIdOf = parseId(ProductIdSchema)
const customerIdOf = parseId(CustomerIdSchema)

/** What the page shows after a submission. */
export type PayResult =
  | { readonly _tag: "Invalid"; readonly session: CheckoutSession.CheckoutSession; readonly errors: CheckoutForm.FieldErrors }
  | { readonly _tag: "Paid"; readonly session: CheckoutSession.CheckoutSession; readonly payment: Payment.Payment }
  /** A free trial started: its card saved, nothing charged. */
  | {
    readonly _tag: "Started"
    readonly session: CheckoutSession.CheckoutSession
    readonly subscription: Subscription.Subscription
  }
  /** A free trial's card refused by its issuer (`code`, the processor's reason): nothing changed. */
  | { readonly _tag: "Refused"; readonly session: CheckoutSession.CheckoutSession; readonly code: string }

/** A subscription session's schedule, as the page states it. */
export interface Plan {
  readonly billing_interval: BillingInterval
  readonly interval_count: number
}

/** At most this many new sessions per insert statement, and carts per read of their products. */
const batch = 100

export class Checkout extends Effect.Service<Checkout>()("fils/Checkout", {
  scoped: Effect.gen(function*() {
    const accountRepo = yield* AccountRepository
    const customerRepo = yield* CustomerRepository
    const documentRepo = yield* DocumentRepository
    const discountRepo = yield* DiscountRepository
    const paymentRepo = yield* PaymentRepository
    const productRepo = yield* ProductRepository
    const sessionRepo = yield* CheckoutSessionRepository
    const subscriptionRepo = yield* SubscriptionRepository
    const recorder = yield* EventRecorder
    const transactions = yield* Transactions
    const processor = yield* PaymentProcessor
    const outcomes = yield* ChargeOutcomes
    const customers = yield* Customers
    const clockTime = yield* ClockTime
    const signer = yield* Signer
    const { publicUrl } = yield* Settings
    // Sessions created together are inserted in one statement; each create still waits for its own row.
    const insertSession = yield* batched(sessionRepo.insertAll, { max: batch })
    // And the products of carts priced together are read in one statement.
    const readProducts = yield* batchedReads(productRepo.findAll, (p) => p.product_id, { max: batch })
    // And their merchants (whose tax profile prices the cart), likewise.
    const readAccount = yield* batchedCalls(
      (ids: ReadonlyArray<Account.Account["account_id"]>) =>
        Effect.map(accountRepo.findAll(ids), (found) => ids.map((id) => found.find((a) => a.account_id === id))),
      { max: batch }
    )

    const account = (scope: Account.Scope) =>
      Effect.flatMap(accountRepo.get(scope.accountId), Option.match({
        onNone: () => Effect.fail(notFound("account", scope.accountId)),
        onSome: Effect.succeed
      }))

    /** Live payments need the operator's consent and a processor that takes live charges. */
    const livePaymentsEnabled = (a: Account.Account) => a.live_payments_enabled && processor.supportsLive

    const resolveCustomer = (scope: Account.Scope, input: CheckoutSession.CheckoutSessionCreate["customer"]) =>
      Effect.gen(function*() {
        if (input === undefined) return undefined
        if ("customer_id" in input) {
          const id = customerIdOf(input.customer_id)
          const found = id === undefined ? Option.none() : yield* customerRepo.get(scope, id)
          if (Option.isNone(found)) {
            return yield* new InvalidRequest({ message: `customer.customer_id: no such customer '${input.customer_id}'` })
          }
          return found.value
        }
        const existing = yield* customerRepo.findByEmail(scope, input.email)
        return Option.isSome(existing) ? existing.value : yield* customers.create(scope, input)
      })

    const createNow = whenTraced("Checkout.create", Effect.fnUntraced(
      function*(scope: Account.Scope, input: CheckoutSession.CheckoutSessionCreate) {
        const live = scope.livemode ? yield* account(scope) : undefined
        if (live !== undefined && !livePaymentsEnabled(live)) {
          return yield* new PaymentsDisabled({
            message: "Live payments are not enabled for this account; use a test key, or ask the operator to enable them"
          })
        }
        // A transaction only when a customer may be created with the session and they are not staged together
        // (a request with an Idempotency-Key writes both with its answer, `UnitOfWork`); otherwise the reads and the
        // one insert need none (the prices are a snapshot either way), and the read and the insert join those of
        // other sessions being created (batches run outside transactions). Inside a caller's transaction
        // everything joins it.
        const newCustomer = input.customer !== undefined && !("customer_id" in input.customer)
        const inside = yield* transactions.inTransaction
        const atomic = (newCustomer && !(yield* UnitOfWork.isStaging)) || inside
        const work = Effect.gen(function*() {
          // The cart's products in one statement, whatever the number of lines (shared with other carts).
          const ids = input.product_cart.flatMap((line) => {
            const id = productIdOf(line.product_id)
            return id === undefined ? [] : [id]
          })
          const [merchant, products] = yield* Effect.all([
            live !== undefined
              ? Effect.succeed(live)
              : atomic
              ? account(scope)
              : Effect.flatMap(readAccount(scope.accountId), (found) =>
                found === undefined ? Effect.fail(notFound("account", scope.accountId)) : Effect.succeed(found)),
            atomic ? productRepo.getAll(scope, ids) : readProducts(scope, ids)
          ], { concurrency: atomic ? 1 : 2 })
          const found = new Map<string, CheckoutSession.PricedLine["product"]>(products.map((p) => [p.product_id, p]))
          const lines: Array<CheckoutSession.PricedLine> = []
          for (const [i, line] of input.product_cart.entries()) {
            const product = Option.fromNullable(found.get(line.product_id))
            if (Option.isNone(product)) {
              return yield* new InvalidRequest({
                message: `product_cart.${i}.product_id: no such product '${line.product_id}'`
              })
            }
            lines.push({ product: product.value, quantity: line.quantity ?? 1 })
          }
          const vat = Account.vatPricing(merchant)
          const kind = CheckoutSession.kindOf(lines)
          const trial = yield* CheckoutSession.trialOf(kind, lines, input.subscription_data?.trial_period_days)
          // The cart is judged first; then a discount code, against its products, prices it again.
          const listed = yield* CheckoutSession.price(lines, vat, null, trial)
          const code = input.discount_code ?? null
          const priced = code === null ? listed : yield* CheckoutSession.price(
            lines,
            vat,
            yield* redeemableCode(discountRepo, scope, code, lines.map((l) => l.product.product_id)),
            trial
          )
          const customer = yield* resolveCustomer(scope, input.customer)
          const now = yield* DateTime.now
          const id = yield* newId<CheckoutSessionId>(prefixes.checkoutSession)
          const token = yield* signer.randomToken(24)
          const session = CheckoutSession.open({
            id,
            accountId: scope.accountId,
            livemode: scope.livemode,
            checkoutUrl: `${publicUrl}/checkout/${id}`,
            kind,
            priced,
            customer,
            returnUrl: input.return_url ?? null,
            metadata: input.metadata ?? {},
            formToken: token,
            now
          })
          yield* UnitOfWork.create(
            UnitOfWork.Created.CheckoutSession({ session }),
            atomic ? sessionRepo.insert(session) : insertSession(session)
          )
          return session
        })
        return yield* (atomic ? transactions.transact(work) : work)
      }
    ))

    /** A session for a customer on a test clock lives on the clock's time (`ClockTime`). */
    const create = (scope: Account.Scope, input: CheckoutSession.CheckoutSessionCreate) =>
      clockTime.onTimeOf({
        livemode: scope.livemode,
        customer_id: input.customer !== undefined && "customer_id" in input.customer
          ? customerIdOf(input.customer.customer_id) ?? null
          : null
      })(createNow(scope, input))

    /** Runs work on the session `id` on the time it lives on (`ClockTime`). */
    const onTimeOfSession = (id: CheckoutSessionId) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      Effect.flatMap(sessionRepo.find(id), Option.match({
        onNone: () => effect,
        onSome: (session) => clockTime.onTimeOf(session)(effect)
      }))

    /**
     * The session as it reads now (on the time it lives on): past its expiry it reads expired, unless a charge may
     * still complete it.
     */
    const current = (session: CheckoutSession.CheckoutSession) => clockTime.onTimeOf(session)(currentNow(session))
    const currentNow = (session: CheckoutSession.CheckoutSession) =>
      Effect.gen(function*() {
        const now = yield* DateTime.now
        if (CheckoutSession.statusAt(session, now) !== "expired" || session.status !== "open") {
          return CheckoutSession.asOf(session, now)
        }
        return CheckoutSession.asOf(session, now, yield* paymentRepo.hasProcessing(session.session_id))
      })

    const get = Effect.fn("Checkout.get")(function*(scope: Account.Scope, id: CheckoutSessionId) {
      const found = yield* sessionRepo.get(scope, id)
      if (Option.isNone(found)) return yield* notFound("checkout session", id)
      return yield* current(found.value)
    })

    /** A scope's sessions, newest first, each as it reads now (the dashboard's list). */
    const list = Effect.fn("Checkout.list")(function*(scope: Account.Scope, params: { readonly limit?: number | undefined; readonly cursor?: string | undefined }) {
      const key = Pagination.listKey("checkout_sessions", {})
      const request = yield* Pagination.pageRequest(key, params)
      const found = yield* sessionRepo.list(scope, request)
      const onTimeOf = yield* clockTime.onTimesOf(found.items)
      const items = yield* Effect.forEach(found.items, (s) => onTimeOf(s)(currentNow(s)))
      return Pagination.toList(key, { items, hasMore: found.hasMore }, CheckoutSession.position)
    })

    /**
     * The hosted page's view: the session as of now, the merchant's name and, for a subscription, its product's
     * schedule (what the subscription will renew on).
     */
    const page = Effect.fn("Checkout.page")(function*(id: CheckoutSessionId) {
      const found = yield* sessionRepo.find(id)
      if (Option.isNone(found)) return yield* notFound("checkout session", id)
      const session = yield* current(found.value)
      const scope = { accountId: session.account_id, livemode: session.livemode }
      const merchant = yield* account(scope)
      const product = session.kind === "subscription"
        ? yield* productRepo.get(scope, session.product_cart[0]!.product_id)
        : Option.none()
      const plan = Option.getOrNull(Option.flatMap(product, (p): Option.Option<Plan> =>
        p.billing_interval === null
          ? Option.none()
          : Option.some({ billing_interval: p.billing_interval, interval_count: p.interval_count ?? 1 })))
      return { session, businessName: merchant.business_name ?? "Fils merchant", timeZone: merchant.time_zone, plan }
    })

    /**
     * A completed session's receipt, for its page: what was paid (none for a free trial) and the payment's tax
     * invoice once it is issued (none when the merchant charges no VAT).
     */
    const receipt = Effect.fn("Checkout.receipt")(function*(id: CheckoutSessionId) {
      const shown = yield* page(id)
      const paymentId = shown.session.status === "complete" ? shown.session.payment_id : null
      if (paymentId === null) return { ...shown, payment: null, invoice: null }
      const payment = Option.getOrNull(yield* paymentRepo.find(paymentId))
      const invoice: Invoice | null = Option.getOrNull(yield* documentRepo.invoiceOfPayment(paymentId))
      return { ...shown, payment, invoice }
    })

    /** How old a reservation must be before a submission of the form again may close its reference. */
    const judgeNothingAfterMillis = 5_000

    const staleForm = new InvalidRequest({ message: CheckoutSession.staleFormMessage })

    const describe = (session: CheckoutSession.CheckoutSession) =>
      Text.shortened(
        session.product_cart.map((l) => (l.quantity > 1 ? `${l.name} × ${l.quantity}` : l.name)).join(", ") +
          (session.trial_period_days === null ? "" : ` (${session.trial_period_days}-day trial)`),
        1000
      )

    /** The session locked for a submission: still payable, and the form the page gave for it. */
    const lockPayable = (id: CheckoutSessionId, formToken: string, now: DateTime.Utc) =>
      Effect.gen(function*() {
        const found = yield* sessionRepo.lock(id)
        if (Option.isNone(found)) return yield* notFound("checkout session", id)
        const session = yield* CheckoutSession.ensurePayable(found.value, now)
        if (!(yield* signer.sameSecret(formToken, session.form_token))) return yield* staleForm
        return session
      })

    /**
     * The customer a submission pays as (inside its transaction): the session's, else the form's (found by e-mail or
     * created); a business named on the form goes on the customer, read locked (its invoice names it).
     */
    const customerOf = (session: CheckoutSession.CheckoutSession, form: CheckoutForm.ValidCheckoutForm) =>
      Effect.gen(function*() {
        const scope = { accountId: session.account_id, livemode: session.livemode }
        const named = session.customer_id !== null
          ? Option.getOrUndefined(yield* customerRepo.get(scope, session.customer_id)) ??
            (yield* resolveCustomer(scope, form.customer))!
          : (yield* resolveCustomer(scope, form.customer))!
        // A business named on the form goes on the customer, read locked (its invoice names it).
        const customer = form.business === null ? named : yield* Effect.gen(function*() {
          const locked = Option.getOrElse(yield* customerRepo.lock(scope, named.customer_id), () => named)
          const next = Customer.withCheckoutBusiness(locked, { name: form.business!.name, trn: form.business!.trn as Trn | null })
          if (next !== locked) yield* customerRepo.update(next)
          return next
        })
        return customer
      })

    /**
     * The session's discount codes, which must still be redeemable (not expired, deleted or used up), each taking a
     * use (`use`: held for a charge, or counted at once), so that concurrent checkouts never pass a limit.
     */
    const redeemCodes = (session: CheckoutSession.CheckoutSession, now: DateTime.Utc, use: (d: Discount.Discount) => Discount.Discount) =>
      Effect.forEach(session.discounts, (applied) =>
        Effect.gen(function*() {
          const found = yield* discountRepo.lock({ accountId: session.account_id, livemode: session.livemode }, applied.discount_id)
          if (Option.isNone(found)) {
            return yield* new Discount.DiscountNotRedeemable({ discount_code: applied.code, reason: "unknown" })
          }
          const redeemable = yield* Discount.redeemable(found.value, applied.code, now, CheckoutSession.productIdsOf(session))
          yield* discountRepo.update(use(redeemable))
        }), { discard: true })

    /** Reserves the session for one charge: a `processing` payment, recorded with the customer. */
    const reserve = (id: CheckoutSessionId, formToken: string, form: CheckoutForm.ValidCheckoutForm) =>
      transactions.transact(Effect.gen(function*() {
        const now = yield* DateTime.now
        const session = yield* lockPayable(id, formToken, now)
        if (yield* paymentRepo.hasProcessing(session.session_id)) {
          return yield* new InvalidState({ message: "A payment for this checkout is already being processed." })
        }
        // Each holds a use for this charge, counted if it succeeds (`ChargeOutcomes`).
        yield* redeemCodes(session, now, Discount.hold)
        const customer = yield* customerOf(session, form)
        const payment = Payment.open({
          paymentId: yield* newId<PaymentId>(prefixes.payment),
          accountId: session.account_id,
          livemode: session.livemode,
          amount: session.total_amount,
          currency: session.currency,
          description: describe(session),
          customer: {
            customer_id: customer.customer_id,
            name: customer.name,
            email: customer.email,
            phone_number: customer.phone_number
          },
          checkoutSessionId: session.session_id,
          subscriptionId: null,
          billingReason: session.kind === "subscription" ? "subscription_create" : "payment",
          metadata: session.metadata,
          card: null,
          taxLines: session.tax_lines,
          discounts: session.discounts
        }, now)
        yield* paymentRepo.insert(payment)
        // The session takes its payer when a charge succeeds (`Complete`): a declined try's details stay that try's.
        return { session, payment }
      }))

    /**
     * A free trial: the card is saved through the processor (its issuer verifies it; nothing is charged), then one
     * transaction starts the subscription in its trial and completes the session, with `subscription.active`. A
     * card the issuer refuses, or a processor that cannot be reached (the save is simply asked again), changes
     * nothing.
     */
    const startTrial = (shown: CheckoutSession.CheckoutSession, formToken: string, form: CheckoutForm.ValidCheckoutForm) =>
      Effect.gen(function*() {
        const saved = yield* processor.saveCard(form.card, { livemode: shown.livemode }).pipe(
          Effect.catchTag("ProcessorUnavailable", () => Effect.succeed({ _tag: "Refused", code: "processing_error" } as const))
        )
        if (saved._tag === "Refused") return { _tag: "Refused", session: shown, code: saved.code } satisfies PayResult
        return yield* transactions.transact(Effect.gen(function*() {
          const now = yield* DateTime.now
          const session = yield* lockPayable(shown.session_id, formToken, now)
          // Counted now: there is no charge to wait for.
          yield* redeemCodes(session, now, Discount.redeem)
          const customer = yield* customerOf(session, form)
          const started = yield* startFromSession({ products: productRepo }, session, {
            customer: { customer_id: customer.customer_id, name: customer.name, email: customer.email },
            card: saved.card,
            at: now,
            firstLines: null,
            discounts: session.discounts
          })
          if (started === undefined) {
            return yield* new InvalidState({ message: "This subscription's product is no longer available." })
          }
          const completed = yield* CheckoutSession.transition(session, {
            _tag: "Complete",
            paymentId: null,
            subscriptionId: started.next.subscription_id,
            payer: customer
          }, now)
          yield* subscriptionRepo.insert(started.next)
          yield* sessionRepo.update(completed)
          yield* recorder.record(transitionEvents(started))
          return { _tag: "Started", session: completed, subscription: started.next } satisfies PayResult
        }))
      })

    /**
     * Asks the processor about the session's payments still `processing` and records each definite answer (a charge
     * taken or refused; recording one twice changes nothing). Nothing under a reference is an answer too (the port
     * closes the reference: nothing can be taken under it any more), but only for a payment a few seconds old, so
     * that a double click does not void the charge its first click is making. The session paid now, the paid
     * result; otherwise `undefined`.
     */
    const resolveInFlight = (session: CheckoutSession.CheckoutSession) =>
      Effect.gen(function*() {
        const scope = { accountId: session.account_id, livemode: session.livemode }
        const inFlight = yield* paymentRepo.list(scope, { status: "processing", checkout_session_id: session.session_id }, {
          limit: 10,
          after: undefined
        })
        const now = yield* DateTime.now
        for (const payment of inFlight.items) {
          if (DateTime.distance(payment.created_at, now) < judgeNothingAfterMillis) continue
          const answer = yield* processor.lookup(payment.payment_id).pipe(
            Effect.map(lookedUpCharge),
            Effect.catchTag("ProcessorUnavailable", () => Effect.succeed(undefined))
          )
          if (answer === undefined || answer.outcome._tag === "Processing") continue
          const recorded = yield* outcomes.recordOne(payment.payment_id, answer)
          if (recorded.status === "succeeded") {
            const after = yield* sessionRepo.find(session.session_id)
            return { _tag: "Paid", session: Option.getOrElse(after, () => session), payment: recorded } satisfies PayResult
          }
        }
        return undefined
      })

    /**
     * Charges a reserved payment on the card typed in the form, under the payment's id, and records the outcome;
     * still unknown, the payment stays `processing` for the lookup pass (the card number is never needed again).
     */
    const chargeCard = (payment: Payment.Payment, card: CardDetails) =>
      callProcessor(Effect.map(
        processor.chargeCard(
          { reference: payment.payment_id, amount: payment.total_amount, currency: payment.currency, livemode: payment.livemode },
          card
        ),
        (r): ChargeReport => ({ outcome: r.outcome, chargeId: r.chargeId, card: r.card })
      ))({
        lookup: Effect.map(processor.lookup(payment.payment_id), lookedUpCharge),
        record: (answer) => outcomes.recordOne(payment.payment_id, answer),
        unknown: Effect.succeed(payment),
        what: "A checkout charge",
        ids: { payment_id: payment.payment_id }
      })

    /**
     * The customer submits the page's form. Invalid input changes nothing; a decline leaves the session open with
     * a `failed` payment (and its `payment.failed` event); success completes the session.
     */
    const payNow = Effect.fn("Checkout.pay")(
      function*(id: CheckoutSessionId, formToken: string, input: CheckoutForm.CheckoutFormInput) {
        const now = yield* DateTime.now
        // A forged or stale form, or a session that can no longer be paid, is refused before its fields are read.
        const { session: shown } = yield* page(id)
        yield* CheckoutSession.ensurePayable(shown, now)
        if (!(yield* signer.sameSecret(formToken, shown.form_token))) return yield* staleForm
        const validated = CheckoutForm.validate(input, now, shown.customer ?? undefined)
        if (Either.isLeft(validated)) return { _tag: "Invalid", session: shown, errors: validated.left } satisfies PayResult
        if (CheckoutSession.isFreeTrial(shown)) return yield* startTrial(shown, formToken, validated.right)
        // A charge still `processing` may be one whose answer was lost (a failover between the processor's answer
        // and our record): what the processor says of it is recorded now, so the customer's retry sees the paid
        // session (or, the charge refused, may pay again) instead of waiting for the lookup pass.
        if (yield* paymentRepo.hasProcessing(id)) {
          const settled = yield* resolveInFlight(shown)
          if (settled !== undefined) return settled
        }
        const { recorded, session } = yield* reserveThenCall(reserve(id, formToken, validated.right), ({ payment, session }) =>
          Effect.map(chargeCard(payment, validated.right.card), (recorded) => ({ recorded, session })))

        const after = yield* sessionRepo.find(id)
        return {
          _tag: "Paid",
          session: Option.getOrElse(after, () => session),
          payment: recorded
        } satisfies PayResult
      }
    )

    /** `payNow` on the time the session lives on. */
    const pay = (id: CheckoutSessionId, formToken: string, input: CheckoutForm.CheckoutFormInput) =>
      onTimeOfSession(id)(payNow(id, formToken, input))

    /**
     * The customer types a discount code on the hosted page (an empty one takes the session's code off): the session
     * is priced again with it, from the prices it was created with. A code that cannot be redeemed for its cart is
     * refused with the reason, and the session stays as it was; so does one with a charge in progress.
     */
    const applyCode = (id: CheckoutSessionId, formToken: string, typed: string) =>
      onTimeOfSession(id)(applyCodeNow(id, formToken, typed))
    /** `applyCode`'s work, on the time it is run on. */
    const applyCodeNow = Effect.fn("Checkout.applyCode")(function*(id: CheckoutSessionId, formToken: string, typed: string) {
      return yield* transactions.transact(Effect.gen(function*() {
        const now = yield* DateTime.now
        const found = yield* sessionRepo.lock(id)
        if (Option.isNone(found)) return yield* notFound("checkout session", id)
        const session = yield* CheckoutSession.ensurePayable(found.value, now)
        if (!(yield* signer.sameSecret(formToken, session.form_token))) return yield* staleForm
        if (yield* paymentRepo.hasProcessing(session.session_id)) {
          return yield* new InvalidState({ message: "A payment for this checkout is already being processed." })
        }
        const scope = { accountId: session.account_id, livemode: session.livemode }
        const discount = typed.trim() === ""
          ? null
          : yield* redeemableCode(discountRepo, scope, typed, CheckoutSession.productIdsOf(session))
        const next = CheckoutSession.withDiscount(session, discount)
        yield* sessionRepo.update(next)
        return next
      }))
    })

    /**
     * The payer's key to the session's receipt (docs/checkout.md "The paid page"), given to the browser whose
     * submission paid it (it sent the form's token): a new random key, whose digest replaces the form token. The
     * form's old token (which anyone who saw the open page had) opens nothing; the digest on a form still shown
     * (a charge still processing) cannot be turned back into the key. None for a token that is not the form's.
     */
    const bindReceipt = Effect.fn("Checkout.bindReceipt")(function*(id: CheckoutSessionId, formToken: string) {
      return yield* transactions.transact(Effect.gen(function*() {
        const found = yield* sessionRepo.lock(id)
        if (Option.isNone(found) || !(yield* signer.sameSecret(formToken, found.value.form_token))) return Option.none<string>()
        const key = yield* signer.randomToken(24)
        yield* sessionRepo.update({ ...found.value, form_token: yield* signer.digest(key) })
        return Option.some(key)
      }))
    })

    /** Whether `key` (from the browser's cookie) is the one `bindReceipt` gave for `session`. */
    const ownsReceipt = (session: CheckoutSession.CheckoutSession, key: string | undefined) =>
      key === undefined || key === ""
        ? Effect.succeed(false)
        : Effect.flatMap(signer.digest(key), (digest) => signer.sameSecret(digest, session.form_token))

    /** Marks open sessions past their expiry as `expired` (they already read so); returns how many. */
    const expireDue = Effect.fn("Checkout.expireDue")(function*(limit = 500, livemode?: boolean, clock?: TestClockId) {
      return yield* transactions.transact(Effect.gen(function*() {
        const now = yield* DateTime.now
        const due = yield* sessionRepo.claimExpired(now, limit, livemode, clock)
        for (const session of due) {
          const expired = CheckoutSession.transition(session, { _tag: "Expire" }, now)
          if (Either.isRight(expired)) yield* sessionRepo.update(expired.right)
        }
        return due.length
      }))
    })

    return { create, get, list, page, receipt, pay, applyCode, bindReceipt, ownsReceipt, expireDue, livePaymentsEnabled } as const
  }),
  dependencies: [Customers.Default, ChargeOutcomes.Default, EventRecorder.Default, ClockTime.Default]
}) {}
