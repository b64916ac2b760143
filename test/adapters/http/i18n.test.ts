/** The customer pages' languages: which one a request gets, how amounts and times are written, and the catalogues. */
import { DateTime } from "effect"
import { describe, expect, it } from "vitest"
import { messages } from "../../../src/domain/CheckoutForm.js"
import { html } from "../../../adapters/http/html/Html.js"
import { date, dateTime, decimal, money } from "../../../adapters/http/i18n/Format.js"
import { fromAcceptLanguage, negotiate } from "../../../adapters/http/i18n/Locale.js"
import { catalogues, fieldError, langOf } from "../../../adapters/http/i18n/Messages.js"
import { type PortalRefusal, refusal } from "../../../adapters/http/i18n/Refusals.js"
import { messagePage as checkoutMessagePage } from "../../../adapters/http/checkout/Page.js"
import * as PortalPages from "../../../adapters/http/portal/Pages.js"
import { staleFormMessage } from "../../../src/domain/CheckoutSession.js"
import {
  CardRefused,
  InvalidRequest,
  InvalidState,
  RateLimited,
  RenewalInProgress,
  SubscriptionNotChangeable
} from "../../../src/domain/Errors.js"
import { declineMessage } from "../../../src/domain/Payment.js"

describe("negotiation", () => {
  it("takes the browser's first guess among English and Arabic, by weight", () => {
    expect(fromAcceptLanguage("ar-AE,ar;q=0.9,en;q=0.8")).toBe("ar")
    expect(fromAcceptLanguage("en-US,en;q=0.9,ar;q=0.8")).toBe("en")
    expect(fromAcceptLanguage("fr-FR, fr;q=0.9, ar;q=0.5, en;q=0.4")).toBe("ar")
    expect(fromAcceptLanguage("en;q=0.2, AR;q=0.7")).toBe("ar")
    expect(fromAcceptLanguage("ar;q=0, en;q=0.1")).toBe("en")
    expect(fromAcceptLanguage("arabic, english")).toBeUndefined()
    expect(fromAcceptLanguage("*")).toBeUndefined()
    expect(fromAcceptLanguage("de-DE")).toBeUndefined()
    expect(fromAcceptLanguage(undefined)).toBeUndefined()
  })

  it("lets the switch win and remembers it, then the cookie, then Accept-Language, then English", () => {
    expect(negotiate({ query: "ar", cookie: undefined, acceptLanguage: "en" })).toEqual({ locale: "ar", remember: true })
    expect(negotiate({ query: "ar", cookie: "ar", acceptLanguage: "en" })).toEqual({ locale: "ar", remember: false })
    expect(negotiate({ query: "en", cookie: "ar", acceptLanguage: "ar" })).toEqual({ locale: "en", remember: true })
    expect(negotiate({ query: null, cookie: "ar", acceptLanguage: "en-GB" })).toEqual({ locale: "ar", remember: false })
    expect(negotiate({ query: null, cookie: undefined, acceptLanguage: "ar-AE" })).toEqual({ locale: "ar", remember: false })
    expect(negotiate({ query: null, cookie: undefined, acceptLanguage: undefined })).toEqual({ locale: "en", remember: false })
    // A switch or cookie naming no language of ours is not one: nothing is remembered from it.
    expect(negotiate({ query: "fr", cookie: "xx", acceptLanguage: "ar" })).toEqual({ locale: "ar", remember: false })
  })
})

describe("formatting", () => {
  it("writes AED amounts exactly from integer fils, in en-AE and ar-AE", () => {
    expect(money("en", 34900, "AED")).toBe("AED 349.00")
    expect(money("en", 5, "AED")).toBe("AED 0.05")
    expect(money("en", -123450, "AED")).toBe("-AED 1,234.50")
    // Past 2^53 / 100 a division by 100 would lose the fils; the decimal string keeps them.
    expect(decimal(Number.MAX_SAFE_INTEGER, "AED")).toBe("90071992547409.91")
    expect(money("en", Number.MAX_SAFE_INTEGER, "AED")).toBe("AED 90,071,992,547,409.91")
    expect(money("en", 1_000_000_001, "AED")).toBe("AED 10,000,000.01")
    expect(money("ar", 34900, "AED")).toContain("349.00")
    expect(money("ar", 34900, "AED")).toContain("د.إ.")
    expect(money("ar", 34900, "AED")).not.toContain("AED")
    expect(() => money("en", 1.5, "AED")).toThrow(RangeError)
  })

  it("writes dates and times in the time zone it is given", () => {
    const lateEvening = DateTime.unsafeMake("2026-11-27T21:30:00Z")
    expect(date("en", lateEvening, "Asia/Dubai")).toBe("28 Nov 2026")
    expect(date("en", lateEvening, "UTC")).toBe("27 Nov 2026")
    expect(date("ar", lateEvening, "Asia/Dubai")).toBe("28 نوفمبر 2026")
    expect(dateTime("en", lateEvening, "Asia/Dubai")).toBe("28 Nov 2026, 01:30 AM GST")
    expect(dateTime("en", lateEvening, "Europe/London")).toBe("27 Nov 2026, 09:30 PM GMT")
    expect(dateTime("ar", lateEvening, "Asia/Dubai")).toContain("01:30")
    expect(dateTime("ar", lateEvening, "Asia/Dubai")).toContain("نوفمبر")
  })

  it("counts intervals in Arabic with the number's own form of the noun", () => {
    const { every } = catalogues.ar
    expect([1, 2, 3, 10, 12].map((n) => every("month", n))).toEqual(["كل شهر", "كل شهرين", "كل 3 أشهر", "كل 10 أشهر", "كل 12 شهرًا"])
    expect(every("year", 1)).toBe("كل سنة")
    expect(catalogues.en.every("week", 2)).toBe("every 2 weeks")
  })
})

