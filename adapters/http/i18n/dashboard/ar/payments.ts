/** The dashboard's payments pages in Arabic (see `en/payments.ts`). */
import type { DashboardCatalogue } from "../en/index.js"

export const payments: DashboardCatalogue["payments"] = {}
