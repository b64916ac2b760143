/** The dashboard's payments pages in English. */
export const payments = {}
