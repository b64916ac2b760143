/**
 * New time-ordered ids from Effect's Clock and Random. A TestClock and a seeded Random make them repeatable in a
 * process that made no ids within ten seconds of the TestClock's time before: the count within a millisecond is the
 * process's, not the fiber's.
 *
 * Within one millisecond the 12 bits after the version count up from a random start (RFC 9562, method 1), so ids
 * made by one process sort in the order they were made, and lists that tie-break on the id stay newest-first.
 */
import { Clock, Effect, Random } from "effect"
import { type Prefix, uuidv7Hex } from "../domain/Ids.js"

const word = Random.nextIntBetween(0, 0x100000000)

let lastMillis = -1
let sequence = 0

const next = (millis: number, seed: number): readonly [number, number] => {
  // A clock far behind the last id (a TestClock, or the wall clock set back) starts a new sequence.
  if (millis > lastMillis || millis + 10_000 < lastMillis) {
    lastMillis = millis
    sequence = seed & 0x7ff // leave headroom so the counter rarely overflows within a millisecond
  } else if (++sequence > 0xfff) {
    lastMillis += 1 // overflow: borrow the next millisecond rather than lose the order
    sequence = 0
  }
  return [lastMillis, sequence]
}

export const newId = <Id extends string>(prefix: Prefix): Effect.Effect<Id> =>
  Effect.map(
    Effect.all([Clock.currentTimeMillis, word, word, word, word]),
    ([now, a, b, c, d]) => {
      const [millis, seq] = next(now, a)
      return `${prefix}_${uuidv7Hex(millis, [seq, b, c, d])}` as Id
    }
  )

/**
 * `n` new ids at once, from one reading of the clock and of randomness (they differ by their sequence): a batch of
 * request log lines would otherwise pay a dozen effect steps per id.
 */
export const newIds = <Id extends string>(prefix: Prefix, n: number): Effect.Effect<ReadonlyArray<Id>> =>
  Effect.map(
    Effect.all([Clock.currentTimeMillis, word, word, word, word]),
    ([now, a, b, c, d]) => {
      const ids: Array<Id> = []
      for (let i = 0; i < n; i++) {
        const [millis, seq] = next(now, a)
        ids.push(`${prefix}_${uuidv7Hex(millis, [seq, b, c, d])}` as Id)
      }
      return ids
    }
  )
