/** New time-ordered ids from Effect's Clock and Random (TestClock and a seeded Random make them repeatable). */
import { Clock, Effect, Random } from "effect"
import { type Prefix, uuidv7Hex } from "../domain/Ids.js"

const word = Random.nextIntBetween(0, 0x100000000)

export const newId = <Id extends string>(prefix: Prefix): Effect.Effect<Id> =>
  Effect.map(
    Effect.all([Clock.currentTimeMillis, word, word, word, word]),
    ([millis, a, b, c, d]) => `${prefix}_${uuidv7Hex(millis, [a, b, c, d])}` as Id
  )
