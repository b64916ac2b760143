/**
 * A payment's receipt: one printable page (its print stylesheet drops the links and the page's frame),
 * for the customer in the portal (in their language) and for the merchant in the dashboard.
 */
import type { ReceiptView } from "../../../src/application/Portal.js"
import { html } from "../html/Html.js"
import { cardText, day, type Frame, layout, money } from "./Pages.js"

export const receiptPage = (
  frame: Frame,
  view: ReceiptView,
  back: { readonly href: string; readonly label: string } | undefined
) => {
  const { t } = frame.lang
  const { account, lines, payment: p, refunds } = view
  const businessName = account.business_name ?? t.portal.yourMerchant
  const succeeded = refunds.filter((r) => r.status === "succeeded")
  const pending = refunds.filter((r) => r.status === "pending")
  const amount = (fils: number) => money(frame, fils, p.currency)
  return layout(
    t.portal.receiptTitle(p.payment_id, businessName),
    frame,
    html`<article class="receipt">
<header><h1>${businessName}</h1>${p.livemode ? "" : html`<span class="mode">${t.testMode}</span>`}</header>
${account.support_email === null ? "" : html`<p class="muted">${account.support_email}</p>`}
<h2>${t.portal.receipt}</h2>
<dl>
<dt>${t.portal.paymentLabel}</dt><dd><bdi>${p.payment_id}</bdi></dd>
<dt>${t.portal.date}</dt><dd>${day(frame, p.paid_at ?? p.created_at)}</dd>
${p.customer === null ? "" : html`<dt>${t.portal.billedTo}</dt><dd><bdi>${p.customer.name === null ? p.customer.email : html`${p.customer.name} (${p.customer.email})`}</bdi></dd>`}
${p.card === null ? "" : html`<dt>${t.portal.cardLabel}</dt><dd>${cardText(frame, p.card)}</dd>`}
</dl>
<div class="scroll"><table aria-label="${t.portal.lines}">
<thead><tr><th>${t.portal.item}</th><th class="amount">${t.portal.qty}</th><th class="amount">${t.portal.unitPrice}</th><th class="amount">${t.portal.amount}</th></tr></thead>
<tbody>
${lines.map((l) => html`<tr><td><bdi>${l.name}</bdi></td><td class="amount">${l.quantity}</td><td class="amount">${amount(l.unit_amount)}</td><td class="amount">${amount(l.amount)}</td></tr>`)}
${
      // What this payment's codes took off it (a trial's code takes nothing off the trial).
      p.discounts.filter((d) => d.amount_off > 0).map((d) =>
        html`<tr class="discount"><td colspan="3">${t.checkout.discount(d.code)}</td><td class="amount" data-testid="receipt-discount">−${amount(d.amount_off)}</td></tr>`
      )
    }
<tr class="total"><td colspan="3">${t.checkout.amountPaid}</td><td class="amount" data-testid="amount-paid">${amount(p.total_amount)}</td></tr>
${succeeded.map((r) => html`<tr><td colspan="3">${t.portal.refundedOn(day(frame, r.created_at))}</td><td class="amount">−${amount(r.amount)}</td></tr>`)}
${pending.map((r) => html`<tr><td colspan="3">${t.portal.refundInProgress(day(frame, r.created_at))}</td><td class="amount">${amount(r.amount)}</td></tr>`)}
${
      p.refunded_amount > 0
        ? html`<tr class="total"><td colspan="3">${t.portal.netAfterRefunds}</td><td class="amount">${amount(p.total_amount - p.refunded_amount)}</td></tr>`
        : ""
    }
</tbody></table></div>
</article>
<footer class="no-print">${back === undefined ? html`<span></span>` : html`<a href="${back.href}">${back.label}</a>`}<span>${t.portal.print}</span></footer>`
  )
}
