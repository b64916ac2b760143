/**
 * The e-invoice outbox (`Store.einvoices`) on both stores: one contract that memory and PostgreSQL pass, what only
 * a real database shows (servers on separate pools claiming at once, a server that dies holding a claim), and the
 * two stores agreeing step by step over random sequences of queueing, claims, outcomes, lease expiries and resends.
 */
import { DateTime, Effect, FastCheck as fc, ManagedRuntime, Option } from "effect"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { StoreMemory } from "../../adapters/memory/StoreMemory.js"
import { newId } from "../../src/application/Ids.js"
import * as T from "../../src/domain/EInvoiceTransmission.js"
import type { AccountId, InvoiceId } from "../../src/domain/Ids.js"
import { Store, type StoreShape } from "../../src/ports/Store.js"
import { fileDatabaseUrl, postgresStore, storeAt } from "../support/postgresStore.js"

const T0 = Date.UTC(2026, 10, 25, 8)
const at = (millis: number) => DateTime.unsafeMake(T0 + millis)
const lease = 30_000

const transmission = (account: AccountId, livemode: boolean, createdAt: number) =>
  Effect.map(newId<InvoiceId>("inv"), (id): T.Transmission => ({
    ...T.make({
      object: "invoice",
      invoice_id: id,
      account_id: account,
      livemode,
      number: `INV-${id.slice(-6)}`,
      buyer: { customer_id: null, name: null, email: null, business: null }
    } as never, at(createdAt)),
    document_id: id
  }))

const fixed: T.Parties = {
  supplier: null,
  buyer: {
    business_name: "Gulf Trading LLC",
    trn: "100000000000003" as never,
    address: { line1: "Sheikh Zayed Road 1", line2: null, city: "Dubai", emirate: "DXB", country: "AE" } as never,
    peppol_endpoint: { scheme: "0235", id: "1000000000" }
  }
}

/** Values as JSON (DateTime → ISO), for deep equality across stores. */
const plain = (value: unknown) => (value === undefined ? undefined : JSON.parse(JSON.stringify(value)))

type Runtime = ManagedRuntime.ManagedRuntime<Store, never>
let memory: Runtime
let sql: Runtime
beforeAll(async () => {
  memory = ManagedRuntime.make(StoreMemory)
  sql = ManagedRuntime.make(await postgresStore())
}, 60_000)
afterAll(async () => {
  await memory?.dispose()
  await sql?.dispose()
})

