/** The dashboard's csvExports pages in Arabic (see `en/csvExports.ts`). */
import type { DashboardCatalogue } from "../en/index.js"

export const csvExports: DashboardCatalogue["csvExports"] = {}
