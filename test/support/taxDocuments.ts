/**
 * Random tax documents as the domain builds them: carts of mixed VAT categories through `TaxDocument.invoiceLines`,
 * prices including or excluding VAT, business buyers with or without a TRN, and credit notes through
 * `TaxDocument.credit` after random partial refunds. Every value is decoded through the domain's Schemas, so each is
 * a document Fils could issue. Used by the e-invoice tests and by scripts/einvoice-samples.ts.
 */
import { DateTime, Either, FastCheck as fc, Schema } from "effect"
import * as Arbitraries from "../../adapters/testing/Arbitraries.js"
import { forbidden } from "../../adapters/einvoice/Xml.js"
import { prefixes } from "../../src/domain/Ids.js"
import * as TaxDocument from "../../src/domain/TaxDocument.js"
import type { Address, Buyer, TaxProfile } from "../../src/domain/TaxProfile.js"
import { endpointOf } from "../../src/domain/TaxProfile.js"
import type * as Vat from "../../src/domain/Vat.js"

/** Text a document can carry: never blank, with XML's special characters and some Arabic among the ASCII. */
export const words = (max: number): fc.Arbitrary<string> =>
  fc
    .oneof(
      Arbitraries.text(1, max),
      fc.array(fc.constantFrom("<b>", "&amp;", "]]>", "\"'", "شركة", "\n", "\t", "A & B", "☕"), { minLength: 1, maxLength: 4 }).map((p) =>
        p.join(" ")
      )
    )
    .filter((s) => s.trim() !== "" && !forbidden.test(s) && [...s].length <= max)

/** A TRN as PINT AE reads one: 15 digits, starting with 1, ending with 03. */
export const trn = fc.stringMatching(/^1[0-9]{12}03$/)

export const address: fc.Arbitrary<Address> = fc.record({
  line1: words(60),
  line2: fc.option(words(60), { nil: null }),
  city: words(40),
  emirate: fc.constantFrom("AUH", "DXB", "SHJ", "UAQ", "FUJ", "AJM", "RAK"),
  country: fc.constant("AE" as const)
})

const licence = fc.record({ number: fc.stringMatching(/^[A-Z0-9-]{1,20}$/), authority: words(60) })

export const supplier: fc.Arbitrary<TaxProfile> = fc
  .record({
    legal_name: words(80),
    legal_name_ar: fc.option(fc.constantFrom("شركة فلس للتجارة", "مقهى الصباح"), { nil: null }),
    trn,
    address,
    trade_licence: licence,
    vat_registered: fc.constant(true),
    prices_include_vat: fc.boolean()
  })
  .map((p) => p as TaxProfile)

/** A business buyer with a TRN: its endpoint given, or derived from the TRN when its e-invoice is written. */
export const business = (options: { readonly licence?: boolean } = {}): fc.Arbitrary<Buyer> =>
  fc
    .record({
      business_name: words(80),
      // A Peppol endpoint, given or derived, is the TRN's (TaxProfile.Buyer): an e-invoice goes only to a business with one.
      trn,
      address,
      endpointGiven: fc.boolean(),
      trade_licence: options.licence === undefined ? fc.option(licence, { nil: undefined }) : options.licence ? licence : fc.constant(undefined)
    })
    .map(({ business_name, trn, address, endpointGiven, trade_licence }) => ({
      business_name,
      trn,
      address,
      peppol_endpoint: endpointGiven ? endpointOf(trn as never) : null,
      ...(trade_licence === undefined ? {} : { trade_licence })
    } as Buyer))

/** A cart line; its item code present (an HS code for goods, a SAC for services), an exempt line's reason given. */
export const lineInput: fc.Arbitrary<TaxDocument.LineInput> = fc
  .record({
    description: words(80),
    quantity: fc.oneof(fc.integer({ min: 1, max: 20 }), fc.integer({ min: 21, max: 999 })),
    unit_amount: fc.oneof(fc.integer({ min: 0, max: 5_000_000 }), fc.integer({ min: 1, max: 99 })),
    category: fc.constantFrom<Vat.Category>("S", "S", "Z", "E", "O"),
    item_type: fc.constantFrom<TaxDocument.ItemType>("G", "S"),
    hs: fc.stringMatching(/^[0-9]{6,10}$/),
    sac: fc.stringMatching(/^99[0-9]{4}$/),
    exemption: fc.constantFrom<Vat.ExemptionCode>("DL8.46.1", "DL8.46.2", "DL8.46.3", "DL8.46.4")
  })
  .map(({ category, exemption, hs, item_type, sac, ...rest }) => ({
    ...rest,
    category,
    item_type,
    item_code: item_type === "G" ? hs : sac,
    ...(category === "E" ? { exemption_code: exemption } : {})
  }))

const day = 86_400_000

