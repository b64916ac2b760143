/**
 * Fils' own check of a tax document against the PINT AE 1.0.4 rules its e-invoice depends on (docs/einvoicing.md),
 * before the document is issued or sent: the rules as they apply to what PintAe.ts writes from the document, checked
 * on the document itself (no XML parsing, no external file). Each finding names the official rule it stands for
 * (`ibr-132-ae`, `ibr-co-14`…) or, for a rule of Fils' own, `fils-…`; its message is in the merchant's words. No
 * finding: the document can be sent.
 */
import type * as TaxDocument from "../../src/domain/TaxDocument.js"
import { breakdown, totals as sumOf } from "../../src/domain/TaxDocument.js"
import type { Address, TaxProfile } from "../../src/domain/TaxProfile.js"
import * as Vat from "../../src/domain/Vat.js"
import { aed, buyerEndpoint, typeCode, unitPrice } from "./PintAe.js"
import { forbidden } from "./Xml.js"

export interface Finding {
  readonly rule: string
  readonly message: string
}

/** A UAE TRN as PINT AE reads one: 15 digits, starting with 1 and ending with 03 (ibr-132-ae). */
export const trnPattern = /^1[0-9]{12}03$/

const emirates: ReadonlyArray<string> = ["AUH", "DXB", "SHJ", "UAQ", "FUJ", "AJM", "RAK"]
const reasonCodes: ReadonlyArray<string> = ["DL8.61.1.A", "DL8.61.1.B", "DL8.61.1.C", "DL8.61.1.D", "DL8.61.1.E", "VD"]
const categoryNames: Readonly<Record<Vat.Category, string>> = {
  S: "standard rated",
  Z: "zero rated",
  E: "exempt",
  O: "outside the scope of VAT"
}

type Out = Array<Finding>
type Line = TaxDocument.DocumentLine | TaxDocument.CreditLine

/** Text the e-invoice writes: never blank (ibr-079 forbids empty elements), never a character XML cannot carry. */
const text = (out: Out, label: string, value: string): void => {
  if (value.trim() === "") out.push({ rule: "ibr-079", message: `${label} is blank` })
  else if (forbidden.test(value)) {
    out.push({ rule: "fils-xml-text", message: `${label} holds a control character an e-invoice cannot carry` })
  }
}

const address = (out: Out, whose: string, a: Address, rule: "ibr-143-ae" | "ibr-144-ae"): void => {
  if (a.line1.trim() === "" || a.city.trim() === "") {
    out.push({ rule, message: `${whose} address needs its first line and its city` })
  }
  if (a.country === "AE" && !emirates.includes(a.emirate)) {
    out.push({ rule: "ibr-128-ae", message: `${whose} emirate ${a.emirate} is not one of ${emirates.join(", ")}` })
  }
  for (const [label, value] of [["first line", a.line1], ["city", a.city], ["second line", a.line2]] as const) {
    if (value !== null && forbidden.test(value)) {
      out.push({ rule: "fils-xml-text", message: `${whose} address (${label}) holds a control character an e-invoice cannot carry` })
    }
  }
}

const licence = (out: Out, whose: string, l: { readonly number: string; readonly authority: string }): void => {
  text(out, `${whose} trade licence number`, l.number)
  text(out, `${whose} trade licence authority`, l.authority)
}

const supplier = (out: Out, s: TaxProfile): void => {
  text(out, "The supplier's legal name", s.legal_name)
  if (s.trn === null) {
    out.push({ rule: "ibr-134-ae", message: "The supplier has no TRN: a tax document and its e-invoice need the merchant's TRN" })
  } else if (!trnPattern.test(s.trn)) {
    out.push({ rule: "ibr-132-ae", message: `The supplier's TRN ${s.trn} is not a UAE TRN: 15 digits, starting with 1 and ending with 03` })
  }
  if (s.trade_licence === null) {
    out.push({ rule: "ibr-150-ae", message: "The supplier has no trade licence: an e-invoice names the merchant's licence and its authority" })
  } else licence(out, "The supplier's", s.trade_licence)
  address(out, "The supplier's", s.address, "ibr-143-ae")
}

