/** The dashboard's events pages in English. */
export const events = {}
