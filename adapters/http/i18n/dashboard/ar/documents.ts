/** The dashboard's documents pages in Arabic (see `en/documents.ts`). */
import type { DashboardCatalogue } from "../en/index.js"

export const documents: DashboardCatalogue["documents"] = {}
