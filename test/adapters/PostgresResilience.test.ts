/**
 * What a PostgreSQL cluster does to a client during a failover, reproduced on one real server, deterministically:
 * a router that still points at a standby (read-only), a LISTEN connection that dies, a statement that never returns.
 * The whole-cluster run is in test/e2e/failover.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Cause, Chunk, Context, DateTime, Effect, Exit, Fiber, Layer, Option, Redacted, Ref, Stream } from "effect"
import { makePgListen } from "../../adapters/sql/Listen.js"
import { PgLive } from "../../adapters/sql/Postgres.js"
import { isUnavailable } from "../../adapters/sql/SqlErrors.js"
import type { Account } from "../../src/domain/Account.js"
import { newId } from "../../src/application/Ids.js"
import type { AccountId, ApiKeyId } from "../../src/domain/Ids.js"
import { anyKey } from "../../src/ports/Store.js"
import { migratedDatabaseUrl } from "../support/database.js"
import { storeOn } from "../support/postgresStore.js"
import { tcpProxy } from "../support/tcp.js"

/** A plain connection to the `postgres` database, to change the test database from outside. */
const adminOn = (url: Redacted.Redacted) => {
  const admin = new URL(Redacted.value(url))
  admin.pathname = "/postgres"
  return Effect.map(Layer.build(PgLive(Redacted.make(admin.toString()), { maxConnections: 1 })), Context.get(SqlClient.SqlClient))
}

const monitorOn = (url: Redacted.Redacted) =>
  Effect.map(Layer.build(PgLive(url, { maxConnections: 1 })), Context.get(SqlClient.SqlClient))

const newAccount = Effect.map(newId<AccountId>("acct"), (account_id): Account => ({
  account_id,
  business_name: "Souq Books",
  support_email: null,
  live_payments_enabled: false,
  tax_profile: null,
  time_zone: "Asia/Dubai",
  two_factor_required: false,
  created_at: DateTime.unsafeMake(Date.UTC(2026, 10, 21))
}))

const expectUnavailable = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const exit = yield* Effect.exit(effect)
    assert.isTrue(Exit.isFailure(exit), "expected a failure")
    if (Exit.isFailure(exit)) {
      assert.isFalse(Cause.isDie(exit.cause), `a defect (500), not StoreUnavailable: ${Cause.pretty(exit.cause)}`)
      const failure = Cause.failureOption(exit.cause)
      assert.strictEqual(Option.getOrThrow(failure as Option.Option<{ _tag: string }>)._tag, "StoreUnavailable")
    }
  })

const waitFor = <A, E>(check: Effect.Effect<A, E>, ok: (a: A) => boolean, millis: number) =>
  Effect.gen(function*() {
    const until = Date.now() + millis
    for (;;) {
      const value = yield* check
      if (ok(value)) return value
      if (Date.now() > until) return assert.fail(`not within ${millis} ms: ${JSON.stringify(value)}`)
      yield* Effect.sleep("20 millis")
    }
  })

