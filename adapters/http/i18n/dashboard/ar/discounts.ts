/** The dashboard's discounts pages in Arabic (see `en/discounts.ts`). */
import type { DashboardCatalogue } from "../en/index.js"

export const discounts: DashboardCatalogue["discounts"] = {}
