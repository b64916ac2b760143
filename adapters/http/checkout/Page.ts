/**
 * The hosted checkout page (docs/decisions.md §3): plain HTML that works without JavaScript, with labelled fields named
 * exactly `name`, `email`, `phone_number`, `card_number`, `exp_month`, `exp_year` and `cvc`.
 */
import { DateTime } from "effect"
import type { Plan } from "../../../src/application/Checkout.js"
import { formatAmount } from "../../../src/domain/Money.js"
import { type CheckoutSession, periodAmount } from "../../../src/domain/CheckoutSession.js"
import type { FieldErrors } from "../../../src/domain/CheckoutForm.js"
import { everyInterval } from "../../../src/domain/Product.js"
import { trialEnd } from "../../../src/domain/Subscription.js"
import { htmlDocument } from "../html/Document.js"
import { html, type Raw, raw } from "../html/Html.js"

export type { FieldErrors }

/** A date as the pages print it: `19 Jun 2026` (UTC). */
export const day = (at: DateTime.Utc) =>
  DateTime.format(at, { locale: "en-GB", timeZone: "UTC", day: "numeric", month: "short", year: "numeric" })

export interface FormValues {
  readonly name?: string | undefined
  readonly email?: string | undefined
  readonly phone_number?: string | undefined
  readonly exp_month?: string | undefined
  readonly exp_year?: string | undefined
  readonly business_name?: string | undefined
  readonly business_trn?: string | undefined
}


/** The card form's fields, errors and notices: the checkout's, and the portal's card form. */
export const formStyles = `
  label { display: block; font-size: .85rem; margin-top: .75rem; }
  input { width: 100%; box-sizing: border-box; font: inherit; padding: .5rem; border: 1px solid #bbb; border-radius: 6px; }
  .row { display: flex; gap: .75rem; } .row > div { flex: 1; }
  @media (max-width: 30rem) { .row label { min-height: 2.5em; } }
  .error { color: #b42318; font-size: .85rem; margin: .25rem 0 0; }
  .alert { background: #fef3f2; color: #b42318; border-radius: 6px; padding: .6rem .75rem; margin: 1rem 0; }
  .done { background: #ecfdf3; color: #067647; border-radius: 6px; padding: .6rem .75rem; margin: 1rem 0; }
`

const styles = `
  :root { color-scheme: light; font-family: system-ui, -apple-system, "Segoe UI", sans-serif; }
  body { margin: 0; background: #f5f3ef; color: #1d1b16; }
  main { max-width: 28rem; margin: 2rem auto; background: #fff; border-radius: 12px; padding: 1.5rem 1.75rem;
         box-shadow: 0 1px 3px rgba(0,0,0,.12); }
  h1 { font-size: 1.15rem; margin: 0 0 .25rem; }
  .mode { display: inline-block; font-size: .75rem; background: #fde68a; border-radius: 4px; padding: 0 .4rem; }
  table { width: 100%; border-collapse: collapse; margin: 1rem 0; }
  td { padding: .35rem 0; vertical-align: top; } td.amount { text-align: right; white-space: nowrap; }
  tr.total td { border-top: 1px solid #ddd; font-weight: 600; padding-top: .6rem; }
  ${formStyles}
  button { margin-top: 1.25rem; width: 100%; font: inherit; font-weight: 600; padding: .7rem; border: 0;
           border-radius: 8px; background: #1d4ed8; color: #fff; cursor: pointer; }
  small { color: #555; }
  .trial { background: #eff6ff; border-radius: 6px; padding: .6rem .75rem; margin: 0 0 1rem; font-size: .9rem; }
  details { margin-top: 1rem; } summary { cursor: pointer; font-size: .9rem; }
  tr.subtotal td { border-top: 1px solid #ddd; padding-top: .6rem; }
  tr.discount td { color: #067647; }
  form.code { margin: 0 0 .25rem; padding-bottom: 1rem; border-bottom: 1px solid #eee; }
  .inline { display: flex; flex-wrap: wrap; gap: .5rem; } .inline input { flex: 1 1 8rem; width: auto; min-width: 0; }
  button.secondary { width: auto; margin: 0; padding: .5rem .9rem; background: #fff; color: #1d4ed8; border: 1px solid #1d4ed8; }
`

/**
 * The document says `referrer` `same-origin`: the response's `Referrer-Policy: no-referrer` would make browsers send
 * `Origin: null` with the page's own form, hiding the one thing the submission check needs (Routes.ts). Only
 * requests to this origin (that form) carry a referrer; the redirect to the merchant and anything else still carry
 * none.
 */
const layout = (title: string, nonce: string, body: Raw) =>
  htmlDocument({ title, nonce, styles, body: html`<main>
${body}
</main>` })

/**
 * The cart: each line at its price, or with a trial the trial's line (what it charges today, priced as the merchant
 * lists prices); then the VAT of what is charged today, and the total due today.
 */
