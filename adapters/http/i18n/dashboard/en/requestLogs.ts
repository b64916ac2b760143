/** The dashboard's requestLogs pages in English. */
export const requestLogs = {}
