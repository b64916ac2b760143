import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Checkout } from "../../../src/application/Checkout.js"
import { CheckoutSessionResource } from "../../../src/domain/CheckoutSession.js"
import { CheckoutSessionId } from "../../../src/domain/Ids.js"
import { CurrentPrincipal, FilsApi } from "../Api.js"
import { idempotent } from "../Idempotent.js"
import { pathId } from "./ids.js"

const withId = pathId(CheckoutSessionId, "checkout session")

export const CheckoutSessionsLive = HttpApiBuilder.group(FilsApi, "checkoutSessions", (handlers) =>
  Effect.gen(function*() {
    const checkout = yield* Checkout
    return handlers
      .handle("create", ({ headers, payload }) =>
        idempotent(
          headers["idempotency-key"],
          CheckoutSessionResource,
          Effect.flatMap(CurrentPrincipal, (p) => checkout.create(p, payload))
        ))
      .handle("get", ({ path }) =>
        Effect.flatMap(withId(path.id), (id) => Effect.flatMap(CurrentPrincipal, (p) => checkout.get(p, id))))
  }))
