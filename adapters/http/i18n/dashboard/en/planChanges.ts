/** The dashboard's planChanges pages in English. */
export const planChanges = {}