const contract = (name: string, runtime: () => Runtime) =>
  describe(`e-invoice outbox: ${name}`, () => {
    const run = <A, E>(effect: Effect.Effect<A, E, Store>) => runtime().runPromise(effect)

    it("queues once per document; claims the due ones of the asked modes, oldest due first, each once per lease", () =>
      run(Effect.gen(function*() {
        const store = yield* Store
        // Far from the other tests' rows: a claim takes every due row of the store.
        const base = 400 * 86_400_000
        const when = (millis: number) => at(base + millis)
        const account = yield* newId<AccountId>("acct")
        const a = yield* transmission(account, false, base)
        const b = yield* transmission(account, false, base + 1)
        const live = yield* transmission(account, true, base)
        yield* store.einvoices.enqueue(b)
        yield* store.einvoices.enqueue(a)
        yield* store.einvoices.enqueue(live)
        yield* store.einvoices.enqueue({ ...a, number: "INV-AGAIN" }) // once: the first stays
        assert.strictEqual(Option.getOrThrow(yield* store.einvoices.get(a.document_id)).number, a.number)

        assert.deepStrictEqual(yield* store.einvoices.claimDue(when(-1), 10, lease, [false, true]), [], "not due yet")
        const claimed = yield* store.einvoices.claimDue(when(5), 10, lease, [false])
        assert.deepStrictEqual(claimed.map((t) => t.document_id), [a.document_id, b.document_id])
        assert.deepStrictEqual(claimed.map((t) => t.attempts), [1, 1])
        assert.deepStrictEqual(yield* store.einvoices.claimDue(when(6), 10, lease, [false]), [], "leased")
        // The lease ran out (its server died): claimed again, the next attempt.
        const again = yield* store.einvoices.claimDue(when(5 + lease), 1, lease, [false])
        assert.deepStrictEqual(again.map((t) => [t.document_id, t.attempts]), [[a.document_id, 2]])
        // A late answer of the first attempt changes nothing; the current one's does.
        const stale = yield* store.einvoices.record({
          documentId: a.document_id,
          attempt: 1,
          outcome: new T.Accepted({ reference: "asp-stale" }),
          at: when(lease + 10)
        })
        assert.strictEqual(Option.getOrThrow(stale).status, "pending")
        const errors = [{ code: "ibr-132-ae", message: "The buyer's TRN is not a UAE TRN" }]
        const current = Option.getOrThrow(yield* store.einvoices.record({
          documentId: a.document_id,
          attempt: 2,
          outcome: new T.Rejected({ errors }),
          at: when(lease + 11)
        }))
        assert.strictEqual(current.status, "rejected")
        assert.deepStrictEqual(current.errors, errors)
        assert.deepStrictEqual(plain(Option.getOrThrow(yield* store.einvoices.get(a.document_id))), plain(current))

        // Unanswered: pending again after the first wait.
        const waiting = Option.getOrThrow(yield* store.einvoices.record({
          documentId: b.document_id,
          attempt: 1,
          outcome: new T.Unanswered({ message: "503 Service Unavailable" }),
          at: when(100)
        }))
        assert.strictEqual(waiting.status, "pending")
        assert.strictEqual(waiting.last_error, "503 Service Unavailable")
        assert.deepStrictEqual(plain(waiting.next_attempt_at), plain(T.nextAttemptAt(1, when(100))))

        // A resend: only a rejected one, with the parties stored.
        assert.deepStrictEqual(
          plain(Option.getOrThrow(yield* store.einvoices.resend(b.document_id, fixed, when(200)))),
          plain({ transmission: waiting, resent: false })
        )
        const { resent: done, transmission: resent } = Option.getOrThrow(yield* store.einvoices.resend(a.document_id, fixed, when(200)))
        assert.isTrue(done)
        assert.strictEqual(resent.status, "pending")
        assert.deepStrictEqual(resent.errors, [])
        assert.deepStrictEqual(plain(Option.getOrThrow(yield* store.einvoices.get(a.document_id)).parties), plain(fixed))
        assert.isTrue(Option.isNone(yield* store.einvoices.resend("inv_missing", fixed, when(200))))

        // Newest first (created_at, then id).
        const listed = yield* store.einvoices.list({ account_id: account }, 10)
        const sameTime = [a.document_id, live.document_id].sort().reverse()
        assert.deepStrictEqual(listed.map((t) => t.document_id), [b.document_id, ...sameTime])
        assert.deepStrictEqual(
          (yield* store.einvoices.list({ account_id: account, livemode: true }, 10)).map((t) => t.document_id),
          [live.document_id]
        )
        assert.deepStrictEqual(
          (yield* store.einvoices.list({ account_id: account, status: "rejected" }, 10)).map((t) => t.document_id),
          []
        )
        assert.deepStrictEqual((yield* store.einvoices.list({ account_id: account, livemode: false }, 1)).length, 1)
        yield* drain(store, when(86_400_000))
      })))

    it("a transmission queued in a transaction that fails is gone with it", () =>
      run(Effect.gen(function*() {
        const store = yield* Store
        const t = yield* transmission(yield* newId<AccountId>("acct"), false, 0)
        yield* store.transact(Effect.zipRight(store.einvoices.enqueue(t), Effect.fail("issuing failed"))).pipe(Effect.ignore)
        assert.isTrue(Option.isNone(yield* store.einvoices.get(t.document_id)))
      })))
  })

/** Answers every pending transmission (as of `now`), so that later claims see only their own test's rows. */
const drain = (store: StoreShape, now: DateTime.Utc) =>
  Effect.gen(function*() {
    for (;;) {
      const claimed = yield* store.einvoices.claimDue(now, 100, lease, [false, true])
      if (claimed.length === 0) return
      for (const t of claimed) {
        yield* store.einvoices.record({ documentId: t.document_id, attempt: t.attempts, outcome: new T.Accepted({ reference: "drained" }), at: now })
      }
    }
  })

