/**
 * The hosted page's form (docs/decisions.md §3): validated here, before any charge, into customer details and a card.
 * Each field gets its own readable error; the card number is checked by Luhn, the expiry must not have passed,
 * the CVC is 3 or 4 digits. The card number and the CVC are `Redacted` from the moment a page reads the form
 * (`fromSubmitted`) to the processor's adapter: printing the form, a card or an error never shows them.
 */
import { DateTime, Either, Redacted } from "effect"
import { isCardNumber } from "./Card.js"
import { isEmail } from "./Customer.js"
import * as Text from "./Text.js"

export const fields = [
  "name",
  "email",
  "phone_number",
  "card_number",
  "exp",
  "exp_month",
  "exp_year",
  "cvc",
  "business_name",
  "business_trn"
] as const
export type Field = (typeof fields)[number]
/** The fields a form holds secret: the card's number and security code. */
export type SecretField = "card_number" | "cvc"
/** The form as a page submitted it: each field's text. */
export type SubmittedForm = Partial<Record<Field, string>>
/** The form as the engine takes it: the card number and CVC `Redacted`, the other fields as typed. */
export type CheckoutFormInput =
  & Partial<Record<Exclude<Field, SecretField>, string>>
  & Partial<Record<SecretField, Redacted.Redacted<string>>>
export type FieldErrors = Partial<Record<Field, string>>

/** The form a page read, its secrets `Redacted` from here on. */
export const fromSubmitted = ({ card_number, cvc, ...rest }: SubmittedForm): CheckoutFormInput => ({
  ...rest,
  ...(card_number === undefined ? {} : { card_number: Redacted.make(card_number) }),
  ...(cvc === undefined ? {} : { cvc: Redacted.make(cvc) })
})

export interface ValidCheckoutForm {
  /** The name is null only for a session's customer created without one. */
  readonly customer: { readonly name: string | null; readonly email: string; readonly phone_number: string | null }
  readonly card: ValidCard
  /** A business buyer's name and TRN, for a tax invoice naming it (both optional; a TRN needs the name). */
  readonly business: { readonly name: string; readonly trn: string | null } | null
}

/** The card fields, also the portal's card form. */
export const cardFields = ["card_number", "exp", "exp_month", "exp_year", "cvc"] as const

/**
 * Each refusal's words, by a key the pages translate by (adapters/http/i18n): the English here is the one source of
 * the English text.
 */
export const messages = {
  name: "Enter the name on the card.",
  emailSpaces: "Remove the spaces before or after the e-mail address.",
  email: "Enter a valid e-mail address.",
  phone: "Enter the phone number with its country code, e.g. +971501234567.",
  trn: "Enter the business's TRN: 15 digits.",
  businessName: "Enter the business name, up to 200 characters.",
  trnName: "Enter the name of the business the TRN belongs to.",
  cardNumber: "Enter a valid card number.",
  expMonth: "Enter the expiry month, 01 to 12.",
  expYear: "Enter the expiry year, e.g. 2030.",
  exp: "Enter the expiry as MM / YY, e.g. 08 / 29.",
  expTwice: "Give the expiry once: as MM / YY, or as a month and a year.",
  expired: "This card has expired.",
  cvc: "Enter the 3 or 4 digit security code."
}

/**
 * The expiry as one field (`MM / YY`, the hosted page's), or as `exp_month` and `exp_year` (what scripts post):
 * one of the two, never both. `MM / YY`, `MM/YY` and a four-digit year are read; anything else is refused.
 */
const expiryOf = (input: CheckoutFormInput): Either.Either<{ readonly month: number; readonly year: number }, FieldErrors> => {
  if (input.exp !== undefined) {
    if ((input.exp_month ?? "") !== "" || (input.exp_year ?? "") !== "") return Either.left({ exp: messages.expTwice })
    const parts = /^\s*([0-9]{2})\s*\/\s*([0-9]{2}|[0-9]{4})\s*$/.exec(input.exp)
    const month = parts === null ? NaN : Number(parts[1])
    const year = parts === null ? NaN : parts[2]!.length === 2 ? 2000 + Number(parts[2]) : Number(parts[2])
    if (!(month >= 1 && month <= 12 && year <= 2100)) return Either.left({ exp: messages.exp })
    return Either.right({ month, year })
  }
  const errors: FieldErrors = {}
  const monthText = (input.exp_month ?? "").trim()
  const yearText = (input.exp_year ?? "").trim()
  const month = /^[0-9]{1,2}$/.test(monthText) ? Number(monthText) : NaN
  const year = /^[0-9]{2}$/.test(yearText) ? 2000 + Number(yearText) : /^[0-9]{4}$/.test(yearText) ? Number(yearText) : NaN
  if (!(month >= 1 && month <= 12)) errors.exp_month = messages.expMonth
  if (!(year >= 2000 && year <= 2100)) errors.exp_year = messages.expYear
  return Object.keys(errors).length > 0 ? Either.left(errors) : Either.right({ month, year })
}

