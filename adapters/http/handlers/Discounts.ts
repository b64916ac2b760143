import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Discounts } from "../../../src/application/Discounts.js"
import { DiscountResource } from "../../../src/domain/Discount.js"
import { DiscountId } from "../../../src/domain/Ids.js"
import { CurrentPrincipal, FilsApi } from "../Api.js"
import { idempotent } from "../Idempotent.js"
import { pathId } from "./ids.js"

const withId = pathId(DiscountId, "discount")

export const DiscountsLive = HttpApiBuilder.group(FilsApi, "discounts", (handlers) =>
  Effect.gen(function*() {
    const discounts = yield* Discounts
    const scoped = <A, E, R>(raw: string, f: (p: typeof CurrentPrincipal.Service, id: DiscountId) => Effect.Effect<A, E, R>) =>
      Effect.flatMap(withId(raw), (id) => Effect.flatMap(CurrentPrincipal, (p) => f(p, id)))
    return handlers
      .handle("list", ({ urlParams }) => Effect.flatMap(CurrentPrincipal, (p) => discounts.list(p, urlParams)))
      .handle("create", ({ headers, payload }) =>
        idempotent(
          headers["idempotency-key"],
          DiscountResource,
          Effect.flatMap(CurrentPrincipal, (p) => discounts.create(p, payload))
        ))
      .handle("get", ({ path }) => scoped(path.id, discounts.get))
      .handle("update", ({ path, payload }) => scoped(path.id, (p, id) => discounts.update(p, id, payload)))
      .handle("delete", ({ path }) => scoped(path.id, discounts.delete))
  }))
