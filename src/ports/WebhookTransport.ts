/**
 * The WebhookTransport port: send one signed delivery over HTTP and report how it went. The adapter enforces the
 * timeout and, for live endpoints, refuses internal addresses at connection time (after DNS resolution).
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

export interface WebhookTransportShape {
  /** Never fails: a refused connection, a timeout or a non-2xx answer is an unsuccessful outcome. */
  readonly send: (request: OutboundRequest) => Effect.Effect<AttemptOutcome>
}

export class WebhookTransport extends Context.Tag("fils/WebhookTransport")<WebhookTransport, WebhookTransportShape>() {}