export interface ValidCard {
  readonly number: Redacted.Redacted<string>
  readonly expMonth: number
  readonly expYear: number
  readonly cvc: Redacted.Redacted<string>
}

const textOf = (secret: Redacted.Redacted<string> | undefined): string => secret === undefined ? "" : Redacted.value(secret)

/** The card fields alone (the portal's card form): Luhn, an expiry not passed, a 3 or 4 digit CVC. */
export const validateCard = (input: CheckoutFormInput, now: DateTime.Utc): Either.Either<ValidCard, FieldErrors> => {
  const errors: FieldErrors = {}
  const number = textOf(input.card_number).replace(/[\s-]/g, "")
  const cvc = textOf(input.cvc).trim()
  if (!isCardNumber(number)) errors.card_number = messages.cardNumber
  const expiry = expiryOf(input)
  if (Either.isLeft(expiry)) Object.assign(errors, expiry.left)
  else {
    // A card is valid through the last day of its expiry month.
    const parts = DateTime.toParts(now)
    const { month, year } = expiry.right
    if (year < parts.year || (year === parts.year && month < parts.month)) errors[input.exp !== undefined ? "exp" : "exp_year"] = messages.expired
  }
  if (!/^[0-9]{3,4}$/.test(cvc)) errors.cvc = messages.cvc
  return Either.isLeft(expiry) || Object.keys(errors).length > 0
    ? Either.left(errors)
    : Either.right({ number: Redacted.make(number), expMonth: expiry.right.month, expYear: expiry.right.year, cvc: Redacted.make(cvc) })
}

/** The contact fields, each refusal in `errors`. */
const contactOf = (input: CheckoutFormInput, errors: FieldErrors): ValidCheckoutForm["customer"] => {
  // The name and e-mail are kept as typed, as the API keeps them: nothing is trimmed away unseen.
  const name = input.name ?? ""
  const email = input.email ?? ""
  const phone = (input.phone_number ?? "").replace(/[\s-]/g, "")
  // Lengths in characters, as the API counts them (an emoji is one).
  if (name.trim() === "" || Text.check(name, 1, 200) !== true) errors.name = messages.name
  if (email !== email.trim()) errors.email = messages.emailSpaces
  else if (!isEmail(email)) errors.email = messages.email
  if (phone !== "" && !/^\+[0-9]{8,15}$/.test(phone)) errors.phone_number = messages.phone
  return { name, email, phone_number: phone === "" ? null : phone }
}

/**
 * The form as the page asked for it. `payer`: the customer the session was created for, who pays it: the page shows
 * their details read-only, and contact fields a script posts anyway are not read (the merchant chose the payer).
 */
export const validate = (
  input: CheckoutFormInput,
  now: DateTime.Utc,
  payer?: ValidCheckoutForm["customer"]
): Either.Either<ValidCheckoutForm, FieldErrors> => {
  const errors: FieldErrors = {}
  const customer = payer ?? contactOf(input, errors)
  // As typed: a TRN with spaces is refused, not read as its digits.
  const businessName = input.business_name ?? ""
  const trn = input.business_trn ?? ""
  if (trn !== "" && !/^[0-9]{15}$/.test(trn)) errors.business_trn = messages.trn
  if (Text.check(businessName, 0, 200) !== true || (businessName !== "" && businessName.trim() === "")) {
    errors.business_name = messages.businessName
  } else if (trn !== "" && errors.business_trn === undefined && businessName === "") errors.business_name = messages.trnName
  const card = validateCard(input, now)
  if (Either.isLeft(card)) Object.assign(errors, card.left)

  return Either.isLeft(card) || Object.keys(errors).length > 0
    ? Either.left(errors)
    : Either.right({
      customer,
      card: card.right,
      business: businessName === "" ? null : { name: businessName, trn: trn === "" ? null : trn }
    })
}
