/**
 * The Store contract on PostgreSQL (a fresh database of the run's server), plus what only a real database shows:
 * limits shared by separate connection pools (servers), an unreachable database answered quickly as
 * `StoreUnavailable`, and statement errors as defects.
 */
import { assert, describe, it } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { SqlError } from "@effect/sql/SqlError"
import { Cause, Context, DateTime, Deferred, Effect, Exit, FastCheck, Fiber, Layer, Option, Redacted, Schedule } from "effect"
import type { Scope } from "effect"
import { MigratedPg, PgLive, type PgOptions } from "../../adapters/sql/Postgres.js"
import { StoreSql } from "../../adapters/sql/StoreSql.js"
import { newId } from "../../src/application/Ids.js"
import type { Account } from "../../src/domain/Account.js"
import type { CheckoutSession } from "../../src/domain/CheckoutSession.js"
import type { AccountId, CheckoutSessionId, ProductId } from "../../src/domain/Ids.js"
import * as Payment from "../../src/domain/Payment.js"
import { Store, type StoreShape } from "../../src/ports/Store.js"
import { FreshDatabase, freshDatabaseUrl } from "../support/database.js"
import { closedPort, silentServer, tcpProxy } from "../support/tcp.js"
import {
  at,
  card,
  dueAt,
  failedOf,
  insertAll,
  makeCustomer,
  makeEvent,
  makePayment,
  makeSession,
  paymentCustomer,
  same,
  sessionCustomer,
  shuffle,
  storeContract,
  succeededOf
} from "./storeContract.js"

storeContract("StoreSql (PostgreSQL)", StoreSql.pipe(Layer.provide(FreshDatabase())))

const T0 = Date.UTC(2026, 10, 21, 10, 0, 0, 0)

/** A StoreSql on its own pool, for the scope's lifetime. */
const storeOn = (url: Redacted.Redacted, options: PgOptions = {}): Effect.Effect<StoreShape, unknown, Scope.Scope> =>
  Effect.map(Layer.build(StoreSql.pipe(Layer.provide(PgLive(url, options)))), Context.get(Store))

/** A fresh database, migrated, for the scope's lifetime. */
const migratedUrl = Effect.tap(freshDatabaseUrl, (url) => Layer.build(MigratedPg(url)))

const newAccount = Effect.map(newId<AccountId>("acct"), (account_id): Account => ({
  account_id,
  business_name: "Souq Books",
  support_email: null,
  live_payments_enabled: false,
  created_at: DateTime.unsafeMake(T0)
}))

const withPort = (url: Redacted.Redacted, port: number) => {
  const parsed = new URL(Redacted.value(url))
  parsed.port = String(port)
  return Redacted.make(parsed.toString())
}

/** Runs `effect` and checks it fails with StoreUnavailable (not a defect) within `withinMs`. */
const expectUnavailable = <A, E, R>(effect: Effect.Effect<A, E, R>, withinMs = 3_000) =>
  Effect.gen(function*() {
    const started = Date.now()
    const exit = yield* Effect.exit(effect)
    const elapsed = Date.now() - started
    assert.isTrue(Exit.isFailure(exit), "expected a failure")
    if (Exit.isFailure(exit)) {
      assert.isFalse(Cause.isDie(exit.cause), `a defect instead of StoreUnavailable: ${Cause.pretty(exit.cause)}`)
      const error = Cause.failureOption(exit.cause)
      assert.isTrue(Option.isSome(error))
      const failure = Option.getOrThrow(error) as { _tag?: string; code?: string; message?: string }
      assert.strictEqual(failure._tag, "StoreUnavailable")
      assert.strictEqual(failure.code, "SERVICE_UNAVAILABLE")
      // No internals: no host, port or driver text.
      assert.notMatch(failure.message ?? "", /127\.0\.0\.1|ECONN|postgres|\d{4,5}/i)
    }
    assert.isBelow(elapsed, withinMs, `answered in ${elapsed} ms`)
  })

