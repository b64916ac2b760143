/** The dashboard's planPolicy pages in English. */
export const planPolicy = {}
