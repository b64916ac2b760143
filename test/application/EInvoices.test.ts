/**
 * E-invoicing end to end but for the pages (docs/einvoicing.md): documents issued with their transmission in one
 * transaction, the worker submitting them over HTTP to the simulated ASP served on 127.0.0.1 (a real server), with
 * its faults: a 500 and then success transmits once; an answer lost after the acceptance is answered again by the
 * idempotency key; a rejection is recorded with the provider's errors; the merchant fixes the customer's details and
 * sends it again, and it is accepted; live mode without an ASP waits and says so.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Exit, Fiber, Layer, Option, Redacted, TestClock } from "effect"
import { StoreMemory } from "../../adapters/memory/StoreMemory.js"
import { PintAeWriter } from "../../adapters/einvoice/PintAe.js"
import { ProviderHttp } from "../../adapters/einvoice/ProviderHttp.js"
import { testTrns } from "../../adapters/einvoice/SimulatedProvider.js"
import { EInvoices, enqueue } from "../../src/application/EInvoices.js"
import { newId } from "../../src/application/Ids.js"
import { operator } from "../../src/domain/Account.js"
import type { Customer } from "../../src/domain/Customer.js"
import { documentIdOf } from "../../src/domain/EInvoiceTransmission.js"
import type { CustomerId } from "../../src/domain/Ids.js"
import type { Invoice } from "../../src/domain/TaxDocument.js"
import { Store } from "../../src/ports/Store.js"
import { buyerWith, sendableInvoices, withBuyerTrn } from "../support/einvoiceDocuments.js"
import { buyerTrnOf, type EInvoiceServer, startEInvoiceServer } from "../support/einvoiceServer.js"

const withServer = <A, E, R>(f: (server: EInvoiceServer) => Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(Effect.promise(() => startEInvoiceServer()), f, (server) => Effect.promise(server.close))

/** The e-invoicing use cases over a fresh memory store, the HTTP adapter to `server` (test mode only) and PINT AE. */
const engine = (server: EInvoiceServer) =>
  EInvoices.Default.pipe(
    Layer.provideMerge(Layer.mergeAll(
      StoreMemory,
      ProviderHttp({ url: server.url, token: Redacted.make(server.token), livemodes: [false] }).pipe(
        Layer.provide(FetchHttpClient.layer)
      ),
      PintAeWriter
    ))
  )

/** Issues `invoice` as the lead's issuing does: the document and its transmission in one transaction. */
const issue = (invoice: Invoice) =>
  Effect.gen(function*() {
    const store = yield* Store
    yield* store.transact(Effect.zipRight(store.documents.insertInvoice(invoice), enqueue(invoice)))
  })

const transmission = (invoice: Invoice) =>
  Effect.flatMap(EInvoices, (e) => e.get(operator, documentIdOf(invoice)))

