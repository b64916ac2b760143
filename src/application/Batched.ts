/**
 * Writes gathered into batches. Each caller waits for its own item's write, while one fiber writes whatever has
 * gathered meanwhile in one call: a burst costs one round trip and one commit, not one per item.
 */
import { Chunk, Deferred, Effect, Exit, Queue, type Scope } from "effect"

/**
 * A caller of `call` with single items: whatever has gathered meanwhile goes in one call, at most `max` items,
 * one call at a time (while one commits, the next batch gathers; two at once measured slower for renewals), and
 * each caller gets its own item's result (`call` answers in the order of its items). Its fiber lives in the scope.
 */
export const batchedCalls = <A, B, E>(
  call: (items: ReadonlyArray<A>) => Effect.Effect<ReadonlyArray<B>, E>,
  options: { readonly max: number }
): Effect.Effect<(item: A) => Effect.Effect<B, E>, never, Scope.Scope> =>
  Effect.gen(function*() {
    const queue = yield* Queue.unbounded<readonly [A, Deferred.Deferred<B, E>]>()
    // Once the first item is there, the others that are ready by the next turn of the scheduler join its batch:
    // items that arrive together are written together, not as one and then the rest.
    const take = Effect.flatMap(Queue.take(queue), (first) =>
      Effect.zipRight(
        Effect.yieldNow(),
        Effect.map(Queue.takeUpTo(queue, options.max - 1), (rest) => Chunk.prepend(rest, first))
      ))
    yield* take.pipe(
      Effect.flatMap((taken) => {
        const items = Chunk.toReadonlyArray(taken)
        return Effect.flatMap(
          Effect.exit(call(items.map(([item]) => item))),
          (exit) =>
            Effect.forEach(
              items,
              ([, done], i) => Deferred.done(done, Exit.map(exit, (results) => results[i]!)),
              { discard: true }
            )
        )
      }),
      Effect.forever,
      Effect.forkScoped
    )
    return (item: A) =>
      Effect.flatMap(
        Deferred.make<B, E>(),
        (done) => Effect.zipRight(Queue.offer(queue, [item, done]), Deferred.await(done))
      )
  })

/** `batchedCalls` for writes: each caller waits for the write that carried its item. */
export const batched = <A, E>(
  write: (items: ReadonlyArray<A>) => Effect.Effect<unknown, E>,
  options: { readonly max: number }
): Effect.Effect<(item: A) => Effect.Effect<void, E>, never, Scope.Scope> =>
  batchedCalls((items: ReadonlyArray<A>) => Effect.as(write(items), items.map(() => undefined)), options)
