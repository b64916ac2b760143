/** The dashboard's home pages in Arabic (see `en/home.ts`). */
import type { DashboardCatalogue } from "../en/index.js"

export const home: DashboardCatalogue["home"] = {}
