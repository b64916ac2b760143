/**
 * Request logs: written in batches off the requests' path, listed newest first, pruned by age.
 *
 * One repository of the Store port (`../Store.ts`), a Tag of its own, so that a use case depends on the aggregates it
 * uses and nothing else.
 */
import type { Option } from "effect"
import { Context } from "effect"
import type { Scope } from "../../domain/Account.js"
import type { RequestLogId } from "../../domain/Ids.js"
import type { Page, PageRequest } from "../../domain/Pagination.js"
import type { RequestLog, RequestLogFilter } from "../../domain/RequestLog.js"
import type { Op } from "./Op.js"

export interface RequestLogsRepo {
  /** Several at once, in one statement. */
  readonly insertAll: (lines: ReadonlyArray<RequestLog>) => Op<void>
  readonly get: (scope: Scope, id: RequestLogId) => Op<Option.Option<RequestLog>>
  readonly list: (scope: Scope, filter: RequestLogFilter, page: PageRequest) => Op<Page<RequestLog>>
  /** Deletes at most `limit` lines of every account whose ids sort below `bound` (`RequestLog.writtenFrom`); how many. */
  readonly prune: (bound: RequestLogId, limit: number) => Op<number>
}

export type RequestLogRepositoryShape = RequestLogsRepo

export class RequestLogRepository extends Context.Tag("fils/RequestLogRepository")<RequestLogRepository, RequestLogRepositoryShape>() {}