describe("EInvoices over HTTP to the simulated ASP", () => {
  it.effect("a 500 and then success: one transmission at the provider, accepted with its reference", () =>
    withServer((server) =>
      Effect.gen(function*() {
        const einvoices = yield* EInvoices
        const [invoice] = sendableInvoices(1)
        yield* issue(invoice!)
        server.faults.serverErrors = 1
        assert.strictEqual(yield* einvoices.processOnce(), 1)
        const waiting = yield* transmission(invoice!)
        assert.strictEqual(waiting.status, "pending")
        assert.strictEqual(waiting.attempts, 1)
        assert.include(waiting.last_error, "500")
        assert.strictEqual(yield* einvoices.processOnce(), 0, "not due before its wait (5 s)")
        yield* TestClock.adjust(Duration.seconds(5))
        assert.strictEqual(yield* einvoices.processOnce(), 1)
        const accepted = yield* transmission(invoice!)
        assert.strictEqual(accepted.status, "accepted")
        assert.strictEqual(accepted.attempts, 2)
        assert.match(accepted.reference!, /^sim_/)
        assert.deepStrictEqual(server.submits, [documentIdOf(invoice!), documentIdOf(invoice!)])
        assert.strictEqual(server.simulation.transmissionsOf(documentIdOf(invoice!)), 1)
        yield* TestClock.adjust(Duration.hours(11))
        assert.strictEqual(yield* einvoices.processOnce(), 0, "accepted is final")
      }).pipe(Effect.provide(engine(server)))
    ))

  it.effect("an answer lost after the ASP accepted: the retry gets that acceptance, nothing is transmitted twice", () =>
    withServer((server) =>
      Effect.gen(function*() {
        const einvoices = yield* EInvoices
        const [invoice] = sendableInvoices(1)
        yield* issue(invoice!)
        server.faults.drops = 1
        yield* einvoices.processOnce()
        assert.strictEqual((yield* transmission(invoice!)).status, "pending")
        assert.strictEqual(server.simulation.transmissionsOf(documentIdOf(invoice!)), 1, "accepted, the answer lost")
        yield* TestClock.adjust(Duration.seconds(5))
        yield* einvoices.processOnce()
        const accepted = yield* transmission(invoice!)
        assert.strictEqual(accepted.status, "accepted")
        assert.strictEqual(server.simulation.status(accepted.reference!).status, "delivered")
        assert.strictEqual(server.simulation.transmissionsOf(documentIdOf(invoice!)), 1)
      }).pipe(Effect.provide(engine(server)))
    ))

  it.effect("an ASP that does not answer: unanswered after the adapter's 10 s, tried again later", () =>
    withServer((server) =>
      Effect.gen(function*() {
        const einvoices = yield* EInvoices
        const [invoice] = sendableInvoices(1)
        yield* issue(invoice!)
        server.faults.delayMillis = 60_000
        const round = yield* Effect.fork(einvoices.processOnce())
        // The request is on the wire; the ASP sits on it.
        while (server.submits.length === 0) yield* Effect.promise(() => new Promise((r) => setTimeout(r, 20)))
        yield* TestClock.adjust(Duration.seconds(10))
        assert.strictEqual(yield* Fiber.join(round), 1)
        const waiting = yield* transmission(invoice!)
        assert.strictEqual(waiting.status, "pending")
        assert.include(waiting.last_error, "No answer within")
      }).pipe(Effect.provide(engine(server)))
    ), 20_000)

  it.effect("rejected with the provider's errors; after the customer's TRN is fixed, sent again and accepted", () =>
    withServer((server) =>
      Effect.gen(function*() {
        const store = yield* Store
        const einvoices = yield* EInvoices
        const [drawn] = sendableInvoices(1)
        const customer_id = yield* newId<CustomerId>("cus")
        const invoice = withBuyerTrn({ ...drawn!, buyer: { ...drawn!.buyer, customer_id } }, testTrns.rejected)
        const customer: Customer = {
          object: "customer",
          customer_id,
          account_id: invoice.account_id,
          livemode: false,
          name: invoice.buyer.name,
          email: "accounts@gulf-trading.ae",
          phone_number: null,
          business: invoice.buyer.business,
          metadata: {},
          test_clock_id: null,
          created_at: invoice.issued_at
        } as Customer
        yield* store.customers.insert(customer)
        yield* issue(invoice)
        // Only a rejected one can be sent again.
        const early = yield* Effect.exit(einvoices.resend(operator, documentIdOf(invoice)))
        assert.isTrue(Exit.isFailure(early))

        yield* einvoices.processOnce()
        const rejected = yield* transmission(invoice)
        assert.strictEqual(rejected.status, "rejected")
        assert.deepStrictEqual(rejected.errors.map((e) => e.code), ["sim-rejected-trn"])
        yield* TestClock.adjust(Duration.hours(11))
        assert.strictEqual(yield* einvoices.processOnce(), 0, "rejected is final until sent again")

        // The merchant fixes the customer's TRN, then sends it again.
        yield* store.customers.update({ ...customer, business: buyerWith(customer.business!, "100000000000003") })
        const resent = yield* einvoices.resend(operator, documentIdOf(invoice))
        assert.strictEqual(resent.status, "pending")
        assert.strictEqual(resent.parties?.buyer?.trn, "100000000000003")
        yield* einvoices.processOnce()
        const accepted = yield* transmission(invoice)
        assert.strictEqual(accepted.status, "accepted")
        assert.strictEqual(accepted.number, invoice.number)
        assert.strictEqual(buyerTrnOf(server.bodies.at(-1)!), "100000000000003", "the e-invoice names the fixed TRN")
        assert.strictEqual(server.simulation.transmissionsOf(documentIdOf(invoice)), 1)
        // The document itself never changed.
        const stored = Option.getOrThrow(yield* store.documents.findInvoice(invoice.invoice_id))
        assert.strictEqual(stored.buyer.business?.trn as string | undefined, testTrns.rejected)
        const again = yield* Effect.exit(einvoices.resend(operator, documentIdOf(invoice)))
        assert.isTrue(Exit.isFailure(again), "accepted: not sent again")
      }).pipe(Effect.provide(engine(server)))
    ))

  it.effect("live mode without an ASP: the transmission waits, and the list says why", () =>
    withServer((server) =>
      Effect.gen(function*() {
        const einvoices = yield* EInvoices
        const [drawn] = sendableInvoices(1)
        const invoice = { ...drawn!, livemode: true }
        yield* issue(invoice)
        assert.strictEqual(yield* einvoices.processOnce(), 0)
        const [listed] = yield* einvoices.list(operator, { livemode: true })
        assert.strictEqual(listed!.document_id, documentIdOf(invoice))
        assert.strictEqual(listed!.status, "pending")
        assert.include(listed!.waiting, "live mode")
        assert.deepStrictEqual(server.submits, [])
        // A scope sees its own only.
        assert.deepStrictEqual(yield* einvoices.list({ accountId: invoice.account_id, livemode: false }, {}), [])
      }).pipe(Effect.provide(engine(server)))
    ))

  it.effect("a document for a consumer queues nothing", () =>
    withServer((server) =>
      Effect.gen(function*() {
        const [drawn] = sendableInvoices(1)
        const invoice = { ...drawn!, buyer: { ...drawn!.buyer, business: null } }
        yield* issue(invoice)
        assert.deepStrictEqual(yield* (yield* EInvoices).list(operator, {}), [])
      }).pipe(Effect.provide(engine(server)))
    ))
})
