/** Customers: create, read, update and list (with a case-insensitive e-mail filter), in the caller's scope. */
import { DateTime, Effect, Option } from "effect"
import type { Scope } from "../domain/Account.js"
import * as Customer from "../domain/Customer.js"
import { notFound } from "../domain/Errors.js"
import type { CustomerId } from "../domain/Ids.js"
import { prefixes } from "../domain/Ids.js"
import * as Pagination from "../domain/Pagination.js"
import { Store } from "../ports/Store.js"
import { newId } from "./Ids.js"
import * as UnitOfWork from "./UnitOfWork.js"

export interface CustomerListParams {
  readonly email?: string | undefined
  readonly limit?: number | undefined
  readonly cursor?: string | undefined
}


export class Customers extends Effect.Service<Customers>()("fils/Customers", {
  effect: Effect.gen(function*() {
    const store = yield* Store

    const create = Effect.fn("Customers.create")(function*(scope: Scope, input: Customer.CustomerCreate) {
      const customer = Customer.create(input, {
        id: yield* newId<CustomerId>(prefixes.customer),
        accountId: scope.accountId,
        livemode: scope.livemode,
        now: yield* DateTime.now
      })
      yield* UnitOfWork.create(UnitOfWork.Created.Customer({ customer }), store.customers.insert(customer))
      return customer
    })

    const get = Effect.fn("Customers.get")(function*(scope: Scope, id: CustomerId) {
      const found = yield* store.customers.get(scope, id)
      return Option.isSome(found) ? found.value : yield* notFound("customer", id)
    })

    const update = Effect.fn("Customers.update")(
      function*(scope: Scope, id: CustomerId, patch: Customer.CustomerUpdate) {
        return yield* store.transact(Effect.gen(function*() {
          const next = Customer.update(yield* get(scope, id), patch)
          yield* store.customers.update(next)
          return next
        }))
      }
    )

    const list = Effect.fn("Customers.list")(function*(scope: Scope, params: CustomerListParams) {
      const email = params.email === undefined ? undefined : Customer.emailKey(params.email)
      const key = Pagination.listKey("customers", { email })
      const page = yield* Pagination.pageRequest(key, params)
      const result = yield* store.customers.list(scope, { email }, page)
      return Pagination.toList(key, result, Customer.position)
    })

    return { create, get, update, list } as const
  })
}) {}
