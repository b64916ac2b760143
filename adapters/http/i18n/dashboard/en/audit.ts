/** The dashboard's audit pages in English. */
export const audit = {}
