/**
 * Tax documents on PostgreSQL (migration 0019). A number comes from `document_numbers` by an upsert that locks the
 * series' row until the transaction ends: the documents of one series are numbered one at a time, and a rollback
 * gives the number back, so the series has no gaps and no repeats.
 */
import type * as Statement from "@effect/sql/Statement"
import { Effect } from "effect"
import type { Scope } from "../../../src/domain/Account.js"
import type { PageRequest } from "../../../src/domain/Pagination.js"
import type { DocumentFilter, DocumentsRepo } from "../../../src/ports/Store.js"
import type { Queries } from "../queries.js"
import * as Rows from "../rows.js"
import { orUnavailable } from "../SqlErrors.js"

export const makeDocumentsRepo = ({ first, inScope, sql }: Queries): DocumentsRepo => {
  const list = <A>(kind: "invoice" | "credit_note", fromRow: (row: Rows.DocumentRow) => A) =>
    Effect.fnUntraced(function*(scope: Scope, filter: DocumentFilter, request: PageRequest) {
      const conditions: Array<Statement.Fragment> = [inScope(scope), sql`kind = ${kind}`]
      if (filter.customer_id !== undefined) conditions.push(sql`customer_id = ${filter.customer_id}`)
      if (filter.payment_id !== undefined) conditions.push(sql`payment_id = ${filter.payment_id}`)
      if (filter.subscription_id !== undefined) conditions.push(sql`subscription_id = ${filter.subscription_id}`)
      if (request.after !== undefined) {
        conditions.push(
          sql`(issued_at, document_id) < (${new Date(request.after.createdAtMillis)}, ${request.after.id})`
        )
      }
      const rows = yield* sql<Rows.DocumentRow>`SELECT document_id, document FROM tax_documents
        WHERE ${sql.and(conditions)} ORDER BY issued_at DESC, document_id DESC LIMIT ${request.limit + 1}`
      return { items: rows.slice(0, request.limit).map(fromRow), hasMore: rows.length > request.limit }
    }, orUnavailable)

  const byId = <A>(kind: "invoice" | "credit_note", fromRow: (row: Rows.DocumentRow) => A) =>
    Effect.fnUntraced(function*(id: string, scope?: Scope) {
      const rows = yield* sql<Rows.DocumentRow>`SELECT document_id, document FROM tax_documents
        WHERE document_id = ${id} AND kind = ${kind} ${scope === undefined ? sql`` : sql`AND ${inScope(scope)}`}`
      return first(rows, fromRow)
    }, orUnavailable)
  const invoice = byId("invoice", Rows.invoiceFromRow)
  const creditNote = byId("credit_note", Rows.creditNoteFromRow)

  return {
    nextNumber: Effect.fnUntraced(function*(scope, series) {
      const rows = yield* sql<{ last: number }>`INSERT INTO document_numbers (account_id, livemode, series, last)
        VALUES (${scope.accountId}, ${scope.livemode}, ${series}, 1)
        ON CONFLICT (account_id, livemode, series) DO UPDATE SET last = document_numbers.last + 1
        RETURNING last`
      return rows[0]!.last
    }, orUnavailable),
    insertInvoice: Effect.fnUntraced(function*(document) {
      yield* sql`INSERT INTO tax_documents ${sql.insert(Rows.invoiceToRow(document))}`
    }, orUnavailable),
    insertCreditNote: Effect.fnUntraced(function*(document) {
      yield* sql`INSERT INTO tax_documents ${sql.insert(Rows.creditNoteToRow(document))}`
    }, orUnavailable),
    getInvoice: (scope, id) => invoice(id, scope),
    getCreditNote: (scope, id) => creditNote(id, scope),
    findInvoice: (id) => invoice(id),
    findCreditNote: (id) => creditNote(id),
    invoiceOfPayment: Effect.fnUntraced(function*(id) {
      const rows = yield* sql<Rows.DocumentRow>`SELECT document_id, document FROM tax_documents
        WHERE payment_id = ${id} AND kind = 'invoice'`
      return first(rows, Rows.invoiceFromRow)
    }, orUnavailable),
    creditNotesOf: Effect.fnUntraced(function*(id) {
      const rows = yield* sql<Rows.DocumentRow>`SELECT document_id, document FROM tax_documents
        WHERE invoice_id = ${id} AND kind = 'credit_note' ORDER BY issued_at, document_id`
      return rows.map(Rows.creditNoteFromRow)
    }, orUnavailable),
    listInvoices: list("invoice", Rows.invoiceFromRow),
    listCreditNotes: list("credit_note", Rows.creditNoteFromRow)
  }
}
