import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { RequestLogs } from "../../../src/application/RequestLogs.js"
import { CurrentPrincipal, FilsApi } from "../Api.js"

export const RequestLogsLive = HttpApiBuilder.group(FilsApi, "requestLogs", (handlers) =>
  Effect.gen(function*() {
    const logs = yield* RequestLogs
    return handlers.handle("list", ({ urlParams }) => Effect.flatMap(CurrentPrincipal, (p) => logs.list(p, urlParams)))
  }))
