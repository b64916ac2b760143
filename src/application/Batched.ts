/**
 * Writes gathered into batches. Each caller waits for its own item's write, while one fiber writes whatever has
 * gathered meanwhile in one call: a burst costs one round trip and one commit, not one per item.
 */
import { Chunk, Deferred, Effect, Queue, type Scope } from "effect"

/**
 * A writer of single items that batches them into calls of `write`, at most `max` items each, one call at a time
 * (while one commits, the next batch gathers; two writers at once measured slower for renewals). Its fiber lives in
 * the scope.
 */
export const batched = <A, E>(
  write: (items: ReadonlyArray<A>) => Effect.Effect<unknown, E>,
  options: { readonly max: number }
): Effect.Effect<(item: A) => Effect.Effect<void, E>, never, Scope.Scope> =>
  Effect.gen(function*() {
    const queue = yield* Queue.unbounded<readonly [A, Deferred.Deferred<void, E>]>()
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
          Effect.exit(Effect.asVoid(write(items.map(([item]) => item)))),
          (exit) => Effect.forEach(items, ([, done]) => Deferred.done(done, exit), { discard: true })
        )
      }),
      Effect.forever,
      Effect.forkScoped
    )
    return (item: A) =>
      Effect.flatMap(
        Deferred.make<void, E>(),
        (done) => Effect.zipRight(Queue.offer(queue, [item, done]), Deferred.await(done))
      )
  })
