/**
 * The customer portal's pages: plain HTML that works without JavaScript. Every merchant- and
 * customer-supplied string goes through the escaping template (`html`).
 */
import { DateTime } from "effect"
import type { PortalDocuments, PortalOverview } from "../../../src/application/Portal.js"
import type { FieldErrors } from "../../../src/domain/CheckoutForm.js"
import type { Payment } from "../../../src/domain/Payment.js"
import { hasReceipt } from "../../../src/domain/Receipt.js"
import * as PlanChange from "../../../src/domain/PlanChange.js"
import type { Product } from "../../../src/domain/Product.js"
import * as Subscription from "../../../src/domain/Subscription.js"
import { cardFields, formStyles, type FormValues } from "../checkout/Page.js"
import { htmlDocument } from "../html/Document.js"
import { html, type Raw } from "../html/Html.js"
import { date, money as formatMoney } from "../i18n/Format.js"
import { isolate, type Lang } from "../i18n/Messages.js"
import { languageSwitch } from "../i18n/Switch.js"

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
  th, td { text-align: start; padding-block: .4rem; padding-inline: 0 .5rem; vertical-align: top; border-bottom: 1px solid #eee; }
  td.amount, th.amount { text-align: end; white-space: nowrap; }
  td { overflow-wrap: anywhere; }
  /* On a phone a list's rows stack as cards, each cell under its label: nothing (the receipt least) is off-screen. */
  @media (max-width: 40rem) {
    table.stack thead { display: none; }
    table.stack, table.stack tbody, table.stack tr, table.stack td { display: block; width: auto; }
    table.stack tr { border: 1px solid #e4e1da; border-radius: 10px; padding: .5rem .75rem; margin: .5rem 0; }
    table.stack td { border: 0; padding: .15rem 0; display: flex; gap: 1rem; justify-content: space-between; text-align: end; white-space: normal; }
    table.stack td::before { content: attr(data-label); color: #555; text-align: start; }
  }
  .top { max-width: 44rem; margin: 0 auto; padding: .75rem 1rem 0; display: flex; justify-content: flex-end; font-size: .9rem; }
  :focus-visible { outline: 3px solid #1d4ed8; outline-offset: 2px; }
  a.button { display: inline-block; font-weight: 600; padding: .5rem .9rem; border-radius: 8px; text-decoration: none; }
  a.button.secondary { background: #fff; color: #1d1b16; border: 1px solid #8a8a8a; }
  ${formStyles}
  button { font: inherit; font-weight: 600; padding: .5rem .9rem; border: 0; border-radius: 8px; background: #1d4ed8;
           color: #fff; cursor: pointer; }
  button.secondary { background: #fff; color: #1d1b16; border: 1px solid #8a8a8a; }
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

/** Where a page is and who it is for: the CSP nonce, the portal's path, the CSRF token for forms, and its language. */
export interface Frame {
  readonly nonce: string
  readonly base: string
  readonly csrf?: string | undefined
  readonly lang: Lang
}

const layout = (title: string, frame: Frame, body: Raw) =>
  htmlDocument({
    title,
    nonce: frame.nonce,
    styles,
    locale: frame.lang.locale,
    body: html`<div class="top no-print">${languageSwitch(frame.lang.locale)}</div>
<main>
${body}
</main>`
  })

export const money = (frame: Frame, amount: number, currency: string) => formatMoney(frame.lang.locale, amount, currency)
/** A date in the page's language and zone. */
export const day = (frame: Frame, at: DateTime.Utc) => date(frame.lang.locale, at, frame.lang.zone)
export type { FormValues }

const intervalText = (frame: Frame, s: Subscription.Subscription) => frame.lang.t.every(s.billing_interval, s.interval_count)

const badge = (frame: Frame, status: string) =>
  html`<span class="status ${status}">${(frame.lang.t.portal.statuses as Readonly<Record<string, string | undefined>>)[status] ?? status}</span>`

export const cardText = (
  frame: Frame,
  card: { readonly brand: string; readonly last4: string; readonly exp_month: number; readonly exp_year: number }
) =>
  frame.lang.t.portal.card({
    brand: `${card.brand.charAt(0).toUpperCase()}${card.brand.slice(1)}`,
    last4: card.last4,
    expiry: `${String(card.exp_month).padStart(2, "0")}/${card.exp_year}`
  })

export const csrfField = (frame: Frame) => html`<input type="hidden" name="csrf_token" value="${frame.csrf ?? ""}">`

export const heading = (
  frame: Frame,
  props: { readonly businessName: string; readonly livemode: boolean; readonly supportEmail: string | null }
) =>
  html`<header><h1>${props.businessName}</h1>${props.livemode ? "" : html`<span class="mode">${frame.lang.t.testMode}</span>`}</header>
${
    props.supportEmail === null
      ? ""
      : html`<p class="muted">${frame.lang.t.portal.questions(html`<a href="mailto:${props.supportEmail}">${props.supportEmail}</a>`)}</p>`
  }`

/**
 * Whether saving a new card pays the overdue charge at once (`PaymentMethods`): on hold, unless set to end at its
 * period end, when what is due is its end.
 */
const paysOnSave = (s: Subscription.Subscription) => s.status === "on_hold" && Subscription.dueAction(s) === "charge"

/** When a subscription set to end at its period end ends: when its next charge would have been due. */
const endsAt = (s: Subscription.Subscription) => Subscription.dueAt(s) ?? s.next_billing_date

const subscriptionCard = (frame: Frame, s: Subscription.Subscription, plans: ReadonlyArray<Product> = []) => {
  const { t } = frame.lang
  const base = `${frame.base}/subscriptions/${s.subscription_id}`
  const schedule = s.status === "cancelled"
    ? t.portal.cancelledOn(day(frame, s.cancelled_at ?? s.next_billing_date))
    : s.cancel_at_period_end
    ? t.portal.endsOn(day(frame, endsAt(s)))
    : s.status === "on_hold"
    ? t.portal.overdue({ due: day(frame, s.next_billing_date), retry: s.next_retry_at === null ? null : day(frame, s.next_retry_at) })
    : t.portal.nextPayment(money(frame, PlanChange.nextRenewalCharge(s).amount, s.currency), day(frame, s.next_billing_date))
  return html`<section class="card" data-subscription="${s.subscription_id}">
<h3><span><bdi>${s.name}</bdi>${s.quantity > 1 ? html` × ${s.quantity}` : ""}</span>${
    s.status === "active" && s.cancel_at_period_end
      ? html`<span class="status cancelled">${t.portal.endsBadge(day(frame, s.next_billing_date))}</span>`
      : badge(frame, s.status)
  }</h3>
<p>${money(frame, s.recurring_amount, s.currency)} ${intervalText(frame, s)}</p>
<p class="muted">${schedule}</p>
${planNotes(frame, s)}
<p class="muted">${t.portal.cardLine(cardText(frame, s.payment_method))}</p>
${
    s.status === "cancelled"
      ? ""
      : html`<div class="actions">
<a href="${base}/card">${paysOnSave(s) ? t.portal.updateCardAndPay : t.portal.updateCard}</a>
${
        PlanChange.changeRefusal(s) === undefined && plans.some((p) => PlanChange.offeredInPortal(p, s))
          ? html`<a href="${base}/plan">${t.portal.changePlan}</a>`
          : ""
      }
${
        s.scheduled_change === null
          ? ""
          : html`<form method="post" action="${base}/plan/scheduled/cancel">${csrfField(frame)}<button type="submit" class="secondary">${
            t.portal.keepPlan(isolate(frame.lang, s.name))
          }</button></form>`
      }
${
        s.cancel_at_period_end
          ? html`<form method="post" action="${base}/cancel-at-period-end">${csrfField(frame)}
<input type="hidden" name="cancel_at_period_end" value="false">
<button type="submit">${t.portal.keepSubscription}</button></form>`
          // Cancelling asks first, on a page of its own (it works without JavaScript).
          : html`<a class="button secondary" href="${base}/cancel-at-period-end">${t.portal.cancelAtPeriodEnd}</a>`
      }
</div>`
  }
</section>`
}

/** "Cancel at period end?": what will happen, and the form that does it; going back changes nothing. */
export const confirmCancelPage = (
  frame: Frame,
  props: { readonly businessName: string; readonly livemode: boolean; readonly subscription: Subscription.Subscription }
) => {
  const { t } = frame.lang
  const s = props.subscription
  return layout(
    `${t.portal.confirmCancelTitle} ${props.businessName}`,
    frame,
    html`${heading(frame, { businessName: props.businessName, livemode: props.livemode, supportEmail: null })}
<h2>${t.portal.confirmCancelTitle}</h2>
<p data-testid="confirm-cancel">${t.portal.confirmCancel(isolate(frame.lang, s.name), day(frame, s.next_billing_date))}</p>
<div class="actions">
<form method="post" action="${frame.base}/subscriptions/${s.subscription_id}/cancel-at-period-end">${csrfField(frame)}
<input type="hidden" name="cancel_at_period_end" value="true">
<button type="submit">${t.portal.confirmCancelButton}</button></form>
<a class="button secondary" href="${frame.base}">${t.portal.keepIt}</a>
</div>`
  )
}

/** A scheduled plan change and the credit its next payments use, when there are. */
const planNotes = (frame: Frame, s: Subscription.Subscription) =>
  html`${
    s.scheduled_change === null
      ? ""
      : html`<p class="muted">${
        frame.lang.t.portal.changesTo(
          isolate(frame.lang, `${s.scheduled_change.plan.name}${s.scheduled_change.quantity > 1 ? ` × ${s.scheduled_change.quantity}` : ""}`),
          day(frame, s.scheduled_change.effective_at)
        )
      }</p>`
  }${
    s.credit_balance > 0 && s.status !== "cancelled"
      ? html`<p class="muted">${frame.lang.t.portal.credit(money(frame, s.credit_balance, s.currency))}</p>`
      : ""
  }`

/**
 * The payments, each a row led by its receipt link: on a phone the table becomes stacked rows, so the receipt is
 * never off-screen.
 */
const paymentRows = (frame: Frame, payments: ReadonlyArray<Payment>) => {
  const { t } = frame.lang
  return html`<table class="stack" aria-label="${t.portal.payments}">
<thead><tr><th>${t.portal.date}</th><th>${t.portal.description}</th><th class="amount">${t.portal.amount}</th><th>${t.portal.status}</th><th>${t.portal.receipt}</th></tr></thead>
<tbody>${
    payments.map((p) =>
      html`<tr data-payment="${p.payment_id}"><td data-label="${t.portal.date}">${day(frame, p.created_at)}</td><td data-label="${t.portal.description}"><bdi>${p.description}</bdi></td><td class="amount" data-label="${t.portal.amount}">${
        money(frame, p.total_amount, p.currency)
      }${
        p.refunded_amount > 0 ? html`<br><small>${t.portal.refunded(money(frame, p.refunded_amount, p.currency))}</small>` : ""
      }</td><td data-label="${t.portal.status}">${badge(frame, p.status)}</td><td data-label="${t.portal.receipt}">${
        hasReceipt(p) ? html`<a href="${frame.base}/receipts/${p.payment_id}">${t.portal.receipt}</a>` : ""
      }</td></tr>`
    )
  }</tbody></table>`
}

/** The customer's tax invoices and credit notes, newest first, each to its printable page. */
const documentRows = (frame: Frame, documents: PortalDocuments) => {
  const { t } = frame.lang
  const rows = [
    ...documents.invoices.map((d) => ({
      at: d.issued_at,
      href: `${frame.base}/invoices/${d.invoice_id}`,
      kind: t.portal.taxInvoice,
      number: d.number,
      amount: money(frame, d.totals.gross, d.currency)
    })),
    ...documents.creditNotes.map((d) => ({
      at: d.issued_at,
      href: `${frame.base}/credit-notes/${d.credit_note_id}`,
      kind: t.portal.creditNote(d.invoice_number),
      number: d.number,
      amount: `−${money(frame, d.difference.gross, d.currency)}`
    }))
  ].sort((a, b) => DateTime.toEpochMillis(b.at) - DateTime.toEpochMillis(a.at))
  return html`<table class="stack" aria-label="${t.portal.documents}">
<thead><tr><th>${t.portal.date}</th><th>${t.portal.document}</th><th class="amount">${t.portal.amount}</th></tr></thead>
<tbody>${
    rows.map((r) =>
      html`<tr><td data-label="${t.portal.date}">${day(frame, r.at)}</td><td data-label="${t.portal.document}"><a href="${r.href}">${r.number}</a><br><small>${r.kind}</small></td><td class="amount" data-label="${t.portal.amount}">${r.amount}</td></tr>`
    )
  }</tbody></table>`
}

const footer = (frame: Frame, returnUrl: string | null, businessName: string) =>
  html`<footer class="no-print">${
    returnUrl === null ? html`<span></span>` : html`<a href="${returnUrl}">${frame.lang.t.portal.returnTo(businessName)}</a>`
  }<form method="post" action="${frame.base}/sign-out">${csrfField(frame)}<button type="submit" class="secondary">${frame.lang.t.portal.signOut}</button></form></footer>`

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
  const { t } = frame.lang
  const { account, customer, payments, subscriptions } = props.overview
  const businessName = account.business_name ?? t.portal.yourMerchant
  return layout(
    t.portal.title(businessName),
    frame,
    html`${heading(frame, { businessName, livemode: props.livemode, supportEmail: account.support_email })}
<p>${t.portal.signedInAs(html`<strong>${customer.name ?? customer.email}</strong>`)}${customer.name === null ? "" : html` <span class="muted">(${customer.email})</span>`}</p>
${props.notice === undefined ? "" : html`<div class="${props.notice.tone}" role="status">${props.notice.text}</div>`}
<h2>${t.portal.subscriptions}</h2>
${subscriptions.length === 0 ? html`<p class="muted">${t.portal.noSubscriptions}</p>` : subscriptions.map((s) => subscriptionCard(frame, s, props.overview.plans))}
<h2>${t.portal.payments}</h2>
${payments.length === 0 ? html`<p class="muted">${t.portal.noPayments}</p>` : paymentRows(frame, payments)}
${
      props.documents === undefined || props.documents.invoices.length + props.documents.creditNotes.length === 0
        ? ""
        : html`<h2>${t.portal.documents}</h2>${documentRows(frame, props.documents)}`
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
  const { t } = frame.lang
  const s = props.subscription
  return layout(
    t.portal.cardTitle(props.businessName),
    frame,
    html`${heading(frame, { businessName: props.businessName, livemode: props.livemode, supportEmail: null })}
<h2>${t.portal.cardHeading(isolate(frame.lang, s.name))}</h2>
<p class="muted">${t.portal.cardNow(cardText(frame, s.payment_method))}${
      paysOnSave(s)
        ? t.portal.overdueCharged(money(frame, Subscription.renewalCharge(s).amount, s.currency))
        : s.cancel_at_period_end
        ? ` ${t.portal.endsOn(day(frame, endsAt(s)))}`
        : t.portal.fromNextPayment
    }</p>
${props.alert ? html`<div class="alert" role="alert">${props.alert}</div>` : ""}
<form class="wide" method="post" action="${frame.base}/subscriptions/${s.subscription_id}/card" novalidate>
${csrfField(frame)}
${paysOnSave(s) ? html`<input type="hidden" name="overdue" value="${overdueToken(Subscription.dueAttempt(s))}">` : ""}
${cardFields(frame.lang, props.values, props.errors)}
<button type="submit">${
      paysOnSave(s) ? t.portal.saveCardAndPay(money(frame, Subscription.renewalCharge(s).amount, s.currency)) : t.portal.saveCard
    }</button>
</form>
<p><small>${t.portal.neverStored}</small></p>
<footer class="no-print"><a href="${frame.base}">${t.portal.back}</a></footer>`
  )
}

/** What a portal link shows: a button that opens it (following the link alone changes nothing). */
export const openPage = (frame: Frame, action: string, openToken: string) =>
  layout(
    frame.lang.t.portal.openTitle,
    frame,
    html`<h1>${frame.lang.t.portal.openTitle}</h1>
<p>${frame.lang.t.portal.openText}</p>
<form method="post" action="${action}"><input type="hidden" name="open_token" value="${openToken}">
<button type="submit">${frame.lang.t.portal.openButton}</button></form>`
  )

export const messagePage = (
  frame: Frame,
  title: string,
  message: string,
  back?: { readonly href: string; readonly label: string },
  /** More to say after the message (a used link's way to the merchant's support). */
  more?: Raw
) =>
  layout(
    title,
    frame,
    html`<h1>${title}</h1>
<div class="alert" role="status">${message}</div>
${more ?? ""}
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
