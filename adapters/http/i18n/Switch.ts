/**
 * The language switch every customer page shows: a plain link to the same page with `?lang=` (it works without
 * JavaScript; the page remembers the choice in a cookie), named in the language it switches to.
 */
import { html } from "../html/Html.js"
import type { Locale } from "./Locale.js"
import { catalogues } from "./Messages.js"

export const languageSwitch = (current: Locale) => {
  const other: Locale = current === "ar" ? "en" : "ar"
  return html`<a class="lang" href="?lang=${other}" hreflang="${other}" lang="${other}" data-testid="language-switch">${catalogues[other].languageName}</a>`
}
