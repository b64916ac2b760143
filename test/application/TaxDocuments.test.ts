/**
 * Tax documents issued by the engine over the memory store and the simulated processor: what a merchant without a
 * profile sees (nothing new), prices including and excluding VAT, the invoice a checkout and a renewal issue, the
 * credit notes refunds issue, and the events. Random carts and refunds hold the arithmetic's invariants.
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Either, FastCheck as fc, TestClock } from "effect"
import { Accounts } from "../../src/application/Accounts.js"
import { Billing } from "../../src/application/Billing.js"
import { Customers } from "../../src/application/Customers.js"
import { EInvoices } from "../../src/application/EInvoices.js"
import { Events } from "../../src/application/Events.js"
import { Payments } from "../../src/application/Payments.js"
import { TaxDocuments } from "../../src/application/TaxDocuments.js"
import type { Scope } from "../../src/domain/Account.js"
import type { EventType } from "../../src/domain/Event.js"
import type { PaymentId } from "../../src/domain/Ids.js"
import * as TaxDocument from "../../src/domain/TaxDocument.js"
import type * as Vat from "../../src/domain/Vat.js"
import * as PintAe from "../../adapters/einvoice/PintAe.js"
import { testTrns } from "../../adapters/einvoice/SimulatedProvider.js"
import { cards, formWith, makeProduct, makeSession, pay } from "../support/checkout.js"
import { merchantTrn, vatProfile } from "../support/taxProfile.js"
import { newAccount, withEngine } from "./harness.js"

/** The shared VAT-registered profile, its prices including VAT or not. */
const profile = (pricesIncludeVat: boolean) => ({ ...vatProfile, prices_include_vat: pricesIncludeVat })


/** A new account with a VAT-registered profile (or none): its test scope. */
const merchant = (pricesIncludeVat: boolean | null) =>
  Effect.gen(function*() {
    const { account, test } = yield* newAccount
    if (pricesIncludeVat !== null) {
      yield* Effect.flatMap(Accounts, (a) => a.update(account.account_id, { tax_profile: profile(pricesIncludeVat) }))
    }
    return test
  })

/** A paid checkout of `cart` (products by price, category and quantity): the payment and session it made. */
const checkout = (
  scope: Scope,
  cart: ReadonlyArray<{ readonly price: number; readonly category?: Vat.Category; readonly quantity?: number }>,
  email = "amal@example.ae"
) =>
  Effect.gen(function*() {
    const lines = []
    for (const [i, line] of cart.entries()) {
      const category = line.category ?? "S"
      const product = yield* makeProduct(scope, {
        name: `Item ${i + 1}`,
        price: line.price,
        tax_category: category,
        // A service's accounting code: an e-invoice names it (PINT AE ibr-185-ae).
        item_code: "998599",
        ...(category === "E" ? { tax_exemption_code: "DL8.46.1" as const } : {})
      })
      lines.push({ product_id: product.product_id, quantity: line.quantity ?? 1 })
    }
    const session = yield* makeSession(scope, { product_cart: lines })
    const result = yield* pay(session.session_id, formWith(cards.visa, { email }))
    if (result._tag !== "Paid") return assert.fail(`the form was refused: ${JSON.stringify(result)}`)
    assert.strictEqual(result.payment.status, "succeeded")
    return { session, payment: result.payment }
  })

const invoicesOf = (scope: Scope, paymentId?: PaymentId) =>
  Effect.map(
    Effect.flatMap(TaxDocuments, (d) => d.listInvoices(scope, { payment_id: paymentId }, { limit: 100, after: undefined })),
    (page) => page.items
  )
const creditNotesOf = (scope: Scope, paymentId?: PaymentId) =>
  Effect.map(
    Effect.flatMap(TaxDocuments, (d) => d.listCreditNotes(scope, { payment_id: paymentId }, { limit: 100, after: undefined })),
    (page) => [...page.items].reverse()
  )
const typesOf = (scope: Scope) =>
  Effect.map(Effect.flatMap(Events, (e) => e.list(scope, { limit: 100 })), (l) => l.items.map((e) => e.type))
