/** The dashboard's csvExports pages in English. */
export const csvExports = {}
