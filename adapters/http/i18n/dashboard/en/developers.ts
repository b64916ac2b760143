/** The dashboard's developers pages in English. */
export const developers = {}