describe("StoreSql on PostgreSQL", () => {
  it.scopedLive("migrations: concurrent runners agree; tables have real column types", () =>
    Effect.gen(function*() {
      const url = yield* freshDatabaseUrl
      yield* Effect.all([1, 2, 3].map(() => Layer.build(MigratedPg(url))), { concurrency: "unbounded" })
      const sql = Context.get(yield* Layer.build(PgLive(url)), SqlClient.SqlClient)
      const applied = yield* sql<{ name: string }>`SELECT name FROM effect_sql_migrations ORDER BY migration_id`
      assert.deepStrictEqual(applied.map((r) => r.name), ["init", "rate_limit_hit", "checkout_payments_events"])
      const columns = yield* sql<{ table_name: string; column_name: string; data_type: string }>`
        SELECT table_name, column_name, data_type FROM information_schema.columns
        WHERE (table_name, column_name) IN (('products', 'price'), ('products', 'created_at'), ('products', 'metadata'),
          ('rate_limits', 'seconds'), ('idempotency_keys', 'expires_at'), ('checkout_sessions', 'product_cart'),
          ('checkout_sessions', 'expires_at'), ('payments', 'net_amount'), ('payments', 'card_exp_year'),
          ('events', 'data'))
        ORDER BY table_name, column_name`
      // PgLive reads int8 (and int8[]) as numbers.
      const [ints] = yield* sql<{ n: unknown; a: unknown }>`SELECT 9007199254740991::int8 AS n, ARRAY[1, 2]::int8[] AS a`
      assert.deepStrictEqual(ints, { n: Number.MAX_SAFE_INTEGER, a: [1, 2] })
      assert.deepStrictEqual(columns.map((c) => `${c.table_name}.${c.column_name}: ${c.data_type}`), [
        "checkout_sessions.expires_at: timestamp with time zone",
        "checkout_sessions.product_cart: jsonb",
        "events.data: jsonb",
        "idempotency_keys.expires_at: timestamp with time zone",
        "payments.card_exp_year: integer",
        "payments.net_amount: bigint",
        "products.created_at: timestamp with time zone",
        "products.metadata: jsonb",
        "products.price: bigint",
        "rate_limits.seconds: ARRAY"
      ])
      // The card as kept: brand, last 4, expiry and the processor's token. No column could hold a card number.
      const cardColumns = yield* sql<{ column_name: string }>`SELECT column_name FROM information_schema.columns
        WHERE table_name = 'payments' AND (column_name LIKE 'card%' OR column_name LIKE '%number%' OR column_name LIKE '%pan%')
        ORDER BY column_name`
      assert.deepStrictEqual(cardColumns.map((c) => c.column_name), [
        "card_brand",
        "card_exp_month",
        "card_exp_year",
        "card_last4",
        "card_token",
        "customer_phone_number"
      ])
    }))

  it.scopedLive("a rate limit and an idempotency key hold across separate connection pools (servers)", () =>
    Effect.gen(function*() {
      const url = yield* migratedUrl
      const servers = yield* Effect.all([1, 2, 3, 4].map(() => storeOn(url, { maxConnections: 5 })))
      const limit = 25
      const decisions = yield* Effect.all(
        Array.from({ length: 100 }, (_, i) => servers[i % servers.length]!.rateLimits.hit("key:shared", T0 + i, limit, 60)),
        { concurrency: "unbounded" }
      )
      assert.strictEqual(decisions.filter((d) => d.allowed).length, limit)
      assert.isTrue(decisions.filter((d) => !d.allowed).every((d) => d.remaining === 0 && d.resetSeconds >= 1))

      const record = {
        scope: "acct_x:test",
        key: "order-1",
        fingerprint: "fp",
        response: null,
        lockedUntil: DateTime.unsafeMake(T0 + 60_000),
        expiresAt: DateTime.unsafeMake(T0 + 86_400_000)
      }
      const claims = yield* Effect.all(
        Array.from({ length: 40 }, (_, i) => servers[i % servers.length]!.idempotency.claim(record, DateTime.unsafeMake(T0))),
        { concurrency: "unbounded" }
      )
      assert.strictEqual(claims.filter((c) => c._tag === "Claimed").length, 1)
    }))

  it.scopedLive("a statement the database rejects is a defect, not StoreUnavailable", () =>
    Effect.gen(function*() {
      const store = yield* storeOn(yield* migratedUrl)
      const account = yield* newAccount
      yield* store.accounts.insert(account)
      const duplicate = yield* Effect.exit(store.accounts.insert(account))
      assert.isTrue(Exit.isFailure(duplicate) && Cause.isDie(duplicate.cause))
      // The schema's own checks back the domain's rules (a product without an owner account is refused too).
      const orphan = yield* Effect.exit(store.products.insert({
        object: "product",
        product_id: yield* newId<ProductId>("pdt"),
        account_id: yield* newId<AccountId>("acct"),
        livemode: false,
        name: "x",
        description: "",
        price: 100,
        currency: "AED",
        billing: "one_time",
        billing_interval: null,
        interval_count: null,
        status: "active",
        metadata: {},
        created_at: DateTime.unsafeMake(T0),
        updated_at: null
      }))
      assert.isTrue(Exit.isFailure(orphan) && Cause.isDie(orphan.cause))
    }))

  it.scopedLive("StoreUnavailable, quickly, when nothing listens on the database's port", () =>
    Effect.gen(function*() {
      const port = yield* Effect.promise(closedPort)
      yield* expectUnavailable(storeOn(Redacted.make(`postgres://postgres:secret@127.0.0.1:${port}/fils`)))
    }))

  it.scopedLive("StoreUnavailable within the connect timeout when the server never answers", () =>
    Effect.gen(function*() {
      const server = yield* Effect.acquireRelease(Effect.promise(silentServer), (s) => Effect.promise(s.close))
      yield* expectUnavailable(
        storeOn(Redacted.make(`postgres://postgres:secret@127.0.0.1:${server.port}/fils`)),
        3_500
      )
    }))

  it.scopedLive("StoreUnavailable when the database goes away after start, and service once it is back", () =>
    Effect.gen(function*() {
      const url = yield* migratedUrl
      const target = new URL(Redacted.value(url))
      const open = (port?: number) =>
        Effect.acquireRelease(
          Effect.promise(() => tcpProxy(target.hostname, Number(target.port || 5432), port)),
          (p) => Effect.promise(p.close)
        )
      const proxy = yield* open()
      const store = yield* storeOn(withPort(url, proxy.port))
      const account = yield* newAccount
      yield* store.accounts.insert(account)
      yield* store.ping

      yield* Effect.promise(proxy.close)
      const scope = { accountId: account.account_id, livemode: false }
      yield* expectUnavailable(store.ping)
      yield* expectUnavailable(store.accounts.get(account.account_id))
      yield* expectUnavailable(store.products.list(scope, {}, { limit: 10, after: undefined }))
      yield* expectUnavailable(store.transact(store.accounts.update({ ...account, business_name: "Changed" })))
      yield* expectUnavailable(store.rateLimits.hit("key:gone", T0, 10, 60))

      yield* open(proxy.port)
      yield* store.ping
      const read = yield* store.accounts.get(account.account_id)
      assert.strictEqual(Option.getOrThrow(read).business_name, "Souq Books")
    }))
})

