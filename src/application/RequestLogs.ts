/**
 * Request logs (docs/api.md, "Request logs"): the HTTP edge hands each API request's line to `record`, which only
 * puts it in a bounded buffer; one fiber writes what has gathered in batches, so a request never waits for the
 * store. When the store falls behind by a whole buffer, further lines are dropped and counted
 * (`fils_request_logs_dropped_total`) instead. A line is written within about a tenth of a second. `worker`
 * deletes lines past the retention.
 */
import { Chunk, DateTime, Duration, Effect, Metric, Option, Queue, Schedule } from "effect"
import type { Scope } from "../domain/Account.js"
import { notFound } from "../domain/Errors.js"
import { type RequestLogId, prefixes } from "../domain/Ids.js"
import * as Pagination from "../domain/Pagination.js"
import * as RequestLog from "../domain/RequestLog.js"
import { RequestLogRepository } from "../ports/repositories/RequestLogRepository.js"
import { newIds } from "./Ids.js"
import { Settings } from "./Settings.js"

export const droppedName = "fils_request_logs_dropped_total"

/** Lines not written: the buffer was full, or the store refused their batch. */
export const dropped = Metric.counter(droppedName, {
  description: "API request log lines dropped: the buffer was full (the database fell behind) or their write failed.",
  incremental: true
})

/** Lines per insert, at most. */
const batchMax = 500
/** How long a line waits for others to share its insert. */
const gatherFor = Duration.millis(100)
/** Lines deleted per statement when pruning, so that no delete holds its locks for long. */
const pruneBatch = 5_000
const pruneEvery = Duration.hours(1)

export interface RequestLogListParams {
  readonly status?: string | undefined
  readonly path?: string | undefined
  readonly key_id?: string | undefined
  readonly request_id?: string | undefined
  readonly since?: DateTime.Utc | undefined
  readonly until?: DateTime.Utc | undefined
  readonly limit?: number | undefined
  readonly cursor?: string | undefined
}

export class RequestLogs extends Effect.Service<RequestLogs>()("fils/RequestLogs", {
  scoped: Effect.gen(function*() {
    const repo = yield* RequestLogRepository
    const { requestLogBuffer, requestLogRetention } = yield* Settings
    const enabled = Duration.toMillis(requestLogRetention) > 0
    const buffer = yield* Queue.dropping<RequestLog.RequestLogDraft>(requestLogBuffer)
    /** Lines taken and not yet written (or given up on). */
    let pending = 0

    /**
     * Takes a request's line, at once and without waiting: `false` when it was dropped (the buffer is full) or
     * request logs are off.
     */
    const record = (line: RequestLog.RequestLogDraft): boolean => {
      if (!enabled) return false
      if (buffer.unsafeOffer(line)) {
        pending++
        return true
      }
      dropped.unsafeUpdate(1, [])
      return false
    }

    const write = (drafts: ReadonlyArray<RequestLog.RequestLogDraft>) =>
      Effect.gen(function*() {
        const ids = yield* newIds<RequestLogId>(prefixes.requestLog, drafts.length)
        yield* repo.insertAll(drafts.map((draft, i) => RequestLog.make(draft, ids[i]!)))
      }).pipe(
        // A batch the store refuses is lost (the requests were answered long ago), and counted.
        Effect.catchAll((error) =>
          Effect.zipRight(
            Metric.incrementBy(dropped, drafts.length),
            Effect.logWarning("Request log lines could not be written", { lines: drafts.length, error: error.message })
          )
        ),
        Effect.ensuring(Effect.sync(() => (pending -= drafts.length)))
      )

    // One batch at a time. A line waits up to `gatherFor` for the lines that follow it, so that a busy server writes
    // a few large batches a second rather than a statement per request or two (each statement costs the process
    // far more than a line); with a backlog of a whole batch it writes at once.
    const flushOnce = Effect.gen(function*() {
      const first = yield* Queue.take(buffer)
      if ((yield* Queue.size(buffer)) < batchMax - 1) yield* Effect.sleep(gatherFor)
      const rest = yield* Queue.takeUpTo(buffer, batchMax - 1)
      yield* write([first, ...Chunk.toReadonlyArray(rest)])
    })
    yield* Effect.forkScoped(Effect.forever(flushOnce))
    // On the way out (SIGTERM), what is still buffered is written before the store closes.
    yield* Effect.addFinalizer(() => Effect.flatMap(Queue.takeAll(buffer), (rest) => write(Chunk.toReadonlyArray(rest))))

    /** Resolves when every line recorded so far is written (tests, and a host that wants to read its own lines). */
    const flushed = Effect.repeat(Effect.sync(() => pending), {
      until: (n) => n <= 0,
      schedule: Schedule.spaced(Duration.millis(5))
    }).pipe(Effect.asVoid)

    const list = Effect.fn("RequestLogs.list")(function*(scope: Scope, params: RequestLogListParams) {
      const status = params.status === undefined ? undefined : yield* RequestLog.statusRange(params.status)
      const filter: RequestLog.RequestLogFilter = {
        status,
        path: params.path,
        key_id: params.key_id,
        request_id: params.request_id,
        since: params.since,
        until: params.until
      }
      const key = Pagination.listKey("request_logs", {
        status: params.status,
        path: params.path,
        key_id: params.key_id,
        request_id: params.request_id,
        since: params.since === undefined ? undefined : DateTime.formatIso(params.since),
        until: params.until === undefined ? undefined : DateTime.formatIso(params.until)
      })
      const page = yield* Pagination.pageRequest(key, params)
      const result = yield* repo.list(scope, filter, page)
      return Pagination.toList(key, result, RequestLog.position)
    })

    const get = Effect.fn("RequestLogs.get")(function*(scope: Scope, id: RequestLogId) {
      const found = yield* repo.get(scope, id)
      return Option.isSome(found) ? found.value : yield* notFound("request log", id)
    })

    /**
     * Deletes every line older than the retention, a batch at a time; how many it deleted. With request logs off
     * (a retention of zero), every line left from before.
     */
    const prune = Effect.fn("RequestLogs.prune")(function*() {
      const bound = RequestLog.writtenFrom(DateTime.subtractDuration(yield* DateTime.now, requestLogRetention))
      let deleted = 0
      while (true) {
        const n = yield* repo.prune(bound, pruneBatch)
        deleted += n
        if (n < pruneBatch) return deleted
      }
    })

    /** `prune` now and every hour, for as long as it runs (inside `fils serve`); a failed pass waits for the next. */
    const worker = Effect.repeat(
      Effect.catchAll(prune(), (error) => Effect.as(Effect.logWarning("Pruning request logs failed", { error: error.message }), 0)),
      Schedule.spaced(pruneEvery)
    ).pipe(Effect.asVoid)

    /** How long lines are kept, in whole days (0: request logs are off). */
    const retentionDays = Math.floor(Duration.toDays(requestLogRetention))

    return { enabled, retentionDays, record, flushed, list, get, prune, worker } as const
  })
}) {}
