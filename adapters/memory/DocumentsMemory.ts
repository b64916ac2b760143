/**
 * Tax documents in memory: the same rules as PostgreSQL's table (migration 0019): one invoice per payment, one credit
 * note per refund, numbers unique per scope and series, and a document is never replaced.
 */
import { Option } from "effect"
import { inScope, scopeKey } from "../../src/domain/Account.js"
import * as Pagination from "../../src/domain/Pagination.js"
import { type CreditNote, idOf, type Invoice, position } from "../../src/domain/TaxDocument.js"
import type { DocumentFilter, DocumentsRepo } from "../../src/ports/repositories/DocumentRepository.js"
import type { Access, Table } from "./Table.js"

type Document = Invoice | CreditNote

const matches = (d: Document, filter: DocumentFilter) =>
  (filter.customer_id === undefined || d.buyer.customer_id === filter.customer_id) &&
  (filter.payment_id === undefined || d.payment_id === filter.payment_id) &&
  (filter.subscription_id === undefined || d.subscription_id === filter.subscription_id)

export const makeDocumentsMemory = (
  { documents, numbers }: { readonly documents: Table<Document>; readonly numbers: Table<number> },
  { read, write }: Access
): DocumentsRepo => {
  const all = () => [...documents.rows.values()]
  const insert = (document: Document) => {
    const id = idOf(document)
    if (documents.get(id) !== undefined) throw new Error(`tax document ${id} exists: a document is never replaced`)
    for (const other of documents.rows.values()) {
      if (other.object !== document.object || other.account_id !== document.account_id) continue
      if (other.livemode === document.livemode && other.number === document.number) {
        throw new Error(`number ${document.number} is taken`)
      }
      if (other.object === "invoice" && other.payment_id === document.payment_id) {
        throw new Error(`payment ${document.payment_id} has an invoice`)
      }
      if (other.object === "credit_note" && document.object === "credit_note" && other.refund_id === document.refund_id) {
        throw new Error(`refund ${document.refund_id} has a credit note`)
      }
    }
    documents.set(id, document)
  }
  const list = <K extends Document["object"]>(kind: K) =>
  (
    scope: Parameters<DocumentsRepo["listInvoices"]>[0],
    filter: DocumentFilter,
    request: Pagination.PageRequest
  ) =>
    read(() => {
      const selected = all()
        .filter((d) => d.object === kind && inScope(d, scope) && matches(d, filter) && Pagination.isAfter(position(d), request.after))
        .sort((a, b) => Pagination.compare(position(a), position(b)))
      return {
        items: selected.slice(0, request.limit) as Array<Extract<Document, { object: K }>>,
        hasMore: selected.length > request.limit
      }
    })
  const find = <K extends Document["object"]>(kind: K, id: string) =>
    Option.fromNullable(documents.get(id)).pipe(Option.filter((d): d is Extract<Document, { object: K }> => d.object === kind))
  return {
    nextNumber: (scope, series) =>
      write(() => {
        const key = `${scopeKey(scope)}:${series}`
        const next = (numbers.get(key) ?? 0) + 1
        numbers.set(key, next)
        return next
      }),
    insertInvoice: (invoice) => write(() => insert(invoice)),
    insertCreditNote: (note) => write(() => insert(note)),
    getInvoice: (scope, id) => read(() => find("invoice", id).pipe(Option.filter((d) => inScope(d, scope)))),
    getCreditNote: (scope, id) => read(() => find("credit_note", id).pipe(Option.filter((d) => inScope(d, scope)))),
    findInvoice: (id) => read(() => find("invoice", id)),
    findCreditNote: (id) => read(() => find("credit_note", id)),
    invoiceOfPayment: (id) =>
      read(() => Option.fromNullable(all().find((d): d is Invoice => d.object === "invoice" && d.payment_id === id))),
    creditNotesOf: (id) =>
      read(() =>
        all()
          .filter((d): d is CreditNote => d.object === "credit_note" && d.invoice_id === id)
          .sort((a, b) => -Pagination.compare(position(a), position(b)))
      ),
    listInvoices: list("invoice"),
    listCreditNotes: list("credit_note")
  }
}
