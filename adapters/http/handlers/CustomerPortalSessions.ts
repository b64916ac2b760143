import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect } from "effect"
import { Portal } from "../../../src/application/Portal.js"
import { PortalSessionId } from "../../../src/domain/Ids.js"
import { PortalSessionResource } from "../../../src/domain/PortalSession.js"
import { CurrentPrincipal, FilsApi } from "../Api.js"
import { idempotent } from "../Idempotent.js"
import { pathId } from "./ids.js"

const withId = pathId(PortalSessionId, "customer portal session")

export const CustomerPortalSessionsLive = HttpApiBuilder.group(FilsApi, "customerPortalSessions", (handlers) =>
  Effect.gen(function*() {
    const portal = yield* Portal
    return handlers
      .handle("create", ({ headers, payload }) =>
        idempotent(
          headers["idempotency-key"],
          PortalSessionResource,
          Effect.flatMap(CurrentPrincipal, (p) => portal.create(p, payload))
        ))
      .handle("get", ({ path }) =>
        Effect.flatMap(withId(path.id), (id) => Effect.flatMap(CurrentPrincipal, (p) => portal.get(p, id))))
  }))
