/** Customers: the people who pay (docs/decisions.md §1). */
import { DateTime, Schema } from "effect"
import { AccountId, CustomerId, TestClockId } from "./Ids.js"
import { Metadata } from "./Metadata.js"
import * as Pagination from "./Pagination.js"
import { Buyer } from "./TaxProfile.js"
import type { Trn } from "./Vat.js"
import * as Text from "./Text.js"

/**
 * What no part of an address holds: `@`, spaces and controls. Spelled out code point by code point, so that the
 * OpenAPI document's pattern means the same in every regular-expression engine (`\s` does not: Python's takes
 * U+0085 and not U+FEFF, JavaScript's the reverse).
 */
const notInAddress = "@\\u0000-\\u0020\\u007f-\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff"

/**
 * A pragmatic e-mail shape: one `@`, no spaces or controls, a dot in the domain; at most 254 characters. The pattern
 * is the whole rule the document states (no `format: email`: RFC 5321's grammar is not what is checked).
 */
export const emailPattern = new RegExp(`^[^${notInAddress}]+@[^${notInAddress}]+\\.[^${notInAddress}]+$`)

/** Whether `s` is an e-mail address as `Email` decodes one: the one rule every address Fils keeps is checked by. */
export const isEmail = (s: string): boolean => Text.check(s, 1, 254) === true && emailPattern.test(s)

export const Email = Schema.String.pipe(
  Schema.filter((s) => Text.check(s, 1, 254), { jsonSchema: { maxLength: 254 } }),
  Schema.pattern(emailPattern, { message: () => "must be an e-mail address" }),
  Schema.annotations({
    identifier: "Email",
    description: "E-mail address, at most 254 characters: one `@`, a dot after it, no spaces or control characters"
  })
)
export const CustomerName = Text.Text(1, 200)
export const PhoneNumber = Schema.String.pipe(
  Schema.pattern(/^\+[0-9]{8,15}$/, { message: () => "must be an E.164 phone number: '+' and 8 to 15 digits" }),
  Schema.annotations({ identifier: "PhoneNumber", description: "E.164: '+' followed by 8 to 15 digits" })
)

const resourceFields = {
  object: Schema.Literal("customer"),
  customer_id: CustomerId,
  name: Schema.NullOr(Schema.String),
  email: Schema.String,
  phone_number: Schema.NullOr(Schema.String),
  /** A business customer's details: a full tax invoice names them; a Peppol endpoint gets its e-invoices. */
  business: Schema.NullOr(Buyer),
  metadata: Metadata,
  /** The test clock the customer's sessions, payments and subscriptions live on; null for the real time. */
  test_clock_id: Schema.NullOr(TestClockId),
  livemode: Schema.Boolean,
  created_at: Schema.DateTimeUtc
}
export const CustomerResource = Schema.Struct(resourceFields).annotations({ identifier: "Customer" })
export const Customer = Schema.Struct({ ...resourceFields, account_id: AccountId })
export type Customer = typeof Customer.Type

export const CustomerCreate = Schema.Struct({
  email: Email,
  name: Schema.optional(Schema.NullOr(CustomerName)),
  phone_number: Schema.optional(Schema.NullOr(PhoneNumber)),
  business: Schema.optional(Schema.NullOr(Buyer)),
  metadata: Schema.optional(Metadata),
  /** Test mode only: attaches the customer to this test clock, for good (docs/api.md, "Test clocks"). */
  test_clock_id: Schema.optional(Schema.NullOr(TestClockId))
}).annotations({ identifier: "CustomerCreate" })
export type CustomerCreate = typeof CustomerCreate.Type

export const CustomerUpdate = Schema.Struct({
  email: Schema.optional(Email),
  name: Schema.optional(Schema.NullOr(CustomerName)),
  phone_number: Schema.optional(Schema.NullOr(PhoneNumber)),
  /** Replaces the business details whole; `null` removes them. */
  business: Schema.optional(Schema.NullOr(Buyer)),
  metadata: Schema.optional(Metadata)
}).annotations({ identifier: "CustomerUpdate" })
export type CustomerUpdate = typeof CustomerUpdate.Type

export const create = (
  input: CustomerCreate,
  ctx: { readonly id: CustomerId; readonly accountId: AccountId; readonly livemode: boolean; readonly now: DateTime.Utc }
): Customer => ({
  object: "customer",
  customer_id: ctx.id,
  account_id: ctx.accountId,
  livemode: ctx.livemode,
  name: input.name ?? null,
  email: input.email,
  phone_number: input.phone_number ?? null,
  business: input.business ?? null,
  metadata: input.metadata ?? {},
  test_clock_id: input.test_clock_id ?? null,
  created_at: ctx.now
})

/** `null` clears `name`, `phone_number` or `business`; an absent field is left as it was. */
export const update = (customer: Customer, patch: CustomerUpdate): Customer => ({
  ...customer,
  email: patch.email ?? customer.email,
  name: patch.name !== undefined ? patch.name : customer.name,
  phone_number: patch.phone_number !== undefined ? patch.phone_number : customer.phone_number,
  business: patch.business !== undefined ? patch.business : customer.business,
  metadata: patch.metadata ?? customer.metadata
})

/**
 * The business a buyer named at checkout (its name and TRN), on the customer: the details Fils holds for the same TRN
 * (address, Peppol endpoint) are kept; another TRN starts without them. Unchanged when it names what is there.
 */
export const withCheckoutBusiness = (
  customer: Customer,
  business: { readonly name: string; readonly trn: Trn | null }
): Customer => {
  const current = customer.business
  if (current !== null && current.business_name === business.name && current.trn === business.trn) return customer
  const sameTrn = current !== null && current.trn !== null && current.trn === business.trn
  return {
    ...customer,
    business: sameTrn
      ? { ...current, business_name: business.name }
      : { business_name: business.name, trn: business.trn, address: null, peppol_endpoint: null }
  }
}

/** E-mail filters and lookups ignore case. */
export const emailKey = (email: string): string => email.toLowerCase()

/** Where a customer stands in a newest-first list. */
export const position = Pagination.byCreation<Customer>((c) => c.created_at, (c) => c.customer_id)
