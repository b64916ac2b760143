/**
 * Objects made from a form posted with a one-time token (the dashboard's "new product", "new discount"): the token is
 * claimed, answered with the new object's id, in the transaction that writes the object, so that the form posted
 * twice (a double click, a request the browser sent again) makes one object, and the second post is answered with it.
 * What the caller writes `alongside` (its audit entry) goes in the same transaction, once.
 */
import { Data, Effect, Option, Predicate } from "effect"
import type { Scope } from "../domain/Account.js"
import type { IdempotencyKeyInUse, IdempotencyKeyReused, InvalidRequest, StoreUnavailable } from "../domain/Errors.js"
import { canonicalJson } from "../domain/PlanChange.js"
import { Signer } from "../ports/Signer.js"
import { Transactions } from "../ports/Transactions.js"
import { IdempotencyRepository } from "../ports/repositories/IdempotencyRepository.js"
import * as WorkKeys from "./WorkKeys.js"

/** Why a form's object could not be made, besides its own refusals: a token out of shape, or the store. */
export type CreateOnceError = InvalidRequest | IdempotencyKeyReused | IdempotencyKeyInUse | StoreUnavailable

/** Plain values, whose canonical JSON is all they hold (a `Date` or a `Redacted` would digest as `{}`). */
export type PlainInput =
  | string
  | number
  | boolean
  | null
  | undefined
  | ReadonlyArray<PlainInput>
  | { readonly [key: string]: PlainInput }

/** What was made: now, or by an earlier post of the same form (its id). */
export type Made<A> = { readonly _tag: "Created"; readonly value: A } | { readonly _tag: "Earlier"; readonly id: string }

/** The earlier post's object, found after this one's was written: this one's is rolled back. */
class MadeEarlier extends Data.TaggedError("MadeEarlier")<{ readonly id: string }> {}

export class CreatedOnce extends Effect.Service<CreatedOnce>()("fils/CreatedOnce", {
  effect: Effect.gen(function*() {
    const repo = yield* IdempotencyRepository
    const signer = yield* Signer
    const transactions = yield* Transactions

    /**
     * Runs `create` at most once per (scope, kind, token, input). Another input under the same token (the form
     * shown again by the browser's Back button, edited, and posted) makes an object of its own. Two posts at once:
     * the second waits for the first's claim, then rolls back its own object and answers with the first's. One
     * whose own object is refused because the first's holds its place (a discount's code) answers with the first's too.
     */
    const create = <A, E, R>(options: {
      readonly scope: Scope
      readonly kind: WorkKeys.CreatedKind
      readonly token: string
      /** What the form posted, decoded (its digest binds the token). */
      readonly input: PlainInput
      readonly create: Effect.Effect<A, E, R>
      readonly idOf: (made: A) => string
      readonly alongside: (made: A) => Effect.Effect<void, StoreUnavailable>
    }) =>
      Effect.gen(function*() {
        // Its own transaction: joined to a caller's, the rollback of a second post's object would not happen.
        if (yield* transactions.inTransaction) return yield* Effect.dieMessage("CreatedOnce.create runs in a transaction of its own")
        const request = canonicalJson(options.input)
        const key = yield* WorkKeys.workKey(signer, options.scope, options.kind, `${options.token}:${yield* signer.digest(request)}`, request)
        return yield* transactions.transact(Effect.gen(function*() {
          const made = yield* options.create
          const earlier = yield* WorkKeys.claimAnswered(repo, key, options.idOf(made))
          if (earlier !== undefined) return yield* new MadeEarlier({ id: earlier })
          yield* options.alongside(made)
          return { _tag: "Created", value: made } as Made<A>
        })).pipe(Effect.catchAll((error) =>
          error instanceof MadeEarlier
            ? Effect.succeed({ _tag: "Earlier", id: error.id } as Made<A>)
            // Refused because the earlier post's object holds its place (a discount's code): answered with that one.
            : Effect.flatMap(
              Predicate.isTagged(error, "StoreUnavailable") ? Effect.succeed(Option.none()) : WorkKeys.answeredEarlier(repo, key),
              Option.match({ onNone: () => Effect.fail(error), onSome: (id) => Effect.succeed({ _tag: "Earlier", id } as Made<A>) })
            )
        ))
      })

    return { create } as const
  })
}) {}
