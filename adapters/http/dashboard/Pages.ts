/**
 * The dashboard's pages: server-rendered HTML that works without JavaScript, one small stylesheet (with
 * the response's nonce), every merchant- or customer-supplied string escaped. Money as merchants read it
 * (`AED 1,234.50`), times in the account's time zone and labelled with it.
 */
import { DateTime, JSONSchema, type Schema } from "effect"
import type { Overview, Period } from "../../../src/application/Reports.js"
import type { AuditEntry, DashboardUser } from "../../../src/domain/DashboardUser.js"
import type { Event } from "../../../src/domain/Event.js"
import { formatAmount } from "../../../src/domain/Money.js"
import { lengthPhrase } from "../../../src/domain/Text.js"
import { hasReceipt } from "../../../src/domain/Receipt.js"
import { htmlDocument } from "../html/Document.js"
import { type Flash, onceField, onceToken, textareaContent } from "../html/Forms.js"
import type { Payment } from "../../../src/domain/Payment.js"
import { html, type Raw, raw } from "../html/Html.js"

const styles = `
  :root { color-scheme: light; font-family: system-ui, -apple-system, "Segoe UI", sans-serif; }
  body { margin: 0; background: #f6f7f9; color: #1b1f24; }
  header { display: flex; align-items: center; gap: 1rem; flex-wrap: wrap; padding: .6rem 1.25rem; background: #fff;
           border-bottom: 1px solid #e3e6ea; }
  header strong { margin-right: auto; }
  /* A long business name or e-mail wraps inside the header rather than widen the page (a 390 px phone). */
  header strong, header .who { min-width: 0; overflow-wrap: anywhere; }
  nav { padding: .5rem 1.25rem; display: flex; flex-wrap: wrap; gap: .3rem .9rem; }
  nav a { color: #1d4ed8; text-decoration: none; }
  .mode { font-size: .8rem; border-radius: 4px; padding: .1rem .45rem; background: #fde68a; }
  .mode.live { background: #bbf7d0; }
  main { max-width: 60rem; margin: 1.25rem auto; padding: 0 1.25rem; }
  .card { background: #fff; border-radius: 10px; padding: 1rem 1.25rem; box-shadow: 0 1px 2px rgba(0,0,0,.08); margin-bottom: 1rem;
          overflow-x: auto; }
  td { min-width: 6rem; }
  td code { overflow-wrap: anywhere; }
  .stats { display: grid; grid-template-columns: repeat(auto-fill, minmax(11rem, 1fr)); gap: .75rem; }
  .stat b { display: block; font-size: 1.2rem; margin-top: .2rem; }
  table { width: 100%; border-collapse: collapse; font-size: .92rem; }
  th, td { text-align: left; padding: .45rem .4rem; border-bottom: 1px solid #eef0f2; vertical-align: top; }
  td.num, th.num { text-align: right; white-space: nowrap; }
  code { font-size: .85rem; user-select: all; }
  label { display: block; font-size: .85rem; margin: .6rem 0 .2rem; }
  input, select { font: inherit; padding: .45rem; border: 1px solid #bbb; border-radius: 6px; max-width: 100%; box-sizing: border-box; }
  button { font: inherit; font-weight: 600; padding: .5rem .9rem; border: 0; border-radius: 7px; background: #1d4ed8;
           color: #fff; cursor: pointer; }
  button.link { background: none; color: #1d4ed8; padding: 0; font-weight: 400; }
  .alert { background: #fef3f2; color: #b42318; border-radius: 6px; padding: .6rem .75rem; margin: .75rem 0; }
  .done { background: #ecfdf3; color: #067647; border-radius: 6px; padding: .6rem .75rem; margin: .75rem 0; }
  .narrow { max-width: 24rem; margin: 3rem auto; }
  small, .muted { color: #5b6470; }
  svg { width: 100%; height: auto; }
  pre { white-space: pre-wrap; word-break: break-all; font-size: .85rem; }
  textarea { font: inherit; padding: .45rem; border: 1px solid #bbb; border-radius: 6px; width: 100%; box-sizing: border-box; }
  td.text { white-space: pre-wrap; overflow-wrap: anywhere; }
  .field-error { color: #b42318; font-size: .85rem; margin: .2rem 0 0; }
  [aria-invalid="true"] { border-color: #b42318; }
  label.check { display: flex; gap: .4rem; align-items: center; }
  fieldset { border: 1px solid #e3e6ea; border-radius: 8px; margin: .8rem 0; min-width: 0; }
  form.inline { display: inline; margin-right: .6rem; }
  tr.attempts details { position: sticky; left: 0; max-width: calc(100vw - 5.5rem); }
  /* Destructive actions: a red button on their confirmation page, a red link to it. */
  button.danger, a.button.danger { background: #b42318; color: #fff; }
  a.button { display: inline-block; font-weight: 600; padding: .5rem .9rem; border-radius: 7px; text-decoration: none; }
  a.danger-link { color: #b42318; }
  .confirm ul { padding-left: 1.2rem; line-height: 1.5; }
  .confirm .actions { display: flex; flex-wrap: wrap; gap: .6rem 1rem; align-items: center; }
`

