/** The dashboard's settings pages in Arabic (see `en/settings.ts`). */
import type { DashboardCatalogue } from "../en/index.js"

export const settings: DashboardCatalogue["settings"] = {}
