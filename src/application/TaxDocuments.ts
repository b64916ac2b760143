/**
 * TaxDocuments: the tax invoice a succeeded payment issues and the credit note a succeeded refund issues, for a
 * merchant that charges VAT (docs/tax-documents.md). Issued inside the transaction that records the payment or the
 * refund, so a document exists if and only if what it documents does, and its number (taken in the same
 * transaction) is neither skipped nor used twice. Once issued a document never changes; reading them is `get`/`list`.
 */
import { DateTime, Effect, Either, Option, Schema } from "effect"
import * as Account from "../domain/Account.js"
import { notFound } from "../domain/Errors.js"
import type { CreditNoteId, InvoiceId } from "../domain/Ids.js"
import { prefixes } from "../domain/Ids.js"
import * as Pagination from "../domain/Pagination.js"
import type * as Payment from "../domain/Payment.js"
import * as Refund from "../domain/Refund.js"
import * as TaxDocument from "../domain/TaxDocument.js"
import { AccountRepository } from "../ports/repositories/AccountRepository.js"
import { CustomerRepository } from "../ports/repositories/CustomerRepository.js"
import { type DocumentFilter, DocumentRepository } from "../ports/repositories/DocumentRepository.js"
import { EInvoiceRepository } from "../ports/repositories/EInvoiceRepository.js"
import { enqueue } from "./EInvoices.js"
import type { Op } from "../ports/repositories/Op.js"
import type { EventDraft } from "./Events.js"
import { newId } from "./Ids.js"

/** A list request of the API: the filters, a page size and the previous page's cursor. */
export interface DocumentListParams extends DocumentFilter {
  readonly limit?: number | undefined
  readonly cursor?: string | undefined
}

/** A payment that just succeeded, with the period it pays for when it is a subscription's. */
export interface Paid {
  readonly payment: Payment.Payment
  readonly period: { readonly start: DateTime.Utc; readonly end: DateTime.Utc } | null
}

