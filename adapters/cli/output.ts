/** CLI output: machine-readable JSON on stdout; errors as `{ code, message }` JSON on stderr with exit code 1. */
import { Console, Effect } from "effect"

export const printJson = (value: unknown) => Console.log(JSON.stringify(value, null, 2))

const describe = (error: unknown): { readonly code: string; readonly message: string } =>
  typeof error === "object" && error !== null && "code" in error && "message" in error &&
    typeof error.code === "string" && typeof error.message === "string"
    ? { code: error.code, message: error.message }
    : { code: "INTERNAL_ERROR", message: error instanceof Error ? error.message : String(error) }

/** Reports a failure on stderr and sets a non-zero exit code, instead of a stack trace. */
export const reportFailure = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<void, never, R> =>
  effect.pipe(
    Effect.asVoid,
    Effect.catchAll((error) =>
      Effect.zipRight(
        Console.error(JSON.stringify(describe(error))),
        Effect.sync(() => {
          process.exitCode = 1
        })
      )
    )
  )
