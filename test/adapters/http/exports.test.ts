/**
 * The dashboard's CSV exports, over the memory store: the file is read a page at a time, and every row comes once,
 * in the list's order (newest first), whatever the page size; a range of days skips what is newer and stops at what
 * is older; cells are quoted as RFC 4180 says and text a spreadsheet would run as a formula is kept text.
 */
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { assert, describe, it } from "@effect/vitest"
import { Chunk, DateTime, Duration, Effect, Stream, TestClock } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { StoreUnavailable } from "../../../src/domain/Errors.js"
import { Customers } from "../../../src/application/Customers.js"
import { Payments } from "../../../src/application/Payments.js"
import { Subscriptions } from "../../../src/application/Subscriptions.js"
import { cell, row } from "../../../adapters/http/dashboard/Csv.js"
import { csvDownload, exportRows, exportSlots, type ExportSources } from "../../../adapters/http/dashboard/Exports.js"
import { cards, formWith, makeSession, pay } from "../../support/checkout.js"
import { newAccount, withEngine } from "../../application/harness.js"

/** RFC 4180 records: quoted cells may hold commas, doubled quotes and line breaks. */
const parseCsv = (text: string): Array<Array<string>> => {
  const records: Array<Array<string>> = []
  let record: Array<string> = []
  let value = ""
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (quoted) {
      if (c === "\"" && text[i + 1] === "\"") (value += "\"", i++)
      else if (c === "\"") quoted = false
      else value += c
    } else if (c === "\"") quoted = true
    else if (c === ",") (record.push(value), value = "")
    else if (c === "\r" && text[i + 1] === "\n") (record.push(value), records.push(record), record = [], value = "", i++)
    else value += c
  }
  return records
}

const everything = { from: DateTime.unsafeMake(0), before: DateTime.unsafeMake("2200-01-01T00:00:00Z") }

