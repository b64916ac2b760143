/**
 * Two more reasons a payment is made (`Payment.BillingReason`): a plan change's immediate charge
 * (`subscription_update`) and a charge of a subscription's saved card on demand (`subscription_charge`).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`ALTER TABLE payments DROP CONSTRAINT payments_billing_reason_check,
    ADD CONSTRAINT payments_billing_reason_check CHECK (billing_reason IN
      ('payment', 'subscription_create', 'subscription_renewal', 'subscription_update', 'subscription_charge'))`)
})
