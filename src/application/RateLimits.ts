/**
 * Rate limits (docs/decisions.md §8): requests per key per rolling minute, and failed authentications per client
 * address. Counters live in the Store, so every server on one database shares them.
 *
 * A key's requests are counted in batches: while one hit for a key is at the store, the requests that arrive for
 * it queue, and the next hit counts them all at once (the store accepts the first `granted`, in order). A busy key
 * far from its limit is counted mostly locally, from a share of its minute taken with a hit (`RateLease`) and given
 * back when not handed out; one near its limit, or used a request at a time, as exactly as one hit per request.
 */
import { Clock, Deferred, Effect, Exit, FiberId, Option } from "effect"
import type { StoreUnavailable } from "../domain/Errors.js"
import { RateLimited } from "../domain/Errors.js"
import * as RateLease from "../domain/RateLease.js"
import type { RateDecision } from "../domain/RateWindow.js"
import { RateLimitRepository } from "../ports/repositories/RateLimitRepository.js"
import { Settings } from "./Settings.js"

type Waiter = Deferred.Deferred<RateDecision, StoreUnavailable>

const windowSeconds = 60

export class RateLimits extends Effect.Service<RateLimits>()("fils/RateLimits", {
  effect: Effect.gen(function*() {
    const rateLimitRepo = yield* RateLimitRepository
    const { authFailuresPerMinute: authFailures, rateLimitPerMinute: perKey } = yield* Settings

    // Addresses whose failure budget ran out, until when. A process that saw the shared counter refuse an address
    // stops checking keys from it without another round trip; the others learn on that address's next failure.
    const blocked = new Map<string, number>()

    const limited = (decision: RateDecision, what: string) => RateLimited.after(what, decision.resetSeconds)

    // Per bucket, the requests waiting for the next hit; a bucket is here while its drain runs.
    const queues = new Map<string, Array<Waiter>>()
    // Per bucket, this server's share of the key's minute (RateLease).
    const leases = new Map<string, RateLease.Lease>()
    // Per bucket, the hit of its own under way (a renewal, or a give-back at a lease's end): one is out at a time,
    // and a drain waits for it, so the store counts a key's hits in the order they came.
    const ownHits = new Map<string, Deferred.Deferred<void>>()

    /**
     * Runs `hit` as `bucket`'s own hit, or, when one is out already, `busy` with it. Registered and started in one
     * step, uninterruptible: registered and never started, it would hold the key's requests for good.
     */
    const startOwnHit = (
      bucket: string,
      hit: Effect.Effect<void>,
      busy: (out: Deferred.Deferred<void>) => Effect.Effect<void> = () => Effect.void
    ): Effect.Effect<void> =>
      Effect.uninterruptible(Effect.suspend(() => {
        const out = ownHits.get(bucket)
        if (out !== undefined) return busy(out)
        const done = Deferred.unsafeMake<void>(FiberId.none)
        ownHits.set(bucket, done)
        return Effect.asVoid(Effect.forkDaemon(
          hit.pipe(Effect.ensuring(Effect.zipRight(Effect.sync(() => ownHits.delete(bucket)), Deferred.succeed(done, undefined))))
        ))
      }))

    /**
     * What `lease` still holds, given back in a hit of its own (it no longer hands anything out); the store's answer.
     * Not given back, it stays counted: refusing early, never admitting more.
     */
    const giveBackNow = (bucket: string, lease: RateLease.Lease): Effect.Effect<Option.Option<RateDecision>> =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        return yield* rateLimitRepo.hit(bucket, now, perKey, windowSeconds, 0, {
          share: 0,
          millis: RateLease.leaseMillis,
          giveBack: { countedAt: lease.decision.countedAt, count: RateLease.unused(lease) }
        }).pipe(Effect.option)
      })

    /** Whether `lease` is still `bucket`'s and holds requests it did not hand out. */
    const holdsUnused = (bucket: string, lease: RateLease.Lease): boolean => {
      const current = leases.get(bucket)
      return current !== undefined && current.decision === lease.decision && RateLease.unused(current) > 0
    }

    /**
     * Gives back what `lease` did not hand out, unless a hit took it over (only one of them gives it back). With the
     * bucket's own hit out, it waits for it: a renewal that succeeds gives the lease back itself, one that fails
     * leaves it to this.
     */
    const giveBack = (bucket: string, lease: RateLease.Lease): Effect.Effect<void> =>
      Effect.suspend(() =>
        holdsUnused(bucket, lease)
          ? startOwnHit(
            bucket,
            Effect.suspend(() => {
              if (!holdsUnused(bucket, lease)) return Effect.void
              const current = leases.get(bucket)!
              leases.set(bucket, RateLease.spent(current))
              return Effect.asVoid(giveBackNow(bucket, current))
            }),
            (out) => Effect.zipRight(Deferred.await(out), giveBack(bucket, lease))
          )
          : Effect.void
      )

    /**
     * Puts the lease the store's `decision` gives in `bucket`'s place, its first `waiting` requests handed out, and,
     * holding a share, has what it does not hand out given back when its period ends. The lease it replaces, read in
     * the same step (nothing is handed out from it in between); `renewing`, what that one did not hand out is about
     * to be given back, and the new lease counts it as remaining.
     */
    const install = (
      bucket: string,
      decision: RateDecision,
      waiting: number,
      now: number,
      renewing = false
    ): Effect.Effect<RateLease.Lease | undefined> =>
      Effect.suspend(() => {
        if (leases.size > 10_000) leases.clear() // bounded memory: a lost share only refuses early
        const replaced = leases.get(bucket)
        const returning = renewing && replaced !== undefined ? RateLease.unused(replaced) : 0
        const lease = RateLease.leaseOf(decision, waiting, now, Math.max(0, returning))
        leases.set(bucket, lease)
        return Effect.as(
          decision.shared > 0
            ? Effect.forkDaemon(Effect.zipRight(Effect.sleep(lease.until - now), giveBack(bucket, lease)))
            : Effect.void,
          replaced
        )
      })

    /**
     * Takes `bucket`'s next lease while `lease` still hands requests out (`RateLease.dueForRenewal`), then puts it in
     * its place and gives back what the old one did not hand out (the new lease hands requests out meanwhile, and
     * tells the requests after the give-back what remains with it). A store that does not answer leaves the old lease
     * to run out; the next request then asks the store itself.
     */
    const renew = (bucket: string, lease: RateLease.Lease): Effect.Effect<void> =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const exit = yield* Effect.exit(rateLimitRepo.hit(bucket, now, perKey, windowSeconds, 1, RateLease.toRenew(lease, now)))
        if (Exit.isSuccess(exit)) {
          const replaced = yield* install(bucket, exit.value, 0, now, true)
          if (replaced === undefined || RateLease.unused(replaced) <= 0) return
          const back = yield* giveBackNow(bucket, replaced)
          const current = leases.get(bucket)
          if (current !== undefined && current.decision === exit.value) {
            // Not given back, the requests stay counted: what remains is the renewal's own figure.
            leases.set(bucket, RateLease.remainingAfter(current, Option.getOrElse(back, () => exit.value)))
          }
        }
      })

    /** Hits the store for everything queued on `bucket`, batch after batch, until nothing more arrived. */
    const drain = (bucket: string): Effect.Effect<void> =>
      Effect.gen(function*() {
        for (;;) {
          const queued = queues.get(bucket)!
          if (queued.length === 0) {
            queues.delete(bucket)
            return
          }
          queues.set(bucket, [])
          const now = yield* Clock.currentTimeMillis
          // Requests that queued while the last hit was out take first from the share it brought.
          let served = 0
          while (served < queued.length) {
            const taken = RateLease.fromLease(leases.get(bucket), now)
            if (taken.lease !== undefined) leases.set(bucket, taken.lease)
            if (taken.decision === undefined) break
            yield* Deferred.succeed(queued[served++]!, taken.decision)
          }
          if (served === queued.length) continue
          const batch = served === 0 ? queued : queued.slice(served)
          // The bucket's own hit is out: a renewal's lease serves these, or, spent already, the next hit asks for
          // them after it (after a give-back, so the store counts them without what was given back).
          const ownHit = ownHits.get(bucket)
          if (ownHit !== undefined) {
            yield* Deferred.await(ownHit)
            queues.set(bucket, [...batch, ...queues.get(bucket)!])
            continue
          }
          const previous = leases.get(bucket)
          const ask = RateLease.toAsk(previous, now)
          // What the previous lease did not hand out goes back with this hit, so nothing else gives it back.
          if (previous !== undefined) leases.set(bucket, RateLease.spent(previous))
          const exit = yield* Effect.exit(rateLimitRepo.hit(bucket, now, perKey, windowSeconds, batch.length, ask))
          if (Exit.isSuccess(exit)) yield* install(bucket, exit.value, batch.length, now)
          for (let i = 0; i < batch.length; i++) {
            yield* Deferred.done(batch[i]!, Exit.map(exit, (decision) => RateLease.decisionInBatch(decision, i)))
          }
        }
      })

    /**
     * Counts a request by an API key and returns the decision (the caller refuses when it is not allowed). Like
     * `checkAddress`, untraced: it runs on every request, inside its server span, and a span of its own would cost
     * more than the work (the store's hit has its SQL span).
     */
    const consumeKey = Effect.fnUntraced(function*(keyId: string) {
      const bucket = `key:${keyId}`
      const now = yield* Clock.currentTimeMillis
      const taken = RateLease.fromLease(leases.get(bucket), now)
      if (taken.lease !== undefined) leases.set(bucket, taken.lease)
      if (taken.decision !== undefined) {
        // A drain under way takes the next lease itself.
        if (RateLease.dueForRenewal(taken.lease!, now) && !queues.has(bucket)) yield* startOwnHit(bucket, renew(bucket, taken.lease!))
        return taken.decision
      }
      // A drain is looked for, registered and started in one step, uninterruptible (as in `startOwnHit`).
      const waiter = Deferred.unsafeMake<RateDecision, StoreUnavailable>(FiberId.none)
      yield* Effect.uninterruptible(Effect.suspend(() => {
        const queued = queues.get(bucket)
        if (queued !== undefined) {
          queued.push(waiter)
          return Effect.void
        }
        queues.set(bucket, [waiter])
        // A daemon: the batch must be answered even if the request that started it goes away.
        return Effect.forkDaemon(drain(bucket))
      }))
      return yield* Deferred.await(waiter)
    })

    /** Fails when `address` spent its failed-authentication budget. */
    const checkAddress = Effect.fnUntraced(function*(address: string) {
      const until = blocked.get(address)
      if (until === undefined) return
      const now = yield* Clock.currentTimeMillis
      if (until <= now) {
        blocked.delete(address)
        return
      }
      return yield* RateLimited.after("failed authentications", (until - now) / 1000)
    })

    /** Counts a failed authentication from `address`; returns the refusal to send when the budget is spent. */
    const recordAuthFailure = Effect.fn("RateLimits.recordAuthFailure")(function*(address: string) {
      const now = yield* Clock.currentTimeMillis
      const decision = yield* rateLimitRepo.hit(`auth:${address}`, now, authFailures, windowSeconds)
      if (decision.allowed) return undefined
      if (blocked.size > 10_000) blocked.clear() // bounded memory under address-spraying
      blocked.set(address, now + decision.resetSeconds * 1000)
      return limited(decision, "failed authentications")
    })

    return { perKey, consumeKey, checkAddress, recordAuthFailure, limited } as const
  })
}) {}