export interface Frame {
  readonly nonce: string
  /** Where the dashboard is mounted: `<public path>/dashboard`. */
  readonly base: string
}

export interface SignedFrame extends Frame {
  readonly user: DashboardUser
  readonly businessName: string
  readonly livemode: boolean
  readonly csrf: string
  /** The account's time zone (IANA): every time on the page is shown in it (`when`). */
  readonly timeZone: string
  /** What the change that redirected here says (POST-redirect-GET). */
  readonly flash?: Flash | undefined
}

const document = (frame: Frame, title: string, body: Raw) =>
  htmlDocument({ title: `${title} · Fils dashboard`, nonce: frame.nonce, styles, body })

export const money = (fils: number) => formatAmount(fils, "AED")
/** One formatter per zone (making one costs far more than using it). */
const timeFormats = new Map<string, Intl.DateTimeFormat>()
const timeFormat = (timeZone: string) => {
  let format = timeFormats.get(timeZone)
  if (format === undefined) {
    format = new Intl.DateTimeFormat("en-GB", {
      timeZone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
      timeZoneName: "short"
    })
    timeFormats.set(timeZone, format)
  }
  return format
}

/**
 * A time as the account reads it: its local date and time and the zone's short name (`2026-11-28 01:00 GST`; a
 * zone without one by its offset, `GMT+5:30`).
 */
export const when = (frame: { readonly timeZone: string }, at: DateTime.Utc) => {
  const parts: Record<string, string> = {}
  for (const part of timeFormat(frame.timeZone).formatToParts(DateTime.toDate(at))) parts[part.type] = part.value
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute} ${parts.timeZoneName}`
}
export const modePath = (frame: SignedFrame) => `${frame.base}/${frame.livemode ? "live" : "test"}`

/**
 * A discount code as a checkout or payment applied it: what it took off, or, on a trial's checkout (which a code takes
 * nothing off), that it was redeemed for the payments after the trial.
 */
export const appliedDiscountText = (d: { readonly code: string; readonly amount_off: number }): string =>
  d.amount_off === 0 ? `${d.code}: redeemed for the payments after the trial` : `${d.code}: −${money(d.amount_off)}`

/** A form posting to `action` with the session's CSRF token. */
export const form = (frame: SignedFrame, action: string, body: Raw) =>
  html`<form method="post" action="${action}"><input type="hidden" name="csrf_token" value="${frame.csrf}">${body}</form>`

/** A form that moves money: also a fresh one-time token, so that posting it twice acts once. */
export const moneyForm = (frame: SignedFrame, action: string, body: Raw) =>
  form(frame, action, html`<input type="hidden" name="${onceField}" value="${onceToken()}">${body}`)

/** A multi-line text field, its value shown exactly (see `textareaContent`). */
export const textarea = (props: { readonly id: string; readonly name: string; readonly value: string; readonly rows?: number }) =>
  html`<textarea id="${props.id}" name="${props.name}" rows="${props.rows ?? 4}">${textareaContent(props.value)}</textarea>`

/**
 * A text field's length limit in words (`at most 5000 characters`), read from the API's own schema, so that a form
 * states the limit the API applies. (No `maxlength`: browsers count UTF-16 units, and would stop an emoji-rich
 * text the API accepts.)
 */
export const limitOf = (schema: Schema.Schema<string, string, never>): string => {
  const json = JSONSchema.make(schema) as { readonly minLength?: number; readonly maxLength?: number }
  return json.maxLength === undefined ? "" : lengthPhrase(json.minLength ?? 0, json.maxLength)
}

/** A notice: what a change did, or why it was refused. */
export const notice = (flash: Flash | undefined) =>
  flash === undefined ? "" : flash.tone === "done"
  ? html`<p class="done" role="status">${flash.text}</p>`
  : html`<p class="alert" role="alert">${flash.text}</p>`

export const chrome = (frame: SignedFrame, title: string, body: Raw) =>
  document(
    frame,
    title,
    html`<header><strong>${frame.businessName}</strong>