describe("CSV exports", () => {
  it("a cell with a comma, quote or line break is quoted; text starting = + - @ is kept text; our numbers stay numbers", () => {
    assert.strictEqual(cell("plain"), "plain")
    assert.strictEqual(cell("Dune, \"Coffee\"\nRoasters"), "\"Dune, \"\"Coffee\"\"\nRoasters\"")
    for (const formula of ["=HYPERLINK(\"http://x\")", "+971", "-2+3", "@SUM(A1)", "\tx"]) {
      assert.isTrue(parseCsv(row([formula]))[0]![0]!.startsWith("'"), formula)
    }
    assert.strictEqual(cell("=1,2"), "\"'=1,2\"")
    assert.strictEqual(cell({ number: "-12.50" }), "-12.50")
    assert.strictEqual(cell(null), "")
  })

  it.effect("payments: many rows with a small page size give every row once, in the list's order, one page read at a time", () =>
    withEngine()(Effect.gen(function*() {
      const { test } = yield* newAccount
      for (let i = 0; i < 23; i++) {
        const session = yield* makeSession(test)
        yield* pay(session.session_id, formWith(cards.visa, { email: `buyer${i}@example.ae`, name: i === 0 ? "=HYPERLINK(\"http://evil\")" : `Buyer ${i}, \"quoted\"` }))
        yield* TestClock.adjust(Duration.seconds(1))
      }
      const payments = yield* Payments
      const listed = (yield* payments.list(test, { limit: 100 })).items
      assert.lengthOf(listed, 23)
      const reads: Array<string | undefined> = []
      const counted = { ...payments, list: (scope, params, max) => (reads.push(params.cursor), payments.list(scope, params, max)) } as Payments
      const sources: ExportSources = { payments: counted, subscriptions: yield* Subscriptions, customers: yield* Customers }
      const text = Chunk.join(yield* Stream.runCollect(exportRows(sources, "payments", test, everything, "Asia/Dubai", 4)), "")
      const [header, ...rows] = parseCsv(text)
      assert.deepStrictEqual(header!.slice(0, 4), ["payment_id", "created (Asia/Dubai)", "status", "amount_aed"])
      assert.deepStrictEqual(rows.map((r) => r[0]), listed.map((p) => p.payment_id), "every payment once, newest first")
      assert.strictEqual(reads.length, 6, "23 rows by 4: six pages, each read once")
      assert.strictEqual(new Set(reads).size, 6)
      const first = rows.at(-1)!
      assert.strictEqual(first[8], "'=HYPERLINK(\"http://evil\")")
      assert.strictEqual(rows[0]![8], "Buyer 22, \"quoted\"")
      assert.strictEqual(first[3], "50.00")
      assert.match(first[1]!, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+04:00$/)

      // Taking only the first rows reads only the pages they need.
      reads.length = 0
      yield* Stream.runDrain(Stream.take(exportRows(sources, "payments", test, everything, "Asia/Dubai", 4), 2))
      assert.isAtMost(reads.length, 2)
    })))

  it.effect("customers and subscriptions by a range of days: newer skipped, older not read, every one inside once, in order", () =>
    withEngine()(Effect.gen(function*() {
      const { test } = yield* newAccount
      const customers = yield* Customers
      const made = []
      for (let day = 0; day < 8; day++) {
        made.push(yield* customers.create(test, { email: `c${day}@example.ae`, name: `Customer ${day}` }))
        yield* TestClock.adjust(Duration.days(1))
      }
      const sources: ExportSources = { payments: yield* Payments, subscriptions: yield* Subscriptions, customers }
      // Days 2 to 5 (UTC here): from the start of day 2 to the start of day 6.
      const range = { from: DateTime.unsafeMake(Duration.toMillis(Duration.days(2))), before: DateTime.unsafeMake(Duration.toMillis(Duration.days(6))) }
      const text = Chunk.join(yield* Stream.runCollect(exportRows(sources, "customers", test, range, "UTC", 3)), "")
      const [header, ...rows] = parseCsv(text)
      assert.deepStrictEqual(header, ["customer_id", "created (UTC)", "email", "name", "phone_number"])
      assert.deepStrictEqual(rows.map((r) => r[2]), ["c5@example.ae", "c4@example.ae", "c3@example.ae", "c2@example.ae"])
      const none = Chunk.join(yield* Stream.runCollect(exportRows(sources, "subscriptions", test, range, "UTC", 3)), "")
      assert.strictEqual(parseCsv(none).length, 1, "the header alone")
    })))

  it.effect("a store that fails midway cuts the download off: the client's read of the body fails, never a clean, truncated file", () =>
    withEngine()(Effect.gen(function*() {
      const { test } = yield* newAccount
      for (let i = 0; i < 9; i++) {
        const session = yield* makeSession(test)
        yield* pay(session.session_id, formWith(cards.visa, { email: `buyer${i}@example.ae`, name: `Buyer ${i}` }))
        yield* TestClock.adjust(Duration.seconds(1))
      }
      const payments = yield* Payments
      // The store goes down after the first page.
      let reads = 0
      const failing = {
        ...payments,
        list: (scope, params, max) =>
          ++reads >= 2 ? Effect.fail(new StoreUnavailable({ message: "The store cannot be reached; retry later" })) : payments.list(scope, params, max)
      } as Payments
      const sources: ExportSources = { payments: failing, subscriptions: yield* Subscriptions, customers: yield* Customers }
      const app = HttpRouter.empty.pipe(
        HttpRouter.get("/csv", Effect.suspend(() => csvDownload(exportRows(sources, "payments", test, everything, "UTC", 4), "payments.csv")))
      )
      const handler = yield* NodeHttpServer.makeHandler(app)
      const server = createServer(handler)
      yield* Effect.acquireRelease(
        Effect.async<void>((resume) => void server.listen(0, "127.0.0.1", () => resume(Effect.void))),
        () =>
          Effect.async<void>((resume) => {
            server.closeAllConnections()
            server.close(() => resume(Effect.void))
          })
      )
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/csv`
      const outcome = yield* Effect.promise(async () => {
        const response = await fetch(url)
        return { status: response.status, body: await response.text().then((text) => ({ text }), (error: unknown) => ({ error })) }
      })
      assert.strictEqual(outcome.status, 200, "the headers had left before the failure")
      assert.isTrue("error" in outcome.body, `the body's read must fail, not end cleanly: ${JSON.stringify(outcome.body).slice(0, 200)}`)
      assert.isAtLeast(reads, 2)
    }).pipe(Effect.scoped)))

  it("an account runs at most its limit of exports at once; a slot given back (once, however often released) is taken again", () => {
    const slots = exportSlots(2)
    const first = slots.take("acc_a")
    const second = slots.take("acc_a")
    assert.isDefined(first)
    assert.isDefined(second)
    assert.isUndefined(slots.take("acc_a"), "a third at once is refused")
    assert.isDefined(slots.take("acc_b"), "another account is not held back")
    first!()
    first!()
    const third = slots.take("acc_a")
    assert.isDefined(third)
    assert.isUndefined(slots.take("acc_a"), "released twice, one slot came back")
  })
})
