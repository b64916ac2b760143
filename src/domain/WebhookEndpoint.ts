/**
 * Webhook endpoints (docs/webhooks.md "Endpoint URLs", docs/decisions.md §7). The signing secret is `Redacted` from
 * the moment it is made to the signing of a delivery and the responses that show it (`withSecret`).
 */
import { DateTime, Either, Redacted, Schema } from "effect"
import { InvalidRequest } from "./Errors.js"
import { defaultEventTypes, EventType } from "./Event.js"
import { AccountId, WebhookId } from "./Ids.js"
import * as Network from "./Network.js"
import * as Pagination from "./Pagination.js"
import { Text } from "./Text.js"
import { type Health, HealthResource } from "./WebhookHealth.js"
import { parseHttpUrl, webhookUrlPattern } from "./Url.js"

const resourceFields = {
  object: Schema.Literal("webhook"),
  webhook_id: WebhookId,
  url: Schema.String,
  description: Schema.String,
  event_types: Schema.Array(EventType),
  disabled: Schema.Boolean,
  livemode: Schema.Boolean,
  created_at: Schema.DateTimeUtc
}
export const WebhookResource = Schema.Struct({ ...resourceFields, health: HealthResource }).annotations({
  identifier: "Webhook"
})
export const WebhookWithSecret = Schema.Struct({ ...resourceFields, health: HealthResource, secret: Schema.String })
  .annotations({ identifier: "WebhookWithSecret" })
export type WebhookWithSecret = typeof WebhookWithSecret.Type
/** The stored endpoint: the resource, its owner and its signing secret (`whsec_…`, with those still signing beside it). */
export const WebhookEndpoint = Schema.Struct({ ...resourceFields, account_id: AccountId, secret: Schema.Redacted(Schema.String) })
export type WebhookEndpoint = typeof WebhookEndpoint.Type
/** The stored endpoint with its health now (`WebhookHealth`): what the API and the dashboard show. */
export type WithHealth = WebhookEndpoint & { readonly health: Health }

/** The endpoint with the secret it signs with now, in clear: the responses that show it (creation, and on request). */
export const withSecret = <E extends WebhookEndpoint>(endpoint: E): Omit<E, "secret"> & { readonly secret: string } => ({
  ...endpoint,
  secret: Redacted.value(currentSecret(endpoint.secret))
})

const WebhookDescription = Text(0, 5000)
/** An absolute http(s) URL as sent (checked by `checkUrl`, which also applies the mode's host rules). */
const WebhookUrl = Text(1, 2048).annotations({
  jsonSchema: {
    minLength: 1,
    maxLength: 2048,
    pattern: webhookUrlPattern.source,
    description: "Absolute `http(s)` URL, at most 2048 characters, matching the pattern: a host name with a dot " +
      "(or `localhost`), an IPv4 address or a bracketed IPv6 one; no user information. Then, by the endpoint's " +
      "mode: a live endpoint needs `https` and a public host; a test endpoint may also use `http` and this machine " +
      "(loopback). Internal hosts are refused in both: private, link-local and other special-purpose addresses, and " +
      "names ending in `.local` or `.internal` (`400 INVALID_REQUEST`)."
  }
})

/** A set of event types: named once each (a repeat is refused, not merged), listed back in the catalogue's order. */
const EventTypes = Schema.Array(EventType).pipe(
  Schema.minItems(1, { message: () => "event_types must name at least one event type" }),
  Schema.filter((types) => {
    const repeated = types.find((t, i) => types.indexOf(t) !== i)
    return repeated === undefined || `event_types names '${repeated}' more than once`
  }, { jsonSchema: { uniqueItems: true } })
)

export const WebhookCreate = Schema.Struct({
  url: WebhookUrl,
  description: Schema.optional(WebhookDescription),
  event_types: Schema.optional(EventTypes),
  disabled: Schema.optional(Schema.Boolean)
}).annotations({ identifier: "WebhookCreate" })
export type WebhookCreate = typeof WebhookCreate.Type

export const WebhookUpdate = Schema.Struct({
  url: Schema.optional(WebhookUrl),
  description: Schema.optional(WebhookDescription),
  event_types: Schema.optional(EventTypes),
  disabled: Schema.optional(Schema.Boolean)
}).annotations({ identifier: "WebhookUpdate" })
export type WebhookUpdate = typeof WebhookUpdate.Type

/**
 * An endpoint URL must be absolute. Live endpoints need `https` and a public host (no loopback, private,
 * link-local or other internal address); test endpoints may also use `http` and loopback, for local receivers.
 */
