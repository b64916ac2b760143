import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Effect, Redacted } from "effect"
import { Deliveries } from "../../../src/application/Deliveries.js"
import { Webhooks } from "../../../src/application/Webhooks.js"
import { DeliveryResource } from "../../../src/domain/Delivery.js"
import { WebhookId } from "../../../src/domain/Ids.js"
import { withSecret, WebhookWithSecret } from "../../../src/domain/WebhookEndpoint.js"
import { CurrentPrincipal, FilsApi, WebhookRecovery } from "../Api.js"
import { eventExample } from "../OpenApiDocument.js"
import { idempotent } from "../Idempotent.js"
import { pathId } from "./ids.js"

const withId = pathId(WebhookId, "webhook endpoint")

export const WebhooksLive = HttpApiBuilder.group(FilsApi, "webhooks", (handlers) =>
  Effect.gen(function*() {
    const webhooks = yield* Webhooks
    const deliveries = yield* Deliveries
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
      .handle("deliveries", ({ path, urlParams }) => scoped(path.id, (p, id) => deliveries.listOf(p, id, urlParams)))
      .handle("test", ({ headers, path, payload }) =>
        idempotent(
          headers["idempotency-key"],
          DeliveryResource,
          scoped(path.id, (p, id) => deliveries.sendTest(p, id, payload.type, eventExample(payload.type)))
        ))
      .handle("recover", ({ headers, path, payload }) =>
        idempotent(
          headers["idempotency-key"],
          WebhookRecovery,
          scoped(path.id, (p, id) => deliveries.recover(p, id, payload.since))
        ))
  }))
