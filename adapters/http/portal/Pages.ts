/**
 * The customer portal's pages: plain HTML that works without JavaScript. Every merchant- and
 * customer-supplied string goes through the escaping template (`html`).
 */
import { DateTime } from "effect"
import type { PortalDocuments, PortalOverview } from "../../../src/application/Portal.js"
import type { FieldErrors } from "../../../src/domain/CheckoutForm.js"
import { formatAmount } from "../../../src/domain/Money.js"
import type { Payment } from "../../../src/domain/Payment.js"
import { hasReceipt } from "../../../src/domain/Receipt.js"
import * as PlanChange from "../../../src/domain/PlanChange.js"
import { everyInterval, type Product } from "../../../src/domain/Product.js"
import * as Subscription from "../../../src/domain/Subscription.js"
import { cardFields, day, english, formStyles, type FormValues } from "../checkout/Page.js"
import { htmlDocument } from "../html/Document.js"
import { html, type Raw, raw } from "../html/Html.js"

const styles = `
  :root { color-scheme: light; font-family: system-ui, -apple-system, "Segoe UI", sans-serif; }
  body { margin: 0; background: #f5f3ef; color: #1d1b16; }
  main { max-width: 44rem; margin: 2rem auto; background: #fff; border-radius: 12px; padding: 1.5rem 1.75rem;
         box-shadow: 0 1px 3px rgba(0,0,0,.12); }
  @media (max-width: 30rem) { main { margin: 0; border-radius: 0; padding: 1.25rem 1rem; } }
  header { display: flex; flex-wrap: wrap; justify-content: space-between; gap: .5rem 1rem; align-items: baseline; }
  h1 { font-size: 1.2rem; margin: 0; } h2 { font-size: 1rem; margin: 1.75rem 0 .5rem; }
  .mode { display: inline-block; font-size: .75rem; background: #fde68a; border-radius: 4px; padding: 0 .4rem; }
  .muted, small { color: #555; } a { color: #1d4ed8; }
  .card { border: 1px solid #e4e1da; border-radius: 10px; padding: .9rem 1rem; margin: .75rem 0; }
  .card h3 { font-size: 1rem; margin: 0 0 .25rem; display: flex; justify-content: space-between; gap: .5rem; flex-wrap: wrap; }
  .card p { margin: .25rem 0; }
  .status { font-size: .8rem; border-radius: 999px; padding: .1rem .55rem; background: #eef2ff; color: #1e3a8a; white-space: nowrap; }
  .status.on_hold, .status.failed { background: #fef3f2; color: #b42318; }
  .status.cancelled, .status.refunded { background: #f2f4f7; color: #344054; }
  .status.active, .status.succeeded { background: #ecfdf3; color: #067647; }
  .actions { display: flex; flex-wrap: wrap; gap: .5rem; margin-top: .6rem; align-items: center; }
  .actions form { margin: 0; }
  .scroll { overflow-x: auto; }
  table { width: 100%; border-collapse: collapse; margin: .5rem 0; font-size: .95rem; }
  th, td { text-align: left; padding: .4rem .5rem .4rem 0; vertical-align: top; border-bottom: 1px solid #eee; }
  td.amount, th.amount { text-align: right; white-space: nowrap; }
  ${formStyles}
  button { font: inherit; font-weight: 600; padding: .5rem .9rem; border: 0; border-radius: 8px; background: #1d4ed8;
           color: #fff; cursor: pointer; }
  button.secondary { background: #fff; color: #1d1b16; border: 1px solid #bbb; }
  form.wide button { margin-top: 1.25rem; width: 100%; padding: .7rem; }
  footer { margin-top: 2rem; font-size: .85rem; color: #555; display: flex; flex-wrap: wrap; gap: .5rem 1rem; justify-content: space-between; }
  .receipt dl { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; margin: 1rem 0; }
  .receipt dt { color: #555; } .receipt dd { margin: 0; overflow-wrap: anywhere; }
  tr.total td { font-weight: 600; border-top: 2px solid #ddd; border-bottom: 0; }
  fieldset.plans { border: 0; padding: 0; margin: .5rem 0; min-width: 0; }
  .plans label { display: flex; gap: .6rem; align-items: flex-start; border: 1px solid #e4e1da; border-radius: 10px;
                 padding: .7rem .8rem; margin: .5rem 0; font-size: 1rem; overflow-wrap: anywhere; }
  .plans input { width: auto; margin: .2rem 0 0; }
  h3 { font-size: .95rem; margin: 1.25rem 0 .25rem; }
  @media print {
    body { background: #fff; }
    main { box-shadow: none; margin: 0; max-width: none; padding: 0; }
    .no-print { display: none !important; }
    a { color: inherit; text-decoration: none; }
  }
`