export const checkUrl = (raw: string, livemode: boolean): Either.Either<string, InvalidRequest> => {
  const parsed = parseHttpUrl(raw)
  if (Either.isLeft(parsed)) return Either.left(new InvalidRequest({ message: `url ${parsed.left}` }))
  const url = parsed.right
  if (url.username !== "" || url.password !== "") {
    return Either.left(new InvalidRequest({ message: "url must not carry credentials" }))
  }
  if (livemode && url.protocol !== "https:") {
    return Either.left(new InvalidRequest({ message: "A live endpoint's url must use https" }))
  }
  if (Network.isRefusedHost(url.hostname, livemode)) {
    return Either.left(
      new InvalidRequest({
        message: livemode
          ? "A live endpoint's url must reach a public host, not an internal address"
          : "A test endpoint's url must reach a public host or this machine (loopback), not an internal address"
      })
    )
  }
  // The shape the OpenAPI document states; what the parser would also take (`http:host`, `1.2.3`) is refused.
  if (!webhookUrlPattern.test(raw)) {
    return Either.left(new InvalidRequest({
      message: "url must be http(s):// then a host name with a dot (or localhost), an IPv4 address or a bracketed " +
        "IPv6 one, an optional port, and a path"
    }))
  }
  return Either.right(url.toString())
}

export const create = (
  input: WebhookCreate,
  ctx: {
    readonly id: WebhookEndpoint["webhook_id"]
    readonly accountId: AccountId
    readonly livemode: boolean
    readonly secret: Redacted.Redacted<string>
    readonly now: DateTime.Utc
  }
): Either.Either<WebhookEndpoint, InvalidRequest> =>
  Either.map(checkUrl(input.url, ctx.livemode), (url) => ({
    object: "webhook" as const,
    webhook_id: ctx.id,
    account_id: ctx.accountId,
    livemode: ctx.livemode,
    url,
    description: input.description ?? "",
    event_types: inCatalogueOrder(input.event_types ?? defaultEventTypes),
    disabled: input.disabled ?? false,
    secret: ctx.secret,
    created_at: ctx.now
  }))

export const update = (endpoint: WebhookEndpoint, patch: WebhookUpdate): Either.Either<WebhookEndpoint, InvalidRequest> =>
  Either.map(
    patch.url === undefined ? Either.right(endpoint.url) : checkUrl(patch.url, endpoint.livemode),
    (url) => ({
      ...endpoint,
      url,
      description: patch.description ?? endpoint.description,
      event_types: patch.event_types === undefined ? endpoint.event_types : inCatalogueOrder(patch.event_types),
      disabled: patch.disabled ?? endpoint.disabled
    })
  )

const inCatalogueOrder = (types: ReadonlyArray<EventType>): ReadonlyArray<EventType> => EventType.literals.filter((t) => types.includes(t))

/**
 * Secret rotation: the new secret signs from now on, and each one it replaced keeps signing beside it for
 * 24 hours from its own retirement (Standard Webhooks lets `webhook-signature` carry several signatures), so a
 * receiver can switch at its own pace, even after two rotations in a day. The stored secret holds the current one
 * and each retired one still signing with its end, `whsec_new|whsec_old|<unix seconds>|whsec_older|<unix seconds>`:
 * one value, sealed at rest as one, so every store, key check and `fils secrets rotate` handles it unchanged.
 */
export const rotationOverlapMillis = 24 * 60 * 60 * 1000

/** The secret an endpoint signs with now (the one shown to the merchant). */
export const currentSecret = (stored: Redacted.Redacted<string>): Redacted.Redacted<string> =>
  Redacted.make(Redacted.value(stored).split("|")[0]!)

/** The retired secrets of a stored value still signing at `now`, newest first, each with its end (Unix seconds). */
const retiredAt = (
  stored: Redacted.Redacted<string>,
  now: DateTime.Utc
): ReadonlyArray<{ readonly secret: string; readonly until: number }> => {
  const [, ...rest] = Redacted.value(stored).split("|")
  const retired: Array<{ readonly secret: string; readonly until: number }> = []
  for (let i = 0; i + 1 < rest.length; i += 2) {
    const until = Number(rest[i + 1])
    if (until * 1000 > DateTime.toEpochMillis(now)) retired.push({ secret: rest[i]!, until })
  }
  return retired
}

/** Every secret that signs a delivery at `now`: the current one, and each it replaced until that one's end. */
export const signingSecrets = (stored: Redacted.Redacted<string>, now: DateTime.Utc): ReadonlyArray<Redacted.Redacted<string>> => [
  currentSecret(stored),
  ...retiredAt(stored, now).map((r) => Redacted.make(r.secret))
]

/**
 * The endpoint with `secret` as its new signing secret: the current one signs beside it for 24 hours, and those
 * retired before keep their own ends.
 */
export const rotate = (endpoint: WebhookEndpoint, secret: Redacted.Redacted<string>, now: DateTime.Utc): WebhookEndpoint => {
  const until = Math.floor((DateTime.toEpochMillis(now) + rotationOverlapMillis) / 1000)
  const retired = [{ secret: Redacted.value(currentSecret(endpoint.secret)), until }, ...retiredAt(endpoint.secret, now)]
  return {
    ...endpoint,
    secret: Redacted.make([Redacted.value(secret), ...retired.flatMap((r) => [r.secret, String(r.until)])].join("|"))
  }
}

/** Whether this endpoint receives an event of `type` now. */
export const subscribes = (endpoint: WebhookEndpoint, type: EventType): boolean =>
  !endpoint.disabled && endpoint.event_types.includes(type)

/** Where an endpoint stands in a newest-first list. */
export const position = Pagination.byCreation<WebhookEndpoint>((w) => w.created_at, (w) => w.webhook_id)
