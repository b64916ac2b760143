/** Options shared by several commands. */
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as Options from "@effect/cli/Options"
import * as ValidationError from "@effect/cli/ValidationError"
import { Effect } from "effect"

/**
 * An integer option refused outside `min`..`max`, never clamped: `--limit 5000` is an error that says the bound, not
 * a silent 1,000 rows. The refusal is the `{ code, message }` line of every other malformed argument (main.ts).
 */
export const integerWithin = (
  name: string,
  bounds: { readonly min: number; readonly max: number },
  /** What the option means; its range is added, so that help and refusal state the same bounds. */
  description: string
) =>
  Options.integer(name).pipe(
    Options.mapEffect((n) =>
      n >= bounds.min && n <= bounds.max
        ? Effect.succeed(n)
        : Effect.fail(ValidationError.invalidValue(HelpDoc.p(`--${name} must be ${rangeOf(bounds)}, not ${n}`)))
    ),
    Options.withDescription(`${description} (${rangeOf(bounds)})`)
  )

const rangeOf = (bounds: { readonly min: number; readonly max: number }) => `between ${bounds.min} and ${bounds.max}`
