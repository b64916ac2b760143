/** The dashboard's planPolicy pages in Arabic (see `en/planPolicy.ts`). */
import type { DashboardCatalogue } from "../en/index.js"

export const planPolicy: DashboardCatalogue["planPolicy"] = {}
