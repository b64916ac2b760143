/** Options shared by several commands. */
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as Options from "@effect/cli/Options"
import * as ValidationError from "@effect/cli/ValidationError"
import { Effect } from "effect"

/**
 * An integer option refused outside `min`..`max`, never clamped: `--limit 5000` is an error that says the bound, not
 * a silent 1,000 rows. The refusal is the `{ code, message }` line of every other malformed argument (main.ts).
 */
export const integerWithin = (name: string, bounds: { readonly min: number; readonly max?: number }) =>
  Options.integer(name).pipe(Options.mapEffect((n) => {
    const { max, min } = bounds
    if (n >= min && (max === undefined || n <= max)) return Effect.succeed(n)
    const range = max === undefined ? `at least ${min}` : `between ${min} and ${max}`
    return Effect.fail(ValidationError.invalidValue(HelpDoc.p(`--${name} must be ${range}, not ${n}`)))
  }))
