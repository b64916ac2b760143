/**
 * The dashboard's frame in English: the header and navigation every signed-in page shares, the sign-in pages, the
 * statuses' words, the confirmation pages, and the words many pages use.
 */
import { signInMessages } from "../../../../../src/application/Users.js"
import type { Role } from "../../../../../src/domain/DashboardUser.js"
import { lengthPhrase } from "../../../../../src/domain/Text.js"
import { fieldMessages } from "../../../dashboard/Fields.js"
import { notUtf8Message, repeatedMessage } from "../../../html/Forms.js"

export const frame = {
  /** The language's own name, on the switch to it. */
  languageName: "English",
  titleSuffix: "Fils dashboard",
  defaultBusinessName: "Fils merchant",
  skipToContent: "Skip to content",
  liveMode: "Live mode",
  testMode: "Test mode",
  switchTo: (live: boolean): string => (live ? "Switch to live data" : "Switch to test data"),
  /** The signed-in user and their role: `ana@example.com (owner)`. */
  who: (email: string, role: string) => `${email} (${role})`,
  roles: { owner: "owner", admin: "admin", developer: "developer", viewer: "viewer" } satisfies Record<Role, string>,
  signOut: "Sign out",
  navigation: "Dashboard",
  nav: {
    home: "Home",
    payments: "Payments",
    subscriptions: "Subscriptions",
    customers: "Customers",
    invoices: "Invoices",
    creditNotes: "Credit notes",
    products: "Products",
    discounts: "Discounts",
    checkout: "Checkout",
    developers: "Developers",
    events: "Events",
    exports: "Exports",
    audit: "Audit log",
    settings: "Settings"
  },
  signIn: {
    title: "Sign in",
    heading: "Sign in to Fils",
    email: "E-mail",
    password: "Password",
    submit: "Sign in",
    noPasswordYet:
      "No password yet? Open your sign-in link: the one Fils printed when it first started, or the invitation an owner of the account sent you.",
    notFromHere: "This form was not sent from this site.",
    linkNotValid: "Link not valid",
    linkGone: "This sign-in link was used or has expired. Ask an owner of the account for a new one.",
    notSent: "Not sent",
    codeTitle: "Two-factor sign-in",
    codeHeading: "Enter your code",
    codeHelp:
      "Open your authenticator app and type the 6-digit code it shows for Fils. Lost your phone? Type one of your recovery codes instead.",
    code: "Code",
    startAgain: "Start again",
    setPasswordTitle: "Set your password",
    setPasswordFor: "For",
    setPasswordRule: "at least 12 characters.",
    newPassword: "New password",
    setPasswordSubmit: "Set password and sign in"
  },
  pages: {
    unavailable: "Unavailable",
    tryAgain: "Try again in a moment.",
    notFound: "Not found",
    nothingHere: "There is nothing here.",
    notAllowed: "Not allowed",
    notFromDashboard: "This form was not sent from this dashboard, so nothing was changed. Reload the page and try again.",
    outOfDate: "This form is out of date",
    outOfDateText:
      "It was opened more than 23 hours ago, so nothing was done with it. An earlier send of it may already have done what it asks: look at the page first, then use a new form.",
    backToPage: "Back to the page"
  },
  /** A form made once (`Kit.makeOnce`) sent again after what it made was deleted. */
  spentForm: "This form was sent before, and what it made has since been deleted: nothing was made now. Send it again to make another.",
  confirm: {
    goBack: "Go back: change nothing",
    notYet: "Nothing was done yet: read what will happen, then confirm below."
  },
  /** The engine's own refusal, worded in English for the API, shown as it is. */
  refused: (message: string) => message,
  /** Why something cannot be done, said before anything is sent (the engine's words for the API). */
  cannot: (message: string) => message,
  /** A field's refusal (the engine's words for what is wrong with the value), under the field. */
  fieldRefused: (message: string) => message,
  /**
   * The sign-in's refusals and a form field's two own ones, by key, as the engine words them (`Pages.refused` and
   * `Pages.fieldErrorsIn` find them by their English words).
   */
  engine: { ...signInMessages, ...fieldMessages } as Record<keyof typeof signInMessages | keyof typeof fieldMessages, string>,
  /** A posted form refused before it is read (`readForm`): not UTF-8, or a field given twice. */
  formRefused: { notUtf8: notUtf8Message, repeated: repeatedMessage },
  /** Too many tries: refused for `seconds`. */
  rateLimited: (_seconds: number, message: string) => message,
  /** Statuses as merchants read them (Status.ts gives each its colour). */
  status: {
    succeeded: "Succeeded",
    processing: "Processing",
    failed: "Failed",
    partially_refunded: "Partially refunded",
    refunded: "Refunded",
    active: "Active",
    trialing: "Trialing",
    ending: "Ends at period end",
    on_hold: "On hold",
    cancelled: "Cancelled",
    open: "Open",
    complete: "Complete",
    expired: "Expired",
    draft: "Draft",
    archived: "Archived",
    pending: "Pending",
    refused: "Refused",
    accepted: "Accepted",
    rejected: "Rejected",
    enabled: "Enabled",
    disabled: "Disabled",
    revoked: "Revoked"
  },
  common: {
    any: "Any",
    filter: "Filter",
    none: "None",
    yes: "Yes",
    no: "No",
    save: "Save",
    cancel: "Cancel",
    live: "live",
    test: "test",
    noCustomer: "No customer",
    /** A list's filter given a value its choices do not have (a link typed or edited by hand): nothing is listed. */
    notAnOption: (value: string) => `“${value}” is not one of this list's choices: pick one of them`,
    /** A text field's length limit (`Pages.limitText`). */
    length: (min: number, max: number) => lengthPhrase(min, max),
    /** A discount code a payment applied: what it took off, or (on a trial's checkout) nothing yet. */
    appliedDiscount: (code: string, off: string | null): string =>
      off === null ? `${code}: redeemed for the payments after the trial` : `${code}: −${off}`
  }
}
