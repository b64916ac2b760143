/**
 * The Store port in memory: the fast adapter for embedding teams' tests and single-process tools. It keeps the
 * same contract as PostgreSQL (the shared contract suite runs against both): transactions are serialized by one
 * lock and undone on failure, so a failed use case leaves nothing behind.
 */
import { DateTime, Effect, Exit, FiberRef, Option, PubSub, Stream } from "effect"

interface AttemptRow {
  readonly attempt: number
  readonly webhook_id: string
  readonly ok: boolean
  readonly started_at: DateTime.Utc
  readonly status_code: number | null
  readonly error: string | null
  readonly duration_ms: number
  readonly answer: string | null
  readonly sent: SentRequest | null
}
/** An endpoint's failing streak, and when Fils disabled it for failing (`WebhookHealth`). */
interface HealthRow {
  readonly since: DateTime.Utc
  readonly disabledAt: DateTime.Utc | null
}
import { type Account, type ApiKey, inScope, type Scope } from "../../src/domain/Account.js"
import type { ApiKeyId } from "../../src/domain/Ids.js"
import * as CheckoutSession from "../../src/domain/CheckoutSession.js"
import * as Customer from "../../src/domain/Customer.js"
import {
  afterAttempt,
  inFlightPerAccount,
  inFlightPerEndpoint,
  outcomeApplies,
  requestBody,
  type SentRequest
} from "../../src/domain/Delivery.js"
import * as WebhookHealth from "../../src/domain/WebhookHealth.js"
import * as Event from "../../src/domain/Event.js"
import * as Idempotency from "../../src/domain/Idempotency.js"
import * as Pagination from "../../src/domain/Pagination.js"
import * as Payment from "../../src/domain/Payment.js"
import * as Product from "../../src/domain/Product.js"
import * as RateWindow from "../../src/domain/RateWindow.js"
import * as RequestLog from "../../src/domain/RequestLog.js"
import * as Refund from "../../src/domain/Refund.js"
import type { AuditEntry, DashboardSession, DashboardUser, SignInLink } from "../../src/domain/DashboardUser.js"
import type { PortalSession } from "../../src/domain/PortalSession.js"
import * as Subscription from "../../src/domain/Subscription.js"
import type { CreditNote, Invoice } from "../../src/domain/TaxDocument.js"
import type { Discount } from "../../src/domain/Discount.js"
import type { CustomerId, TestClockId } from "../../src/domain/Ids.js"
import * as TestClock from "../../src/domain/TestClock.js"
import { idOf as documentIdOf } from "../../src/domain/TaxDocument.js"
import { defaultTimeZone, isTimeZone, localDay } from "../../src/domain/TimeZone.js"
import type { TwoFactor } from "../../src/domain/TwoFactor.js"
import * as WebhookEndpoint from "../../src/domain/WebhookEndpoint.js"
import { makeEInvoicesMemory, type TransmissionRow } from "./EInvoicesMemory.js"
import {
  type AttemptRecord,
  type Delivery,
  type IdempotencyCompletion,
  layerStore,
  type MonthlyRevenueDay,
  type RenewalAttempt,
  type StoreShape
} from "../../src/ports/Store.js"
import { makeDiscountsMemory } from "./DiscountsMemory.js"
import { makeDocumentsMemory } from "./DocumentsMemory.js"

type Undo = () => void

/** A table: rows by id, with every write recorded in the running transaction's undo log. */
class Table<A> {
  readonly rows = new Map<string, A>()
  constructor(private readonly record: (undo: Undo) => void) {}
  get(id: string): A | undefined {
    return this.rows.get(id)
  }
  set(id: string, row: A): void {
    const had = this.rows.has(id)
    const previous = this.rows.get(id)
    this.rows.set(id, row)
    this.record(() => (had ? this.rows.set(id, previous as A) : this.rows.delete(id)))
  }
  delete(id: string): void {
    if (!this.rows.has(id)) return
    const previous = this.rows.get(id) as A
    this.rows.delete(id)
    this.record(() => this.rows.set(id, previous))
  }
}

