/** The dashboard's twoFactor pages in English. */
export const twoFactor = {}
