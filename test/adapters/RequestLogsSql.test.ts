/**
 * Request log lines on PostgreSQL take one of two ways in: COPY, when the store runs on `PgLive`'s pool, and an
 * INSERT, when it runs on an `@effect/sql-pg` client of the host's own (or inside a transaction). Both must store the
 * same lines, whatever the text holds; a batch is written whole or not at all; and a COPY whose connection is cut
 * fails as the database unreachable, with nothing thrown past it.
 */
import { assert, describe, it } from "@effect/vitest"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqlClient from "@effect/sql/SqlClient"
import { Cause, Context, DateTime, Effect, Exit, FastCheck, Fiber, Layer, Option, Redacted } from "effect"
import { copyRow } from "../../adapters/sql/Copy.js"
import { MigratedPg, PgLive } from "../../adapters/sql/Postgres.js"
import { StoreSql } from "../../adapters/sql/StoreSql.js"
import { newIds } from "../../src/application/Ids.js"
import type { AccountId, ApiKeyId, RequestLogId } from "../../src/domain/Ids.js"
import { prefixes } from "../../src/domain/Ids.js"
import type { RequestLog } from "../../src/domain/RequestLog.js"
import { RequestLogRepository, Store } from "../../src/ports/Store.js"
import { StoreUnavailable } from "../../src/domain/Errors.js"
import { freshDatabaseUrl, holdingLocks, waitsForLock } from "../support/database.js"
import { tcpProxy } from "../support/tcp.js"

const accountId = "acct_0193a8b2c4d5e6f708192a3b4c5d6e7f" as AccountId
const scope = { accountId, livemode: false }

const line = (id: RequestLogId, text: { path: string; key: string | null; requestId: string }, i: number): RequestLog => ({
  object: "request_log",
  request_log_id: id,
  account_id: accountId,
  livemode: false,
  request_id: text.requestId,
  key_id: "key_0193a8b2c4d5e6f708192a3b4c5d6e7f" as ApiKeyId,
  method: i % 2 === 0 ? "GET" : "POST",
  path: text.path,
  status: 200 + i,
  duration_ms: 0.25 * i + 1 / 3,
  idempotency_key: text.key,
  error_code: i % 3 === 0 ? null : "resource_missing",
  created_at: DateTime.unsafeMake(1_780_000_000_123 + i)
})

/** Text COPY must escape, and text it must not take for its own markers. */
const awkward = ["a\tb", "line\nbreak", "cr\rhere", "back\\slash", "\\N", "\\", "", "عربي ✓ 𝄞", "trailing\\", " spaced "]

/** The store on a pool made here (COPY), and on the host's kind of client (INSERT), over one fresh database. */
const stores = Effect.gen(function*() {
  const url = yield* freshDatabaseUrl
  // Migrated by the first; the second store shares its tables.
  const copying = yield* Layer.build(StoreSql.pipe(Layer.provide(MigratedPg(url, { maxConnections: 2 }))))
  const inserting = yield* Layer.build(StoreSql.pipe(Layer.provide(PgClient.layer({ url, maxConnections: 2 }))))
  return {
    copying: Context.get(copying, RequestLogRepository),
    inserting: Context.get(inserting, RequestLogRepository),
    transact: Context.get(copying, Store).transact
  }
})

