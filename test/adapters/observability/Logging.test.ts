/**
 * The JSON log lines: a request's id on every line logged while it runs, fields given with the message, redaction;
 * and `FILS_LOG_LEVEL`: every documented value means its level, anything else is refused at start-up.
 */
import { assert, describe, it } from "@effect/vitest"
import { Cause, ConfigProvider, Context, Effect, Either, FiberId, FiberRef, FiberRefs, HashMap, List, Logger, LogLevel, Tracer } from "effect"
import fc from "fast-check"
import { JsonLogging, jsonLineGeneral, jsonLineLogger, LogLevelConfig, requestIdAttribute } from "../../../adapters/observability/Logging.js"

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

describe("the plain line's shortcut", () => {
  // Keys that sort among the request fields, collide with the line's own, or come after them; values of every flat kind.
  const key = fc.oneof(
    fc.constantFrom("request_id", "account_id", "mode", "route", "method", "status", "duration_ms", "client_address", "message", "level", "fiber", "zeta"),
    fc.string({ maxLength: 8 })
  )
  const flat = fc.oneof(fc.string({ maxLength: 40 }), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer(), fc.boolean(), fc.constant(null),
    fc.constantFrom("sk_test_0123456789abcdef", "4242 4242 4242 4242", "fils_\u2028"))

  it("gives byte for byte the line of the general walk, for any message and flat fields", () => {
    fc.assert(fc.property(fc.string({ maxLength: 30 }), fc.option(fc.dictionary(key, flat, { maxKeys: 12 }), { nil: undefined }), fc.constantFrom(...LogLevel.allLevels), fc.boolean(), (text, fields, level, inRequest) => {
      const span = { _tag: "Span", attributes: new Map([[requestIdAttribute, "req_prop"]]), parent: { _tag: "None" } }
      const context = inRequest
        ? FiberRefs.updateAs(FiberRefs.unsafeMake(new Map()), { fiberId: FiberId.none, fiberRef: FiberRef.currentContext, value: Context.make(Tracer.ParentSpan, span as never) })
        : FiberRefs.unsafeMake(new Map())
      const options: Logger.Logger.Options<unknown> = {
        fiberId: FiberId.make(7, 0),
        logLevel: level,
        message: fields === undefined ? [text] : [text, fields],
        cause: Cause.empty,
        context,
        spans: List.empty(),
        annotations: HashMap.empty(),
        date: new Date(1_764_000_000_000)
      }
      const fast = jsonLineLogger.log(options)
      assert.strictEqual(fast, jsonLineGeneral(options))
      // Redaction keeps the line JSON, whatever the fields' numbers are.
      const line = JSON.parse(fast) as Record<string, unknown>
      if (inRequest && (fields === undefined || !("request_id" in fields))) assert.strictEqual(line.request_id, "req_prop")
    }), { numRuns: 300, examples: [["", { "": -0.2026415524882046, n: 4242424242424242 }, LogLevel.Info, false]] })
  })
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

describe("JsonLogging on stdout", () => {
  it.live("writes lines logged some milliseconds apart together, later, in order, none lost", () =>
    Effect.gen(function*() {
      const writes: Array<string> = []
      const write = process.stdout.write
      process.stdout.write = ((chunk: string | Uint8Array) => {
        writes.push(String(chunk))
        return true
      }) as typeof process.stdout.write
      const writtenAtOnce = yield* Effect.gen(function*() {
        yield* Effect.logInfo("line 0")
        const atOnce = writes.length
        // Lines of separate turns of the event loop, as a steady rate of requests logs them.
        for (let i = 1; i < 10; i++) {
          yield* Effect.sleep(1)
          yield* Effect.logInfo(`line ${i}`)
        }
        yield* Effect.sleep(100)
        return atOnce
      }).pipe(Effect.provide(JsonLogging), Effect.ensuring(Effect.sync(() => (process.stdout.write = write))))
      assert.strictEqual(writtenAtOnce, 0, "a line is not written at once")
      // One write, or a few on a machine that stalls between the lines: never one per line.
      assert.isBelow(writes.length, 10)
      const messages = writes.join("").trimEnd().split("\n").map((l) => JSON.parse(l).message)
      assert.deepStrictEqual(messages, Array.from({ length: 10 }, (_, i) => `line ${i}`))
    }))
})
