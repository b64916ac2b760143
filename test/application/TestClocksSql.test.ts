/**
 * Test clocks on PostgreSQL, two servers (docs/api.md, "Test clocks"): the same advance asked of both at once runs
 * once, each renewal of the clock's subscriptions charged once at its own billing date; and the real-time billing
 * pass never touches the clock's subscriptions, however late it runs.
 */
import { assert, describe, it } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Cause, ConfigProvider, Context, DateTime, Effect, Layer, Option, type Redacted } from "effect"
import { check } from "../../adapters/sql/Check.js"
import { PgLive } from "../../adapters/sql/Postgres.js"
import { StoreSql } from "../../adapters/sql/StoreSql.js"
import { NodeAdapters } from "../../adapters/runtime/NodeAdapters.js"
import { Billing } from "../../src/application/Billing.js"
import { Customers } from "../../src/application/Customers.js"
import { Engine } from "../../src/application/Engine.js"
import { TestClocks } from "../../src/application/TestClocks.js"
import * as Calendar from "../../src/domain/Calendar.js"
import { cards, formWith, makeProduct, makeSession, pay } from "../support/checkout.js"
import { migratedDatabaseUrl } from "../support/database.js"
import { newAccount } from "./harness.js"

/** An engine on its own pool of `url` (one server); `processorDelay` slows its charges. */
const serverOn = (url: Redacted.Redacted, processorDelay?: string) =>
  Layer.build(
    Engine.pipe(
      Layer.provideMerge(Layer.mergeAll(StoreSql.pipe(Layer.provide(PgLive(url, { maxConnections: 4 }))), NodeAdapters)),
      Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(
        processorDelay === undefined ? [] : [["FILS_SIMULATED_DELAY", processorDelay]]
      ))))
    )
  )

const subscriptions = 12

/** A new account's test clock at `frozen`, with `subscriptions` customers on it, each subscribed to one plan. */
const subscribedOnClock = (frozen: DateTime.Utc, interval: "day" | "month") =>
  Effect.gen(function*() {
    const { test } = yield* newAccount
    const clock = yield* (yield* TestClocks).create(test, { frozen_time: frozen })
    const product = yield* makeProduct(test, { price: 4900, billing: "recurring", billing_interval: interval })
    yield* Effect.forEach(Array.from({ length: subscriptions }), (_, i) =>
      Effect.gen(function*() {
        const customer = yield* (yield* Customers).create(test, { email: `c${i}@example.ae`, test_clock_id: clock.test_clock_id })
        const session = yield* makeSession(test, { product_cart: [{ product_id: product.product_id }], customer: { customer_id: customer.customer_id } })
        const result = yield* pay(session.session_id, formWith(cards.visa))
        if (result._tag !== "Paid" || result.payment.subscription_id === null) return assert.fail("not subscribed")
      }), { concurrency: 4 })
    return { clock, test }
  })

