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
import { hasReceipt } from "../../../src/domain/Receipt.js"
import { htmlDocument } from "../html/Document.js"
import { type Flash, type FormFieldRepeated, type FormNotUtf8, onceField, onceToken, textareaContent } from "../html/Forms.js"
import { type Payment, PaymentStatus } from "../../../src/domain/Payment.js"
import * as Refund from "../../../src/domain/Refund.js"
import { escape, html, type Raw, raw } from "../html/Html.js"
import { type FieldErrors, selectField, textField } from "./Fields.js"
import * as Status from "./Status.js"
import { intlTag, type Locale } from "../i18n/Locale.js"
import * as Format from "../i18n/Format.js"
import { type DashboardCatalogue, dashboardCatalogues } from "../i18n/dashboard/Catalogues.js"

const styles = `
  :root { color-scheme: light; font-family: system-ui, -apple-system, "Segoe UI", sans-serif; --ink: #1b1f24; --muted: #4f5965;
          --line: #e3e6ea; --accent: #1d4ed8; --bad: #b42318; }
  body { margin: 0; background: #f6f7f9; color: var(--ink); line-height: 1.45; }
  a { color: var(--accent); }
  /* Keyboard users see where they are: a thick ring on whatever has focus, never on a mouse click. */
  :focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
  .skip { position: absolute; inset-inline-start: .75rem; top: -4rem; z-index: 10; background: #fff; padding: .5rem .9rem; border-radius: 6px;
          box-shadow: 0 1px 4px rgba(0,0,0,.25); }
  .skip:focus { top: .75rem; }
  header { display: flex; align-items: center; gap: .4rem 1rem; flex-wrap: wrap; padding: .6rem 1.25rem; background: #fff; }
  header strong { margin-inline-end: auto; font-size: 1.05rem; }
  /* A long business name or e-mail wraps inside the header rather than widen the page (a 390 px phone). */
  header strong, header .who { min-width: 0; overflow-wrap: anywhere; }
  nav { padding: 0 1.25rem; display: flex; flex-wrap: wrap; gap: 0 .2rem; background: #fff; border-bottom: 1px solid var(--line); }
  nav a { display: inline-block; padding: .5rem .45rem; color: #374151; text-decoration: none; border-bottom: 3px solid transparent; }
  nav a:hover { color: var(--accent); }
  nav a[aria-current="page"] { color: var(--accent); border-bottom-color: var(--accent); font-weight: 600; }
  .mode { font-size: .8rem; border-radius: 4px; padding: .1rem .45rem; background: #fde68a; }
  .mode.live { background: #bbf7d0; }
  main { max-width: 64rem; margin: 1.25rem auto; padding: 0 1.25rem; }
  main:focus { outline: none; }
  h1 { font-size: 1.5rem; margin: .25rem 0 1rem; }
  h2 { font-size: 1.1rem; margin: .2rem 0 .75rem; }
  .card { background: #fff; border-radius: 10px; padding: 1rem 1.25rem; box-shadow: 0 1px 2px rgba(0,0,0,.08); margin-bottom: 1rem; }
  td code { overflow-wrap: anywhere; }
  .stats { display: grid; grid-template-columns: repeat(auto-fill, minmax(9.5rem, 1fr)); gap: .75rem; }
  .stat b { display: block; font-size: 1.2rem; margin-top: .2rem; }
  table { width: 100%; border-collapse: collapse; font-size: .92rem; }
  th, td { text-align: start; padding: .5rem .45rem; border-bottom: 1px solid #eef0f2; vertical-align: top; }
  thead th { font-size: .8rem; color: var(--muted); font-weight: 600; }
  td.num, th.num { text-align: end; white-space: nowrap; }
  code { font-size: .85rem; user-select: all; }
  label { display: block; font-size: .85rem; margin: .6rem 0 .2rem; }
  input, select { font: inherit; padding: .45rem; border: 1px solid #8a939e; border-radius: 6px; max-width: 100%; box-sizing: border-box; }
  button { font: inherit; font-weight: 600; padding: .5rem .9rem; border: 0; border-radius: 7px; background: var(--accent);
           color: #fff; cursor: pointer; min-height: 24px; }
  button.link { background: none; color: var(--accent); padding: .15rem 0; font-weight: 400; text-decoration: underline; }
  .alert { background: #fef3f2; color: var(--bad); border-radius: 6px; padding: .6rem .75rem; margin: .75rem 0; }
  .done { background: #ecfdf3; color: #067647; border-radius: 6px; padding: .6rem .75rem; margin: .75rem 0; }
  .narrow { max-width: 24rem; margin: 3rem auto; }
  .narrow .switch { text-align: end; margin: 0 0 .5rem; }
  small, .muted { color: var(--muted); }
  svg { width: 100%; height: auto; }
  pre { white-space: pre-wrap; word-break: break-all; font-size: .85rem; }
  textarea { font: inherit; padding: .45rem; border: 1px solid #8a939e; border-radius: 6px; width: 100%; box-sizing: border-box; }
  td.text { white-space: pre-wrap; overflow-wrap: anywhere; }
  .field-error { color: var(--bad); font-size: .85rem; margin: .25rem 0 0; font-weight: 600; }
  .field-error::before { content: "⚠ "; }
  [aria-invalid="true"] { border: 2px solid var(--bad); background: #fffbfa; }
  label.check { display: flex; gap: .4rem; align-items: center; }
  fieldset { border: 1px solid var(--line); border-radius: 8px; margin: .8rem 0; min-width: 0; }
  form.inline { display: inline; margin-inline-end: .6rem; }
  form[method="get"] a { display: inline-block; padding: .2rem 0; }
  tr.attempts details { position: sticky; inset-inline-start: 0; max-width: calc(100vw - 5.5rem); }
  /* Destructive actions: a red button on their confirmation page, a red link to it. */
  button.danger, a.button.danger { background: #b42318; color: #fff; }
  a.button { display: inline-block; font-weight: 600; padding: .5rem .9rem; border-radius: 7px; text-decoration: none; }
  a.danger-link { color: #b42318; display: inline-block; padding: .2rem 0; }
  .confirm ul { padding-inline-start: 1.2rem; line-height: 1.5; }
  .confirm .actions { display: flex; flex-wrap: wrap; gap: .6rem 1rem; align-items: center; }
  /* A one-time link or key shown to copy wraps rather than widen a phone's page. */
  .done code, .confirm code { overflow-wrap: anywhere; }
  /* Home: each sum with its change on the previous period; the chart's text; the first steps. */
  .stat .change { display: block; font-size: .8rem; margin-top: .15rem; color: var(--muted); }
  .change.up { color: #166534; }
  .change.down { color: #991b1b; }
  .today { grid-template-columns: repeat(auto-fill, minmax(14rem, 1fr)); }
  nav.periods { background: none; border: 0; padding: 0; margin: 0 0 .5rem; gap: .4rem; }
  nav.periods a { border: 1px solid var(--line); border-radius: 999px; padding: .25rem .8rem; background: #fff; }
  nav.periods a[aria-current="page"] { background: var(--accent); color: #fff; border-color: var(--accent); }
  /* The chart reads left to right (its days, its axis) in either language. */
  .qr svg { width: 11rem; display: block; margin: .25rem 0 .5rem; }
  svg.chart { display: block; max-width: 42rem; direction: ltr; }
  svg.chart text { font-size: 13px; fill: var(--muted); }
  ol.steps { list-style: none; padding: 0; margin: 0; display: grid; gap: .6rem; }
  ol.steps li { display: flex; gap: .6rem; align-items: flex-start; }
  .tick { flex: none; width: 1.4rem; height: 1.4rem; border-radius: 50%; border: 2px solid #8a939e; text-align: center; line-height: 1.3rem;
          font-weight: 700; color: #fff; }
  .done-step .tick { background: #166534; border-color: #166534; }
  ul.attention { padding-inline-start: 0; list-style: none; margin: 0; display: grid; gap: .5rem; }
  /* Statuses (Status.ts): words on a tint, each pair above 4.5:1. */
  .badge { display: inline-block; font-size: .8rem; font-weight: 600; padding: .05rem .5rem; border-radius: 999px; white-space: nowrap;
           background: #eef0f2; color: #374151; }
  .badge.good { background: #dcfce7; color: #166534; }
  .badge.info { background: #dbeafe; color: #1e40af; }
  .badge.warn { background: #fef3c7; color: #92400e; }
  .badge.bad { background: #fee2e2; color: #991b1b; }
  /* Filters on one line (wrapping on a phone), each label above its control. */
  form.filters { display: flex; flex-wrap: wrap; align-items: flex-end; gap: .5rem .75rem; margin: 0 0 1rem; }
  form.filters > div { display: flex; flex-direction: column; min-width: 0; }
  form.filters label { margin: 0 0 .2rem; }
  form.filters .grow { flex: 1 1 14rem; }
  /* Lists: the first cell's link covers its row, so the whole row opens the object (no script). */
  table.list tbody tr { position: relative; }
  table.list tbody tr:hover { background: #f5f8ff; }
  a.row { font-weight: 600; color: var(--ink); text-decoration: none; }
  a.row::after { content: ""; position: absolute; inset: 0; }
  a.row:focus-visible { outline: none; }
  table.list tbody tr:focus-within { outline: 3px solid var(--accent); outline-offset: -3px; }
  .sub { display: block; color: var(--muted); font-size: .8rem; font-weight: 400; }
  /*
   * On a phone every table is stacked: a list's rows become cards, each cell on its own line named by its column
   * (data-label); a detail table's names sit above their values.
   */
  @media (max-width: 40rem) {
    main { padding: 0 .75rem; }
    .card { padding: .85rem; }
    nav { padding: 0 .75rem; }
    nav a { padding: .35rem .4rem; }
    main table, main thead, main tbody, main tfoot, main tr, main th, main td { display: block; width: auto; }
    main thead { display: none; }
    main th, main td { border: 0; padding: .1rem 0; text-align: start; overflow-wrap: anywhere; }
    main th { font-size: .8rem; color: var(--muted); }
    main td.num, main th.num { text-align: start; }
    main tr { padding: .45rem 0; border-bottom: 1px solid #eef0f2; }
    main table:has(> thead) > tbody > tr { border: 1px solid var(--line); border-radius: 8px; padding: .4rem .7rem; margin-bottom: .6rem; }
    main td[data-label] { text-align: end; }
    main td[data-label]::before { content: attr(data-label); float: inline-start; margin-inline-end: 1rem; color: var(--muted); text-align: start; }
  }
`

