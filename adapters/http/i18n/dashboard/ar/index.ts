/** Every Arabic string of the dashboard, one module per area, each typed by its English one (`../en/index.ts`). */
import type { DashboardCatalogue } from "../en/index.js"
import { frame } from "./frame.js"
import { home } from "./home.js"
import { payments } from "./payments.js"
import { customers } from "./customers.js"
import { events } from "./events.js"
import { audit } from "./audit.js"
import { products } from "./products.js"
import { discounts } from "./discounts.js"
import { planPolicy } from "./planPolicy.js"
import { planChanges } from "./planChanges.js"
import { subscriptions } from "./subscriptions.js"
import { developers } from "./developers.js"
import { requestLogs } from "./requestLogs.js"
import { settings } from "./settings.js"
import { twoFactor } from "./twoFactor.js"
import { tax } from "./tax.js"
import { documents } from "./documents.js"
import { csvExports } from "./csvExports.js"

export const ar: DashboardCatalogue = {
  frame,
  home,
  payments,
  customers,
  events,
  audit,
  products,
  discounts,
  planPolicy,
  planChanges,
  subscriptions,
  developers,
  requestLogs,
  settings,
  twoFactor,
  tax,
  documents,
  csvExports
}
