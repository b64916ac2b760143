/**
 * Idempotency keys that a piece of work claims inside its own transaction: a refund, an on-demand charge, a plan
 * change, and an object a dashboard form makes (`CreatedOnce`). The first three call the processor between their
 * own commits, and the last answers with a page, so `IdempotencyService.run` cannot wrap them
 * (docs/decisions.md §8). Each kind claims in a scope of its own, so an API request's record of its response never
 * meets it, and the key is answered with the id of what the work makes (the refund's, the payment's): a retry after
 * a crash anywhere meets that object and carries it on, never making a second one.
 */
import { DateTime, Effect, Option } from "effect"
import { type Scope, scopeKey } from "../domain/Account.js"
import * as Idempotency from "../domain/Idempotency.js"
import type { SignerShape } from "../ports/Signer.js"
import type { IdempotencyRepositoryShape } from "../ports/repositories/IdempotencyRepository.js"
import { eventTime } from "./Time.js"

/** Objects a form makes once per one-time token (`CreatedOnce`). */
export type CreatedKind = "created_products" | "created_customers" | "created_webhooks" | "created_discounts"

export type WorkKind = "refunds" | "subscription_charges" | "plan_changes" | CreatedKind

/** A work's key: checked, in its kind's scope, with the digest of the request (other parameters are refused). */
export interface WorkKey {
  readonly scope: string
  readonly key: string
  readonly fingerprint: string
}

export const scopeOf = (scope: Scope, kind: WorkKind): string => `${scopeKey(scope)}:${kind}`

/** `key` checked, for the request whose canonical text is `request`. */
export const workKey = (signer: SignerShape, scope: Scope, kind: WorkKind, key: string, request: string) =>
  Effect.gen(function*() {
    const invalid = Idempotency.validateKey(key)
    if (invalid) return yield* invalid
    return { scope: scopeOf(scope, kind), key, fingerprint: yield* signer.digest(request) } satisfies WorkKey
  })

/** The id an earlier claim of the key answered; refused when that request differs from this one, or still runs. */
export const answeredBy = <Id extends string>(record: Idempotency.IdempotencyRecord, key: WorkKey) => {
  const outcome = Idempotency.decide(record, key.fingerprint)
  return outcome._tag === "Refuse" ? Effect.fail(outcome.error) : Effect.succeed(outcome.response.body as Id)
}

/** The id the key was answered with for this very request, if it was and the answer still holds (claiming nothing). */
export const answeredEarlier = (repo: IdempotencyRepositoryShape, key: WorkKey) =>
  Effect.gen(function*() {
    const found = yield* repo.find(key.scope, key.key)
    const now = yield* eventTime
    // A key a claim could take (expired) answers nothing; otherwise the request meets it as any retry would.
    return Option.flatMap(Option.filter(found, (record) => !Idempotency.canClaim(record, key.fingerprint, now)), (record) => {
      const outcome = Idempotency.decide(record, key.fingerprint)
      return outcome._tag === "Replay" ? Option.some(outcome.response.body) : Option.none()
    })
  })

/**
 * Claims `key` answered at once with `id`, in the caller's transaction (its rollback gives the key back): `undefined`
 * when this request is the first, otherwise the id answered earlier.
 */
export const claimAnswered = <Id extends string>(repo: IdempotencyRepositoryShape, key: WorkKey, id: Id) =>
  Effect.gen(function*() {
    // Keys live on the real time, also while the work runs on a test clock's (their 24 hours are real ones).
    const now = yield* eventTime
    const claimed = yield* repo.claim({
      ...key,
      response: { status: 200, body: id },
      lockedUntil: now,
      expiresAt: DateTime.addDuration(now, Idempotency.retention)
    }, now)
    return claimed._tag === "Claimed" ? undefined : yield* answeredBy<Id>(claimed.record, key)
  })
