/**
 * The printable tax invoice and tax credit note: one page each, in English and Arabic side by side (Arabic
 * right-to-left), with every field the Executive Regulation lists (Art. 59 and 60), sized for A4 when printed and
 * readable on a phone. Amounts in AED to the fils; dates in the UAE's time (documents are dated where the supply is).
 */
import { DateTime } from "effect"
import { formatAmount } from "../../../src/domain/Money.js"
import * as TaxDocument from "../../../src/domain/TaxDocument.js"
import type * as TaxProfile from "../../../src/domain/TaxProfile.js"
import type * as Vat from "../../../src/domain/Vat.js"
import { htmlDocument } from "../html/Document.js"
import { html, type Raw } from "../html/Html.js"

/** Every label of the documents, in both languages: one place, so that neither lacks one. */
export const labels = {
  taxInvoice: { en: "Tax Invoice", ar: "فاتورة ضريبية" },
  simplified: { en: "Simplified", ar: "مبسطة" },
  taxCreditNote: { en: "Tax Credit Note", ar: "إشعار دائن ضريبي" },
  testMode: { en: "Test mode: not a real document", ar: "وضع الاختبار: ليست وثيقة حقيقية" },
  supplier: { en: "Supplier", ar: "المورد" },
  recipient: { en: "Recipient", ar: "المستلم" },
  trn: { en: "TRN", ar: "رقم التسجيل الضريبي" },
  tradeLicence: { en: "Trade licence", ar: "الرخصة التجارية" },
  number: { en: "Number", ar: "الرقم" },
  issued: { en: "Date of issue", ar: "تاريخ الإصدار" },
  supplied: { en: "Date of supply", ar: "تاريخ التوريد" },
  period: { en: "Period", ar: "الفترة" },
  description: { en: "Description", ar: "الوصف" },
  quantity: { en: "Qty", ar: "الكمية" },
  unitPrice: { en: "Unit price", ar: "سعر الوحدة" },
  discount: { en: "Discount", ar: "الخصم" },
  rate: { en: "VAT rate", ar: "نسبة الضريبة" },
  net: { en: "Amount excl. VAT", ar: "المبلغ غير شامل الضريبة" },
  vat: { en: "VAT", ar: "الضريبة" },
  gross: { en: "Amount incl. VAT", ar: "المبلغ شامل الضريبة" },
  totalNet: { en: "Total excl. VAT", ar: "الإجمالي غير شامل الضريبة" },
  totalVat: { en: "Total VAT (AED)", ar: "إجمالي ضريبة القيمة المضافة (درهم)" },
  payable: { en: "Gross amount payable", ar: "إجمالي المبلغ المستحق" },
  pricesInclude: { en: "Prices include VAT", ar: "الأسعار شاملة الضريبة" },
  pricesExclude: { en: "Prices exclude VAT", ar: "الأسعار غير شاملة الضريبة" },
  paidBy: { en: "Paid by card", ar: "مدفوع بالبطاقة" },
  invoice: { en: "Invoice", ar: "الفاتورة" },
  reason: { en: "Reason", ar: "السبب" },
  originalValue: { en: "Value on the invoice", ar: "القيمة في الفاتورة" },
  valueBefore: { en: "Value before this note", ar: "القيمة قبل هذا الإشعار" },
  correctValue: { en: "Correct amount", ar: "المبلغ الصحيح" },
  difference: { en: "Difference", ar: "الفرق" },
  vatOnDifference: { en: "VAT on the difference", ar: "الضريبة على الفرق" },
  byCategory: { en: "VAT by category", ar: "الضريبة حسب الفئة" },
  print: { en: "Print this page or save it as a PDF (Ctrl+P or ⌘P).", ar: "اطبع هذه الصفحة أو احفظها بصيغة PDF." }
} as const satisfies Record<string, { readonly en: string; readonly ar: string }>

/** The VAT categories' names, in both languages (the dashboard's forms offer them too). */
export const categories: Record<Vat.Category, { readonly en: string; readonly ar: string }> = {
  S: { en: "Standard rated", ar: "خاضع للنسبة الأساسية" },
  Z: { en: "Zero rated", ar: "خاضع للنسبة الصفرية" },
  E: { en: "Exempt", ar: "معفى" },
  O: { en: "Out of scope", ar: "خارج نطاق الضريبة" }
}