describe("Test clocks on PostgreSQL, two servers", () => {
  it.scopedLive("one advance asked of both at once: run once, every renewal charged once at its date; real time leaves them", () =>
    Effect.gen(function*() {
      const url = yield* migratedDatabaseUrl
      const a = yield* serverOn(url, "200 millis")
      const b = yield* serverOn(url, "200 millis")
      const sql = Context.get(yield* Layer.build(PgLive(url, { maxConnections: 1 })), SqlClient.SqlClient)

      const frozen = DateTime.unsafeMake("2030-01-15T08:00:00.000Z")
      const { clock, test } = yield* subscribedOnClock(frozen, "month").pipe(Effect.provide(a))

      // The real-time pass, as of a year later: the clock's subscriptions are not its work.
      const late = yield* Effect.flatMap(Billing, (billing) => billing.runOnce({ asOf: Date.parse("2031-02-01T00:00:00Z") })).pipe(Effect.provide(b))
      assert.strictEqual(late.renewals_charged, 0)

      // Two months on, asked of both servers at once.
      const target = Calendar.periodStart(frozen, "month", 1, 2)
      const advance = (server: typeof a) =>
        Effect.flatMap(TestClocks, (clocks) => clocks.advance(test, clock.test_clock_id, { frozen_time: target })).pipe(Effect.provide(server))
      const answers = yield* Effect.all([advance(a), advance(b)], { concurrency: 2 })
      for (const answer of answers) assert.strictEqual(DateTime.formatIso(answer.advancing_to ?? answer.frozen_time), DateTime.formatIso(target))
      assert.isTrue(answers.some((c) => c.status === "ready"), "the request that ran it answers when it is done")
      const after = yield* Effect.flatMap(TestClocks, (clocks) => clocks.ready(test, clock.test_clock_id)).pipe(Effect.provide(b))
      assert.strictEqual(DateTime.formatIso(after.frozen_time), DateTime.formatIso(target))

      const renewals = yield* sql<{ created_at: Date; n: number }>`SELECT created_at, count(*)::int AS n FROM payments
        WHERE billing_reason = 'subscription_renewal' AND status = 'succeeded' GROUP BY created_at ORDER BY created_at`
      assert.deepStrictEqual(
        renewals.map((r) => [r.created_at.toISOString(), r.n]),
        [["2030-02-15T08:00:00.000Z", subscriptions], ["2030-03-15T08:00:00.000Z", subscriptions]],
        "each period charged once, at its billing date"
      )
      const periods = yield* sql<{ period: number; n: number }>`SELECT period, count(*)::int AS n FROM subscriptions GROUP BY period`
      assert.deepStrictEqual(periods.map((r) => [r.period, r.n]), [[2, subscriptions]])
      const events = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM events WHERE type = 'subscription.renewed'`
      assert.strictEqual(events[0]!.n, 2 * subscriptions)
      // Events happen at the real time; their data carries the clock's.
      const stamped = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM events
        WHERE type = 'subscription.renewed' AND created_at > now() - interval '10 minutes'`
      assert.strictEqual(stamped[0]!.n, 2 * subscriptions)
    }), { timeout: 120_000 })

  it.scopedLive("a clock deleted by one server while another advances it: no deadlock; the advance ends or is not found", () =>
    Effect.gen(function*() {
      const url = yield* migratedDatabaseUrl
      const a = yield* serverOn(url, "500 millis")
      const b = yield* serverOn(url)
      const sql = Context.get(yield* Layer.build(PgLive(url, { maxConnections: 1 })), SqlClient.SqlClient)
      const frozen = DateTime.unsafeMake("2030-01-15T08:00:00.000Z")
      const { clock, test } = yield* subscribedOnClock(frozen, "day").pipe(Effect.provide(a))

      // Two days of daily renewals on a, the clock deleted on b while they run (each charge takes half a second).
      const advancing = yield* Effect.flatMap(TestClocks, (clocks) =>
        clocks.advance(test, clock.test_clock_id, { frozen_time: Calendar.periodStart(frozen, "day", 1, 2) })
      ).pipe(Effect.provide(a), Effect.exit, Effect.fork)
      yield* Effect.sleep("250 millis")
      const deleted = yield* Effect.flatMap(TestClocks, (clocks) => clocks.remove(test, clock.test_clock_id)).pipe(Effect.provide(b))
      assert.isTrue(deleted.deleted)
      const ended = yield* advancing.await.pipe(Effect.flatten)
      // Whatever it ran before the delete: a result, or the clock not found. Never a defect (a deadlock is one).
      if (ended._tag === "Failure") {
        assert.isFalse(Cause.isDie(ended.cause), Cause.pretty(ended.cause))
        assert.include(["NotFound", "InvalidState"], Cause.failureOption(ended.cause).pipe(Option.map((e) => e._tag), Option.getOrUndefined))
      }
      for (const table of ["test_clocks", "customers", "subscriptions", "payments", "checkout_sessions"]) {
        const [row] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql(table)}`
        assert.strictEqual(row!.n, 0, `${table} left behind`)
      }
      // The events stay, naming payments deleted with the clock: `fils check` finds nothing wrong in that.
      const [kept] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM events WHERE type = 'payment.succeeded'`
      assert.isAtLeast(kept!.n, subscriptions)
      assert.deepStrictEqual(yield* check().pipe(Effect.provideService(SqlClient.SqlClient, sql)), [])
    }), { timeout: 120_000 })
})
