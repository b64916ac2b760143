/**
 * PINT AE e-invoices (adapters/einvoice): over random invoices and credit notes built with the domain's functions
 * (test/support/taxDocuments.ts), the XML is well-formed, Fils' rules find nothing they should not, and every amount in
 * the XML reconciles with the document to the fils; planted errors are found by the rules. The official OpenPeppol
 * validation runs outside the repository (docs/einvoicing.md).
 */
import { assert, describe, it } from "@effect/vitest"
import { DateTime, FastCheck as fc, Schema } from "effect"
import * as PintAe from "../../adapters/einvoice/PintAe.js"
import * as PintAeRules from "../../adapters/einvoice/PintAeRules.js"
import * as TaxDocument from "../../src/domain/TaxDocument.js"
import * as Vat from "../../src/domain/Vat.js"
import * as Docs from "../support/taxDocuments.js"
import { all, maybe, one, parse, textAt, type XmlElement } from "../support/xml.js"

/** Fils from an amount in AED as PINT AE wants it: exactly two decimals. */
const fils = (s: string): number => {
  assert.match(s, /^[0-9]+\.[0-9]{2}$/, `an amount with two decimals: ${s}`)
  return Number(s.replace(".", ""))
}
const amountAt = (e: XmlElement, ...path: ReadonlyArray<string>): number => {
  const found = one(e, ...path)
  assert.strictEqual(found.attributes.currencyID, "AED")
  return fils(found.text)
}

/** round(quantity × price, 2 decimals), halves up, in fils: the rules' line arithmetic (ibr-147-ae) on the XML's text. */
const timesPrice = (quantity: string, price: string): number => {
  const [whole, fraction = ""] = price.split(".")
  return Number(Vat.roundHalfUp(BigInt(quantity) * BigInt(`${whole}${fraction}`) * 100n, 10n ** BigInt(fraction.length)))
}

type Line = TaxDocument.DocumentLine | TaxDocument.CreditLine
const outOfScope = (lines: ReadonlyArray<Line>) => lines.every((l) => l.category === "E" || l.category === "O")

/**
 * What the rules must find on a document the domain built: nothing, except where PINT AE asks more than the law
 * gives: the buyer's trade licence when every line is exempt or out of scope, and (stated independently here) a
 * standard-rated VAT rounded per line that strays more than 0.02 AED from 5 % of its taxable amount.
 */
const expectedRules = (doc: TaxDocument.Invoice | TaxDocument.CreditNote): Array<string> => {
  const rules: Array<string> = []
  if (outOfScope(doc.lines) && doc.buyer.business?.trade_licence === undefined) rules.push("ibr-136-ae")
  const standard = doc.lines.filter((l) => l.category === "S")
  if (standard.length > 0) {
    const net = standard.reduce((s, l) => s + l.net, 0)
    const vat = standard.reduce((s, l) => s + l.vat, 0)
    const fivePercent = Math.floor((net * 5 + 50) / 100) // halves up, exact for safe integers this small
    if (Math.abs(vat - fivePercent) > 2) rules.push("aligned-ibrp-s-09")
  }
  return rules.sort()
}

const rulesOf = (doc: TaxDocument.Invoice | TaxDocument.CreditNote) => PintAeRules.check(doc).map((f) => f.rule).sort()

const checkParties = (root: XmlElement, doc: TaxDocument.Invoice | TaxDocument.CreditNote) => {
  const seller = one(root, "cac:AccountingSupplierParty", "cac:Party")
  const trn = doc.supplier.trn!
  assert.strictEqual(textAt(seller, "cbc:EndpointID"), trn.slice(0, 10))
  assert.strictEqual(one(seller, "cbc:EndpointID").attributes.schemeID, "0235")
  assert.strictEqual(textAt(seller, "cac:PartyTaxScheme", "cbc:CompanyID"), trn)
  assert.strictEqual(textAt(seller, "cac:PartyLegalEntity", "cbc:RegistrationName"), doc.supplier.legal_name, "escaped and read back")
  const licence = one(seller, "cac:PartyLegalEntity", "cbc:CompanyID")
  assert.strictEqual(licence.text, doc.supplier.trade_licence!.number)
  assert.deepStrictEqual(licence.attributes, { schemeAgencyID: "TL", schemeAgencyName: doc.supplier.trade_licence!.authority })
  assert.strictEqual(textAt(seller, "cac:PostalAddress", "cbc:CountrySubentity"), doc.supplier.address.emirate)
  assert.strictEqual(textAt(seller, "cac:PostalAddress", "cbc:StreetName"), doc.supplier.address.line1)

  const buyer = one(root, "cac:AccountingCustomerParty", "cac:Party")
  const business = doc.buyer.business!
  assert.strictEqual(textAt(buyer, "cac:PartyLegalEntity", "cbc:RegistrationName"), business.business_name)
  assert.strictEqual(textAt(buyer, "cbc:EndpointID"), business.peppol_endpoint?.id ?? business.trn!.slice(0, 10))
  assert.strictEqual(maybe(buyer, "cac:PartyTaxScheme", "cbc:CompanyID")?.text, business.trn ?? undefined)
  assert.strictEqual(textAt(buyer, "cac:PostalAddress", "cbc:CountrySubentity"), business.address!.emirate)
  assert.strictEqual(maybe(buyer, "cac:PartyLegalEntity", "cbc:CompanyID")?.text, business.trade_licence?.number)
}