/** The emirates' names, in both languages (the dashboard's forms offer them too). */
export const emirates: Record<TaxProfile.Emirate, { readonly en: string; readonly ar: string }> = {
  AUH: { en: "Abu Dhabi", ar: "أبوظبي" },
  DXB: { en: "Dubai", ar: "دبي" },
  SHJ: { en: "Sharjah", ar: "الشارقة" },
  UAQ: { en: "Umm Al Quwain", ar: "أم القيوين" },
  FUJ: { en: "Fujairah", ar: "الفجيرة" },
  AJM: { en: "Ajman", ar: "عجمان" },
  RAK: { en: "Ras Al Khaimah", ar: "رأس الخيمة" }
}

/** A label in both languages: English, then Arabic marked right-to-left. */
const both = (label: { readonly en: string; readonly ar: string }): Raw =>
  html`<span lang="en">${label.en}</span> <span class="ar" lang="ar" dir="rtl">${label.ar}</span>`

/** A label where only plain text can go (a stacked line's cell, from `data-label`). */
const cardLabel = (label: { readonly en: string; readonly ar: string }) => `${label.en} · ${label.ar}`

const aed = (fils: number) => formatAmount(fils, "AED")
const percent = (bps: number) => `${(bps / 100).toFixed(bps % 100 === 0 ? 0 : 2)} %`
const dayFormat = new Intl.DateTimeFormat("en-GB", { timeZone: "Asia/Dubai", day: "numeric", month: "long", year: "numeric" })
const day = (at: DateTime.Utc) => dayFormat.format(DateTime.toDate(at))

const address = (a: TaxProfile.Address): Raw =>
  html`${a.line1}${a.line2 === null ? "" : html`, ${a.line2}`}, ${a.city}, ${emirates[a.emirate].en}
<span class="ar" lang="ar" dir="rtl">${emirates[a.emirate].ar}</span>, United Arab Emirates`

const supplierBlock = (s: TaxProfile.TaxProfile): Raw =>
  html`<section class="party" aria-label="Supplier"><h2>${both(labels.supplier)}</h2>
<p class="name">${s.legal_name}${s.legal_name_ar === null ? "" : html`<br><span class="ar" lang="ar" dir="rtl">${s.legal_name_ar}</span>`}</p>
<p>${address(s.address)}</p>
${s.trn === null ? "" : html`<p>${both(labels.trn)}: <strong class="num">${s.trn}</strong></p>`}
${s.trade_licence === null ? "" : html`<p>${both(labels.tradeLicence)}: ${s.trade_licence.number} (${s.trade_licence.authority})</p>`}
</section>`

const recipientBlock = (b: TaxDocument.DocumentBuyer): Raw => {
  const business = b.business
  const person = b.name ?? b.email
  if (business === null && person === null) return html``
  return html`<section class="party" aria-label="Recipient"><h2>${both(labels.recipient)}</h2>
<p class="name">${business?.business_name ?? person}</p>
${business !== null && person !== null ? html`<p>${person}${b.email !== null && b.name !== null ? html` (${b.email})` : ""}</p>` : ""}
${business?.address ? html`<p>${address(business.address)}</p>` : ""}
${business?.trn ? html`<p>${both(labels.trn)}: <strong class="num">${business.trn}</strong></p>` : ""}
</section>`
}

const facts = (rows: ReadonlyArray<readonly [{ readonly en: string; readonly ar: string }, Raw | string]>): Raw =>
  html`<dl class="facts">${rows.map(([label, value]) => html`<dt>${both(label)}</dt><dd>${value}</dd>`)}</dl>`

/** The lines as a table; on a narrow screen each line stacks as a card (labels from `data-label`). */
const linesTable = (
  lines: ReadonlyArray<{
    readonly description: string
    readonly quantity?: number
    readonly unit_amount?: number
    readonly discount?: number
    readonly category: Vat.Category
    readonly rate_bps: number
    readonly net: number
    readonly vat: number
    readonly gross: number
  }>,
  withPrices: boolean
): Raw => {
  // Any discount a line had (Art. 59(1)(j)): a column of its own, off the line's price before VAT is worked out.
  const withDiscount = withPrices && lines.some((l) => (l.discount ?? 0) > 0)
  return html`<table class="lines" aria-label="Lines">
<thead><tr><th>${both(labels.description)}</th>${withPrices ? html`<th class="amount">${both(labels.quantity)}</th><th class="amount">${both(labels.unitPrice)}</th>` : ""}${
    withDiscount ? html`<th class="amount">${both(labels.discount)}</th>` : ""
  }<th class="amount">${both(labels.rate)}</th><th class="amount">${both(labels.net)}</th><th class="amount">${both(labels.vat)}</th><th class="amount">${both(labels.gross)}</th></tr></thead>
<tbody>${
    lines.map((l) =>
      html`<tr><td data-label="${cardLabel(labels.description)}">${l.description}<br><small>${both(categories[l.category])}</small></td>${
        withPrices
          ? html`<td class="amount" data-label="${cardLabel(labels.quantity)}">${l.quantity}</td><td class="amount" data-label="${cardLabel(labels.unitPrice)}">${aed(l.unit_amount ?? 0)}</td>`
          : ""
      }${
        withDiscount ? html`<td class="amount" data-label="${cardLabel(labels.discount)}" data-testid="line-discount">${(l.discount ?? 0) > 0 ? `−${aed(l.discount ?? 0)}` : aed(0)}</td>` : ""
      }<td class="amount" data-label="${cardLabel(labels.rate)}">${percent(l.rate_bps)}</td><td class="amount" data-label="${cardLabel(labels.net)}">${aed(l.net)}</td><td class="amount" data-label="${cardLabel(labels.vat)}">${aed(l.vat)}</td><td class="amount" data-label="${cardLabel(labels.gross)}">${aed(l.gross)}</td></tr>`
    )
  }</tbody></table>`
}