/** Every leaf of a catalogue, by its path. */
const leaves = (value: unknown, path = ""): Array<readonly [string, unknown]> =>
  typeof value === "object" && value !== null && !("__html" in value)
    ? Object.entries(value).flatMap(([key, inner]) => leaves(inner, path === "" ? key : `${path}.${key}`))
    : [[path, value]]

/** What each function of the catalogue is shown with; a function missing here fails the test below. */
const samples: Record<string, ReadonlyArray<unknown>> = {
  every: ["month", 3],
  "checkout.payTitle": ["Souq"],
  "checkout.backTo": ["Souq"],
  "checkout.returnTo": ["Souq"],
  "checkout.trialLine": [14, true],
  "checkout.discount": ["RAMADAN"],
  "checkout.discountPayments": [3, true],
  "checkout.chargedToday": ["1"],
  "checkout.trialThen": [{ amount: "1", vatIncluded: true, schedule: "2", discounted: true, firstCharge: html`3`, days: 14 }],
  "checkout.pay": ["1"],
  "checkout.trialStarted": [{ days: 14, amount: "1", on: "2" }],
  "formRepeated": ["name"],
  "portal.title": ["Souq"],
  "portal.questions": [html`a@b.ae`],
  "portal.signedInAs": [html`Layla`],
  "portal.refunded": ["1"],
  "portal.creditNote": ["INV-1"],
  "portal.returnTo": ["Souq"],
  "portal.card": [{ brand: "Visa", last4: "4242", expiry: "12/2030" }],
  "portal.cardLine": ["1"],
  "portal.cancelledOn": ["1"],
  "portal.overdue": [{ due: "1", retry: "2" }],
  "portal.endsOn": ["1"],
  "portal.endsBadge": ["1"],
  "portal.nextPayment": ["1", "2"],
  "portal.keepPlan": ["Beans"],
  "portal.changesTo": ["Beans", "1"],
  "portal.credit": ["1"],
  "portal.confirmCancel": ["Beans", "1"],
  "portal.cardTitle": ["Souq"],
  "portal.cardHeading": ["Beans"],
  "portal.cardNow": ["1"],
  "portal.overdueCharged": ["1"],
  "portal.saveCardAndPay": ["1"],
  "portal.askSupport": [html`a@b.ae`],
  "portal.savedButDeclined": ["1"],
  "portal.receiptTitle": ["pay_1", "Souq"],
  "portal.refundedOn": ["1"],
  "portal.refundInProgress": ["1"],
  "portal.planTitle": ["Souq"],
  "portal.planNow": [html`Beans`],
  "portal.refusalScheduled": ["Beans", "1"],
  "portal.reviewTitle": ["Souq"],
  "portal.atNextPayment": ["1"],
  "portal.nothingCharged": ["1"],
  "portal.firstPeriod": ["month"],
  "portal.creditFor": [{ of: "unused", name: "Beans", balance: true }],
  "portal.includingVat": ["1"],
  "portal.fromThenValue": ["1", "2", "3"],
  "portal.nextPaymentThen": ["1", "2", "3"],
  "portal.nextPaymentLessCredit": [{ amount: "1", date: "2", recurring: "3", every: "4" }],
  "portal.creditLeftValue": ["1"],
  "portal.confirmPay": ["1"],
  "portal.cannotChange": ["1"],
  "portal.planDeclined": ["1"],
  "checkout.notPayableNow": ["A payment for this checkout is already being processed."],
  "refusals.notChangeable": [{ status: "cancelled", message: "Subscription sub_1 is cancelled; cannot update" }],
  "refusals.renewalInProgress": ["A charge of this subscription is still in progress"],
  "refusals.rateLimited": [{ seconds: 42, message: "Too many cards tried; try again in 42 seconds" }],
  "refusals.notNow": ["This quote has expired"],
  "refusals.invalid": ["cancel_at_period_end must be a boolean"]
}

