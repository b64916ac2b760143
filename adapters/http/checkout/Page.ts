/**
 * The hosted checkout page (docs/decisions.md §3, docs/checkout.md): plain HTML that works without JavaScript, in
 * English or Arabic (docs/languages.md). On a wide screen two columns, the order summary beside the payment form; on
 * a phone one. The form's labelled fields are named `name`, `email`, `phone_number`, `card_number`, `exp` (the
 * expiry, `MM / YY`) and `cvc`; the page also takes `exp_month` and `exp_year` from a script instead of `exp`.
 */
import { DateTime } from "effect"
import type { Plan } from "../../../src/application/Checkout.js"
import { type CheckoutSession, periodAmount } from "../../../src/domain/CheckoutSession.js"
import type { FieldErrors } from "../../../src/domain/CheckoutForm.js"
import type { Payment } from "../../../src/domain/Payment.js"
import { trialEnd } from "../../../src/domain/Subscription.js"
import { htmlDocument } from "../html/Document.js"
import { html, type Raw, raw } from "../html/Html.js"
import { date, dateTime, money } from "../i18n/Format.js"
import { fieldError, type Lang } from "../i18n/Messages.js"
import { languageSwitch } from "../i18n/Switch.js"

export type { FieldErrors }

export interface FormValues {
  readonly name?: string | undefined
  readonly email?: string | undefined
  readonly phone_number?: string | undefined
  readonly exp?: string | undefined
  readonly exp_month?: string | undefined
  readonly exp_year?: string | undefined
  readonly business_name?: string | undefined
  readonly business_trn?: string | undefined
}

/**
 * The card form's fields, errors and notices: the checkout's, and the portal's card form. A field in error is marked
 * by more than its colour: a thicker border and its message right below it. Logical properties (`inline`, `start`,
 * `end`) let an Arabic page mirror.
 */
export const formStyles = `
  label { display: block; font-size: .85rem; margin-block-start: .75rem; }
  input { width: 100%; box-sizing: border-box; font: inherit; padding: .5rem; border: 1px solid #8a8a8a; border-radius: 6px; }
  input[aria-invalid="true"] { border: 2px solid #b42318; background: #fffbfa; }
  .row { display: flex; gap: .75rem; } .row > div { flex: 1; min-width: 0; }
  .error { color: #b42318; font-size: .85rem; margin: .25rem 0 0; font-weight: 600; }
  .alert { background: #fef3f2; color: #b42318; border-radius: 6px; padding: .6rem .75rem; margin: 1rem 0; }
  .done { background: #ecfdf3; color: #067647; border-radius: 6px; padding: .6rem .75rem; margin: 1rem 0; }
`

