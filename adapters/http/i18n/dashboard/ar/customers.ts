/** The dashboard's customers pages in Arabic (see `en/customers.ts`). */
import type { DashboardCatalogue } from "../en/index.js"

export const customers: DashboardCatalogue["customers"] = {}
