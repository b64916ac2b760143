/**
 * Rate limits (decisions.md §8): requests per key per rolling minute, and failed authentications per client
 * address. Counters live in the Store, so every server on one database shares them.
 */
import { Clock, Config, Effect } from "effect"
import { RateLimited } from "../domain/Errors.js"
import type { RateDecision } from "../domain/RateWindow.js"
import { Store } from "../ports/Store.js"

const windowSeconds = 60

export class RateLimits extends Effect.Service<RateLimits>()("fils/RateLimits", {
  effect: Effect.gen(function*() {
    const store = yield* Store
    const perKey = yield* Config.integer("FILS_RATE_LIMIT_PER_MIN").pipe(
      Config.withDefault(240),
      Config.validate({ message: "must be a positive integer", validation: (n) => n > 0 })
    )
    const authFailures = yield* Config.integer("FILS_AUTH_FAILURES_PER_MIN").pipe(
      Config.withDefault(30),
      Config.validate({ message: "must be a positive integer", validation: (n) => n > 0 })
    )

    // Addresses whose failure budget ran out, until when. A process that saw the shared counter refuse an address
    // stops checking keys from it without another round trip; the others learn on that address's next failure.
    const blocked = new Map<string, number>()

    const limited = (decision: RateDecision, what: string) =>
      new RateLimited({
        message: `Too many ${what}; retry after ${decision.resetSeconds} seconds`,
        retryAfterSeconds: decision.resetSeconds
      })

    /** Counts a request by an API key and returns the decision (the caller refuses when it is not allowed). */
    const consumeKey = Effect.fn("RateLimits.consumeKey")(function*(keyId: string) {
      const decision = yield* store.rateLimits.hit(`key:${keyId}`, yield* Clock.currentTimeMillis, perKey, windowSeconds)
      return decision
    })

    /** Fails when `address` spent its failed-authentication budget. */
    const checkAddress = Effect.fn("RateLimits.checkAddress")(function*(address: string) {
      const until = blocked.get(address)
      if (until === undefined) return
      const now = yield* Clock.currentTimeMillis
      if (until <= now) {
        blocked.delete(address)
        return
      }
      const seconds = Math.max(1, Math.ceil((until - now) / 1000))
      return yield* new RateLimited({
        message: `Too many failed authentications; retry after ${seconds} seconds`,
        retryAfterSeconds: seconds
      })
    })

    /** Counts a failed authentication from `address`; returns the refusal to send when the budget is spent. */
    const recordAuthFailure = Effect.fn("RateLimits.recordAuthFailure")(function*(address: string) {
      const now = yield* Clock.currentTimeMillis
      const decision = yield* store.rateLimits.hit(`auth:${address}`, now, authFailures, windowSeconds)
      if (decision.allowed) return undefined
      if (blocked.size > 10_000) blocked.clear() // bounded memory under address-spraying
      blocked.set(address, now + decision.resetSeconds * 1000)
      return limited(decision, "failed authentications")
    })

    return { perKey, consumeKey, checkAddress, recordAuthFailure, limited } as const
  })
}) {}
