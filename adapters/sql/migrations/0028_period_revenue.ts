/**
 * What a period of each subscription brings in after its discounts (`Subscription.periodRevenue`), written with every
 * write of the subscription, so that monthly recurring revenue is one sum. Rows written before this migration have
 * none (NULL): their list price counts until their next write, at their next renewal at the latest (the rule that
 * prices a discount lives in the domain, not here).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  // Derived from columns that have their own checks: none of its own, so that a broken row names its real fault.
  yield* sql.unsafe(`ALTER TABLE subscriptions ADD COLUMN period_revenue bigint`)
})
