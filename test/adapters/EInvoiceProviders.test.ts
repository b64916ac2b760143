/**
 * The e-invoice providers (docs/einvoicing.md): the simulated ASP in process (Fils' rules, its test TRNs, one
 * transmission per document id), the HTTP adapter against the simulated ASP served on 127.0.0.1 with its faults
 * (500s, dropped connections, slow answers, a wrong token), and PINT AE written with a resend's parties.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Either, Fiber, Redacted, TestClock } from "effect"
import { invoiceXml, xml } from "../../adapters/einvoice/PintAe.js"
import { makeProviderHttp } from "../../adapters/einvoice/ProviderHttp.js"
import { makeSimulation, simulatedProvider, testTrns } from "../../adapters/einvoice/SimulatedProvider.js"
import { asSent, documentIdOf } from "../../src/domain/EInvoiceTransmission.js"
import type { CreditNote, Invoice } from "../../src/domain/TaxDocument.js"
import type { Submission } from "../../src/ports/EInvoiceProvider.js"
import { buyerWith, sendableCreditNotes, sendableInvoices, withBuyerTrn } from "../support/einvoiceDocuments.js"
import { buyerTrnOf, startEInvoiceServer } from "../support/einvoiceServer.js"

const submission = (doc: Invoice | CreditNote): Submission => ({
  document_id: documentIdOf(doc),
  uuid: doc.uuid,
  kind: doc.object,
  livemode: doc.livemode,
  xml: xml(doc),
  document: doc
})

describe("PINT AE with a resend's parties", () => {
  it("writes the parties given instead of the document's, and nothing else differently", () => {
    for (const doc of [...sendableInvoices(10), ...sendableCreditNotes(10)]) {
      assert.strictEqual(xml(doc, null), xml(doc))
      assert.strictEqual(xml(doc, { supplier: null, buyer: null }), xml(doc), "no parties: the document's own")
      const buyer = buyerWith(doc.buyer.business!, "100000000000503")
      const supplier = { ...doc.supplier, legal_name: "Renamed Trading LLC" }
      const resent = xml(doc, { supplier, buyer })
      assert.strictEqual(resent, xml(asSent(doc, { supplier, buyer })))
      assert.strictEqual(buyerTrnOf(resent), "100000000000503")
      assert.include(resent, "<cbc:RegistrationName>Renamed Trading LLC</cbc:RegistrationName>")
      const outsideParties = (x: string) => x.replace(/<cac:Accounting(Supplier|Customer)Party>[\s\S]*?<\/cac:Accounting\1Party>/g, "")
      assert.strictEqual(outsideParties(resent), outsideParties(xml(doc)), "number, dates, lines and amounts unchanged")
    }
    const [invoice] = sendableInvoices(1)
    assert.strictEqual(invoiceXml(invoice!), xml(invoice!))
  })
})

describe("the simulated provider", () => {
  it.effect("accepts a sendable document once: a second submit of its id answers the first answer", () =>
    Effect.gen(function*() {
      const simulation = yield* makeSimulation()
      const provider = simulatedProvider(simulation)
      const [doc] = sendableInvoices(1)
      const first = yield* provider.submit(submission(doc!))
      assert.strictEqual(first._tag, "Accepted")
      const again = yield* provider.submit(submission(doc!))
      assert.deepStrictEqual(again, first)
      assert.strictEqual(simulation.transmissionsOf(documentIdOf(doc!)), 1)
      assert.strictEqual(simulation.submitsOf(documentIdOf(doc!)), 2)
      if (first._tag === "Accepted") assert.strictEqual((yield* provider.status(first.reference, false)).status, "delivered")
      assert.strictEqual((yield* provider.status("sim_unknown", false)).status, "unknown")
      assert.isTrue(provider.serves(false))
      assert.isFalse(provider.serves(true), "never live documents")
    }))

  it.effect("rejects with Fils' rules' findings, and the rejecting test TRN; a corrected resend is checked afresh", () =>
    Effect.gen(function*() {
      const provider = simulatedProvider(yield* makeSimulation())
      const [doc] = sendableInvoices(1)
      const broken = { ...doc!, supplier: { ...doc!.supplier, trade_licence: null } }
      const findings = yield* provider.submit(submission(broken))
      assert.strictEqual(findings._tag, "Rejected")
      if (findings._tag === "Rejected") assert.deepInclude(findings.errors.map((e) => e.code), "ibr-150-ae")

      const refused = withBuyerTrn(doc!, testTrns.rejected)
      const rejected = yield* provider.submit(submission(refused))
      assert.strictEqual(rejected._tag, "Rejected")
      if (rejected._tag === "Rejected") assert.deepStrictEqual(rejected.errors.map((e) => e.code), ["sim-rejected-trn"])
      assert.deepStrictEqual(yield* provider.submit(submission(refused)), rejected, "the same e-invoice, the same answer")
      // The same document id, the buyer's TRN corrected: accepted.
      const fixed = asSent(refused, { supplier: null, buyer: buyerWith(refused.buyer.business!, "100000000000003") })
      assert.strictEqual((yield* provider.submit(submission(fixed)))._tag, "Accepted")
    }))

  it.effect("is unavailable twice for its test TRN, then answers; slow for another", () =>
    Effect.gen(function*() {
      const provider = simulatedProvider(yield* makeSimulation({ slow: "3 seconds" }))
      const [a, b] = sendableInvoices(2)
      const flaky = withBuyerTrn(a!, testTrns.unavailableTwice)
      for (const n of [1, 2]) {
        const failed = yield* Effect.either(provider.submit(submission(flaky)))
        assert.isTrue(Either.isLeft(failed) && failed.left._tag === "ProviderUnavailable", `submit ${n}`)
      }
      assert.strictEqual((yield* provider.submit(submission(flaky)))._tag, "Accepted")

      const slow = yield* Effect.fork(provider.submit(submission(withBuyerTrn(b!, testTrns.slow))))
      yield* TestClock.adjust(Duration.seconds(2))
      assert.isTrue((yield* Fiber.poll(slow))._tag === "None", "not answered yet")
      yield* TestClock.adjust(Duration.seconds(1))
      assert.strictEqual((yield* Fiber.join(slow))._tag, "Accepted")
    }))
})

describe("the HTTP adapter against the simulated ASP on 127.0.0.1", () => {
  const withServer = <A, E>(f: (server: Awaited<ReturnType<typeof startEInvoiceServer>>) => Effect.Effect<A, E>) =>
    Effect.acquireUseRelease(
      Effect.promise(() => startEInvoiceServer({ slow: "5 seconds" })),
      f,
      (server) => Effect.promise(server.close)
    )
  const http = (server: { url: string; token: string }, token = server.token) =>
    makeProviderHttp({ url: server.url, token: Redacted.make(token), timeout: "1 second", livemodes: [false, true] }).pipe(
      Effect.provide(FetchHttpClient.layer)
    )

  it.live("accepted (2xx), rejected (422) with the provider's errors, the status of a reference", () =>
    withServer((server) =>
      Effect.gen(function*() {
        const provider = yield* http(server)
        const [doc, other] = sendableInvoices(2)
        const accepted = yield* provider.submit(submission(doc!))
        assert.strictEqual(accepted._tag, "Accepted")
        assert.deepStrictEqual(yield* provider.submit(submission(doc!)), accepted, "the idempotency key: the first answer")
        assert.deepStrictEqual(server.submits, [documentIdOf(doc!), documentIdOf(doc!)])
        assert.strictEqual(server.simulation.transmissionsOf(documentIdOf(doc!)), 1)
        if (accepted._tag === "Accepted") {
          assert.deepStrictEqual(yield* provider.status(accepted.reference, false), {
            reference: accepted.reference,
            status: "delivered",
            detail: null
          })
        }
        const rejected = yield* provider.submit(submission(withBuyerTrn(other!, testTrns.rejected)))
        assert.strictEqual(rejected._tag, "Rejected")
        if (rejected._tag === "Rejected") assert.strictEqual(rejected.errors[0]!.code, "sim-rejected-trn")
        assert.isTrue(provider.serves(true))
      })
    ))

  it.live("a 500, a dropped connection, a slow answer and a wrong token are ProviderUnavailable; the retry is answered once", () =>
    withServer((server) =>
      Effect.gen(function*() {
        const provider = yield* http(server)
        const [doc, slow] = sendableInvoices(2)
        const unavailable = (effect: Effect.Effect<unknown, { readonly _tag: string; readonly message: string }>) =>
          Effect.map(Effect.flip(effect), (e) => {
            assert.strictEqual(e._tag, "ProviderUnavailable")
            return e.message
          })
        server.faults.serverErrors = 1
        assert.include(yield* unavailable(provider.submit(submission(doc!))), "500")
        server.faults.drops = 1
        assert.include(yield* unavailable(provider.submit(submission(doc!))), "cannot be reached")
        // The dropped one was accepted before its answer was lost: the retry gets that acceptance, nothing more.
        const accepted = yield* provider.submit(submission(doc!))
        assert.strictEqual(accepted._tag, "Accepted")
        assert.strictEqual(server.simulation.transmissionsOf(documentIdOf(doc!)), 1)
        assert.strictEqual(server.submits.length, 3)

        assert.include(yield* unavailable(provider.submit(submission(withBuyerTrn(slow!, testTrns.slow)))), "No answer within")
        const wrong = yield* http(server, "not_the_token")
        assert.include(yield* unavailable(wrong.submit(submission(doc!))), "401")
      })
    ), 20_000)
})
