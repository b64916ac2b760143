/**
 * Webhook endpoints: create (with a secret shown on creation and on request), read, update, delete. Secrets come back
 * `Redacted`; the response that shows one reveals it (`WebhookEndpoint.withSecret`).
 */
import { DateTime, Duration, Effect, Option } from "effect"
import type { Scope } from "../domain/Account.js"
import { InvalidRequest, notFound } from "../domain/Errors.js"
import type { WebhookId } from "../domain/Ids.js"
import { prefixes } from "../domain/Ids.js"
import * as Network from "../domain/Network.js"
import * as Pagination from "../domain/Pagination.js"
import * as WebhookEndpoint from "../domain/WebhookEndpoint.js"
import * as WebhookHealth from "../domain/WebhookHealth.js"
import { Signer } from "../ports/Signer.js"
import { Transactions } from "../ports/Transactions.js"
import { WebhookRepository } from "../ports/repositories/WebhookRepository.js"
import { WebhookTransport } from "../ports/WebhookTransport.js"
import { newId } from "./Ids.js"
import * as UnitOfWork from "./UnitOfWork.js"

/** How long creating or re-pointing an endpoint waits for DNS before accepting the name unresolved. */
const resolveTimeout = Duration.seconds(3)

export interface WebhookListParams {
  readonly limit?: number | undefined
  readonly cursor?: string | undefined
}

