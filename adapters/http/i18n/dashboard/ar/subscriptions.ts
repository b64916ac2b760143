/** The dashboard's subscriptions pages in Arabic (see `en/subscriptions.ts`). */
import type { DashboardCatalogue } from "../en/index.js"

export const subscriptions: DashboardCatalogue["subscriptions"] = {}
