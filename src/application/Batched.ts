/**
 * Writes and reads gathered into batches. Each caller waits for its own item, while one fiber makes one call for
 * whatever has gathered meanwhile: a burst costs one round trip (and one commit), not one per item.
 */
import { Chunk, Deferred, Effect, Exit, Queue, type Scope } from "effect"
import * as Account from "../domain/Account.js"

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

/**
 * Reads by id gathered into batches: the ids that concurrent callers ask for are read in one call by id alone
 * (`findAll`), and each caller gets the rows among its own ids that belong to its scope, each once, as the scoped
 * read would give. A batch is read after all its callers asked, so each sees every write committed before it asked.
 * Outside transactions only: the batch reads on a connection of its own, and a caller holding one while it waits
 * could starve the pool.
 */
export const batchedReads = <Id extends string, A extends { readonly account_id: string; readonly livemode: boolean }, E>(
  findAll: (ids: ReadonlyArray<Id>) => Effect.Effect<ReadonlyArray<A>, E>,
  idOf: (row: A) => Id,
  options: { readonly max: number }
): Effect.Effect<(scope: Account.Scope, ids: ReadonlyArray<Id>) => Effect.Effect<ReadonlyArray<A>, E>, never, Scope.Scope> =>
  Effect.map(
    batchedCalls((asks: ReadonlyArray<{ readonly scope: Account.Scope; readonly ids: ReadonlyArray<Id> }>) =>
      Effect.map(findAll([...new Set(asks.flatMap((ask) => ask.ids))]), (rows) => {
        const byId = new Map(rows.map((row) => [idOf(row), row]))
        return asks.map(({ ids, scope }) =>
          [...new Set(ids)].flatMap((id) => {
            const row = byId.get(id)
            return row !== undefined && Account.inScope(row, scope) ? [row] : []
          })
        )
      }), options),
    (read) => (scope, ids) => ids.length === 0 ? Effect.succeed([]) : read({ scope, ids })
  )
