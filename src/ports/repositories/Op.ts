import type { Effect } from "effect"
import type { StoreUnavailable } from "../../domain/Errors.js"

/** A store operation: it fails only when the store cannot be reached (`StoreUnavailable`). */
export type Op<A> = Effect.Effect<A, StoreUnavailable>