<span class="mode${frame.livemode ? " live" : ""}">${frame.livemode ? "Live mode" : "Test mode"}</span>
<a href="${frame.base}/${frame.livemode ? "test" : "live"}">Switch to ${frame.livemode ? "test" : "live"} data</a>
<span class="muted who">${frame.user.email} (${frame.user.role})</span>
${form(frame, `${frame.base}/logout`, html`<button class="link" type="submit">Sign out</button>`)}</header>
<nav><a href="${modePath(frame)}">Home</a><a href="${modePath(frame)}/payments">Payments</a><a href="${modePath(frame)}/subscriptions">Subscriptions</a><a href="${modePath(frame)}/customers">Customers</a><a href="${modePath(frame)}/invoices">Invoices</a><a href="${modePath(frame)}/credit-notes">Credit notes</a><a href="${modePath(frame)}/products">Products</a><a href="${modePath(frame)}/discounts">Discounts</a><a href="${modePath(frame)}/checkout-sessions">Checkout</a><a href="${modePath(frame)}/developers">Developers</a><a href="${modePath(frame)}/events">Events</a><a href="${frame.base}/audit">Audit log</a><a href="${frame.base}/settings">Settings</a></nav>
<main><h1>${title}</h1>${notice(frame.flash)}${body}</main>`
  )

export const loginPage = (frame: Frame, props: { readonly error?: string | undefined; readonly email?: string | undefined }) =>
  document(
    frame,
    "Sign in",
    html`<main class="narrow"><div class="card"><h1>Sign in to Fils</h1>
${props.error === undefined ? "" : html`<p class="alert" role="alert">${props.error}</p>`}
<form method="post" action="${frame.base}/login">
<label for="email">E-mail</label><input id="email" name="email" type="email" autocomplete="username" required value="${props.email ?? ""}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<p><button type="submit">Sign in</button></p></form></div></main>`
  )

export const setPasswordPage = (frame: Frame, props: { readonly email: string; readonly action: string; readonly error?: string | undefined }) =>
  document(
    frame,
    "Set your password",
    html`<main class="narrow"><div class="card"><h1>Set your password</h1><p>For <b>${props.email}</b>: at least 12 characters.</p>
${props.error === undefined ? "" : html`<p class="alert" role="alert">${props.error}</p>`}
<form method="post" action="${props.action}">
<label for="password">New password</label><input id="password" name="password" type="password" autocomplete="new-password" minlength="12" required>
<p><button type="submit">Set password and sign in</button></p></form></div></main>`
  )

export const messagePage = (frame: Frame, title: string, message: string) =>
  document(frame, title, html`<main class="narrow"><div class="card"><h1>${title}</h1><p>${message}</p>
<p><a href="${frame.base}/login">Sign in</a></p></div></main>`)

/** Daily gross volume as bars, drawn on the server. */
const chart = (daily: Overview["daily"]) => {
  const width = 600
  const height = 120
  const top = Math.max(1, ...daily.map((d) => d.gross))
  const step = width / Math.max(1, daily.length)
  const bars = daily.map((d, i) => {
    const h = Math.round((d.gross / top) * (height - 4))
    return `<rect x="${(i * step + 1).toFixed(1)}" y="${height - h}" width="${Math.max(1, step - 2).toFixed(1)}" height="${h}" fill="#1d4ed8"><title>${d.day}: ${money(d.gross)}</title></rect>`
  }).join("")
  return raw(`<svg viewBox="0 0 ${width} ${height}" role="img" aria-label="Daily gross volume">${bars}</svg>`)
}

