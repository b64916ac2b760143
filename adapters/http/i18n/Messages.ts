/**
 * The catalogues by language, and the words of the engine's own refusals (the form's, a decline's) in the page's
 * language: the engine words them in English under a key, the catalogues word each key.
 */
import { messages } from "../../../src/domain/CheckoutForm.js"
import { ar } from "./ar.js"
import { type Catalogue, en } from "./en.js"
import { defaultTimeZone } from "./Format.js"
import type { Locale } from "./Locale.js"

export type { Catalogue }

export const catalogues: Readonly<Record<Locale, Catalogue>> = { en, ar }

/** The catalogue of `locale`. */
export const messagesOf = (locale: Locale): Catalogue => catalogues[locale]

const fieldErrorKeys = new Map(
  Object.entries(messages).map(([key, text]) => [text, key as keyof typeof messages] as const)
)

/** A form field's refusal (as `CheckoutForm` words it) in the catalogue's language; unknown words pass through. */
export const fieldError = (catalogue: Catalogue, text: string): string => {
  const key = fieldErrorKeys.get(text)
  return key === undefined ? text : catalogue.fieldErrors[key]
}

/** What a page speaks: its language, that language's catalogue, and the time zone its times are shown in. */
export interface Lang {
  readonly locale: Locale
  readonly t: Catalogue
  readonly zone: string
}

const inDefaultZone: Readonly<Record<Locale, Lang>> = {
  en: { locale: "en", t: en, zone: defaultTimeZone },
  ar: { locale: "ar", t: ar, zone: defaultTimeZone }
}

/** `lang` showing times in `zone` (the account's, once the page knows whose it is). */
export const inZone = (lang: Lang, zone: string): Lang => (zone === lang.zone ? lang : langOf(lang.locale, zone))

/** The page's `Lang`: no catalogue is built per request, only picked. */
export const langOf = (locale: Locale, zone: string = defaultTimeZone): Lang =>
  zone === defaultTimeZone ? inDefaultZone[locale] : { locale, t: catalogues[locale], zone }

/**
 * A merchant's or customer's words (a product's name) inside an Arabic sentence, isolated (U+2068…U+2069) so that a
 * Latin name does not reorder the words around it. English sentences take them as they are.
 */
export const isolate = (lang: Lang, text: string): string => (lang.locale === "ar" ? `\u2068${text}\u2069` : text)