/** A tax invoice for a business buyer, as Fils would issue it for a payment that succeeded. */
export const invoice = (options: { readonly licence?: boolean } = {}): fc.Arbitrary<TaxDocument.Invoice> =>
  fc
    .record({
      invoice_id: Arbitraries.id(prefixes.invoice),
      account_id: Arbitraries.accountId,
      livemode: fc.boolean(),
      n: fc.integer({ min: 1, max: 2_000_000 }),
      uuid: fc.uuid(),
      issued_at: Arbitraries.instant,
      supplier,
      customer_id: fc.option(Arbitraries.id(prefixes.customer), { nil: null }),
      name: fc.option(words(40), { nil: null }),
      email: fc.option(Arbitraries.email, { nil: null }),
      business: business(options),
      prices_include_vat: fc.boolean(),
      payment_id: Arbitraries.id(prefixes.payment),
      subscription_id: fc.option(Arbitraries.id(prefixes.subscription), { nil: null }),
      suppliedDaysBefore: fc.integer({ min: 0, max: 3 }),
      lines: fc.array(lineInput, { minLength: 1, maxLength: 8 }),
      card: fc.option(fc.record({ brand: fc.constantFrom("visa", "mastercard", "amex"), last4: fc.stringMatching(/^[0-9]{4}$/) }), {
        nil: null
      })
    })
    .map((r) => {
      const lines = TaxDocument.invoiceLines(r.lines, r.prices_include_vat)
      const supplied = DateTime.unsafeMake(DateTime.toEpochMillis(r.issued_at) - r.suppliedDaysBefore * day)
      return Schema.validateSync(TaxDocument.Invoice)({
        object: "invoice",
        invoice_id: r.invoice_id,
        account_id: r.account_id,
        livemode: r.livemode,
        number: TaxDocument.documentNumber("INV", r.n),
        uuid: r.uuid,
        issued_at: r.issued_at,
        currency: "AED",
        supplier: { ...r.supplier, prices_include_vat: r.prices_include_vat },
        buyer: { customer_id: r.customer_id, name: r.name, email: r.email, business: r.business },
        prices_include_vat: r.prices_include_vat,
        payment_id: r.payment_id,
        subscription_id: r.subscription_id,
        kind: TaxDocument.invoiceKind(r.business.trn),
        supplied_at: supplied,
        continuous_supply: r.subscription_id !== null,
        period: r.subscription_id === null
          ? null
          : { start: supplied, end: DateTime.unsafeMake(DateTime.toEpochMillis(supplied) + 30 * day) },
        lines,
        totals: TaxDocument.totals(lines),
        card: r.card
      })
    })

/**
 * A tax credit note on a random invoice: refunds in random steps (each a fraction of what is left), the note being
 * the last of them, so it starts from the value the notes before it left.
 */
export const creditNote = (options: { readonly licence?: boolean } = {}): fc.Arbitrary<TaxDocument.CreditNote> =>
  fc
    .record({
      invoice: invoice(options),
      fractions: fc.array(fc.double({ min: 0.01, max: 1, noNaN: true }), { minLength: 1, maxLength: 4 }),
      credit_note_id: Arbitraries.id(prefixes.creditNote),
      refund_id: Arbitraries.id(prefixes.refund),
      n: fc.integer({ min: 1, max: 2_000_000 }),
      uuid: fc.uuid(),
      laterDays: fc.integer({ min: 0, max: 400 }),
      reason: fc.oneof(words(120), fc.constant("")),
      reason_code: fc.constantFrom<TaxDocument.CreditReasonCode>(
        "DL8.61.1.A",
        "DL8.61.1.B",
        "DL8.61.1.C",
        "DL8.61.1.D",
        "DL8.61.1.E",
        "VD"
      )
    })
    .filter((r) => r.invoice.totals.gross > 0)
    .map((r) => {
      const inv = r.invoice
      const notes: Array<TaxDocument.Credit> = []
      let left = inv.totals.gross
      for (const fraction of r.fractions) {
        if (left === 0) break
        const credited = TaxDocument.credit(inv.lines, notes, Math.max(1, Math.floor(left * fraction)))
        if (Either.isLeft(credited)) throw new Error(credited.left.message)
        notes.push(credited.right)
        left = credited.right.correct_value
      }
      const note = notes[notes.length - 1]!
      return Schema.validateSync(TaxDocument.CreditNote)({
        object: "credit_note",
        credit_note_id: r.credit_note_id,
        account_id: inv.account_id,
        livemode: inv.livemode,
        number: TaxDocument.documentNumber("CN", r.n),
        uuid: r.uuid,
        issued_at: DateTime.unsafeMake(DateTime.toEpochMillis(inv.issued_at) + r.laterDays * day),
        currency: "AED",
        supplier: inv.supplier,
        buyer: inv.buyer,
        prices_include_vat: inv.prices_include_vat,
        payment_id: inv.payment_id,
        subscription_id: inv.subscription_id,
        invoice_id: inv.invoice_id,
        invoice_number: inv.number,
        invoice_issued_at: inv.issued_at,
        refund_id: r.refund_id,
        reason: r.reason,
        reason_code: r.reason_code,
        original_value: note.original_value,
        value_before: note.value_before,
        correct_value: note.correct_value,
        difference: note.difference,
        lines: note.lines
      })
    })
