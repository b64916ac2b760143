/**
 * A scope's customers.
 *
 * One repository of the Store port (`../Store.ts`), a Tag of its own, so that a use case depends on the aggregates it
 * uses and nothing else.
 */
import type { Option } from "effect"
import { Context } from "effect"
import type { Scope } from "../../domain/Account.js"
import type { Customer } from "../../domain/Customer.js"
import type { CustomerId } from "../../domain/Ids.js"
import type { Page, PageRequest } from "../../domain/Pagination.js"
import type { Op } from "./Op.js"

export interface CustomerFilter {
  /** Case-insensitive match on the e-mail. */
  readonly email?: string | undefined
}

export interface CustomersRepo {
  readonly insert: (customer: Customer) => Op<void>
  readonly get: (scope: Scope, id: CustomerId) => Op<Option.Option<Customer>>
  /** `get`, locking the row until the transaction ends (inside `transact`): an update reads with it. */
  readonly lock: (scope: Scope, id: CustomerId) => Op<Option.Option<Customer>>
  readonly update: (customer: Customer) => Op<void>
  readonly list: (scope: Scope, filter: CustomerFilter, page: PageRequest) => Op<Page<Customer>>
  /**
   * The newest customer with this e-mail (case-insensitive) in the scope and on real time: a customer on a test clock
   * is its clock's alone, so a checkout by e-mail never runs on a clock.
   */
  readonly findByEmail: (scope: Scope, email: string) => Op<Option.Option<Customer>>
}

/** A scope's customers. */
export type CustomerRepositoryShape = CustomersRepo

export class CustomerRepository extends Context.Tag("fils/CustomerRepository")<CustomerRepository, CustomerRepositoryShape>() {}