const styles = `
  :root { color-scheme: light; font-family: system-ui, -apple-system, "Segoe UI", Tahoma, sans-serif; }
  body { margin: 0; background: #f5f3ef; color: #1d1b16; }
  .top { max-width: 60rem; margin: 0 auto; padding: .75rem 1rem 0; display: flex; justify-content: space-between;
         align-items: center; gap: .5rem 1rem; flex-wrap: wrap; font-size: .9rem; }
  a { color: #1d4ed8; }
  main { max-width: 60rem; margin: .75rem auto 2rem; padding: 0 1rem; display: grid; gap: 1rem;
         grid-template-columns: minmax(0, 1fr); align-items: start; }
  main.single { max-width: 32rem; }
  @media (min-width: 52rem) { main.columns { grid-template-columns: minmax(0, 1fr) minmax(0, 26rem); gap: 2rem; } }
  .panel { background: #fff; border-radius: 12px; padding: 1.5rem 1.75rem; box-shadow: 0 1px 3px rgba(0,0,0,.12); min-width: 0; }
  @media (max-width: 30rem) { main { padding: 0; margin-block-start: .5rem; } .panel { border-radius: 0; padding: 1.25rem 1rem; } }
  h1 { font-size: 1.15rem; margin: 0 0 .25rem; overflow-wrap: anywhere; }
  h2 { font-size: 1rem; margin: 0 0 .5rem; } .summary h2 { margin-block-start: 1rem; }
  .mode { display: inline-block; font-size: .75rem; background: #fde68a; border-radius: 4px; padding: 0 .4rem; }
  table { width: 100%; border-collapse: collapse; margin: 1rem 0; }
  td { padding: .35rem 0; vertical-align: top; overflow-wrap: anywhere; }
  td.amount { text-align: end; white-space: nowrap; padding-inline-start: 1rem; }
  tr.total td { border-top: 1px solid #ddd; font-weight: 600; padding-top: .6rem; }
  ${formStyles}
  button, .button { display: block; box-sizing: border-box; margin-top: 1.25rem; width: 100%; font: inherit; font-weight: 600;
           padding: .7rem; border: 0; border-radius: 8px; background: #1d4ed8; color: #fff; cursor: pointer;
           text-align: center; text-decoration: none; }
  :focus-visible { outline: 3px solid #1d4ed8; outline-offset: 2px; }
  small, .muted { color: #555; }
  input[readonly] { background: #f3f4f6; color: #333; }
  .trial { background: #eff6ff; border-radius: 6px; padding: .6rem .75rem; margin: 0 0 1rem; font-size: .9rem; }
  details { margin-top: 1rem; } summary { cursor: pointer; font-size: .9rem; }
  tr.subtotal td { border-top: 1px solid #ddd; padding-top: .6rem; }
  tr.discount td { color: #067647; }
  form.code { margin: 0 0 .25rem; padding-bottom: 1rem; border-bottom: 1px solid #eee; }
  .inline { display: flex; flex-wrap: wrap; gap: .5rem; } .inline input { flex: 1 1 8rem; width: auto; min-width: 0; }
  button.secondary { width: auto; margin: 0; padding: .5rem .9rem; background: #fff; color: #1d4ed8; border: 1px solid #1d4ed8; }
  .receipt dl { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: .35rem 1rem; margin: 1rem 0; }
  .receipt dt { color: #555; } .receipt dd { margin: 0; overflow-wrap: anywhere; }
  .links { display: flex; flex-wrap: wrap; gap: .5rem 1rem; margin-top: 1rem; }
`

/**
 * The document says `referrer` `same-origin`: the response's `Referrer-Policy: no-referrer` would make browsers send
 * `Origin: null` with the page's own form, hiding the one thing the submission check needs (Routes.ts). Only
 * requests to this origin (that form) carry a referrer; the redirect to the merchant and anything else still carry
 * none.
 */
const layout = (lang: Lang, title: string, nonce: string, props: { readonly back?: Raw | undefined; readonly columns: boolean }, body: Raw) =>
  htmlDocument({
    title,
    nonce,
    styles,
    locale: lang.locale,
    body: html`<div class="top">${props.back ?? html`<span></span>`}${languageSwitch(lang.locale)}</div>
<main class="${props.columns ? "columns" : "single"}">
${body}
</main>`
  })

/** The merchant's site: the origin of the session's return URL (the return URL itself reports a payment). */
const merchantSite = (session: CheckoutSession | undefined) => {
  if (session?.return_url == null) return undefined
  try {
    return `${new URL(session.return_url).origin}/`
  } catch {
    return undefined
  }
}

const backLink = (lang: Lang, session: CheckoutSession | undefined, businessName: string) => {
  const site = merchantSite(session)
  return site === undefined ? undefined : html`<a href="${site}" data-testid="back">${lang.locale === "ar" ? "→" : "←"} ${lang.t.checkout.backTo(businessName)}</a>`
}

const amount = (lang: Lang, fils: number, session: CheckoutSession) => money(lang.locale, fils, session.currency)

/** A line's name, isolated (`bdi`) so that a Latin name does not reorder the quantity around it on an Arabic page. */
const lineName = (line: CheckoutSession["product_cart"][number]) =>
  html`<bdi>${line.name}</bdi>${line.quantity > 1 ? html` × ${line.quantity}` : ""}`

/**
 * The cart: each line at its price, or with a trial the trial's line (what it charges today, priced as the merchant
 * lists prices); then the VAT of what is charged today, and the total due today.
 */
