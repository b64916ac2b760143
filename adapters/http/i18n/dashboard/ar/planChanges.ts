/** The dashboard's planChanges pages in Arabic (see `en/planChanges.ts`). */
import type { DashboardCatalogue } from "../en/index.js"

export const planChanges: DashboardCatalogue["planChanges"] = {}
