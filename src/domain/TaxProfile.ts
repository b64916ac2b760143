/**
 * Who sells and who buys, as UAE tax documents name them: the merchant's tax profile (the supplier on every
 * document) and a business buyer's details. The rules are the ones a document needs (Executive Regulation,
 * Art. 59 and 60; PINT AE for e-invoices); whether a merchant must register is the merchant's matter, not Fils'.
 */
import { Schema } from "effect"
import * as Text from "./Text.js"
import { Trn } from "./Vat.js"

/** The emirate of an address, by the code PINT AE uses. */
export const Emirate = Schema.Literal("AUH", "DXB", "SHJ", "UAQ", "FUJ", "AJM", "RAK").annotations({
  identifier: "Emirate",
  description: "Emirate: AUH Abu Dhabi, DXB Dubai, SHJ Sharjah, UAQ Umm Al Quwain, FUJ Fujairah, AJM Ajman, RAK Ras Al Khaimah."
})
export type Emirate = typeof Emirate.Type

/** A postal address in the UAE. */
export const Address = Schema.Struct({
  line1: Text.Text(1, 200),
  line2: Schema.NullOr(Text.Text(1, 200)),
  city: Text.Text(1, 100),
  emirate: Emirate,
  country: Schema.Literal("AE")
}).annotations({ identifier: "Address" })
export type Address = typeof Address.Type

/** A trade licence: its number and the authority that issued it (a legal registration PINT AE names). */
export const TradeLicence = Schema.Struct({ number: Text.Text(1, 50), authority: Text.Text(1, 100) }).annotations({
  identifier: "TradeLicence"
})
export type TradeLicence = typeof TradeLicence.Type

/**
 * The merchant as the supplier of its documents. A VAT-registered merchant has a TRN; its prices include VAT unless
 * it says otherwise (then checkout adds VAT, per line).
 */
export const TaxProfile = Schema.Struct({
  legal_name: Text.Text(1, 200),
  legal_name_ar: Schema.NullOr(Text.Text(1, 200)),
  trn: Schema.NullOr(Trn),
  address: Address,
  trade_licence: Schema.NullOr(TradeLicence),
  vat_registered: Schema.Boolean,
  prices_include_vat: Schema.Boolean
}).pipe(
  Schema.filter((p) => !p.vat_registered || p.trn !== null || "A VAT-registered merchant needs its TRN"),
  Schema.annotations({ identifier: "TaxProfile" })
)
export type TaxProfile = typeof TaxProfile.Type

/** A Peppol participant: for the UAE, scheme 0235 and the first 10 digits of the TRN. */
export const PeppolEndpoint = Schema.Struct({
  scheme: Schema.Literal("0235"),
  id: Schema.String.pipe(Schema.pattern(/^[0-9]{10}$/, { message: () => "A UAE Peppol id is the TRN's first 10 digits" }))
}).annotations({ identifier: "PeppolEndpoint" })
export type PeppolEndpoint = typeof PeppolEndpoint.Type

/** The endpoint a TRN gives a UAE business (PINT AE: scheme 0235, the TRN's first 10 digits). */
export const endpointOf = (trn: Trn): PeppolEndpoint => ({ scheme: "0235", id: trn.slice(0, 10) })

/** A buyer that is a business: what a full tax invoice names, and where its e-invoice goes. */
export const Buyer = Schema.Struct({
  business_name: Text.Text(1, 200),
  trn: Schema.NullOr(Trn),
  address: Schema.NullOr(Address),
  peppol_endpoint: Schema.NullOr(PeppolEndpoint),
  /** Its trade licence: an e-invoice of only exempt or out-of-scope supplies must name the buyer's registration. */
  trade_licence: Schema.optionalWith(TradeLicence, { exact: true })
}).pipe(
  // An e-invoice goes to a registered business's endpoint, which its TRN gives; it names the buyer's address.
  Schema.filter((b) =>
    b.peppol_endpoint === null ||
    (b.trn === null
      ? "A Peppol endpoint needs the business's TRN"
      : b.address === null
      ? "A Peppol endpoint needs the business's address"
      : b.peppol_endpoint.id === b.trn.slice(0, 10) || "The Peppol endpoint's id is the TRN's first 10 digits"), {
    // The same rule for the OpenAPI document, but for the id's match with the TRN, which JSON Schema cannot compare.
    jsonSchema: {
      if: { properties: { peppol_endpoint: { type: "object" } } },
      then: { properties: { trn: { type: "string" }, address: { type: "object" } } },
      description: "A business buyer: what a full tax invoice names and where its e-invoice goes. A `peppol_endpoint` " +
        "needs the business's `trn` and `address`, and its `id` is the TRN's first 10 digits."
    }
  }),
  Schema.annotations({ identifier: "Buyer", description: "A business buyer: what a full tax invoice names and where its e-invoice goes." })
)
export type Buyer = typeof Buyer.Type
