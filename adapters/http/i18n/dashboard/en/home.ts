/** The dashboard's home pages in English. */
export const home = {}
