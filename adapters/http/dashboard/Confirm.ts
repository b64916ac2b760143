/**
 * Destructive actions are confirmed on a page of their own that says what will happen (a refund, revoking a key,
 * deleting an endpoint, archiving a product, cancelling a subscription now, removing a teammate). Without
 * JavaScript: the action's button is a link to a GET page whose form posts the real action with `confirm=yes`; a
 * post without it changes nothing and is answered with that same page, saying so.
 */
import { escape, html, type Raw, raw } from "../html/Html.js"
import * as Pages from "./Pages.js"

export const confirmField = "confirm"
export const confirmValue = "yes"

export interface Confirmation {
  /** The page's title: the question (`Revoke this API key?`). */
  readonly title: string
  /** What will happen, one sentence each, the most important first. */
  readonly what: ReadonlyArray<string | Raw>
  /** Where the confirmed form posts. */
  readonly action: string
  /** The action's own fields, sent along hidden. */
  readonly fields?: Readonly<Record<string, string>>
  /** The button that acts, in words that say what it does (`Revoke the key`). */
  readonly button: string
  /** Where "keep it" goes back to. */
  readonly back: string
  readonly backLabel?: string
  /** Money moves: a one-time token, so the confirmation posted twice acts once. */
  readonly moneyMoves?: boolean
  /**
   * The token of an earlier post whose outcome is not known yet: posted again, it finishes that same action (a
   * confirmation given one carries it, money moving or not).
   */
  readonly once?: string
}

/** Whether the post came from a confirmation page. */
export const isConfirmed = (value: string) => value === confirmValue

/**
 * A hidden field that posts `value` back byte for byte: a carriage return as a character reference, which the HTML
 * parser would otherwise turn (a typed CRLF with it) into LF.
 */
export const hiddenField = (name: string, value: string) =>
  html`<input type="hidden" name="${name}" value="${raw(escape(value).replace(/\r/g, "&#13;"))}">`

/**
 * The confirmation page; with `alert`, why it is shown again: a post came without the confirmation (nothing was done:
 * `true`), or what happened to one that came with it.
 */
export const confirmPage = (frame: Pages.SignedFrame, c: Confirmation, alert: boolean | string = false) => {
  const body = html`${Object.entries(c.fields ?? {}).map(([name, value]) => hiddenField(name, value))}<input type="hidden" name="${confirmField}" value="${confirmValue}">
<p class="actions"><button type="submit" class="danger">${c.button}</button> <a href="${c.back}">${c.backLabel ?? frame.t.frame.confirm.goBack}</a></p>`
  return Pages.chrome(
    frame,
    c.title,
    html`${alert === false ? "" : html`<p class="alert" role="alert">${alert === true ? frame.t.frame.confirm.notYet : alert}</p>`}<div class="card confirm"><ul>${
      c.what.map((line) => html`<li>${line}</li>`)
    }</ul>${c.moneyMoves === true || c.once !== undefined ? Pages.onceForm(frame, c.action, body, { back: c.back, once: c.once }) : Pages.form(frame, c.action, body)}</div>`
  )
}

/** The action's button on its own page: a link to the confirmation (a GET, so it works without JavaScript). */
export const confirmLink = (href: string, text: string, props: { readonly label?: string; readonly button?: boolean } = {}) =>
  html`<a class="${props.button === true ? "button danger" : "danger-link"}" href="${href}"${
    props.label === undefined ? "" : html` aria-label="${props.label}"`
  }>${text}</a>`