describe("PostgreSQL during a failover", () => {
  it.scopedLive("a server that only reads (a standby behind the router) is unavailable, not an error; writable again, it serves", () =>
    Effect.gen(function*() {
      const url = yield* migratedDatabaseUrl
      const database = new URL(Redacted.value(url)).pathname.slice(1)
      const admin = yield* adminOn(url)
      const store = yield* storeOn(url, { maxConnections: 2 })
      yield* store.ping

      // The failover: the pool's connections are cut, and the router's next target only reads.
      yield* admin.unsafe(`ALTER DATABASE "${database}" SET default_transaction_read_only = on`)
      yield* admin.unsafe(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE datname = '${database}' AND pid <> pg_backend_pid()`)
      const account = yield* newAccount
      // New connections land on a read-only server: the pool refuses them, as target_session_attrs=read-write would.
      yield* expectUnavailable(store.accounts.insert(account))
      yield* expectUnavailable(store.accounts.insert(account))
      yield* expectUnavailable(store.ping)

      yield* admin.unsafe(`ALTER DATABASE "${database}" SET default_transaction_read_only = off`)
      yield* store.accounts.insert(account)
      assert.isTrue(Option.isSome(yield* store.accounts.get(account.account_id)))
    }))

  it.scopedLive("a write refused as read-only on an open connection (SQLSTATE 25006) is StoreUnavailable", () =>
    Effect.gen(function*() {
      const url = yield* migratedDatabaseUrl
      const sql = yield* monitorOn(url)
      const exit = yield* Effect.exit(sql.withTransaction(Effect.zipRight(
        sql`SET TRANSACTION READ ONLY`,
        sql`CREATE TABLE refused (x int)`
      )))
      assert.isTrue(Exit.isFailure(exit))
      if (Exit.isFailure(exit)) {
        const error = Option.getOrThrow(Cause.failureOption(exit.cause))
        assert.strictEqual((error.cause as { code?: string }).code, "25006")
        assert.isTrue(isUnavailable(error))
      }
    }))

  it.scopedLive("a statement that never returns is cut at the timeout, and its connection leaves the pool", () =>
    Effect.gen(function*() {
      const url = yield* migratedDatabaseUrl
      const context = yield* Layer.build(PgLive(url, { maxConnections: 1, queryTimeout: "1 second" }))
      const sql = Context.get(context, SqlClient.SqlClient)
      let started = Date.now()
      const exit = yield* Effect.exit(sql`SELECT pg_sleep(30)`)
      assert.isTrue(Exit.isFailure(exit))
      assert.isBelow(Date.now() - started, 5_000)
      if (Exit.isFailure(exit)) assert.isTrue(isUnavailable(Option.getOrThrow(Cause.failureOption(exit.cause))))
      // The only connection was stuck behind pg_sleep(30): it was dropped, so the next statement gets a new one.
      started = Date.now()
      const rows = yield* sql<{ one: number }>`SELECT 1 AS one`
      assert.strictEqual(rows[0]!.one, 1)
      assert.isBelow(Date.now() - started, 5_000)
    }))

  it.scopedLive("a statement through a network that goes silent is answered within the timeout", () =>
    Effect.gen(function*() {
      const url = yield* migratedDatabaseUrl
      const target = new URL(Redacted.value(url))
      const proxy = yield* Effect.acquireRelease(
        Effect.promise(() => tcpProxy(target.hostname, Number(target.port || 5432))),
        (p) => Effect.promise(p.close)
      )
      const via = new URL(Redacted.value(url))
      via.port = String(proxy.port)
      const store = yield* storeOn(Redacted.make(via.toString()), { maxConnections: 2, queryTimeout: "1 second" })
      const account = yield* newAccount
      yield* store.accounts.insert(account)
      yield* Effect.promise(proxy.pause)
      const started = Date.now()
      yield* expectUnavailable(store.accounts.get(account.account_id))
      assert.isBelow(Date.now() - started, 4_000)
    }))

  it.scopedLive("LISTEN: a lost connection fails the stream at once, and listening again receives", () =>
    Effect.gen(function*() {
      const url = yield* migratedDatabaseUrl
      const monitor = yield* monitorOn(url)
      const listen = makePgListen(url, { heartbeat: "200 millis", timeout: "1 second" })
      const received = yield* Ref.make(Chunk.empty<string>())
      const exits = yield* Ref.make(0)
      const run = Stream.runForEach(listen.listen("fils_test"), (p) => Ref.update(received, Chunk.append(p))).pipe(
        Effect.exit,
        Effect.zipRight(Ref.update(exits, (n) => n + 1))
      )
      const listeners = monitor<{ pid: number }>`SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND query = 'LISTEN "fils_test"'`
      const first = yield* Effect.fork(run)
      const [pid] = yield* waitFor(listeners, (rows) => rows.length === 1, 5_000)
      yield* monitor`SELECT pg_notify('fils_test', 'one')`
      yield* waitFor(Ref.get(received), (c) => Chunk.size(c) === 1, 3_000)

      yield* monitor`SELECT pg_terminate_backend(${pid!.pid})`
      yield* waitFor(Ref.get(exits), (n) => n === 1, 3_000)
      yield* Fiber.join(first)

      yield* Effect.fork(run)
      yield* waitFor(listeners, (rows) => rows.length === 1 && rows[0]!.pid !== pid!.pid, 5_000)
      yield* monitor`SELECT pg_notify('fils_test', 'two')`
      const all = yield* waitFor(Ref.get(received), (c) => Chunk.size(c) === 2, 3_000)
      assert.deepStrictEqual(Chunk.toReadonlyArray(all), ["one", "two"])
    }))

  it.scopedLive("key revocations and webhook wake-ups both listen again after their connections are killed", () =>
    Effect.gen(function*() {
      const url = yield* migratedDatabaseUrl
      const monitor = yield* monitorOn(url)
      const store = yield* storeOn(url, { maxConnections: 4 })
      const heard = yield* Ref.make(Chunk.empty<ApiKeyId | typeof anyKey>())
      yield* Effect.forkScoped(Stream.runForEach(store.apiKeys.revocations, (k) => Ref.update(heard, Chunk.append(k))))
      yield* store.deliveries.awaitWork(10_000) // starts the wake-ups' listener
      const listeners = monitor<{ pid: number; query: string }>`SELECT pid, query FROM pg_stat_activity
        WHERE datname = current_database() AND query LIKE 'LISTEN %'`
      const before = yield* waitFor(listeners, (rows) => rows.length === 2, 5_000)
      yield* waitFor(Ref.get(heard), (c) => Chunk.size(c) === 1, 3_000) // anyKey: listening

      for (const row of before) yield* monitor`SELECT pg_terminate_backend(${row.pid})`
      const pids = new Set(before.map((r) => r.pid))
      // Revocations listen again within about a second, saying first that any key may have been missed.
      const after = yield* waitFor(
        listeners,
        (rows) => rows.length === 2 && rows.every((r) => !pids.has(r.pid)),
        10_000
      )
      assert.sameMembers(after.map((r) => r.query), ['LISTEN "fils_api_key_revoked"', 'LISTEN "fils_deliveries"'])
      yield* waitFor(Ref.get(heard), (c) => Chunk.size(c) === 2, 3_000)
      yield* monitor`SELECT pg_notify(${"fils_api_key_revoked"}, ${"key_0123"})`
      const all = yield* waitFor(Ref.get(heard), (c) => Chunk.size(c) === 3, 3_000)
      assert.deepStrictEqual(Chunk.toReadonlyArray(all), [anyKey, anyKey, "key_0123" as ApiKeyId])
    }))
})
