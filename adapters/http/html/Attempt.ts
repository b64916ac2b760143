/**
 * What a page answers itself and what it cannot: a refusal or an object that is not there becomes part of the page
 * (a 404, the form again with the reason), but a store that cannot be reached is not the merchant's or the
 * customer's doing, and a page built from it would say something false ("no such product", "no documents"). It
 * stays a failure, which each surface's guard answers with its "try again" page (503).
 */
import { Effect, Either, Predicate } from "effect"
import type { StoreUnavailable } from "../../../src/domain/Errors.js"

const isStoreUnavailable = (error: unknown): error is StoreUnavailable => Predicate.isTagged(error, "StoreUnavailable")

/** `Effect.either` for the engine's answers only: a store outage still fails. */
export const attempt = <A, E, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<Either.Either<A, Exclude<E, StoreUnavailable>>, Extract<E, StoreUnavailable>, R> =>
  Effect.flatMap(Effect.either(effect), (result) =>
    Either.isLeft(result) && isStoreUnavailable(result.left)
      ? Effect.fail(result.left as Extract<E, StoreUnavailable>)
      : Effect.succeed(result as Either.Either<A, Exclude<E, StoreUnavailable>>))

/** The value, or `undefined` when the engine answered with an error (not found, refused); an outage still fails. */
export const lookup = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A | undefined, Extract<E, StoreUnavailable>, R> =>
  Effect.map(attempt(effect), Either.getOrUndefined)
