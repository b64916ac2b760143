import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect, Redacted } from "effect"
import { Webhooks } from "../../../src/application/Webhooks.js"
import { WebhookId } from "../../../src/domain/Ids.js"
import { withSecret, WebhookWithSecret } from "../../../src/domain/WebhookEndpoint.js"
import { CurrentPrincipal, FilsApi } from "../Api.js"
import { idempotent } from "../Idempotent.js"
import { pathId } from "./ids.js"

const withId = pathId(WebhookId, "webhook endpoint")

export const WebhooksLive = HttpApiBuilder.group(FilsApi, "webhooks", (handlers) =>
  Effect.gen(function*() {
    const webhooks = yield* Webhooks
    const scoped = <A, E, R>(raw: string, f: (p: typeof CurrentPrincipal.Service, id: WebhookId) => Effect.Effect<A, E, R>) =>
      Effect.flatMap(withId(raw), (id) => Effect.flatMap(CurrentPrincipal, (p) => f(p, id)))
    return handlers
      .handle("list", ({ urlParams }) => Effect.flatMap(CurrentPrincipal, (p) => webhooks.list(p, urlParams)))
      .handle("create", ({ headers, payload }) =>
        idempotent(
          headers["idempotency-key"],
          WebhookWithSecret,
          // The one response, with `secret`, that shows the new signing secret.
          Effect.flatMap(CurrentPrincipal, (p) => Effect.map(webhooks.create(p, payload), withSecret))
        ))
      .handle("get", ({ path }) => scoped(path.id, webhooks.get))
      .handle("update", ({ path, payload }) => scoped(path.id, (p, id) => webhooks.update(p, id, payload)))
      .handle("delete", ({ path }) => scoped(path.id, webhooks.remove))
      .handle("secret", ({ path }) =>
        scoped(path.id, (p, id) => Effect.map(webhooks.secret(p, id), ({ secret }) => ({ secret: Redacted.value(secret) }))))
  }))
