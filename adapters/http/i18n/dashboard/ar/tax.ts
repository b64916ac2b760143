/** The dashboard's tax pages in Arabic (see `en/tax.ts`). */
import type { DashboardCatalogue } from "../en/index.js"

export const tax: DashboardCatalogue["tax"] = {}