export interface Frame {
  readonly nonce: string
  /** Where the dashboard is mounted: `<public path>/dashboard`. */
  readonly base: string
  /** The page's language, and its catalogue: every word on the page comes from `t`. */
  readonly locale: Locale
  readonly t: DashboardCatalogue
}

/** The frame of a page in `locale`. */
export const frameIn = (nonce: string, base: string, locale: Locale): Frame => ({ nonce, base, locale, t: dashboardCatalogues[locale] })

export interface SignedFrame extends Frame {
  readonly user: DashboardUser
  readonly businessName: string
  readonly livemode: boolean
  readonly csrf: string
  /** The account's time zone (IANA): every time on the page is shown in it (`when`). */
  readonly timeZone: string
  /** A request shown under the title, before the page (the home page's prompt for a missing setting). */
  readonly prompt?: Raw | undefined
  /** What the change that redirected here says (POST-redirect-GET). */
  readonly flash?: Flash | undefined
  /** The page's own path (no query): its section is marked current in the navigation. */
  readonly path?: string | undefined
  /** The page's query (its filters, its page of a list), which the language switch keeps. */
  readonly query?: URLSearchParams | undefined
}

const document = (frame: Frame, title: string, body: Raw) =>
  htmlDocument({ title: `${title} · ${frame.t.frame.titleSuffix}`, nonce: frame.nonce, styles, body, locale: frame.locale })

/** An amount as the page's language writes it: `AED 1,234.50`, `‏1,234.50 د.إ.‏`. */
export const amount = (frame: { readonly locale: Locale }, fils: number, currency = "AED") =>
  frame.locale === "en" && currency === "AED" ? formatAmount(fils, "AED") : Format.money(frame.locale, fils, currency)

const engineKeys = new Map(
  Object.entries(dashboardCatalogues.en.frame.engine).map(([key, text]) => [text, key as keyof DashboardCatalogue["frame"]["engine"]] as const)
)

