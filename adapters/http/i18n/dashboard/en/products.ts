/** The dashboard's products pages in English. */
export const products = {}
