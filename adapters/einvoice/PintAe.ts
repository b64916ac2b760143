/**
 * PINT AE 1.0.4 e-invoices (Peppol UBL 2.1) for Fils' tax documents (docs/einvoicing.md): a tax invoice becomes a UBL
 * `Invoice`, a tax credit note a UBL `CreditNote`. The writer writes what the document says, never recomputing an
 * amount: whether the document satisfies the rules is PintAeRules' question, asked before a document is issued or
 * sent.
 *
 * Amounts are in fils in the documents and in AED with two decimals here; only a unit price may need more (a net
 * unit price derived from a price including VAT), so that quantity × price gives back the line's net to the fils.
 */
import { DateTime, Layer } from "effect"
import { asSent, type Parties } from "../../src/domain/EInvoiceTransmission.js"
import * as TaxDocument from "../../src/domain/TaxDocument.js"
import { EInvoiceWriter } from "../../src/ports/EInvoiceProvider.js"
import { type Address, type Buyer, endpointOf, type PeppolEndpoint, type TaxProfile, type TradeLicence } from "../../src/domain/TaxProfile.js"
import * as Vat from "../../src/domain/Vat.js"
import { type Child, document, el, type Element } from "./Xml.js"

export const customizationId = "urn:peppol:pint:billing-1@ae-1"
export const profileId = "urn:peppol:bis:billing"

const namespaces = {
  "xmlns:cac": "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2",
  "xmlns:cbc": "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"
}
export const invoiceNamespace = "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"
export const creditNoteNamespace = "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2"

/** `12.34` for 1234 fils. */
export const aed = (fils: number): string => {
  const abs = Math.abs(fils)
  return `${fils < 0 ? "-" : ""}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")}`
}

/**
 * The net unit price, in AED, of a line of `quantity` whose net is `net` fils: two decimals when the net divides
 * evenly, else as many more as the quantity has digits, rounded half up. Then quantity × price is within half a fils
 * of the net (PINT AE ibr-147-ae rounds it to two decimals and compares).
 */
export const unitPrice = (net: number, quantity: number): string => {
  if (net % quantity === 0) return aed(net / quantity)
  const extra = String(quantity).length
  const units = Vat.roundHalfUp(BigInt(net) * 10n ** BigInt(extra), BigInt(quantity)).toString().padStart(3 + extra, "0")
  const fraction = units.slice(-(2 + extra)).replace(/0+$/, "").padEnd(2, "0")
  return `${units.slice(0, -(2 + extra))}.${fraction}`
}

/** The UAE keeps Gulf Standard Time all year (UTC+4): a document's dates are the dates there. */
const gulfOffsetMillis = 4 * 60 * 60 * 1000
const gulf = (at: DateTime.Utc): string => new Date(DateTime.toEpochMillis(at) + gulfOffsetMillis).toISOString()
export const uaeDate = (at: DateTime.Utc): string => gulf(at).slice(0, 10)
const uaeTime = (at: DateTime.Utc): string => `${gulf(at).slice(11, 19)}+04:00`

/** The transaction-type flags (8 positions): a subscription's period is a continuous supply (position 5). */
export const transactionType = (continuousSupply: boolean): string => (continuousSupply ? "00001000" : "00000000")

/**
 * The document's type: a commercial invoice (380) or credit note (381), unless every line is exempt or out of scope,
 * which PINT AE types as out of scope of VAT (480) or a credit note related to goods or services (81).
 */
export const typeCode = (
  kind: "invoice" | "credit_note",
  lines: ReadonlyArray<{ readonly category: Vat.Category }>
): "380" | "480" | "381" | "81" => {
  const outOfScope = lines.length > 0 && lines.every((l) => l.category === "E" || l.category === "O")
  return kind === "invoice" ? (outOfScope ? "480" : "380") : (outOfScope ? "81" : "381")
}

/** Where a buyer's e-invoice goes: its Peppol endpoint, else the one its TRN gives. */
export const buyerEndpoint = (buyer: Buyer): PeppolEndpoint | null =>
  buyer.peppol_endpoint ?? (buyer.trn === null ? null : endpointOf(buyer.trn))