/**
 * The engine's refusal in the page's language: one the catalogue words by key (found by its English words), else the
 * engine's own English words, introduced in the page's language (docs/languages.md).
 */
export const refused = (frame: { readonly t: DashboardCatalogue }, message: string): string => {
  const key = engineKeys.get(message)
  return key === undefined ? frame.t.frame.refused(message) : frame.t.frame.engine[key]
}

/** A list's filter given `value`, none of its choices (a link typed or edited by hand), refused above the list. */
export const notAnOption = (frame: { readonly t: DashboardCatalogue }, value: string): Raw =>
  html`<p class="alert" role="alert">${frame.t.frame.common.notAnOption(value)}</p>`

/** A posted form refused before it was read (`readForm`), in the page's language. */
export const formRefused = (frame: { readonly t: DashboardCatalogue }, error: FormNotUtf8 | FormFieldRepeated): string =>
  error._tag === "FormNotUtf8" ? frame.t.frame.formRefused.notUtf8 : frame.t.frame.formRefused.repeated(error.field)

/** A form's refusals, each under its field, in the page's language (the engine words what is wrong in English). */
export const fieldErrorsIn = (frame: { readonly locale: Locale; readonly t: DashboardCatalogue }, errors: FieldErrors): FieldErrors =>
  frame.locale === "en" ? errors : Object.fromEntries(Object.entries(errors).map(([name, text]) => {
    const key = engineKeys.get(text)
    return [name, key === undefined ? frame.t.frame.fieldRefused(text) : frame.t.frame.engine[key]]
  }))

/** A count as the page's language writes it. */
export const count = (frame: { readonly locale: Locale }, n: number) => Format.count(frame.locale, n)

/** The page's language's words for a `status`, with its colour (see Status.ts). */
export const badge = (frame: { readonly t: DashboardCatalogue }, status: string): Raw => Status.badge(frame.t, status)
export const statusWords = (frame: { readonly t: DashboardCatalogue }, status: string) => Status.statusWords(frame.t, status)
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
 * zone without one by its offset, `GMT+5:30`). Arabic pages write it as `Intl` does for `ar-AE`.
 */
export const when = (frame: { readonly timeZone: string; readonly locale: Locale }, at: DateTime.Utc) => {
  if (frame.locale !== "en") return Format.dateTime(frame.locale, at, frame.timeZone)
  const parts: Record<string, string> = {}
  for (const part of timeFormat(frame.timeZone).formatToParts(DateTime.toDate(at))) parts[part.type] = part.value
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute} ${parts.timeZoneName}`
}
export const modePath = (frame: SignedFrame) => `${frame.base}/${frame.livemode ? "live" : "test"}`

/**
 * A discount code as a checkout or payment applied it: what it took off, or, on a trial's checkout (which a code takes
 * nothing off), that it was redeemed for the payments after the trial.
 */
export const appliedDiscountText = (frame: Frame, d: { readonly code: string; readonly amount_off: number }): string =>
  frame.t.frame.common.appliedDiscount(d.code, d.amount_off === 0 ? null : amount(frame, d.amount_off))

/** A form posting to `action` with the session's CSRF token. */
export const form = (frame: SignedFrame, action: string, body: Raw) =>
  html`<form method="post" action="${action}"><input type="hidden" name="csrf_token" value="${frame.csrf}">${body}</form>`

/** The field of a form that acts once naming the page it acts from: where its out-of-date answer leads back to. */
export const backField = "back"

/**
 * A form that acts once (money moves, or an object is made): also a one-time token, so that posting it twice acts
 * once. A fresh one, unless `once` is given (not empty): the token of a post that made nothing yet (refused), or whose
 * outcome is not known, so that posting the form again carries that same action on. `back`: the page it acts from
 * (a payment's, the products'), which an out-of-date post of it leads back to (`Forms.isOutOfDate`).
 */
export const onceForm = (frame: SignedFrame, action: string, body: Raw, options: { readonly back: string; readonly once?: string | undefined }) =>
  form(
    frame,
    action,
    html`<input type="hidden" name="${onceField}" value="${options.once || onceToken()}"><input type="hidden" name="${backField}" value="${options.back}">${body}`
  )

/** A multi-line text field, its value shown exactly (see `textareaContent`). */
export const textarea = (props: { readonly id: string; readonly name: string; readonly value: string; readonly rows?: number }) =>
  html`<textarea id="${props.id}" name="${props.name}" rows="${props.rows ?? 4}">${textareaContent(props.value)}</textarea>`

/** A text field's length limit, read from the API's own schema, so that a form states the limit the API applies. */
export interface Limit {
  readonly min: number
  readonly max: number
}

/** The limit of `schema` (no `maxlength` on the field: browsers count UTF-16 units, and would stop a text the API accepts). */
export const limitOf = (schema: Schema.Schema<string, string, never>): Limit | undefined => {
  const json = JSONSchema.make(schema) as { readonly minLength?: number; readonly maxLength?: number }
  return json.maxLength === undefined ? undefined : { min: json.minLength ?? 0, max: json.maxLength }
}

/** The limit in the page's words: `at most 5000 characters`. */
export const limitText = (frame: { readonly t: DashboardCatalogue }, limit: Limit | undefined): string =>
  limit === undefined ? "" : frame.t.frame.common.length(limit.min, limit.max)

/** A notice: what a change did, or why it was refused. */
export const notice = (flash: Flash | undefined) =>
  flash === undefined ? "" : flash.tone === "done"
  ? html`<p class="done" role="status">${flash.text}</p>`
  : html`<p class="alert" role="alert">${flash.text}</p>`

/** The navigation's sections. */
const sections = (frame: SignedFrame): ReadonlyArray<readonly [href: string, text: string]> => {
  const mode = modePath(frame)
  const nav = frame.t.frame.nav
  return [
    [mode, nav.home],
    [`${mode}/payments`, nav.payments],
    [`${mode}/subscriptions`, nav.subscriptions],
    [`${mode}/customers`, nav.customers],
    [`${mode}/invoices`, nav.invoices],
    [`${mode}/credit-notes`, nav.creditNotes],
    [`${mode}/products`, nav.products],
    [`${mode}/discounts`, nav.discounts],
    [`${mode}/checkout-sessions`, nav.checkout],
    [`${mode}/developers`, nav.developers],
    [`${mode}/events`, nav.events],
    [`${mode}/exports`, nav.exports],
    [`${frame.base}/audit`, nav.audit],
    [`${frame.base}/settings`, nav.settings]
  ]
}

/** A section is current on its own page and every page under it (e-invoices are reached from the invoices). */
const isCurrent = (frame: SignedFrame, href: string) => {
  const mode = modePath(frame)
  // E-invoices are the invoices' section; the two-factor set-up is the settings'.
  const path = frame.path?.replace(`${mode}/einvoices`, `${mode}/invoices`).replace(`${frame.base}/two-factor`, `${frame.base}/settings/two-factor`)
  return path !== undefined && (path === href || (href !== mode && path.startsWith(`${href}/`)))
}

/**
 * The switch to the other language: a plain link to the same page with `?lang=` (it works without JavaScript; the
 * dashboard remembers the choice in its own cookie), named in the language it switches to.
 */
export const languageSwitch = (frame: Frame & { readonly query?: URLSearchParams | undefined }) => {
  const other: Locale = frame.locale === "ar" ? "en" : "ar"
  // The page as it is (its filters, its cursor), but not a change's notice, which was worded in the other language.
  const query = new URLSearchParams(frame.query)
  query.delete("flash")
  query.set("lang", other)
  return html`<a class="lang" href="?${query.toString()}" hreflang="${other}" lang="${other}" data-testid="language-switch">${dashboardCatalogues[other].frame.languageName}</a>`
}

export const chrome = (frame: SignedFrame, title: string, body: Raw) => {
  const t = frame.t.frame
  return document(
    frame,
    title,
    html`<a class="skip" href="#main">${t.skipToContent}</a>
