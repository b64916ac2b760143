/** The dashboard's requestLogs pages in Arabic (see `en/requestLogs.ts`). */
import type { DashboardCatalogue } from "../en/index.js"

export const requestLogs: DashboardCatalogue["requestLogs"] = {}