/** The names PINT AE's code list gives the exemption reasons. */
export const exemptionReasons: Readonly<Record<Vat.ExemptionCode, string>> = {
  "DL8.46.1": "Certain financial services",
  "DL8.46.2": "Supply of residential units (lease or sale)",
  "DL8.46.3": "Bare land",
  "DL8.46.4": "Local passenger transport"
}

/** The fields of a line both kinds of document write. */
type Line = Pick<
  TaxDocument.CreditLine,
  "description" | "category" | "rate_bps" | "item_type" | "item_code" | "exemption_code" | "net" | "vat" | "gross"
>

const inAed = { currencyID: "AED" }
const amount = (name: string, fils: number): Element => el(name, inAed, aed(fils))
const vatScheme = el("cac:TaxScheme", null, el("cbc:ID", null, "VAT"))

/** A tax category: S and Z carry their rate, E and O none (E its exemption reason instead, on a line). */
const taxCategory = (name: string, category: Vat.Category, rateBps: number, exemption: Vat.ExemptionCode | undefined) =>
  el(
    name,
    null,
    el("cbc:ID", null, category),
    (category === "S" || category === "Z") && el("cbc:Percent", null, String(rateBps / 100)),
    category === "E" && exemption !== undefined && [
      el("cbc:TaxExemptionReasonCode", null, exemption),
      el("cbc:TaxExemptionReason", null, exemptionReasons[exemption])
    ],
    vatScheme
  )

const postalAddress = (address: Address) =>
  el(
    "cac:PostalAddress",
    null,
    el("cbc:StreetName", null, address.line1),
    address.line2 !== null && el("cbc:AdditionalStreetName", null, address.line2),
    el("cbc:CityName", null, address.city),
    el("cbc:CountrySubentity", null, address.emirate),
    el("cac:Country", null, el("cbc:IdentificationCode", null, address.country))
  )

const partyTaxScheme = (trn: string) => el("cac:PartyTaxScheme", null, el("cbc:CompanyID", null, trn), vatScheme)

const legalEntity = (name: string, licence: TradeLicence | null | undefined) =>
  el(
    "cac:PartyLegalEntity",
    null,
    el("cbc:RegistrationName", null, name),
    licence != null && el("cbc:CompanyID", { schemeAgencyID: "TL", schemeAgencyName: licence.authority }, licence.number)
  )

const endpoint = (e: PeppolEndpoint | null) => e !== null && el("cbc:EndpointID", { schemeID: e.scheme }, e.id)

const supplierParty = (supplier: TaxProfile) =>
  el(
    "cac:AccountingSupplierParty",
    null,
    el(
      "cac:Party",
      null,
      endpoint(supplier.trn === null ? null : endpointOf(supplier.trn)),
      postalAddress(supplier.address),
      supplier.trn !== null && partyTaxScheme(supplier.trn),
      legalEntity(supplier.legal_name, supplier.trade_licence)
    )
  )

const customerParty = (buyer: TaxDocument.DocumentBuyer) => {
  const business = buyer.business
  return el(
    "cac:AccountingCustomerParty",
    null,
    el(
      "cac:Party",
      null,
      business !== null && [
        endpoint(buyerEndpoint(business)),
        business.address !== null && postalAddress(business.address),
        business.trn !== null && partyTaxScheme(business.trn)
      ],
      legalEntity(business?.business_name ?? buyer.name ?? "", business?.trade_licence)
    )
  )
}

const taxTotal = (vat: number, lines: ReadonlyArray<Line>) =>
  el(
    "cac:TaxTotal",
    null,
    amount("cbc:TaxAmount", vat),
    TaxDocument.breakdown(lines).map((c) =>
      el(
        "cac:TaxSubtotal",
        null,
        amount("cbc:TaxableAmount", c.net),
        amount("cbc:TaxAmount", c.vat),
        taxCategory("cac:TaxCategory", c.category, c.rate_bps, undefined)
      )
    )
  )

/**
 * The totals (no allowances or charges). `prepaid`: what was paid before the document (an invoice Fils issues once
 * its card payment succeeded: all of it, so nothing is left to pay and the buyer's books do not show it open).
 */