contract("StoreMemory", () => memory)
contract("StoreSql (PostgreSQL)", () => sql)

describe("e-invoice outbox on PostgreSQL: several servers", () => {
  it("servers claiming at once take different rows; a server that dies holding a claim loses it when its lease runs out", async () => {
    const url = await fileDatabaseUrl()
    const serverA: Runtime = ManagedRuntime.make(storeAt(url, 2))
    const serverB: Runtime = ManagedRuntime.make(storeAt(url, 2))
    const base = 800 * 86_400_000
    try {
      const account = await sql.runPromise(newId<AccountId>("acct"))
      const queued = await sql.runPromise(Effect.gen(function*() {
        const store = yield* Store
        const all = yield* Effect.forEach(Array.from({ length: 40 }, (_, i) => i), (i) => transmission(account, i % 2 === 0, base))
        yield* Effect.forEach(all, store.einvoices.enqueue, { discard: true })
        return all.map((t) => t.document_id)
      }))
      // Each server waits after its first claim until the other has made one too: otherwise a server whose pool
      // connects first (a busy machine) can claim all forty rows before the other asks, and nothing is proven.
      let arrived = 0
      let bothArrived: () => void = () => undefined
      const barrier = new Promise<void>((resolve) => (bothArrived = resolve))
      const claimAll = (server: Runtime) =>
        server.runPromise(Effect.gen(function*() {
          const store = yield* Store
          const mine: Array<string> = []
          for (let first = true;; first = false) {
            const claimed = yield* store.einvoices.claimDue(at(base + 1), 3, lease, [false, true])
            mine.push(...claimed.map((t) => t.document_id))
            if (first) {
              if (++arrived === 2) bothArrived()
              yield* Effect.promise(() => barrier)
            }
            if (claimed.length === 0) return mine
          }
        }))
      const [a, b] = await Promise.all([claimAll(serverA), claimAll(serverB)])
      assert.deepStrictEqual([...a, ...b].sort(), [...queued].sort(), "each row claimed once, by one server")
      assert.isAbove(a.length, 0)
      assert.isAbove(b.length, 0)

      // Server A dies holding its claims: its pool is gone, nothing it held was answered.
      await serverA.dispose()
      const heldByA = new Set(a)
      const early = await serverB.runPromise(Effect.flatMap(Store, (s) => s.einvoices.claimDue(at(base + lease), 100, lease, [false, true])))
      assert.deepStrictEqual(early, [], "A's and B's leases still run")
      const after = await serverB.runPromise(Effect.flatMap(Store, (s) => s.einvoices.claimDue(at(base + 1 + lease), 100, lease, [false, true])))
      assert.deepStrictEqual(after.map((t) => t.document_id).sort(), [...queued].sort(), "every lease ran out: all due again")
      assert.isTrue(after.every((t) => t.attempts === 2), "the next attempt")
      // B answers the ones A held; a transmission answered once stays so.
      const answered = await serverB.runPromise(Effect.gen(function*() {
        const store = yield* Store
        return yield* Effect.forEach(after.filter((t) => heldByA.has(t.document_id)), (t) =>
          store.einvoices.record({
            documentId: t.document_id,
            attempt: 2,
            outcome: new T.Accepted({ reference: `asp-${t.document_id}` }),
            at: at(base + 2 + lease)
          }))
      }))
      assert.isTrue(answered.every((t) => Option.getOrThrow(t).status === "accepted"))
    } finally {
      await serverA.dispose()
      await serverB.dispose()
      // Whatever happened, nothing of this test is left pending for the agreement test below.
      await sql.runPromise(Effect.flatMap(Store, (s) => drain(s, at(base + 86_400_000))))
    }
  }, 60_000)
})

// Agreement ----------------------------------------------------------------------------------------------------------