const buyer = (out: Out, b: TaxDocument.DocumentBuyer, kind: "invoice" | "credit_note", lines: ReadonlyArray<Line>): void => {
  const business = b.business
  if (business === null) {
    out.push({
      rule: "ibr-007",
      message: "The buyer gave no business details: an e-invoice names a business buyer, its address and its Peppol endpoint"
    })
    return
  }
  text(out, "The buyer's business name", business.business_name)
  if (business.trn !== null && !trnPattern.test(business.trn)) {
    out.push({ rule: "ibr-132-ae", message: `The buyer's TRN ${business.trn} is not a UAE TRN: 15 digits, starting with 1 and ending with 03` })
  }
  const endpoint = buyerEndpoint(business)
  if (endpoint === null) {
    out.push({ rule: "ibr-080", message: "The buyer has neither a Peppol endpoint nor a TRN: an e-invoice has nowhere to go" })
  } else if (!/^[0-9]{10}$/.test(endpoint.id)) {
    out.push({ rule: "fils-buyer-endpoint", message: `The buyer's Peppol id ${endpoint.id} is not 10 digits` })
  } else if (!endpoint.id.startsWith("1") && business.trn === null) {
    out.push({
      rule: "ibr-135-ae",
      message: `The buyer's Peppol id ${endpoint.id} is not a TRN's first 10 digits, so the buyer's TRN must be given`
    })
  }
  if (business.peppol_endpoint !== null && business.trn !== null && business.peppol_endpoint.id !== business.trn.slice(0, 10)) {
    out.push({
      rule: "fils-buyer-endpoint",
      message: `The buyer's Peppol id ${business.peppol_endpoint.id} is not its TRN's first 10 digits (${business.trn.slice(0, 10)})`
    })
  }
  if (business.address === null) {
    out.push({ rule: "ibr-010", message: "The buyer has no address: an e-invoice names the buyer's address and emirate" })
  } else address(out, "The buyer's", business.address, "ibr-144-ae")
  if (business.trade_licence !== undefined) licence(out, "The buyer's", business.trade_licence)
  else if (["480", "81"].includes(typeCode(kind, lines))) {
    out.push({
      rule: "ibr-136-ae",
      message: "Every line is exempt or outside the scope of VAT, so the e-invoice must name the buyer's trade licence"
    })
  }
}

const isAmount = (n: number): boolean => Number.isSafeInteger(n) && n >= 0

/** `round(quantity × price, 2 decimals)` in fils, halves up, as the rules' arithmetic does it. */
const lineAmountOf = (quantity: number, price: string): number => {
  const [whole, fraction = ""] = price.split(".")
  const scale = 10n ** BigInt(fraction.length)
  const product = BigInt(quantity) * BigInt(`${whole}${fraction}`) * 100n
  return Number(Vat.roundHalfUp(product, scale))
}

