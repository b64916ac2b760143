/**
 * A teammate removed while they accept their invitation, over PostgreSQL. Removing a user deletes its row and, with
 * it, its sign-in links; accepting takes the link and sets the user's password. Both take the user's row before the
 * link's, so neither waits for the other in a cycle (a deadlock PostgreSQL would break by failing one of them, 500).
 * The interleaving is forced: a third transaction holds the user's row until the removal waits for it, then the
 * acceptance, and lets them go in that order.
 */
import { assert, describe, it } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Context, Effect, Either, Fiber, Layer, Option, Redacted, Schedule } from "effect"
import { PgLive } from "../../adapters/sql/Postgres.js"
import { SignerNode } from "../../adapters/crypto/SignerNode.js"
import { makeSimulatedProcessorMemory } from "../../adapters/processor/SimulatedProcessor.js"
import { Users } from "../../src/application/Users.js"
import type { AccountId } from "../../src/domain/Ids.js"
import { PaymentProcessor } from "../../src/ports/PaymentProcessor.js"
import { Store } from "../../src/ports/Store.js"
import { freshDatabaseUrl, holdingLocks, waitsForLock } from "../support/database.js"
import { storeAt } from "../support/postgresStore.js"
import { engineOver, newAccount } from "./harness.js"

const password = Redacted.make("a long enough password")

/** A new owner of `accountId`, signed in (invited, then the invitation accepted). */
const signedInOwner = (users: Users, accountId: AccountId, email: string) =>
  Effect.flatMap(users.create(accountId, email, "owner"), ({ token }) => users.redeem(token, password))

/**
 * Runs `body` on an engine over a fresh database, with two plain connections of its own: one to hold row locks,
 * one to watch who waits for them.
 */
const onPostgres = <A, E, R>(
  body: (sql: { readonly holder: SqlClient.SqlClient; readonly monitor: SqlClient.SqlClient }) => Effect.Effect<A, E, R>
) =>
  Effect.gen(function*() {
    const url = yield* freshDatabaseUrl
    const plain = () => Effect.map(Layer.build(PgLive(url, { maxConnections: 1 })), Context.get(SqlClient.SqlClient))
    const processor = Layer.effect(PaymentProcessor, makeSimulatedProcessorMemory({ live: false }))
    const engine = engineOver(Layer.mergeAll(storeAt(url, 4), SignerNode, processor))
    const [holder, monitor] = [yield* plain(), yield* plain()]
    return yield* body({ holder, monitor }).pipe(Effect.provide(engine))
  }).pipe(Effect.scoped)

describe("a teammate removed while accepting the invitation, over PostgreSQL", () => {
  it.live("the removal wins: the acceptance is told the user is gone, and nothing of them stays", () =>
    onPostgres(({ holder, monitor }) =>
      Effect.gen(function*() {
        const users = yield* Users
        const { account } = yield* newAccount
        const owner = yield* signedInOwner(users, account.account_id, "owner@dune.ae")
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
      })), 60_000)
})

describe("two owners demoting each other at once, over PostgreSQL", () => {
  it.live("one change is made, the other refused: the account keeps an owner", () =>
    onPostgres(({ holder, monitor }) =>
      Effect.gen(function*() {
        const users = yield* Users
        const { account } = yield* newAccount
        const a = yield* signedInOwner(users, account.account_id, "layla@dune.ae")
        const b = yield* signedInOwner(users, account.account_id, "omar@dune.ae")

        // Both users' rows held: each change reads the owners, then queues for its write (or, holding the account,
        // makes the other wait before it reads). Released once both wait, in the order they asked.
        const release = yield* holdingLocks(holder, holder`SELECT 1 FROM dashboard_users
          WHERE user_id IN (${a.user.user_id}, ${b.user.user_id}) FOR UPDATE`)
        const waiting = (n: number) =>
          monitor<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock'`.pipe(
            Effect.repeat({ schedule: Schedule.spaced("10 millis"), until: (rows) => rows[0]!.n >= n }),
            Effect.timeout("5 seconds")
          )
        const first = yield* Effect.fork(Effect.either(users.changeRole(a, b.user.user_id, "admin")))
        yield* waiting(1)
        const second = yield* Effect.fork(Effect.either(users.changeRole(b, a.user.user_id, "admin")))
        yield* waiting(2)
        yield* release

        const outcomes = [yield* Fiber.join(first), yield* Fiber.join(second)]
        assert.strictEqual(outcomes.filter(Either.isRight).length, 1, "one change is made")
        const refused = outcomes.filter(Either.isLeft)
        assert.deepStrictEqual(refused.map((r) => r.left.message), ["An account needs an owner: make someone else owner first"])
        const owners = (yield* users.team(account.account_id)).filter((u) => u.role === "owner")
        assert.lengthOf(owners, 1)
      })), 60_000)
})
