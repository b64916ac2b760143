/**
 * `fils logs tail`: follows a Fils server's request logs (`GET /request_logs`) through the public API and prints each
 * new line as it is written, oldest first: on a terminal one readable line per request, piped (or with `--json`) its
 * JSON, one per line. The key's account and mode are the ones shown (a test key sees test requests, a live key live
 * ones).
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Config, Console, DateTime, Duration, Effect, Option, Redacted, Schema } from "effect"
import { RequestLogResource, statusFilterPattern } from "../../src/domain/RequestLog.js"
import { InvalidRequest } from "../../src/domain/Errors.js"
import { FilsClient } from "../http/index.js"
import { api } from "./devloop.js"
import { integerWithin } from "./options.js"
import { forPeople, reportFailure } from "./output.js"

type Line = typeof RequestLogResource.Type

const encodeLine = Schema.encodeSync(RequestLogResource)

/** How far below the previous look each look reaches: a line is written a moment after its request began. */
const lookBackMillis = 60_000

const statusOption = Options.text("status").pipe(
  Options.optional,
  Options.withDescription("Only this status (404) or class of statuses (4xx)")
)

/** One request, as a person reads it. */
export const describeLine = (l: Line): string =>
  [
    DateTime.formatIso(l.created_at),
    String(l.status),
    `${l.method} ${l.path}`,
    `${l.duration_ms.toFixed(1)} ms`,
    l.request_id,
    l.key_id,
    ...(l.error_code === null ? [] : [l.error_code]),
    ...(l.idempotency_key === null ? [] : [`idempotency-key=${l.idempotency_key}`])
  ].join("  ")

const tail = Command.make("tail", {
  api,
  key: Options.redacted("key").pipe(
    Options.withFallbackConfig(Config.redacted("FILS_API_KEY")),
    Options.withDescription("A secret key, sk_test_… or sk_live_… (FILS_API_KEY): its account's requests of its mode")
  ),
  status: statusOption,
  path: Options.text("path").pipe(Options.optional, Options.withDescription("Only requests whose path starts with this")),
  interval: integerWithin("interval-ms", { min: 100, max: 3_600_000 }, "How often to look for new lines").pipe(Options.withDefault(1000))
}, (options) =>
  reportFailure(Effect.gen(function*() {
    if (Option.isSome(options.status) && !statusFilterPattern.test(options.status.value)) {
      return yield* new InvalidRequest({ message: `--status must be a status code (404) or a class (4xx), not '${options.status.value}'` })
    }
    if (Option.isSome(options.path) && !options.path.value.startsWith("/")) {
      return yield* new InvalidRequest({ message: `--path must start with /, as /api/v1/payments does` })
    }
    const json = !forPeople(process.stdout)
    const root = options.api.replace(/\/+$/, "")
    const client = yield* FilsClient.makeFetch({ baseUrl: root, apiKey: options.key })
    const reach = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      Effect.mapError(effect, (error: unknown): { readonly code: string; readonly message: string } =>
        typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"
          ? { code: error.code, message: String((error as { message?: unknown }).message) }
          : { code: "UNAVAILABLE", message: `${root}: ${error instanceof Error ? error.message : String(error)}` })
    const filters = {
      ...Option.match(options.status, { onNone: () => ({}), onSome: (status) => ({ status }) }),
      ...Option.match(options.path, { onNone: () => ({}), onSome: (path) => ({ path }) })
    }
    // Its mode from the key itself: asking the API would be a request of its own, and show in the tail.
    const live = Redacted.value(options.key).startsWith("sk_live_")

    // Progress is the set of lines seen: each look pages from the newest down to the previous look's start less
    // the look-back, and prints the lines it has not seen, oldest first.
    const seen = new Map<string, number>()
    let lastLook = Date.now()
    const look = (print: boolean) =>
      Effect.gen(function*() {
        const started = Date.now()
        const since = DateTime.unsafeMake(lastLook - lookBackMillis)
        const found: Array<Line> = []
        let cursor: string | undefined
        while (true) {
          const page = yield* reach(client.requestLogs.list({
            urlParams: { ...filters, since, limit: 100, ...(cursor === undefined ? {} : { cursor }) }
          }))
          found.push(...page.items.filter((l) => !seen.has(l.request_log_id)))
          if (page.next_cursor === null) break
          cursor = page.next_cursor
        }
        for (const line of found.reverse()) {
          seen.set(line.request_log_id, DateTime.toEpochMillis(line.created_at))
          if (print) yield* Console.log(json ? JSON.stringify(encodeLine(line)) : describeLine(line))
        }
        lastLook = started
        for (const [id, at] of seen) if (at < lastLook - lookBackMillis) seen.delete(id)
      })
    // Only requests from now on are shown.
    yield* look(false)
    yield* Console.error(`Tailing the ${live ? "live" : "test"} request logs of ${root} (Ctrl-C to stop)`)
    const poll = look(true).pipe(
      Effect.catchAll((e) => Console.error(`Could not read request logs: ${e.message}`))
    )
    yield* Effect.forever(Effect.zipRight(Effect.sleep(Duration.millis(options.interval)), poll))
  }))).pipe(Command.withDescription("Print an account's API requests as they are logged (GET /request_logs)"))

export const logsCommand = Command.make("logs").pipe(
  Command.withSubcommands([tail]),
  Command.withDescription("Read the API's request logs")
)
