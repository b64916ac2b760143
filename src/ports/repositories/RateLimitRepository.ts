/**
 * Rate-limit counters, shared by every server on one store.
 *
 * One repository of the Store port (`../Store.ts`), a Tag of its own, so that a use case depends on the aggregates it
 * uses and nothing else.
 */
import { Context } from "effect"
import type { RateDecision, ShareRequest } from "../../domain/RateWindow.js"
import type { Op } from "./Op.js"

export interface RateLimitsRepo {
  /**
   * Counts `count` requests (default 1) against `bucket` as far as the rolling window allows (see `RateWindow.hit`),
   * atomically: any number of servers sharing the store share the limit. With `lease`, gives back what an earlier
   * share did not hand out and takes a share for the server to hand out (`RateLease`).
   */
  readonly hit: (
    bucket: string,
    nowMillis: number,
    limit: number,
    windowSeconds: number,
    count?: number,
    lease?: ShareRequest
  ) => Op<RateDecision>
}

/** Rate-limit counters, shared by every server on one store. */
export type RateLimitRepositoryShape = RateLimitsRepo

export class RateLimitRepository extends Context.Tag("fils/RateLimitRepository")<RateLimitRepository, RateLimitRepositoryShape>() {}