const totalsBlock = (rows: ReadonlyArray<readonly [{ readonly en: string; readonly ar: string }, number, string?]>): Raw =>
  html`<dl class="totals">${rows.map(([label, fils, id]) => html`<dt>${both(label)}</dt><dd${id === undefined ? "" : html` data-testid="${id}"`}>${aed(fils)}</dd>`)}</dl>`

const categorySummary = (lines: ReadonlyArray<TaxDocument.DocumentLine>): Raw =>
  html`<table class="summary" aria-label="VAT by category"><caption>${both(labels.byCategory)}</caption>
<thead><tr><th></th><th class="amount">${both(labels.net)}</th><th class="amount">${both(labels.vat)}</th></tr></thead><tbody>${
    TaxDocument.breakdown(lines).map((c) =>
      html`<tr><td>${both(categories[c.category])} (${percent(c.rate_bps)})</td><td class="amount">${aed(c.net)}</td><td class="amount">${aed(c.vat)}</td></tr>`
    )
  }</tbody></table>`

/** The page of a tax invoice. */
export const invoicePage = (invoice: TaxDocument.Invoice, props: { readonly nonce: string; readonly back?: Raw }): string =>
  htmlDocument({
    title: `${labels.taxInvoice.en} ${invoice.number}: ${invoice.supplier.legal_name}`,
    nonce: props.nonce,
    styles,
    body: html`<main class="doc">
<header><h1>${both(labels.taxInvoice)}</h1>${invoice.kind === "simplified" ? html`<p class="kind">${both(labels.simplified)}</p>` : ""}${
      invoice.livemode ? "" : html`<p class="mode">${both(labels.testMode)}</p>`
    }</header>
${
      facts([
        [labels.number, html`<strong class="num" data-testid="number">${invoice.number}</strong>`],
        [labels.issued, day(invoice.issued_at)],
        ...(day(invoice.supplied_at) === day(invoice.issued_at) ? [] : [[labels.supplied, day(invoice.supplied_at)] as const]),
        ...(invoice.period === null ? [] : [[labels.period, `${day(invoice.period.start)} – ${day(invoice.period.end)}`] as const]),
        ...(invoice.card === null ? [] : [[labels.paidBy, `${invoice.card.brand} •••• ${invoice.card.last4}`] as const])
      ])
    }
<div class="parties">${supplierBlock(invoice.supplier)}${recipientBlock(invoice.buyer)}</div>
<p class="muted">${both(invoice.prices_include_vat ? labels.pricesInclude : labels.pricesExclude)}</p>
${linesTable(invoice.lines, true)}
${categorySummary(invoice.lines)}
${
      totalsBlock([
        [labels.totalNet, invoice.totals.net],
        [labels.totalVat, invoice.totals.vat, "total-vat"],
        [labels.payable, invoice.totals.gross, "payable"]
      ])
    }
<footer class="no-print">${props.back ?? ""}<span>${both(labels.print)}</span></footer>
</main>`
  })

