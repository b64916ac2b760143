/**
 * The JSON log lines: a request's id on every line logged while it runs, fields given with the message, redaction;
 * and `FILS_LOG_LEVEL`: every documented value means its level, anything else is refused at start-up.
 */
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Either, Logger, LogLevel } from "effect"
import { jsonLineLogger, LogLevelConfig, requestIdAttribute } from "../../../adapters/observability/Logging.js"

/** Runs `effect` with the JSON logger alone and returns the lines it wrote, parsed. */
const linesOf = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const lines: Array<string> = []
    yield* Effect.provide(effect, Logger.replace(Logger.defaultLogger, Logger.map(jsonLineLogger, (l) => lines.push(l))))
    return lines.map((l) => JSON.parse(l) as Record<string, unknown>)
  })

describe("jsonLineLogger", () => {
  it.effect("a line logged anywhere inside a request's span carries the request's id, first; others carry none", () =>
    Effect.gen(function*() {
      const [inside, outside] = yield* linesOf(Effect.zipRight(
        Effect.gen(function*() {
          yield* Effect.annotateCurrentSpan(requestIdAttribute, "req_abc")
          // A nested use-case span, as a handler's Effect.fn makes.
          yield* Effect.logWarning("charge declined").pipe(Effect.annotateLogs({ payment_id: "pay_1" }), Effect.withSpan("Payments.get"))
        }).pipe(Effect.withSpan("http.server GET")),
        Effect.logInfo("between requests")
      ))
      assert.strictEqual(inside!.request_id, "req_abc")
      assert.strictEqual(inside!.payment_id, "pay_1")
      assert.deepStrictEqual(Object.keys(inside!).slice(0, 4), ["timestamp", "level", "message", "request_id"])
      assert.notProperty(outside!, "request_id")
    }))

  it.effect("a plain object after the message gives the line its fields, in the request fields' order, redacted", () =>
    Effect.gen(function*() {
      const [line] = yield* linesOf(Effect.logInfo("http request", {
        zeta: "sk_test_0123456789abcdef",
        status: 200,
        route: "/api/v1/payments/{id}",
        request_id: "req_xyz"
      }))
      assert.strictEqual(line!.message, "http request")
      assert.deepStrictEqual(Object.keys(line!), ["timestamp", "level", "message", "request_id", "route", "status", "zeta", "fiber"])
      assert.strictEqual(line!.zeta, "sk_test_[REDACTED]")
      // Anything else after the message stays in the message.
      const [list] = yield* linesOf(Effect.logInfo("two parts", [1, 2]))
      assert.deepStrictEqual(list!.message, ["two parts", [1, 2]])
    }))
})

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
