/**
 * The dashboard's products pages in English: the products list and the new-product form, a product's page and edit
 * form (its trial and VAT), archiving one, the checkout link made for one, and the checkout sessions.
 */
import type { ExemptionCode } from "../../../../../src/domain/Vat.js"
import { exemptionReasons } from "../../../../einvoice/PintAe.js"
import { en as customerPages } from "../../en.js"

export const products = {
  /** A role's refusals (`role` already in the page's words). */
  cannotCreate: (role: string) => `A ${role} cannot create products.`,
  cannotChange: (role: string) => `A ${role} cannot change products.`,
  cannotMakeLinks: (role: string) => `A ${role} cannot make checkout links.`,
  list: {
    title: "Products",
    product: "Product",
    price: "Price",
    billing: "Billing",
    status: "Status",
    /** A recurring product's billing: `every month`, `every 3 months`. */
    every: customerPages.every,
    /** After its billing, a recurring product's trial. */
    withTrial: (every: string, days: number) => `${every}, ${days}-day trial`,
    oneTime: "one-time",
    makeCheckoutLink: "Make a checkout link",
    makeActive: "Make active",
    archive: "Archive…",
    archiveLabel: (name: string) => `Archive ${name}`,
    newProduct: "New product",
    create: "Create product",
    created: (name: string) => `Created ${name}.`,
    notCreated: "The product was not created: correct the fields marked below."
  },
  form: {
    /** A text field's label with its length limit (already worded). */
    name: (limit: string) => `Name (${limit})`,
    description: (limit: string) => `Description (${limit})`,
    priceInAed: "Price in AED",
    billing: "Billing",
    billings: { one_time: "One-time", month: "Monthly", year: "Yearly", week: "Weekly", day: "Daily" },
    trialLegend: "Trial (recurring products)",
    trialDays: (max: number) => `Trial days (0 to ${max}; 0 for none)`,
    trialAmount: "A paid trial's charge per unit, AED (empty for a free trial)",
    vatLegend: "VAT",
    taxCategory: "Tax category",
    /** A tax category in a select: its code, its name, the standard one's rate. */
    categoryOption: (code: string, name: string, standard: boolean) => `${code}: ${name}${standard ? " (5 %)" : ""}`,
    exemptionReason: "Exemption reason (exempt products only)",
    notExempt: "None (not exempt)",
    /** An exemption reason's words (the e-invoice writes them in English, as PINT AE names them). */
    exemptionReasons: exemptionReasons as Record<ExemptionCode, string>,
    itemType: "Item type",
    services: "Services",
    goods: "Goods",
    itemCode: "Item code (optional: a service accounting code or an HS code)",
    save: "Save product",
    saved: "Saved.",
    notSaved: "The product was not saved: correct the fields marked below."
  },
  refusals: {
    price: "Enter the price in AED, e.g. 65.00",
    trialPrice: "Enter the trial's price in AED, e.g. 10.00, or leave it empty for a free trial",
    exemptNeedsReason: "An exempt product needs the reason it is exempt",
    onlyExemptHasReason: "Only an exempt product has an exemption reason: choose None, or the category Exempt"
  },
  page: {
    id: "Id",
    price: "Price",
    status: "Status",
    description: "Description",
    vat: "VAT",
    item: "Item",
    /** The item's type, then its code (the code itself follows in `<code>`). */
    itemCode: ", code",
    trial: "Trial",
    noTrial: "none",
    /** A trial: its days, and its charge per unit (`null`: free). */
    trialText: (days: number, amount: string | null) => `${days} days, ${amount === null ? "free" : `${amount} per unit`}`,
    planChanges: "Plan changes",
    customerPortal: "Customer portal",
    offered: "offered as a plan to change to",
    notOffered: "not offered"
  },
  archive: {
    title: (name: string) => `Archive ${name}?`,
    noNewCheckout:
      "No new checkout can be started for it: the API and the dashboard refuse new checkout sessions and links for an archived product.",
    linksStillPaid: "Checkout links already made for it can still be paid until they expire (24 hours after they were made).",
    subscriptionsKeep: "Subscriptions already on it keep renewing at their price; customers can no longer switch to it in the portal.",
    historyStays: "Its payments, invoices and history stay. You can make it active again at any time.",
    button: "Archive the product",
    archived: "Archived.",
    activeAgain: "Active again."
  },
  checkoutLinkMade: "Checkout link made: copy its URL below.",
  sessions: {
    title: "Checkout sessions",
    session: "Session",
    status: "Status",
    total: "Total",
    created: "Created",
    none: "No checkout sessions.",
    older: "Older sessions →"
  },
  session: {
    title: "Checkout session",
    id: "Id",
    status: "Status",
    checkoutUrl: "Checkout URL",
    total: "Total",
    discount: "Discount",
    expires: "Expires",
    payment: "Payment"
  }
}