<header><strong>${frame.businessName}</strong>
<span class="mode${frame.livemode ? " live" : ""}">${frame.livemode ? t.liveMode : t.testMode}</span>
<a href="${frame.base}/${frame.livemode ? "test" : "live"}">${t.switchTo(!frame.livemode)}</a>
${languageSwitch(frame)}
<span class="muted who">${t.who(frame.user.email, t.roles[frame.user.role])}</span>
${form(frame, `${frame.base}/logout`, html`<button class="link" type="submit">${t.signOut}</button>`)}</header>
<nav aria-label="${t.navigation}">${
      sections(frame).map(([href, text]) => html`<a href="${href}"${raw(isCurrent(frame, href) ? ` aria-current="page"` : "")}>${text}</a>`)
    }</nav>
<main id="main" tabindex="-1"><h1>${title}</h1>${notice(frame.flash)}${frame.prompt ?? ""}${body}</main>`
  )
}

/** A page before sign-in: one card, with the language switch above it. */
const narrow = (frame: Frame & { readonly query?: URLSearchParams | undefined }, title: string, body: Raw) =>
  document(frame, title, html`<main class="narrow"><p class="switch">${languageSwitch(frame)}</p><div class="card">${body}</div></main>`)

/** The page a sign-in returns to (`ReturnTo`), carried by the sign-in's forms and by their language switch. */
const nextField = (next: string | undefined) => next === undefined ? "" : html`<input type="hidden" name="next" value="${next}">`
const carryingNext = (frame: Frame, next: string | undefined) =>
  next === undefined ? frame : { ...frame, query: new URLSearchParams({ next }) }

export const loginPage = (
  frame: Frame,
  props: { readonly error?: string | undefined; readonly email?: string | undefined; readonly next?: string | undefined }
) => {
  const t = frame.t.frame.signIn
  return narrow(
    carryingNext(frame, props.next),
    t.title,
    html`<h1>${t.heading}</h1>
${props.error === undefined ? "" : html`<p class="alert" role="alert">${props.error}</p>`}
<form method="post" action="${frame.base}/login">${nextField(props.next)}
<label for="email">${t.email}</label><input id="email" name="email" type="email" autocomplete="username" required value="${props.email ?? ""}">
<label for="password">${t.password}</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<p><button type="submit">${t.submit}</button></p></form>
<p class="muted">${t.noPasswordYet}</p>`
  )
}

/** The sign-in's second step: the code from the user's app, or one of their recovery codes. */
export const codePage = (frame: Frame, props: { readonly error?: string | undefined; readonly next?: string | undefined }) => {
  const t = frame.t.frame.signIn
  return narrow(
    carryingNext(frame, props.next),
    t.codeTitle,
    html`<h1>${t.codeHeading}</h1>
<p>${t.codeHelp}</p>
<form method="post" action="${frame.base}/login/code">${nextField(props.next)}
<label for="code">${t.code}</label><input id="code" name="code" autocomplete="one-time-code" inputmode="numeric" autocapitalize="off" spellcheck="false" required autofocus${
      raw(props.error === undefined ? "" : ` aria-invalid="true" aria-describedby="code-error"`)
    }>${props.error === undefined ? "" : html`<p class="field-error" id="code-error" role="alert">${props.error}</p>`}
<p><button type="submit">${t.submit}</button></p></form>
<p><a href="${frame.base}/login">${t.startAgain}</a></p>`
  )
}

export const setPasswordPage = (frame: Frame, props: { readonly email: string; readonly action: string; readonly error?: string | undefined }) => {
  const t = frame.t.frame.signIn
  return narrow(
    frame,
    t.setPasswordTitle,
    html`<h1>${t.setPasswordTitle}</h1><p>${t.setPasswordFor} <b><bdi>${props.email}</bdi></b>: ${t.setPasswordRule}</p>
${props.error === undefined ? "" : html`<p class="alert" role="alert">${props.error}</p>`}
<form method="post" action="${props.action}">
<label for="password">${t.newPassword}</label><input id="password" name="password" type="password" autocomplete="new-password" minlength="12" required>
<p><button type="submit">${t.setPasswordSubmit}</button></p></form>`
  )
}

export const messagePage = (frame: Frame, title: string, message: string) =>
  narrow(frame, title, html`<h1>${title}</h1><p>${message}</p>
