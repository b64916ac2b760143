/** The dashboard's subscriptions pages in English. */
export const subscriptions = {}
