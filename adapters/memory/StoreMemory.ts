/**
 * The Store port in memory: the fast adapter for embedding teams' tests and single-process tools. It keeps the
 * same contract as PostgreSQL (the shared contract suite runs against both): transactions are serialized by one
 * lock and undone on failure, so a failed use case leaves nothing behind.
 */
import { DateTime, Effect, Exit, FiberRef, Option, PubSub, Stream } from "effect"
import { type Account, type ApiKey, inScope, type Scope } from "../../src/domain/Account.js"
import * as CheckoutSession from "../../src/domain/CheckoutSession.js"
import * as Customer from "../../src/domain/Customer.js"
import type { Discount } from "../../src/domain/Discount.js"
import * as Event from "../../src/domain/Event.js"
import * as Idempotency from "../../src/domain/Idempotency.js"
import type { ApiKeyId, CustomerId, TestClockId } from "../../src/domain/Ids.js"
import * as Payment from "../../src/domain/Payment.js"
import type { PortalSession } from "../../src/domain/PortalSession.js"
import * as Product from "../../src/domain/Product.js"
import * as RateWindow from "../../src/domain/RateWindow.js"
import * as Refund from "../../src/domain/Refund.js"
import * as RequestLog from "../../src/domain/RequestLog.js"
import * as Subscription from "../../src/domain/Subscription.js"
import { type CreditNote, idOf as documentIdOf, type Invoice } from "../../src/domain/TaxDocument.js"
import * as TestClock from "../../src/domain/TestClock.js"
import { defaultTimeZone, isTimeZone, localDay } from "../../src/domain/TimeZone.js"
import {
  type IdempotencyCompletion,
  layerStore,
  type MonthlyRevenueDay,
  type RenewalAttempt,
  type StoreShape
} from "../../src/ports/Store.js"
import { makeDiscountsMemory } from "./DiscountsMemory.js"
import { makeDocumentsMemory } from "./DocumentsMemory.js"
import { makeEInvoicesMemory, type TransmissionRow } from "./EInvoicesMemory.js"
import { oldestFirst, oldestSince, page, scoped, Table, type Undo } from "./Table.js"
import { makeUsersMemory } from "./UsersMemory.js"
import { makeWebhooksMemory } from "./WebhooksMemory.js"