const line = (out: Out, n: number, l: Line): void => {
  const at = `Line ${n}`
  text(out, `${at}'s description`, l.description)
  if (l.item_code !== null && forbidden.test(l.item_code)) {
    out.push({ rule: "fils-xml-text", message: `${at}'s item code holds a control character an e-invoice cannot carry` })
  }
  if (l.item_type === "G" && (l.item_code === null || l.item_code.trim() === "")) {
    out.push({ rule: "ibr-184-ae", message: `${at} sells goods without an HS code: goods need their classification code` })
  }
  if (l.item_type === "S" && (l.item_code === null || l.item_code.trim() === "")) {
    out.push({ rule: "ibr-185-ae", message: `${at} sells a service without its service accounting code (SAC)` })
  }
  if (l.category === "E" && l.exemption_code === undefined) {
    out.push({ rule: "ibr-167-ae", message: `${at} is exempt without saying why: it needs an exemption reason (DL8.46.1 to DL8.46.4)` })
  }
  if (l.rate_bps !== Vat.rateBps(l.category)) {
    out.push({
      rule: l.category === "S" ? "ibr-190-ae" : "fils-line-rate",
      message: `${at} is ${categoryNames[l.category]} at ${l.rate_bps / 100} %; the rate is ${Vat.rateBps(l.category) / 100} %`
    })
  }
  if (![l.net, l.vat, l.gross].every(isAmount)) {
    out.push({ rule: "fils-no-negative", message: `${at} has a negative or fractional amount: corrections are credit notes` })
    return
  }
  if (l.net + l.vat !== l.gross) {
    out.push({
      rule: "fils-line-amounts",
      message: `${at}: net ${aed(l.net)} plus VAT ${aed(l.vat)} is not its amount with VAT, ${aed(l.gross)}`
    })
  }
  if (l.category !== "S" && l.vat !== 0) {
    out.push({ rule: "fils-line-vat", message: `${at} is ${categoryNames[l.category]} but carries VAT of ${aed(l.vat)}` })
  }
}

/**
 * An invoice line is the sale's line less its discount, rounded once (Vat.line), and its unit price gives back its net
 * (ibr-147-ae).
 */
const invoiceLine = (out: Out, n: number, l: TaxDocument.DocumentLine, pricesIncludeVat: boolean): void => {
  const at = `Line ${n}`
  if (!Number.isSafeInteger(l.quantity) || l.quantity <= 0 || !isAmount(l.unit_amount)) {
    out.push({ rule: "fils-line-quantity", message: `${at} needs a positive whole quantity and a unit price of 0 or more` })
    return
  }
  if (!isAmount(l.discount) || l.discount > l.quantity * l.unit_amount) {
    out.push({ rule: "fils-line-discount", message: `${at}: its discount must be 0 up to its price, ${aed(l.quantity * l.unit_amount)}` })
    return
  }
  const expected = Vat.line({ unitAmount: l.unit_amount, quantity: l.quantity, category: l.category, pricesIncludeVat, discount: l.discount })
  if (expected.net !== l.net || expected.vat !== l.vat || expected.gross !== l.gross) {
    const less = l.discount > 0 ? ` less its discount of ${aed(l.discount)}` : ""
    out.push({
      rule: "fils-line-rounding",
      message: `${at}: ${l.quantity} × ${aed(l.unit_amount)}${less} ${pricesIncludeVat ? "including" : "excluding"} VAT makes net ` +
        `${aed(expected.net)}, VAT ${aed(expected.vat)} (rounded once, to the nearest fils), not ${aed(l.net)} and ${aed(l.vat)}`
    })
  }
  if (isAmount(l.net) && lineAmountOf(l.quantity, unitPrice(l.net, l.quantity)) !== l.net) {
    out.push({ rule: "ibr-147-ae", message: `${at}: its quantity times its unit price does not give back its net, ${aed(l.net)}` })
  }
}

