/**
 * The Store contract on PostgreSQL (a fresh database of the run's server), plus what only a real database shows:
 * limits shared by separate connection pools (servers), an unreachable database answered quickly as
 * `StoreUnavailable`, and statement errors as defects.
 */
import { assert, describe, it } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Cause, Context, DateTime, Effect, Exit, Layer, Option, Redacted } from "effect"
import type { Scope } from "effect"
import { MigratedPg, PgLive, type PgOptions } from "../../adapters/sql/Postgres.js"
import { StoreSql } from "../../adapters/sql/StoreSql.js"
import { newId } from "../../src/application/Ids.js"
import type { Account } from "../../src/domain/Account.js"
import type { AccountId, ProductId } from "../../src/domain/Ids.js"
import { Store, type StoreShape } from "../../src/ports/Store.js"
import { FreshDatabase, freshDatabaseUrl } from "../support/database.js"
import { closedPort, silentServer, tcpProxy } from "../support/tcp.js"
import { storeContract } from "./storeContract.js"

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
      assert.deepStrictEqual(applied.map((r) => r.name), ["init", "rate_limit_hit"])
      const columns = yield* sql<{ table_name: string; column_name: string; data_type: string }>`
        SELECT table_name, column_name, data_type FROM information_schema.columns
        WHERE (table_name, column_name) IN (('products', 'price'), ('products', 'created_at'), ('products', 'metadata'),
          ('rate_limits', 'seconds'), ('idempotency_keys', 'expires_at'))
        ORDER BY table_name, column_name`
      // PgLive reads int8 (and int8[]) as numbers.
      const [ints] = yield* sql<{ n: unknown; a: unknown }>`SELECT 9007199254740991::int8 AS n, ARRAY[1, 2]::int8[] AS a`
      assert.deepStrictEqual(ints, { n: Number.MAX_SAFE_INTEGER, a: [1, 2] })
      assert.deepStrictEqual(columns.map((c) => `${c.table_name}.${c.column_name}: ${c.data_type}`), [
        "idempotency_keys.expires_at: timestamp with time zone",
        "products.created_at: timestamp with time zone",
        "products.metadata: jsonb",
        "products.price: bigint",
        "rate_limits.seconds: ARRAY"
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
