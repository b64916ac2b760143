/**
 * Business-to-business tax documents the e-invoice tests send: random ones (taxDocuments.ts) that Fils' rules let
 * through and that go to an ASP, with the buyer's TRN (and the Peppol endpoint it gives) set as a test needs it.
 */
import { FastCheck as fc } from "effect"
import { check } from "../../adapters/einvoice/PintAeRules.js"
import { needsEInvoice } from "../../src/domain/EInvoiceTransmission.js"
import type { CreditNote, Invoice } from "../../src/domain/TaxDocument.js"
import { type Buyer, endpointOf } from "../../src/domain/TaxProfile.js"
import type { Trn } from "../../src/domain/Vat.js"
import { creditNote, invoice } from "./taxDocuments.js"

const sendable = <D extends Invoice | CreditNote>(doc: D) => check(doc).length === 0 && needsEInvoice(doc)

/** The buyer with `trn` (and the endpoint it gives). */
export const withBuyerTrn = <D extends Invoice | CreditNote>(doc: D, trn: string): D => ({
  ...doc,
  buyer: { ...doc.buyer, business: { ...doc.buyer.business!, trn: trn as Trn, peppol_endpoint: endpointOf(trn as Trn) } }
})

/** `n` test-mode invoices Fils' rules let through, each to a business buyer with a Peppol endpoint and `trn`. */
export const sendableInvoices = (n: number, trn = "100000000000003"): ReadonlyArray<Invoice> =>
  fc.sample(invoice().map((doc) => withBuyerTrn({ ...doc, livemode: false }, trn)).filter(sendable), n)

export const sendableCreditNotes = (n: number, trn = "100000000000003"): ReadonlyArray<CreditNote> =>
  fc.sample(creditNote().map((doc) => withBuyerTrn({ ...doc, livemode: false }, trn)).filter(sendable), n)

/** A buyer's business details with `trn`. */
export const buyerWith = (business: Buyer, trn: string): Buyer => ({ ...business, trn: trn as Trn, peppol_endpoint: endpointOf(trn as Trn) })