/** The amounts of the XML, to the fils: totals, VAT by category, and each line (net, VAT, with VAT, unit price). */
const checkAmounts = (root: XmlElement, lineName: string, lines: ReadonlyArray<Line>, totals: TaxDocument.Totals, prepaid: number) => {
  const money = one(root, "cac:LegalMonetaryTotal")
  assert.strictEqual(amountAt(money, "cbc:LineExtensionAmount"), totals.net)
  assert.strictEqual(amountAt(money, "cbc:TaxExclusiveAmount"), totals.net)
  assert.strictEqual(amountAt(money, "cbc:TaxInclusiveAmount"), totals.gross)
  assert.strictEqual(maybe(money, "cbc:PrepaidAmount") === undefined ? 0 : amountAt(money, "cbc:PrepaidAmount"), prepaid)
  assert.strictEqual(amountAt(money, "cbc:PayableAmount"), totals.gross - prepaid, "payable: the total less what was paid")
  const tax = one(root, "cac:TaxTotal")
  assert.strictEqual(amountAt(tax, "cbc:TaxAmount"), totals.vat)
  const subtotals = all(tax, "cac:TaxSubtotal").map((s) => ({
    category: textAt(s, "cac:TaxCategory", "cbc:ID") as Vat.Category,
    net: amountAt(s, "cbc:TaxableAmount"),
    vat: amountAt(s, "cbc:TaxAmount"),
    percent: maybe(s, "cac:TaxCategory", "cbc:Percent")?.text
  }))
  assert.deepStrictEqual(
    subtotals,
    TaxDocument.breakdown(lines).map((c) => ({
      category: c.category,
      net: c.net,
      vat: c.vat,
      percent: c.category === "S" ? "5" : c.category === "Z" ? "0" : undefined
    }))
  )
  assert.strictEqual(subtotals.reduce((s, c) => s + c.vat, 0), totals.vat)
  const written = all(root, lineName)
  assert.strictEqual(written.length, lines.length)
  let net = 0
  written.forEach((x, i) => {
    const line = lines[i]!
    const quantity = textAt(x, lineName === "cac:InvoiceLine" ? "cbc:InvoicedQuantity" : "cbc:CreditedQuantity")
    assert.strictEqual(amountAt(x, "cbc:LineExtensionAmount"), line.net)
    assert.strictEqual(amountAt(x, "cac:ItemPriceExtension", "cbc:Amount"), line.gross)
    const lineVat = maybe(x, "cac:ItemPriceExtension", "cac:TaxTotal", "cbc:TaxAmount")
    if (line.category === "E") assert.isUndefined(lineVat, "no VAT amount on an exempt line")
    else assert.strictEqual(fils(lineVat!.text), line.vat)
    const price = textAt(x, "cac:Price", "cbc:PriceAmount")
    assert.strictEqual(timesPrice(quantity, price), line.net, `quantity ${quantity} × ${price} gives back the net`)
    assert.strictEqual(textAt(x, "cac:Price", "cac:AllowanceCharge", "cbc:BaseAmount"), price)
    const category = one(x, "cac:Item", "cac:ClassifiedTaxCategory")
    assert.strictEqual(textAt(category, "cbc:ID"), line.category)
    assert.strictEqual(maybe(category, "cbc:TaxExemptionReasonCode")?.text, line.category === "E" ? line.exemption_code : undefined)
    assert.strictEqual(textAt(x, "cac:Item", "cac:CommodityClassification", "cbc:CommodityCode"), line.item_type)
    const code = line.item_type === "G"
      ? one(x, "cac:Item", "cac:CommodityClassification", "cbc:ItemClassificationCode")
      : one(x, "cac:Item", "cac:AdditionalItemIdentification", "cbc:ID")
    assert.strictEqual(code.text, line.item_code)
    assert.strictEqual(textAt(x, "cac:Item", "cbc:Description"), line.description)
    net += fils(one(x, "cbc:LineExtensionAmount").text)
  })
  assert.strictEqual(net, amountAt(money, "cbc:LineExtensionAmount"), "the lines' nets sum to the document's")
}

