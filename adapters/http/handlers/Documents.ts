/**
 * Tax invoices and credit notes (docs/api.md): the lists, each document as JSON (the domain Schema's encoded form),
 * its PINT AE e-invoice and its printable page. Reads only: documents are issued by the payments and refunds they
 * document.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import { TaxDocuments } from "../../../src/application/TaxDocuments.js"
import { CreditNoteId, CustomerId, InvoiceId, parseId, PaymentId, SubscriptionId } from "../../../src/domain/Ids.js"
import { creditNoteXml, invoiceXml } from "../../einvoice/PintAe.js"
import { CurrentPrincipal, type DocumentListQuery, FilsApi } from "../Api.js"
import { creditNotePage, invoicePage } from "../documents/TaxDocumentPage.js"
import { htmlResponse, newNonce } from "../html/Document.js"
import { pathId } from "./ids.js"

const invoiceId = pathId(InvoiceId, "invoice")
const creditNoteId = pathId(CreditNoteId, "credit_note")

const customerId = parseId(CustomerId)
const paymentId = parseId(PaymentId)
const subscriptionId = parseId(SubscriptionId)
/** An id filter of the wrong shape can match nothing: it is kept as given (never equal to a real id). */
const asFilter = <A>(parse: (s: string) => A | undefined, raw: string | undefined) =>
  raw === undefined ? undefined : (parse(raw) ?? (raw as A))
const listParams = (query: typeof DocumentListQuery.Type) => ({
  ...query,
  customer_id: asFilter(customerId, query.customer_id),
  payment_id: asFilter(paymentId, query.payment_id),
  subscription_id: asFilter(subscriptionId, query.subscription_id)
})

/** The e-invoice as served: UTF-8 said in the header too, as the XML declaration says it. */
const xmlResponse = (xml: string) => HttpServerResponse.text(xml, { contentType: "application/xml; charset=utf-8" })

/** The printable page with the headers of every page Fils serves (its own nonce'd style only, no framing). */
const pageResponse = (render: (props: { readonly nonce: string }) => string) => {
  const nonce = newNonce()
  return htmlResponse(200, render({ nonce }), nonce)
}

export const InvoicesLive = HttpApiBuilder.group(FilsApi, "invoices", (handlers) =>
  Effect.gen(function*() {
    const documents = yield* TaxDocuments
    const read = (raw: string) =>
      Effect.flatMap(invoiceId(raw), (id) => Effect.flatMap(CurrentPrincipal, (p) => documents.getInvoice(p, id)))
    return handlers
      .handle("list", ({ urlParams }) => Effect.flatMap(CurrentPrincipal, (p) => documents.invoices(p, listParams(urlParams))))
      .handle("get", ({ path }) => read(path.id))
      .handle("xml", ({ path }) => Effect.map(read(path.id), (invoice) => xmlResponse(invoiceXml(invoice))))
      .handle("html", ({ path }) =>
        Effect.map(read(path.id), (invoice) => pageResponse((props) => invoicePage(invoice, props))))
  }))

export const CreditNotesLive = HttpApiBuilder.group(FilsApi, "creditNotes", (handlers) =>
  Effect.gen(function*() {
    const documents = yield* TaxDocuments
    const read = (raw: string) =>
      Effect.flatMap(creditNoteId(raw), (id) => Effect.flatMap(CurrentPrincipal, (p) => documents.getCreditNote(p, id)))
    return handlers
      .handle("list", ({ urlParams }) =>
        Effect.flatMap(CurrentPrincipal, (p) => documents.creditNotes(p, listParams(urlParams))))
      .handle("get", ({ path }) => read(path.id))
      .handle("xml", ({ path }) => Effect.map(read(path.id), (note) => xmlResponse(creditNoteXml(note))))
      .handle("html", ({ path }) => Effect.map(read(path.id), (note) => pageResponse((props) => creditNotePage(note, props))))
  }))