const cart = (lang: Lang, session: CheckoutSession) => {
  const { t } = lang
  return html`<table aria-label="${t.checkout.orderSummary}">
  <tbody>
  ${
    session.trial_period_days === null
      ? session.product_cart.map((line) =>
        html`<tr><td>${lineName(line)}</td><td class="amount">${amount(lang, line.unit_amount * line.quantity, session)}</td></tr>`
      )
      : session.product_cart.map((line) =>
        html`<tr><td>${lineName(line)}<br><small>${
          t.checkout.trialLine(session.trial_period_days!, session.total_amount === 0)
        }</small></td><td class="amount">${amount(lang, trialLineAmount(session), session)}</td></tr>`
      )
  }
  ${discountRows(lang, session)}
  ${session.trial_period_days !== null && session.total_amount === 0 ? "" : vatRows(lang, session)}
  <tr class="total"><td>${session.kind === "subscription" ? t.checkout.totalToday : t.checkout.total}</td><td class="amount" data-testid="total">${
    amount(lang, session.total_amount, session)
  }</td></tr>
  </tbody>
</table>`
}

const percentFormats = {
  en: new Intl.NumberFormat("en-AE", { maximumFractionDigits: 2 }),
  ar: new Intl.NumberFormat("ar-AE", { maximumFractionDigits: 2 })
}

/**
 * Each discount code the session carries, with what it takes off the prices above (and for how long, on a
 * subscription). With a trial it takes nothing off today: its terms are shown, for the payments after the trial.
 */
const discountRows = (lang: Lang, session: CheckoutSession) => {
  const trial = session.trial_period_days !== null
  return session.discounts.map((d) =>
    html`<tr class="discount"><td>${lang.t.checkout.discount(d.code)}${
      session.kind === "subscription" ? html` <small>(${lang.t.checkout.discountPayments(d.subscription_cycles, trial)})</small>` : ""
    }</td><td class="amount" data-testid="discount">${
      trial
        ? d.type === "percentage"
          // Basis points as a percentage: a division by 100 shown to at most 2 places, exact for any whole bps.
          ? `−${percentFormats[lang.locale].format(d.amount / 100)} %`
          : `−${amount(lang, d.amount, session)}`
        : `−${amount(lang, d.amount_off, session)}`
    }</td></tr>`
  )
}

/**
 * The VAT of a merchant that charges it: added below the lines when its prices exclude VAT (they are net), stated as
 * included when they include it.
 */