export const makeStoreMemory: Effect.Effect<StoreShape> = Effect.gen(function*() {
  const lock = yield* Effect.makeSemaphore(1)
  // Every user of this store hears of a revocation (one store may serve several engines, as in tests).
  const revocations = yield* PubSub.unbounded<ApiKeyId>()
  // The undo log of the transaction the current fiber runs in, if any.
  const current = FiberRef.unsafeMake<Array<Undo> | undefined>(undefined)
  let log: Array<Undo> | undefined

  // Writes run synchronously while the lock is held, so the log being filled is always that of the holder.
  const record = (undo: Undo) => log?.push(undo)
  const accounts = new Table<Account>(record)
  const apiKeys = new Table<ApiKey>(record)
  const keyHashes = new Table<string>(record)
  const keyUsage = new Map<string, DateTime.Utc>()
  const products = new Table<Product.Product>(record)
  const customers = new Table<Customer.Customer>(record)
  const sessions = new Table<CheckoutSession.CheckoutSession>(record)
  const payments = new Table<Payment.Payment>(record)
  const refunds = new Table<Refund.Refund>(record)
  const portalSessions = new Table<PortalSession>(record)
  const portalBy = (match: (s: PortalSession) => boolean) => {
    for (const s of portalSessions.rows.values()) if (match(s)) return Option.some(s)
    return Option.none<PortalSession>()
  }
  const events = new Table<Event.Event>(record)
  // Written outside transactions, a batch at a time, as the SQL store's single statements.
  const requestLogs = new Map<string, RequestLog.RequestLog>()
  const subscriptions = new Table<Subscription.Subscription>(record)
  /** Monthly recurring revenue by day, keyed `account|livemode|day`. */
  const monthlyRevenueDays = new Table<MonthlyRevenueDay & { readonly scope: Scope; readonly at: DateTime.Utc }>(record)
  const attempts = new Table<RenewalAttempt>(record)
  const attemptId = (a: { readonly subscription_id: string; readonly period: number; readonly attempt: number }) =>
    `${a.subscription_id}:${a.period}:${a.attempt}`
  /** The uniqueness rule on (subscription, period, attempt): false when it was recorded before. */
  const recordRenewalAttempt = (attempt: RenewalAttempt) => {
    const id = attemptId(attempt)
    if (attempts.get(id) !== undefined) return false
    attempts.set(id, attempt)
    return true
  }
  /** Whether a due subscription is one to claim: its due attempt not recorded, and no plan change awaits a charge. */
  const claimable = (s: Subscription.Subscription) =>
    s.pending_change === null &&
    attempts.get(attemptId({ subscription_id: s.subscription_id, ...Subscription.dueAttempt(s) })) === undefined
  /** Test events (`insertTest`): delivered, never listed. */
  const testEvents = new Table<true>(record)
  const ofMode = (livemode: boolean | undefined) => (row: { readonly livemode: boolean }) =>
    livemode === undefined || row.livemode === livemode
  const processingFor = (sessionId: string) => {
    for (const p of payments.rows.values()) {
      if (p.checkout_session_id === sessionId && p.status === "processing") return true
    }
    return false
  }


  const documents = new Table<Invoice | CreditNote>(record)
  const documentNumbers = new Table<number>(record)
  const einvoices = new Table<TransmissionRow>(record)
  const discounts = new Table<Discount>(record)
  const testClocks = new Table<TestClock.TestClock>(record)
  /** The test clock an object of this customer lives on (the SQL store keeps it on the object's row, migration 0025). */
  const clockOf = (livemode: boolean, customerId: CustomerId | null | undefined) =>
    livemode || customerId === null || customerId === undefined ? null : customers.get(customerId)?.test_clock_id ?? null
  /** Work of test clock `clock` when given; else work on the real time (no clock). */
  const onClock = (clock: TestClockId | undefined, livemode: boolean, customerId: CustomerId | null | undefined) =>
    clockOf(livemode, customerId) === (clock ?? null)
  const idempotency = new Table<Idempotency.IdempotencyRecord>(record)
  const rates = new Table<RateWindow.RateWindowState>(record)

  /** A write: joins the running transaction, or takes the lock for itself. */
  const write = <A>(f: () => A): Effect.Effect<A> =>
    Effect.flatMap(FiberRef.get(current), (own) =>
      own !== undefined
        ? Effect.sync(() => {
          log = own
          return f()
        })
        : lock.withPermits(1)(Effect.sync(() => {
          log = undefined
          return f()
        })))

  const read = <A>(f: () => A): Effect.Effect<A> => Effect.sync(f)

  /**
   * A write of one idempotency record or rate-limit bucket, the SQL store's single-row statements: inside a
   * transaction it joins it (undone with it); outside, it takes no store-wide lock, as PostgreSQL locks only the
   * row. So a request's rate limit and key claim never wait for another request's commit, which writes
   * its objects in a transaction with its key's answer (see `IdempotencyService`). Synchronous, so it is atomic all the same.
   */
  const rowWrite = <A>(f: () => A): Effect.Effect<A> =>
    Effect.flatMap(FiberRef.get(current), (own) =>
      Effect.sync(() => {
        log = own
        return f()
      }))

  const transact: StoreShape["transact"] = (effect) =>
    Effect.flatMap(FiberRef.get(current), (own) =>
      own !== undefined
        ? effect
        : lock.withPermits(1)(Effect.suspend(() => {
          const undo: Array<Undo> = []
          return Effect.locally(effect, current, undo).pipe(
            Effect.onExit((exit) =>
              Exit.isSuccess(exit)
                ? Effect.void
                : Effect.sync(() => {
                  log = undefined
                  for (let i = undo.length - 1; i >= 0; i--) undo[i]!()
                })
            )
          )
        })))

  /** The rows of `ids` that exist, each once, ordered by id (as the SQL store returns them). */
  const byId = <Id extends string, A>(ids: ReadonlyArray<Id>, get: (id: Id) => A | undefined): ReadonlyArray<A> =>
    [...new Set(ids)].sort().flatMap((id) => {
      const row = get(id)
      return row === undefined ? [] : [row]
    })

  const idemId = (scope: string, key: string) => `${scope}\u0000${key}`

  const claim = (record: Idempotency.IdempotencyRecord, now: DateTime.Utc): Idempotency.Claim => {
    const id = idemId(record.scope, record.key)
    const existing = idempotency.get(id)
    if (Idempotency.canClaim(existing, record.fingerprint, now)) {
      idempotency.set(id, record)
      return { _tag: "Claimed" }
    }
    return { _tag: "Existing", record: existing! }
  }

  /** The response goes on the record only while it still holds the same request (fingerprint). */
  const complete = ({ fingerprint, key, response, scope }: IdempotencyCompletion) => {
    const id = idemId(scope, key)
    const existing = idempotency.get(id)
    if (existing !== undefined && existing.fingerprint === fingerprint) idempotency.set(id, { ...existing, response })
  }

  const webhookRepos = makeWebhooksMemory(record, { read, write }, { events, testEvents })

  const store: StoreShape = {
    transact,
    inTransaction: Effect.map(FiberRef.get(current), (own) => own !== undefined),
    ping: Effect.void,
    accounts: {
      insert: (account) => write(() => accounts.set(account.account_id, account)),
      get: (id) => read(() => Option.fromNullable(accounts.get(id))),
      findAll: (ids) => read(() => byId(ids, (id) => accounts.get(id))),
      lock: (id) => read(() => Option.fromNullable(accounts.get(id))),
      update: (account) => write(() => accounts.set(account.account_id, account)),
      // Days are counted when read (`payments.summary`): nothing to count again. Memory knows the runtime's zones.
      setTimeZone: (id, zone) =>
        write(() => {
          if (!isTimeZone(zone)) return false
          const account = accounts.get(id)
          if (account !== undefined) accounts.set(id, { ...account, time_zone: zone })
          return true
        }),
      count: read(() => accounts.rows.size),
      list: read(() =>
        [...accounts.rows.values()].sort((a, b) =>
          DateTime.toEpochMillis(a.created_at) - DateTime.toEpochMillis(b.created_at) ||
          a.account_id.localeCompare(b.account_id)
        )
      )
    },
    apiKeys: {
      insert: (key) =>
        write(() => {
          apiKeys.set(key.key_id, key)
          keyHashes.set(key.hash, key.key_id)
        }),
      findByHash: (hash) =>
        read(() => {
          const id = keyHashes.get(hash)
          return Option.fromNullable(id === undefined ? undefined : apiKeys.get(id))
        }),
      get: (id) => read(() => Option.fromNullable(apiKeys.get(id))),
      list: (scope) =>
        read(() =>
          oldestFirst(apiKeys.rows.values(), (k) => inScope(k, scope), (k) => k.created_at, (k) => k.key_id).reverse()
        ),
      // Bookkeeping outside transactions (as the SQL store's own table): kept when later than what is recorded.
      touch: (id, at) =>
        Effect.sync(() => {
          const before = keyUsage.get(id)
          if (apiKeys.get(id) !== undefined && (before === undefined || DateTime.lessThan(before, at))) keyUsage.set(id, at)
        }),
      lastUsed: (ids) =>
        read(() => ids.flatMap((key_id) => {
          const last_used_at = keyUsage.get(key_id)
          return last_used_at === undefined ? [] : [{ key_id, last_used_at }]
        })),
      revoke: (id, at) =>
        write(() => {
          const key = apiKeys.get(id)
          if (key === undefined) return Option.none()
          if (key.revoked_at !== null) return Option.some(key)
          const revoked = { ...key, revoked_at: at }
          apiKeys.set(id, revoked)
          revocations.unsafeOffer(id)
          return Option.some(revoked)
        }),
      revocations: Stream.fromPubSub(revocations)
    },
    products: {
      insert: (product) => write(() => products.set(product.product_id, product)),
      insertAll: (batch) => write(() => batch.forEach((product) => products.set(product.product_id, product))),
      get: (scope, id) => read(() => scoped(products.get(id), scope)),
      lock: (scope, id) => read(() => scoped(products.get(id), scope)),
      getAll: (scope, ids) =>
        read(() => byId(ids, (id) => products.get(id)).filter((p) => inScope(p, scope))),
      findAll: (ids) => read(() => byId(ids, (id) => products.get(id))),
      update: (product) => write(() => products.set(product.product_id, product)),
      list: (scope, filter, request) =>
        read(() =>
          page(products.rows.values(), (p) => inScope(p, scope) && Product.matches(p, filter), Product.position, request)
        )
    },
    customers: {
      insert: (customer) => write(() => customers.set(customer.customer_id, customer)),
      get: (scope, id) => read(() => scoped(customers.get(id), scope)),
      lock: (scope, id) => read(() => scoped(customers.get(id), scope)),
      update: (customer) => write(() => customers.set(customer.customer_id, customer)),
      list: (scope, filter, request) =>
        read(() =>
          page(
            customers.rows.values(),
            (c) => inScope(c, scope) && (filter.email === undefined || Customer.emailKey(c.email) === Customer.emailKey(filter.email)),
            Customer.position,
            request
          )
        ),
      findByEmail: (scope, email) =>
        read(() => {
          const key = Customer.emailKey(email)
          const found = page(customers.rows.values(), (c) => inScope(c, scope) && c.test_clock_id === null && Customer.emailKey(c.email) === key, Customer.position, {
            limit: 1,
            after: undefined
          })
          return Option.fromNullable(found.items[0])
        })
    },
    sessions: {
      insert: (session) => write(() => sessions.set(session.session_id, session)),
      insertAll: (batch) => write(() => batch.forEach((session) => sessions.set(session.session_id, session))),
      get: (scope, id) => read(() => scoped(sessions.get(id), scope)),
      list: (scope, request) =>
        read(() => page(sessions.rows.values(), (s) => inScope(s, scope), CheckoutSession.position, request)),
      find: (id) => read(() => Option.fromNullable(sessions.get(id))),
      lock: (id) => read(() => Option.fromNullable(sessions.get(id))),
      update: (session) => write(() => sessions.set(session.session_id, session)),
      claimExpired: (now, limit, livemode, clock) =>
        read(() =>
          oldestFirst(
            sessions.rows.values(),
            (c) =>
              c.status === "open" && DateTime.lessThanOrEqualTo(c.expires_at, now) && ofMode(livemode)(c) &&
              onClock(clock, c.livemode, c.customer_id) && !processingFor(c.session_id),
            (c) => c.expires_at,
            (c) => c.session_id
          ).slice(0, limit)
        )
    },
    payments: {
      insert: (payment) => write(() => payments.set(payment.payment_id, payment)),
      insertAll: (batch) => write(() => batch.forEach((payment) => payments.set(payment.payment_id, payment))),
      get: (scope, id) => read(() => scoped(payments.get(id), scope)),
      find: (id) => read(() => Option.fromNullable(payments.get(id))),
      lock: (id) => read(() => Option.fromNullable(payments.get(id))),
      findAll: (ids) => read(() => byId(ids, (id) => payments.get(id))),
      lockAll: (ids) => read(() => byId(ids, (id) => payments.get(id))),
      update: (payment) => write(() => payments.set(payment.payment_id, payment)),
      updateAll: (batch) => write(() => batch.forEach((payment) => payments.set(payment.payment_id, payment))),
      list: (scope, filter, request) =>
        read(() =>
          page(
            payments.rows.values(),
            (p) =>
              inScope(p, scope) &&
              (filter.status === undefined || p.status === filter.status) &&
              (filter.customer_id === undefined || p.customer?.customer_id === filter.customer_id) &&
              (filter.checkout_session_id === undefined || p.checkout_session_id === filter.checkout_session_id) &&
              (filter.subscription_id === undefined || p.subscription_id === filter.subscription_id) &&
              (filter.created_from === undefined || !DateTime.lessThan(p.created_at, filter.created_from)) &&
              (filter.created_before === undefined || DateTime.lessThan(p.created_at, filter.created_before)) &&
              (filter.amount === undefined || p.total_amount === filter.amount) &&
              (filter.card_last4 === undefined || p.card?.last4 === filter.card_last4),
            Payment.position,
            request
          )
        ),
      newestOfSubscriptions: (subscriptions, limit) =>
        read(() =>
          subscriptions.flatMap(({ scope, subscriptionId }) =>
            page(
              payments.rows.values(),
              (p) => inScope(p, scope) && p.subscription_id === subscriptionId,
              Payment.position,
              { limit, after: undefined }
            ).items
          )
        ),
      hasProcessing: (sessionId) => read(() => processingFor(sessionId)),
      listProcessing: (limit, livemode, clock) =>
        read(() =>
          oldestFirst(
            payments.rows.values(),
            (p) => p.status === "processing" && ofMode(livemode)(p) && onClock(clock, p.livemode, p.customer?.customer_id),
            (p) => p.created_at,
            (p) => p.payment_id
          ).slice(0, limit)
        ),
      since: (since, after, limit) =>
        read(() => oldestSince(payments.rows.values(), since, after, (p) => p.payment_id).slice(0, limit)),
      summary: (scope, since) =>
        read(() => {
          const zone = accounts.get(scope.accountId)?.time_zone ?? defaultTimeZone
          const summary = { gross: 0, fees: 0, refunded: 0, succeeded: 0, failed: 0 }
          const daily = new Map<string, number>()
          for (const p of payments.rows.values()) {
            if (!inScope(p, scope)) continue
            const day = localDay(p.created_at, zone)
            if (day < since) continue
            if (p.status === "failed") summary.failed++
            if (p.status !== "succeeded" && p.status !== "partially_refunded" && p.status !== "refunded") continue
            summary.succeeded++
            summary.gross += p.total_amount
            summary.fees += p.fee_amount
            summary.refunded += p.refunded_amount
            daily.set(day, (daily.get(day) ?? 0) + p.total_amount)
          }
          return { ...summary, daily: [...daily].sort(([a], [b]) => (a < b ? -1 : 1)).map(([day, gross]) => ({ day, gross })) }
        })
    },
    dashboard: makeUsersMemory(record, { read, write }),
    portalSessions: {
      insert: (session) => write(() => portalSessions.set(session.customer_portal_session_id, session)),
      get: (scope, id) => read(() => scoped(portalSessions.get(id), scope)),
      findByToken: (tokenHash) => read(() => portalBy((s) => s.token_hash === tokenHash)),
      findByCookie: (cookieHash) => read(() => portalBy((s) => s.cookie_hash === cookieHash)),
      markOpened: (session) =>
        write(() => {
          const current = portalSessions.get(session.customer_portal_session_id)
          if (current === undefined || current.opened_at !== null || session.opened_at === null) return false
          portalSessions.set(session.customer_portal_session_id, session)
          return true
        }),
      endBrowsing: (id, at) =>
        write(() => {
          const current = portalSessions.get(id)
          if (current?.session_expires_at == null || !DateTime.lessThan(at, current.session_expires_at)) return
          portalSessions.set(id, { ...current, session_expires_at: at })
        })
    },
    refunds: {
      insert: (refund) => write(() => refunds.set(refund.refund_id, refund)),
      update: (refund) => write(() => refunds.set(refund.refund_id, refund)),
      find: (id) => read(() => Option.fromNullable(refunds.get(id))),
      lock: (id) => read(() => Option.fromNullable(refunds.get(id))),
      ofPayment: (id) =>
        read(() => oldestFirst(refunds.rows.values(), (r) => r.payment_id === id, (r) => r.created_at, (r) => r.refund_id)),
      listPending: (limit) =>
        read(() =>
          oldestFirst(refunds.rows.values(), (r) => r.status === "pending", (r) => r.created_at, (r) => r.refund_id)
            .slice(0, limit)
        ),
      since: (since, after, limit) =>
        read(() => oldestSince(refunds.rows.values(), since, after, (r) => r.refund_id).slice(0, limit)),
      list: (scope, filter, request) =>
        read(() =>
          page(
            refunds.rows.values(),
            (r) =>
              inScope(r, scope) &&
              (filter.created_from === undefined || !DateTime.lessThan(r.created_at, filter.created_from)) &&
              (filter.created_before === undefined || DateTime.lessThan(r.created_at, filter.created_before)),
            Refund.position,
            request
          )
        )
    },
    documents: makeDocumentsMemory({ documents, numbers: documentNumbers }, { read, write }),
    events: {
      insert: (event) => write(() => events.set(event.event_id, event)),
      insertAll: (batch) => write(() => batch.forEach((event) => events.set(event.event_id, event))),
      insertTest: (event) =>
        write(() => {
          events.set(event.event_id, event)
          testEvents.set(event.event_id, true)
          return event
        }),
      get: (scope, id) => read(() => testEvents.get(id) === undefined ? scoped(events.get(id), scope) : Option.none()),
      list: (scope, filter, request) =>
        read(() =>
          page(
            events.rows.values(),
            (e) => {
              if (testEvents.get(e.event_id) !== undefined) return false
              if (!inScope(e, scope) || (filter.type !== undefined && e.type !== filter.type)) return false
              if (filter.request_id !== undefined && e.request_id !== filter.request_id) return false
              if (filter.payment_id === undefined && filter.subscription_id === undefined) return true
              const about = Event.subjects(e)
              return (filter.payment_id === undefined || about.payment_id === filter.payment_id) &&
                (filter.subscription_id === undefined || about.subscription_id === filter.subscription_id)
            },
            Event.position,
            request
          )
        )
    },
    subscriptions: {
      insert: (subscription) => write(() => subscriptions.set(subscription.subscription_id, subscription)),
      get: (scope, id) => read(() => scoped(subscriptions.get(id), scope)),
      find: (id) => read(() => Option.fromNullable(subscriptions.get(id))),
      lock: (id) => read(() => Option.fromNullable(subscriptions.get(id))),
      findAll: (ids) => read(() => byId(ids, (id) => subscriptions.get(id))),
      lockAll: (ids) => read(() => byId(ids, (id) => subscriptions.get(id))),
      update: (subscription) => write(() => subscriptions.set(subscription.subscription_id, subscription)),
      updateAll: (batch) => write(() => batch.forEach((s) => subscriptions.set(s.subscription_id, s))),
      list: (scope, filter, request) =>
        read(() =>
          page(
            subscriptions.rows.values(),
            (s) =>
              inScope(s, scope) &&
              (filter.status === undefined || s.status === filter.status) &&
              (filter.customer_id === undefined || s.customer.customer_id === filter.customer_id),
            Subscription.position,
            request
          )
        ),
      countCreated: (scope, from, before) =>
        read(() => {
          let n = 0
          for (const s of subscriptions.rows.values()) {
            if (inScope(s, scope) && !DateTime.lessThan(s.created_at, from) && DateTime.lessThan(s.created_at, before)) n++
          }
          return n
        }),
      recurring: (scope) =>
        read(() => {
          const groups = new Map<string, { billing_interval: Subscription.Subscription["billing_interval"]; interval_count: number; subscriptions: number; amount: number }>()
          for (const sub of subscriptions.rows.values()) {
            if (!inScope(sub, scope) || !Subscription.inRecurringRevenue(sub)) continue
            const key = `${sub.billing_interval}:${sub.interval_count}`
            const group = groups.get(key) ?? { billing_interval: sub.billing_interval, interval_count: sub.interval_count, subscriptions: 0, amount: 0 }
            group.subscriptions++
            group.amount += Subscription.periodRevenue(sub)
            groups.set(key, group)
          }
          return [...groups.values()].sort((a, b) =>
            a.billing_interval < b.billing_interval ? -1 : a.billing_interval > b.billing_interval ? 1 : a.interval_count - b.interval_count
          )
        }),
      recordMonthlyRevenue: (scope, reading, at) =>
        rowWrite(() => {
          const key = `${scope.accountId}|${scope.livemode}|${reading.day}`
          const stored = monthlyRevenueDays.get(key)
          if (stored === undefined || !DateTime.lessThan(at, stored.at)) monthlyRevenueDays.set(key, { ...reading, scope, at })
        }),
      monthlyRevenueOn: (scope, day) =>
        read(() => {
          let found: MonthlyRevenueDay | undefined
          for (const r of monthlyRevenueDays.rows.values()) {
            if (r.scope.accountId !== scope.accountId || r.scope.livemode !== scope.livemode || r.day > day) continue
            if (found === undefined || r.day > found.day) found = r
          }
          return found === undefined ? Option.none() : Option.some({ day: found.day, mrr: found.mrr, subscriptions: found.subscriptions })
        }),
      claimDue: (now, limit, livemode, clock) =>
        read(() =>
          oldestFirst(
            subscriptions.rows.values(),
            (s) => {
              const due = Subscription.dueAt(s)
              return due !== null && DateTime.lessThanOrEqualTo(due, now) && ofMode(livemode)(s) &&
                onClock(clock, s.livemode, s.customer.customer_id) && claimable(s)
            },
            (s) => Subscription.dueAt(s)!,
            (s) => s.subscription_id
          ).slice(0, limit)
        ),
      recordAttempt: (attempt) => write(() => recordRenewalAttempt(attempt)),
      recordAttempts: (batch) => write(() => batch.map(recordRenewalAttempt)),
      attempts: (id) =>
        read(() =>
          [...attempts.rows.values()]
            .filter((a) => a.subscription_id === id)
            .sort((a, b) => a.period - b.period || a.attempt - b.attempt)
        )
    },
    webhooks: webhookRepos.webhooks,
    deliveries: webhookRepos.deliveries,
    einvoices: makeEInvoicesMemory(einvoices, { read, write }),
    testClocks: {
      insert: (clock) => write(() => testClocks.set(clock.test_clock_id, clock)),
      get: (scope, id) => read(() => scoped(testClocks.get(id), scope)),
      lock: (scope, id) => read(() => scoped(testClocks.get(id), scope)),
      update: (clock) => write(() => testClocks.set(clock.test_clock_id, clock)),
      list: (scope, request) =>
        read(() => page(testClocks.rows.values(), (c) => inScope(c, scope), TestClock.position, request)),
      ofCustomers: (ids) =>
        read(() =>
          ids.flatMap((customer_id) => {
            const clockId = customers.get(customer_id)?.test_clock_id ?? null
            const clock = clockId === null ? undefined : testClocks.get(clockId)
            return clock === undefined ? [] : [{ customer_id, clock }]
          })
        ),
      plans: (id) =>
        read(() => {
          const plans = new Map<string, TestClock.Plan>()
          for (const s of subscriptions.rows.values()) {
            if (s.status === "cancelled" || clockOf(s.livemode, s.customer.customer_id) !== id) continue
            plans.set(`${s.billing_interval}:${s.interval_count}`, { billing_interval: s.billing_interval, interval_count: s.interval_count })
          }
          return [...plans.values()]
        }),
      nextDue: (id) =>
        read(() => {
          let next: DateTime.Utc | undefined
          const consider = (at: DateTime.Utc) => {
            if (next === undefined || DateTime.lessThan(at, next)) next = at
          }
          for (const s of subscriptions.rows.values()) {
            const due = Subscription.dueAt(s)
            if (due !== null && clockOf(s.livemode, s.customer.customer_id) === id && claimable(s)) consider(due)
          }
          for (const c of sessions.rows.values()) {
            if (c.status === "open" && clockOf(c.livemode, c.customer_id) === id && !processingFor(c.session_id)) consider(c.expires_at)
          }
          return Option.fromNullable(next)
        }),
      delete: (scope, id) =>
        write(() => {
          if (Option.isNone(scoped(testClocks.get(id), scope))) return false
          const attached = new Set<string>()
          for (const c of customers.rows.values()) if (c.test_clock_id === id) attached.add(c.customer_id)
          const ofThem = (customerId: string | null | undefined) => customerId !== null && customerId !== undefined && attached.has(customerId)
          const paymentIds = new Set([...payments.rows.values()].filter((p) => ofThem(p.customer?.customer_id)).map((p) => p.payment_id))
          for (const d of [...documents.rows.values()]) {
            if (!paymentIds.has(d.payment_id)) continue
            documents.delete(documentIdOf(d))
            einvoices.delete(documentIdOf(d))
          }
          for (const r of [...refunds.rows.values()]) if (paymentIds.has(r.payment_id)) refunds.delete(r.refund_id)
          for (const p of paymentIds) payments.delete(p)
          for (const s of [...subscriptions.rows.values()].filter((s) => ofThem(s.customer.customer_id))) {
            for (const a of [...attempts.rows.values()]) if (a.subscription_id === s.subscription_id) attempts.delete(attemptId(a))
            subscriptions.delete(s.subscription_id)
          }
          for (const c of [...sessions.rows.values()].filter((c) => ofThem(c.customer_id))) sessions.delete(c.session_id)
          for (const s of [...portalSessions.rows.values()].filter((s) => ofThem(s.customer_id))) portalSessions.delete(s.customer_portal_session_id)
          for (const c of attached) customers.delete(c)
          testClocks.delete(id)
          return true
        })
    },
    discounts: makeDiscountsMemory(discounts, { read, write }),
    idempotency: {
      claim: (record, now) => rowWrite(() => claim(record, now)),
      claimAll: (records, now) => rowWrite(() => records.map((record) => claim(record, now))),
      find: (scope, key) => read(() => Option.fromNullable(idempotency.get(idemId(scope, key)))),
      complete: (scope, key, fingerprint, response) => rowWrite(() => complete({ scope, key, fingerprint, response })),
      completeAll: (completions) => rowWrite(() => completions.forEach(complete)),
      answerAll: (answers) =>
        rowWrite(() =>
          answers.map(({ completion: { fingerprint, key, response, scope }, lockedUntil }) => {
            const id = idemId(scope, key)
            const existing = idempotency.get(id)
            const held = existing !== undefined && existing.fingerprint === fingerprint && existing.response === null &&
              DateTime.Equivalence(existing.lockedUntil, lockedUntil)
            if (held) idempotency.set(id, { ...existing, response })
            return held
          })
        ),
      release: (scope, key, fingerprint) =>
        rowWrite(() => {
          const id = idemId(scope, key)
          const existing = idempotency.get(id)
          if (existing !== undefined && existing.fingerprint === fingerprint && existing.response === null) {
            idempotency.delete(id)
          }
        })
    },
    rateLimits: {
      hit: (bucket, nowMillis, limit, windowSeconds, count = 1, lease) =>
        rowWrite(() => {
          const decision = RateWindow.hit(rates.get(bucket), nowMillis, limit, windowSeconds, count, lease)
          if (decision.granted + decision.shared > 0 || (lease?.giveBack?.count ?? 0) > 0) rates.set(bucket, decision.state)
          return decision
        })
    },
    requestLogs: {
      insertAll: (lines) => read(() => lines.forEach((line) => requestLogs.set(line.request_log_id, line))),
      get: (scope, id) => read(() => scoped(requestLogs.get(id), scope)),
      list: (scope, filter, request) =>
        read(() => page(requestLogs.values(), (l) => inScope(l, scope) && RequestLog.matches(l, filter), RequestLog.position, request)),
      prune: (bound, limit) =>
        read(() => {
          let deleted = 0
          for (const id of requestLogs.keys()) {
            if (deleted >= limit) break
            if (id < bound) {
              requestLogs.delete(id)
              deleted++
            }
          }
          return deleted
        })
    },
    stats: read(() => {
      const tally = <K extends string>(rows: Iterable<{ readonly status: K; readonly livemode: boolean }>) => {
        const counts = new Map<string, { status: K; livemode: boolean; count: number }>()
        for (const { livemode, status } of rows) {
          const key = `${status}:${livemode}`
          const found = counts.get(key)
          if (found === undefined) counts.set(key, { status, livemode, count: 1 })
          else found.count++
        }
        return [...counts.values()]
      }
      const renewals = [...attempts.rows.values()].flatMap((a) => {
        const p = payments.get(a.payment_id)
        return p === undefined ? [] : [p]
      })
      return { deliveries: tally(webhookRepos.deliveryRows.values()), renewals: tally(renewals) }
    })
  }
  return store
})

/** A fresh, empty memory store, with each of its repositories under its own Tag. */
export const StoreMemory = layerStore(makeStoreMemory)