const text = (value: unknown) => (typeof value === "object" && value !== null && "__html" in value ? (value as { __html: string }).__html : value)

describe("catalogues", () => {
  const english = new Map(leaves(catalogues.en))
  const arabic = new Map(leaves(catalogues.ar))

  it("translate every English string into Arabic, none empty or left in English", () => {
    expect([...arabic.keys()].sort()).toEqual([...english.keys()].sort())
    const untranslated: Array<string> = []
    for (const [path, en] of english) {
      const ar = arabic.get(path)
      const args = samples[path]
      if (typeof en === "function") {
        if (args === undefined || typeof ar !== "function") {
          untranslated.push(`${path}: no sample arguments`)
          continue
        }
        const [enText, arText] = [String(text(en(...args))), String(text(ar(...args)))]
        if (!/[\u0600-\u06FF]/.test(arText) || arText === enText) untranslated.push(`${path}: ${arText}`)
      } else if (path !== "languageName" && path !== "comma") {
        if (typeof ar !== "string" || ar.trim() === "" || ar === en || !/[\u0600-\u06FF]/.test(ar)) untranslated.push(`${path}: ${String(ar)}`)
        // An English word left in the Arabic (a letter run; the phone example's digits are not words).
        else if (/[A-Za-z]{2,}/.test(ar)) untranslated.push(`${path}: ${ar}`)
      }
    }
    expect(untranslated).toEqual([])
  })

  it("words every refusal of the card form, by the engine's English words", () => {
    for (const [key, words] of Object.entries(messages)) {
      expect(fieldError(catalogues.en, words)).toBe(words)
      expect(fieldError(catalogues.ar, words)).toBe(catalogues.ar.fieldErrors[key as keyof typeof messages])
    }
    expect(fieldError(catalogues.ar, "Something new.")).toBe("Something new.")
  })

  /** The engine's refusals a customer page may show, as the engine words them (in English, for the API). */
  const engineRefusals: ReadonlyArray<PortalRefusal> = [
    new CardRefused({ decline_code: "insufficient_funds", message: declineMessage("insufficient_funds") }),
    new SubscriptionNotChangeable({ subscription_id: "sub_1", status: "cancelled", change: "update" }),
    new SubscriptionNotChangeable({ subscription_id: "sub_1", status: "on_hold", change: "change plan" }),
    new RenewalInProgress({ subscription_id: "sub_1", payment_id: "pay_1" }),
    RateLimited.after("cards tried", 42),
    new InvalidState({ message: "A payment for this checkout is already being processed." }),
    new InvalidRequest({ message: "cancel_at_period_end must be true or false" })
  ]

  /** The text of a page's body with its markup, and the words a page may show in Latin letters, taken out. */
  const bodyText = (page: string) =>
    page.replace(/^[\s\S]*<body[^>]*>/, "").replace(/<style[\s\S]*?<\/style>/g, "").replace(/<[^>]+>/g, " ")
  /** An English word left on a page: a run of Latin letters (the language switch names English in English). */
  const englishWords = (page: string) => (bodyText(page).replace(/English/g, "").match(/[A-Za-z]{2,}/g) ?? [])

  it("words the engine's refusals on a customer page by their tag and data: as the engine in English, never in English in Arabic", () => {
    const frame = (locale: "en" | "ar") => ({ nonce: "n", base: "/portal", lang: langOf(locale) })
    for (const error of engineRefusals) {
      const english = refusal(catalogues.en, error)
      expect(english).toBe(error._tag === "RateLimited" ? `${error.message}.` : error.message)
      const page = PortalPages.messagePage(frame("ar"), catalogues.ar.portal.nothingChangedTitle, refusal(catalogues.ar, error))
      expect(page).toContain('dir="rtl"')
      expect(englishWords(page), error._tag).toEqual([])
    }
    // The checkout's own: a stale form and a payment already in progress.
    expect(catalogues.en.checkout.staleForm).toBe(staleFormMessage)
    const lang = langOf("ar")
    for (const message of [lang.t.checkout.staleForm, lang.t.checkout.notPayableNow("A payment for this checkout is already being processed.")]) {
      const page = checkoutMessagePage({ lang, title: lang.t.checkout.notSentTitle, businessName: "متجر", nonce: "n", message, tone: "alert" })
      expect(englishWords(page), message).toEqual([])
    }
  })
})
