/**
 * Counts for `GET /metrics`, read from the shared database at scrape time, so every server reports the same
 * figures however many share it. Two grouped counts; no row locks.
 */
import { Effect } from "effect"
import type { DeliveryStatus } from "../../../src/domain/Delivery.js"
import type { PaymentStatus } from "../../../src/domain/Payment.js"
import type { StoreShape } from "../../../src/ports/Store.js"
import type { Queries } from "../queries.js"
import { orUnavailable } from "../SqlErrors.js"

export const makeStats = ({ sql }: Queries): StoreShape["stats"] =>
  Effect.gen(function*() {
    const deliveries = yield* sql<{ status: DeliveryStatus; livemode: boolean; count: number }>`
      SELECT status, livemode, count(*)::int AS count FROM webhook_deliveries GROUP BY status, livemode`
    // Each recorded renewal attempt has its payment (checked at commit): its status is the attempt's outcome.
    const renewals = yield* sql<{ status: PaymentStatus; livemode: boolean; count: number }>`
      SELECT p.status, p.livemode, count(*)::int AS count
      FROM subscription_attempts a JOIN payments p ON p.payment_id = a.payment_id
      GROUP BY p.status, p.livemode`
    return { deliveries, renewals }
  }).pipe(orUnavailable, Effect.withSpan("StoreSql.stats"))