const monetaryTotal = (totals: TaxDocument.Totals, prepaid: number) =>
  el(
    "cac:LegalMonetaryTotal",
    null,
    amount("cbc:LineExtensionAmount", totals.net),
    amount("cbc:TaxExclusiveAmount", totals.net),
    amount("cbc:TaxInclusiveAmount", totals.gross),
    prepaid > 0 && amount("cbc:PrepaidAmount", prepaid),
    amount("cbc:PayableAmount", totals.gross - prepaid)
  )

/** What an invoice leaves to pay: nothing once its card payment succeeded (the only way Fils issues one with a card). */
export const prepaidOf = (invoice: TaxDocument.Invoice): number => (invoice.card === null ? 0 : invoice.totals.gross)

/**
 * A line: its item (type, code, tax category), its net unit price (after any discount code, which the line's net
 * already has off: the gross price PINT AE also asks for is that same price, with no price discount of its own), and
 * its VAT and amount with VAT in AED (`ItemPriceExtension`; no VAT amount on an exempt line).
 */
const documentLine = (kind: "invoice" | "credit_note", id: number, line: Line, quantity: number) => {
  const price = unitPrice(line.net, quantity)
  return el(
    kind === "invoice" ? "cac:InvoiceLine" : "cac:CreditNoteLine",
    null,
    el("cbc:ID", null, String(id)),
    el(kind === "invoice" ? "cbc:InvoicedQuantity" : "cbc:CreditedQuantity", { unitCode: "C62" }, String(quantity)),
    amount("cbc:LineExtensionAmount", line.net),
    el(
      "cac:Item",
      null,
      el("cbc:Description", null, line.description),
      el("cbc:Name", null, line.description),
      line.item_type === "S" && line.item_code !== null &&
        el("cac:AdditionalItemIdentification", null, el("cbc:ID", { schemeID: "SAC" }, line.item_code)),
      el(
        "cac:CommodityClassification",
        null,
        el("cbc:CommodityCode", null, line.item_type),
        line.item_type === "G" && line.item_code !== null && el("cbc:ItemClassificationCode", { listID: "HS" }, line.item_code)
      ),
      taxCategory("cac:ClassifiedTaxCategory", line.category, line.rate_bps, line.exemption_code)
    ),
    el(
      "cac:Price",
      null,
      el("cbc:PriceAmount", inAed, price),
      el("cbc:BaseQuantity", { unitCode: "C62" }, "1"),
      el(
        "cac:AllowanceCharge",
        null,
        el("cbc:ChargeIndicator", null, "false"),
        el("cbc:Amount", inAed, "0.00"),
        el("cbc:BaseAmount", inAed, price)
      )
    ),
    el(
      "cac:ItemPriceExtension",
      null,
      amount("cbc:Amount", line.gross),
      line.category !== "E" && el("cac:TaxTotal", null, amount("cbc:TaxAmount", line.vat))
    )
  )
}

const header = (doc: TaxDocument.Invoice | TaxDocument.CreditNote, continuousSupply: boolean): ReadonlyArray<Child> => [
  el("cbc:CustomizationID", null, customizationId),
  el("cbc:ProfileID", null, profileId),
  el("cbc:ProfileExecutionID", null, transactionType(continuousSupply)),
  el("cbc:ID", null, doc.number),
  el("cbc:UUID", null, doc.uuid),
  el("cbc:IssueDate", null, uaeDate(doc.issued_at)),
  el("cbc:IssueTime", null, uaeTime(doc.issued_at))
]

/** The last day of a period that ends (exclusively) at `end`, never before its first. */
const lastDay = (start: DateTime.Utc, end: DateTime.Utc): string =>
  uaeDate(DateTime.unsafeMake(Math.max(DateTime.toEpochMillis(start), DateTime.toEpochMillis(end) - 1)))

/**
 * A tax invoice as a PINT AE `Invoice`. Fils issues an invoice once its payment succeeded (by card: payment means 55,
 * the card masked), so the amount is due on the day of issue. The date of supply is the VAT point date when it is
 * before the date of issue; a continuous supply names its period. `parties`: a resend's, instead of the invoice's own.
 */
