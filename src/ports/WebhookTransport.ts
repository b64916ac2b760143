/**
 * The WebhookTransport port: send one signed delivery over HTTP and report how it went. The adapter enforces the
 * timeout and, for live endpoints, refuses internal addresses at connection time (after DNS resolution). It also
 * resolves an endpoint's host when the endpoint is created or its url changes (`checkHost`), by the same rules.
 */
import type { Effect } from "effect"
import { Context } from "effect"
import type { AttemptOutcome } from "../domain/Delivery.js"

export interface OutboundRequest {
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  readonly timeoutMillis: number
  /** Live endpoints may only reach public addresses. */
  readonly livemode: boolean
}

/**
 * What resolving a host now found, by the rules a delivery to an endpoint of that mode follows: `allowed` (every
 * address may be reached), `internal` (some address is one the endpoint may not reach: any internal one in live
 * mode, any but loopback in test mode), or `unresolved` (no answer: the name does not exist yet, or DNS is down).
 */
export type HostCheck = "allowed" | "internal" | "unresolved"

export interface WebhookTransportShape {
  /** Never fails: a refused connection, a timeout or a non-2xx answer is an unsuccessful outcome. */
  readonly send: (request: OutboundRequest) => Effect.Effect<AttemptOutcome>
  /** Resolves `host` (a name, not an IP literal) as `send` would for an endpoint in that mode. Never fails. */
  readonly checkHost: (host: string, livemode: boolean) => Effect.Effect<HostCheck>
}

export class WebhookTransport extends Context.Tag("fils/WebhookTransport")<WebhookTransport, WebhookTransportShape>() {}
