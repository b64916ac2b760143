/** The dashboard's discounts pages in English. */
export const discounts = {}
