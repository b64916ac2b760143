/** The dashboard's audit pages in Arabic (see `en/audit.ts`). */
import type { DashboardCatalogue } from "../en/index.js"

export const audit: DashboardCatalogue["audit"] = {}
