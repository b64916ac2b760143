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
import { html, type Raw } from "../html/Html.js"
import type { Kit, Scope } from "./Kit.js"
import * as Pages from "./Pages.js"

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

    /** The filters a list's query asks for; `undefined` when its search names no customer (an empty list). */
    const listing = (scope: Scope) =>
      Effect.gen(function*() {
        const query = yield* kit.query
        const search = (query.get("q") ?? "").trim().slice(0, 254)
        const byPayment = paymentIdOf(search)
        const found = search.includes("@") ? yield* Effect.either(customers.list(scope, { email: search, limit: 1 })) : undefined
        const customer = found?._tag === "Right" ? found.right.items[0] : undefined
        if (search !== "" && byPayment === undefined && customer === undefined) return undefined
        const filter: DocumentFilter = {
          customer_id: customer?.customer_id ?? customerIdOf(query.get("customer_id") ?? ""),
          payment_id: byPayment ?? paymentIdOf(query.get("payment_id") ?? "")
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
    const listChrome = (path: string, list: Listing | undefined, next: string | null, table: Raw, empty: boolean) => {
      const filters = {
        ...(list?.search ? { q: list.search } : {}),
        ...(list?.search === "" && list.filter.customer_id !== undefined ? { customer_id: list.filter.customer_id } : {}),
        ...(list?.search === "" && list.filter.payment_id !== undefined ? { payment_id: list.filter.payment_id } : {})
      }
      return html`<form method="get" action="${path}"><label for="q">Payment id or customer e-mail</label>
<input id="q" name="q" value="${list?.search ?? ""}"> <button type="submit">Search</button></form>
<div class="card">${table}${empty ? html`<p class="muted">No documents.</p>` : ""}${
        next === null ? "" : html`<p><a href="${path}?${new URLSearchParams({ ...filters, cursor: next }).toString()}">Older →</a></p>`
      }</div>`
    }

    yield* kit.get("/dashboard/:mode/invoices", kit.withUser((_, f, scope) =>
      Effect.gen(function*() {
        const list = yield* listing(scope)
        const found = yield* page("dashboard.invoices", list, (filter, request) => documents.listInvoices(scope, filter, request), TaxDocument.position)
        if (Either.isLeft(found)) return kit.page(400, Pages.chrome(f, "Invoices", html`<p class="alert" role="alert">${found.left.message}</p>`), f.nonce)
        const path = `${Pages.modePath(f)}/invoices`
        return kit.page(200, Pages.chrome(f, "Invoices", html`<p><a href="${Pages.modePath(f)}/einvoices">E-invoices sent to the provider →</a></p>${listChrome(path, list, found.right.next, html`<table aria-label="Invoices">
<thead><tr><th>Number</th><th>Date</th><th>Customer</th><th class="num">Total</th><th class="num">VAT</th><th>Kind</th></tr></thead><tbody>${
          found.right.items.map((d) =>
            html`<tr><td><a href="${path}/${d.invoice_id}">${d.number}</a></td><td>${Pages.when(f, d.issued_at)}</td><td>${buyerText(d.buyer)}</td><td class="num">${
              Pages.money(d.totals.gross)
            }</td><td class="num">${Pages.money(d.totals.vat)}</td><td>${d.kind}</td></tr>`
          )
        }</tbody></table>`, found.right.items.length === 0)}`), f.nonce)
      })))

    yield* kit.get("/dashboard/:mode/credit-notes", kit.withUser((_, f, scope) =>
      Effect.gen(function*() {
        const list = yield* listing(scope)
        const found = yield* page("dashboard.credit_notes", list, (filter, request) => documents.listCreditNotes(scope, filter, request), TaxDocument.position)
        if (Either.isLeft(found)) return kit.page(400, Pages.chrome(f, "Credit notes", html`<p class="alert" role="alert">${found.left.message}</p>`), f.nonce)
        const path = `${Pages.modePath(f)}/credit-notes`
        return kit.page(200, Pages.chrome(f, "Credit notes", listChrome(path, list, found.right.next, html`<table aria-label="Credit notes">
<thead><tr><th>Number</th><th>Date</th><th>Customer</th><th>Invoice</th><th class="num">Credited</th><th class="num">VAT</th></tr></thead><tbody>${
          found.right.items.map((d) =>
            html`<tr><td><a href="${path}/${d.credit_note_id}">${d.number}</a></td><td>${Pages.when(f, d.issued_at)}</td><td>${buyerText(d.buyer)}</td><td><a href="${
              Pages.modePath(f)
            }/invoices/${d.invoice_id}">${d.invoice_number}</a></td><td class="num">${Pages.money(d.difference.gross)}</td><td class="num">${
              Pages.money(d.difference.vat)
            }</td></tr>`
          )
        }</tbody></table>`, found.right.items.length === 0)), f.nonce)
      })))

    /** Where a business buyer's e-invoice stands, in words: what the provider said, or why it waits. */
    const transmissionText = (t: Listed): string =>
      t.status === "accepted"
        ? `accepted by the provider (reference ${t.reference ?? "none"})`
        : t.status === "rejected"
        ? `rejected by the provider: ${t.errors.map((e) => `${e.message} (${e.code})`).join("; ")}`
        : `waiting to be sent${t.attempts > 0 ? ` (attempt ${t.attempts}${t.last_error ? `: ${t.last_error}` : ""})` : ""}${
          t.waiting ? `: ${t.waiting}` : ""
        }`

    /** A document's e-invoice line: its status, and for a rejected one the resend an owner or admin may ask for. */
    const transmissionLine = (f: Pages.SignedFrame, t: Listed | undefined): Raw =>
      t === undefined
        ? html``
        : html` · <span data-testid="einvoice-status">E-invoice ${transmissionText(t)}</span>${
          t.status === "rejected" && can(f.user.role, "settings")
            ? Pages.form(f, `${Pages.modePath(f)}/einvoices/${t.document_id}/resend`, html`<button class="link" type="submit">Resend after fixing the profile</button>`)
            : ""
        }`

    /** The links under a document's page: back to its payment and list, its XML, and its e-invoice. */
    const back = (f: Pages.SignedFrame, list: string, paymentId: string, xml: string, t: Listed | undefined): Raw =>
      html`<span><a href="${Pages.modePath(f)}/${list}">← ${list === "invoices" ? "Invoices" : "Credit notes"}</a> · <a href="${
        Pages.modePath(f)
      }/payments/${paymentId}">Payment</a> · <a href="${xml}" download>Download PINT AE XML</a>${transmissionLine(f, t)}</span>`

    const transmissionOf = (scope: Scope, documentId: string) =>
      Effect.map(Effect.either(einvoices.get(scope, documentId)), Either.getOrUndefined)

    const invoice = (scope: Scope) =>
      Effect.gen(function*() {
        const id = invoiceIdOf(yield* kit.param("id"))
        return id === undefined ? undefined : Either.getOrUndefined(yield* Effect.either(documents.getInvoice(scope, id)))
      })
    const creditNote = (scope: Scope) =>
      Effect.gen(function*() {
        const id = creditNoteIdOf(yield* kit.param("id"))
        return id === undefined ? undefined : Either.getOrUndefined(yield* Effect.either(documents.getCreditNote(scope, id)))
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
        const listed = yield* einvoices.list(scope, { status }, 100)
        const path = `${Pages.modePath(f)}/einvoices`
        const documentPath = (t: Listed) =>
          `${Pages.modePath(f)}/${t.kind === "invoice" ? "invoices" : "credit-notes"}/${t.document_id}`
        return kit.page(200, Pages.chrome(f, "E-invoices", html`<p class="muted">Tax documents of business buyers with a Peppol endpoint, as handed to the e-invoicing provider (newest first).</p>
<p>${[["", "All"], ...TransmissionStatus.literals.map((s) => [s, s[0]!.toUpperCase() + s.slice(1)])].map(([value, label], i) =>
          html`${i > 0 ? " · " : ""}${value === wanted ? html`<strong>${label}</strong>` : html`<a href="${path}${value === "" ? "" : `?status=${value}`}">${label}</a>`}`
        )}</p>
<div class="card"><table aria-label="E-invoices">
<thead><tr><th>Document</th><th>Status</th><th class="num">Attempts</th><th>Provider</th></tr></thead><tbody>${
          listed.map((t) =>
            html`<tr><td><a href="${documentPath(t)}">${t.number}</a></td><td>${Pages.badge(f, t.status)}</td><td class="num">${t.attempts}</td><td>${transmissionText(t)}</td></tr>`
          )
        }</tbody></table>${listed.length === 0 ? html`<p class="muted">No e-invoices.</p>` : ""}</div>`), f.nonce)
      })))

    yield* kit.post("/dashboard/:mode/einvoices/:id/resend", kit.withPost((signed, f, scope) =>
      Effect.gen(function*() {
        if (!can(signed.user.role, "settings")) {
          return kit.page(403, Pages.forbiddenPage(f, `A ${signed.user.role} cannot resend e-invoices.`), f.nonce)
        }
        const id = yield* kit.param("id")
        const t = yield* transmissionOf(scope, id)
        if (t === undefined) return kit.page(404, Pages.notFoundPage(f), f.nonce)
        // Back to the list of e-invoices, which shows the notice (a document's page is the printable document).
        const listPath = `${Pages.modePath(f)}/einvoices`
        const resent = yield* Effect.either(einvoices.resend(scope, t.document_id))
        if (Either.isLeft(resent)) return kit.done(f, listPath, `Not resent: ${resent.left.message}`)
        yield* kit.audit(signed, "einvoice.resend", t.document_id, scope.livemode)
        return kit.done(f, listPath, `E-invoice ${t.number} will be sent again with the current tax profile and customer details.`)
      })))

    yield* kit.get("/dashboard/:mode/credit-notes/:id/xml", kit.withUser((_, f, scope) =>
      Effect.map(creditNote(scope), (d) => d === undefined ? kit.page(404, Pages.notFoundPage(f), f.nonce) : xmlResponse(d.number, creditNoteXml(d)))))
  })