const checkInvoiceXml = (invoice: TaxDocument.Invoice) => {
  const root = parse(PintAe.invoiceXml(invoice))
  assert.strictEqual(root.name, "Invoice")
  assert.strictEqual(root.attributes.xmlns, "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2")
  assert.strictEqual(textAt(root, "cbc:CustomizationID"), "urn:peppol:pint:billing-1@ae-1")
  assert.strictEqual(textAt(root, "cbc:ProfileID"), "urn:peppol:bis:billing")
  assert.strictEqual(textAt(root, "cbc:ProfileExecutionID"), invoice.continuous_supply ? "00001000" : "00000000")
  assert.strictEqual(textAt(root, "cbc:ID"), invoice.number)
  assert.strictEqual(textAt(root, "cbc:UUID"), invoice.uuid)
  assert.strictEqual(textAt(root, "cbc:InvoiceTypeCode"), outOfScope(invoice.lines) ? "480" : "380")
  assert.strictEqual(textAt(root, "cbc:DocumentCurrencyCode"), "AED")
  assert.strictEqual(maybe(root, "cbc:DueDate") !== undefined, invoice.totals.gross - PintAe.prepaidOf(invoice) > 0, "a due date when something is payable")
  assert.strictEqual(maybe(root, "cac:InvoicePeriod") !== undefined, invoice.period !== null)
  const means = one(root, "cac:PaymentMeans")
  assert.strictEqual(textAt(means, "cbc:PaymentMeansCode"), invoice.card === null ? "1" : "55")
  if (invoice.card !== null) assert.strictEqual(textAt(means, "cac:CardAccount", "cbc:PrimaryAccountNumberID"), `XXXXXXXXXXXX${invoice.card.last4}`)
  checkParties(root, invoice)
  checkAmounts(root, "cac:InvoiceLine", invoice.lines, invoice.totals, invoice.card === null ? 0 : invoice.totals.gross)
}

const checkCreditNoteXml = (note: TaxDocument.CreditNote) => {
  const root = parse(PintAe.creditNoteXml(note))
  assert.strictEqual(root.name, "CreditNote")
  assert.strictEqual(root.attributes.xmlns, "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2")
  assert.strictEqual(textAt(root, "cbc:ProfileExecutionID"), note.subscription_id !== null ? "00001000" : "00000000")
  assert.strictEqual(textAt(root, "cbc:CreditNoteTypeCode"), outOfScope(note.lines) ? "81" : "381")
  assert.strictEqual(textAt(root, "cac:DiscrepancyResponse", "cbc:ResponseCode"), note.reason_code)
  const reference = maybe(root, "cac:BillingReference", "cac:InvoiceDocumentReference")
  if (note.reason_code === "VD") assert.isUndefined(reference, "PINT AE: a volume discount names no invoice")
  else {
    assert.strictEqual(textAt(reference!, "cbc:ID"), note.invoice_number)
    assert.strictEqual(textAt(reference!, "cbc:IssueDate"), PintAe.uaeDate(note.invoice_issued_at))
  }
  assert.isUndefined(maybe(root, "cac:PaymentMeans"), "no payment means on a credit note")
  checkParties(root, note)
  checkAmounts(root, "cac:CreditNoteLine", note.lines, note.difference, 0)
}