/** The page of a tax credit note: the invoice it corrects, the values before and after, the difference and its VAT. */
export const creditNotePage = (
  note: TaxDocument.CreditNote,
  props: { readonly nonce: string; readonly back?: Raw }
): string =>
  htmlDocument({
    title: `${labels.taxCreditNote.en} ${note.number}: ${note.supplier.legal_name}`,
    nonce: props.nonce,
    styles,
    body: html`<main class="doc">
<header><h1>${both(labels.taxCreditNote)}</h1>${note.livemode ? "" : html`<p class="mode">${both(labels.testMode)}</p>`}</header>
${
      facts([
        [labels.number, html`<strong class="num" data-testid="number">${note.number}</strong>`],
        [labels.issued, day(note.issued_at)],
        [labels.invoice, html`<span class="num">${note.invoice_number}</span> (${day(note.invoice_issued_at)})`],
        [labels.reason, note.reason]
      ])
    }
<div class="parties">${supplierBlock(note.supplier)}${recipientBlock(note.buyer)}</div>
${linesTable(note.lines, false)}
${
      totalsBlock([
        [labels.originalValue, note.original_value],
        [labels.valueBefore, note.value_before],
        [labels.correctValue, note.correct_value],
        [labels.difference, note.difference.gross, "difference"],
        [labels.vatOnDifference, note.difference.vat, "vat-on-difference"]
      ])
    }
<footer class="no-print">${props.back ?? ""}<span>${both(labels.print)}</span></footer>
</main>`
  })

const styles = `
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans Arabic","Noto Naskh Arabic",sans-serif;color:#1a1f36;background:#f6f8fa}
.doc{max-width:60rem;margin:1.5rem auto;padding:2rem;background:#fff;border:1px solid #d8dee4;border-radius:8px}
header{display:flex;flex-wrap:wrap;align-items:baseline;gap:.5rem 1rem;border-bottom:2px solid #1a1f36;margin-bottom:1rem}
h1{font-size:1.6rem;margin:0 0 .5rem}
h2{font-size:1rem;margin:0 0 .25rem;color:#3c4257}
.ar{font-family:"Noto Naskh Arabic","Noto Sans Arabic",system-ui,sans-serif}
.kind,.mode{margin:0;font-weight:600}
.mode{color:#8a4b00;background:#fff4e0;padding:.1rem .5rem;border-radius:4px}
.num{font-variant-numeric:tabular-nums;letter-spacing:.02em}
.facts{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:0 0 1rem}
.facts dt{color:#3c4257}.facts dd{margin:0}
.parties{display:grid;grid-template-columns:1fr 1fr;gap:1rem;margin-bottom:1rem}
.party p{margin:.1rem 0}.party .name{font-weight:600}
.muted{color:#3c4257}
table{width:100%;border-collapse:collapse;margin:0 0 1rem}
th,td{padding:.45rem .5rem;border-bottom:1px solid #d8dee4;text-align:start;vertical-align:top}
th{font-size:.8rem;color:#3c4257;font-weight:600}
th .ar,td small .ar{display:block}
.amount{text-align:end;font-variant-numeric:tabular-nums;white-space:nowrap}
caption{text-align:start;font-weight:600;padding:.25rem 0}
.totals{display:grid;grid-template-columns:1fr max-content;gap:.25rem 1rem;max-width:32rem;margin:0 0 0 auto}
.totals dt{text-align:end}.totals dd{margin:0;text-align:end;font-variant-numeric:tabular-nums;font-weight:600}
.totals dt:last-of-type,.totals dd:last-of-type{font-size:1.1rem}
footer{display:flex;justify-content:space-between;gap:1rem;margin-top:1.5rem;color:#3c4257;font-size:.9rem}
a{color:#0a4fb5}
:focus-visible{outline:3px solid #0a4fb5;outline-offset:2px}
@media (max-width:40rem){
  .doc{margin:0;border:0;border-radius:0;padding:1rem}
  .parties{grid-template-columns:1fr}
  table.lines thead{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
  table.lines,table.lines tbody{display:block}
  table.lines tr{display:block;border:1px solid #d8dee4;border-radius:6px;margin-bottom:.75rem;padding:.25rem .5rem}
  table.lines td{display:flex;justify-content:space-between;gap:1rem;border:0;padding:.2rem 0;text-align:end}
  table.lines td::before{content:attr(data-label);color:#3c4257;text-align:start;flex:1 1 0;min-width:0;white-space:normal}
  table.summary th.amount{white-space:normal}
  table.lines td:first-child{display:block;text-align:start}
  table.lines td:first-child::before{content:none}
  .totals{max-width:none}
  footer{flex-direction:column}
}
@page{size:A4;margin:14mm}
@media print{
  body{background:#fff;font-size:10pt;line-height:1.35}
  th,td{padding:.25rem .4rem}
  h1{font-size:1.4rem}
  .parties,.facts,table{margin-bottom:.6rem}
  .doc{margin:0;padding:0;border:0;max-width:none}
  .no-print{display:none}
  tr{break-inside:avoid}
}
`
