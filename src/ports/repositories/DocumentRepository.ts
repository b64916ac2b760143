/**
 * Tax documents: the tax invoices and credit notes a scope has issued, and the gap-free counters that number them.
 *
 * One repository of the Store port (`../Store.ts`), a Tag of its own, so that a use case depends on the aggregates it
 * uses and nothing else. A document is inserted once and never updated (docs/tax-documents.md).
 */
import type { Option } from "effect"
import { Context } from "effect"
import type { Scope } from "../../domain/Account.js"
import type { CreditNoteId, CustomerId, InvoiceId, PaymentId, SubscriptionId } from "../../domain/Ids.js"
import type { Page, PageRequest } from "../../domain/Pagination.js"
import type { CreditNote, Invoice } from "../../domain/TaxDocument.js"
import type { Op } from "./Op.js"

export interface DocumentFilter {
  readonly customer_id?: CustomerId | undefined
  readonly payment_id?: PaymentId | undefined
  readonly subscription_id?: SubscriptionId | undefined
}

export interface DocumentsRepo {
  /**
   * The next number of the scope's series (`INV` or `CN`): 1, 2, 3… Inside the transaction that inserts the document
   * it numbers, so a number is used exactly once (a rollback takes it back) and two issuers take turns on the series.
   */
  readonly nextNumber: (scope: Scope, series: "INV" | "CN") => Op<number>
  readonly insertInvoice: (invoice: Invoice) => Op<void>
  readonly insertCreditNote: (note: CreditNote) => Op<void>
  readonly getInvoice: (scope: Scope, id: InvoiceId) => Op<Option.Option<Invoice>>
  readonly getCreditNote: (scope: Scope, id: CreditNoteId) => Op<Option.Option<CreditNote>>
  /** By id alone, whatever its scope (an operator; the e-invoice outbox). Never locks. */
  readonly findInvoice: (id: InvoiceId) => Op<Option.Option<Invoice>>
  readonly findCreditNote: (id: CreditNoteId) => Op<Option.Option<CreditNote>>
  /** The invoice of a payment (at most one). */
  readonly invoiceOfPayment: (id: PaymentId) => Op<Option.Option<Invoice>>
  /** The credit notes of an invoice, oldest first (each starts from the value the ones before left). */
  readonly creditNotesOf: (id: InvoiceId) => Op<ReadonlyArray<CreditNote>>
  readonly listInvoices: (scope: Scope, filter: DocumentFilter, page: PageRequest) => Op<Page<Invoice>>
  readonly listCreditNotes: (scope: Scope, filter: DocumentFilter, page: PageRequest) => Op<Page<CreditNote>>
}

/** Tax invoices and credit notes. */
export type DocumentRepositoryShape = DocumentsRepo

export class DocumentRepository extends Context.Tag("fils/DocumentRepository")<DocumentRepository, DocumentRepositoryShape>() {}