// Checkout sessions and payments: what only a real database shows ---------------------------------------------------

/** The SQLSTATE of the database error behind a defect (`23514` check, `23505` unique, `23503` foreign key). */
const sqlStateOf = (exit: Exit.Exit<unknown, unknown>): { readonly code?: string; readonly constraint?: string } => {
  if (Exit.isSuccess(exit)) return assert.fail("expected the database to refuse the statement")
  const defect = Cause.dieOption(exit.cause)
  assert.isTrue(Option.isSome(defect), `a defect, not ${Cause.pretty(exit.cause)}`)
  const error = Option.getOrThrow(defect)
  assert.instanceOf(error, SqlError)
  return (error as SqlError).cause as { code?: string; constraint?: string }
}

/** A migrated database with `n` stores on it (each its own pool, like separate servers) and one account. */
const servers = (n: number) =>
  Effect.gen(function*() {
    const url = yield* migratedUrl
    const stores = yield* Effect.all(Array.from({ length: n }, () => storeOn(url, { maxConnections: 4 })))
    const account = yield* newAccount
    yield* stores[0]!.accounts.insert(account)
    const scope = { accountId: account.account_id, livemode: false }
    return { url, stores, scope, account }
  })

/** Waits until a statement reading `table` … `FOR UPDATE` waits for a row lock (seen from another connection). */
const someoneWaitsForLock = (url: Redacted.Redacted, table: string) =>
  Effect.gen(function*() {
    const monitor = Context.get(yield* Layer.build(PgLive(url, { maxConnections: 1 })), SqlClient.SqlClient)
    return yield* monitor<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND wait_event_type = 'Lock'
        AND query LIKE ${`%FROM ${table} WHERE%FOR UPDATE%`}`.pipe(
      Effect.map((rows) => rows[0]!.n > 0),
      Effect.repeat({ schedule: Schedule.spaced("10 millis"), until: (waiting) => waiting }),
      Effect.orDie
    )
  })

describe("StoreSql on PostgreSQL: checkout sessions and payments", () => {
  it.scopedLive("the schema refuses exactly the payments Payment.violations refuses (decisions.md §5)", () =>
    Effect.gen(function*() {
      const { scope, stores: [store] } = yield* servers(1)
      // Small amounts, so that the boundaries (0, equal to the total, one past it) come up often.
      const shapes = FastCheck.integer({ min: 0, max: 3 }).chain((total) =>
        FastCheck.record({
          total: FastCheck.constant(total),
          status: FastCheck.constantFrom(...Payment.PaymentStatus.literals),
          refunded: FastCheck.oneof(FastCheck.constant(0), FastCheck.constant(total), FastCheck.integer({ min: -1, max: total + 1 })),
          fee: FastCheck.oneof(FastCheck.constant(0), FastCheck.integer({ min: -1, max: total + 1 })),
          netOffset: FastCheck.oneof({ weight: 6, arbitrary: FastCheck.constant(0) }, { weight: 1, arbitrary: FastCheck.constantFrom(-1, 1) }),
          paid: FastCheck.boolean()
        })
      )
      const mismatches: Array<string> = []
      const refusedAlone = new Map<string, number>()
      let accepted = 0
      for (const shape of FastCheck.sample(shapes, { numRuns: 600, seed: 20261121 })) {
        const payment = yield* makePayment(scope, {
          status: shape.status,
          total_amount: shape.total,
          refunded_amount: shape.refunded,
          fee_amount: shape.fee,
          net_amount: shape.total - shape.fee - shape.refunded + shape.netOffset,
          paid_at: shape.paid ? at(T0 + 1_000) : null,
          failure_code: shape.status === "failed" ? "card_declined" : null
        })
        const violations = Payment.violations(payment)
        const exit = yield* Effect.exit(store!.payments.insert(payment))
        if (Exit.isSuccess(exit)) accepted++
        else assert.strictEqual(sqlStateOf(exit).code, "23514", "refused by a CHECK")
        if (Exit.isSuccess(exit) !== (violations.length === 0)) {
          mismatches.push(`${JSON.stringify(shape)}: violations ${JSON.stringify(violations)}, stored: ${Exit.isSuccess(exit)}`)
        }
        if (violations.length === 1) refusedAlone.set(violations[0]!, (refusedAlone.get(violations[0]!) ?? 0) + 1)
      }
      assert.deepStrictEqual(mismatches, [])
      // Both sides were tried, and every invariant was broken on its own (so each CHECK is needed, and there).
      assert.isAtLeast(accepted, 30)
      assert.deepStrictEqual([...refusedAlone.keys()].sort(), [
        "fee or refund on an unpaid payment",
        "fee out of range",
        "net is not total - fee - refunded",
        "paid_at set iff the payment succeeded",
        "partially_refunded without a partial refund",
        "refunded iff refunded_amount = total_amount > 0",
        "refunded_amount out of range"
      ])
    }))

  it.scopedLive("the schema refuses malformed cards, customers and sessions, and references across scopes", () =>
    Effect.gen(function*() {
      const { scope, stores: [store] } = yield* servers(1)
      const s = store!
      const other = yield* newAccount
      yield* s.accounts.insert(other)
      const otherScope = { accountId: other.account_id, livemode: false }
      const live = { ...scope, livemode: true }
      const customer = yield* makeCustomer(scope)
      const theirCustomer = yield* makeCustomer(otherScope)
      yield* insertAll([customer, theirCustomer], s.customers.insert)
      const session = yield* makeSession(scope)
      const liveSession = yield* makeSession(live)
      yield* insertAll([session, liveSession], s.sessions.insert)
      const refused = (state: string, insert: Effect.Effect<void, unknown>) =>
        Effect.map(Effect.exit(insert), (exit) => assert.strictEqual(sqlStateOf(exit).code, state))

      // Each refused row beside a control that differs only in the broken part.
      const paid = succeededOf(yield* makePayment(scope))
      yield* s.payments.insert(paid)
      yield* refused("23514", s.payments.insert({ ...succeededOf(yield* makePayment(scope)), failure_code: "card_declined" }))
      yield* refused("23514", s.payments.insert({ ...succeededOf(yield* makePayment(scope)), card: { ...card, last4: "42" } }))
      yield* refused("23514", s.payments.insert({ ...succeededOf(yield* makePayment(scope)), card: { ...card, exp_month: 13 } }))
      yield* refused("23514", s.payments.insert(yield* makePayment(scope, { billing_reason: "gift" as never })))
      yield* refused("23514", s.payments.insert(yield* makePayment(scope, { status: "pending" as never })))

      yield* s.payments.insert(yield* makePayment(scope, { customer: paymentCustomer(customer) }))
      yield* refused("23503", s.payments.insert(yield* makePayment(scope, { customer: paymentCustomer(theirCustomer) })))
      yield* s.payments.insert(yield* makePayment(scope, { checkout_session_id: session.session_id }))
      yield* refused("23503", s.payments.insert(yield* makePayment(scope, { checkout_session_id: liveSession.session_id })))
      yield* refused(
        "23503",
        s.payments.insert(yield* makePayment(scope, { checkout_session_id: yield* newId<CheckoutSessionId>("cks") }))
      )

      yield* s.sessions.insert(yield* makeSession(scope, { customer_id: customer.customer_id, customer: sessionCustomer(customer) }))
      yield* refused("23503", s.sessions.insert(yield* makeSession(scope, { customer_id: theirCustomer.customer_id })))
      yield* refused("23514", s.sessions.insert(yield* makeSession(scope, { status: "complete" })))
      yield* refused("23514", s.sessions.insert(yield* makeSession(scope, { kind: "donation" as never })))
      yield* refused("23514", s.sessions.insert(yield* makeSession(scope, { product_cart: [] })))
      yield* refused("23514", s.sessions.update({ ...session, status: "complete", completed_at: at(T0 + 1) }))
      yield* s.sessions.update({ ...session, status: "complete", completed_at: at(T0 + 1), payment_id: paid.payment_id })
      yield* refused("23514", s.events.insert(yield* makeEvent(scope, { type: "payment.refunded" as never })))
    }))

  it.scopedLive("at most one processing payment per session: a second is refused by the partial unique index", () =>
    Effect.gen(function*() {
      const { scope, stores: [a, b] } = yield* servers(2)
      const sessions = yield* Effect.forEach([0, 1, 2], () => makeSession(scope))
      yield* insertAll(sessions, a!.sessions.insert)
      const [s0, s1, s2] = sessions as [CheckoutSession, CheckoutSession, CheckoutSession]
      const first = yield* makePayment(scope, { checkout_session_id: s0.session_id })
      yield* a!.payments.insert(first)

      const second = yield* makePayment(scope, { checkout_session_id: s0.session_id })
      const refused = sqlStateOf(yield* Effect.exit(a!.payments.insert(second)))
      assert.deepStrictEqual([refused.code, refused.constraint], ["23505", "payments_one_processing_per_session"])
      // Inside a checkout's transaction the whole attempt is undone, the customer it recorded included.
      const customer = yield* makeCustomer(scope)
      const attempt = yield* Effect.exit(a!.transact(Effect.gen(function*() {
        yield* a!.customers.insert(customer)
        yield* a!.payments.insert(yield* makePayment(scope, { checkout_session_id: s0.session_id }))
      })))
      assert.strictEqual(sqlStateOf(attempt).code, "23505")
      assert.isTrue(Option.isNone(yield* a!.customers.get(scope, customer.customer_id)))
      assert.isTrue(Option.isNone(yield* a!.payments.get(scope, second.payment_id)))

      // Settled attempts, other sessions and payments without a session are not limited.
      yield* a!.payments.insert(failedOf(yield* makePayment(scope, { checkout_session_id: s0.session_id })))
      yield* a!.payments.insert(yield* makePayment(scope, { checkout_session_id: s1.session_id }))
      yield* a!.payments.insert(yield* makePayment(scope, { billing_reason: "subscription_renewal" }))
      yield* a!.payments.insert(yield* makePayment(scope, { billing_reason: "subscription_renewal" }))
      // Once the first charge settles, the session may be charged again.
      yield* a!.payments.update(failedOf(first))
      yield* a!.payments.insert(yield* makePayment(scope, { checkout_session_id: s0.session_id }))

      // Two servers recording a processing payment for one session at once: exactly one commits.
      const racers = yield* Effect.forEach([a!, b!], (store) =>
        Effect.map(makePayment(scope, { checkout_session_id: s2.session_id }), (payment) => ({ store, payment })))
      const exits = yield* Effect.all(
        racers.map(({ payment, store }) => Effect.exit(store.transact(store.payments.insert(payment)))),
        { concurrency: "unbounded" }
      )
      assert.strictEqual(exits.filter(Exit.isSuccess).length, 1)
      assert.strictEqual(sqlStateOf(exits.find(Exit.isFailure)!).code, "23505")
      const page = yield* a!.payments.list(scope, { checkout_session_id: s2.session_id }, { limit: 10, after: undefined })
      assert.strictEqual(page.items.length, 1)
    }))

  it.scopedLive("claims: two transactions claiming from one due set with SKIP LOCKED never get the same row", () =>
    Effect.gen(function*() {
      const { scope, stores: [a, b, c] } = yield* servers(3)
      const E = T0 - 86_400_000
      const due = yield* Effect.forEach([0, 1, 2, 3, 4, 5], (i) => makeSession(scope, dueAt(E + i * 1_000)))
      yield* insertAll(shuffle(due), a!.sessions.insert)
      const processing = yield* Effect.forEach([0, 1, 2, 3, 4, 5], (i) => makePayment(scope, { created_at: at(E + i) }))
      yield* insertAll(shuffle(processing), a!.payments.insert)
      const now = at(E + 10_000)
      const sessionIds = (rows: ReadonlyArray<CheckoutSession>) => rows.map((s) => s.session_id)
      const paymentIds = (rows: ReadonlyArray<Payment.Payment>) => rows.map((p) => p.payment_id)

      const claims = [
        {
          name: "sessions.claimExpired",
          expected: sessionIds(due),
          claim: (store: StoreShape, limit: number) => Effect.map(store.sessions.claimExpired(now, limit), sessionIds)
        },
        {
          name: "payments.claimProcessing",
          expected: paymentIds(processing),
          claim: (store: StoreShape, limit: number) => Effect.map(store.payments.claimProcessing(limit), paymentIds)
        }
      ]
      for (const { claim, expected, name } of claims) {
        const claimed = yield* Deferred.make<ReadonlyArray<string>>()
        const release = yield* Deferred.make<void>()
        // The first claimer holds its rows until released.
        const holder = yield* Effect.fork(a!.transact(Effect.gen(function*() {
          const rows = yield* claim(a!, 3)
          yield* Deferred.succeed(claimed, rows)
          yield* Deferred.await(release)
          return rows
        })))
        const first = yield* Deferred.await(claimed)
        // The second, meanwhile, gets the next rows at once (without SKIP LOCKED it would wait for the first).
        const second = yield* b!.transact(claim(b!, 3)).pipe(
          Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => `${name}: the second claimer waited for the first` })
        )
        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(holder)

        assert.deepStrictEqual(first, expected.slice(0, 3), `${name}: the first claimer takes the oldest`)
        assert.deepStrictEqual(second, expected.slice(3), `${name}: the second takes the rest, none of the first's`)
        // Both transactions ended without changing the rows: they are due again, for anyone.
        assert.deepStrictEqual(yield* c!.transact(claim(c!, 10)), expected)
      }
    }))

  it.scopedLive("find inside a transaction locks the row: a second transaction's find waits until the first commits", () =>
    Effect.gen(function*() {
      const { scope, stores: [a, b], url } = yield* servers(2)
      const session = yield* makeSession(scope)
      yield* a!.sessions.insert(session)
      const payment = yield* makePayment(scope, { checkout_session_id: session.session_id })
      yield* a!.payments.insert(payment)

      const cases = [
        {
          table: "checkout_sessions",
          find: (store: StoreShape) => store.sessions.find(session.session_id) as Effect.Effect<Option.Option<unknown>, unknown>,
          before: session,
          // The first transaction changes the row, so what the second reads shows when it read.
          change: (store: StoreShape) => store.sessions.update({ ...session, status: "expired" }),
          after: { ...session, status: "expired" }
        },
        {
          table: "payments",
          find: (store: StoreShape) => store.payments.find(payment.payment_id) as Effect.Effect<Option.Option<unknown>, unknown>,
          before: payment,
          change: (store: StoreShape) => store.payments.update(failedOf(payment)),
          after: failedOf(payment)
        }
      ]
      for (const { after, before, change, find, table } of cases) {
        const locked = yield* Deferred.make<void>()
        const release = yield* Deferred.make<void>()
        const first = yield* Effect.fork(a!.transact(Effect.gen(function*() {
          same(yield* find(a!), Option.some(before))
          yield* Deferred.succeed(locked, undefined)
          yield* Deferred.await(release)
          yield* change(a!)
        })))
        yield* Deferred.await(locked)

        // Outside a transaction, find takes no lock and does not wait (the hosted page never waits for a charge).
        const unlocked = yield* find(b!).pipe(
          Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => `${table}: find outside a transaction waited` })
        )
        same(unlocked, Option.some(before))

        const second = yield* Effect.fork(b!.transact(find(b!)))
        // Whichever happens first: the second read returns, or the database shows it waiting for the row lock.
        const outcome = yield* Effect.raceFirst(
          Effect.as(Fiber.join(second), "read without waiting"),
          Effect.as(Effect.scoped(someoneWaitsForLock(url, table)), "waits for the lock")
        )
        assert.strictEqual(outcome, "waits for the lock", table)
        assert.isTrue(Option.isNone(yield* Fiber.poll(second)), `${table}: still waiting`)

        yield* Deferred.succeed(release, undefined)
        yield* Fiber.join(first)
        // It read the row as the first transaction committed it: its read came after that commit.
        same(yield* Fiber.join(second), Option.some(after))
      }
    }))
})
