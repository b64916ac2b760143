/**
 * Idempotent execution (docs/decisions.md §8): the first request with a key runs and its response is kept for 24
 * hours; a retry with the same parameters gets that response again; other parameters are refused (422), and so is
 * a retry while the first still runs (409).
 *
 * Exactly once: the key is claimed in a statement of its own (with a lease), then the work runs with its objects
 * staged (`UnitOfWork`), and they are written with its response in one transaction (`IdempotencyRepo.answerAll`). A
 * crash or a lost connection before that commit leaves neither the objects nor the answer, and once the lease has run
 * out a retry runs the work afresh; after it, the retry replays. The answers and objects of requests finishing
 * together share that transaction. So the work must only create objects, through `UnitOfWork.create`: work that
 * calls out in between its own commits (a refund asks the processor after reserving) takes its key itself
 * (`Refunds.create`).
 */
import { Cause, DateTime, Duration, Effect, Exit, Schedule } from "effect"
import type { Scope } from "../domain/Account.js"
import { scopeKey } from "../domain/Account.js"
import * as Idempotency from "../domain/Idempotency.js"
import { Signer } from "../ports/Signer.js"
import { Transactions } from "../ports/Transactions.js"
import { type IdempotencyAnswer, IdempotencyRepository } from "../ports/repositories/IdempotencyRepository.js"
import { batched, batchedCalls } from "./Batched.js"
import * as UnitOfWork from "./UnitOfWork.js"
import { whenTraced } from "./Spans.js"

/** How long a release the store could not take is tried again: well inside the lease, so no one took the key. */
const releaseRetries = Duration.subtract(Idempotency.lease, Duration.seconds(3))

/** At most this many claims, or responses, per statement. */
const batch = 100

/** A keyed request's success: its answer, and the objects its work created, to be written together. */
interface KeyedCommit {
  readonly answer: IdempotencyAnswer
  readonly created: ReadonlyArray<UnitOfWork.Created>
}

export interface IdempotentResult {
  readonly response: Idempotency.StoredResponse
  readonly replayed: boolean
}

export class IdempotencyService extends Effect.Service<IdempotencyService>()("fils/Idempotency", {
  scoped: Effect.gen(function*() {
    const idempotencyRepo = yield* IdempotencyRepository
    const transactions = yield* Transactions
    const writers = yield* UnitOfWork.writers
    const signer = yield* Signer
    // Keys claimed together are claimed in one statement, and responses finishing together are stored in one:
    // each request still waits for its own. A batch's claims are judged at its latest request's time (a batch
    // gathers while the one before it is at the store, a few milliseconds).
    const claim = yield* batchedCalls(
      (claims: ReadonlyArray<{ readonly record: Idempotency.IdempotencyRecord; readonly now: DateTime.Utc }>) => {
        const latest = claims.map((c) => c.now).reduce((a, b) => DateTime.max(a, b))
        return idempotencyRepo.claimAll(claims.map((c) => c.record), latest)
      },
      { max: batch }
    )
    const complete = yield* batched(idempotencyRepo.completeAll, { max: batch })
    // The answers of requests finishing together, and the objects their work created, in one transaction. Should it
    // fail for a reason other than the store's absence (an object the database refuses), each is tried on its own,
    // so one request's fault is not another's.
    const commitTogether = (commits: ReadonlyArray<KeyedCommit>) =>
      transactions.transact(Effect.gen(function*() {
        const held = yield* idempotencyRepo.answerAll(commits.map((c) => c.answer))
        yield* UnitOfWork.writeAll(writers, commits.flatMap((c, i) => held[i] ? c.created : []))
        return held
      }))
    const commitOne = (c: KeyedCommit) => Effect.exit(Effect.map(commitTogether([c]), (held) => held[0]!))
    const commit = yield* batchedCalls(
      (commits: ReadonlyArray<KeyedCommit>) =>
        commits.length === 1
          ? Effect.forEach(commits, commitOne)
          : commitTogether(commits).pipe(
            Effect.map((held) => held.map((h) => Exit.succeed(h))),
            Effect.catchAllCause((cause) =>
              Cause.isFailType(cause)
                ? Effect.succeed(commits.map(() => Exit.failCause(cause)))
                : Effect.forEach(commits, commitOne)
            )
          ),
      { max: batch }
    ).pipe(Effect.map((call) => (c: KeyedCommit) => Effect.flatten(call(c))))

    /**
     * Gives a key up. With the store out of reach (a failover), the release is tried again in the background until
     * shortly before the lease ends, so the client's retry finds the key free once the database is back rather than
     * `409 IDEMPOTENCY_KEY_IN_USE` for the rest of the lease.
     */
    const release = (scope: string, key: string, fingerprint: string) => {
      const once = idempotencyRepo.release(scope, key, fingerprint)
      return once.pipe(Effect.catchAll(() =>
        Effect.forkDaemon(once.pipe(
          Effect.retry(Schedule.spaced("250 millis").pipe(Schedule.upTo(releaseRetries))),
          Effect.ignore
        ))
      ))
    }

    /**
     * Runs `execute` at most once per (scope, key, request). `request` is the canonical text of what makes the
     * request (method, path, body); only its digest is kept. `execute` turns every outcome into a response.
     */
    const run = whenTraced("Idempotency.run", Effect.fnUntraced(function*<R>(
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
      // The key is ours. Whatever happens to `execute`, interruption included (a client that hangs up), settle the
      // record, so a retry is neither refused for the lease nor replayed a response that was never sent.
      return yield* Effect.uninterruptibleMask((restore) =>
        Effect.gen(function*() {
          const staged: Array<UnitOfWork.Created> = []
          const unit = UnitOfWork.UnitOfWork.of({ stage: (created) => Effect.sync(() => void staged.push(created)) })
          const exit = yield* Effect.exit(restore(Effect.provideService(execute, UnitOfWork.UnitOfWork, unit)))
          if (Exit.isSuccess(exit) && Idempotency.commitsWork(exit.value.status)) {
            const response = exit.value
            const completion = { scope: scopeId, key, fingerprint, response }
            const committed = yield* Effect.exit(commit({ answer: { completion, lockedUntil }, created: staged }))
            if (Exit.isSuccess(committed)) {
              if (committed.value) return { response, replayed: false } satisfies IdempotentResult
              // The lease ran out while the work ran and a retry took the key: its answer stands, not this one.
              return yield* Idempotency.inUse()
            }
            // The commit's fate is unknown (a lost connection): a committed answer is not released (`release` only
            // frees a key without one).
            yield* release(scopeId, key, fingerprint)
            return yield* Effect.failCause(committed.cause)
          }
          if (Exit.isSuccess(exit) && Idempotency.isStorable(exit.value.status)) {
            // A refusal (4xx) created nothing, so its answer is kept on its own.
            yield* complete({ scope: scopeId, key, fingerprint, response: exit.value })
          } else {
            yield* release(scopeId, key, fingerprint)
          }
          if (Exit.isFailure(exit)) return yield* Effect.failCause(exit.cause)
          return { response: exit.value, replayed: false } satisfies IdempotentResult
        })
      )
    }))

    return { run } as const
  })
}) {}
