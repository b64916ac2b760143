/**
 * The one way money is asked of the processor, for checkout charges, renewals and refunds: call it under the
 * object's own reference (its idempotency key at the processor); should the answer be lost (the call fails as
 * unavailable, and the money may have moved), ask what the processor did under that reference; still unknown,
 * leave it `processing`/`pending` for the lookup pass to look up (`Payments.resolvePending`). It is never asked again
 * under a new reference. From the call to its record the effect is uninterruptible: a shutdown waits rather than
 * leave money moved unrecorded. `reserveThenCall` extends that back to the reservation before the call.
 */
import { Effect } from "effect"
import type { ProcessorUnavailable } from "../ports/PaymentProcessor.js"

export const callProcessor = <A, R>(
  /** The call (a charge or a refund), its answer made what `record` takes. */
  call: Effect.Effect<A, ProcessorUnavailable, R>
) =>
<B, E, E2, R2>(options: {
  /** What the processor did under the reference, when the call's answer was lost; `undefined` if it cannot tell. */
  readonly lookup: Effect.Effect<A | undefined, ProcessorUnavailable, R>
  /** Records the answer. */
  readonly record: (answer: A) => Effect.Effect<B, E, R2>
  /** The answer while the outcome is unknown (left for the lookup pass). */
  readonly unknown: Effect.Effect<B, E2, R2>
  /** What is asked, for the warning an unknown outcome logs ("A refund"), and the ids it names. */
  readonly what: string
  readonly ids: Readonly<Record<string, string>>
}): Effect.Effect<B, E | E2, R | R2> =>
  Effect.uninterruptible(
    call.pipe(
      Effect.catchTag("ProcessorUnavailable", () => options.lookup),
      Effect.catchTag("ProcessorUnavailable", () => Effect.succeed(undefined)),
      Effect.flatMap((answer): Effect.Effect<B, E | E2, R2> =>
        answer === undefined
          ? Effect.zipRight(
            Effect.logWarning(
              `${options.what}'s outcome is unknown (the processor could not be reached): looking it up later`,
              options.ids
            ),
            options.unknown
          )
          : options.record(answer)
      )
    )
  )

/**
 * A reservation (the transaction that makes the `processing` payment or `pending` refund) and the call that follows
 * it, carried through as one whatever the caller does. Interrupted in between (an HTTP client that hangs up: the
 * server interrupts its request), the reserved object would wait with nothing asked of the processor, holding its
 * session, subscription or refundable amount until the lookup pass judges it abandoned.
 */
export const reserveThenCall = <A, E, R, B, E2, R2>(
  reserve: Effect.Effect<A, E, R>,
  call: (reserved: A) => Effect.Effect<B, E2, R2>
): Effect.Effect<B, E | E2, R | R2> => Effect.uninterruptible(Effect.flatMap(reserve, call))
