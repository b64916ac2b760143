/**
 * The engine used directly from an Effect program, with no HTTP: creates an account, a recurring product and a
 * customer, then lists the catalog. On the memory store, or on PostgreSQL with `FILS_STORE=postgres` (see engine.ts).
 *
 *   node --import tsx examples/engine/catalog.ts
 *   FILS_STORE=postgres node --import tsx examples/engine/catalog.ts
 */
import { Console, Effect } from "effect"
import { Accounts } from "../../src/application/Accounts.js"
import { Customers } from "../../src/application/Customers.js"
import { Products } from "../../src/application/Products.js"
import { formatAmount } from "../../src/domain/Money.js"
import { EngineLive } from "./engine.js"

const program = Effect.gen(function*() {
  const { account } = yield* (yield* Accounts).create({ business_name: "Dune Coffee Roasters" })
  // Everything a merchant owns is read and written in a scope: one account, one mode.
  const scope = { accountId: account.account_id, livemode: false }

  const products = yield* Products
  yield* products.create(scope, { name: "Single origin, 250 g", price: 6500, currency: "AED" })
  const plan = yield* products.create(scope, {
    name: "Monthly beans",
    price: 34900,
    currency: "AED",
    billing: "recurring",
    billing_interval: "month"
  })
  const customer = yield* (yield* Customers).create(scope, { email: "layla@example.ae", name: "Layla" })

  const catalog = yield* products.list(scope, { billing: undefined, status: "active" })
  for (const p of catalog.items) {
    const schedule = p.billing === "recurring" ? ` every ${p.interval_count} ${p.billing_interval}` : ""
    yield* Console.log(`${p.product_id}  ${p.name}: ${formatAmount(p.price, p.currency)}${schedule}`)
  }
  yield* Console.log(`customer ${customer.customer_id} <${customer.email}>; plan ${plan.product_id}`)
})

Effect.runPromise(Effect.provide(program, EngineLive)).catch((error) => {
  console.error(error)
  process.exit(1)
})