<p><a href="${frame.base}/login">${frame.t.frame.signIn.submit}</a></p>`)

/** A day (`2026-11-19`) as a `Date`, at its start in UTC: the chart's days are already the account's. */
const dayDate = (day: string) => Date.parse(`${day}T00:00:00Z`)

/** The chart's days in each language but English, by `Intl` (English keeps its own short form below). */
const axisDays = new Map<Locale, Intl.DateTimeFormat>()
const axisAmounts = new Map<Locale, Intl.NumberFormat>()
const cachedFor = <F>(cache: Map<Locale, F>, locale: Locale, make: () => F): F => {
  const found = cache.get(locale) ?? make()
  cache.set(locale, found)
  return found
}

/** A day as the chart's axis writes it: `19 Nov`, `19 نوفمبر`. */
const shortDay = (frame: Frame, day: string) => {
  if (frame.locale !== "en") {
    return cachedFor(axisDays, frame.locale, () => new Intl.DateTimeFormat(intlTag(frame.locale), { day: "numeric", month: "short", timeZone: "UTC" }))
      .format(dayDate(day))
  }
  const [, month = "1", date = "1"] = day.split("-")
  return `${Number(date)} ${["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"][Number(month) - 1]}`
}

/** A day in full, for the chart's title: `2026-11-19` in English, `19 نوفمبر 2026` in Arabic. */
const fullDay = (frame: Frame, day: string) => (frame.locale === "en" || day === "" ? day : Format.date(frame.locale, DateTime.unsafeMake(dayDate(day)), "UTC"))

/** The axis's top: the largest value rounded up to 1, 2 or 5 times a power of ten (whole dirhams), so its ticks read well. */
const axisTop = (largest: number) => {
  const dirhams = Math.max(1, Math.ceil(largest / 100))
  const power = 10 ** Math.floor(Math.log10(dirhams))
  return ([1, 2, 5, 10].map((m) => m * power).find((top) => top >= dirhams) ?? 10 * power) * 100
}

/** Whole dirhams, short, for an axis: `AED 1.5k`, `AED 20`; `‏1.5 ألف د.إ.‏` in Arabic. */
const axisMoney = (frame: Frame, fils: number) => {
  const dirhams = fils / 100
  if (frame.locale !== "en") {
    return cachedFor(axisAmounts, frame.locale, () =>
      new Intl.NumberFormat(intlTag(frame.locale), {
        style: "currency",
        currency: "AED",
        notation: "compact",
        minimumFractionDigits: 0,
        maximumFractionDigits: 1
      })).format(dirhams)
  }
  return dirhams >= 1000 ? `AED ${Number((dirhams / 1000).toFixed(1))}k` : `AED ${Math.round(dirhams)}`
}

/**
 * Each day's gross volume as bars, drawn on the server: a value axis (AED) with its grid, the days along the bottom,
 * each bar's amount in its tooltip (and written above it on a 7-day chart); its title and description say the same
 * to a screen reader.
 */
const chart = (frame: Frame, overview: Overview) => {
  const t = frame.t.home.chart
  const daily = overview.daily
  // Arabic's axis amounts (`‏1.5 ألف د.إ.‏`) are wider than English's (`AED 1.5k`).
  const [width, height, left, bottom, top] = [480, 200, frame.locale === "en" ? 72 : 84, 24, 14]
  const plot = { w: width - left - 6, h: height - bottom - top }
  const max = axisTop(Math.max(0, ...daily.map((d) => d.gross)))
  const step = plot.w / Math.max(1, daily.length)
  const y = (value: number) => top + plot.h - (value / max) * plot.h
  const ticks = [0, max / 2, max].map((v) =>
    `<line x1="${left}" x2="${width - 6}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" stroke="#d5d9de"/>` +
    `<text x="${left - 6}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end">${escape(axisMoney(frame, v))}</text>`
  ).join("")
  const bars = daily.map((d, i) => {
    const h = (d.gross / max) * plot.h
    const x = left + i * step + step * 0.15
    const label = daily.length <= 7 && d.gross > 0
      ? `<text x="${(x + step * 0.35).toFixed(1)}" y="${(y(d.gross) - 3).toFixed(1)}" text-anchor="middle">${escape(axisMoney(frame, d.gross))}</text>`
      : ""
    return `<rect x="${x.toFixed(1)}" y="${(top + plot.h - h).toFixed(1)}" width="${(step * 0.7).toFixed(1)}" height="${h.toFixed(1)}" fill="#1d4ed8"><title>${
      escape(`${shortDay(frame, d.day)}: ${amount(frame, d.gross)}`)
    }</title></rect>${label}`
  }).join("")
  const labelled = daily.length <= 7 ? daily.map((_, i) => i) : [0, Math.floor((daily.length - 1) / 2), daily.length - 1]
  // The first and last labels of a long axis line up with its ends, so that neither is cut off.
  const anchor = (i: number) => daily.length <= 7 ? "middle" : i === 0 ? "start" : i === daily.length - 1 ? "end" : "middle"
  const xOf = (i: number) => anchor(i) === "start" ? left + i * step : anchor(i) === "end" ? left + (i + 1) * step : left + i * step + step / 2
  const days = labelled.map((i) =>
    `<text x="${xOf(i).toFixed(1)}" y="${height - 6}" text-anchor="${anchor(i)}">${escape(shortDay(frame, daily[i]!.day))}</text>`
  ).join("")
  const busiest = daily.reduce((best, d) => (d.gross > best.gross ? d : best), daily[0] ?? { day: "", gross: 0 })
  const first = fullDay(frame, daily[0]?.day ?? "")
  const last = fullDay(frame, daily.at(-1)?.day ?? "")
  const description = busiest.gross === 0
    ? t.noVolume
    : t.description(amount(frame, overview.period.gross), shortDay(frame, busiest.day), amount(frame, busiest.gross))
  return raw(`<svg class="chart" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="chart-title chart-desc">` +
    `<title id="chart-title">${escape(t.title(first, last, overview.timeZone))}</title>` +
    `<desc id="chart-desc">${escape(description)}</desc>` +
    `<line x1="${left}" x2="${left}" y1="${top}" y2="${top + plot.h}" stroke="#8a939e"/>${ticks}${bars}${days}</svg>`)
}

/** How `now` compares with `before`, in words a merchant reads at a glance (and a screen reader says the same). */
const compared = (
  frame: Frame,
  now: number,
  before: number,
  words: { readonly same: string; readonly upFromNone: string; readonly up: (percent: string) => string; readonly down: (percent: string) => string }
) => {
  if (now === before) return html`<span class="change same">${words.same}</span>`
  if (before === 0) return html`<span class="change up">${words.upFromNone}</span>`
  const percent = Math.round(((now - before) / Math.abs(before)) * 100)
  return now > before
    ? html`<span class="change up">${words.up(count(frame, percent))}</span>`
    : html`<span class="change down">${words.down(count(frame, Math.abs(percent)))}</span>`
}

const change = (frame: Frame, now: number, before: number, days: number) => {
  const t = frame.t.home.change
  const previous = t.previous(days, count(frame, days))
  return compared(frame, now, before, {
    same: t.same(previous),
    upFromNone: t.upFromNone(previous),
    up: (percent) => t.up(percent, previous),
    down: (percent) => t.down(percent, previous)
  })
}

/**
 * Monthly recurring revenue against the figure recorded at the end of the previous period (or the latest before),
 * naming its day; none recorded yet says so.
 */
const mrrChange = (frame: Frame, overview: Overview) => {
  const t = frame.t.home.mrrBefore
  const before = overview.mrrBefore
  if (before === null) return html`<span class="change same">${t.none}</span>`
  // A local day, written as the page's language writes a date (noon UTC falls on that day in every zone's reading).
  const day = Format.date(frame.locale, DateTime.unsafeMake(`${before.day}T12:00:00Z`), "UTC")
  return compared(frame, overview.mrr, before.mrr, {
    same: t.same(day),
    upFromNone: t.upFromNone(day),
    up: (percent) => t.up(percent, day),
    down: (percent) => t.down(percent, day)
  })
}

/** What the home page shows beside the sums: the newest payments, what needs a look, and the first steps' progress. */
export interface HomeExtras {
  readonly recent: ReadonlyArray<Payment>
  /** At most a few of each, newest first. */
  readonly onHold: ReadonlyArray<{ readonly subscription_id: string; readonly customer: { readonly email: string } | null; readonly recurring_amount: number }>
  readonly failingEndpoints: ReadonlyArray<{ readonly webhook_id: string; readonly url: string; readonly failing_since: DateTime.Utc | null; readonly disabled: boolean }>
  readonly rejectedEInvoices: ReadonlyArray<{ readonly document_id: string; readonly number: string; readonly path: string }>
  readonly steps: { readonly product: boolean; readonly payment: boolean; readonly endpoint: boolean; readonly team: boolean }
}

const gettingStarted = (frame: SignedFrame, steps: HomeExtras["steps"]) => {
  const mode = modePath(frame)
  const t = frame.t.home.gettingStarted
  const step = (done: boolean, href: string, text: string, why: string) =>
    html`<li class="${done ? "done-step" : ""}"><span class="tick" aria-hidden="true">${done ? "✓" : ""}</span><span><a href="${href}">${text}</a>${
      done ? html` <span class="badge good">${t.done}</span>` : ""
    }<span class="sub">${why}</span></span></li>`
  return html`<div class="card"><h2>${t.heading}</h2><ol class="steps">
