/** The dashboard's discounts page in English: the codes, a new one, and what a subscription's discount takes off. */
export const discounts = {
  cannotCreate: (role: string) => `A ${role} cannot create discounts.`,
  cannotChange: (role: string) => `A ${role} cannot change discounts.`,
  title: "Discounts",
  code: "Code",
  takesOff: "Takes off",
  use: "Use",
  /** A percentage off, already formatted (`12.5`). */
  percent: (n: string) => `${n} %`,
  allProducts: "All products",
  cycles: (n: number) => (n === 1 ? "1 billing cycle" : `${n} billing cycles`),
  used: (times: number, limit: number | null) => `${times}${limit === null ? "" : ` of ${limit}`} used`,
  neverEnds: "Never ends",
  ends: (at: string) => `Ends ${at}`,
  status: { expired: "disabled or expired", usedUp: "used up", active: "active" },
  enable: "Enable",
  disable: "Disable",
  delete: "Delete",
  none: "No discounts yet.",
  older: "Older discounts →",
  form: {
    heading: "New discount",
    code: "Code (3 to 16 letters, digits, - or _; customers may type it in any case; empty: one is made up)",
    name: (limit: string) => `Name (optional, ${limit})`,
    type: "Type",
    percentage: "Percentage off",
    flat: "Amount off, in AED",
    amount: "Percentage (e.g. 10 or 12.5) or amount in AED (e.g. 25.00)",
    usageLimit: "Usage limit (optional: how many payments may use it)",
    cycles: "Subscription cycles (optional: how many payments of a subscription it takes off, the first included; empty: all)",
    lastDay: (timeZone: string) => `Last day (optional, YYYY-MM-DD: the code works until the end of that day, ${timeZone})`,
    appliesTo: "Applies to (none ticked: every product)",
    noProducts: "No active products.",
    create: "Create discount"
  },
  refusals: {
    flat: "Enter the amount off in AED, e.g. 25.00",
    percent: "Enter the percentage off, 0.01 to 100 (e.g. 10 or 12.5)",
    usageLimit: "Enter the usage limit as a whole number, or leave it empty for no limit",
    cycles: "Enter the subscription cycles as a whole number, or leave it empty for every cycle",
    lastDay: "Enter the last day as YYYY-MM-DD, e.g. 2026-12-31, or leave it empty"
  },
  done: {
    created: (code: string) => `Created the discount ${code}.`,
    deleted: "Deleted.",
    disabled: (code: string) => `Disabled ${code}: it can no longer be redeemed.`,
    enabled: (code: string) => `${code} can be redeemed again.`
  },
  /** A subscription's discount: what it takes off (`10 %`), and for how many more renewals (`null`: every one). */
  onSubscription: (terms: string, remaining: number | null) =>
    `${terms} off ${
      remaining === null
        ? "every renewal"
        : remaining === 0
        ? "no more renewals (its cycles are used)"
        : `the next ${remaining === 1 ? "renewal" : `${remaining} renewals`}`
    }`
}