describe("request log lines on PostgreSQL", () => {
  it("copyRow escapes what COPY's text format reserves, and writes null as \\N", () => {
    assert.strictEqual(copyRow(["a\tb", null, true, false, 1.5, "x\\y\nz\r"]), "a\\tb\t\\N\tt\tf\t1.5\tx\\\\y\\nz\\r\n")
    assert.strictEqual(copyRow([new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6))]), "2026-01-02T03:04:05.006Z\n")
  })

  it.scoped("COPY and INSERT store the same lines, text of every kind included", () =>
    Effect.gen(function*() {
      const { copying, inserting } = yield* stores
      const texts = [
        ...awkward.map((s) => ({ path: `/api/v1/${s}`, key: s, requestId: `req_${s}` })),
        ...FastCheck.sample(FastCheck.record({ path: FastCheck.string(), key: FastCheck.option(FastCheck.string(), { nil: null }), requestId: FastCheck.string() }), 40)
      ].map((t) => ({ ...t, path: t.path.replace(/\0/g, ""), key: t.key?.replace(/\0/g, "") ?? null, requestId: t.requestId.replace(/\0/g, "") }))
      const copied = (yield* newIds<RequestLogId>(prefixes.requestLog, texts.length)).map((id, i) => line(id, texts[i]!, i))
      const inserted = (yield* newIds<RequestLogId>(prefixes.requestLog, texts.length)).map((id, i) => line(id, texts[i]!, i))
      yield* copying.insertAll(copied)
      yield* inserting.insertAll(inserted)
      for (const [written, repo] of [[copied, copying], [inserted, inserting], [copied, inserting], [inserted, copying]] as const) {
        for (const expected of written) {
          const read = yield* repo.get(scope, expected.request_log_id)
          assert.deepStrictEqual(Option.getOrThrow(read), expected)
        }
      }
    }))

  it.scoped("a batch is written whole or not at all, either way", () =>
    Effect.gen(function*() {
      const { copying, inserting } = yield* stores
      for (const repo of [copying, inserting]) {
        const [a, b] = yield* newIds<RequestLogId>(prefixes.requestLog, 2)
        const text = { path: "/api/v1/payments", key: null, requestId: "req_x" }
        yield* repo.insertAll([line(a!, text, 0)])
        // The second line's id is taken: the batch fails, and its first line is not left behind.
        const exit = yield* Effect.exit(repo.insertAll([line(b!, text, 1), line(a!, text, 2)]))
        assert.isTrue(Exit.isFailure(exit))
        assert.isTrue(Option.isNone(yield* repo.get(scope, b!)))
        assert.strictEqual(Option.getOrThrow(yield* repo.get(scope, a!)).status, 200)
      }
    }))

  it.scoped("inside a transaction a batch joins it, and goes if the transaction rolls back", () =>
    Effect.gen(function*() {
      const { copying, transact } = yield* stores
      const [id] = yield* newIds<RequestLogId>(prefixes.requestLog, 1)
      const exit = yield* Effect.exit(transact(Effect.zipRight(
        copying.insertAll([line(id!, { path: "/api/v1/products", key: null, requestId: "req_y" }, 0)]),
        Effect.fail("rolled back")
      )))
      assert.isTrue(Exit.isFailure(exit))
      assert.isTrue(Option.isNone(yield* copying.get(scope, id!)))
    }))

  it.scopedLive("a COPY whose connection is cut fails as the database unreachable, and throws nothing past it", () =>
    Effect.gen(function*() {
      const url = yield* freshDatabaseUrl
      const direct = yield* Layer.build(MigratedPg(url, { maxConnections: 2 }))
      const sql = Context.get(direct, SqlClient.SqlClient)
      // The store's pool goes through a proxy that cuts its connections: no word from the server, the socket ends.
      const target = new URL(Redacted.value(url))
      const proxy = yield* Effect.acquireRelease(
        Effect.promise(() => tcpProxy(target.hostname, Number(target.port))),
        (p) => Effect.promise(() => p.close())
      )
      target.port = String(proxy.port)
      const store = yield* Layer.build(StoreSql.pipe(Layer.provide(PgLive(Redacted.make(target.toString()), { maxConnections: 2 }))))
      const copying = Context.get(store, RequestLogRepository)
      const uncaught: Array<unknown> = []
      const record = (error: unknown) => uncaught.push(error)
      yield* Effect.acquireRelease(
        Effect.sync(() => process.on("uncaughtException", record)),
        () => Effect.sync(() => process.off("uncaughtException", record))
      )
      // The COPY waits behind a lock, and its connection is cut while it waits.
      const release = yield* holdingLocks(sql, sql`LOCK TABLE request_logs IN ACCESS EXCLUSIVE MODE`)
      const [a] = yield* newIds<RequestLogId>(prefixes.requestLog, 1)
      const text = { path: "/api/v1/payments", key: null, requestId: "req_z" }
      const copy = yield* Effect.fork(Effect.exit(copying.insertAll([line(a!, text, 0)])))
      yield* waitsForLock(sql, "COPY request_logs%")
      yield* Effect.promise(() => proxy.close())
      const exit = yield* Fiber.join(copy)
      yield* release
      assert.isTrue(Exit.isFailure(exit) && Option.getOrNull(Cause.failureOption(exit.cause)) instanceof StoreUnavailable)
      // Whatever the socket's end raises arrives after the error: give it time to be (not) thrown.
      yield* Effect.sleep("200 millis")
      assert.deepStrictEqual(uncaught, [])
    }))
})