export const invoiceXml = (doc: TaxDocument.Invoice, parties: Parties | null = null): string => {
  const invoice = asSent(doc, parties)
  const issued = uaeDate(invoice.issued_at)
  const supplied = uaeDate(invoice.supplied_at)
  return document(
    el(
      "Invoice",
      { xmlns: invoiceNamespace, ...namespaces },
      header(invoice, invoice.continuous_supply),
      invoice.totals.gross - prepaidOf(invoice) > 0 && el("cbc:DueDate", null, issued),
      el("cbc:InvoiceTypeCode", null, typeCode("invoice", invoice.lines)),
      el("cbc:Note", null, "Tax Invoice"),
      supplied < issued && el("cbc:TaxPointDate", null, supplied),
      el("cbc:DocumentCurrencyCode", null, invoice.currency),
      invoice.period !== null &&
        el(
          "cac:InvoicePeriod",
          null,
          el("cbc:StartDate", null, uaeDate(invoice.period.start)),
          el("cbc:EndDate", null, lastDay(invoice.period.start, invoice.period.end))
        ),
      supplierParty(invoice.supplier),
      customerParty(invoice.buyer),
      el(
        "cac:PaymentMeans",
        null,
        invoice.card === null
          ? el("cbc:PaymentMeansCode", null, "1")
          : [
            el("cbc:PaymentMeansCode", null, "55"),
            el(
              "cac:CardAccount",
              null,
              el("cbc:PrimaryAccountNumberID", null, `XXXXXXXXXXXX${invoice.card.last4}`),
              el("cbc:NetworkID", null, invoice.card.brand.toUpperCase())
            )
          ]
      ),
      taxTotal(invoice.totals.vat, invoice.lines),
      monetaryTotal(invoice.totals, prepaidOf(invoice)),
      invoice.lines.map((line, i) => documentLine("invoice", i + 1, line, line.quantity))
    )
  )
}

/**
 * A tax credit note as a PINT AE `CreditNote`: its reason (code and words), the invoice it corrects (a volume
 * discount names none: PINT AE forbids it there), and one line per line of the invoice, in the invoice's order, each
 * what it takes off that line (quantity 1 at that net). `parties`: a resend's, instead of the note's own.
 */
export const creditNoteXml = (doc: TaxDocument.CreditNote, parties: Parties | null = null): string => {
  const note = asSent(doc, parties)
  return document(
    el(
      "CreditNote",
      { xmlns: creditNoteNamespace, ...namespaces },
      header(note, note.subscription_id !== null),
      el("cbc:CreditNoteTypeCode", null, typeCode("credit_note", note.lines)),
      el("cbc:Note", null, "Tax Credit Note"),
      el("cbc:DocumentCurrencyCode", null, note.currency),
      el(
        "cac:DiscrepancyResponse",
        null,
        el("cbc:ResponseCode", null, note.reason_code),
        note.reason.trim() !== "" && el("cbc:Description", null, note.reason)
      ),
      note.reason_code !== "VD" &&
        el(
          "cac:BillingReference",
          null,
          el(
            "cac:InvoiceDocumentReference",
            null,
            el("cbc:ID", null, note.invoice_number),
            el("cbc:IssueDate", null, uaeDate(note.invoice_issued_at))
          )
        ),
      supplierParty(note.supplier),
      customerParty(note.buyer),
      taxTotal(note.difference.vat, note.lines),
      monetaryTotal(note.difference, 0),
      note.lines.map((line, i) => documentLine("credit_note", i + 1, line, 1))
    )
  )
}

/**
 * The e-invoice of either kind of document. `parties`: a resend's supplier and buyer, written instead of the
 * document's own (docs/einvoicing.md); without them, the document as issued.
 */
export const xml = (doc: TaxDocument.Invoice | TaxDocument.CreditNote, parties: Parties | null = null): string =>
  doc.object === "invoice" ? invoiceXml(doc, parties) : creditNoteXml(doc, parties)

/** The EInvoiceWriter port as PINT AE. */
export const PintAeWriter = Layer.succeed(EInvoiceWriter, EInvoiceWriter.of({ xml }))
