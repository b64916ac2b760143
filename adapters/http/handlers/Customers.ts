import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Customers } from "../../../src/application/Customers.js"
import { CustomerResource } from "../../../src/domain/Customer.js"
import { CustomerId } from "../../../src/domain/Ids.js"
import { CurrentPrincipal, FilsApi } from "../Api.js"
import { idempotent } from "../Idempotent.js"
import { pathId } from "./ids.js"

const withId = pathId(CustomerId, "customer")

export const CustomersLive = HttpApiBuilder.group(FilsApi, "customers", (handlers) =>
  Effect.gen(function*() {
    const customers = yield* Customers
    return handlers
      .handle("list", ({ urlParams }) => Effect.flatMap(CurrentPrincipal, (p) => customers.list(p, urlParams)))
      .handle("create", ({ headers, payload }) =>
        idempotent(
          headers["idempotency-key"],
          CustomerResource,
          Effect.flatMap(CurrentPrincipal, (p) => customers.create(p, payload))
        ))
      .handle("get", ({ path }) =>
        Effect.flatMap(withId(path.id), (id) => Effect.flatMap(CurrentPrincipal, (p) => customers.get(p, id))))
      .handle("update", ({ path, payload }) =>
        Effect.flatMap(withId(path.id), (id) => Effect.flatMap(CurrentPrincipal, (p) => customers.update(p, id, payload))))
  }))
