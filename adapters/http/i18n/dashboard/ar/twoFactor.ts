/** The dashboard's twoFactor pages in Arabic (see `en/twoFactor.ts`). */
import type { DashboardCatalogue } from "../en/index.js"

export const twoFactor: DashboardCatalogue["twoFactor"] = {}