type Command =
  | { readonly _tag: "Enqueue"; readonly livemode: boolean }
  | { readonly _tag: "Claim"; readonly limit: number; readonly modes: ReadonlyArray<boolean> }
  | { readonly _tag: "Record"; readonly pick: number; readonly late: boolean; readonly outcome: "accepted" | "rejected" | "unanswered" }
  | { readonly _tag: "Resend"; readonly pick: number }
  | { readonly _tag: "Advance"; readonly millis: number }
  | { readonly _tag: "List"; readonly livemode: boolean | undefined; readonly status: T.TransmissionStatus | undefined }

const commandArb: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ _tag: fc.constant("Enqueue" as const), livemode: fc.boolean() }),
  fc.record({
    _tag: fc.constant("Claim" as const),
    limit: fc.integer({ min: 1, max: 3 }),
    modes: fc.constantFrom([false], [true], [false, true])
  }),
  fc.record({
    _tag: fc.constant("Record" as const),
    pick: fc.nat(),
    late: fc.boolean(),
    outcome: fc.constantFrom("accepted" as const, "rejected" as const, "unanswered" as const)
  }),
  fc.record({ _tag: fc.constant("Resend" as const), pick: fc.nat() }),
  fc.record({ _tag: fc.constant("Advance" as const), millis: fc.constantFrom(1, 1_000, lease, lease + 1, 6 * 60_000, 11 * 3_600_000) }),
  fc.record({
    _tag: fc.constant("List" as const),
    livemode: fc.constantFrom(undefined, false, true),
    status: fc.constantFrom(undefined, "pending" as const, "accepted" as const, "rejected" as const)
  })
)

let clock = 2_000 * 86_400_000

describe("e-invoice outbox: memory and PostgreSQL agree", () => {
  it("over random queueing, claims, late and current outcomes, lease expiries, resends and lists", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(commandArb, { minLength: 1, maxLength: 30 }), async (commands) => {
        const account = await memory.runPromise(newId<AccountId>("acct"))
        const both = <A>(f: (store: StoreShape) => Effect.Effect<A, unknown>) =>
          Promise.all([memory.runPromise(Effect.flatMap(Store, f)), sql.runPromise(Effect.flatMap(Store, f))])
        const agree = async <A>(what: string, f: (store: StoreShape) => Effect.Effect<A, unknown>) => {
          const [m, s] = await both(f)
          assert.deepStrictEqual(plain(s), plain(m), what)
          return m
        }
        const docs: Array<string> = []
        const claims: Array<{ documentId: string; attempt: number }> = []
        for (const command of commands) {
          const now = at(clock)
          switch (command._tag) {
            case "Enqueue": {
              const t = await memory.runPromise(transmission(account, command.livemode, clock))
              docs.push(t.document_id)
              await agree("enqueue", (s) => s.einvoices.enqueue(t))
              break
            }
            case "Claim": {
              const claimed = await agree("claim", (s) => s.einvoices.claimDue(now, command.limit, lease, command.modes))
              claims.push(...claimed.map((t) => ({ documentId: t.document_id, attempt: t.attempts })))
              break
            }
            case "Record": {
              if (claims.length === 0) break
              const claim = claims[command.pick % claims.length]!
              const attempt = command.late ? claim.attempt - 1 : claim.attempt
              const outcome = command.outcome === "accepted"
                ? new T.Accepted({ reference: `asp-${claim.documentId}` })
                : command.outcome === "rejected"
                ? new T.Rejected({ errors: [{ code: "ibr-010", message: "The buyer has no address" }] })
                : new T.Unanswered({ message: "connection reset" })
              await agree("record", (s) => s.einvoices.record({ documentId: claim.documentId, attempt, outcome, at: now }))
              break
            }
            case "Resend": {
              if (docs.length === 0) break
              const id = docs[command.pick % docs.length]!
              await agree("resend", (s) => s.einvoices.resend(id, fixed, now))
              break
            }
            case "Advance":
              clock += command.millis
              break
            case "List":
              await agree("list", (s) =>
                s.einvoices.list({ account_id: account, livemode: command.livemode, status: command.status }, 5))
              break
          }
        }
        for (const id of docs) await agree("get", (s) => s.einvoices.get(id))
        clock += 2 * 86_400_000
        await both((s) => drain(s, at(clock)))
        clock += 1
      }),
      { numRuns: 25 }
    )
  }, 120_000)
})
