/**
 * A payment's receipt: one printable page (its print stylesheet drops the links and the page's frame),
 * for the customer in the portal and for the merchant in the dashboard.
 */
import type { ReceiptView } from "../../../src/application/Portal.js"
import { html } from "../html/Html.js"
import { cardText, day, type Frame, layout, money } from "./Pages.js"

export const receiptPage = (
  frame: Frame,
  view: ReceiptView,
  back: { readonly href: string; readonly label: string } | undefined
) => {
  const { account, lines, payment: p, refunds } = view
  const businessName = account.business_name ?? "Merchant"
  const succeeded = refunds.filter((r) => r.status === "succeeded")
  const pending = refunds.filter((r) => r.status === "pending")
  return layout(
    `Receipt ${p.payment_id}: ${businessName}`,
    frame,
    html`<article class="receipt">
<header><h1>${businessName}</h1>${p.livemode ? "" : html`<span class="mode">Test mode</span>`}</header>
${account.support_email === null ? "" : html`<p class="muted">${account.support_email}</p>`}
<h2>Receipt</h2>
<dl>
<dt>Payment</dt><dd>${p.payment_id}</dd>
<dt>Date</dt><dd>${day(p.paid_at ?? p.created_at)}</dd>
${p.customer === null ? "" : html`<dt>Billed to</dt><dd>${p.customer.name === null ? p.customer.email : html`${p.customer.name} (${p.customer.email})`}</dd>`}
${p.card === null ? "" : html`<dt>Card</dt><dd>${cardText(p.card)}</dd>`}
</dl>
<div class="scroll"><table aria-label="Lines">
<thead><tr><th>Item</th><th class="amount">Qty</th><th class="amount">Unit price</th><th class="amount">Amount</th></tr></thead>
<tbody>
${
      lines.map((l) =>
        html`<tr><td>${l.name}</td><td class="amount">${l.quantity}</td><td class="amount">${
          money(l.unit_amount, p.currency)
        }</td><td class="amount">${money(l.amount, p.currency)}</td></tr>`
      )
    }
${
      // What this payment's codes took off it (a trial's code takes nothing off the trial).
      p.discounts.filter((d) => d.amount_off > 0).map((d) =>
        html`<tr class="discount"><td colspan="3">Discount ${d.code}</td><td class="amount" data-testid="receipt-discount">−${money(d.amount_off, p.currency)}</td></tr>`
      )
    }
<tr class="total"><td colspan="3">Amount paid</td><td class="amount" data-testid="amount-paid">${money(p.total_amount, p.currency)}</td></tr>
${
      succeeded.map((r) =>
        html`<tr><td colspan="3">Refunded on ${day(r.created_at)}</td><td class="amount">−${money(r.amount, p.currency)}</td></tr>`
      )
    }
${
      pending.map((r) =>
        html`<tr><td colspan="3">Refund in progress (${day(r.created_at)})</td><td class="amount">${money(r.amount, p.currency)}</td></tr>`
      )
    }
${
      p.refunded_amount > 0
        ? html`<tr class="total"><td colspan="3">Net after refunds</td><td class="amount">${money(p.total_amount - p.refunded_amount, p.currency)}</td></tr>`
        : ""
    }
</tbody></table></div>
</article>
<footer class="no-print">${back === undefined ? html`<span></span>` : html`<a href="${back.href}">${back.label}</a>`}<span>Print this page (Ctrl+P or ⌘P) to keep a copy or save it as a PDF.</span></footer>`
  )
}
