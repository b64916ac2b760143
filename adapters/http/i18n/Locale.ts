/**
 * The languages the customer's pages speak (docs/languages.md): English and Arabic. Which one a request gets: the
 * `?lang=` switch (remembered in a cookie), else the cookie, else the browser's `Accept-Language`, else English.
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Duration, Effect } from "effect"

export const locales = ["en", "ar"] as const
export type Locale = (typeof locales)[number]
export const defaultLocale: Locale = "en"

export const isLocale = (value: unknown): value is Locale => value === "en" || value === "ar"

/** The BCP 47 tag `Intl` formats with: the UAE's conventions in either language. */
export const intlTag = (locale: Locale): "en-AE" | "ar-AE" => (locale === "ar" ? "ar-AE" : "en-AE")

/** The writing direction: Arabic is right-to-left. */
export const dir = (locale: Locale): "ltr" | "rtl" => (locale === "ar" ? "rtl" : "ltr")

/** The cookie that remembers a switch; not secret (it holds `en` or `ar`), so readable only to this origin's pages. */
export const cookieName = "fils_lang"

/**
 * The first of our languages the browser asks for, by its weights (`ar-AE;q=0.9, en;q=0.8`): a range matches on its
 * primary subtag; `*` and `q=0` match nothing here. `undefined` when none is asked for.
 */
export const fromAcceptLanguage = (header: string | undefined): Locale | undefined => {
  if (header === undefined) return undefined
  let best: { readonly locale: Locale; readonly q: number } | undefined
  for (const part of header.slice(0, 1000).split(",")) {
    const [range = "", ...params] = part.trim().split(";")
    const primary = range.trim().toLowerCase().split("-")[0]
    if (!isLocale(primary)) continue
    const weight = params.map((p) => p.trim()).find((p) => p.startsWith("q="))
    const q = weight === undefined ? 1 : Number(weight.slice(2))
    if (!(q > 0 && q <= 1)) continue
    if (best === undefined || q > best.q) best = { locale: primary, q }
  }
  return best?.locale
}

/** What a request's language is, and whether the response must remember it (a switch the cookie does not hold). */
export interface Negotiated {
  readonly locale: Locale
  readonly remember: boolean
}

/** The switch wins, then the remembered choice, then the browser's first guess, then English. */
export const negotiate = (input: {
  readonly query: string | null
  readonly cookie: string | undefined
  readonly acceptLanguage: string | undefined
}): Negotiated => {
  if (isLocale(input.query)) return { locale: input.query, remember: input.query !== input.cookie }
  if (isLocale(input.cookie)) return { locale: input.cookie, remember: false }
  return { locale: fromAcceptLanguage(input.acceptLanguage) ?? defaultLocale, remember: false }
}

/** The request's language (see `negotiate`), remembered in the cookie `name`. */
export const fromRequestIn = (name: string): Effect.Effect<Negotiated, never, HttpServerRequest.HttpServerRequest> =>
  Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
    const query = request.url.indexOf("?")
    return negotiate({
      query: query === -1 ? null : new URLSearchParams(request.url.slice(query + 1)).get("lang"),
      cookie: request.cookies[name],
      acceptLanguage: request.headers["accept-language"]
    })
  })

/** The customer pages' language (see `negotiate`). */
export const fromRequest = fromRequestIn(cookieName)

const rememberFor = Duration.days(365)

/** The response, remembering a switched language for a year (in the cookie `name`) when `negotiated` says so. */
export const remember = (negotiated: Negotiated, secure: boolean, name: string = cookieName) =>
(response: HttpServerResponse.HttpServerResponse): HttpServerResponse.HttpServerResponse =>
  negotiated.remember
    ? HttpServerResponse.unsafeSetCookie(response, name, negotiated.locale, {
      path: "/",
      maxAge: rememberFor,
      sameSite: "lax",
      httpOnly: true,
      secure
    })
    : response
