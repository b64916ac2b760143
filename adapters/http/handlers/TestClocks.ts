import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { TestClocks } from "../../../src/application/TestClocks.js"
import { TestClockId } from "../../../src/domain/Ids.js"
import { TestClockResource } from "../../../src/domain/TestClock.js"
import { CurrentPrincipal, FilsApi } from "../Api.js"
import { idempotent } from "../Idempotent.js"
import { pathId } from "./ids.js"

const withId = pathId(TestClockId, "test clock")

export const TestClocksLive = HttpApiBuilder.group(FilsApi, "testClocks", (handlers) =>
  Effect.gen(function*() {
    const clocks = yield* TestClocks
    const scoped = <A, E, R>(raw: string, f: (p: typeof CurrentPrincipal.Service, id: TestClockId) => Effect.Effect<A, E, R>) =>
      Effect.flatMap(withId(raw), (id) => Effect.flatMap(CurrentPrincipal, (p) => f(p, id)))
    return handlers
      .handle("list", ({ urlParams }) => Effect.flatMap(CurrentPrincipal, (p) => clocks.list(p, urlParams)))
      .handle("create", ({ headers, payload }) =>
        idempotent(
          headers["idempotency-key"],
          TestClockResource,
          Effect.flatMap(CurrentPrincipal, (p) => clocks.create(p, payload))
        ))
      .handle("get", ({ path }) => scoped(path.id, clocks.get))
      .handle("delete", ({ path }) => scoped(path.id, clocks.remove))
      .handle("advance", ({ headers, path, payload }) =>
        idempotent(
          headers["idempotency-key"],
          TestClockResource,
          scoped(path.id, (p, id) => clocks.advance(p, id, payload))
        ))
  }))