describe("PINT AE e-invoices (property)", () => {
  it("an invoice's XML is well-formed, the rules find nothing the law does not cause, and its amounts are the document's", () => {
    fc.assert(fc.property(Docs.invoice(), (invoice) => {
      checkInvoiceXml(invoice)
      assert.deepStrictEqual(rulesOf(invoice), expectedRules(invoice))
    }), { numRuns: 300 })
  })

  it("a credit note's XML is well-formed, references its invoice, and reconciles with the note to the fils", () => {
    fc.assert(fc.property(Docs.creditNote(), (note) => {
      checkCreditNoteXml(note)
      assert.deepStrictEqual(rulesOf(note), expectedRules(note))
    }), { numRuns: 300 })
  })

  it("with the buyer's trade licence and at most four standard-rated lines, the rules find nothing at all", () => {
    const few = (doc: TaxDocument.Invoice) => doc.lines.filter((l) => l.category === "S").length <= 4
    fc.assert(fc.property(Docs.invoice({ licence: true }).filter(few), (invoice) => {
      assert.deepStrictEqual(PintAeRules.check(invoice), [])
    }), { numRuns: 200 })
  })
})

/** A planted error and the rule that must find it. */
type Plant<D> = { readonly rule: string; readonly plant: (doc: D) => D | undefined }

const invoicePlants: ReadonlyArray<Plant<TaxDocument.Invoice>> = [
  { rule: "ibr-132-ae", plant: (d) => ({ ...d, supplier: { ...d.supplier, trn: `${d.supplier.trn!.slice(0, 13)}04` as never } }) },
  { rule: "ibr-132-ae", plant: (d) => ({ ...d, supplier: { ...d.supplier, trn: `2${d.supplier.trn!.slice(1)}` as never } }) },
  {
    rule: "ibr-132-ae",
    plant: (d) => d.buyer.business?.trn ? { ...d, buyer: { ...d.buyer, business: { ...d.buyer.business, trn: "100000000000001" as never } } } : undefined
  },
  { rule: "ibr-co-14", plant: (d) => ({ ...d, totals: { ...d.totals, vat: d.totals.vat + 1 } }) },
  { rule: "ibr-co-10", plant: (d) => ({ ...d, totals: { ...d.totals, net: d.totals.net + 1 } }) },
  { rule: "ibr-co-15", plant: (d) => ({ ...d, totals: { ...d.totals, gross: d.totals.gross + 1 } }) },
  {
    rule: "ibr-co-15",
    plant: (d) => d.totals.gross > 0 ? { ...d, totals: { ...d.totals, gross: d.totals.gross - 1 } } : undefined
  },
  {
    rule: "fils-line-rounding",
    plant: (d) => ({ ...d, lines: d.lines.map((l, i) => i === 0 ? { ...l, vat: l.vat + 1, gross: l.gross + 1 } : l) })
  },
  { rule: "fils-line-amounts", plant: (d) => ({ ...d, lines: d.lines.map((l, i) => i === 0 ? { ...l, net: l.net + 1 } : l) }) },
  { rule: "ibr-128-ae", plant: (d) => ({ ...d, supplier: { ...d.supplier, address: { ...d.supplier.address, emirate: "XYZ" as never } } }) },
  { rule: "ibr-150-ae", plant: (d) => ({ ...d, supplier: { ...d.supplier, trade_licence: null } }) },
  { rule: "ibr-007", plant: (d) => ({ ...d, buyer: { ...d.buyer, business: null } }) },
  {
    rule: "fils-buyer-endpoint",
    plant: (d) =>
      d.buyer.business?.trn
        ? { ...d, buyer: { ...d.buyer, business: { ...d.buyer.business, peppol_endpoint: { scheme: "0235", id: "1999999999" } } } }
        : undefined
  },
  {
    rule: "ibr-185-ae",
    plant: (d) => ({ ...d, lines: d.lines.map((l, i) => i === 0 ? { ...l, item_type: "S" as const, item_code: null } : l) })
  },
  {
    rule: "ibr-167-ae",
    plant: (d) => {
      const i = d.lines.findIndex((l) => l.category === "E")
      if (i < 0) return undefined
      const { exemption_code: _, ...rest } = d.lines[i]!
      return { ...d, lines: d.lines.map((l, j) => (j === i ? rest : l)) }
    }
  },
  {
    rule: "fils-xml-text",
    plant: (d) => ({ ...d, lines: d.lines.map((l, i) => i === 0 ? { ...l, description: `${l.description}\u0007` } : l) })
  }
]

