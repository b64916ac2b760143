/**
 * `fils clocks create|list|advance|delete`: test clocks through the public API, with a test key (docs/api.md,
 * "Test clocks"). `advance --by 1mo` moves a clock one month on from its own time.
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { DateTime, Effect, Either, Option, Schema } from "effect"
import * as Calendar from "../../src/domain/Calendar.js"
import { InvalidRequest } from "../../src/domain/Errors.js"
import { TestClockId } from "../../src/domain/Ids.js"
import type { BillingInterval } from "../../src/domain/Product.js"
import { FrozenTime, TestClockDeleted, TestClockResource } from "../../src/domain/TestClock.js"
import { api, apiClient, key } from "./devloop.js"
import { printResult, reportFailure } from "./output.js"

const encode = Schema.encodeSync(TestClockResource)

/** An instant as the API takes it, or a refusal naming the option. */
const instant = (option: string, text: string) =>
  Either.match(Schema.decodeUnknownEither(FrozenTime)(text), {
    onLeft: () =>
      Effect.fail(new InvalidRequest({
        message: `${option} must be an ISO 8601 date-time in the years 2000 to 2099, e.g. 2027-01-31T09:00:00Z`
      })),
    onRight: Effect.succeed
  })

const units: Record<string, BillingInterval> = { d: "day", w: "week", mo: "month", y: "year" }

/** `--by 1mo`: how far past the clock's time, in calendar terms (31 January plus a month is 28/29 February). */
const after = (from: DateTime.Utc, text: string) => {
  const m = /^([1-9][0-9]{0,3})(d|w|mo|y)$/.exec(text)
  return m === null
    ? Effect.fail(new InvalidRequest({ message: `--by must be a count and a unit, d, w, mo or y (e.g. 1mo, 14d), not '${text}'` }))
    : Effect.succeed(Calendar.periodStart(from, units[m[2]!]!, Number(m[1]), 1))
}

const clockId = (text: string) =>
  Schema.is(TestClockId)(text)
    ? Effect.succeed(text)
    : Effect.fail(new InvalidRequest({ message: `'${text}' is not a test clock id (clk_…)` }))

const create = Command.make("create", {
  api,
  key,
  frozenTime: Options.text("frozen-time").pipe(
    Options.optional,
    Options.withDescription("The clock's time, ISO 8601 (default: now)")
  ),
  name: Options.text("name").pipe(Options.optional, Options.withDescription("A name to tell clocks apart"))
}, (options) =>
  reportFailure(Effect.gen(function*() {
    const { client, reach } = yield* apiClient(options.api, options.key)
    const frozen_time = Option.isSome(options.frozenTime)
      ? yield* instant("--frozen-time", options.frozenTime.value)
      : yield* DateTime.now
    const clock = yield* reach(client.testClocks.create({
      headers: {},
      payload: { frozen_time, ...(Option.isSome(options.name) ? { name: options.name.value } : {}) }
    }))
    yield* printResult(encode(clock))
  }))).pipe(Command.withDescription("Create a test clock; attach customers to it with test_clock_id on POST /customers"))

const list = Command.make("list", { api, key }, (options) =>
  reportFailure(Effect.gen(function*() {
    const { client, reach } = yield* apiClient(options.api, options.key)
    const page = yield* reach(client.testClocks.list({ urlParams: { limit: 100 } }))
    yield* printResult(page.items.map((c) => {
      const { frozen_time, name, status, test_clock_id } = encode(c)
      return { test_clock_id, name, frozen_time, status }
    }))
  }))).pipe(Command.withDescription("List the account's test clocks, newest first"))

const advance = Command.make("advance", {
  api,
  key,
  clock: Args.text({ name: "CLOCK_ID" }),
  to: Options.text("to").pipe(Options.optional, Options.withDescription("The time to move to, ISO 8601")),
  by: Options.text("by").pipe(Options.optional, Options.withDescription("How far to move: 1d, 2w, 1mo, 1y, …"))
}, (options) =>
  reportFailure(Effect.gen(function*() {
    if (Option.isSome(options.to) === Option.isSome(options.by)) {
      return yield* new InvalidRequest({ message: "Give exactly one of --to ISO-TIME and --by AMOUNT (e.g. --by 1mo)" })
    }
    const id = yield* clockId(options.clock)
    const { client, reach } = yield* apiClient(options.api, options.key)
    const target = Option.isSome(options.to)
      ? yield* instant("--to", options.to.value)
      : yield* after((yield* reach(client.testClocks.get({ path: { id } }))).frozen_time, Option.getOrThrow(options.by))
    const clock = yield* reach(client.testClocks.advance({ path: { id }, headers: {}, payload: { frozen_time: target } }))
    yield* printResult(encode(clock))
  }))).pipe(Command.withDescription("Move a test clock forward, running the renewals, retries and expiries due meanwhile"))

const remove = Command.make("delete", { api, key, clock: Args.text({ name: "CLOCK_ID" }) }, (options) =>
  reportFailure(Effect.gen(function*() {
    const id = yield* clockId(options.clock)
    const { client, reach } = yield* apiClient(options.api, options.key)
    yield* printResult(Schema.encodeSync(TestClockDeleted)(yield* reach(client.testClocks.delete({ path: { id } }))))
  }))).pipe(Command.withDescription("Delete a test clock and its customers, with their sessions, payments and subscriptions"))

export const clocksCommand = Command.make("clocks").pipe(
  Command.withSubcommands([create, list, advance, remove]),
  Command.withDescription("Test clocks: test-mode time you move yourself (through the API, with a test key)")
)
