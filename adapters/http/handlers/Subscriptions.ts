import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Subscriptions } from "../../../src/application/Subscriptions.js"
import { CustomerId, parseId, SubscriptionId } from "../../../src/domain/Ids.js"
import { CurrentPrincipal, FilsApi } from "../Api.js"
import { pathId } from "./ids.js"

const withId = pathId(SubscriptionId, "subscription")
const customerId = parseId(CustomerId)

export const SubscriptionsLive = HttpApiBuilder.group(FilsApi, "subscriptions", (handlers) =>
  Effect.gen(function*() {
    const subscriptions = yield* Subscriptions
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
  }))