export class Webhooks extends Effect.Service<Webhooks>()("fils/Webhooks", {
  effect: Effect.gen(function*() {
    const transactions = yield* Transactions
    const webhookRepo = yield* WebhookRepository
    const signer = yield* Signer
    const transport = yield* WebhookTransport

    /**
     * The url's text passed `WebhookEndpoint.checkUrl`; this resolves its host now, by the rules every delivery
     * applies again (live: public addresses only; test: public or loopback), so a name that already points inside is
     * refused with a clear 400 instead of failing every attempt. A name that does not resolve (yet, or DNS is down,
     * or slower than `resolveTimeout`) is accepted: deliveries resolve it afresh and refuse it then if it is internal.
     */
    const checkHost = Effect.fn("Webhooks.checkHost")(function*(url: string, livemode: boolean) {
      const host = new URL(url).hostname.replace(/^\[|\]$/g, "")
      if (Network.isIpLiteral(host)) return // its address was checked with the text
      const found = yield* transport.checkHost(host, livemode).pipe(
        Effect.timeoutTo({ duration: resolveTimeout, onSuccess: (found) => found, onTimeout: () => "unresolved" as const })
      )
      if (found === "internal") {
        return yield* new InvalidRequest({
          message: livemode
            ? `A live endpoint's url must reach a public host: ${host} resolves to an internal address`
            : `A test endpoint's url must reach a public host or this machine (loopback): ${host} resolves to an internal address`
        })
      }
    })

    /** The endpoints with their health now (one read for them all). */
    const withHealth = (endpoints: ReadonlyArray<WebhookEndpoint.WebhookEndpoint>) =>
      Effect.gen(function*() {
        if (endpoints.length === 0) return []
        const found = yield* webhookRepo.health(endpoints.map((e) => e.webhook_id), WebhookHealth.windowStart(yield* DateTime.now))
        return endpoints.map((e): WebhookEndpoint.WithHealth => ({
          ...e,
          health: WebhookHealth.toResource(found.get(e.webhook_id) ?? WebhookHealth.none)
        }))
      })
    const oneWithHealth = (endpoint: WebhookEndpoint.WebhookEndpoint) => Effect.map(withHealth([endpoint]), (all) => all[0]!)

    /**
     * A new endpoint, its URL's host resolved and checked, not yet written (`insert` writes it). Apart, so that a
     * caller writing it in a transaction resolves the host first: DNS may take seconds, and no connection is held
     * meanwhile.
     */
    const prepare = Effect.fn("Webhooks.prepare")(function*(scope: Scope, input: WebhookEndpoint.WebhookCreate) {
      const endpoint = yield* WebhookEndpoint.create(input, {
        id: yield* newId<WebhookId>(prefixes.webhook),
        accountId: scope.accountId,
        livemode: scope.livemode,
        secret: yield* signer.webhookSecret,
        now: yield* DateTime.now
      })
      yield* checkHost(endpoint.url, endpoint.livemode)
      return endpoint
    })

    /** Writes an endpoint `prepare` made. */
    const insert = (endpoint: WebhookEndpoint.WebhookEndpoint) =>
      Effect.as(
        UnitOfWork.create(UnitOfWork.Created.WebhookEndpoint({ endpoint }), webhookRepo.insert(endpoint)),
        { ...endpoint, health: WebhookHealth.toResource(WebhookHealth.none) } satisfies WebhookEndpoint.WithHealth
      )

    const create = Effect.fn("Webhooks.create")(function*(scope: Scope, input: WebhookEndpoint.WebhookCreate) {
      return yield* insert(yield* prepare(scope, input))
    })

    const find = (scope: Scope, id: WebhookId) =>
      Effect.flatMap(webhookRepo.get(scope, id), Option.match({
        onNone: () => notFound("webhook endpoint", id),
        onSome: Effect.succeed
      }))

    /** The endpoint with its health now. */
    const get = Effect.fn("Webhooks.get")(function*(scope: Scope, id: WebhookId) {
      return yield* oneWithHealth(yield* find(scope, id))
    })

    const list = Effect.fn("Webhooks.list")(function*(scope: Scope, params: WebhookListParams) {
      const key = Pagination.listKey("webhooks", {})
      const page = yield* Pagination.pageRequest(key, params)
      const result = yield* webhookRepo.list(scope, page)
      const list = Pagination.toList(key, result, WebhookEndpoint.position)
      return { ...list, items: yield* withHealth(list.items) }
    })

    /**
     * Disabling an endpoint stops its pending deliveries, and it receives nothing new until enabled again. A new url
     * is resolved as on creation, before the transaction (DNS may take seconds; no connection is held meanwhile).
     */
    const update = Effect.fn("Webhooks.update")(
      function*(scope: Scope, id: WebhookId, patch: WebhookEndpoint.WebhookUpdate) {
        if (patch.url !== undefined) {
          yield* find(scope, id) // an unknown endpoint is 404 whatever its url
          yield* checkHost(yield* WebhookEndpoint.checkUrl(patch.url, scope.livemode), scope.livemode)
        }
        const updated = yield* transactions.transact(Effect.gen(function*() {
          // Locked: two updates at once take turns, and the second applies its patch to what the first wrote.
          const current = Option.getOrNull(yield* webhookRepo.lock(scope, id)) ?? (yield* notFound("webhook endpoint", id))
          const next = yield* WebhookEndpoint.update(current, patch)
          yield* webhookRepo.update(next)
          if (next.disabled && !current.disabled) yield* webhookRepo.deliveries.cancelFor(id)
          // Enabled again: its failing streak starts afresh (and the notice that Fils disabled it goes).
          if (!next.disabled && current.disabled) yield* webhookRepo.clearHealth(id)
          return next
        }))
        return yield* oneWithHealth(updated)
      }
    )

    /** Deletion is permanent and stops the endpoint's pending deliveries. */
    const remove = Effect.fn("Webhooks.delete")(function*(scope: Scope, id: WebhookId) {
      const deleted = yield* webhookRepo.delete(scope, id)
      if (!deleted) return yield* notFound("webhook endpoint", id)
      return { object: "webhook" as const, webhook_id: id, deleted: true as const }
    })

    const secret = Effect.fn("Webhooks.secret")(function*(scope: Scope, id: WebhookId) {
      return { secret: WebhookEndpoint.currentSecret((yield* find(scope, id)).secret) }
    })

    /**
     * A new signing secret (returned, to show once); the current one keeps signing beside it for 24 hours
     * (`WebhookEndpoint.rotate`).
     */
    const rotateSecret = Effect.fn("Webhooks.rotateSecret")(function*(scope: Scope, id: WebhookId) {
      const fresh = yield* signer.webhookSecret
      const now = yield* DateTime.now
      yield* transactions.transact(Effect.gen(function*() {
        const endpoint = yield* find(scope, id)
        yield* webhookRepo.update(WebhookEndpoint.rotate(endpoint, fresh, now))
      }))
      return { secret: fresh }
    })

    return { create, prepare, insert, get, list, update, remove, secret, rotateSecret } as const
  })
}) {}
