/**
 * What every server-rendered page shares (checkout, dashboard, portal): the HTML document around a page's body, and
 * the response with its headers: a CSP that loads nothing but the page's own nonce'd style, lets forms post only
 * here (and, for the checkout, to the merchant's return URL), and forbids framing.
 */
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { randomBytes } from "node:crypto"
import { dir, type Locale } from "../i18n/Locale.js"
import { html, type Raw, raw } from "./Html.js"

/** A fresh nonce per response, for its `<style>`. */
export const newNonce = (): string => randomBytes(16).toString("base64")

/**
 * The document: `referrer` `same-origin` in the page itself, so that its own forms carry their origin (the
 * submission check needs it) even where the response says `no-referrer` for everything else. Its language (English
 * unless said) sets `lang` and the writing direction: Arabic pages are right-to-left.
 */
export const htmlDocument = (props: {
  readonly title: string
  readonly nonce: string
  readonly styles: string
  readonly body: Raw
  readonly locale?: Locale | undefined
}) =>
  html`<!doctype html>
<html lang="${props.locale ?? "en"}" dir="${dir(props.locale ?? "en")}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<meta name="referrer" content="same-origin">
<title>${props.title}</title>
<style nonce="${props.nonce}">${raw(props.styles)}</style>
</head>
<body>
${props.body}
</body>
</html>`.__html

/** A page's response. `formActions`: origins besides this one that forms may post or redirect to. */
export const htmlResponse = (
  status: number,
  body: string,
  nonce: string,
  options: { readonly formActions?: string | undefined; readonly referrerPolicy?: "same-origin" | "no-referrer" } = {}
) =>
  HttpServerResponse.text(body, { status, contentType: "text/html; charset=utf-8" }).pipe(
    HttpServerResponse.setHeaders({
      "content-security-policy": `default-src 'none'; style-src 'nonce-${nonce}'; img-src 'self'; ` +
        `form-action 'self'${options.formActions ?? ""}; frame-ancestors 'none'; base-uri 'none'`,
      "x-frame-options": "DENY",
      "x-content-type-options": "nosniff",
      "referrer-policy": options.referrerPolicy ?? "same-origin",
      "cache-control": "no-store"
    })
  )