export const homePage = (frame: SignedFrame, overview: Overview, periods: ReadonlyArray<Period>) =>
  chrome(
    frame,
    "Home",
    html`<p>${
      periods.map((p, i) => html`${i > 0 ? " · " : ""}${p === overview.days ? html`<b>${p} days</b>` : html`<a href="${modePath(frame)}?days=${p}">${p} days</a>`}`)
    }</p>
<div class="card stats">
<div class="stat">Gross volume<b>${money(overview.gross)}</b></div>
<div class="stat">Net volume<b>${money(overview.net)}</b></div>
<div class="stat">Fees<b>${money(overview.fees)}</b></div>
<div class="stat">Refunds<b>${money(overview.refunded)}</b></div>
<div class="stat">Succeeded payments<b>${overview.succeeded}</b></div>
<div class="stat">Failed payments<b>${overview.failed}</b></div>
<div class="stat">Paying subscriptions<b>${overview.activeSubscriptions}</b></div>
<div class="stat">Monthly recurring revenue<b>${money(overview.mrr)}</b></div>
</div>
<div class="card"><h2>Daily volume</h2>${chart(overview.daily)}<small>${overview.daily[0]?.day ?? ""} to ${overview.daily.at(-1)?.day ?? ""} (${overview.timeZone})</small></div>`
  )

export const paymentsPage = (
  frame: SignedFrame,
  props: {
    readonly items: ReadonlyArray<Payment>
    readonly status: string | undefined
    readonly next: string | null
    readonly search?: string | undefined
    readonly range?: { readonly from: string; readonly to: string } | undefined
    readonly error?: string | undefined
  }
) =>
  chrome(
    frame,
    "Payments",
    html`${props.error === undefined ? "" : html`<p class="alert" role="alert">${props.error}</p>`}
<form method="get" action="${modePath(frame)}/payments"><label for="q">Payment id or customer e-mail</label>
<input id="q" name="q" value="${props.search ?? ""}">
<label for="from">From (date in ${frame.timeZone})</label><input id="from" name="from" type="date" value="${props.range?.from ?? ""}">
<label for="to">To (date in ${frame.timeZone})</label><input id="to" name="to" type="date" value="${props.range?.to ?? ""}">
<label for="status">Status</label>
<select id="status" name="status"><option value="">Any</option>${
      ["succeeded", "processing", "failed", "partially_refunded", "refunded"].map((s) =>
        html`<option value="${s}"${raw(props.status === s ? " selected" : "")}>${s}</option>`
      )
    }</select> <button type="submit">Filter</button></form>
<div class="card"><table><thead><tr><th>Payment</th><th>Customer</th><th>Status</th><th class="num">Amount</th><th>Created</th></tr></thead><tbody>
${
      props.items.map((p) =>
        html`<tr><td><a href="${modePath(frame)}/payments/${p.payment_id}"><code>${p.payment_id}</code></a></td>
<td>${p.customer?.email ?? ""}</td><td>${p.status}</td><td class="num">${money(p.total_amount)}</td><td>${when(frame, p.created_at)}</td></tr>`
      )
    }
</tbody></table>${props.items.length === 0 ? html`<p class="muted">No payments.</p>` : ""}
${
      props.next === null
        ? ""
        : html`<p><a href="${modePath(frame)}/payments?${
          new URLSearchParams({
            ...(props.status === undefined ? {} : { status: props.status }),
            ...(props.search === undefined || props.search === "" ? {} : { q: props.search }),
            ...(props.range === undefined || props.range.from === "" ? {} : { from: props.range.from }),
            ...(props.range === undefined || props.range.to === "" ? {} : { to: props.range.to }),
            cursor: props.next
          }).toString()
        }">Older payments →</a></p>`
    }</div>`
  )

export const paymentPage = (
  frame: SignedFrame,
  props: {
    readonly payment: Payment
    readonly events: ReadonlyArray<Event>
    readonly canRefund: boolean
    /** Its tax invoice and its refunds' credit notes (none when the merchant charged no VAT). */
    readonly documents?: {
      readonly invoices: ReadonlyArray<{ readonly invoice_id: string; readonly number: string }>
      readonly creditNotes: ReadonlyArray<{ readonly credit_note_id: string; readonly number: string }>
    } | undefined
    /** Each event's deliveries, by event id. */
    readonly deliveries?: Readonly<Record<string, ReadonlyArray<{ readonly status: string }>>> | undefined
    readonly error?: string | undefined
    /** The amount as typed, when a refund was refused. */
    readonly amount?: string | undefined
  }
) => {
  const p = props.payment
  const remaining = p.total_amount - p.refunded_amount
  const refundable = props.canRefund && (p.status === "succeeded" || p.status === "partially_refunded")
  return chrome(
    frame,
    `Payment ${money(p.total_amount)}`,
    html`${props.error === undefined ? "" : html`<p class="alert" role="alert">${props.error}</p>`}