const creditPlants: ReadonlyArray<Plant<TaxDocument.CreditNote>> = [
  { rule: "ibr-132-ae", plant: (d) => ({ ...d, supplier: { ...d.supplier, trn: "12345678901234" as never } }) },
  { rule: "ibr-co-14", plant: (d) => ({ ...d, difference: { ...d.difference, vat: d.difference.vat + 1 } }) },
  { rule: "ibr-co-10", plant: (d) => ({ ...d, difference: { ...d.difference, net: d.difference.net + 1 } }) },
  { rule: "fils-credit-value", plant: (d) => ({ ...d, correct_value: d.correct_value + 1 }) },
  { rule: "fils-credit-value", plant: (d) => ({ ...d, value_before: d.difference.gross - 1 }) },
  {
    rule: "ibr-055-ae",
    plant: (d) => ({ ...d, reason_code: d.reason_code === "VD" ? "DL8.61.1.D" as const : d.reason_code, invoice_number: " " })
  },
  { rule: "ibr-001-ae", plant: (d) => ({ ...d, reason_code: "DL8.61.1.F" as never }) }
]

describe("PINT AE rules find planted errors (property)", () => {
  it("on invoices: a TRN of the wrong shape, totals off by one fils, a line not rounded as the law says, and more", () => {
    fc.assert(fc.property(Docs.invoice({ licence: true }), fc.constantFrom(...invoicePlants), (invoice, { plant, rule }) => {
      const planted = plant(invoice)
      if (planted === undefined) return
      assert.include(rulesOf(planted), rule)
      parse(PintAe.invoiceXml(planted)) // the writer still writes well-formed XML, for the rules to refuse
    }), { numRuns: 300 })
  })

  it("on credit notes: totals off by one fils, values that do not follow, no invoice referenced, an unknown reason", () => {
    fc.assert(fc.property(Docs.creditNote({ licence: true }), fc.constantFrom(...creditPlants), (note, { plant, rule }) => {
      const planted = plant(note)
      if (planted === undefined) return
      assert.include(rulesOf(planted), rule)
      parse(PintAe.creditNoteXml(planted))
    }), { numRuns: 200 })
  })
})

