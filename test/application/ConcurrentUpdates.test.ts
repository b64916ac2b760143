/**
 * Two changes to one object at once, over PostgreSQL, each to a different field: both stay. An update reads the row
 * with `lock`, so the second waits for the first and applies its patch to what the first wrote (reading it unlocked,
 * both read the row as it was and the second write undid the first). The interleaving is forced: a third
 * transaction holds the row until both updates wait for it.
 */
import { assert, describe, it } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Context, Effect, Fiber, Layer, Schedule } from "effect"
import { SignerNode } from "../../adapters/crypto/SignerNode.js"
import { makeSimulatedProcessorMemory } from "../../adapters/processor/SimulatedProcessor.js"
import { PgLive } from "../../adapters/sql/Postgres.js"
import { Accounts } from "../../src/application/Accounts.js"
import { Customers } from "../../src/application/Customers.js"
import { Products } from "../../src/application/Products.js"
import { Webhooks } from "../../src/application/Webhooks.js"
import { PaymentProcessor } from "../../src/ports/PaymentProcessor.js"
import { freshDatabaseUrl, holdingLocks } from "../support/database.js"
import { storeAt } from "../support/postgresStore.js"
import { engineOver, newAccount } from "./harness.js"

/** Waits until `n` statements on `table` wait for a row lock. */
const waiting = (monitor: SqlClient.SqlClient, table: string, n: number) =>
  monitor<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity
    WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE ${`%${table}%`}`.pipe(
    Effect.map((rows) => rows[0]!.n >= n),
    Effect.repeat({ schedule: Schedule.spaced("10 millis"), until: (enough) => enough }),
    Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => `fewer than ${n} waited for ${table}` }),
    Effect.orDie
  )

describe("two updates of one object at once, over PostgreSQL", () => {
  it.live("customers, products, webhook endpoints and accounts keep both changes", () =>
    Effect.gen(function*() {
      const url = yield* freshDatabaseUrl
      const plain = () => Effect.map(Layer.build(PgLive(url, { maxConnections: 1 })), Context.get(SqlClient.SqlClient))
      const processor = Layer.effect(PaymentProcessor, makeSimulatedProcessorMemory({ live: false }))
      const engine = engineOver(Layer.mergeAll(storeAt(url, 6), SignerNode, processor))

      yield* Effect.gen(function*() {
        const [holder, monitor] = [yield* plain(), yield* plain()]
        const { account, test } = yield* newAccount
        const customers = yield* Customers
        const products = yield* Products
        const webhooks = yield* Webhooks
        const accounts = yield* Accounts
        const customer = yield* customers.create(test, { email: "sara@example.ae" })
        const product = yield* products.create(test, { name: "Beans", price: 5_000, currency: "AED" })
        const endpoint = yield* webhooks.create(test, { url: "http://127.0.0.1:9/hook" })

        const cases = [
          {
            table: "customers",
            row: holder`SELECT 1 FROM customers WHERE customer_id = ${customer.customer_id} FOR UPDATE`,
            first: customers.update(test, customer.customer_id, { name: "Sara Al Marri" }),
            second: customers.update(test, customer.customer_id, { phone_number: "+971501234567" }),
            after: Effect.map(customers.get(test, customer.customer_id), (c) => [c.name, c.phone_number]),
            expected: ["Sara Al Marri", "+971501234567"]
          },
          {
            table: "products",
            row: holder`SELECT 1 FROM products WHERE product_id = ${product.product_id} FOR UPDATE`,
            first: products.update(test, product.product_id, { name: "Ethiopia Guji" }),
            second: products.update(test, product.product_id, { description: "Washed, light roast" }),
            after: Effect.map(products.get(test, product.product_id), (p) => [p.name, p.description]),
            expected: ["Ethiopia Guji", "Washed, light roast"]
          },
          {
            table: "webhook_endpoints",
            row: holder`SELECT 1 FROM webhook_endpoints WHERE webhook_id = ${endpoint.webhook_id} FOR UPDATE`,
            first: webhooks.update(test, endpoint.webhook_id, { description: "Orders" }),
            second: webhooks.update(test, endpoint.webhook_id, { disabled: true }),
            after: Effect.map(webhooks.get(test, endpoint.webhook_id), (w) => [w.description, w.disabled]),
            expected: ["Orders", true]
          },
          {
            table: "accounts",
            row: holder`SELECT 1 FROM accounts WHERE account_id = ${account.account_id} FOR UPDATE`,
            first: accounts.update(account.account_id, { business_name: "Dune Coffee Roasters" }),
            second: accounts.update(account.account_id, { support_email: "help@dune.ae" }),
            after: Effect.map(accounts.get(account.account_id), (a) => [a.business_name, a.support_email]),
            expected: ["Dune Coffee Roasters", "help@dune.ae"]
          }
        ] as const
        for (const c of cases) {
          const release = yield* holdingLocks(holder, c.row)
          const first = yield* Effect.fork(c.first as Effect.Effect<unknown, unknown>)
          yield* waiting(monitor, c.table, 1)
          const second = yield* Effect.fork(c.second as Effect.Effect<unknown, unknown>)
          yield* waiting(monitor, c.table, 2)
          yield* release
          yield* Fiber.join(first)
          yield* Fiber.join(second)
          assert.deepStrictEqual(yield* (c.after as Effect.Effect<ReadonlyArray<unknown>, unknown>), c.expected, c.table)
        }
      }).pipe(Effect.provide(engine))
    }).pipe(Effect.scoped), 60_000)
})