<div class="card"><table>
<tr><th>Id</th><td><code>${p.payment_id}</code></td></tr>
<tr><th>Status</th><td>${p.status}</td></tr>
<tr><th>Amount</th><td>${money(p.total_amount)}</td></tr>
<tr><th>Fee</th><td>${money(p.fee_amount)}</td></tr>
<tr><th>Refunded</th><td>${money(p.refunded_amount)}</td></tr>
<tr><th>Net</th><td>${money(p.net_amount)}</td></tr>
<tr><th>Customer</th><td>${p.customer === null ? "" : html`${p.customer.name ?? ""} &lt;${p.customer.email}&gt;`}</td></tr>
<tr><th>Card</th><td>${p.card === null ? "" : `${p.card.brand} •••• ${p.card.last4}`}</td></tr>
<tr><th>Description</th><td>${p.description}</td></tr>
${p.discounts.map((d) => html`<tr><th>Discount</th><td>${appliedDiscountText(d)}</td></tr>`)}
<tr><th>Created</th><td>${when(frame, p.created_at)}</td></tr>
${hasReceipt(p) ? html`<tr><th>Receipt</th><td><a href="${modePath(frame)}/payments/${p.payment_id}/receipt">Printable receipt</a></td></tr>` : ""}
${
      props.documents === undefined || props.documents.invoices.length === 0
        ? ""
        : html`<tr><th>Tax invoice</th><td>${
          props.documents.invoices.map((d) => html`<a href="${modePath(frame)}/invoices/${d.invoice_id}">${d.number}</a>`)
        }</td></tr>`
    }
${
      props.documents === undefined || props.documents.creditNotes.length === 0
        ? ""
        : html`<tr><th>Credit notes</th><td>${
          props.documents.creditNotes.map((d, i) => html`${i > 0 ? ", " : ""}<a href="${modePath(frame)}/credit-notes/${d.credit_note_id}">${d.number}</a>`)
        }</td></tr>`
    }
</table></div>
${
      refundable
        ? html`<div class="card"><h2>Refund</h2><form method="get" action="${modePath(frame)}/payments/${p.payment_id}/refund">
<label for="amount">Amount in AED (up to ${money(remaining)})</label>
<input id="amount" name="amount" inputmode="decimal" value="${props.amount ?? (remaining / 100).toFixed(2)}" required> <button type="submit">Review the refund</button>
<p class="muted">You confirm on the next page, which says what will happen.</p></form></div>`
        : ""
    }
<div class="card"><h2>Timeline</h2><table><tbody>${
      props.events.map((e) =>
        html`<tr><td>${when(frame, e.created_at)}</td><td>${e.type}</td><td><a href="${modePath(frame)}/events/${e.event_id}"><code>${e.event_id}</code></a></td><td>${
          (props.deliveries?.[e.event_id] ?? []).map((d) => html`${d.status} `)
        }</td></tr>`
      )
    }</tbody></table></div>`
  )
}

export const auditPage = (frame: SignedFrame, entries: ReadonlyArray<AuditEntry>) =>
  chrome(
    frame,
    "Audit log",
    html`<div class="card"><table><thead><tr><th>When</th><th>Who</th><th>What</th><th>Object</th><th>From</th></tr></thead><tbody>${
      entries.map((e) =>
        html`<tr><td>${when(frame, e.at)}</td><td>${e.email}</td><td>${e.action}</td><td><code>${e.object_id ?? ""}</code>${
          e.livemode === null ? "" : ` (${e.livemode ? "live" : "test"})`
        }</td><td>${e.address}</td></tr>`
      )
    }</tbody></table>${entries.length === 0 ? html`<p class="muted">Nothing yet.</p>` : ""}</div>`
  )

export const forbiddenPage = (frame: SignedFrame, message: string) => chrome(frame, "Not allowed", html`<p class="alert" role="alert">${message}</p>`)
export const notFoundPage = (frame: SignedFrame) => chrome(frame, "Not found", html`<p>There is nothing here.</p>`)
