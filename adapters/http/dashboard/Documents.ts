/**
 * The dashboard's tax documents (docs/tax-documents.md): the invoices and the credit notes of the mode, newest first
 * (filter by customer or payment, search by a payment id or a customer's e-mail, page through), each one's printable
 * page (the one its customer sees in the portal) and its PINT AE XML to download. Any role may read them; nothing
 * here changes anything, since a document never changes once issued.
 */
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, Either } from "effect"
import { Customers } from "../../../src/application/Customers.js"
import { EInvoices, type Listed } from "../../../src/application/EInvoices.js"
import { can } from "../../../src/domain/DashboardUser.js"
import { TransmissionStatus } from "../../../src/domain/EInvoiceTransmission.js"
import { TaxDocuments } from "../../../src/application/TaxDocuments.js"
import { CreditNoteId, CustomerId, InvoiceId, parseId, PaymentId } from "../../../src/domain/Ids.js"
import * as Pagination from "../../../src/domain/Pagination.js"
import * as TaxDocument from "../../../src/domain/TaxDocument.js"
import type { DocumentFilter } from "../../../src/ports/repositories/DocumentRepository.js"
import { creditNoteXml, invoiceXml } from "../../einvoice/PintAe.js"
import { creditNotePage, invoicePage } from "../documents/TaxDocumentPage.js"
import { attempt, lookup } from "../html/Attempt.js"
import { html, type Raw } from "../html/Html.js"
import type { Kit, Scope } from "./Kit.js"
import * as Pages from "./Pages.js"
import { idFilter } from "./Parse.js"

const invoiceIdOf = parseId(InvoiceId)
const creditNoteIdOf = parseId(CreditNoteId)
const paymentIdOf = parseId(PaymentId)
const customerIdOf = parseId(CustomerId)

/** Who a document is for, as a list shows it: the business, else the person. */
export const buyerText = (buyer: TaxDocument.DocumentBuyer): string =>
  buyer.business?.business_name ?? buyer.name ?? buyer.email ?? ""

/** A document's XML, downloaded as `<number>.xml`. */
const xmlResponse = (number: string, xml: string) =>
  HttpServerResponse.text(xml, { contentType: "application/xml; charset=utf-8" }).pipe(
    HttpServerResponse.setHeaders({
      "content-disposition": `attachment; filename="${number.replace(/[^A-Za-z0-9-]/g, "")}.xml"`,
      "x-content-type-options": "nosniff",
      "cache-control": "no-store"
    })
  )

/** The filters of a list, from its query, as the payments list reads them. */
interface Listing {
  readonly filter: DocumentFilter
  /** The search as typed (a payment id or a customer's e-mail). */
  readonly search: string
  readonly query: URLSearchParams
}

