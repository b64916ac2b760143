/**
 * Runs before each test file (vitest's `setupFiles`). Test files may share a worker's modules (`isolate: false`),
 * so what belongs to one file is set up and torn down here, not once per module:
 *
 * - `@effect/vitest`'s own `it.effect`, `it.scoped`, `it.layer`, `it.prop` and `it.flakyTest`: `layer(...)` in
 *   @effect/vitest 0.30.0 assigns its own onto the one shared `it`, bound to its layer's runtime, and never takes
 *   them back: a later file's `it.effect` would run on that runtime, with its TestClock.
 * - The work registered with `onFileEnd` (a file's database), done after the file's last test: vitest runs after-all
 *   hooks last-registered first, so this one, registered before the file's own, runs after them. If a file's own
 *   hook failed (vitest then skips the rest), what it left is done before the next file starts.
 */
import * as Vitest from "@effect/vitest"
import { afterAll } from "vitest"
import { endFile } from "./fileEnd.js"

await endFile()

Object.assign(Vitest.it, {
  effect: Vitest.effect,
  scoped: Vitest.scoped,
  layer: Vitest.layer,
  prop: Vitest.prop,
  flakyTest: Vitest.flakyTest
})

afterAll(endFile)