const cart = (session: CheckoutSession) =>
  html`<table aria-label="Order summary">
  <tbody>
  ${
    session.trial_period_days === null
      ? session.product_cart.map((line) =>
        html`<tr><td>${line.name}${line.quantity > 1 ? html` × ${line.quantity}` : ""}</td><td class="amount">${
          formatAmount(line.unit_amount * line.quantity, session.currency)
        }</td></tr>`
      )
      : session.product_cart.map((line) =>
        html`<tr><td>${line.name}${line.quantity > 1 ? html` × ${line.quantity}` : ""}<br><small>${
          session.trial_period_days
        }-day ${session.total_amount === 0 ? "free " : ""}trial</small></td><td class="amount">${
          formatAmount(trialLineAmount(session), session.currency)
        }</td></tr>`
      )
  }
  ${discountRows(session)}
  ${session.trial_period_days !== null && session.total_amount === 0 ? "" : vatRows(session)}
  <tr class="total"><td>${session.kind === "subscription" ? "Total due today" : "Total"}</td><td class="amount" data-testid="total">${
    formatAmount(session.total_amount, session.currency)
  }</td></tr>
  </tbody>
</table>`

/**
 * Each discount code the session carries, with what it takes off the prices above (and for how long, on a
 * subscription). With a trial it takes nothing off today: its terms are shown, for the payments after the trial.
 */
const discountRows = (session: CheckoutSession) => {
  const trial = session.trial_period_days !== null
  const payments = (cycles: number | null) =>
    (cycles === null ? "every payment" : cycles === 1 ? trial ? "the first payment" : "this payment" : `the first ${cycles} payments`) +
    (trial ? " after the trial" : "")
  return session.discounts.map((d) =>
    html`<tr class="discount"><td>Discount ${d.code}${
      session.kind === "subscription" ? html` <small>(${payments(d.subscription_cycles)})</small>` : ""
    }</td><td class="amount" data-testid="discount">${
      trial
        ? d.type === "percentage"
          ? `−${(d.amount / 100).toLocaleString("en", { maximumFractionDigits: 2 })} %`
          : `−${formatAmount(d.amount, session.currency)}`
        : `−${formatAmount(d.amount_off, session.currency)}`
    }</td></tr>`
  )
}

/**
 * The VAT of a merchant that charges it: added below the lines when its prices exclude VAT (they are net), stated as
 * included when they include it.
 */
const vatRows = (session: CheckoutSession) => {
  if (session.tax === null || session.tax_lines === null) return ""
  const tax = formatAmount(session.tax, session.currency)
  return session.tax_lines.prices_include_vat
    ? html`<tr class="vat"><td><small>Includes VAT</small></td><td class="amount"><small data-testid="vat">${tax}</small></td></tr>`
    : html`<tr class="subtotal"><td>Subtotal</td><td class="amount">${
      formatAmount(session.total_amount - session.tax, session.currency)
    }</td></tr>
  <tr class="vat"><td>VAT</td><td class="amount" data-testid="vat">${tax}</td></tr>`
}

/** A trial's line as the merchant lists prices: what it charges today, VAT included or not as the lines are. */
const trialLineAmount = (session: CheckoutSession) =>
  session.tax_lines === null
    ? session.total_amount
    : session.tax_lines.lines.reduce((sum, l) => sum + (session.tax_lines!.prices_include_vat ? l.gross : l.net), 0)

/**
 * What a trial leads to: the price of each period after it and when it is first charged, were the customer to start
 * now (the subscription counts from the moment the checkout completes).
 */
const trialNote = (session: CheckoutSession, plan: Plan | null, now: DateTime.Utc) => {
  if (session.trial_period_days === null) return ""
  const first = trialEnd(now, session.trial_period_days)!
  const vat = session.period_tax_lines === null ? "" : " (VAT included)"
  const schedule = plan === null ? "" : ` ${everyInterval(plan.billing_interval, plan.interval_count)}`
  return html`<p class="trial" data-testid="trial">${
    session.total_amount === 0 ? "Nothing is charged today." : `${formatAmount(session.total_amount, session.currency)} is charged today.`
  } Then ${formatAmount(periodAmount(session), session.currency)}${vat}${schedule}${
    session.discounts.length > 0 ? ", less the discount below" : ""
  }, first charged on <strong data-testid="first-charge">${
    day(first)
  }</strong> (when the ${session.trial_period_days}-day trial ends). Cancel before then and nothing more is charged.</p>`
}

/** The submit button: a free trial saves the card; everything else pays. */
const submitLabel = (session: CheckoutSession) =>
  session.trial_period_days !== null && session.total_amount === 0
    ? "Start free trial"
    : `Pay ${formatAmount(session.total_amount, session.currency)}`

/** A business buying from a VAT-registered merchant may name itself for a full tax invoice. */
const businessFields = (session: CheckoutSession, values: FormValues, errors: FieldErrors) =>
  session.tax === null ? "" : html`<details${values.business_name || values.business_trn || errors.business_name || errors.business_trn ? raw(" open") : ""}>
<summary>Buying for a business? Get a full tax invoice</summary>
${field("business_name", "Business name (optional)", raw(`autocomplete="organization"`), values.business_name, errors)}
${field("business_trn", "TRN (optional, 15 digits)", raw(`inputmode="numeric"`), values.business_trn, errors)}
</details>`