const vatRows = (lang: Lang, session: CheckoutSession) => {
  if (session.tax === null || session.tax_lines === null) return ""
  const { t } = lang
  const tax = amount(lang, session.tax, session)
  return session.tax_lines.prices_include_vat
    ? html`<tr class="vat"><td><small>${t.checkout.includesVat}</small></td><td class="amount"><small data-testid="vat">${tax}</small></td></tr>`
    : html`<tr class="subtotal"><td>${t.checkout.subtotal}</td><td class="amount">${
      amount(lang, session.total_amount - session.tax, session)
    }</td></tr>
  <tr class="vat"><td>${t.checkout.vat}</td><td class="amount" data-testid="vat">${tax}</td></tr>`
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
const trialNote = (lang: Lang, session: CheckoutSession, plan: Plan | null, now: DateTime.Utc) => {
  if (session.trial_period_days === null) return ""
  const { t } = lang
  const first = trialEnd(now, session.trial_period_days)!
  return html`<p class="trial" data-testid="trial">${
    session.total_amount === 0 ? t.checkout.nothingToday : t.checkout.chargedToday(amount(lang, session.total_amount, session))
  } ${
    t.checkout.trialThen({
      amount: amount(lang, periodAmount(session), session),
      vatIncluded: session.period_tax_lines !== null,
      schedule: plan === null ? null : t.every(plan.billing_interval, plan.interval_count),
      discounted: session.discounts.length > 0,
      firstCharge: html`<strong data-testid="first-charge">${date(lang.locale, first, lang.zone)}</strong>`,
      days: session.trial_period_days
    })
  }</p>`
}

/** The submit button: a free trial saves the card; everything else pays. */
const submitLabel = (lang: Lang, session: CheckoutSession) =>
  session.trial_period_days !== null && session.total_amount === 0
    ? lang.t.checkout.startTrial
    : lang.t.checkout.pay(amount(lang, session.total_amount, session))

/** A business buying from a VAT-registered merchant may name itself for a full tax invoice. */
const businessFields = (lang: Lang, session: CheckoutSession, values: FormValues, errors: FieldErrors) =>
  session.tax === null ? "" : html`<details${values.business_name || values.business_trn || errors.business_name || errors.business_trn ? raw(" open") : ""}>
<summary>${lang.t.checkout.business}</summary>
${field(lang, "business_name", lang.t.checkout.businessName, raw(`autocomplete="organization"`), values.business_name, errors.business_name)}
${field(lang, "business_trn", lang.t.checkout.businessTrn, raw(`inputmode="numeric" dir="ltr"`), values.business_trn, errors.business_trn)}
</details>`

/** A labelled field; in error it is marked invalid and described by its message, right below it. */
const field = (
  lang: Lang,
  name: string,
  label: string,
  attributes: Raw,
  value: string | undefined,
  error: string | undefined
) =>
  html`<div><label for="${name}">${label}</label>
<input id="${name}" name="${name}" ${attributes} value="${value ?? ""}"${
    error ? html` aria-invalid="true" aria-describedby="${name}-error"` : ""
  }>${error ? html`<p class="error" id="${name}-error">${fieldError(lang.t, error)}</p>` : ""}</div>`

/**
 * The card's fields (the checkout's, and the portal's card form): the number and CVC are never filled back in. The
 * expiry is one field; a script's `exp_month`/`exp_year` refusal is shown on it.
 */
export const cardFields = (lang: Lang, values: FormValues, errors: FieldErrors) => {
  const { t } = lang
  const expiry = values.exp ?? (values.exp_month || values.exp_year ? `${values.exp_month ?? ""} / ${values.exp_year ?? ""}` : "")
  return html`${field(lang, "card_number", t.checkout.cardNumber, raw(`inputmode="numeric" autocomplete="cc-number" dir="ltr" required`), "", errors.card_number)}
<div class="row">
${field(lang, "exp", t.checkout.expiry, raw(`inputmode="numeric" autocomplete="cc-exp" dir="ltr" required`), expiry, errors.exp ?? errors.exp_month ?? errors.exp_year)}
${field(lang, "cvc", t.checkout.cvc, raw(`inputmode="numeric" autocomplete="cc-csc" dir="ltr" required`), "", errors.cvc)}
</div>`
}

/** The page posts to where it was served: `checkout_url`'s path, which carries a host's mount prefix (`/fils/…`). */
export const formAction = (session: CheckoutSession) => {
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
const discountForm = (lang: Lang, session: CheckoutSession, formToken: string, code: CodeField) =>
  html`<form class="code" method="post" action="${formAction(session)}/discount" novalidate>
<input type="hidden" name="form_token" value="${formToken}">
<label for="discount_code">${lang.t.checkout.discountCode}</label>
<div class="inline"><input id="discount_code" name="discount_code" autocomplete="off" autocapitalize="off" spellcheck="false" value="${code.value}"${
    code.error ? html` aria-invalid="true" aria-describedby="discount_code-error"` : ""
  }><button type="submit" class="secondary">${lang.t.checkout.apply}</button>${
    session.discounts.length > 0 ? html`<button type="submit" class="secondary" name="remove" value="1">${lang.t.checkout.remove}</button>` : ""
  }</div>${code.error ? html`<p class="error" id="discount_code-error">${code.error}</p>` : ""}
</form>`

/**
 * Who pays: the name, e-mail and phone as typed; a session created for a customer shows theirs, read-only (the
 * payment is theirs, `CheckoutForm.validate`), and a detail it does not know is not asked.
 */
const contactFields = (lang: Lang, session: CheckoutSession, values: FormValues, errors: FieldErrors) => {
  const { t } = lang
  const payer = session.customer
  const fixed = payer === null ? "" : " readonly"
  const shown: FormValues = payer === null
    ? values
    : { name: payer.name ?? undefined, email: payer.email, phone_number: payer.phone_number ?? undefined }
  return html`${
    payer?.name === null ? "" : field(lang, "name", t.checkout.name, raw(`autocomplete="cc-name" required${fixed}`), shown.name, errors.name)
  }
${field(lang, "email", t.checkout.email, raw(`type="email" autocomplete="email" dir="ltr" required${fixed}`), shown.email, errors.email)}
${
    payer?.phone_number === null
      ? ""
      : field(lang, "phone_number", t.checkout.phone, raw(`type="tel" autocomplete="tel" dir="ltr"${fixed}`), shown.phone_number, errors.phone_number)
  }`
}

const heading = (lang: Lang, businessName: string, session: CheckoutSession | undefined) =>
  html`<h1>${businessName}</h1>${session === undefined || session.livemode ? "" : html`<span class="mode">${lang.t.testMode}</span>`}`

export const paymentPage = (props: {
  readonly lang: Lang
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
  const { lang, session, values, errors } = props
  const { t } = lang
  return layout(
    lang,
    t.checkout.payTitle(props.businessName),
    props.nonce,
    { back: backLink(lang, session, props.businessName), columns: true },
    html`<section class="panel summary" aria-labelledby="summary-heading">
${heading(lang, props.businessName, session)}
<h2 id="summary-heading" class="muted">${t.checkout.orderSummary}</h2>
${cart(lang, session)}
${trialNote(lang, session, props.plan, props.now)}
</section>
<section class="panel" aria-labelledby="payment-heading">
<h2 id="payment-heading">${t.checkout.paymentDetails}</h2>
${discountForm(lang, session, props.formToken, props.code ?? { value: session.discounts[0]?.code ?? "" })}
${props.alert ? html`<div class="alert" role="alert">${props.alert}</div>` : ""}
<form method="post" action="${formAction(session)}" novalidate>
<input type="hidden" name="form_token" value="${props.formToken}">
${contactFields(lang, session, values, errors)}
${cardFields(lang, values, errors)}
${businessFields(lang, session, values, errors)}
<button type="submit">${submitLabel(lang, session)}</button>
</form>
<p><small>${t.checkout.secure}</small></p>
</section>`
  )
}

export const messagePage = (props: {
  readonly lang: Lang
  readonly title: string
  readonly businessName: string
  readonly nonce: string
  readonly message: string
  readonly tone: "done" | "alert"
  readonly session?: CheckoutSession | undefined
  /** Whether the session's lines are shown (the default): not to anyone but the payer of a completed one. */
  readonly cart?: boolean | undefined
  /** A link after the message (a plain link: it works without JavaScript). */
  readonly link?: { readonly href: string; readonly label: string } | undefined
}) =>
  layout(
    props.lang,
    props.title,
    props.nonce,
    { back: backLink(props.lang, props.session, props.businessName), columns: false },
    html`<section class="panel">
${heading(props.lang, props.businessName, props.session)}
${props.session && props.cart !== false ? cart(props.lang, props.session) : ""}
<div class="${props.tone}" role="status"><strong>${props.title}.</strong> ${props.message}</div>
${props.link ? html`<p><a href="${props.link.href}">${props.link.label}</a></p>` : ""}
</section>`
  )

/**
 * The paid page: a receipt (the amount, what was bought, the payment's id and time in the account's zone), the way
 * back to the merchant (its return URL, reporting the payment), and the tax invoice once it is issued.
 */
export const paidPage = (props: {
  readonly lang: Lang
  readonly title: string
  readonly message: string
  readonly businessName: string
  readonly nonce: string
  readonly session: CheckoutSession
  readonly payment: Payment | null
  readonly paidAt: DateTime.Utc
  readonly returnUrl: string | null
  readonly invoiceHref: string | null
}) => {
  const { lang, session, payment } = props
  const { t } = lang
  return layout(
    lang,
    props.title,
    props.nonce,
    { columns: false },
    html`<section class="panel receipt">
${heading(lang, props.businessName, session)}
<div class="done" role="status"><strong>${props.title}.</strong> ${props.message}</div>
<h2>${t.checkout.receipt}</h2>
<dl>
${
      payment === null
        ? ""
        : html`<dt>${t.checkout.amountPaid}</dt><dd data-testid="amount-paid">${amount(lang, payment.total_amount, session)}</dd>
<dt>${t.checkout.paymentId}</dt><dd><bdi data-testid="payment-id">${payment.payment_id}</bdi></dd>`
    }
${session.subscription_id === null ? "" : html`<dt>${t.checkout.subscriptionId}</dt><dd><bdi>${session.subscription_id}</bdi></dd>`}
<dt>${t.checkout.date}</dt><dd data-testid="paid-at">${dateTime(lang.locale, props.paidAt, lang.zone)}</dd>
</dl>
<h2>${t.checkout.items}</h2>
${cart(lang, session)}
${props.returnUrl === null ? "" : html`<a class="button" href="${props.returnUrl}" data-testid="return">${t.checkout.returnTo(props.businessName)}</a>`}
${props.invoiceHref === null ? "" : html`<p class="links"><a href="${props.invoiceHref}" data-testid="tax-invoice">${t.checkout.taxInvoice}</a></p>`}
</section>`
  )
}