export const documentRoutes = (kit: Kit) =>
  Effect.gen(function*() {
    const documents = yield* TaxDocuments
    const customers = yield* Customers
    const einvoices = yield* EInvoices

    /** The filters a list's query asks for; `undefined` when its search or a filter names no customer (an empty list). */
    const listing = (scope: Scope) =>
      Effect.gen(function*() {
        const query = yield* kit.query
        const search = (query.get("q") ?? "").trim()
        const byPayment = paymentIdOf(search)
        const found = search.includes("@") ? yield* attempt(customers.list(scope, { email: search, limit: 1 })) : undefined
        const customer = found?._tag === "Right" ? found.right.items[0] : undefined
        if (search !== "" && byPayment === undefined && customer === undefined) return undefined
        const customerId = idFilter(customerIdOf, query.get("customer_id"))
        const paymentId = idFilter(paymentIdOf, query.get("payment_id"))
        if (customerId === null || paymentId === null) return undefined
        const filter: DocumentFilter = {
          customer_id: customer?.customer_id ?? customerId,
          payment_id: byPayment ?? paymentId
        }
        return { filter, search, query } satisfies Listing
      })

    /** A page of `list`'s documents after the query's cursor (one of this list with these filters, else refused). */
    const page = <D, E>(
      name: string,
      list: Listing | undefined,
      load: (filter: DocumentFilter, request: Pagination.PageRequest) => Effect.Effect<Pagination.Page<D>, E>,
      position: (d: D) => Pagination.Position
    ) =>
      Effect.gen(function*() {
        if (list === undefined) return Either.right({ items: [] as ReadonlyArray<D>, next: null as string | null })
        const key = Pagination.listKey(name, { customer_id: list.filter.customer_id, payment_id: list.filter.payment_id })
        const request = Pagination.pageRequest(key, { limit: 50, cursor: list.query.get("cursor") ?? undefined })
        if (Either.isLeft(request)) return Either.left(request.left)
        const found = Pagination.toList(key, yield* load(list.filter, request.right), position)
        return Either.right({ items: found.items, next: found.next_cursor })
      })

    /** The search form and the link to the next page, around a list's table. */
    const listChrome = (f: Pages.SignedFrame, path: string, list: Listing | undefined, next: string | null, table: Raw, empty: boolean) => {
      const t = f.t.documents
      const filters = {
        ...(list?.search ? { q: list.search } : {}),
        ...(list?.search === "" && list.filter.customer_id !== undefined ? { customer_id: list.filter.customer_id } : {}),
        ...(list?.search === "" && list.filter.payment_id !== undefined ? { payment_id: list.filter.payment_id } : {})
      }
      return html`<form method="get" action="${path}"><label for="q">${t.search}</label>
<input id="q" name="q" value="${list?.search ?? ""}"> <button type="submit">${t.searchButton}</button></form>
<div class="card">${table}${empty ? html`<p class="muted">${t.empty}</p>` : ""}${
        next === null ? "" : html`<p><a href="${path}?${new URLSearchParams({ ...filters, cursor: next }).toString()}">${t.older}</a></p>`
      }</div>`
    }

    yield* kit.get("/dashboard/:mode/invoices", kit.withUser((_, f, scope) =>
      Effect.gen(function*() {
        const list = yield* listing(scope)
        const found = yield* page("dashboard.invoices", list, (filter, request) => documents.listInvoices(scope, filter, request), TaxDocument.position)
        const t = f.t.documents
        if (Either.isLeft(found)) return kit.page(400, Pages.chrome(f, t.invoices.title, html`<p class="alert" role="alert">${Pages.refused(f, found.left.message)}</p>`), f.nonce)
        const path = `${Pages.modePath(f)}/invoices`
        return kit.page(200, Pages.chrome(f, t.invoices.title, html`<p><a href="${Pages.modePath(f)}/einvoices">${t.invoices.toEInvoices}</a></p>${listChrome(f, path, list, found.right.next, html`<table aria-label="${t.invoices.title}">
<thead><tr><th>${t.number}</th><th>${t.date}</th><th>${t.customer}</th><th class="num">${t.invoices.total}</th><th class="num">${t.vat}</th><th>${t.invoices.kind}</th></tr></thead><tbody>${
          found.right.items.map((d) =>
            html`<tr><td><a href="${path}/${d.invoice_id}">${d.number}</a></td><td data-label="${t.date}">${Pages.when(f, d.issued_at)}</td><td data-label="${t.customer}">${buyerText(d.buyer)}</td><td class="num" data-label="${t.invoices.total}">${
              Pages.amount(f, d.totals.gross)
            }</td><td class="num" data-label="${t.vat}">${Pages.amount(f, d.totals.vat)}</td><td data-label="${t.invoices.kind}">${t.invoices.kinds[d.kind]}</td></tr>`
          )
        }</tbody></table>`, found.right.items.length === 0)}`), f.nonce)
      })))

    yield* kit.get("/dashboard/:mode/credit-notes", kit.withUser((_, f, scope) =>
      Effect.gen(function*() {
        const list = yield* listing(scope)
        const found = yield* page("dashboard.credit_notes", list, (filter, request) => documents.listCreditNotes(scope, filter, request), TaxDocument.position)
        const t = f.t.documents
        if (Either.isLeft(found)) return kit.page(400, Pages.chrome(f, t.creditNotes.title, html`<p class="alert" role="alert">${Pages.refused(f, found.left.message)}</p>`), f.nonce)
        const path = `${Pages.modePath(f)}/credit-notes`
        return kit.page(200, Pages.chrome(f, t.creditNotes.title, listChrome(f, path, list, found.right.next, html`<table aria-label="${t.creditNotes.title}">
<thead><tr><th>${t.number}</th><th>${t.date}</th><th>${t.customer}</th><th>${t.creditNotes.invoice}</th><th class="num">${t.creditNotes.credited}</th><th class="num">${t.vat}</th></tr></thead><tbody>${
          found.right.items.map((d) =>
            html`<tr><td><a href="${path}/${d.credit_note_id}">${d.number}</a></td><td data-label="${t.date}">${Pages.when(f, d.issued_at)}</td><td data-label="${t.customer}">${buyerText(d.buyer)}</td><td data-label="${t.creditNotes.invoice}"><a href="${
              Pages.modePath(f)
            }/invoices/${d.invoice_id}">${d.invoice_number}</a></td><td class="num" data-label="${t.creditNotes.credited}">${Pages.amount(f, d.difference.gross)}</td><td class="num" data-label="${t.vat}">${
              Pages.amount(f, d.difference.vat)
            }</td></tr>`
          )
        }</tbody></table>`, found.right.items.length === 0)), f.nonce)
      })))

    /** Where a business buyer's e-invoice stands, in words: what the provider said, or why it waits. */
    const transmissionText = (f: Pages.Frame, t: Listed): string => {
      const words = f.t.documents.transmission
      return t.status === "accepted"
        ? words.accepted(t.reference)
        : t.status === "rejected"
        ? words.rejected(t.errors)
        : words.waiting(t.attempts, t.last_error, t.waiting)
    }

    /** A document's e-invoice line: its status, and for a rejected one the resend an owner or admin may ask for. */
    const transmissionLine = (f: Pages.SignedFrame, t: Listed | undefined): Raw =>
      t === undefined
        ? html``
        : html` · <span data-testid="einvoice-status">${f.t.documents.document.eInvoice(transmissionText(f, t))}</span>${
          t.status === "rejected" && can(f.user.role, "settings")
            ? Pages.form(f, `${Pages.modePath(f)}/einvoices/${t.document_id}/resend`, html`<button class="link" type="submit">${f.t.documents.document.resend}</button>`)
            : ""
        }`

    /** The links under a document's page: back to its payment and list, its XML, and its e-invoice. */
    // The document's page is in both languages, left to right: the links say which is theirs.
    const back = (f: Pages.SignedFrame, list: string, paymentId: string, xml: string, t: Listed | undefined): Raw => {
      const words = f.t.documents.document
      return html`<span${f.locale === "en" ? "" : html` lang="${f.locale}" dir="rtl"`}><a href="${Pages.modePath(f)}/${list}">${
        list === "invoices" ? words.backToInvoices : words.backToCreditNotes
      }</a> · <a href="${Pages.modePath(f)}/payments/${paymentId}">${words.payment}</a> · <a href="${xml}" download>${words.downloadXml}</a>${
        transmissionLine(f, t)
      }</span>`
    }

    const transmissionOf = (scope: Scope, documentId: string) =>
      lookup(einvoices.get(scope, documentId))

    const invoice = (scope: Scope) =>
      Effect.gen(function*() {
        const id = invoiceIdOf(yield* kit.param("id"))
        return id === undefined ? undefined : yield* lookup(documents.getInvoice(scope, id))
      })
    const creditNote = (scope: Scope) =>
      Effect.gen(function*() {
        const id = creditNoteIdOf(yield* kit.param("id"))
        return id === undefined ? undefined : yield* lookup(documents.getCreditNote(scope, id))
      })

    yield* kit.get("/dashboard/:mode/invoices/:id", kit.withUser((_, f, scope) =>
      Effect.gen(function*() {
        const d = yield* invoice(scope)
        if (d === undefined) return kit.page(404, Pages.notFoundPage(f), f.nonce)
        const t = yield* transmissionOf(scope, d.invoice_id)
        return kit.page(200, invoicePage(d, { nonce: f.nonce, back: back(f, "invoices", d.payment_id, `${Pages.modePath(f)}/invoices/${d.invoice_id}/xml`, t) }), f.nonce)
      })))

    yield* kit.get("/dashboard/:mode/invoices/:id/xml", kit.withUser((_, f, scope) =>
      Effect.map(invoice(scope), (d) => d === undefined ? kit.page(404, Pages.notFoundPage(f), f.nonce) : xmlResponse(d.number, invoiceXml(d)))))

    yield* kit.get("/dashboard/:mode/credit-notes/:id", kit.withUser((_, f, scope) =>
      Effect.gen(function*() {
        const d = yield* creditNote(scope)
        if (d === undefined) return kit.page(404, Pages.notFoundPage(f), f.nonce)
        const t = yield* transmissionOf(scope, d.credit_note_id)
        return kit.page(200, creditNotePage(d, { nonce: f.nonce, back: back(f, "credit-notes", d.payment_id, `${Pages.modePath(f)}/credit-notes/${d.credit_note_id}/xml`, t) }), f.nonce)
      })))

    // E-invoices: every business document's transmission to the provider, and a resend of a rejected one.
    yield* kit.get("/dashboard/:mode/einvoices", kit.withUser((_, f, scope) =>
      Effect.gen(function*() {
        const wanted = (yield* kit.query).get("status") ?? ""
        const status = TransmissionStatus.literals.find((s) => s === wanted)
        // A status that is none of the choices lists nothing, and says so; it is not read as all.
        const refused = wanted !== "" && status === undefined
        const listed = refused ? [] : yield* einvoices.list(scope, { status }, 100)
        const path = `${Pages.modePath(f)}/einvoices`
        const documentPath = (t: Listed) =>
          `${Pages.modePath(f)}/${t.kind === "invoice" ? "invoices" : "credit-notes"}/${t.document_id}`
        const words = f.t.documents.eInvoices
        return kit.page(refused ? 400 : 200, Pages.chrome(f, words.title, html`${refused ? Pages.notAnOption(f, wanted) : ""}<p class="muted">${words.intro}</p>
<p>${[["", words.all], ...TransmissionStatus.literals.map((s) => [s, Pages.statusWords(f, s).words])].map(([value, label], i) =>
          html`${i > 0 ? " · " : ""}${value === wanted ? html`<strong>${label}</strong>` : html`<a href="${path}${value === "" ? "" : `?status=${value}`}">${label}</a>`}`
        )}</p>
<div class="card"><table aria-label="${words.title}">
<thead><tr><th>${words.document}</th><th>${words.status}</th><th class="num">${words.attempts}</th><th>${words.provider}</th></tr></thead><tbody>${
          listed.map((t) =>
            html`<tr><td><a href="${documentPath(t)}">${t.number}</a></td><td data-label="${words.status}">${Pages.badge(f, t.status)}</td><td class="num" data-label="${words.attempts}">${Pages.count(f, t.attempts)}</td><td data-label="${words.provider}">${transmissionText(f, t)}</td></tr>`
          )
        }</tbody></table>${listed.length === 0 ? html`<p class="muted">${words.empty}</p>` : ""}</div>`), f.nonce)
      })))

    yield* kit.post("/dashboard/:mode/einvoices/:id/resend", kit.withPost((signed, f, scope) =>
      Effect.gen(function*() {
        if (!can(signed.user.role, "settings")) {
          return kit.page(403, Pages.forbiddenPage(f, f.t.documents.eInvoices.notAllowed(f.t.frame.roles[signed.user.role])), f.nonce)
        }
        const id = yield* kit.param("id")
        const t = yield* transmissionOf(scope, id)
        if (t === undefined) return kit.page(404, Pages.notFoundPage(f), f.nonce)
        // Back to the list of e-invoices, which shows the notice (a document's page is the printable document).
        const listPath = `${Pages.modePath(f)}/einvoices`
        const resent = yield* attempt(einvoices.resend(scope, t.document_id))
        if (Either.isLeft(resent)) return kit.done(f, listPath, f.t.documents.eInvoices.notResent(Pages.refused(f, resent.left.message)))
        yield* kit.audit(signed, "einvoice.resend", t.document_id, scope.livemode)
        return kit.done(f, listPath, f.t.documents.eInvoices.resent(t.number))
      })))

    yield* kit.get("/dashboard/:mode/credit-notes/:id/xml", kit.withUser((_, f, scope) =>
      Effect.map(creditNote(scope), (d) => d === undefined ? kit.page(404, Pages.notFoundPage(f), f.nonce) : xmlResponse(d.number, creditNoteXml(d)))))
  })
