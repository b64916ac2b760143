/** `FILS_LOG_LEVEL`: every documented value means its level; anything else is refused at start-up. */
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Either, LogLevel } from "effect"
import { LogLevelConfig } from "../../../adapters/observability/Logging.js"

const parse = (value: string | undefined) =>
  Effect.either(Effect.withConfigProvider(
    LogLevelConfig,
    ConfigProvider.fromMap(new Map(value === undefined ? [] : [["FILS_LOG_LEVEL", value]]))
  ))

describe("FILS_LOG_LEVEL", () => {
  it.effect("each documented value, in any case, is its level; the default is info", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [string | undefined, LogLevel.LogLevel]> = [
        ["all", LogLevel.All],
        ["trace", LogLevel.Trace],
        ["debug", LogLevel.Debug],
        ["info", LogLevel.Info],
        ["warn", LogLevel.Warning],
        ["Warning", LogLevel.Warning],
        ["error", LogLevel.Error],
        ["FATAL", LogLevel.Fatal],
        ["none", LogLevel.None],
        [" none ", LogLevel.None],
        [undefined, LogLevel.Info]
      ]
      for (const [value, level] of cases) {
        const parsed = yield* parse(value)
        assert.isTrue(Either.isRight(parsed), `${value} is accepted`)
        if (Either.isRight(parsed)) assert.strictEqual(parsed.right.label, level.label, `${value}`)
      }
    }))

  it.effect("anything else is refused, naming the accepted values", () =>
    Effect.gen(function*() {
      for (const value of ["verbose", "", "off-ish", "3"]) {
        const parsed = yield* parse(value)
        assert.isTrue(Either.isLeft(parsed), `${JSON.stringify(value)} is refused`)
        if (Either.isLeft(parsed)) assert.include(String(parsed.left), "Expected one of all, trace, debug, info, warn")
      }
    }))
})