const page = <A>(
  rows: Iterable<A>,
  keep: (a: A) => boolean,
  position: (a: A) => Pagination.Position,
  request: Pagination.PageRequest
): Pagination.Page<A> => {
  const selected: Array<A> = []
  for (const row of rows) if (keep(row) && Pagination.isAfter(position(row), request.after)) selected.push(row)
  selected.sort((a, b) => Pagination.compare(position(a), position(b)))
  return { items: selected.slice(0, request.limit), hasMore: selected.length > request.limit }
}


/**
 * Rows created at or after `since` and strictly after `after` in oldest-first order (by `created_at`, then id):
 * what reconciliation reads page by page.
 */
const oldestSince = <A extends { readonly created_at: DateTime.Utc }>(
  rows: Iterable<A>,
  since: DateTime.Utc,
  after: Pagination.Position | undefined,
  id: (a: A) => string
) =>
  oldestFirst(rows, (row) => {
    const at = DateTime.toEpochMillis(row.created_at)
    if (at < DateTime.toEpochMillis(since)) return false
    return after === undefined || at > after.createdAtMillis || (at === after.createdAtMillis && id(row) > after.id)
  }, (row) => row.created_at, id)

/** Oldest first, by a timestamp then id: the order in which background work is claimed. */
const oldestFirst = <A>(rows: Iterable<A>, keep: (a: A) => boolean, at: (a: A) => DateTime.Utc, id: (a: A) => string) =>
  [...rows].filter(keep).sort((a, b) => {
    const d = DateTime.toEpochMillis(at(a)) - DateTime.toEpochMillis(at(b))
    return d !== 0 ? d : id(a) < id(b) ? -1 : id(a) > id(b) ? 1 : 0
  })

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
  const users = new Table<DashboardUser>(record)
  const signInLinks = new Table<SignInLink>(record)
  const dashboardSessions = new Table<DashboardSession>(record)
  const twoFactors = new Table<TwoFactor>(record)
  const audit = new Table<AuditEntry>(record)
  const portalSessions = new Table<PortalSession>(record)
  const portalBy = (match: (s: PortalSession) => boolean) => {
    for (const s of portalSessions.rows.values()) if (match(s)) return Option.some(s)
    return Option.none<PortalSession>()
  }
  /** The user with a password who has `email`: the one who signs in with it (pending invitations have none). */
  const userByEmail = (email: string) => {
    for (const u of users.rows.values()) if (u.password_hash !== null && u.email.toLowerCase() === email.toLowerCase()) return u
    return undefined
  }
  /** The rules of PostgreSQL's unique indexes on the e-mail (migration 0017). */
  const checkUserEmail = (user: DashboardUser) => {
    const email = user.email.toLowerCase()
    for (const u of users.rows.values()) {
      if (u.user_id === user.user_id || u.email.toLowerCase() !== email) continue
      if (u.account_id === user.account_id) throw new Error(`the account already has a user with e-mail ${user.email}`)
      if (u.password_hash !== null && user.password_hash !== null) throw new Error(`a dashboard user with e-mail ${user.email} exists`)
    }
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
  const webhooks = new Table<WebhookEndpoint.WebhookEndpoint>(record)
  const deliveries = new Table<Delivery & { readonly lease_until: number }>(record)
  const deliveryAttempts = new Table<ReadonlyArray<AttemptRow>>(record)
  const webhookHealth = new Table<HealthRow>(record)
  /** Test events (`insertTest`): delivered, never listed. */
  const testEvents = new Table<true>(record)
  // Dispatchers waiting for work; woken when deliveries are queued.
  let waiters: Array<() => void> = []
  const wake = () => {
    const woken = waiters
    waiters = []
    for (const w of woken) w()
  }
  const publicDelivery = ({ lease_until: _, ...d }: Delivery & { readonly lease_until: number }): Delivery => d
  /** Records a batch of attempts, then each endpoint's streak after the ones recorded now (as one SQL statement). */
  const recordDeliveryAttempts = (records: ReadonlyArray<AttemptRecord>) => {
    const byEndpoint = new Map<string, Array<WebhookHealth.Outcome>>()
    for (const record of records) {
      const recorded = recordDeliveryAttempt(record)
      if (recorded !== undefined) byEndpoint.set(recorded.webhookId, [...(byEndpoint.get(recorded.webhookId) ?? []), recorded.outcome])
    }
    for (const [id, batch] of byEndpoint) {
      const row = webhookHealth.get(id)
      const since = WebhookHealth.failingSinceAfter(row?.since ?? null, batch)
      if (since !== null) webhookHealth.set(id, { since, disabledAt: row?.disabledAt ?? null })
      else if (row !== undefined && row.disabledAt === null) webhookHealth.delete(id)
    }
  }
  const ofMode = (livemode: boolean | undefined) => (row: { readonly livemode: boolean }) =>
    livemode === undefined || row.livemode === livemode
  const scoped = <A extends { readonly account_id: string; readonly livemode: boolean }>(row: A | undefined, scope: Scope) =>
    row !== undefined && inScope(row, scope) ? Option.some(row) : Option.none()
  const processingFor = (sessionId: string) => {
    for (const p of payments.rows.values()) {
      if (p.checkout_session_id === sessionId && p.status === "processing") return true
    }
    return false
  }
  /** Records one attempt; the endpoint and outcome of a newly recorded one (for its streak), else undefined. */
  const recordDeliveryAttempt = ({ attempt, deliveryId, nextAttemptAt, outcome, sent, startedAt }: AttemptRecord) => {
    const d = deliveries.get(deliveryId)
    const recorded = deliveryAttempts.get(deliveryId) ?? []
    // Once per (delivery, attempt), whoever reports it first.
    if (d === undefined || recorded.some((a) => a.attempt === attempt)) return undefined
    deliveryAttempts.set(deliveryId, [...recorded, {
      attempt,
      webhook_id: d.webhook_id,
      ok: outcome.ok,
      started_at: startedAt,
      status_code: outcome.statusCode,
      error: outcome.error,
      duration_ms: outcome.durationMillis,
      answer: outcome.answer ?? null,
      sent: sent ?? null
    }])
    // A cancelled delivery's attempt (its endpoint deleted or disabled meanwhile) leaves the streak alone.
    const streak = d.status === "cancelled" ? undefined : { webhookId: d.webhook_id, outcome: { ok: outcome.ok, startedAt } }
    if (!outcomeApplies(d, d.lease_until !== 0, attempt)) return streak
    const after = afterAttempt(outcome, nextAttemptAt)
    deliveries.set(deliveryId, {
      ...d,
      status: after.status,
      next_attempt_at: after.nextAttemptAt,
      last_status_code: outcome.statusCode,
      last_error: outcome.error,
      lease_until: 0,
      updated_at: startedAt
    })
    return streak
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
    dashboard: {
      insertUser: (user) =>
        write(() => {
          checkUserEmail(user)
          users.set(user.user_id, user)
        }),
      updateUser: (user) =>
        write(() => {
          checkUserEmail(user)
          users.set(user.user_id, user)
        }),
      setPassword: (user) =>
        write(() => {
          const holder = userByEmail(user.email)
          if (holder !== undefined && holder.user_id !== user.user_id) return false
          users.set(user.user_id, user)
          return true
        }),
      replacePassword: (id, expected, next, at) =>
        write(() => {
          const user = users.get(id)
          if (user === undefined || user.password_hash !== expected) return false
          users.set(id, { ...user, password_hash: next, updated_at: at })
          return true
        }),
      replaceEmail: (id, expected, next, at) =>
        write(() => {
          const user = users.get(id)
          if (user === undefined || user.email !== expected) return false
          const changed = { ...user, email: next, updated_at: at }
          try {
            checkUserEmail(changed)
          } catch {
            return false
          }
          users.set(id, changed)
          return true
        }),
      setRole: (id, role, at) =>
        write(() => {
          const user = users.get(id)
          if (user !== undefined) users.set(id, { ...user, role, updated_at: at })
        }),
      deleteUser: (id) =>
        write(() => {
          users.delete(id)
          twoFactors.delete(id)
          for (const [hash, s] of dashboardSessions.rows) if (s.user_id === id) dashboardSessions.delete(hash)
        }),
      getUser: (id) => read(() => Option.fromNullable(users.get(id))),
      findUserByEmail: (email) => read(() => Option.fromNullable(userByEmail(email))),
      listUsers: (accountId) =>
        read(() =>
          oldestFirst(users.rows.values(), (u) => u.account_id === accountId, (u) => u.created_at, (u) => u.user_id)
        ),
      insertLink: (link) => write(() => signInLinks.set(link.token_hash, link)),
      findLink: (tokenHash) => read(() => Option.fromNullable(signInLinks.get(tokenHash))),
      deleteUnusedLinks: (id) =>
        write(() => {
          for (const [hash, l] of signInLinks.rows) if (l.user_id === id && l.used_at === null) signInLinks.delete(hash)
        }),
      takeLink: (tokenHash, now) =>
        write(() => {
          const link = signInLinks.get(tokenHash)
          if (link === undefined || link.used_at !== null || DateTime.lessThanOrEqualTo(link.expires_at, now)) {
            return Option.none()
          }
          const taken = { ...link, used_at: now }
          signInLinks.set(tokenHash, taken)
          return Option.some(taken)
        }),
      insertSession: (session) => write(() => dashboardSessions.set(session.token_hash, session)),
      findSession: (tokenHash) => read(() => Option.fromNullable(dashboardSessions.get(tokenHash))),
      touchSession: (tokenHash, at) =>
        write(() => {
          const s = dashboardSessions.get(tokenHash)
          if (s !== undefined) dashboardSessions.set(tokenHash, { ...s, last_seen_at: at })
        }),
      deleteSession: (tokenHash) => write(() => dashboardSessions.delete(tokenHash)),
      getTwoFactor: (id) => read(() => Option.fromNullable(twoFactors.get(id))),
      putTwoFactor: (twoFactor) => write(() => twoFactors.set(twoFactor.user_id, twoFactor)),
      deleteTwoFactor: (id) => write(() => twoFactors.delete(id)),
      useTotpStep: (id, step) =>
        write(() => {
          const found = twoFactors.get(id)
          if (found === undefined || (found.last_step !== null && found.last_step >= step)) return false
          twoFactors.set(id, { ...found, last_step: step })
          return true
        }),
      useRecoveryCode: (id, digest) =>
        write(() => {
          const found = twoFactors.get(id)
          if (found === undefined || !found.recovery_codes.includes(digest)) return false
          twoFactors.set(id, { ...found, recovery_codes: found.recovery_codes.filter((c) => c !== digest) })
          return true
        }),
      listSessions: (id) =>
        read(() =>
          oldestFirst(dashboardSessions.rows.values(), (s) => s.user_id === id, (s) => s.created_at, (s) => s.token_hash).reverse()
        ),
      deleteSessionsOf: (id) =>
        write(() => {
          for (const [hash, s] of dashboardSessions.rows) if (s.user_id === id) dashboardSessions.delete(hash)
        }),
      insertAudit: (entry) => write(() => audit.set(entry.audit_id, entry)),
      listAudit: (accountId, limit) =>
        read(() =>
          oldestFirst(audit.rows.values(), (e) => e.account_id === accountId, (e) => e.at, (e) => e.audit_id)
            .reverse()
            .slice(0, limit)
        )
    },
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
    documents: makeDocumentsMemory({ documents, numbers: documentNumbers, read, write }),
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
    webhooks: {
      insert: (endpoint) => write(() => webhooks.set(endpoint.webhook_id, endpoint)),
      get: (scope, id) => read(() => scoped(webhooks.get(id), scope)),
      lock: (scope, id) => read(() => scoped(webhooks.get(id), scope)),
      update: (endpoint) => write(() => webhooks.set(endpoint.webhook_id, endpoint)),
      delete: (scope, id) =>
        write(() => {
          const endpoint = webhooks.get(id)
          if (endpoint === undefined || !inScope(endpoint, scope)) return false
          webhooks.delete(id)
          webhookHealth.delete(id)
          for (const d of deliveries.rows.values()) {
            if (d.webhook_id === id && d.status === "pending") {
              deliveries.set(d.delivery_id, { ...d, status: "cancelled", next_attempt_at: null })
            }
          }
          return true
        }),
      list: (scope, request) =>
        read(() => page(webhooks.rows.values(), (w) => inScope(w, scope), WebhookEndpoint.position, request)),
      subscribed: (scope, type) =>
        read(() =>
          [...webhooks.rows.values()]
            .filter((w) => inScope(w, scope) && WebhookEndpoint.subscribes(w, type))
            .sort((a, b) => (a.webhook_id < b.webhook_id ? -1 : 1))
        ),
      health: (ids, since) =>
        read(() => {
          const from = DateTime.toEpochMillis(since)
          const found = new Map<string, WebhookHealth.Stored>()
          for (const id of ids) found.set(id, { ...WebhookHealth.none })
          for (const attempts of deliveryAttempts.rows.values()) {
            for (const a of attempts) {
              const h = found.get(a.webhook_id)
              if (h === undefined || DateTime.toEpochMillis(a.started_at) <= from) continue
              found.set(a.webhook_id, { ...h, attempts: h.attempts + 1, failed: h.failed + (a.ok ? 0 : 1) })
            }
          }
          for (const id of ids) {
            const row = webhookHealth.get(id)
            if (row === undefined) continue
            // The streak's failures, up to the count the rule needs (as PostgreSQL counts them).
            let failures = 0
            for (const attempts of deliveryAttempts.rows.values()) {
              for (const a of attempts) {
                if (a.webhook_id === id && !a.ok && DateTime.toEpochMillis(a.started_at) >= DateTime.toEpochMillis(row.since)) failures++
              }
            }
            found.set(id, {
              ...found.get(id)!,
              failingSince: row.since,
              failures: Math.min(failures, WebhookHealth.minFailures),
              autoDisabledAt: row.disabledAt
            })
          }
          return found
        }),
      markAutoDisabled: (id, at) =>
        write(() => webhookHealth.set(id, { since: webhookHealth.get(id)?.since ?? at, disabledAt: at })),
      clearHealth: (id) => write(() => webhookHealth.delete(id))
    },
    deliveries: {
      enqueue: (queued) =>
        Effect.zipRight(
          write(() => {
            for (const d of queued) deliveries.set(d.delivery_id, { ...d, lease_until: 0 })
          }),
          Effect.sync(() => {
            if (queued.length > 0) wake()
          })
        ),
      claimDue: (now, limit, leaseMillis) =>
        write(() => {
          const at = DateTime.toEpochMillis(now)
          const due = oldestFirst(
            deliveries.rows.values(),
            (d) => d.status === "pending" && d.next_attempt_at !== null &&
              DateTime.toEpochMillis(d.next_attempt_at) <= at && d.lease_until <= at,
            (d) => d.next_attempt_at!,
            (d) => d.delivery_id
          )
          // Attempts already running per endpoint and per account: each endpoint gets at most
          // Delivery.inFlightPerEndpoint, each account at most Delivery.inFlightPerAccount.
          const busy = new Map<string, number>()
          const busyAccounts = new Map<string, number>()
          for (const d of deliveries.rows.values()) {
            if (d.status === "pending" && d.lease_until > at) {
              busy.set(d.webhook_id, (busy.get(d.webhook_id) ?? 0) + 1)
              busyAccounts.set(d.account_id, (busyAccounts.get(d.account_id) ?? 0) + 1)
            }
          }
          const claimed = []
          for (const d of due) {
            if (claimed.length >= limit) break
            const event = events.get(d.event_id)
            const endpoint = webhooks.get(d.webhook_id)
            // A disabled endpoint receives nothing (its row waits, as the SQL claim leaves it).
            if (event === undefined || endpoint === undefined || endpoint.disabled) continue
            const running = busy.get(d.webhook_id) ?? 0
            const accountRunning = busyAccounts.get(d.account_id) ?? 0
            if (running >= inFlightPerEndpoint || accountRunning >= inFlightPerAccount) continue
            busy.set(d.webhook_id, running + 1)
            busyAccounts.set(d.account_id, accountRunning + 1)
            const next = { ...d, attempts: d.attempts + 1, lease_until: at + leaseMillis, updated_at: now }
            deliveries.set(d.delivery_id, next)
            claimed.push({
              delivery: publicDelivery(next),
              attempt: next.attempts,
              event,
              endpoint,
              test: testEvents.get(event.event_id) !== undefined,
              failingSince: webhookHealth.get(endpoint.webhook_id)?.since ?? null
            })
          }
          return claimed
        }),
      recordAttempt: (record) => write(() => recordDeliveryAttempts([record])),
      recordAttempts: (records) => write(() => recordDeliveryAttempts(records)),
      cancelFor: (webhookId) =>
        write(() => {
          let n = 0
          for (const d of deliveries.rows.values()) {
            if (d.webhook_id === webhookId && d.status === "pending") {
              deliveries.set(d.delivery_id, { ...d, status: "cancelled", next_attempt_at: null })
              n++
            }
          }
          return n
        }),
      get: (id) => read(() => Option.map(Option.fromNullable(deliveries.get(id)), publicDelivery)),
      retry: (id, now) =>
        Effect.tap(
          write(() => {
            const d = deliveries.get(id)
            if (d === undefined) return Option.none()
            const next = { ...d, status: "pending" as const, next_attempt_at: now, lease_until: 0, updated_at: now }
            deliveries.set(id, next)
            return Option.some(publicDelivery(next))
          }),
          () => Effect.sync(wake)
        ),
      list: (filter, limit) =>
        read(() =>
          [...deliveries.rows.values()]
            .filter((d) =>
              (filter.event_id === undefined || d.event_id === filter.event_id) &&
              (filter.webhook_id === undefined || d.webhook_id === filter.webhook_id) &&
              (filter.status === undefined || d.status === filter.status)
            )
            .sort((a, b) => Pagination.compare(
              { createdAtMillis: DateTime.toEpochMillis(a.created_at), id: a.delivery_id },
              { createdAtMillis: DateTime.toEpochMillis(b.created_at), id: b.delivery_id }
            ))
            .slice(0, limit)
            .map(publicDelivery)
        ),
      attemptsOf: (id) =>
        read(() =>
          [...(deliveryAttempts.get(id) ?? [])]
            .sort((a, b) => a.attempt - b.attempt)
            .map(({ attempt, duration_ms, error, started_at, status_code }) => ({ attempt, started_at, status_code, error, duration_ms }))
        ),
      pageOf: (webhookId, request) =>
        read(() => {
          const found = page(
            deliveries.rows.values(),
            (d) => d.webhook_id === webhookId,
            (d) => ({ createdAtMillis: DateTime.toEpochMillis(d.created_at), id: d.delivery_id }),
            request
          )
          return {
            hasMore: found.hasMore,
            items: found.items.map((d) => ({
              delivery_id: d.delivery_id,
              webhook_id: d.webhook_id,
              event_id: d.event_id,
              event_type: events.get(d.event_id)!.type,
              test: testEvents.get(d.event_id) !== undefined,
              request_body: requestBody(events.get(d.event_id)!, testEvents.get(d.event_id) !== undefined),
              status: d.status,
              livemode: d.livemode,
              created_at: d.created_at,
              next_attempt_at: d.next_attempt_at,
              attempts: [...(deliveryAttempts.get(d.delivery_id) ?? [])].sort((a, b) => a.attempt - b.attempt).map((a) => ({
                attempt: a.attempt,
                started_at: a.started_at,
                status_code: a.status_code,
                error: a.error,
                latency_ms: a.duration_ms,
                response_body: a.answer,
                request: a.sent === null ? null : { headers: { ...a.sent.headers } }
              }))
            }))
          }
        }),
      recover: (webhookId, since, now) =>
        Effect.tap(
          write(() => {
            let n = 0
            for (const d of deliveries.rows.values()) {
              if (
                d.webhook_id === webhookId && (d.status === "failed" || d.status === "cancelled") &&
                DateTime.toEpochMillis(d.created_at) >= DateTime.toEpochMillis(since)
              ) {
                deliveries.set(d.delivery_id, { ...d, status: "pending", next_attempt_at: now, lease_until: 0, updated_at: now })
                n++
              }
            }
            return n
          }),
          (n) => Effect.sync(() => n > 0 && wake())
        ),
      awaitWork: (timeoutMillis) =>
        Effect.raceFirst(
          Effect.async<void>((resume) => {
            const done = () => resume(Effect.void)
            waiters.push(done)
            return Effect.sync(() => {
              waiters = waiters.filter((w) => w !== done)
            })
          }),
          Effect.sleep(timeoutMillis)
        )
    },
    einvoices: makeEInvoicesMemory(einvoices, write, read),
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
    discounts: makeDiscountsMemory(discounts, write, read),
    idempotency: {
      claim: (record, now) => rowWrite(() => claim(record, now)),
      claimAll: (records, now) => rowWrite(() => records.map((record) => claim(record, now))),
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
      return { deliveries: tally(deliveries.rows.values()), renewals: tally(renewals) }
    })
  }
  return store
})

/** A fresh, empty memory store, with each of its repositories under its own Tag. */
export const StoreMemory = layerStore(makeStoreMemory)
