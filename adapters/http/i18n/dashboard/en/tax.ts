/** The dashboard's tax pages in English. */
export const tax = {}
