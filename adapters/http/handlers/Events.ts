import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Events } from "../../../src/application/Events.js"
import { EventId } from "../../../src/domain/Ids.js"
import { CurrentPrincipal, FilsApi } from "../Api.js"
import { pathId } from "./ids.js"

const withId = pathId(EventId, "event")

export const EventsLive = HttpApiBuilder.group(FilsApi, "events", (handlers) =>
  Effect.gen(function*() {
    const events = yield* Events
    return handlers
      .handle("list", ({ urlParams }) => Effect.flatMap(CurrentPrincipal, (p) => events.list(p, urlParams)))
      .handle("get", ({ path }) =>
        Effect.flatMap(withId(path.id), (id) => Effect.flatMap(CurrentPrincipal, (p) => events.get(p, id))))
  }))
