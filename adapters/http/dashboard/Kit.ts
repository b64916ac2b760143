/**
 * What the dashboard's route groups share (Routes.ts builds it): rendering, redirects, the signed-in guards and the
 * audit log. Its own module, so that the groups and the routes that assemble them do not import each other.
 */
import type * as HttpRouter from "@effect/platform/HttpRouter"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type * as UrlParams from "@effect/platform/UrlParams"
import type { Effect } from "effect"
import type { CreateOnceError, PlainInput } from "../../../src/application/CreatedOnce.js"
import type { Signed, Users } from "../../../src/application/Users.js"
import type { CreatedKind } from "../../../src/application/WorkKeys.js"
import type { StoreUnavailable } from "../../../src/domain/Errors.js"
import type * as Pages from "./Pages.js"

/**
 * A route's answer, failing only with the errors `E` (none, by default: what a route is given has answered every
 * failure). It may read the request and its path parameters.
 */
export type Response<E = never> = Effect.Effect<
  HttpServerResponse.HttpServerResponse,
  E,
  HttpServerRequest.HttpServerRequest | HttpRouter.RouteContext
>

/**
 * What a signed-in page's handler may fail with: the engine's tagged errors, each with its message. Those it does not
 * catch, the signed-in guards answer with an "Unavailable" page (and log).
 */
export type Tagged = { readonly _tag: string; readonly message: string }

/** The signed-in guards: a page's handler, with the errors it may fail with, as a route's answer. */
export type Guard<Args extends ReadonlyArray<unknown>> = <E extends Tagged>(handler: (...args: Args) => Response<E>) => Response

export type Scope = { readonly accountId: Signed["user"]["account_id"]; readonly livemode: boolean }

/** What the route groups share: rendering, redirects, and the signed-in guards. */
export interface Kit {
  readonly base: string
  readonly page: (status: number, body: string, nonce: string) => HttpServerResponse.HttpServerResponse
  readonly redirect: (location: string) => HttpServerResponse.HttpServerResponse
  /** The answer to a change that succeeded (POST-redirect-GET): to `location`, which says `text` once. */
  readonly done: (frame: Pages.SignedFrame, location: string, text: string) => HttpServerResponse.HttpServerResponse
  readonly get: (path: HttpRouter.PathInput, handler: Response) => Effect.Effect<void>
  readonly post: (path: HttpRouter.PathInput, handler: Response) => Effect.Effect<void>
  readonly withUser: Guard<[signed: Signed, frame: Pages.SignedFrame, scope: Scope]>
  readonly withPost: Guard<[signed: Signed, frame: Pages.SignedFrame, scope: Scope, params: UrlParams.UrlParams]>
  /** `withUser` and `withPost` for the two-factor set-up: reached also by a user the account sends there first. */
  readonly withEnrolling: Guard<[signed: Signed, frame: Pages.SignedFrame, scope: Scope]>
  readonly withEnrollingPost: Guard<[signed: Signed, frame: Pages.SignedFrame, scope: Scope, params: UrlParams.UrlParams]>
  readonly field: (params: UrlParams.UrlParams, name: string) => string
  /** Writes a change to the audit log, with the request's address. */
  readonly audit: (
    signed: Signed,
    action: string,
    objectId: string | null,
    livemode: boolean | null
  ) => Effect.Effect<void, Effect.Effect.Error<ReturnType<Users["audit"]>>, HttpServerRequest.HttpServerRequest>
  /**
   * `change` and its audit entry in one transaction: made together or not at all. For changes that do nothing outside
   * the store while they run (no DNS lookup, no processor call), which would otherwise hold the transaction open.
   */
  readonly audited: <A, E, R>(
    signed: Signed,
    action: string,
    objectId: string | null,
    livemode: boolean | null,
    change: Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E | StoreUnavailable, R | HttpServerRequest.HttpServerRequest>
  /**
   * `audit`'s entry, with the request's address, for a change to write itself (in the change's transaction) once it
   * knows its object's id.
   */
  readonly auditEntry: (
    signed: Signed,
    action: string,
    livemode: boolean | null
  ) => Effect.Effect<(objectId: string | null) => ReturnType<Users["audit"]>, never, HttpServerRequest.HttpServerRequest>
  /**
   * Makes an object from a form posted under its one-time token (`CreatedOnce`): posted twice, one object, which
   * answers both posts, and its audit entry written with it. A post without a token (a script's) makes one each time.
   * `undefined`: the form was sent before and what it made has since been deleted; nothing is made now.
   */
  readonly makeOnce: <A, E, R>(
    signed: Signed,
    scope: Scope,
    params: UrlParams.UrlParams,
    made: MadeOnce<A, E, R>
  ) => Effect.Effect<A | undefined, E | CreateOnceError, R | HttpServerRequest.HttpServerRequest>
  /** A route's path parameter. */
  readonly param: (name: string) => Effect.Effect<string, never, HttpRouter.RouteContext>
  /** The request's client address (what sign-in limits count by). */
  readonly address: Effect.Effect<string, never, HttpServerRequest.HttpServerRequest>
  /** The request's query. */
  readonly query: Effect.Effect<URLSearchParams, never, HttpServerRequest.HttpServerRequest>
}

/**
 * What a form makes once (`Kit.makeOnce`): its kind, its audit action, the input its token is bound to, how it is
 * made, and how the object an earlier post made is found again (`undefined` when it has since been deleted).
 */
export interface MadeOnce<A, E, R> {
  readonly kind: CreatedKind
  readonly action: string
  readonly input: PlainInput
  readonly create: Effect.Effect<A, E, R>
  readonly idOf: (made: A) => string
  readonly find: (id: string) => Effect.Effect<A | undefined, StoreUnavailable, R>
}