/** An id's 32 hex digits (a UUIDv7) as a UUID: the document's UUID is its id. */
const uuidOf = (id: string): string => {
  const hex = id.slice(id.indexOf("_") + 1)
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

const encodeInvoice = Schema.encodeSync(TaxDocument.Invoice)
const encodeCreditNote = Schema.encodeSync(TaxDocument.CreditNote)

/** Why a refund is credited: a whole refund cancels the supply (Art. 61(1)(a)); a part alters its consideration (c). */
export const creditReason = (credit: TaxDocument.Credit): { readonly code: TaxDocument.CreditReasonCode; readonly text: string } =>
  credit.correct_value === 0
    ? { code: "DL8.61.1.A", text: "Supply cancelled: the payment was refunded in full" }
    : { code: "DL8.61.1.C", text: "Consideration reduced: part of the payment was refunded" }

export class TaxDocuments extends Effect.Service<TaxDocuments>()("fils/TaxDocuments", {
  effect: Effect.gen(function*() {
    const accountRepo = yield* AccountRepository
    const customerRepo = yield* CustomerRepository
    const documents = yield* DocumentRepository
    const einvoices = yield* EInvoiceRepository
    /** A business buyer's e-invoice, queued with its document (docs/einvoicing.md). */
    const queueEInvoice = (document: TaxDocument.Invoice | TaxDocument.CreditNote) =>
      Effect.provideService(enqueue(document), EInvoiceRepository, einvoices)

    /** The merchant's profile when it charges VAT: the supplier of its documents. */
    const supplierOf = (accountId: Account.Account["account_id"]) =>
      Effect.map(accountRepo.get(accountId), (found) =>
        Option.flatMap(found, (account) =>
          Account.vatPricing(account) === null ? Option.none() : Option.fromNullable(account.tax_profile)))

    /**
     * Issues the invoices of payments that just succeeded, inside the caller's transaction, and returns their
     * `invoice.issued` events for the caller to record with its own. Taken in (account, mode, payment) order, so
     * two transactions numbering the same series take its counter in the same order. A payment that has its invoice
     * already gets none.
     */
    const issueInvoices = Effect.fn("TaxDocuments.issueInvoices")(function*(paid: ReadonlyArray<Paid>) {
      const drafts: Array<EventDraft> = []
      const suppliers = new Map<string, Option.Option<TaxDocument.Invoice["supplier"]>>()
      const ordered = [...paid].sort((a, b) =>
        a.payment.account_id < b.payment.account_id ? -1 : a.payment.account_id > b.payment.account_id ? 1 :
        a.payment.livemode !== b.payment.livemode ? (a.payment.livemode ? 1 : -1) :
        a.payment.payment_id < b.payment.payment_id ? -1 : 1
      )
      for (const { payment, period } of ordered) {
        if (payment.status !== "succeeded") continue
        let supplier = suppliers.get(payment.account_id)
        if (supplier === undefined) {
          supplier = yield* supplierOf(payment.account_id)
          suppliers.set(payment.account_id, supplier)
        }
        if (Option.isNone(supplier)) continue
        if (Option.isSome(yield* documents.invoiceOfPayment(payment.payment_id))) continue
        const scope = { accountId: payment.account_id, livemode: payment.livemode }
        const customer = payment.customer === null
          ? Option.none()
          : yield* customerRepo.get(scope, payment.customer.customer_id)
        const business = Option.match(customer, { onNone: () => null, onSome: (c) => c.business })
        const priced = payment.tax_lines ?? TaxDocument.chargedLines(payment)
        const id = yield* newId<InvoiceId>(prefixes.invoice)
        const now = yield* DateTime.now
        const invoice: TaxDocument.Invoice = {
          object: "invoice",
          invoice_id: id,
          account_id: payment.account_id,
          livemode: payment.livemode,
          number: TaxDocument.documentNumber("INV", yield* documents.nextNumber(scope, "INV")),
          uuid: uuidOf(id),
          issued_at: now,
          currency: payment.currency,
          supplier: supplier.value,
          buyer: {
            customer_id: payment.customer?.customer_id ?? null,
            name: payment.customer?.name ?? null,
            email: payment.customer?.email ?? null,
            business
          },
          prices_include_vat: priced.prices_include_vat,
          payment_id: payment.payment_id,
          subscription_id: payment.subscription_id,
          kind: TaxDocument.invoiceKind(business?.trn ?? null),
          supplied_at: period?.start ?? payment.paid_at ?? now,
          continuous_supply: period !== null,
          period,
          lines: priced.lines,
          totals: TaxDocument.totals(priced.lines),
          card: payment.card === null ? null : { brand: payment.card.brand, last4: payment.card.last4 }
        }
        yield* documents.insertInvoice(invoice)
        yield* queueEInvoice(invoice)
        drafts.push({ scope, type: "invoice.issued", data: { ...encodeInvoice(invoice) } })
      }
      return drafts
    })

    /**
     * Issues the credit note of a refund that just succeeded on `payment`, inside the caller's transaction (after the
     * payment's and the refund's locks), and returns its `credit_note.issued` event. None when the payment has no
     * invoice (the merchant charged no VAT then) or the refund has its note already.
     */
    const issueCreditNote = Effect.fn("TaxDocuments.issueCreditNote")(
      function*(refund: Refund.Refund, payment: Payment.Payment) {
        const invoice = yield* documents.invoiceOfPayment(payment.payment_id)
        if (Option.isNone(invoice)) return []
        const previous = yield* documents.creditNotesOf(invoice.value.invoice_id)
        if (previous.some((note) => note.refund_id === refund.refund_id)) return []
        const credit = TaxDocument.credit(invoice.value.lines, previous, refund.amount)
        if (Either.isLeft(credit)) {
          // A refund never exceeds what its payment has left, and the invoice's gross is the payment's total.
          return yield* Effect.dieMessage(`credit note for refund ${refund.refund_id}: ${credit.left.message}`)
        }
        const supplier = yield* supplierOf(payment.account_id)
        const scope = { accountId: payment.account_id, livemode: payment.livemode }
        const id = yield* newId<CreditNoteId>(prefixes.creditNote)
        const reason = creditReason(credit.right)
        const why = Refund.whyText(refund)
        const note: TaxDocument.CreditNote = {
          object: "credit_note",
          credit_note_id: id,
          account_id: payment.account_id,
          livemode: payment.livemode,
          number: TaxDocument.documentNumber("CN", yield* documents.nextNumber(scope, "CN")),
          uuid: uuidOf(id),
          issued_at: yield* DateTime.now,
          currency: invoice.value.currency,
          // The merchant as it is now (it issues the note now); the supply's buyer, as the invoice named it.
          supplier: Option.getOrElse(supplier, () => invoice.value.supplier),
          buyer: invoice.value.buyer,
          prices_include_vat: invoice.value.prices_include_vat,
          payment_id: payment.payment_id,
          subscription_id: invoice.value.subscription_id,
          invoice_id: invoice.value.invoice_id,
          invoice_number: invoice.value.number,
          invoice_issued_at: invoice.value.issued_at,
          refund_id: refund.refund_id,
          // The law's reason, then the merchant's own (a refund's reason and note), in the note's words.
          reason: why === undefined ? reason.text : `${reason.text}. Refund reason: ${why}`,
          reason_code: reason.code,
          original_value: credit.right.original_value,
          value_before: credit.right.value_before,
          correct_value: credit.right.correct_value,
          difference: credit.right.difference,
          lines: credit.right.lines
        }
        yield* documents.insertCreditNote(note)
        yield* queueEInvoice(note)
        return [{ scope, type: "credit_note.issued", data: { ...encodeCreditNote(note) } }] satisfies Array<EventDraft>
      }
    )

    const getInvoice = Effect.fn("TaxDocuments.getInvoice")(function*(scope: Account.Scope, id: InvoiceId) {
      return yield* Option.match(yield* documents.getInvoice(scope, id), {
        onNone: () => notFound("invoice", id),
        onSome: Effect.succeed
      })
    })

    const getCreditNote = Effect.fn("TaxDocuments.getCreditNote")(function*(scope: Account.Scope, id: CreditNoteId) {
      return yield* Option.match(yield* documents.getCreditNote(scope, id), {
        onNone: () => notFound("credit_note", id),
        onSome: Effect.succeed
      })
    })

    const listInvoices = (scope: Account.Scope, filter: DocumentFilter, page: Pagination.PageRequest) =>
      documents.listInvoices(scope, filter, page)
    const listCreditNotes = (scope: Account.Scope, filter: DocumentFilter, page: Pagination.PageRequest) =>
      documents.listCreditNotes(scope, filter, page)

    /** A list as the API pages it: filters, `limit` and `cursor` (a cursor belongs to its list and filters). */
    const paged = <A extends TaxDocument.Invoice | TaxDocument.CreditNote>(
      name: "invoices" | "credit_notes",
      read: (scope: Account.Scope, filter: DocumentFilter, page: Pagination.PageRequest) => Op<Pagination.Page<A>>
    ) =>
      Effect.fn(`TaxDocuments.${name}`)(function*(scope: Account.Scope, params: DocumentListParams) {
        const filter = { customer_id: params.customer_id, payment_id: params.payment_id, subscription_id: params.subscription_id }
        const key = Pagination.listKey(name, filter)
        const page = yield* Pagination.pageRequest(key, params)
        return Pagination.toList(key, yield* read(scope, filter, page), TaxDocument.position)
      })
    const invoices = paged("invoices", listInvoices)
    const creditNotes = paged("credit_notes", listCreditNotes)

    return {
      issueInvoices,
      issueCreditNote,
      getInvoice,
      getCreditNote,
      listInvoices,
      listCreditNotes,
      invoices,
      creditNotes
    } as const
  })
}) {}