/** Where a page is and who it is for: the CSP nonce, the portal's path, and the CSRF token for forms. */
export interface Frame {
  readonly nonce: string
  readonly base: string
  readonly csrf?: string | undefined
}

const layout = (title: string, frame: Frame, body: Raw) =>
  htmlDocument({ title, nonce: frame.nonce, styles, body: html`<main>
${body}
</main>` })

export const money = (amount: number, currency: string) => formatAmount(amount, currency)
export { day }
export type { FormValues }

const intervalText = (s: Subscription.Subscription) => everyInterval(s.billing_interval, s.interval_count)

const statusText: Record<string, string> = {
  active: "Active",
  on_hold: "Payment overdue",
  cancelled: "Cancelled",
  succeeded: "Paid",
  partially_refunded: "Partly refunded",
  refunded: "Refunded",
  failed: "Failed",
  processing: "Processing"
}
const badge = (status: string) => html`<span class="status ${status}">${statusText[status] ?? status}</span>`

export const cardText = (card: { readonly brand: string; readonly last4: string; readonly exp_month: number; readonly exp_year: number }) =>
  `${card.brand.charAt(0).toUpperCase()}${card.brand.slice(1)} •••• ${card.last4}, expires ${
    String(card.exp_month).padStart(2, "0")
  }/${card.exp_year}`

export const csrfField = (frame: Frame) => html`<input type="hidden" name="csrf_token" value="${frame.csrf ?? ""}">`

export const heading = (props: { readonly businessName: string; readonly livemode: boolean; readonly supportEmail: string | null }) =>
  html`<header><h1>${props.businessName}</h1>${props.livemode ? "" : html`<span class="mode">Test mode</span>`}</header>
${
    props.supportEmail === null
      ? ""
      : html`<p class="muted">Questions? Write to <a href="mailto:${props.supportEmail}">${props.supportEmail}</a></p>`
  }`

const subscriptionCard = (frame: Frame, s: Subscription.Subscription, plans: ReadonlyArray<Product> = []) => {
  const base = `${frame.base}/subscriptions/${s.subscription_id}`
  const schedule = s.status === "cancelled"
    ? html`Cancelled on ${day(s.cancelled_at ?? s.next_billing_date)}.`
    : s.status === "on_hold"
    ? html`The payment due on ${day(s.next_billing_date)} was declined.${
      s.next_retry_at === null ? "" : html` We will try again on ${day(s.next_retry_at)}.`
    } Update your card to pay it now.`
    : s.cancel_at_period_end
    ? html`Ends on ${day(s.next_billing_date)}; you will not be charged again.`
    : html`Next payment of ${money(PlanChange.nextRenewalCharge(s).amount, s.currency)} on ${day(s.next_billing_date)}.`
  const cancelForm = (value: boolean, label: string, secondary: boolean) =>
    html`<form method="post" action="${base}/cancel-at-period-end">${csrfField(frame)}
<input type="hidden" name="cancel_at_period_end" value="${String(value)}">
<button type="submit"${secondary ? raw(` class="secondary"`) : ""}>${label}</button></form>`
  return html`<section class="card" data-subscription="${s.subscription_id}">
<h3><span>${s.name}${s.quantity > 1 ? html` × ${s.quantity}` : ""}</span>${
    s.status === "active" && s.cancel_at_period_end
      ? html`<span class="status cancelled">Ends ${day(s.next_billing_date)}</span>`
      : badge(s.status)
  }</h3>
<p>${money(s.recurring_amount, s.currency)} ${intervalText(s)}</p>
<p class="muted">${schedule}</p>
${planNotes(s)}
<p class="muted">Card: ${cardText(s.payment_method)}</p>
${
    s.status === "cancelled"
      ? ""
      : html`<div class="actions">
<a href="${base}/card">${s.status === "on_hold" ? "Update card and pay" : "Update card"}</a>
${
      PlanChange.changeRefusal(s) === undefined && plans.some((p) => PlanChange.offeredInPortal(p, s))
        ? html`<a href="${base}/plan">Change plan</a>`
        : ""
    }
${
      s.scheduled_change === null
        ? ""
        : html`<form method="post" action="${base}/plan/scheduled/cancel">${csrfField(frame)}<button type="submit" class="secondary">Keep ${s.name}</button></form>`
    }
${s.cancel_at_period_end ? cancelForm(false, "Keep subscription", false) : cancelForm(true, "Cancel at period end", true)}
</div>`
  }
</section>`
}

