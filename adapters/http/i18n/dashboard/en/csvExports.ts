/** The dashboard's CSV exports page in English (the files' column names stay English, for the spreadsheets reading them). */
export const csvExports = {
  title: "Export",
  /** What the file holds: the live or the test data, in the account's time zone. */
  intro: (live: boolean, timeZone: string) =>
    `A CSV file of the ${live ? "live" : "test"} data created from the start of the first day to the end of the last, in your account's time zone (${timeZone}); times in the file are in that zone, with their offset. Newest first.`,
  what: "What",
  kinds: { payments: "Payments", refunds: "Refunds", subscriptions: "Subscriptions", customers: "Customers" },
  from: (timeZone: string) => `From (date in ${timeZone})`,
  to: (timeZone: string) => `To (date in ${timeZone})`,
  download: "Download CSV",
  notAllowed: (role: string) => `A ${role} cannot export data: only owners and admins download CSV files.`,
  chooseKind: "Choose payments, refunds, subscriptions or customers",
  enterDate: "Enter a date, YYYY-MM-DD",
  lastBeforeFirst: "The last day is before the first",
  /** Too many downloads of the account at once (`count` already formatted). */
  busy: (count: string) => `${count} exports of this account are still downloading. Wait for one to finish, then try again.`
}
