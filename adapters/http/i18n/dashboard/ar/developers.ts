/** The dashboard's developers pages in Arabic (see `en/developers.ts`). */
import type { DashboardCatalogue } from "../en/index.js"

export const developers: DashboardCatalogue["developers"] = {}
