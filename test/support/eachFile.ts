/**
 * Runs before each test file (vitest's `setupFiles`). Test files may share a worker's modules (`isolate: false`),
 * so what belongs to one file is set up and torn down here, not once per module:
 *
 * - `@effect/vitest`'s own `it.effect`, `it.scoped` and `it.layer`. `layer(...)` in @effect/vitest 0.30.0 assigns
 *   testers bound to its layer's runtime onto the one shared `it` and never takes them back: a later file's
 *   `it.effect` would run on that runtime, with its TestClock.
 * - The work registered with `onFileEnd` (a file's database), done after the file's last test.
 */
import * as Vitest from "@effect/vitest"
import { afterAll } from "vitest"
import { endFile } from "./fileEnd.js"

Object.assign(Vitest.it, {
  effect: Vitest.effect,
  scoped: Vitest.scoped,
  live: Vitest.live,
  scopedLive: Vitest.scopedLive,
  layer: Vitest.layer,
  prop: Vitest.prop,
  flakyTest: Vitest.flakyTest
})

afterAll(endFile)
