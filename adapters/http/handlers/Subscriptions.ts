import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { PlanChanges } from "../../../src/application/PlanChanges.js"
import { SubscriptionCharges } from "../../../src/application/SubscriptionCharges.js"
import { Subscriptions } from "../../../src/application/Subscriptions.js"
import { CustomerId, parseId, SubscriptionId } from "../../../src/domain/Ids.js"
import { PlanChangePreview, PlanChangeResult } from "../../../src/domain/PlanChange.js"
import { SubscriptionChargeResult } from "../../../src/domain/Subscription.js"
import { CurrentPrincipal, FilsApi } from "../Api.js"
import { idempotent } from "../Idempotent.js"
import { pathId } from "./ids.js"

const withId = pathId(SubscriptionId, "subscription")
const customerId = parseId(CustomerId)

export const SubscriptionsLive = HttpApiBuilder.group(FilsApi, "subscriptions", (handlers) =>
  Effect.gen(function*() {
    const subscriptions = yield* Subscriptions
    const planChanges = yield* PlanChanges
    const charges = yield* SubscriptionCharges
    return handlers
      .handle("list", ({ urlParams }) =>
        Effect.flatMap(CurrentPrincipal, (p) =>
          subscriptions.list(p, {
            ...urlParams,
            // An id of the wrong shape matches nothing: kept as given, it equals no real id.
            customer_id: urlParams.customer_id === undefined
              ? undefined
              : (customerId(urlParams.customer_id) ?? (urlParams.customer_id as CustomerId))
          })))
      .handle("get", ({ path }) =>
        Effect.flatMap(withId(path.id), (id) => Effect.flatMap(CurrentPrincipal, (p) => subscriptions.get(p, id))))
      .handle("update", ({ path, payload }) =>
        Effect.flatMap(withId(path.id), (id) =>
          Effect.flatMap(CurrentPrincipal, (p) => subscriptions.update(p, id, payload))))
      // The key is also the change's own (`PlanChanges.change`): its charge is reserved under it, so a retry after a
      // crash between the charge and this answer carries that charge on instead of making another.
      .handle("changePlan", ({ headers, path, payload }) =>
        idempotent(
          headers["idempotency-key"],
          PlanChangeResult,
          Effect.flatMap(withId(path.id), (id) =>
            Effect.flatMap(CurrentPrincipal, (p) => planChanges.change(p, id, payload, headers["idempotency-key"])))
        ))
      .handle("previewChangePlan", ({ headers, path, payload }) =>
        idempotent(
          headers["idempotency-key"],
          PlanChangePreview,
          Effect.flatMap(withId(path.id), (id) => Effect.flatMap(CurrentPrincipal, (p) => planChanges.preview(p, id, payload)))
        ))
      .handle("cancelScheduledChange", ({ path }) =>
        Effect.flatMap(withId(path.id), (id) =>
          Effect.flatMap(CurrentPrincipal, (p) => planChanges.cancelScheduled(p, id))))
      // The key is also the charge's own (`SubscriptionCharges.charge`): its payment is reserved under it, so a retry
      // after a crash between the charge and this answer carries that payment on instead of making another.
      .handle("charge", ({ headers, path, payload }) =>
        idempotent(
          headers["idempotency-key"],
          SubscriptionChargeResult,
          Effect.flatMap(withId(path.id), (id) =>
            Effect.flatMap(CurrentPrincipal, (p) =>
              Effect.map(charges.charge(p, id, payload, headers["idempotency-key"]), (made) => ({
                payment_id: made.payment.payment_id
              }))))
        ))
  }))
