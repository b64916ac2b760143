/**
 * The Store contract on PostgreSQL (a fresh database of the run's server), plus what only a real database shows:
 * limits shared by separate connection pools (servers), an unreachable database answered quickly as
 * `StoreUnavailable`, and statement errors as defects.
 */
import { assert, describe, it } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { SqlError } from "@effect/sql/SqlError"
import {
  Cause,
  Context,
  DateTime,
  Deferred,
  Duration,
  Effect,
  Either,
  Exit,
  FastCheck,
  Fiber,
  Layer,
  Option,
  Redacted,
  Schedule
} from "effect"
import { MigratedPg, migrate, migrateWith, PgLive } from "../../adapters/sql/Postgres.js"
import { migrations } from "../../adapters/sql/migrations/index.js"
import { StoreSql } from "../../adapters/sql/StoreSql.js"
import { makeSecretBox } from "../../adapters/crypto/SecretBox.js"
import { SecretBox } from "../../src/ports/SecretBox.js"
import { randomBytes } from "node:crypto"
import { newId } from "../../src/application/Ids.js"
import type { Account } from "../../src/domain/Account.js"
import type { CheckoutSession } from "../../src/domain/CheckoutSession.js"
import type { AuditEntry, DashboardUser } from "../../src/domain/DashboardUser.js"
import type { AccountId, AuditId, CheckoutSessionId, PaymentId, ProductId, SubscriptionId, UserId } from "../../src/domain/Ids.js"
import * as Payment from "../../src/domain/Payment.js"
import * as PlanChange from "../../src/domain/PlanChange.js"
import * as Subscription from "../../src/domain/Subscription.js"
import { type RenewalAttempt, Store, type StoreShape } from "../../src/ports/Store.js"
import { emptyDatabaseUrl, FreshDatabase, freshDatabaseUrl, migratedDatabaseUrl } from "../support/database.js"
import { storeOn } from "../support/postgresStore.js"
import { closedPort, silentServer, tcpProxy } from "../support/tcp.js"
import {
  advance,
  at,
  card,
  chargeDeclined,
  chargeOk,
  dueAt,
  dueMillis,
  failedOf,
  insertAll,
  makeCustomer,
  makeEvent,
  makePayment,
  makeSession,
  millis,
  paymentCustomer,
  renewalPayment,
  same,
  sessionCustomer,
  shuffle,
  startSubscription,
  storeContract,
  subscriptionParents,
  succeededOf
} from "./storeContract.js"
import { makeDelivery, makeEndpoint } from "./webhookStoreContract.js"

storeContract("StoreSql (PostgreSQL)", StoreSql.pipe(Layer.provide(FreshDatabase())))

const T0 = Date.UTC(2026, 10, 21, 10, 0, 0, 0)