const field = (
  name: keyof FieldErrors,
  label: string,
  attributes: Raw,
  value: string | undefined,
  errors: FieldErrors
) => {
  const error = errors[name]
  return html`<div><label for="${name}">${label}</label>
<input id="${name}" name="${name}" ${attributes} value="${value ?? ""}"${
    error ? html` aria-invalid="true" aria-describedby="${name}-error"` : ""
  }>${error ? html`<p class="error" id="${name}-error">${error}</p>` : ""}</div>`
}

/** The card's fields (the checkout's, and the portal's card form): the number and CVC are never filled back in. */
export const cardFields = (values: FormValues, errors: FieldErrors) =>
  html`${field("card_number", "Card number", raw(`inputmode="numeric" autocomplete="cc-number" required`), "", errors)}
<div class="row">
${field("exp_month", "Expiry month (MM)", raw(`inputmode="numeric" autocomplete="cc-exp-month" required`), values.exp_month, errors)}
${field("exp_year", "Expiry year (YYYY)", raw(`inputmode="numeric" autocomplete="cc-exp-year" required`), values.exp_year, errors)}
${field("cvc", "CVC", raw(`inputmode="numeric" autocomplete="cc-csc" required`), "", errors)}
</div>`

/** The page posts to where it was served: `checkout_url`'s path, which carries a host's mount prefix (`/fils/…`). */
const formAction = (session: CheckoutSession) => {
  try {
    return new URL(session.checkout_url).pathname
  } catch {
    return `/checkout/${session.session_id}`
  }
}

/** The discount code field as shown: what the customer typed (never altered), and why it was refused. */
export interface CodeField {
  readonly value: string
  readonly error?: string | undefined
}

/**
 * The discount code's own form: posting it prices the page again, or says why not next to the field (it works without
 * JavaScript). With a code applied, Remove takes it off.
 */
const discountForm = (session: CheckoutSession, formToken: string, code: CodeField) =>
  html`<form class="code" method="post" action="${formAction(session)}/discount" novalidate>
<input type="hidden" name="form_token" value="${formToken}">
<label for="discount_code">Discount code</label>
<div class="inline"><input id="discount_code" name="discount_code" autocomplete="off" autocapitalize="off" spellcheck="false" value="${code.value}"${
    code.error ? html` aria-invalid="true" aria-describedby="discount_code-error"` : ""
  }><button type="submit" class="secondary">Apply</button>${
    session.discounts.length > 0 ? html`<button type="submit" class="secondary" name="remove" value="1">Remove</button>` : ""
  }</div>${code.error ? html`<p class="error" id="discount_code-error">${code.error}</p>` : ""}
</form>`

const heading = (businessName: string, session: CheckoutSession) =>
  html`<h1>${businessName}</h1>${session.livemode ? "" : html`<span class="mode">Test mode</span>`}`

export const paymentPage = (props: {
  readonly session: CheckoutSession
  /** A subscription's schedule (its product's), when it has one. */
  readonly plan: Plan | null
  readonly now: DateTime.Utc
  readonly businessName: string
  readonly nonce: string
  readonly formToken: string
  readonly values: FormValues
  readonly errors: FieldErrors
  readonly alert?: string | undefined
  /** The discount code field as typed (else the session's code), and its refusal. */
  readonly code?: CodeField | undefined
}) => {
  const { session, values, errors } = props
  return layout(
    `Pay ${props.businessName}`,
    props.nonce,
    html`${heading(props.businessName, session)}
${cart(session)}
${trialNote(session, props.plan, props.now)}
${discountForm(session, props.formToken, props.code ?? { value: session.discounts[0]?.code ?? "" })}
${props.alert ? html`<div class="alert" role="alert">${props.alert}</div>` : ""}
<form method="post" action="${formAction(session)}" novalidate>
<input type="hidden" name="form_token" value="${props.formToken}">
${field("name", "Name on card", raw(`autocomplete="cc-name" required`), values.name, errors)}
${field("email", "E-mail", raw(`type="email" autocomplete="email" required`), values.email, errors)}
${field("phone_number", "Phone (optional, e.g. +971501234567)", raw(`type="tel" autocomplete="tel"`), values.phone_number, errors)}
${cardFields(values, errors)}
${businessFields(session, values, errors)}
<button type="submit">${submitLabel(session)}</button>
</form>
<p><small>Payments are processed securely. Your card number is never stored.</small></p>`
  )
}

export const messagePage = (props: {
  readonly title: string
  readonly businessName: string
  readonly nonce: string
  readonly message: string
  readonly tone: "done" | "alert"
  readonly session?: CheckoutSession | undefined
  /** A link after the message (a plain link: it works without JavaScript). */
  readonly link?: { readonly href: string; readonly label: string } | undefined
}) =>
  layout(
    props.title,
    props.nonce,
    html`<h1>${props.businessName}</h1>
${props.session ? cart(props.session) : ""}
<div class="${props.tone}" role="status"><strong>${props.title}.</strong> ${props.message}</div>
${props.link ? html`<p><a href="${props.link.href}">${props.link.label}</a></p>` : ""}`
  )
