/** The dashboard's settings pages in English. */
export const settings = {}