/** A scheduled plan change and the credit its next payments use, when there are. */
const planNotes = (s: Subscription.Subscription) =>
  html`${
    s.scheduled_change === null
      ? ""
      : html`<p class="muted">Changes to ${s.scheduled_change.plan.name}${
        s.scheduled_change.quantity > 1 ? html` × ${s.scheduled_change.quantity}` : ""
      } on ${day(s.scheduled_change.effective_at)}.</p>`
  }${s.credit_balance > 0 && s.status !== "cancelled" ? html`<p class="muted">Credit: ${money(s.credit_balance, s.currency)}, used for your next payments.</p>` : ""}`

const paymentRows = (frame: Frame, payments: ReadonlyArray<Payment>) =>
  html`<div class="scroll"><table aria-label="Payments">
<thead><tr><th>Date</th><th>Description</th><th class="amount">Amount</th><th>Status</th><th><span class="muted">Receipt</span></th></tr></thead>
<tbody>${
    payments.map((p) =>
      html`<tr data-payment="${p.payment_id}"><td>${day(p.created_at)}</td><td>${p.description}</td><td class="amount">${
        money(p.total_amount, p.currency)
      }${
        p.refunded_amount > 0 ? html`<br><small>${money(p.refunded_amount, p.currency)} refunded</small>` : ""
      }</td><td>${badge(p.status)}</td><td>${
        hasReceipt(p) ? html`<a href="${frame.base}/receipts/${p.payment_id}">Receipt</a>` : ""
      }</td></tr>`
    )
  }</tbody></table></div>`

/** The customer's tax invoices and credit notes, newest first, each to its printable page. */
const documentRows = (frame: Frame, documents: PortalDocuments) => {
  const rows = [
    ...documents.invoices.map((d) => ({
      at: d.issued_at,
      href: `${frame.base}/invoices/${d.invoice_id}`,
      kind: "Tax invoice",
      number: d.number,
      amount: money(d.totals.gross, d.currency)
    })),
    ...documents.creditNotes.map((d) => ({
      at: d.issued_at,
      href: `${frame.base}/credit-notes/${d.credit_note_id}`,
      kind: `Credit note (invoice ${d.invoice_number})`,
      number: d.number,
      amount: `−${money(d.difference.gross, d.currency)}`
    }))
  ].sort((a, b) => DateTime.toEpochMillis(b.at) - DateTime.toEpochMillis(a.at))
  return html`<div class="scroll"><table aria-label="Tax documents">
<thead><tr><th>Date</th><th>Document</th><th class="amount">Amount</th></tr></thead>
<tbody>${
    rows.map((r) =>
      html`<tr><td>${day(r.at)}</td><td><a href="${r.href}">${r.number}</a><br><small>${r.kind}</small></td><td class="amount">${r.amount}</td></tr>`
    )
  }</tbody></table></div>`
}

const footer = (frame: Frame, returnUrl: string | null, businessName: string) =>
  html`<footer class="no-print">${
    returnUrl === null ? html`<span></span>` : html`<a href="${returnUrl}">← Return to ${businessName}</a>`
  }<form method="post" action="${frame.base}/sign-out">${csrfField(frame)}<button type="submit" class="secondary">Sign out</button></form></footer>`

