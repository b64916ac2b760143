/**
 * Customer portal sessions: a merchant creates one for a customer and sends them its `url`, a one-time
 * capability. Following it only shows a page (a mail scanner that follows links uses nothing up); the button on that
 * page opens it (within an hour of creation) and starts the customer's browser session, which lasts an hour or until
 * the customer signs out; the link cannot be opened again. Only the hashes of the link's secret and of the browser cookie are kept to find
 * a session by; the link itself is kept sealed, for the merchant to read back, and is `Redacted` but in the resource.
 */
import { DateTime, Either, Redacted, Schema } from "effect"
import { ReturnUrl } from "./CheckoutSession.js"
import { AccountId, CustomerId, PortalSessionId } from "./Ids.js"

/** How long a link may wait to be opened, and how long the browser session it starts lasts. */
export const linkMillis = 60 * 60 * 1000
export const sessionMillis = 60 * 60 * 1000

const resourceFields = {
  object: Schema.Literal("customer_portal_session"),
  customer_portal_session_id: PortalSessionId,
  customer_id: CustomerId,
  url: Schema.String.annotations({
    description: "Opens the portal for the customer, once, within an hour of creation (a one-time capability: send " +
      "it only to the customer)"
  }),
  return_url: Schema.NullOr(Schema.String),
  livemode: Schema.Boolean,
  created_at: Schema.DateTimeUtc,
  expires_at: Schema.DateTimeUtc
}

export const PortalSessionResource = Schema.Struct(resourceFields).annotations({ identifier: "CustomerPortalSession" })
export type PortalSessionResource = typeof PortalSessionResource.Type

/** The stored session: the resource, its owner, and the secrets' hashes once opened. */
export const PortalSession = Schema.Struct({
  ...resourceFields,
  /** The link, which holds its secret: `Redacted` until the resource shows it to the merchant (`toResource`). */
  url: Schema.Redacted(Schema.String),
  account_id: AccountId,
  /** Digest of the link's secret. */
  token_hash: Schema.String,
  opened_at: Schema.NullOr(Schema.DateTimeUtc),
  /** Digest of the browser session's cookie, set when the link is opened. */
  cookie_hash: Schema.NullOr(Schema.String),
  /** The browser session's CSRF token, set when the link is opened. */
  csrf_token: Schema.NullOr(Schema.String),
  session_expires_at: Schema.NullOr(Schema.DateTimeUtc)
})
export type PortalSession = typeof PortalSession.Type

export const PortalSessionCreate = Schema.Struct({
  // Any string (an unknown customer is named in the error), documented with the id's shape.
  customer_id: Schema.String.annotations({ jsonSchema: { type: "string", pattern: "^cus_[0-9a-f]{32}$" } }),
  return_url: Schema.optional(ReturnUrl)
}).annotations({ identifier: "CustomerPortalSessionCreate" })
export type PortalSessionCreate = typeof PortalSessionCreate.Type

export const toResource = (s: PortalSession): PortalSessionResource => ({
  object: s.object,
  customer_portal_session_id: s.customer_portal_session_id,
  customer_id: s.customer_id,
  url: Redacted.value(s.url),
  return_url: s.return_url,
  livemode: s.livemode,
  created_at: s.created_at,
  expires_at: s.expires_at
})

/** Why a link does not open: it was opened already, or its hour passed. */
export type LinkGone = "used" | "expired"

/** Why the link would not open at `now`, or `undefined` while it still can. */
export const linkGone = (session: PortalSession, now: DateTime.Utc): LinkGone | undefined =>
  session.opened_at !== null ? "used" : !DateTime.lessThan(now, session.expires_at) ? "expired" : undefined

/**
 * Opening the link at `now` with a new browser session (its cookie's digest and CSRF token): refused once opened,
 * or once expired.
 */
export const open = (
  session: PortalSession,
  now: DateTime.Utc,
  browser: { readonly cookieHash: string; readonly csrfToken: string }
): Either.Either<PortalSession, LinkGone> => {
  const gone = linkGone(session, now)
  return gone !== undefined
    ? Either.left(gone)
    : Either.right({
      ...session,
      opened_at: now,
      cookie_hash: browser.cookieHash,
      csrf_token: browser.csrfToken,
      session_expires_at: DateTime.add(now, { millis: sessionMillis })
    })
}

/** Whether the browser session started by opening the link still runs at `now`. */
export const browsing = (session: PortalSession, now: DateTime.Utc): boolean =>
  session.session_expires_at !== null && DateTime.lessThan(now, session.session_expires_at)
