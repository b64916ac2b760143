/**
 * `fils check`: scans the database for violated invariants (adapters/sql/Check.ts) and prints them (JSON when piped),
 * `{ ok, checked, violations: [{ invariant, object_id, detail }] }`. Exit code 0 when nothing is broken, 2 when
 * something is (1 stays for "the check could not run", as for every command).
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { Duration, Effect, Option } from "effect"
import { check, invariants } from "../sql/Check.js"
import { DatabaseLive } from "../sql/Postgres.js"
import { integerWithin } from "./options.js"
import { printResult, reportFailure, withProgress } from "./output.js"

const leaseGrace = integerWithin(
  "lease-grace",
  { min: 0, max: 31_536_000 },
  "Seconds past its end a delivery lease may linger before it counts as stuck, default 60"
).pipe(Options.optional)

export const checkCommand = Command.make("check", { leaseGrace }, ({ leaseGrace }) =>
  reportFailure(
    Effect.gen(function*() {
      const violations = yield* withProgress(`Checking ${invariants.length} invariants`)(check({
        leaseGrace: Option.getOrUndefined(Option.map(leaseGrace, (s) => Duration.seconds(s)))
      }))
      yield* printResult({ ok: violations.length === 0, checked: invariants, violations })
      if (violations.length > 0) {
        yield* Effect.sync(() => {
          process.exitCode = 2
        })
      }
    }).pipe(Effect.provide(DatabaseLive))
  )).pipe(
    Command.withDescription(
      "Scan the database for broken invariants (events, sessions, periods, deliveries, amounts); exit 2 if any"
    )
  )
