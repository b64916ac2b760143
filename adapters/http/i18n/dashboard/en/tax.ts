/**
 * The tax forms in English: the merchant's tax profile (Settings) and a business customer's details (Customers), as
 * forms and as tables.
 */
export const tax = {
  tickOrEmpty: "Tick the box or leave it empty",
  licenceNeedsNumber: "A trade licence needs its number",
  licenceNeedsAuthority: "A trade licence needs the authority that issued it",
  none: "none",
  /** A trade licence: its number and the authority that issued it. */
  licence: (number: string, authority: string) => `${number} (${authority})`,
  profile: {
    legalName: "Legal name (English)",
    legalNameAr: "Legal name (Arabic, optional)",
    trn: "TRN (15 digits; needed when VAT registered)",
    line1: "Address line 1",
    line2: "Address line 2 (optional)",
    city: "City",
    emirate: "Emirate",
    chooseEmirate: "Choose…",
    licenceNumber: "Trade licence number (optional)",
    licenceAuthority: "Licensing authority (optional)",
    vatRegistered: "VAT registered: charge VAT and issue tax invoices",
    pricesIncludeVat: "Prices include VAT"
  },
  summary: {
    label: "Tax profile",
    legalName: "Legal name",
    trn: "TRN",
    address: "Address",
    tradeLicence: "Trade licence",
    vat: "VAT",
    registered: "Registered: tax invoices and credit notes are issued",
    notRegistered: "Not registered: no VAT is charged",
    prices: "Prices",
    includeVat: "include VAT",
    excludeVat: "exclude VAT (checkout adds it)"
  },
  buyer: {
    legend: "Business details for tax invoices (optional)",
    businessName: "Business name",
    trn: "TRN (15 digits: their invoices are full tax invoices)",
    line1: "Address line 1",
    line2: "Address line 2",
    city: "City",
    emirate: "Emirate",
    noEmirate: "None",
    peppolId: "Peppol endpoint id (scheme 0235: the TRN's first 10 digits)",
    licenceNumber: "Trade licence number",
    licenceAuthority: "Licensing authority",
    business: "Business",
    businessAddress: "Business address",
    peppolEndpoint: "Peppol endpoint",
    tradeLicence: "Trade licence"
  }
}
