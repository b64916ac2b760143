/**
 * The engine's refusals a customer page shows, in the page's language: chosen by the error's tag and worded from its
 * data (docs/languages.md). The engine words its errors in English for the API; an Arabic page never shows them.
 */
import type {
  CardRefused,
  InvalidRequest,
  InvalidState,
  RateLimited,
  RenewalInProgress,
  SubscriptionNotChangeable
} from "../../../src/domain/Errors.js"
import { declineCode } from "../../../src/domain/Payment.js"
import type { FormFieldRepeated, FormNotUtf8 } from "../html/Forms.js"
import type { Catalogue } from "./en.js"

/** What a change in the portal (a card, a cancellation, a plan) may be refused with. */
export type PortalRefusal =
  | CardRefused
  | InvalidRequest
  | InvalidState
  | RateLimited
  | RenewalInProgress
  | SubscriptionNotChangeable

/** `error` in the catalogue's words. */
export const refusal = (t: Catalogue, error: PortalRefusal): string => {
  switch (error._tag) {
    case "CardRefused":
      return t.declines[declineCode(error.decline_code)]
    case "SubscriptionNotChangeable":
      return t.refusals.notChangeable({ status: error.status, message: error.message })
    case "RenewalInProgress":
      return t.refusals.renewalInProgress(error.message)
    case "RateLimited":
      return t.refusals.rateLimited({ seconds: error.retryAfterSeconds, message: error.message })
    case "InvalidState":
      return t.refusals.notNow(error.message)
    case "InvalidRequest":
      return t.refusals.invalid(error.message)
  }
}

/** A posted form the page refused before reading it (`readForm`), in the catalogue's words. */
export const formRefusal = (t: Catalogue, error: FormNotUtf8 | FormFieldRepeated): string =>
  error._tag === "FormNotUtf8" ? t.formNotUtf8 : t.formRepeated(error.field)
