/** The dashboard's events pages in Arabic (see `en/events.ts`). */
import type { DashboardCatalogue } from "../en/index.js"

export const events: DashboardCatalogue["events"] = {}
