#!/usr/bin/env node
/** `fils`: the operator command. */
import { Command } from "@effect/cli"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Effect, Layer, Logger, LogLevel } from "effect"
import { fils } from "./commands.js"

const cli = Command.run(fils, { name: "fils", version: "0.1.0" })

// Only `serve` logs at info level; other commands keep stdout for their JSON.
const serving = process.argv.includes("serve")
const Logging = Layer.mergeAll(
  Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger)),
  Logger.minimumLogLevel(serving ? LogLevel.Info : LogLevel.Warning)
)

cli(process.argv).pipe(
  Effect.provide(Layer.mergeAll(NodeContext.layer, Logging)),
  NodeRuntime.runMain({ disablePrettyLogger: true })
)