const document = (
  out: Out,
  doc: TaxDocument.Invoice | TaxDocument.CreditNote,
  lines: ReadonlyArray<Line>,
  totals: TaxDocument.Totals
): void => {
  const kind = doc.object
  text(out, "The document number", doc.number)
  if (doc.currency !== "AED") {
    out.push({ rule: "ibr-159-ae", message: `The document is in ${doc.currency}: Fils writes e-invoices in AED only` })
  }
  supplier(out, doc.supplier)
  buyer(out, doc.buyer, kind, lines)
  if (lines.length === 0) out.push({ rule: "ibr-016", message: "The document has no lines" })
  lines.forEach((l, i) => line(out, i + 1, l))
  if (![totals.net, totals.vat, totals.gross].every(isAmount)) {
    out.push({ rule: "fils-no-negative", message: "The document's totals must not be negative: corrections are credit notes" })
    return
  }
  const sum = sumOf(lines)
  if (totals.net !== sum.net) {
    out.push({ rule: "ibr-co-10", message: `The document's net, ${aed(totals.net)}, is not the sum of its lines' nets, ${aed(sum.net)}` })
  }
  if (totals.vat !== sum.vat) {
    out.push({ rule: "ibr-co-14", message: `The document's VAT, ${aed(totals.vat)}, is not the sum of its VAT by category, ${aed(sum.vat)}` })
  }
  if (totals.gross !== totals.net + totals.vat) {
    out.push({
      rule: "ibr-co-15",
      message: `The total with VAT (the amount payable), ${aed(totals.gross)}, is not net ${aed(totals.net)} plus VAT ${aed(totals.vat)}`
    })
  }
  // The law rounds VAT per line; PINT AE compares the standard-rated VAT with the rate times the taxable amount and
  // allows 0.02 AED. Many lines' roundings can add up past that: such a document is refused, not altered.
  for (const c of breakdown(lines)) {
    if (c.category !== "S" || !isAmount(c.net)) continue
    const expected = Number(Vat.roundHalfUp(BigInt(c.net) * BigInt(c.rate_bps), 10_000n))
    if (Math.abs(c.vat - expected) > 2) {
      out.push({
        rule: "aligned-ibrp-s-09",
        message: `The standard-rated VAT, ${aed(c.vat)} rounded line by line, is more than 0.02 from ${c.rate_bps / 100} % of ` +
          `${aed(c.net)} (${aed(expected)}), the most PINT AE allows`
      })
    }
  }
}

/** What stops a tax invoice's PINT AE e-invoice; empty when it can be sent. */
export const checkInvoice = (invoice: TaxDocument.Invoice): ReadonlyArray<Finding> => {
  const out: Out = []
  document(out, invoice, invoice.lines, invoice.totals)
  invoice.lines.forEach((l, i) => invoiceLine(out, i + 1, l, invoice.prices_include_vat))
  if (invoice.card !== null) {
    if (!/^[0-9]{4}$/.test(invoice.card.last4)) {
      out.push({ rule: "fils-card", message: `The card's last digits, ${invoice.card.last4}, are not 4 digits` })
    }
    text(out, "The card's brand", invoice.card.brand)
  }
  return out
}

/** What stops a tax credit note's PINT AE e-invoice; empty when it can be sent. */
export const checkCreditNote = (note: TaxDocument.CreditNote): ReadonlyArray<Finding> => {
  const out: Out = []
  document(out, note, note.lines, note.difference)
  if (!reasonCodes.includes(note.reason_code)) {
    out.push({ rule: "ibr-001-ae", message: `The reason code ${note.reason_code} is not one of ${reasonCodes.join(", ")}` })
  }
  if (note.reason_code !== "VD" && note.invoice_number.trim() === "") {
    out.push({ rule: "ibr-055-ae", message: "The credit note names no invoice: it must reference the invoice it corrects" })
  } else if (forbidden.test(note.invoice_number)) {
    out.push({ rule: "fils-xml-text", message: "The credited invoice's number holds a control character an e-invoice cannot carry" })
  }
  if (forbidden.test(note.reason)) {
    out.push({ rule: "fils-xml-text", message: "The reason holds a control character an e-invoice cannot carry" })
  }
  const d = note.difference.gross
  if (d <= 0 || d > note.value_before || note.value_before > note.original_value || note.correct_value !== note.value_before - d) {
    out.push({
      rule: "fils-credit-value",
      message: `A credit note takes 0.01 to ${aed(note.value_before)} off an invoice worth ${aed(note.value_before)} of ` +
        `${aed(note.original_value)}, leaving the correct amount: it takes ${aed(d)} and leaves ${aed(note.correct_value)}`
    })
  }
  return out
}

/** `checkInvoice` or `checkCreditNote`, by the document's kind. */
export const check = (doc: TaxDocument.Invoice | TaxDocument.CreditNote): ReadonlyArray<Finding> =>
  doc.object === "invoice" ? checkInvoice(doc) : checkCreditNote(doc)
