/** A VAT-registered merchant's tax profile and a business buyer, as a merchant would give them (wire form). */
import { Schema } from "effect"
import { TaxProfile } from "../../src/domain/TaxProfile.js"

export const merchantTrn = "100234567800003"
export const buyerTrn = "100987654300003"

/** The wire form of a VAT-registered merchant's profile (prices include VAT). */
export const vatProfileJson = {
  legal_name: "Karak House Trading LLC",
  legal_name_ar: "بيت الكرك للتجارة ذ.م.م",
  trn: merchantTrn,
  address: { line1: "Shop 4, Al Fahidi Street", line2: null, city: "Dubai", emirate: "DXB", country: "AE" },
  trade_licence: { number: "DED-123456", authority: "Dubai Economy and Tourism" },
  vat_registered: true,
  prices_include_vat: true
} as const

/** The same profile decoded, as `Accounts.update(accountId, { tax_profile })` takes it. */
export const vatProfile: TaxProfile = Schema.decodeUnknownSync(TaxProfile)(vatProfileJson)

/** A business customer with a TRN (its e-invoices go to the Peppol endpoint the TRN gives). */
export const businessJson = {
  business_name: "Falcon Logistics FZE",
  trn: buyerTrn,
  address: { line1: "Warehouse 12, Jebel Ali Free Zone", line2: null, city: "Dubai", emirate: "DXB", country: "AE" },
  peppol_endpoint: { scheme: "0235", id: buyerTrn.slice(0, 10) }
} as const
