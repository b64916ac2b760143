/** The dashboard's customers pages in English: the list, a customer with their portal link and test clock. */
export const customers = {
  list: {
    title: "Customers",
    searchLabel: "Search by e-mail",
    search: "Search",
    customer: "Customer",
    phone: "Phone",
    created: "Created",
    none: "No customers.",
    newCustomer: "New customer",
    create: "Create customer"
  },
  /** The form's fields, to create or edit a customer. */
  form: {
    name: (limit: string) => `Name (optional, ${limit})`,
    email: "E-mail",
    phone: "Phone (E.164, optional)",
    save: "Save customer"
  },
  customer: {
    id: "Id",
    email: "E-mail",
    phone: "Phone",
    created: "Created",
    invoices: "Their tax invoices",
    creditNotes: "Their credit notes",
    payments: "Payments",
    subscriptions: "Subscriptions"
  },
  portal: {
    heading: "Customer portal",
    help: (email: string) =>
      `A link to the portal, where ${email} sees their receipts and invoices, changes their card and manages their subscriptions. It opens once, within the hour.`,
    made: (email: string, until: string) =>
      `Send this link to ${email} (by e-mail or chat): it opens their portal once, until ${until}. It is shown only now.`,
    make: "Send portal link",
    another: "Make another link"
  },
  /** A test customer's clock. `format`: the time's format's name (`ISO 8601`), written as it is. */
  clock: {
    heading: "Test clock",
    clock: "Clock",
    time: "Time",
    status: "Status",
    advancingTo: (to: string) => `to ${to}`,
    advanceTo: (format: string) => `Advance to (${format}, e.g. a month on)`,
    help: "Renewals, retries and expiries due on the clock until then run now, in order.",
    advance: "Advance clock",
    refused: (format: string, example: string) =>
      `The clock was not advanced: give the time as ${format} in the years 2000 to 2099, e.g. ${example}.`,
    advanced: (to: string) => `Test clock advanced to ${to}.`
  },
  /** Refusals and what a change did. */
  businessRefused: "The customer was not saved: correct the business details marked below.",
  created: "Customer created.",
  saved: "Saved.",
  cannot: {
    create: (role: string) => `A ${role} cannot create customers.`,
    change: (role: string) => `A ${role} cannot change customers.`,
    portal: (role: string) => `A ${role} cannot make portal links.`,
    clock: (role: string) => `A ${role} cannot advance test clocks.`
  }
}
