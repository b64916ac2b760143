/** The dashboard's products pages in Arabic (see `en/products.ts`). */
import type { DashboardCatalogue } from "../en/index.js"

export const products: DashboardCatalogue["products"] = {}