${step(steps.product, `${mode}/products`, t.product, t.productWhy)}
${step(steps.payment, `${mode}/products`, t.payment, t.paymentWhy)}
${step(steps.endpoint, `${mode}/developers`, t.endpoint, t.endpointWhy)}
${step(steps.team, `${frame.base}/settings`, t.team, t.teamWhy)}
</ol></div>`
}

const attention = (frame: SignedFrame, extras: HomeExtras) => {
  const mode = modePath(frame)
  const t = frame.t.home.attention
  const items = [
    ...extras.onHold.map((s) =>
      html`<li>${badge(frame, "on_hold")} <a href="${mode}/subscriptions/${s.subscription_id}">${
        t.onHold(s.customer?.email ?? null, amount(frame, s.recurring_amount))
      }</a> <span class="muted">${t.renewalFailed}</span></li>`
    ),
    ...extras.failingEndpoints.map((w) =>
      html`<li>${badge(frame, w.disabled ? "disabled" : "failed")} <a href="${mode}/developers/webhooks/${w.webhook_id}"><bdi>${w.url}</bdi></a> <span class="muted">${
        w.disabled ? t.disabled : t.failingSince(when(frame, w.failing_since!))
      }</span></li>`
    ),
    ...extras.rejectedEInvoices.map((e) =>
      html`<li>${badge(frame, "rejected")} <a href="${e.path}">${t.eInvoice(e.number)}</a> <span class="muted">${t.rejected}</span></li>`
    )
  ]
  return html`<div class="card"><h2>${t.heading}</h2>${
    items.length === 0 ? html`<p class="muted">${t.nothing}</p>` : html`<ul class="attention">${items}</ul>`
  }</div>`
}

export const homePage = (frame: SignedFrame, overview: Overview, periods: ReadonlyArray<Period>, extras: HomeExtras) => {
  const { period, previous, days } = overview
  const t = frame.t.home
  const columns = frame.t.payments.columns
  const stat = (label: string, value: string, now: number, before: number) =>
    html`<div class="stat">${label}<b>${value}</b>${change(frame, now, before, days)}</div>`
  const started = Object.values(extras.steps).every((done) => done)
  return chrome(
    frame,
    t.title,
    html`${started ? "" : gettingStarted(frame, extras.steps)}
<div class="card stats today"><div class="stat">${t.todaySoFar}<b>${amount(frame, overview.today)}</b>${change(frame, overview.today, overview.yesterday, 1)}</div>
<div class="stat">${t.mrr}<b>${amount(frame, overview.mrr)}</b>${mrrChange(frame, overview)}<span class="change same">${
      t.paying(overview.activeSubscriptions, count(frame, overview.activeSubscriptions))
    }</span></div></div>
<nav class="periods" aria-label="${t.periods}">${
      periods.map((p) => html`<a href="${modePath(frame)}?days=${p}"${raw(p === days ? ` aria-current="page"` : "")}>${t.lastDays(p, count(frame, p))}</a>`)
    }</nav>
