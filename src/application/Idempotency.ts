/**
 * Idempotent execution (decisions.md §8): the first request with a key runs and its response is kept for 24
 * hours; a retry with the same parameters gets that response again; other parameters are refused (422), and so is
 * a retry while the first still runs (409).
 *
 * Exactly once: the key is claimed in a statement of its own (with a lease), then the work runs in one transaction
 * with its response (`IdempotencyRepo.answer`). A crash or a lost connection before that commit leaves neither the
 * object nor the answer, and once the lease has run out a retry runs the work afresh; after it, the retry replays.
 * So the work must only write to the store: work that calls out in between its own commits (a refund asks the
 * processor after reserving) takes its key itself (`Refunds.create`), or it would hold the transaction across the
 * call and lose its own commit points.
 */
import { Data, DateTime, Duration, Effect, Exit, Schedule } from "effect"
import type { Scope } from "../domain/Account.js"
import { scopeKey } from "../domain/Account.js"
import * as Idempotency from "../domain/Idempotency.js"
import { Signer } from "../ports/Signer.js"
import { Store } from "../ports/Store.js"
import { batched, batchedCalls } from "./Batched.js"

/** How long a release the store could not take is tried again: well inside the lease, so no one took the key. */
const releaseRetries = Duration.subtract(Idempotency.lease, Duration.seconds(3))

/** At most this many claims, or responses, per statement. */
const batch = 100

/** Why the work's transaction rolled back: its response is not a success, or a retry took the key over. */
class RolledBack extends Data.TaggedError("RolledBack")<{ readonly response: Idempotency.StoredResponse | undefined }> {}

export interface IdempotentResult {
  readonly response: Idempotency.StoredResponse
  readonly replayed: boolean
}

export class IdempotencyService extends Effect.Service<IdempotencyService>()("fils/Idempotency", {
  scoped: Effect.gen(function*() {
    const store = yield* Store
    const signer = yield* Signer
    // Keys claimed together are claimed in one statement, and responses finishing together are stored in one:
    // each request still waits for its own. A batch's claims are judged at its latest request's time (a batch
    // gathers while the one before it is at the store, a few milliseconds).
    const claim = yield* batchedCalls(
      (claims: ReadonlyArray<{ readonly record: Idempotency.IdempotencyRecord; readonly now: DateTime.Utc }>) => {
        const latest = claims.map((c) => c.now).reduce((a, b) => DateTime.max(a, b))
        return store.idempotency.claimAll(claims.map((c) => c.record), latest)
      },
      { max: batch }
    )
    const complete = yield* batched(store.idempotency.completeAll, { max: batch })

    /**
     * Runs `execute` at most once per (scope, key, request). `request` is the canonical text of what makes the
     * request (method, path, body); only its digest is kept. `execute` turns every outcome into a response.
     */
    const run = Effect.fn("Idempotency.run")(function*<R>(
      scope: Scope,
      key: string,
      request: string,
      execute: Effect.Effect<Idempotency.StoredResponse, never, R>
    ) {
      const invalid = Idempotency.validateKey(key)
      if (invalid) return yield* invalid
      const fingerprint = yield* signer.digest(request)
      const scopeId = scopeKey(scope)
      const now = yield* DateTime.now
      const lockedUntil = DateTime.addDuration(now, Idempotency.lease)
      const claimed = yield* claim({
        record: {
          scope: scopeId,
          key,
          fingerprint,
          response: null,
          lockedUntil,
          expiresAt: DateTime.addDuration(now, Idempotency.retention)
        },
        now
      })
      if (claimed._tag === "Existing") {
        const outcome = Idempotency.decide(claimed.record, fingerprint)
        if (outcome._tag === "Refuse") return yield* outcome.error
        return { response: outcome.response, replayed: true } satisfies IdempotentResult
      }
      // The key is ours. The work and its answer commit together; anything but a success rolls the work back.
      // Whatever happens to `execute`, interruption included (a client that hangs up), settle the record, so a
      // retry is neither refused for the lease nor replayed a response that was never sent.
      const committed = Effect.gen(function*() {
        const response = yield* execute
        if (!Idempotency.commitsWork(response.status)) return yield* new RolledBack({ response })
        const held = yield* store.idempotency.answer({ scope: scopeId, key, fingerprint, response }, lockedUntil)
        if (!held) return yield* new RolledBack({ response: undefined })
        return response
      })
      return yield* Effect.uninterruptibleMask((restore) =>
        Effect.gen(function*() {
          const exit = yield* Effect.exit(restore(
            store.transact(committed).pipe(Effect.catchTag("RolledBack", (rolledBack) => Effect.succeed(rolledBack)))
          ))
          if (Exit.isSuccess(exit) && !(exit.value instanceof RolledBack)) {
            return { response: exit.value, replayed: false } satisfies IdempotentResult
          }
          const rolledBack: RolledBack | undefined = Exit.isSuccess(exit) ? exit.value as RolledBack : undefined
          const response = rolledBack?.response
          // The lease ran out while the work ran and a retry took the key: its answer stands, not this one.
          if (rolledBack !== undefined && response === undefined) return yield* Idempotency.inUse()
          if (response !== undefined && Idempotency.isStorable(response.status)) {
            // A refusal (4xx) changed nothing, so its answer may be kept on its own.
            yield* complete({ scope: scopeId, key, fingerprint, response })
          } else {
            // Also when the commit's fate is unknown (a lost connection): a committed answer is not released. With
            // the store out of reach (a failover), the release is tried again in the background until shortly
            // before the lease ends, so the client's retry finds the key free once the database is back rather
            // than `409 IDEMPOTENCY_KEY_IN_USE` for the rest of the lease.
            const release = store.idempotency.release(scopeId, key, fingerprint)
            yield* release.pipe(Effect.catchAll(() =>
              Effect.forkDaemon(release.pipe(
                Effect.retry(Schedule.spaced("250 millis").pipe(Schedule.upTo(releaseRetries))),
                Effect.ignore
              ))
            ))
          }
          if (Exit.isFailure(exit)) return yield* Effect.failCause(exit.cause)
          return { response: response!, replayed: false } satisfies IdempotentResult
        })
      )
    })

    return { run } as const
  })
}) {}