const refund = (scope: Scope, id: PaymentId, amount: number) =>
  Effect.flatMap(Payments, (p) => p.refund(scope, id, amount))
const count = (types: ReadonlyArray<EventType>, type: EventType) => types.filter((t) => t === type).length

describe("tax documents", () => {
  it.effect("a merchant without a tax profile sees no change: no VAT on sessions or payments, no documents", () =>
    withEngine()(Effect.gen(function*() {
      const scope = yield* merchant(null)
      const { payment, session } = yield* checkout(scope, [{ price: 10_500 }])
      assert.strictEqual(session.total_amount, 10_500)
      assert.isNull(session.tax)
      assert.isNull(payment.tax)
      yield* refund(scope, payment.payment_id, 500)
      assert.lengthOf(yield* invoicesOf(scope), 0)
      assert.lengthOf(yield* creditNotesOf(scope), 0)
      const types = yield* typesOf(scope)
      assert.strictEqual(count(types, "invoice.issued") + count(types, "credit_note.issued"), 0)
    })))

  it.effect("prices including VAT: the total is unchanged, the VAT in it is shown and invoiced once", () =>
    withEngine()(Effect.gen(function*() {
      const scope = yield* merchant(true)
      const { payment, session } = yield* checkout(scope, [{ price: 10_500 }, { price: 2_000, category: "Z", quantity: 3 }])
      assert.strictEqual(session.total_amount, 16_500)
      assert.strictEqual(session.tax, 500)
      assert.strictEqual(payment.total_amount, 16_500)
      assert.strictEqual(payment.tax, 500)
      const [invoice, ...more] = yield* invoicesOf(scope)
      assert.lengthOf(more, 0)
      assert.strictEqual(invoice!.number, "INV-000001")
      assert.strictEqual(invoice!.kind, "simplified")
      assert.strictEqual(invoice!.payment_id, payment.payment_id)
      assert.deepStrictEqual(invoice!.totals, { net: 16_000, vat: 500, gross: 16_500 })
      assert.deepStrictEqual(invoice!.lines.map((l) => [l.category, l.quantity, l.unit_amount, l.net, l.vat, l.gross]), [
        ["S", 1, 10_500, 10_000, 500, 10_500],
        ["Z", 3, 2_000, 6_000, 0, 6_000]
      ])
      assert.strictEqual(invoice!.supplier.trn, merchantTrn)
      assert.deepStrictEqual(invoice!.card, { brand: payment.card!.brand, last4: payment.card!.last4 })
      assert.isFalse(invoice!.continuous_supply)
      assert.strictEqual(invoice!.uuid.replaceAll("-", ""), invoice!.invoice_id.slice(4))
      assert.strictEqual(count(yield* typesOf(scope), "invoice.issued"), 1)
    })))

  it.effect("prices excluding VAT: the session, the charge and the invoice add VAT per line", () =>
    withEngine()(Effect.gen(function*() {
      const scope = yield* merchant(false)
      // 333 × 3 = 999 at 5 %: 49.95 rounds to 50 fils; 1 fils: 0.05 rounds to 0.
      const { payment, session } = yield* checkout(scope, [{ price: 333, quantity: 3 }, { price: 1 }])
      assert.strictEqual(session.tax, 50)
      assert.strictEqual(session.total_amount, 1_050)
      assert.deepStrictEqual(session.product_cart.map((l) => l.unit_amount), [333, 1])
      assert.strictEqual(payment.total_amount, 1_050)
      const [invoice] = yield* invoicesOf(scope, payment.payment_id)
      assert.isFalse(invoice!.prices_include_vat)
      assert.deepStrictEqual(invoice!.totals, { net: 1_000, vat: 50, gross: 1_050 })
    })))

  it.effect("a business buyer with a TRN gets a full invoice naming it", () =>
    withEngine()(Effect.gen(function*() {
      const scope = yield* merchant(true)
      const customers = yield* Customers
      yield* customers.create(scope, {
        email: "buyer@gulf-trading.ae",
        name: "Omar",
        business: {
          business_name: "Gulf Trading FZE",
          trn: "100765432100003" as never,
          address: { line1: "Warehouse 4", line2: null, city: "Sharjah", emirate: "SHJ", country: "AE" },
          peppol_endpoint: { scheme: "0235", id: "1007654321" }
        }
      })
      const { payment } = yield* checkout(scope, [{ price: 21_000 }], "buyer@gulf-trading.ae")
      const [invoice] = yield* invoicesOf(scope, payment.payment_id)
      assert.strictEqual(invoice!.kind, "full")
      assert.strictEqual(invoice!.buyer.business?.business_name, "Gulf Trading FZE")
      assert.strictEqual(invoice!.buyer.business?.trn, "100765432100003")
    })))

  it.effect("a business with a Peppol endpoint: its invoice and credit note go to the simulated ASP and are accepted; a TRN it rejects stays rejected", () =>
    withEngine()(Effect.gen(function*() {
      const scope = yield* merchant(true)
      const customers = yield* Customers
      const business = (trn: string, email: string) =>
        customers.create(scope, {
          email,
          business: {
            business_name: "Gulf Trading FZE",
            trn: trn as never,
            address: { line1: "Warehouse 4", line2: null, city: "Sharjah", emirate: "SHJ", country: "AE" },
            peppol_endpoint: { scheme: "0235", id: trn.slice(0, 10) }
          }
        })
      yield* business("100765432100003", "ap@gulf-trading.ae")
      yield* business(testTrns.rejected, "ap@refused.ae")
      const consumer = yield* checkout(scope, [{ price: 1_050 }], "someone@example.ae")
      const accepted = yield* checkout(scope, [{ price: 10_500 }], "ap@gulf-trading.ae")
      const rejected = yield* checkout(scope, [{ price: 2_100 }], "ap@refused.ae")
      yield* refund(scope, accepted.payment.payment_id, 5_250)
      const einvoices = yield* EInvoices
      const queued = yield* einvoices.list(scope, {})
      // Only the businesses' documents go to the ASP: two invoices and one credit note, queued with them.
      assert.strictEqual(queued.length, 3)
      assert.isTrue(queued.every((t) => t.status === "pending"))
      while ((yield* einvoices.processOnce()) > 0) { /* until nothing is due */ }
      const [invoiceOf] = yield* invoicesOf(scope, accepted.payment.payment_id)
      const [refusedInvoice] = yield* invoicesOf(scope, rejected.payment.payment_id)
      const [note] = yield* creditNotesOf(scope, accepted.payment.payment_id)
      const status = new Map((yield* einvoices.list(scope, {})).map((t) => [t.document_id, t]))
      assert.deepStrictEqual(status.get(invoiceOf!.invoice_id)?.errors, [])
      assert.strictEqual(status.get(invoiceOf!.invoice_id)?.status, "accepted")
      assert.strictEqual(status.get(note!.credit_note_id)?.status, "accepted")
      assert.isNotNull(status.get(invoiceOf!.invoice_id)?.reference)
      assert.strictEqual(status.get(refusedInvoice!.invoice_id)?.status, "rejected")
      assert.isTrue((status.get(refusedInvoice!.invoice_id)?.errors ?? []).some((e) => e.code === "sim-rejected-trn"))
      const [consumerInvoice] = yield* invoicesOf(scope, consumer.payment.payment_id)
      assert.isFalse(status.has(consumerInvoice!.invoice_id))
    })))

  it.effect("refunds issue credit notes on the invoice, each from what the last left; the whole VAT comes back once", () =>
    withEngine()(Effect.gen(function*() {
      const scope = yield* merchant(true)
      const { payment } = yield* checkout(scope, [{ price: 10_500 }])
      yield* refund(scope, payment.payment_id, 5_250)
      yield* refund(scope, payment.payment_id, 5_250)
      const [invoice] = yield* invoicesOf(scope, payment.payment_id)
      const notes = yield* creditNotesOf(scope, payment.payment_id)
      assert.deepStrictEqual(notes.map((n) => n.number), ["CN-000001", "CN-000002"])
      assert.deepStrictEqual(notes.map((n) => [n.value_before, n.correct_value, n.difference.gross]), [
        [10_500, 5_250, 5_250],
        [5_250, 0, 5_250]
      ])
      assert.deepStrictEqual(notes.map((n) => n.reason_code), ["DL8.61.1.C", "DL8.61.1.A"])
      assert.strictEqual(notes[0]!.difference.vat + notes[1]!.difference.vat, invoice!.totals.vat)
      assert.isTrue(notes.every((n) => n.invoice_id === invoice!.invoice_id && n.invoice_number === "INV-000001"))
      const types = yield* typesOf(scope)
      assert.strictEqual(count(types, "credit_note.issued"), 2)
    })))

  it.effect("a renewal issues its own invoice for the period it pays, as a continuous supply", () =>
    withEngine()(Effect.gen(function*() {
      yield* TestClock.setTime(Date.parse("2026-01-10T10:00:00.000Z"))
      const scope = yield* merchant(false)
      const product = yield* makeProduct(scope, { name: "Coffee club", price: 10_000, billing: "recurring", billing_interval: "month" })
      const session = yield* makeSession(scope, { product_cart: [{ product_id: product.product_id }] })
      assert.strictEqual(session.total_amount, 10_500)
      const result = yield* pay(session.session_id, formWith(cards.visa))
      if (result._tag !== "Paid") return assert.fail("refused")
      yield* TestClock.setTime(Date.parse("2026-02-10T10:00:01.000Z"))
      const report = yield* Effect.flatMap(Billing, (b) => b.runOnce())
      assert.strictEqual(report.renewals_charged, 1)
      const invoices = [...yield* invoicesOf(scope)].reverse()
      assert.deepStrictEqual(invoices.map((i) => i.number), ["INV-000001", "INV-000002"])
      const renewal = invoices[1]!
      assert.isTrue(renewal.continuous_supply)
      assert.strictEqual(renewal.subscription_id, result.payment.subscription_id)
      assert.deepStrictEqual(renewal.totals, { net: 10_000, vat: 500, gross: 10_500 })
      assert.strictEqual(DateTime.formatIso(renewal.period!.start), "2026-02-10T10:00:00.000Z")
      assert.strictEqual(DateTime.formatIso(renewal.period!.end), "2026-03-10T10:00:00.000Z")
      assert.strictEqual(DateTime.formatIso(invoices[0]!.period!.start), "2026-01-10T10:00:00.000Z")
      const payments = yield* Effect.flatMap(Payments, (p) => p.list(scope, { limit: 10 }))
      assert.isTrue(payments.items.every((p) => p.total_amount === 10_500 && p.tax === 500))
    })))

  it.effect("documents are scoped: another account or the other mode finds none", () =>
    withEngine()(Effect.gen(function*() {
      const scope = yield* merchant(true)
      const other = yield* merchant(true)
      const { payment } = yield* checkout(scope, [{ price: 1_050 }])
      const [invoice] = yield* invoicesOf(scope, payment.payment_id)
      const documents = yield* TaxDocuments
      for (const stranger of [other, { ...scope, livemode: true }]) {
        const found = yield* Effect.either(documents.getInvoice(stranger, invoice!.invoice_id))
        assert.isTrue(Either.isLeft(found) && found.left._tag === "NotFound")
        assert.lengthOf(yield* invoicesOf(stranger), 0)
      }
      assert.strictEqual((yield* documents.getInvoice(scope, invoice!.invoice_id)).number, "INV-000001")
    })))
})

