import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Products } from "../../../src/application/Products.js"
import { ProductId } from "../../../src/domain/Ids.js"
import { ProductResource } from "../../../src/domain/Product.js"
import { CurrentPrincipal, FilsApi } from "../Api.js"
import { idempotent } from "../Idempotent.js"
import { pathId } from "./ids.js"

const withId = pathId(ProductId, "product")

export const ProductsLive = HttpApiBuilder.group(FilsApi, "products", (handlers) =>
  Effect.gen(function*() {
    const products = yield* Products
    return handlers
      .handle("list", ({ urlParams }) => Effect.flatMap(CurrentPrincipal, (p) => products.list(p, urlParams)))
      .handle("create", ({ headers, payload }) =>
        idempotent(
          headers["idempotency-key"],
          ProductResource,
          Effect.flatMap(CurrentPrincipal, (p) => products.create(p, payload))
        ))
      .handle("get", ({ path }) =>
        Effect.flatMap(withId(path.id), (id) => Effect.flatMap(CurrentPrincipal, (p) => products.get(p, id))))
      .handle("update", ({ path, payload }) =>
        Effect.flatMap(withId(path.id), (id) => Effect.flatMap(CurrentPrincipal, (p) => products.update(p, id, payload))))
  }))
