/** The dashboard's customers pages in English. */
export const customers = {}