describe("PINT AE e-invoices (examples)", () => {
  const sample = (lines: ReadonlyArray<TaxDocument.LineInput>, pricesIncludeVat: boolean) => {
    const base = fc.sample(Docs.invoice({ licence: true }), { seed: 7, numRuns: 1 })[0]!
    const documentLines = TaxDocument.invoiceLines(lines, pricesIncludeVat)
    return Schema.validateSync(TaxDocument.Invoice)({
      ...base,
      prices_include_vat: pricesIncludeVat,
      lines: documentLines,
      totals: TaxDocument.totals(documentLines)
    })
  }
  const coffee = (unit: number): TaxDocument.LineInput => ({
    description: "Coffee",
    quantity: 1,
    unit_amount: unit,
    category: "S",
    item_type: "G",
    item_code: "090121"
  })

  it("eight lines of 0.10 AED excluding VAT: 0.08 VAT rounded per line is 0.04 from 5 % of 0.80, which PINT AE refuses", () => {
    const eight = sample(Array.from({ length: 8 }, () => coffee(10)), false)
    assert.deepStrictEqual(eight.totals, { net: 80, vat: 8, gross: 88 })
    assert.deepStrictEqual(PintAeRules.check(eight).map((f) => f.rule), ["aligned-ibrp-s-09"])
    const four = sample(Array.from({ length: 4 }, () => coffee(10)), false)
    assert.deepStrictEqual(PintAeRules.check(four), [])
  })

  it("a net unit price from a price including VAT gets the decimals that give back the net", () => {
    assert.strictEqual(PintAe.unitPrice(1234, 1), "12.34")
    assert.strictEqual(PintAe.unitPrice(1000, 3), "3.333")
    assert.strictEqual(PintAe.unitPrice(0, 7), "0.00")
    assert.strictEqual(PintAe.unitPrice(2000, 4), "5.00")
    assert.strictEqual(PintAe.unitPrice(95238, 100), "9.5238")
    assert.strictEqual(PintAe.unitPrice(95239, 100), "9.5239")
    assert.strictEqual(PintAe.unitPrice(1, 999), "0.00001")
    const line = sample([{ ...coffee(1000), quantity: 3 }], true).lines[0]!
    assert.deepStrictEqual([line.net, line.vat, line.gross], [2857, 143, 3000])
    assert.strictEqual(PintAe.unitPrice(line.net, 3), "9.523")
    assert.strictEqual(timesPrice("3", "9.523"), 2857)
  })

  it("dates are the UAE's (UTC+4); a supply before the issue date is the VAT point date", () => {
    const base = sample([coffee(500)], true)
    const invoice = {
      ...base,
      issued_at: DateTime.unsafeMake(Date.UTC(2026, 0, 31, 21, 30)),
      supplied_at: DateTime.unsafeMake(Date.UTC(2026, 0, 30, 8, 0))
    }
    const root = parse(PintAe.invoiceXml(invoice))
    assert.strictEqual(textAt(root, "cbc:IssueDate"), "2026-02-01")
    assert.strictEqual(textAt(root, "cbc:IssueTime"), "01:30:00+04:00")
    assert.strictEqual(textAt(root, "cbc:TaxPointDate"), "2026-01-30")
    // Paid by card when issued: all of it prepaid, nothing payable, so no due date; unpaid, due on the day of issue.
    const paid = parse(PintAe.invoiceXml({ ...invoice, card: { brand: "visa", last4: "4242" } }))
    assert.isUndefined(maybe(paid, "cbc:DueDate"))
    assert.strictEqual(amountAt(one(paid, "cac:LegalMonetaryTotal"), "cbc:PrepaidAmount"), invoice.totals.gross)
    assert.strictEqual(amountAt(one(paid, "cac:LegalMonetaryTotal"), "cbc:PayableAmount"), 0)
    const unpaid = parse(PintAe.invoiceXml({ ...invoice, card: null }))
    assert.strictEqual(textAt(unpaid, "cbc:DueDate"), "2026-02-01")
    assert.strictEqual(amountAt(one(unpaid, "cac:LegalMonetaryTotal"), "cbc:PayableAmount"), invoice.totals.gross)
  })

  it("only exempt and out-of-scope lines: typed 480, naming the buyer's trade licence; without it the rules say so", () => {
    const base = sample(
      [
        { description: "Rent", quantity: 1, unit_amount: 500_000, category: "E", item_type: "S", item_code: "997211", exemption_code: "DL8.46.2" },
        { description: "Fine", quantity: 1, unit_amount: 10_000, category: "O", item_type: "S", item_code: "999999" }
      ],
      true
    )
    const root = parse(PintAe.invoiceXml(base))
    assert.strictEqual(textAt(root, "cbc:InvoiceTypeCode"), "480")
    assert.strictEqual(
      textAt(root, "cac:AccountingCustomerParty", "cac:Party", "cac:PartyLegalEntity", "cbc:CompanyID"),
      base.buyer.business!.trade_licence!.number
    )
    assert.deepStrictEqual(PintAeRules.check(base), [])
    const { trade_licence: _, ...withoutLicence } = base.buyer.business!
    const without = { ...base, buyer: { ...base.buyer, business: withoutLicence } }
    assert.deepStrictEqual(PintAeRules.check(without).map((f) => f.rule), ["ibr-136-ae"])
  })

  it("every text is escaped: markup in a name stays text", () => {
    const base = sample([{ ...coffee(100), description: "<cbc:ID>1</cbc:ID> & \"more\" ]]> 'x'\r\n" }], true)
    const invoice = { ...base, supplier: { ...base.supplier, legal_name: "A&B <Trading> \"L.L.C\"" } }
    const xml = PintAe.invoiceXml(invoice)
    assert.notInclude(xml, "<Trading>")
    const root = parse(xml)
    assert.strictEqual(textAt(root, "cac:InvoiceLine", "cac:Item", "cbc:Name"), invoice.lines[0]!.description)
    assert.strictEqual(textAt(root, "cac:AccountingSupplierParty", "cac:Party", "cac:PartyLegalEntity", "cbc:RegistrationName"), invoice.supplier.legal_name)
    assert.strictEqual(
      one(root, "cac:AccountingSupplierParty", "cac:Party", "cac:PartyLegalEntity", "cbc:CompanyID").attributes.schemeAgencyName,
      invoice.supplier.trade_licence!.authority
    )
  })

  it("the XML reader refuses what is not well-formed", () => {
    for (const bad of ["<a>", "<a></b>", "<a>&</a>", "<a>&nbsp;</a>", "<a x=1/>", "<a x=\"1\" x=\"2\"/>", "<a/><b/>", "<p:a/>", "<a>\u0001</a>"]) {
      assert.throws(() => parse(bad), undefined, undefined, bad)
    }
    assert.strictEqual(parse("<a b=\"&lt;&#233;\">x &amp; y</a>").text, "x & y")
  })
})
