/** Customers: create, read, update and list (with a case-insensitive e-mail filter), in the caller's scope. */
import { DateTime, Effect, Option } from "effect"
import type { Scope } from "../domain/Account.js"
import * as Customer from "../domain/Customer.js"
import { InvalidRequest, notFound } from "../domain/Errors.js"
import type { CustomerId } from "../domain/Ids.js"
import { prefixes } from "../domain/Ids.js"
import * as Pagination from "../domain/Pagination.js"
import { Transactions } from "../ports/Transactions.js"
import { CustomerRepository } from "../ports/repositories/CustomerRepository.js"
import { TestClockRepository } from "../ports/repositories/TestClockRepository.js"
import { newId } from "./Ids.js"
import * as UnitOfWork from "./UnitOfWork.js"

export interface CustomerListParams {
  readonly email?: string | undefined
  readonly limit?: number | undefined
  readonly cursor?: string | undefined
}


export class Customers extends Effect.Service<Customers>()("fils/Customers", {
  effect: Effect.gen(function*() {
    const customerRepo = yield* CustomerRepository
    const clockRepo = yield* TestClockRepository
    const transactions = yield* Transactions

    const create = Effect.fn("Customers.create")(function*(scope: Scope, input: Customer.CustomerCreate) {
      const clock = input.test_clock_id ?? null
      if (clock !== null && scope.livemode) {
        return yield* new InvalidRequest({ message: "test_clock_id: test clocks exist in test mode only; use a test key" })
      }
      if (clock !== null && Option.isNone(yield* clockRepo.get(scope, clock))) {
        return yield* new InvalidRequest({ message: `test_clock_id: no such test clock '${clock}'` })
      }
      const customer = Customer.create(input, {
        id: yield* newId<CustomerId>(prefixes.customer),
        accountId: scope.accountId,
        livemode: scope.livemode,
        now: yield* DateTime.now
      })
      yield* UnitOfWork.create(UnitOfWork.Created.Customer({ customer }), customerRepo.insert(customer))
      return customer
    })

    const get = Effect.fn("Customers.get")(function*(scope: Scope, id: CustomerId) {
      const found = yield* customerRepo.get(scope, id)
      return Option.isSome(found) ? found.value : yield* notFound("customer", id)
    })

    const update = Effect.fn("Customers.update")(
      function*(scope: Scope, id: CustomerId, patch: Customer.CustomerUpdate) {
        return yield* transactions.transact(Effect.gen(function*() {
          // Locked: two updates at once take turns, and the second applies its patch to what the first wrote.
          const current = Option.getOrNull(yield* customerRepo.lock(scope, id)) ?? (yield* notFound("customer", id))
          const next = Customer.update(current, patch)
          yield* customerRepo.update(next)
          return next
        }))
      }
    )

    const list = Effect.fn("Customers.list")(function*(scope: Scope, params: CustomerListParams) {
      const email = params.email === undefined ? undefined : Customer.emailKey(params.email)
      const key = Pagination.listKey("customers", { email })
      const page = yield* Pagination.pageRequest(key, params)
      const result = yield* customerRepo.list(scope, { email }, page)
      return Pagination.toList(key, result, Customer.position)
    })

    return { create, get, update, list } as const
  })
}) {}