<div class="card stats">
${stat(t.stats.gross, amount(frame, period.gross), period.gross, previous.gross)}
${stat(t.stats.net, amount(frame, period.net), period.net, previous.net)}
${stat(t.stats.refunds, amount(frame, period.refunded), period.refunded, previous.refunded)}
${stat(t.stats.newSubscriptions, count(frame, period.newSubscriptions), period.newSubscriptions, previous.newSubscriptions)}
${stat(t.stats.succeeded, count(frame, period.succeeded), period.succeeded, previous.succeeded)}
${stat(t.stats.failed, count(frame, period.failed), period.failed, previous.failed)}
<div class="stat">${t.stats.fees}<b>${amount(frame, period.fees)}</b></div>
</div>
<div class="card"><h2>${t.chart.heading}</h2>${chart(frame, overview)}</div>
${attention(frame, extras)}
<div class="card"><h2>${t.recent.heading}</h2>${
      extras.recent.length === 0
        ? html`<p class="muted">${t.recent.none}</p>`
        : html`<table class="list" aria-label="${t.recent.heading}"><thead><tr><th>${columns.amount}</th><th>${columns.status}</th><th>${columns.customer}</th><th>${columns.date}</th></tr></thead><tbody>${
          extras.recent.map((p) =>
            html`<tr><td class="lead"><a class="row" href="${modePath(frame)}/payments/${p.payment_id}">${amount(frame, p.total_amount)}</a></td><td data-label="${columns.status}">${
              badge(frame, p.status)
            }</td><td data-label="${columns.customer}">${p.customer?.email ?? ""}</td><td data-label="${columns.date}">${when(frame, p.created_at)}</td></tr>`
          )
        }</tbody></table><p><a href="${modePath(frame)}/payments">${t.recent.all}</a></p>`
    }</div>`
  )
}

const paymentStatuses = PaymentStatus.literals

/** Who paid, as a list shows it: the name when there is one, else the e-mail. */
export const customerText = (frame: Frame, c: { readonly name?: string | null; readonly email: string } | null) =>
  c === null ? html`<span class="muted">${frame.t.frame.common.noCustomer}</span>` : c.name === null || c.name === undefined || c.name === "" ? c.email : html`${c.name}<span class="sub">${c.email}</span>`

/** Why a refund was made, in the page's language: its reason, and the merchant's note as written; none without a reason. */
export const refundWhy = (frame: Frame, why: { readonly reason: Refund.RefundReason | null; readonly note: string | null }) =>
  why.reason === null ? undefined : frame.t.payments.why(frame.t.payments.reasons[why.reason], why.note)

export const paymentsPage = (
  frame: SignedFrame,
  props: {
    readonly items: ReadonlyArray<Payment>
    readonly status: string | undefined
    readonly next: string | null
    readonly search?: string | undefined
    readonly range?: { readonly from: string; readonly to: string } | undefined
    /** Refused filters, each shown under its field. */
    readonly errors?: FieldErrors | undefined
  }
) => {
  const t = frame.t.payments.list
  const columns = frame.t.payments.columns
  return chrome(
    frame,
    t.title,
    html`<form class="filters" method="get" action="${modePath(frame)}/payments" role="search" aria-label="${t.title}">
<div class="grow">${textField({ name: "q", label: t.search, value: props.search ?? "", errors: props.errors ?? {}, attributes: `type="search"` })}</div>
<div>${textField({ name: "from", label: t.from(frame.timeZone), value: props.range?.from ?? "", errors: props.errors ?? {}, attributes: `type="date"` })}</div>
<div>${textField({ name: "to", label: t.to(frame.timeZone), value: props.range?.to ?? "", errors: props.errors ?? {}, attributes: `type="date"` })}</div>
<div>${
      selectField({
        name: "status",
        label: columns.status,
        value: props.status ?? "",
        options: [["", frame.t.frame.common.any], ...paymentStatuses.map((s) => [s, statusWords(frame, s).words] as const)],
        errors: props.errors ?? {}
      })
    }</div>
<div><button type="submit">${frame.t.frame.common.filter}</button></div></form>
<div class="card"><table class="list" aria-label="${t.title}"><thead><tr><th>${columns.amount}</th><th>${columns.status}</th><th>${columns.customer}</th><th>${columns.description}</th><th>${columns.date}</th></tr></thead><tbody>
${
      props.items.map((p) =>
        html`<tr><td class="lead"><a class="row" href="${modePath(frame)}/payments/${p.payment_id}">${amount(frame, p.total_amount)}</a><span class="sub"><code>${p.payment_id}</code></span></td>
<td data-label="${columns.status}">${badge(frame, p.status)}</td><td data-label="${columns.customer}">${customerText(frame, p.customer)}</td>
<td data-label="${columns.description}" class="text">${p.description}</td><td data-label="${columns.date}">${when(frame, p.created_at)}</td></tr>`
      )
    }
</tbody></table>${props.items.length === 0 ? html`<p class="muted">${t.none}</p>` : ""}
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
        }">${t.older}</a></p>`
    }</div>`
  )
}

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
    /** The refund form's field the error is about (default: the amount). */
    readonly errorField?: "amount" | "reason" | "note" | undefined
    /** The refund form as typed, when a refund was refused. */
    readonly amount?: string | undefined
    readonly reason?: string | undefined
    readonly note?: string | undefined
    /** Its refunds, each with its reason (shown on the timeline). */
    readonly refunds?: ReadonlyArray<Refund.Refund> | undefined
  }
) => {
  const p = props.payment
  const t = frame.t.payments
  const remaining = p.total_amount - p.refunded_amount
  const refundable = props.canRefund && (p.status === "succeeded" || p.status === "partially_refunded")
  // A refused refund's reason, under the field it is about (the amount, unless it names another).
  const errors: FieldErrors = props.error === undefined ? {} : { [props.errorField ?? "amount"]: props.error }
  return chrome(
    frame,
    t.payment.title(amount(frame, p.total_amount)),
    html`${props.error === undefined || refundable ? "" : html`<p class="alert" role="alert">${props.error}</p>`}<div class="card"><table>
