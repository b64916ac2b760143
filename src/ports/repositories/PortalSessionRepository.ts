/**
 * The customer portal's sessions.
 *
 * One repository of the Store port (`../Store.ts`), a Tag of its own, so that a use case depends on the aggregates it
 * uses and nothing else.
 */
import type { DateTime, Option } from "effect"
import { Context } from "effect"
import type { Scope } from "../../domain/Account.js"
import type { PortalSessionId } from "../../domain/Ids.js"
import type { PortalSession } from "../../domain/PortalSession.js"
import type { Op } from "./Op.js"

export interface PortalSessionsRepo {
  readonly insert: (session: PortalSession) => Op<void>
  readonly get: (scope: Scope, id: PortalSessionId) => Op<Option.Option<PortalSession>>
  /** By the digest of its link's secret. */
  readonly findByToken: (tokenHash: string) => Op<Option.Option<PortalSession>>
  /** By the digest of the browser session's cookie. */
  readonly findByCookie: (cookieHash: string) => Op<Option.Option<PortalSession>>
  /**
   * Records the link's opening (what `PortalSession.open` gave), atomically: only if it was not opened meanwhile.
   * Whether it was recorded (a link opens once, whoever is first).
   */
  readonly markOpened: (session: PortalSession) => Op<boolean>
  /** Ends the browser session at `at` (signing out): its cookie names no live session from then on. */
  readonly endBrowsing: (id: PortalSessionId, at: DateTime.Utc) => Op<void>
}

/** The customer portal's sessions. */
export type PortalSessionRepositoryShape = PortalSessionsRepo

export class PortalSessionRepository extends Context.Tag("fils/PortalSessionRepository")<PortalSessionRepository, PortalSessionRepositoryShape>() {}
