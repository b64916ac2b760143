/** The dashboard's home page in English: the sums, the chart, what needs a look, the first steps, recent payments. */
export const home = {
  title: "Home",
  todaySoFar: "Today so far",
  mrr: "Monthly recurring revenue",
  /** `n` subscriptions paying, `count` the number as the page writes it. */
  paying: (n: number, count: string) => `${count} paying subscription${n === 1 ? "" : "s"}`,
  periods: "Period",
  lastDays: (_days: number, count: string) => `Last ${count} days`,
  stats: {
    gross: "Gross volume",
    net: "Net volume",
    refunds: "Refunds",
    newSubscriptions: "New subscriptions",
    succeeded: "Succeeded payments",
    failed: "Failed payments",
    fees: "Fees"
  },
  /** How a sum compares with the same length of time before it. */
  change: {
    previous: (days: number, count: string) => `the previous ${days === 1 ? "day" : `${count} days`}`,
    same: (previous: string) => `Same as ${previous}`,
    upFromNone: (previous: string) => `Up from none ${previous}`,
    up: (percent: string, previous: string) => `▲ ${percent} % on ${previous}`,
    down: (percent: string, previous: string) => `▼ ${percent} % on ${previous}`
  },
  /** Monthly recurring revenue against the figure recorded on `day` (the end of the previous period, or before). */
  mrrBefore: {
    same: (day: string) => `Same as on ${day}`,
    upFromNone: (day: string) => `Up from none on ${day}`,
    up: (percent: string, day: string) => `▲ ${percent} % since ${day}`,
    down: (percent: string, day: string) => `▼ ${percent} % since ${day}`,
    none: "No earlier figure to compare yet"
  },
  chart: {
    heading: "Daily volume",
    /** The chart's title for a screen reader: its first and last days, and the time zone its days are in. */
    title: (first: string, last: string, timeZone: string) => `Gross volume each day, ${first} to ${last} (${timeZone})`,
    noVolume: "No volume on any day.",
    description: (total: string, busiestDay: string, busiest: string) => `Total ${total}; the busiest day ${busiestDay} with ${busiest}.`
  },
  gettingStarted: {
    heading: "Getting started",
    done: "Done",
    product: "Make a product",
    productWhy: "What you sell, with its price, one-time or recurring.",
    payment: "Take a test payment",
    paymentWhy: "Make a checkout link and pay it with the test card 4242 4242 4242 4242.",
    endpoint: "Add a webhook endpoint",
    endpointWhy: "Where Fils tells your systems that a payment succeeded.",
    team: "Invite your team",
    teamWhy: "Everyone signs in as themselves, with the role they need."
  },
  attention: {
    heading: "Needs attention",
    /** A subscription on hold: its customer's e-mail (none: the subscription) and its amount. */
    onHold: (email: string | null, amount: string) => `${email ?? "A subscription"}: ${amount}`,
    renewalFailed: "a renewal payment failed",
    disabled: "disabled after failing deliveries",
    failingSince: (since: string) => `deliveries failing since ${since}`,
    eInvoice: (number: string) => `E-invoice ${number}`,
    rejected: "rejected by the provider",
    nothing: "Nothing needs a look: no subscriptions on hold, no failing endpoints, no rejected e-invoices."
  },
  recent: {
    heading: "Recent payments",
    none: "No payments yet.",
    all: "All payments →"
  }
}
