/** How a secret could leak: every way a value is printed (a log line, an error's cause, a JSON body, the console). */
import { assert } from "@effect/vitest"
import { Inspectable } from "effect"
import { inspect } from "node:util"

export const printed = (value: unknown): ReadonlyArray<string> => [
  JSON.stringify(value) ?? "",
  Inspectable.format(value),
  inspect(value, { depth: 20 }),
  String(value)
]

/** None of `secrets` shows in any printed form of `value`. */
export const assertHidden = (value: unknown, secrets: ReadonlyArray<string>, what = "value") => {
  for (const text of printed(value)) {
    for (const secret of secrets) assert.notInclude(text, secret, `${what} shows a secret`)
  }
}
