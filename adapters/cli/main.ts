#!/usr/bin/env node
/** `fils`: the operator command. */
import * as Command from "@effect/cli/Command"
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as ValidationError from "@effect/cli/ValidationError"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect, Layer, Logger, LogLevel } from "effect"
import { fils } from "./commands.js"
import { LoadedSettings, loadConfig, providerOf } from "./config.js"
import { outputMode, printError } from "./output.js"
import { stopWithNpmParent } from "./parentWatch.js"

const cli = Command.run(fils, { name: "fils", version: "0.1.0" })

// `--json`, anywhere: JSON on a terminal too (output.ts). Taken out here, so that every command accepts it.
const argv = process.argv.filter((arg) => arg !== "--json")
outputMode.json = argv.length !== process.argv.length

// Settings come from the environment, `<NAME>_FILE` files and a `.env` file (config.ts); one that cannot be read
// stops every command before it starts.
const loaded = (() => {
  try {
    return loadConfig()
  } catch (error) {
    Effect.runSync(printError({ code: "INVALID_CONFIG", message: (error as Error).message }))
    process.exit(1)
  }
})()

// Only `serve` logs at info level; other commands keep stdout for their results.
const serving = argv.includes("serve")
const Logging = Layer.mergeAll(
  Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger)),
  Logger.minimumLogLevel(serving ? LogLevel.Info : LogLevel.Warning)
)

stopWithNpmParent()

cli(argv).pipe(
  // Arguments @effect/cli itself refuses (a malformed number, an unknown option): after its usage text, the same
  // `{ code, message }` JSON line on stderr as every other refusal, and exit status 1.
  Effect.catchIf(ValidationError.isValidationError, (error) =>
    Effect.zipRight(
      printError({
        code: "INVALID_REQUEST",
        message: HelpDoc.toAnsiText(error.error).replace(/\u001b\[[0-9;]*m/g, "").trim() || error._tag
      }),
      Effect.sync(() => {
        process.exitCode = 1
      })
    )),
  Effect.provide(Layer.mergeAll(NodeContext.layer, Logging)),
  Effect.provideService(LoadedSettings, loaded),
  Effect.withConfigProvider(providerOf(loaded)),
  NodeRuntime.runMain({ disablePrettyLogger: true })
)