export const homePage = (
  frame: Frame,
  props: {
    readonly overview: PortalOverview
    /** Their tax invoices and credit notes (none when the merchant charges no VAT). */
    readonly documents?: PortalDocuments | undefined
    readonly returnUrl: string | null
    readonly livemode: boolean
    readonly notice?: { readonly tone: "done" | "alert"; readonly text: string } | undefined
  }
) => {
  const { account, customer, payments, subscriptions } = props.overview
  const businessName = account.business_name ?? "Your merchant"
  return layout(
    `${businessName}: your account`,
    frame,
    html`${heading({ businessName, livemode: props.livemode, supportEmail: account.support_email })}
<p>Signed in as <strong>${customer.name ?? customer.email}</strong>${customer.name === null ? "" : html` <span class="muted">(${customer.email})</span>`}</p>
${props.notice === undefined ? "" : html`<div class="${props.notice.tone}" role="status">${props.notice.text}</div>`}
<h2>Subscriptions</h2>
${subscriptions.length === 0 ? html`<p class="muted">You have no subscriptions.</p>` : subscriptions.map((s) => subscriptionCard(frame, s, props.overview.plans))}
<h2>Payments</h2>
${payments.length === 0 ? html`<p class="muted">You have no payments yet.</p>` : paymentRows(frame, payments)}
${
      props.documents === undefined || props.documents.invoices.length + props.documents.creditNotes.length === 0
        ? ""
        : html`<h2>Tax invoices and credit notes</h2>${documentRows(frame, props.documents)}`
    }
${footer(frame, props.returnUrl, businessName)}`
  )
}

export const cardPage = (
  frame: Frame,
  props: {
    readonly businessName: string
    readonly livemode: boolean
    readonly subscription: Subscription.Subscription
    readonly values: FormValues
    readonly errors: FieldErrors
    readonly alert?: string | undefined
  }
) => {
  const s = props.subscription
  return layout(
    `Update your card: ${props.businessName}`,
    frame,
    html`${heading({ businessName: props.businessName, livemode: props.livemode, supportEmail: null })}
<h2>Update the card for ${s.name}</h2>
<p class="muted">Now: ${cardText(s.payment_method)}.${
      s.status === "on_hold"
        ? html` The overdue payment of ${money(Subscription.renewalCharge(s).amount, s.currency)} will be charged to the new card at once.`
        : " The new card is used from the next payment on."
    }</p>
${props.alert ? html`<div class="alert" role="alert">${props.alert}</div>` : ""}
<form class="wide" method="post" action="${frame.base}/subscriptions/${s.subscription_id}/card" novalidate>
${csrfField(frame)}
${s.status === "on_hold" ? html`<input type="hidden" name="overdue" value="${overdueToken(Subscription.dueAttempt(s))}">` : ""}
${cardFields(english, props.values, props.errors)}
<button type="submit">${s.status === "on_hold" ? `Save card and pay ${money(Subscription.renewalCharge(s).amount, s.currency)}` : "Save card"}</button>
</form>
<p><small>Your card number is never stored.</small></p>
<footer class="no-print"><a href="${frame.base}">← Back to your account</a></footer>`
  )
}

/** What a portal link shows: a button that opens it (following the link alone changes nothing). */
export const openPage = (frame: Frame, action: string, openToken: string) =>
  layout(
    "Open your account",
    frame,
    html`<h1>Open your account</h1>
<p>Manage your subscriptions, cards and receipts. This link works once: the button below opens it on this device.</p>
<form method="post" action="${action}"><input type="hidden" name="open_token" value="${openToken}">
<button type="submit">Open my account</button></form>`
  )

export const messagePage = (frame: Frame, title: string, message: string, back?: { readonly href: string; readonly label: string }) =>
  layout(
    title,
    frame,
    html`<h1>${title}</h1>
<div class="alert" role="status">${message}</div>
${back === undefined ? "" : html`<p><a href="${back.href}">${back.label}</a></p>`}`
  )

export { layout }

/**
 * The overdue charge a card form was shown for, as the form carries it (`period-attempt`): a post is judged against
 * the charge its page offered, however late it arrives (a double-click's second post may come after the first paid).
 */
export const overdueToken = (due: Subscription.DueAttempt): string => `${due.period}-${due.attempt}`

/** The charge an `overdue` field names; `undefined` when the form has none (not on hold); `null` when it is not one. */
export const overdueOf = (field: string): Subscription.DueAttempt | undefined | null => {
  if (field === "") return undefined
  const match = /^(\d{1,9})-(\d{1,9})$/.exec(field)
  return match === null ? null : Subscription.dueAttemptOf(Number(match[1]), Number(match[2]))
}