<tr><th>${t.payment.id}</th><td><code>${p.payment_id}</code></td></tr>
<tr><th>${t.payment.status}</th><td>${badge(frame, p.status)}</td></tr>
<tr><th>${t.payment.amount}</th><td>${amount(frame, p.total_amount)}</td></tr>
<tr><th>${t.payment.fee}</th><td>${amount(frame, p.fee_amount)}</td></tr>
<tr><th>${t.payment.refunded}</th><td>${amount(frame, p.refunded_amount)}</td></tr>
<tr><th>${t.payment.net}</th><td>${amount(frame, p.net_amount)}</td></tr>
<tr><th>${t.payment.customer}</th><td>${p.customer === null ? "" : html`<bdi>${p.customer.name ?? ""} &lt;${p.customer.email}&gt;</bdi>`}</td></tr>
<tr><th>${t.payment.card}</th><td>${p.card === null ? "" : html`<bdi>${p.card.brand} •••• ${p.card.last4}</bdi>`}</td></tr>
<tr><th>${t.payment.description}</th><td>${p.description}</td></tr>
${p.discounts.map((d) => html`<tr><th>${t.payment.discount}</th><td>${appliedDiscountText(frame, d)}</td></tr>`)}
<tr><th>${t.payment.created}</th><td>${when(frame, p.created_at)}</td></tr>
${hasReceipt(p) ? html`<tr><th>${t.payment.receipt}</th><td><a href="${modePath(frame)}/payments/${p.payment_id}/receipt">${t.payment.printableReceipt}</a></td></tr>` : ""}
${
      props.documents === undefined || props.documents.invoices.length === 0
        ? ""
        : html`<tr><th>${t.payment.taxInvoice}</th><td>${
          props.documents.invoices.map((d) => html`<a href="${modePath(frame)}/invoices/${d.invoice_id}">${d.number}</a>`)
        }</td></tr>`
    }
${
      props.documents === undefined || props.documents.creditNotes.length === 0
        ? ""
        : html`<tr><th>${t.payment.creditNotes}</th><td>${
          props.documents.creditNotes.map((d, i) => html`${i > 0 ? t.payment.comma : ""}<a href="${modePath(frame)}/credit-notes/${d.credit_note_id}">${d.number}</a>`)
        }</td></tr>`
    }
</table></div>
${
      refundable
        ? html`<div class="card"><h2>${t.refund.heading}</h2><form method="post" action="${modePath(frame)}/payments/${p.payment_id}/refund/review"><input type="hidden" name="csrf_token" value="${frame.csrf}">
${
          textField({
            name: "amount",
            label: t.refund.amount(amount(frame, remaining)),
            value: props.amount ?? (remaining / 100).toFixed(2),
            errors,
            attributes: `inputmode="decimal" required`
          })
        }
${
          selectField({
            name: "reason",
            label: t.refund.reason,
            value: props.reason ?? "",
            options: [["", t.refund.chooseReason], ...Refund.RefundReason.literals.map((r) => [r, t.reasons[r]] as const)],
            errors
          })
        }
<label for="note">${t.refund.note}</label><textarea id="note" name="note" rows="2"${
          raw(errors.note === undefined ? "" : ` aria-invalid="true" aria-describedby="note-error"`)
        }>${textareaContent(props.note ?? "")}</textarea>${errors.note === undefined ? "" : html`<p class="field-error" id="note-error">${errors.note}</p>`}
<p><button type="submit">${t.refund.review}</button></p>
<p class="muted">${t.refund.confirmNext}</p></form></div>`
        : ""
    }
<div class="card"><h2>${t.timeline.heading}</h2><table><tbody>${
      // Events and refunds (with their reasons), newest first.
      [
        ...props.events.map((e) => ({
          at: e.created_at,
          row: html`<tr><td>${when(frame, e.created_at)}</td><td>${e.type}</td><td><a href="${modePath(frame)}/events/${e.event_id}"><code>${e.event_id}</code></a></td><td>${
            (props.deliveries?.[e.event_id] ?? []).map((d) => html`${badge(frame, d.status)} `)
          }</td></tr>`
        })),
        ...(props.refunds ?? []).map((r) => ({
          at: r.created_at,
          row: html`<tr class="refund"><td>${when(frame, r.created_at)}</td><td>${t.timeline.refundOf(amount(frame, r.amount))} ${badge(frame, r.status)}</td><td class="text" colspan="2">${
            refundWhy(frame, r) ?? t.timeline.noReason
          }</td></tr>`
        }))
      ].sort((a, b) => DateTime.toEpochMillis(b.at) - DateTime.toEpochMillis(a.at)).map((entry) => entry.row)
    }</tbody></table></div>`
  )
}

export const auditPage = (frame: SignedFrame, entries: ReadonlyArray<AuditEntry>) => {
  const t = frame.t.audit
  return chrome(
    frame,
    t.title,
    html`<div class="card"><table><thead><tr><th>${t.when}</th><th>${t.who}</th><th>${t.what}</th><th>${t.object}</th><th>${t.from}</th></tr></thead><tbody>${
      entries.map((e) =>
        html`<tr><td data-label="${t.when}">${when(frame, e.at)}</td><td data-label="${t.who}">${e.email}</td><td data-label="${t.what}">${e.action}</td><td data-label="${t.object}"><code>${e.object_id ?? ""}</code>${
          e.livemode === null ? "" : ` (${e.livemode ? frame.t.frame.common.live : frame.t.frame.common.test})`
        }</td><td data-label="${t.from}">${e.address}</td></tr>`
      )
    }</tbody></table>${entries.length === 0 ? html`<p class="muted">${t.none}</p>` : ""}</div>`
  )
}

export const forbiddenPage = (frame: SignedFrame, message: string) =>
  chrome(frame, frame.t.frame.pages.notAllowed, html`<p class="alert" role="alert">${message}</p>`)
/** A form whose one-time token is out of date (`Forms.isOutOfDate`): nothing was done; look, then use a new one. */
export const outOfDatePage = (frame: SignedFrame, back: string) =>
  chrome(
    frame,
    frame.t.frame.pages.outOfDate,
    html`<p class="alert" role="alert">${frame.t.frame.pages.outOfDateText}</p><p><a href="${back}">${frame.t.frame.pages.backToPage}</a></p>`
  )
export const notFoundPage = (frame: SignedFrame) => chrome(frame, frame.t.frame.pages.notFound, html`<p>${frame.t.frame.pages.nothingHere}</p>`)