const newAccount = Effect.map(newId<AccountId>("acct"), (account_id): Account => ({
  account_id,
  business_name: "Souq Books",
  support_email: null,
  live_payments_enabled: false,
  tax_profile: null,
  time_zone: "Asia/Dubai",
  two_factor_required: false,
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
  it.scopedLive("rate limits: a server not yet upgraded (fils_rate_limit_hit) shares the window and keeps its offsets", () =>
    Effect.gen(function*() {
      const url = yield* freshDatabaseUrl
      const sql = Context.get(yield* Layer.build(MigratedPg(url)), SqlClient.SqlClient)
      const store = Context.get(yield* Layer.build(StoreSql.pipe(Layer.provide(MigratedPg(url)))), Store)
      const old = (at: number) =>
        Effect.map(sql<{ granted: number; reset_seconds: number }>`SELECT * FROM fils_rate_limit_hit('key:mixed', ${at}, 3, 60, 1)`, (rows) => rows[0]!)
      // Two requests through the old entry point, one through the new: the limit of 3 holds across both.
      assert.strictEqual((yield* old(T0 + 100)).granted, 1)
      assert.strictEqual((yield* store.rateLimits.hit("key:mixed", T0 + 400, 3, 60)).granted, 1)
      assert.strictEqual((yield* old(T0 + 250)).granted, 1)
      const refused = yield* store.rateLimits.hit("key:mixed", T0 + 1_000, 3, 60)
      assert.isFalse(refused.allowed)
      // The slot remembers its latest request (T0 + 400) whichever server wrote it: free again 60 s after it.
      assert.strictEqual(refused.resetSeconds, 60)
      assert.isFalse((yield* store.rateLimits.hit("key:mixed", T0 + 60_399, 3, 60)).allowed)
      assert.isTrue((yield* store.rateLimits.hit("key:mixed", T0 + 60_400, 3, 60)).allowed)
    }))

  it.scopedLive("migrations: one that landed after a later one ran (merged out of order) still runs, once", () =>
    Effect.gen(function*() {
      const url = yield* emptyDatabaseUrl
      const sql = Context.get(yield* Layer.build(PgLive(url)), SqlClient.SqlClient)
      const { "0023_trials": trials, ...without } = migrations
      assert.isDefined(trials)
      yield* Effect.provideService(migrateWith(without), SqlClient.SqlClient, sql)
      const trialColumn = sql<{ n: number }>`SELECT count(*)::int AS n FROM information_schema.columns
        WHERE table_name = 'products' AND column_name = 'trial_period_days'`
      assert.strictEqual((yield* trialColumn)[0]!.n, 0, "the database ran the later ones without it")
      const ran = yield* Effect.provideService(migrate, SqlClient.SqlClient, sql)
      assert.deepStrictEqual(ran, [[23, "trials"]])
      assert.strictEqual((yield* trialColumn)[0]!.n, 1)
      assert.deepStrictEqual(yield* Effect.provideService(migrate, SqlClient.SqlClient, sql), [], "and only once")
    }))

  it.scopedLive("migrations: concurrent runners agree; tables have real column types", () =>
    Effect.gen(function*() {
      const url = yield* emptyDatabaseUrl
      yield* Effect.all([1, 2, 3].map(() => Layer.build(MigratedPg(url))), { concurrency: "unbounded" })
      const sql = Context.get(yield* Layer.build(PgLive(url)), SqlClient.SqlClient)
      const applied = yield* sql<{ name: string }>`SELECT name FROM effect_sql_migrations ORDER BY migration_id`
      assert.deepStrictEqual(applied.map((r) => r.name), [
        "init",
        "rate_limit_hit",
        "checkout_payments_events",
        "subscriptions",
        "webhooks",
        "webhook_secrets_at_rest",
        "rate_limit_in_order",
        "performance",
        "rate_limit_batches",
        "rate_limit_latest",
        "refunds",
        "dashboard",
        "payment_days",
        "api_key_usage",
        "customer_portal",
        "rate_limit_shares",
        "dashboard_invitations",
        "event_subjects",
        "tax_documents",
        "einvoice_transmissions",
        "billing_reasons",
        "discounts",
        "trials",
        "plan_changes",
        "test_clocks",
        "webhook_debugging",
        "request_logs",
        "period_revenue",
        "webhook_storage",
        "test_clock_documents",
        "time_zone",
        "refund_reasons",
        "payment_search",
        "refunds_by_scope",
        "two_factor",
        "monthly_revenue_days",
        "request_logs_pruned_by_id",
        "delivery_indexes"
      ])
      const columns = yield* sql<{ table_name: string; column_name: string; data_type: string }>`
        SELECT table_name, column_name, data_type FROM information_schema.columns
        WHERE (table_name, column_name) IN (('products', 'price'), ('products', 'created_at'), ('products', 'metadata'),
          ('rate_limits', 'seconds'), ('idempotency_keys', 'expires_at'), ('checkout_sessions', 'product_cart'),
          ('checkout_sessions', 'expires_at'), ('payments', 'net_amount'), ('payments', 'card_exp_year'),
          ('events', 'data'), ('subscriptions', 'recurring_amount'), ('subscriptions', 'next_billing_date'),
          ('subscriptions', 'next_retry_at'), ('subscriptions', 'due_at'), ('subscriptions', 'period'),
          ('subscriptions', 'cancel_at_period_end'), ('subscriptions', 'metadata'), ('subscription_attempts', 'attempt'))
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
        "rate_limits.seconds: ARRAY",
        "subscription_attempts.attempt: integer",
        "subscriptions.cancel_at_period_end: boolean",
        "subscriptions.due_at: timestamp with time zone",
        "subscriptions.metadata: jsonb",
        "subscriptions.next_billing_date: timestamp with time zone",
        "subscriptions.next_retry_at: timestamp with time zone",
        "subscriptions.period: integer",
        "subscriptions.recurring_amount: bigint"
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
      // The billing claim and the subscription lists can walk their indexes in order, with no sort (the tables are
      // empty, so other plans are turned off to ask whether this one exists).
      const plans = yield* sql.withTransaction(Effect.gen(function*() {
        yield* sql`SET LOCAL enable_seqscan = off`
        yield* sql`SET LOCAL enable_bitmapscan = off`
        const explain = (statement: string, params?: ReadonlyArray<string>) =>
          Effect.map(sql.unsafe<{ "QUERY PLAN": string }>(`EXPLAIN ${statement}`, params), (rows) =>
            rows.map((r) => r["QUERY PLAN"]).join("\n"))
        return yield* Effect.all([
          explain(`SELECT * FROM subscriptions WHERE due_at <= now() AND livemode = false
            ORDER BY due_at, subscription_id LIMIT 100 FOR UPDATE SKIP LOCKED`),
          explain(`SELECT * FROM subscriptions WHERE account_id = 'acct_x' AND livemode = false AND customer_id = 'cus_x'
            ORDER BY created_at DESC, subscription_id DESC LIMIT 21`),
          explain(`SELECT * FROM subscriptions WHERE account_id = 'acct_x' AND livemode = false AND status = 'on_hold'
            ORDER BY created_at DESC, subscription_id DESC LIMIT 21`),
          // The dashboard's payment search, by amount and by the card's last 4.
          explain(`SELECT * FROM payments WHERE account_id = 'acct_x' AND livemode = false AND total_amount = 34900
            ORDER BY created_at DESC, payment_id DESC LIMIT 51`),
          explain(`SELECT * FROM payments WHERE account_id = 'acct_x' AND livemode = false AND card_last4 = '4242'
            ORDER BY created_at DESC, payment_id DESC LIMIT 51`),
          // The operator's delivery list by a status other than success (migration 0038), the status a parameter as
          // the repository sends it; and all of it.
          ...(["pending", "failed", "cancelled"] as const).map((status) =>
            explain(`SELECT * FROM webhook_deliveries WHERE status = $1 ORDER BY created_at DESC, delivery_id DESC LIMIT 100`, [status])
          ),
          explain(`SELECT * FROM webhook_deliveries ORDER BY created_at DESC, delivery_id DESC LIMIT 100`)
        ])
      }))
      assert.match(plans[0]!, /Index Scan using subscriptions_due/)
      assert.match(plans[1]!, /Index Scan using subscriptions_by_customer/)
      assert.match(plans[2]!, /Index Scan using subscriptions_by_status/)
      assert.match(plans[3]!, /Index Scan using payments_by_amount/)
      assert.match(plans[4]!, /Index Scan using payments_by_card/)
      for (const plan of plans.slice(5, 8)) assert.match(plan, /Index Scan using webhook_deliveries_unsucceeded/)
      assert.match(plans[8]!, /Index Scan using webhook_deliveries_list/)
      for (const plan of plans) assert.notMatch(plan, /Sort/)
      // The saved card of a subscription: the same, and nothing else that could hold a number.
      const savedCard = yield* sql<{ column_name: string }>`SELECT column_name FROM information_schema.columns
        WHERE table_name = 'subscriptions' AND (column_name LIKE 'card%' OR column_name LIKE '%number%' OR column_name LIKE '%pan%')
        ORDER BY column_name`
      assert.deepStrictEqual(savedCard.map((c) => c.column_name), [
        "card_brand",
        "card_exp_month",
        "card_exp_year",
        "card_last4",
        "card_token"
      ])
    }))

  it.scopedLive("a rate limit and an idempotency key hold across separate connection pools (servers)", () =>
    Effect.gen(function*() {
      const url = yield* migratedDatabaseUrl
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

  it.scopedLive("a time zone change waits for the account's payment writes in flight: none is counted in the zone it replaced", () =>
    Effect.gen(function*() {
      const url = yield* migratedDatabaseUrl
      const [a, b] = yield* Effect.all([storeOn(url), storeOn(url)])
      const account = yield* newAccount
      yield* a!.accounts.insert(account)
      const scope = { accountId: account.account_id, livemode: false }
      // 21:00 UTC: the next day in Dubai, the same day in UTC.
      const payment = succeededOf(yield* makePayment(scope, { created_at: DateTime.unsafeMake(Date.UTC(2026, 5, 1, 21)) }))
      const inserted = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const writer = yield* Effect.fork(a!.transact(Effect.gen(function*() {
        yield* a!.payments.insert(payment)
        yield* Deferred.succeed(inserted, undefined)
        yield* Deferred.await(release)
      })))
      yield* Deferred.await(inserted)
      const change = yield* Effect.fork(b!.transact(b!.accounts.setTimeZone(account.account_id, "UTC")))
      const monitor = Context.get(yield* Layer.build(PgLive(url, { maxConnections: 1 })), SqlClient.SqlClient)
      yield* monitor<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event = 'advisory' AND query LIKE '%fils_set_time_zone%'`.pipe(
        Effect.map((rows) => rows[0]!.n > 0),
        Effect.repeat({ schedule: Schedule.spaced("10 millis"), until: (waiting) => waiting }),
        Effect.orDie,
        Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => "the change did not wait for the payment's write" })
      )
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(writer)
      assert.isTrue(yield* Fiber.join(change))
      const summary = yield* a!.payments.summary(scope, "2026-06-01")
      same(summary.daily, [{ day: "2026-06-01", gross: payment.total_amount }])
    }))

  it.scopedLive("a TOTP secret rests sealed by the SecretBox, as webhook secrets do, bound to its user", () =>
    Effect.gen(function*() {
      const url = yield* migratedDatabaseUrl
      const box = makeSecretBox(randomBytes(32))
      const store = yield* storeOn(url).pipe(Effect.provideService(SecretBox, box))
      const account = yield* newAccount
      yield* store.accounts.insert(account)
      const user_id = yield* newId<UserId>("usr")
      yield* store.dashboard.insertUser({
        user_id, account_id: account.account_id, email: "sealed@example.ae", role: "owner", password_hash: null,
        created_at: DateTime.unsafeMake(T0), updated_at: DateTime.unsafeMake(T0)
      })
      const secret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"
      yield* store.dashboard.putTwoFactor({ user_id, secret: Redacted.make(secret), enabled_at: null, last_step: null, recovery_codes: [] })
      const sql = Context.get(yield* Layer.build(PgLive(url)), SqlClient.SqlClient)
      const [row] = yield* sql<{ secret: string }>`SELECT secret FROM dashboard_two_factor WHERE user_id = ${user_id}`
      assert.match(row!.secret, /^enc:/)
      assert.notInclude(row!.secret, secret)
      // Bound to its user: the same sealed value under another user's id does not open.
      assert.isTrue(Either.isLeft(box.open(row!.secret, "usr_other")))
      const read = yield* store.dashboard.getTwoFactor(user_id)
      assert.strictEqual(Option.map(read, (t) => Redacted.value(t.secret)).pipe(Option.getOrNull), secret)
    }))

  it.scopedLive("a statement the database rejects is a defect, not StoreUnavailable", () =>
    Effect.gen(function*() {
      const store = yield* storeOn(yield* migratedDatabaseUrl)
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
        trial_period_days: 0,
        trial_amount: null,
        status: "active",
        tax_category: "S",
        tax_exemption_code: null,
        item_type: "S",
        item_code: null,
        plan_change_policy: null,
        offered_in_portal: false,
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
      const url = yield* migratedDatabaseUrl
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
    const url = yield* migratedDatabaseUrl
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
  it.scopedLive("the schema refuses exactly the payments Payment.violations refuses (docs/decisions.md §5)", () =>
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

  it.scopedLive("a row the domain refuses reads as a defect naming the row and the field, never as a domain value", () =>
    Effect.gen(function*() {
      const { scope, stores: [store], url } = yield* servers(1)
      const s = store!
      const raw = Context.get(yield* Layer.build(PgLive(url, { maxConnections: 1 })), SqlClient.SqlClient)
      const payment = succeededOf(yield* makePayment(scope))
      const customer = yield* makeCustomer(scope)
      const session = yield* makeSession(scope)
      yield* s.customers.insert(customer)
      yield* s.payments.insert(payment)
      yield* s.sessions.insert(session)
      // What the tables' CHECKs let through and the domain's Schemas refuse: written behind the store's back.
      yield* Effect.orDie(Effect.all([
        raw`UPDATE payments SET currency = 'USD' WHERE payment_id = ${payment.payment_id}`,
        raw`UPDATE customers SET metadata = '{"tier": 1}' WHERE customer_id = ${customer.customer_id}`,
        raw`UPDATE checkout_sessions SET product_cart = jsonb_set(product_cart, '{0,quantity}', '"2"')
          WHERE session_id = ${session.session_id}`
      ]))
      const page = { limit: 10, after: undefined }
      const refused = <A>(read: Effect.Effect<A, unknown>, row: string, field: string) =>
        Effect.map(Effect.exit(read), (exit) => {
          const defect = Exit.isFailure(exit) ? Cause.dieOption(exit.cause) : Option.none()
          assert.isTrue(Option.isSome(defect), `a defect, not ${Exit.isSuccess(exit) ? JSON.stringify(exit.value) : Cause.pretty(exit.cause)}`)
          const error = Option.getOrThrow(defect)
          assert.instanceOf(error, Error)
          assert.strictEqual(error.name, "UndecodableRow")
          assert.include(error.message, `a row of ${row} does not decode`)
          assert.include(error.message, field)
        })
      const paymentRow = `payments (payment_id ${payment.payment_id})`
      yield* refused(s.payments.get(scope, payment.payment_id), paymentRow, `["currency"]`)
      yield* refused(s.payments.list(scope, {}, page), paymentRow, `Expected Currency, actual "USD"`)
      const customerRow = `customers (customer_id ${customer.customer_id})`
      yield* refused(s.customers.get(scope, customer.customer_id), customerRow, `["tier"]`)
      const sessionRow = `checkout_sessions (session_id ${session.session_id})`
      yield* refused(s.sessions.get(scope, session.session_id), sessionRow, `["quantity"]`)
      yield* refused(s.sessions.list(scope, page), sessionRow, `actual "2"`)
    }))

  it.scopedLive("dashboard audit entries, webhook endpoints and deliveries: a row the domain refuses is a defect too", () =>
    Effect.gen(function*() {
      const { account, scope, stores: [store], url } = yield* servers(1)
      const s = store!
      const raw = Context.get(yield* Layer.build(PgLive(url, { maxConnections: 1 })), SqlClient.SqlClient)
      const user: DashboardUser = {
        user_id: yield* newId<UserId>("usr"),
        account_id: account.account_id,
        email: "amal@souq.ae",
        role: "owner",
        password_hash: null,
        created_at: at(T0),
        updated_at: at(T0)
      }
      const entry: AuditEntry = {
        audit_id: yield* newId<AuditId>("aud"),
        account_id: account.account_id,
        user_id: user.user_id,
        email: user.email,
        action: "product.create",
        object_id: null,
        livemode: false,
        address: "127.0.0.1",
        at: at(T0)
      }
      yield* s.dashboard.insertUser(user)
      yield* s.dashboard.insertAudit(entry)
      const endpoint = yield* makeEndpoint(scope)
      const event = yield* makeEvent(scope)
      const delivery = yield* makeDelivery(event, endpoint)
      yield* s.webhooks.insert(endpoint)
      yield* s.transact(Effect.zipRight(s.events.insert(event), s.deliveries.enqueue([delivery])))
      // What the tables let through and the domain refuses (these columns have no CHECK): behind the store's back.
      yield* Effect.orDie(Effect.all([
        raw`UPDATE dashboard_audit SET user_id = 'system' WHERE audit_id = ${entry.audit_id}`,
        raw`UPDATE webhook_endpoints SET webhook_id = 'wh_1' WHERE webhook_id = ${endpoint.webhook_id}`,
        raw`UPDATE webhook_deliveries SET webhook_id = 'hook' WHERE delivery_id = ${delivery.delivery_id}`
      ]))
      const refused = <A>(read: Effect.Effect<A, unknown>, row: string, field: string) =>
        Effect.map(Effect.exit(read), (exit) => {
          const defect = Exit.isFailure(exit) ? Cause.dieOption(exit.cause) : Option.none()
          assert.isTrue(Option.isSome(defect), `a defect, not ${Exit.isSuccess(exit) ? JSON.stringify(exit.value) : Cause.pretty(exit.cause)}`)
          const error = Option.getOrThrow(defect)
          assert.instanceOf(error, Error)
          assert.strictEqual(error.name, "UndecodableRow")
          assert.include(error.message, `a row of ${row} does not decode`)
          assert.include(error.message, field)
        })
      yield* refused(s.dashboard.listAudit(account.account_id, 10), `dashboard_audit (audit_id ${entry.audit_id})`, `["user_id"]`)
      yield* refused(s.webhooks.list(scope, { limit: 10, after: undefined }), "webhook_endpoints (webhook_id wh_1)", `["webhook_id"]`)
      yield* refused(s.deliveries.get(delivery.delivery_id), `webhook_deliveries (delivery_id ${delivery.delivery_id})`, `actual "hook"`)
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
      const daily = yield* subscriptionParents(a!, scope, { interval: "day", count: 1 })
      // Renewing at E + i s; the last two on hold, retrying then (a renewal declined a day before).
      const renewing = yield* Effect.forEach([0, 1, 2, 3, 4, 5], (i) =>
        Effect.map(
          startSubscription(daily, { paidAt: E + i * 1_000 - (i < 4 ? 1 : 2) * 86_400_000 }),
          (s) => (i < 4 ? s : advance(s, chargeDeclined, dueMillis(s)))
        ))
      assert.deepStrictEqual(renewing.map((s) => dueMillis(s) - E), [0, 1_000, 2_000, 3_000, 4_000, 5_000])
      yield* insertAll(shuffle(renewing), a!.subscriptions.insert)
      const now = at(E + 10_000)
      const sessionIds = (rows: ReadonlyArray<CheckoutSession>) => rows.map((s) => s.session_id)
      const subscriptionIds = (rows: ReadonlyArray<Subscription.Subscription>) => rows.map((s) => s.subscription_id)

      const claims = [
        {
          name: "sessions.claimExpired",
          expected: sessionIds(due),
          claim: (store: StoreShape, limit: number) => Effect.map(store.sessions.claimExpired(now, limit), sessionIds)
        },
        {
          name: "subscriptions.claimDue",
          expected: subscriptionIds(renewing),
          claim: (store: StoreShape, limit: number) => Effect.map(store.subscriptions.claimDue(now, limit), subscriptionIds)
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

  it.scopedLive("lock inside a transaction locks the row: a second transaction's lock waits until the first commits; find never waits", () =>
    Effect.gen(function*() {
      const { scope, stores: [a, b], url } = yield* servers(2)
      const session = yield* makeSession(scope)
      yield* a!.sessions.insert(session)
      const payment = yield* makePayment(scope, { checkout_session_id: session.session_id })
      yield* a!.payments.insert(payment)
      const subscription = yield* startSubscription(yield* subscriptionParents(a!, scope))
      yield* a!.subscriptions.insert(subscription)
      const renewed = advance(subscription, chargeOk, dueMillis(subscription))

      const cases = [
        {
          table: "checkout_sessions",
          lock: (store: StoreShape) => store.sessions.lock(session.session_id) as Effect.Effect<Option.Option<unknown>, unknown>,
          find: (store: StoreShape) => store.sessions.find(session.session_id) as Effect.Effect<Option.Option<unknown>, unknown>,
          before: session,
          // The first transaction changes the row, so what the second reads shows when it read.
          change: (store: StoreShape) => store.sessions.update({ ...session, status: "expired" }),
          after: { ...session, status: "expired" }
        },
        {
          table: "payments",
          lock: (store: StoreShape) => store.payments.lock(payment.payment_id) as Effect.Effect<Option.Option<unknown>, unknown>,
          find: (store: StoreShape) => store.payments.find(payment.payment_id) as Effect.Effect<Option.Option<unknown>, unknown>,
          before: payment,
          change: (store: StoreShape) => store.payments.update(failedOf(payment)),
          after: failedOf(payment)
        },
        {
          table: "subscriptions",
          lock: (store: StoreShape) =>
            store.subscriptions.lock(subscription.subscription_id) as Effect.Effect<Option.Option<unknown>, unknown>,
          find: (store: StoreShape) =>
            store.subscriptions.find(subscription.subscription_id) as Effect.Effect<Option.Option<unknown>, unknown>,
          before: subscription,
          change: (store: StoreShape) => store.subscriptions.update(renewed),
          after: renewed
        }
      ]
      for (const { after, before, change, find, lock, table } of cases) {
        const locked = yield* Deferred.make<void>()
        const release = yield* Deferred.make<void>()
        const first = yield* Effect.fork(a!.transact(Effect.gen(function*() {
          same(yield* lock(a!), Option.some(before))
          yield* Deferred.succeed(locked, undefined)
          yield* Deferred.await(release)
          yield* change(a!)
        })))
        yield* Deferred.await(locked)

        // find takes no lock and never waits, in a transaction or not (the hosted page never waits for a charge).
        for (const read of [find(b!), b!.transact(find(b!)), lock(b!)]) {
          const unlocked = yield* read.pipe(
            Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => `${table}: a read that takes no lock waited` })
          )
          same(unlocked, Option.some(before))
        }

        const second = yield* Effect.fork(b!.transact(lock(b!)))
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

// Subscriptions: what only a real database shows ---------------------------------------------------------------------

const day = 86_400_000
const kindOf = (s: Subscription.Subscription) =>
  `${s.status}/${s.cancellation_reason ?? "-"}/${s.failed_payment_attempts}/${s.cancel_at_period_end}`

/** Every kind of state the machine makes: status / reason / failed attempts / cancel_at_period_end. */
const everyKind = [
  "active/-/0/false",
  "active/-/0/true",
  "on_hold/-/1/false",
  "on_hold/-/1/true",
  "on_hold/-/2/false",
  "on_hold/-/2/true",
  "on_hold/-/3/false",
  "on_hold/-/3/true",
  "cancelled/requested/0/false",
  "cancelled/requested/0/true",
  "cancelled/requested/1/false",
  "cancelled/requested/1/true",
  "cancelled/requested/2/false",
  "cancelled/requested/3/false",
  "cancelled/payment_failed/4/false",
  "cancelled/payment_failed/4/true"
]

describe("StoreSql on PostgreSQL: subscriptions", () => {
  it.scopedLive("the schema accepts every state the domain's machine makes (random runs of commands)", () =>
    Effect.gen(function*() {
      const { scope, stores: [store] } = yield* servers(1)
      const s = store!
      const schedules = [
        { interval: "day", count: 1 },
        { interval: "day", count: 365 },
        { interval: "week", count: 2 },
        { interval: "month", count: 1 },
        { interval: "month", count: 36 },
        { interval: "year", count: 3 }
      ] as const
      const parents = yield* Effect.forEach(schedules, (schedule) => subscriptionParents(s, scope, schedule))
      const commands = ["charge_ok", "charge_failed", "cancel", "flag_on", "flag_off", "end"] as const
      const runs = FastCheck.record({
        schedule: FastCheck.integer({ min: 0, max: schedules.length - 1 }),
        // Any millisecond from 1970 to 2100, and month ends, where calendar periods are shortened.
        paidAt: FastCheck.oneof(
          FastCheck.integer({ min: 0, max: Date.UTC(2100, 0, 1) }),
          FastCheck.constantFrom(Date.UTC(2028, 0, 31, 23, 59, 59, 999), Date.UTC(2027, 2, 31), Date.UTC(2028, 1, 29))
        ),
        quantity: FastCheck.integer({ min: 1, max: 1000 }),
        steps: FastCheck.array(
          FastCheck.record({
            // Cancellations end a run, so they come less often than charges.
            command: FastCheck.oneof(
              ...commands.map((command) => ({
                weight: { charge_ok: 3, charge_failed: 6, cancel: 1, flag_on: 2, flag_off: 1, end: 2 }[command],
                arbitrary: FastCheck.constant(command)
              }))
            ),
            late: FastCheck.integer({ min: 0, max: 2 * day })
          }),
          { maxLength: 16 }
        )
      })
      const kinds = new Set<string>()
      const refused: Array<string> = []
      let stored = 0
      for (const run of FastCheck.sample(runs, { numRuns: 200, seed: 20261122 })) {
        let current = yield* startSubscription(parents[run.schedule]!, { paidAt: run.paidAt, quantity: run.quantity })
        const save = (write: Effect.Effect<void, unknown>) =>
          Effect.gen(function*() {
            const exit = yield* Effect.exit(write)
            if (Exit.isFailure(exit)) {
              refused.push(`${kindOf(current)} ${sqlStateOf(exit).constraint}: ${JSON.stringify(current)}`)
              return false
            }
            same(yield* s.subscriptions.get(scope, current.subscription_id), Option.some(current))
            kinds.add(kindOf(current))
            stored++
            return true
          })
        if (!(yield* save(s.subscriptions.insert(current)))) continue
        for (const step of run.steps) {
          // Charges and period ends when due (or a little late); the rest during the current period.
          const due = Subscription.dueAt(current)
          const base = due !== null && (step.command.startsWith("charge") || step.command === "end")
            ? millis(due)
            : millis(current.current_period_start)
          const command: Subscription.SubscriptionCommand = step.command === "charge_ok"
            ? chargeOk
            : step.command === "charge_failed"
            ? chargeDeclined
            : step.command === "cancel"
            ? { _tag: "Cancel" }
            : step.command === "end"
            ? { _tag: "EndAtPeriodEnd" }
            : { _tag: "SetCancelAtPeriodEnd", value: step.command === "flag_on" }
          const result = Subscription.transition(current, command, at(base + step.late))
          if (Either.isLeft(result)) continue // the machine refuses it (e.g. charging a cancelled subscription)
          current = result.right.next
          if (!(yield* save(s.subscriptions.update(current)))) break
        }
      }
      assert.deepStrictEqual(refused, [])
      // Not vacuous: many states, of every kind.
      assert.isAtLeast(stored, 600)
      assert.deepStrictEqual(everyKind.filter((kind) => !kinds.has(kind)), [], "kinds never made")
    }))

  it.scopedLive("the schema refuses inconsistent subscriptions: each broken rule alone, beside its accepted control", () =>
    Effect.gen(function*() {
      const { scope, stores: [store] } = yield* servers(1)
      const s = store!
      const monthly = yield* subscriptionParents(s, scope)
      const active = yield* startSubscription(monthly, { paidAt: T0 })
      const renewed = advance(active, chargeOk, dueMillis(active))
      const onHold = advance(active, chargeDeclined, dueMillis(active))
      const onHold3 = advance(advance(onHold, chargeDeclined, dueMillis(onHold)), chargeDeclined, dueMillis(onHold) + 2 * day)
      const failedOut = advance(onHold3, chargeDeclined, dueMillis(onHold3))
      const cancelled = advance(active, { _tag: "Cancel" }, T0 + 1_000)
      const cancelledOnHold = advance(onHold, { _tag: "Cancel" }, dueMillis(onHold))
      assert.deepStrictEqual(
        [active, renewed, onHold, onHold3, failedOut, cancelled, cancelledOnHold].map(kindOf),
        [
          "active/-/0/false",
          "active/-/0/false",
          "on_hold/-/1/false",
          "on_hold/-/3/false",
          "cancelled/payment_failed/4/false",
          "cancelled/requested/0/false",
          "cancelled/requested/1/false"
        ]
      )
      // The states plan changes make (PlanChange), to a yearly plan half-way through the month: waiting for the
      // charge, declined with apply_change (on hold, its new plan's first period due), and do_not_bill (the new
      // schedule counting from the next billing date).
      const { product: yearly } = yield* subscriptionParents(s, scope, { interval: "year", count: 1 })
      const halfway = at(T0 + 15 * day)
      const pricedAs = (mode: "full_immediately" | "do_not_bill") =>
        Either.getOrThrow(PlanChange.price({ subscription: active, product: yearly, quantity: 1, request: { proration_billing_mode: mode }, at: halfway, vat: null, periodCharge: active.recurring_amount }))
      const changeCharge = yield* newId<PaymentId>("pay")
      const waiting = PlanChange.awaitCharge(active, pricedAs("full_immediately"), changeCharge)
      const changedUnpaid = PlanChange.settle(waiting, changeCharge, false, halfway)!.next
      const changedLater = PlanChange.changeWithoutCharge(active, pricedAs("do_not_bill")).next
      assert.deepStrictEqual([kindOf(changedUnpaid), changedUnpaid.anchor_period, changedLater.anchor_period], ["on_hold/-/1/false", 1, 1])
      const method = active.payment_method
      const cases: ReadonlyArray<readonly [Subscription.Subscription, Partial<Record<keyof Subscription.Subscription, unknown>>, string]> = [
        [active, { status: "paused" }, "subscriptions_status_check"],
        [active, { cancelled_at: at(T0 + 1) }, "subscriptions_cancelled"],
        [active, { cancellation_reason: "requested" }, "subscriptions_cancelled"],
        [cancelled, { cancelled_at: null }, "subscriptions_cancelled"],
        [cancelled, { cancellation_reason: null }, "subscriptions_cancelled"],
        [cancelled, { cancellation_reason: "fraud" }, "subscriptions_cancellation_reason_check"],
        [onHold, { next_retry_at: null }, "subscriptions_retry"],
        [active, { next_retry_at: at(T0 + day) }, "subscriptions_retry"],
        [onHold, { next_retry_at: onHold.first_failure_at }, "subscriptions_retry"],
        [cancelledOnHold, { failed_payment_attempts: 5 }, "subscriptions_failed_payment_attempts_check"],
        [cancelled, { failed_payment_attempts: -1 }, "subscriptions_failed_payment_attempts_check"],
        [active, { failed_payment_attempts: 1, first_failure_at: at(T0) }, "subscriptions_failures"],
        [onHold3, { failed_payment_attempts: 4 }, "subscriptions_failures"],
        [onHold, { failed_payment_attempts: 0, first_failure_at: null }, "subscriptions_failures"],
        [failedOut, { failed_payment_attempts: 3 }, "subscriptions_failures"],
        [cancelledOnHold, { failed_payment_attempts: 4 }, "subscriptions_failures"],
        [onHold, { first_failure_at: null }, "subscriptions_failures"],
        [active, { first_failure_at: at(T0) }, "subscriptions_failures"],
        [renewed, { next_billing_date: renewed.current_period_start }, "subscriptions_period"],
        [renewed, { next_billing_date: at(millis(renewed.current_period_start) - 1) }, "subscriptions_period"],
        [renewed, { current_period_start: at(millis(renewed.anchor) - 1) }, "subscriptions_period"],
        [active, { current_period_start: at(T0 + 1) }, "subscriptions_period"],
        [renewed, { period: 0 }, "subscriptions_period"],
        [active, { period: 1 }, "subscriptions_period"],
        [active, { billing_interval: "fortnight" }, "subscriptions_billing_interval_check"],
        [active, { interval_count: 0 }, "subscriptions_schedule"],
        [active, { interval_count: 37 }, "subscriptions_schedule"],
        [active, { quantity: 0 }, "subscriptions_quantity_check"],
        [active, { recurring_amount: -1 }, "subscriptions_recurring_amount_check"],
        [active, { currency: "aed" }, "subscriptions_currency_check"],
        [active, { name: "" }, "subscriptions_name_check"],
        [active, { customer: { ...active.customer, email: `${"m".repeat(245)}@example.ae` } }, "subscriptions_customer_email_check"],
        [active, { payment_method: { ...method, last4: "42" } }, "subscriptions_card_last4_check"],
        [active, { payment_method: { ...method, last4: "4x42" } }, "subscriptions_card_last4_check"],
        [active, { payment_method: { ...method, exp_month: 13 } }, "subscriptions_card_exp_month_check"],
        [active, { payment_method: { ...method, exp_year: 31 } }, "subscriptions_card_exp_year_check"],
        [active, { payment_method: { ...method, brand: "" } }, "subscriptions_card_brand_check"],
        [active, { card_token: "" }, "subscriptions_card_token_check"],
        // Plan changes (0024): credit is never negative; periods count from the anchor a change set; only an active
        // subscription waits for a change's charge.
        [active, { credit_balance: -1 }, "subscriptions_credit_balance_check"],
        [active, { anchor_period: 2 }, "subscriptions_period"],
        [changedUnpaid, { anchor_period: changedUnpaid.period }, "subscriptions_period"],
        [changedUnpaid, { pending_change: waiting.pending_change }, "subscriptions_pending_change"],
        [changedLater, { current_period_start: at(millis(changedLater.anchor) + day) }, "subscriptions_period"]
      ]
      for (const [control, broken, constraint] of cases) {
        const refused = sqlStateOf(yield* Effect.exit(s.subscriptions.insert({
          ...control,
          ...broken,
          subscription_id: yield* newId<SubscriptionId>("sub")
        } as Subscription.Subscription)))
        assert.deepStrictEqual([refused.code, refused.constraint], ["23514", constraint], JSON.stringify(broken))
        // The same state without the broken part is stored.
        yield* s.subscriptions.insert({ ...control, subscription_id: yield* newId<SubscriptionId>("sub") })
      }
      // An update is held to the same rules: the row stays as it was.
      yield* s.subscriptions.insert(onHold)
      const update = sqlStateOf(yield* Effect.exit(s.subscriptions.update({ ...onHold, next_retry_at: null })))
      assert.deepStrictEqual([update.code, update.constraint], ["23514", "subscriptions_retry"])
      same(yield* s.subscriptions.get(scope, onHold.subscription_id), Option.some(onHold))
      // A waiting change and a scheduled one read back as written.
      const scheduled = PlanChange.schedule(active, Either.getOrThrow(PlanChange.price({
        subscription: active, product: yearly, quantity: 2, request: { proration_billing_mode: "full_immediately", effective_at: "next_billing_date" }, at: halfway, vat: null,
        periodCharge: active.recurring_amount
      }))).next
      const stored: Array<Subscription.Subscription> = []
      for (const state of [waiting, scheduled, { ...changedLater, credit_balance: 1234 }]) {
        const copy = { ...state, subscription_id: yield* newId<SubscriptionId>("sub") }
        yield* s.subscriptions.insert(copy)
        same(yield* s.subscriptions.get(scope, copy.subscription_id), Option.some(copy))
        stored.push(copy)
      }
      // A batch update (billing's) writes them too.
      const batch = [{ ...stored[1]!, scheduled_change: null, credit_balance: 77 }, { ...stored[2]!, scheduled_change: scheduled.scheduled_change }]
      yield* s.subscriptions.updateAll(batch)
      for (const b of batch) same(yield* s.subscriptions.get(scope, b.subscription_id), Option.some(b))
    }))

  it.scopedLive("references stay within one account and mode; attempts name a payment of their subscription", () =>
    Effect.gen(function*() {
      const { account, scope, stores: [store] } = yield* servers(1)
      const s = store!
      const other = yield* newAccount
      yield* s.accounts.insert(other)
      const live = { accountId: account.account_id, livemode: true }
      const mine = yield* subscriptionParents(s, scope)
      const theirs = yield* subscriptionParents(s, { accountId: other.account_id, livemode: false })
      const liveParents = yield* subscriptionParents(s, live)
      const refused = (state: string, constraint: string, effect: Effect.Effect<unknown, unknown>) =>
        Effect.map(Effect.exit(effect), (exit) => {
          const error = sqlStateOf(exit)
          assert.deepStrictEqual([error.code, error.constraint], [state, constraint])
        })
      const start = (options: Parameters<typeof startSubscription>[1] = {}) => startSubscription(mine, options)
      const customerOf = (p: typeof mine) => ({ customer_id: p.customer.customer_id, name: p.customer.name, email: p.customer.email })

      // Customer, product and session of the subscription's own scope, beside controls.
      const ok = yield* start()
      yield* s.subscriptions.insert(ok)
      yield* refused("23503", "subscriptions_customer", s.subscriptions.insert({ ...(yield* start()), customer: customerOf(theirs) }))
      yield* refused("23503", "subscriptions_customer", s.subscriptions.insert({ ...(yield* start()), customer: customerOf(liveParents) }))
      yield* refused("23503", "subscriptions_product", s.subscriptions.insert({ ...(yield* start()), product_id: theirs.product.product_id }))
      yield* refused("23503", "subscriptions_product", s.subscriptions.insert({ ...(yield* start()), product_id: yield* newId<ProductId>("pdt") }))
      const session = yield* makeSession(scope, { kind: "subscription" })
      const liveSession = yield* makeSession(live, { kind: "subscription" })
      yield* insertAll([session, liveSession], s.sessions.insert)
      yield* refused("23503", "subscriptions_checkout_session", s.subscriptions.insert(yield* start({ checkoutSessionId: liveSession.session_id })))
      const started = yield* start({ checkoutSessionId: session.session_id })
      yield* s.subscriptions.insert(started)
      // A checkout starts one subscription.
      yield* refused("23505", "subscriptions_one_per_session", s.subscriptions.insert(yield* start({ checkoutSessionId: session.session_id })))

      // A payment or a session names a subscription of its own scope.
      const theirSubscription = yield* startSubscription(theirs)
      const liveSubscription = yield* startSubscription(liveParents)
      yield* insertAll([theirSubscription, liveSubscription], s.subscriptions.insert)
      yield* s.payments.insert(yield* renewalPayment(ok))
      yield* refused("23503", "payments_subscription", s.payments.insert(yield* renewalPayment(ok, { subscription_id: theirSubscription.subscription_id })))
      yield* refused("23503", "payments_subscription", s.payments.insert(yield* renewalPayment(ok, { subscription_id: yield* newId<SubscriptionId>("sub") })))
      yield* refused(
        "23503",
        "checkout_sessions_subscription_ref",
        s.sessions.update({ ...session, subscription_id: liveSubscription.subscription_id })
      )
      yield* s.sessions.update({ ...session, subscription_id: started.subscription_id })

      // Checked at commit: a subscription inserted later in the transaction is fine; one never inserted undoes it all.
      const later = yield* start()
      const first = yield* renewalPayment(later)
      yield* s.transact(Effect.zipRight(s.payments.insert(first), s.subscriptions.insert(later)))
      same(yield* s.payments.get(scope, first.payment_id), Option.some(first))
      const customer = yield* makeCustomer(scope)
      const dangling = yield* renewalPayment(ok, { subscription_id: yield* newId<SubscriptionId>("sub") })
      yield* refused("23503", "payments_subscription", s.transact(Effect.zipRight(s.customers.insert(customer), s.payments.insert(dangling))))
      assert.isTrue(Option.isNone(yield* s.customers.get(scope, customer.customer_id)))
      assert.isTrue(Option.isNone(yield* s.payments.get(scope, dangling.payment_id)))

      // Attempts: periods from 1, attempts 0 to 3, each for one payment of that subscription.
      const payments = yield* Effect.forEach([0, 1, 2, 3], () => renewalPayment(ok))
      yield* insertAll(payments, s.payments.insert)
      const attempt = (overrides: Partial<RenewalAttempt> = {}): RenewalAttempt => ({
        subscription_id: ok.subscription_id,
        period: 1,
        attempt: 0,
        payment_id: payments[0]!.payment_id,
        ...overrides
      })
      yield* refused("23514", "subscription_attempts_period_check", s.subscriptions.recordAttempt(attempt({ period: 0 })))
      yield* refused("23514", "subscription_attempts_attempt_check", s.subscriptions.recordAttempt(attempt({ attempt: 4 })))
      yield* refused("23514", "subscription_attempts_attempt_check", s.subscriptions.recordAttempt(attempt({ attempt: -1 })))
      yield* refused(
        "23503",
        "subscription_attempts_payment",
        s.subscriptions.recordAttempt(attempt({ payment_id: first.payment_id }))
      )
      yield* refused(
        "23503",
        "subscription_attempts_payment",
        s.subscriptions.recordAttempt(attempt({ payment_id: yield* newId<PaymentId>("pay") }))
      )
      yield* refused(
        "23503",
        "subscription_attempts_subscription_id_fkey",
        s.subscriptions.recordAttempt(attempt({ subscription_id: yield* newId<SubscriptionId>("sub") }))
      )
      assert.isTrue(yield* s.subscriptions.recordAttempt(attempt()))
      assert.isTrue(yield* s.subscriptions.recordAttempt(attempt({ attempt: 3, payment_id: payments[1]!.payment_id })))
      assert.isTrue(yield* s.subscriptions.recordAttempt(attempt({ period: 2, payment_id: payments[2]!.payment_id })))
      yield* refused(
        "23505",
        "subscription_attempts_payment_id_key",
        s.subscriptions.recordAttempt(attempt({ period: 3, payment_id: payments[0]!.payment_id }))
      )
      assert.deepStrictEqual((yield* s.subscriptions.attempts(ok.subscription_id)).map((a) => [a.period, a.attempt]), [[1, 0], [1, 3], [2, 0]])
    }))

  /** `n` active subscriptions of one account, all due at `now` (daily, renewing up to `n` seconds ago), on 3 servers. */
  const dueSet = (n: number, now: number) =>
    Effect.gen(function*() {
      const setup = yield* servers(3)
      const daily = yield* subscriptionParents(setup.stores[0]!, setup.scope, { interval: "day", count: 1 })
      const due = yield* Effect.forEach(Array.from({ length: n }, (_, i) => i), (i) =>
        startSubscription(daily, { paidAt: now - day - i * 1_000 }))
      yield* insertAll(shuffle(due), setup.stores[0]!.subscriptions.insert)
      assert.strictEqual((yield* setup.stores[1]!.subscriptions.claimDue(at(now), 1_000)).length, n)
      return { ...setup, due }
    })

  /** What the processor was asked to charge, by subscription and period, and by which worker. */
  const makeLedger = (workers: number) => {
    const charges = new Map<string, number>()
    const byWorker = Array.from({ length: workers }, () => 0)
    return {
      charges,
      byWorker,
      /** Attempts another worker had recorded first (the uniqueness rule said no). */
      refused: 0,
      /** Claimed, but no longer due once locked (another worker had renewed it). */
      stale: 0,
      charge(worker: number, s: Subscription.Subscription) {
        const key = `${s.subscription_id}:${s.period + 1}`
        charges.set(key, (charges.get(key) ?? 0) + 1)
        byWorker[worker]!++
      }
    }
  }
  type Ledger = ReturnType<typeof makeLedger>

  /** Every due period was charged exactly once, the attempts say so, and nothing is due any more. */
  const verifyOnce = (
    setup: Effect.Effect.Success<ReturnType<typeof dueSet>>,
    ledger: Ledger,
    now: number
  ) =>
    Effect.gen(function*() {
      const { due, scope, stores, url } = setup
      const n = due.length
      const twice = [...ledger.charges.entries()].filter(([, times]) => times !== 1)
      assert.deepStrictEqual(twice, [], "charged more than once")
      assert.deepStrictEqual(
        [...ledger.charges.keys()].sort(),
        due.map((s) => `${s.subscription_id}:1`).sort(),
        "every due period charged"
      )
      assert.strictEqual(ledger.byWorker.reduce((a, b) => a + b, 0), n)
      const sql = Context.get(yield* Layer.build(PgLive(url, { maxConnections: 1 })), SqlClient.SqlClient)
      const [rows] = yield* sql<{ attempts: number; renewals: number }>`SELECT
        (SELECT count(*)::int FROM subscription_attempts) AS attempts,
        (SELECT count(*)::int FROM payments WHERE billing_reason = 'subscription_renewal' AND status = 'succeeded') AS renewals`
      assert.deepStrictEqual(rows, { attempts: n, renewals: n })
      for (const s of due) {
        const after = Option.getOrThrow(yield* stores[2]!.subscriptions.get(scope, s.subscription_id))
        assert.deepStrictEqual([after.status, after.period], ["active", 1])
        const attempts = yield* stores[2]!.subscriptions.attempts(s.subscription_id)
        assert.deepStrictEqual(attempts.map((a) => [a.period, a.attempt]), [[1, 0]])
        const payment = Option.getOrThrow(yield* stores[2]!.payments.get(scope, attempts[0]!.payment_id))
        assert.deepStrictEqual([payment.status, payment.subscription_id], ["succeeded", s.subscription_id])
      }
      assert.deepStrictEqual(yield* stores[2]!.subscriptions.claimDue(at(now), 1_000), [])
    })

  const N = 40
  const NOW = T0

  it.scopedLive("billing workers on separate pools charge every due period exactly once (claim, then lock, record, charge)", () =>
    Effect.gen(function*() {
      const setup = yield* dueSet(N, NOW)
      const ledger = makeLedger(setup.stores.length)
      // One renewal in one transaction: lock the row, check it is still due, record the attempt; charge only if that
      // attempt is ours; then advance the period.
      const renew = (store: StoreShape, worker: number, id: SubscriptionId) =>
        store.transact(Effect.gen(function*() {
          const sub = Option.getOrThrow(yield* store.subscriptions.find(id))
          const due = Subscription.dueAt(sub)
          if (due === null || millis(due) > NOW) return void ledger.stale++
          const payment = yield* renewalPayment(sub, { created_at: at(NOW) })
          const fresh = yield* store.subscriptions.recordAttempt({
            subscription_id: sub.subscription_id,
            ...Subscription.dueAttempt(sub),
            payment_id: payment.payment_id
          })
          if (!fresh) return void ledger.refused++
          ledger.charge(worker, sub)
          yield* store.payments.insert(succeededOf(payment))
          yield* store.subscriptions.update(advance(sub, chargeOk, NOW))
        }))
      const worker = (store: StoreShape, index: number) =>
        Effect.gen(function*() {
          for (;;) {
            const claimed = yield* store.transact(store.subscriptions.claimDue(at(NOW), 5))
            if (claimed.length === 0) return
            for (const sub of claimed) yield* renew(store, index, sub.subscription_id)
          }
        })
      yield* Effect.all(setup.stores.map(worker), { concurrency: "unbounded" })
      yield* verifyOnce(setup, ledger, NOW)
    }))

  it.scopedLive("with the charge outside any transaction (reserve, charge, record), recordAttempt alone stops a second charge", () =>
    Effect.gen(function*() {
      const setup = yield* dueSet(N, NOW)
      const ledger = makeLedger(setup.stores.length)
      // As Billing does: reserve (lock, still due?, record the attempt, a processing payment) and commit; charge with
      // no transaction held, while the subscription is still due and claimable by everyone; record the outcome.
      const reserve = (store: StoreShape, id: SubscriptionId) =>
        store.transact(Effect.gen(function*() {
          const sub = Option.getOrThrow(yield* store.subscriptions.find(id))
          const due = Subscription.dueAt(sub)
          if (due === null || millis(due) > NOW) return void ledger.stale++
          const payment = yield* renewalPayment(sub, { created_at: at(NOW) })
          const fresh = yield* store.subscriptions.recordAttempt({
            subscription_id: sub.subscription_id,
            ...Subscription.dueAttempt(sub),
            payment_id: payment.payment_id
          })
          if (!fresh) return void ledger.refused++
          yield* store.payments.insert(payment)
          return { sub, payment }
        }))
      const record = (store: StoreShape, reserved: { sub: Subscription.Subscription; payment: Payment.Payment }) =>
        store.transact(Effect.gen(function*() {
          const sub = Option.getOrThrow(yield* store.subscriptions.find(reserved.sub.subscription_id))
          yield* store.payments.update(succeededOf(reserved.payment))
          // (Had another worker charged the same period meanwhile, it moved the period on: don't move it twice.)
          if (sub.period === reserved.sub.period) yield* store.subscriptions.update(advance(sub, chargeOk, NOW))
        }))
      const worker = (store: StoreShape, index: number) =>
        Effect.gen(function*() {
          for (;;) {
            const claimed = yield* store.transact(store.subscriptions.claimDue(at(NOW), 5))
            if (claimed.length === 0) return
            let charged = 0
            for (const sub of claimed) {
              const reserved = yield* reserve(store, sub.subscription_id)
              if (reserved === undefined) continue
              ledger.charge(index, reserved.sub)
              yield* Effect.sleep(Duration.millis(5 + Math.floor(Math.random() * 10))) // the processor's round trip
              yield* record(store, reserved)
              charged++
            }
            // Everything claimed is being charged by others: let them finish.
            if (charged === 0) yield* Effect.sleep(Duration.millis(5))
          }
        })
      yield* Effect.all(setup.stores.map(worker), { concurrency: "unbounded" })
      yield* verifyOnce(setup, ledger, NOW)
      // The race happened: workers claimed subscriptions whose attempt another had already recorded, still due, and
      // only the uniqueness rule kept them from charging.
      assert.isAbove(ledger.refused, 0)
      assert.isAtLeast(ledger.byWorker.filter((n) => n > 0).length, 2)
    }))
})
