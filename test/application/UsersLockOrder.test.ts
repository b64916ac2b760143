/**
 * A teammate removed while they accept their invitation, over PostgreSQL. Removing a user deletes its row and, with
 * it, its sign-in links; accepting takes the link and sets the user's password. Both take the user's row before the
 * link's, so neither waits for the other in a cycle (a deadlock PostgreSQL would break by failing one of them, 500).
 * The interleaving is forced: a third transaction holds the user's row until the removal waits for it, then the
 * acceptance, and lets them go in that order.
 */
import { assert, describe, it } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Context, Effect, Either, Fiber, Layer, Option, Redacted } from "effect"
import { PgLive } from "../../adapters/sql/Postgres.js"
import { SignerNode } from "../../adapters/crypto/SignerNode.js"
import { makeSimulatedProcessorMemory } from "../../adapters/processor/SimulatedProcessor.js"
import { Users } from "../../src/application/Users.js"
import { PaymentProcessor } from "../../src/ports/PaymentProcessor.js"
import { Store } from "../../src/ports/Store.js"
import { freshDatabaseUrl, holdingLocks, waitsForLock } from "../support/database.js"
import { storeAt } from "../support/postgresStore.js"
import { engineOver, newAccount } from "./harness.js"

const password = Redacted.make("a long enough password")

describe("a teammate removed while accepting the invitation, over PostgreSQL", () => {
  it.live("the removal wins: the acceptance is told the user is gone, and nothing of them stays", () =>
    Effect.gen(function*() {
      const url = yield* freshDatabaseUrl
      const plain = () => Effect.map(Layer.build(PgLive(url, { maxConnections: 1 })), Context.get(SqlClient.SqlClient))
      const processor = Layer.effect(PaymentProcessor, makeSimulatedProcessorMemory({ live: false }))
      const engine = engineOver(Layer.mergeAll(storeAt(url, 4), SignerNode, processor))

      yield* Effect.gen(function*() {
        const [holder, monitor] = [yield* plain(), yield* plain()]
        const users = yield* Users
        const { account } = yield* newAccount
        const owner = yield* Effect.flatMap(users.create(account.account_id, "owner@dune.ae", "owner"), ({ token }) =>
          users.redeem(token, password))
        const invited = yield* users.create(account.account_id, "amal@dune.ae", "admin")
        const id = invited.user.user_id

        const release = yield* holdingLocks(holder, holder`SELECT 1 FROM dashboard_users WHERE user_id = ${id} FOR UPDATE`)
        const removing = yield* Effect.fork(Effect.either(users.remove(owner, id)))
        yield* waitsForLock(monitor, "DELETE FROM dashboard_users%")
        const accepting = yield* Effect.fork(Effect.either(users.redeem(invited.token, password)))
        yield* waitsForLock(monitor, "UPDATE dashboard_users%")
        yield* release

        const removed = yield* Fiber.join(removing)
        const accepted = yield* Fiber.join(accepting)
        if (Either.isLeft(removed)) return assert.fail(`the removal failed: ${removed.left._tag}`)
        if (Either.isRight(accepted)) return assert.fail("the acceptance went through for a removed user")
        assert.deepStrictEqual([accepted.left._tag, accepted.left.message], ["Unauthorized", "This user no longer exists"])
        const store = yield* Store
        assert.isTrue(Option.isNone(yield* store.dashboard.getUser(id)))
        assert.isTrue(Option.isNone(yield* users.linkUser(invited.token)), "its link went with it")
      }).pipe(Effect.provide(engine))
    }).pipe(Effect.scoped), 60_000)
})