// Random carts and refunds ------------------------------------------------------------------------------------------

const cartArb = fc.array(
  fc.record({
    price: fc.integer({ min: 0, max: 2_000_000 }),
    category: fc.constantFrom<Vat.Category>("S", "Z", "E", "O"),
    quantity: fc.integer({ min: 1, max: 20 })
  }),
  { minLength: 1, maxLength: 5 }
)

describe("tax documents (property)", () => {
  it.effect("a refund's reason and note are kept on the refund and written on its credit note, the PINT AE reason's words; refund.succeeded stays as the spec says", () =>
    withEngine()(Effect.gen(function*() {
      const scope = yield* merchant(true)
      const { payment } = yield* checkout(scope, [{ price: 10_500 }])
      const payments = yield* Payments
      yield* payments.refund(scope, payment.payment_id, 2_100, undefined, { reason: "requested_by_customer", note: "Wrong size: 42 ordered, 44 sent" })
      yield* payments.refund(scope, payment.payment_id, 8_400, undefined, { reason: "duplicate", note: null })
      const refunds = yield* payments.refundsOf(scope, payment.payment_id)
      assert.deepStrictEqual(refunds.map((r) => [r.amount, r.reason, r.note]), [
        [2_100, "requested_by_customer", "Wrong size: 42 ordered, 44 sent"],
        [8_400, "duplicate", null]
      ])
      const notes = yield* creditNotesOf(scope, payment.payment_id)
      assert.deepStrictEqual(notes.map((n) => [n.reason_code, n.reason]), [
        ["DL8.61.1.C", "Consideration reduced: part of the payment was refunded. Refund reason: Requested by the customer: Wrong size: 42 ordered, 44 sent"],
        ["DL8.61.1.A", "Supply cancelled: the payment was refunded in full. Refund reason: Duplicate payment"]
      ])
      const xml = PintAe.creditNoteXml(notes[0]!)
      assert.include(xml, "<cbc:Description>Consideration reduced: part of the payment was refunded. Refund reason: Requested by the customer: Wrong size: 42 ordered, 44 sent</cbc:Description>")
      // The event's payment carries refund_amount as its one extra field, and no reason (docs/api.md).
      const events = (yield* (yield* Events).list(scope, { limit: 100 })).items.filter((e) => e.type === "refund.succeeded")
      const paymentFields = Object.keys((yield* payments.get(scope, payment.payment_id)))
      for (const e of events) {
        assert.deepStrictEqual(Object.keys(e.data as object).filter((k) => !paymentFields.includes(k)), ["refund_amount"])
      }
      // Another scope does not read them.
      const other = yield* merchant(true)
      assert.strictEqual((yield* Effect.flip(payments.refundsOf(other, payment.payment_id)))._tag, "NotFound")
    })))

  it.effect("random carts and refunds: lines sum to the document, totals are the payment's to the fils, credit notes never exceed what is left", () =>
    Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(cartArb, fc.boolean(), fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 4 }), (cart, inclusive, shares) =>
          Effect.runPromise(withEngine()(Effect.gen(function*() {
            const scope = yield* merchant(inclusive)
            const { payment } = yield* checkout(scope, cart)
            // Every sale of a VAT-registered merchant is invoiced once, a free one too.
            const [invoice, ...more] = yield* invoicesOf(scope, payment.payment_id)
            assert.lengthOf(more, 0)
            if (invoice === undefined) return assert.fail("no invoice")
            const sum = TaxDocument.totals(invoice.lines)
            assert.deepStrictEqual(invoice.totals, sum)
            assert.strictEqual(sum.gross, payment.total_amount)
            assert.strictEqual(sum.vat, payment.tax)
            assert.strictEqual(sum.net + sum.vat, sum.gross)
            let left = payment.total_amount
            for (const share of shares) {
              const amount = Math.min(left, Math.max(1, Math.floor(left * share)))
              if (left === 0) break
              yield* refund(scope, payment.payment_id, amount)
              left -= amount
            }
            const notes = yield* creditNotesOf(scope, payment.payment_id)
            const credited = TaxDocument.totals(notes.map((n) => n.difference))
            assert.strictEqual(credited.gross, payment.total_amount - left)
            let before = invoice.totals.gross
            for (const note of notes) {
              assert.strictEqual(note.value_before, before)
              assert.isTrue(note.difference.gross <= before)
              assert.deepStrictEqual(note.difference, TaxDocument.totals(note.lines))
              assert.isTrue(note.lines.every((l) => l.net >= 0 && l.vat >= 0 && l.gross >= 0))
              before = note.correct_value
            }
            assert.isTrue(credited.vat <= invoice.totals.vat)
            if (left === 0) assert.strictEqual(credited.vat, invoice.totals.vat)
          })))
        ),
        { numRuns: 40 }
      )
    ))
})
