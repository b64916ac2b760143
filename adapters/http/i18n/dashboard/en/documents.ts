/** The dashboard's documents pages in English. */
export const documents = {}
