/**
 * Request logs (docs/api.md, "Request logs"): one line per API request an account's key made, kept for a while
 * (`FILS_REQUEST_LOG_RETENTION_DAYS`) so that a developer can see what their integration sent and what it got.
 * A line holds what the request was (method, path without its query, `Idempotency-Key`) and how it ended (status,
 * error code, duration), never a body, a header's secret or a query string.
 */
import { DateTime, Either, Schema } from "effect"
import { InvalidRequest } from "./Errors.js"
import { AccountId, ApiKeyId, firstIdAt, prefixes, RequestLogId } from "./Ids.js"
import * as Pagination from "./Pagination.js"

const resourceFields = {
  object: Schema.Literal("request_log"),
  request_log_id: RequestLogId,
  request_id: Schema.String.annotations({
    description: "The request's `X-Request-Id` (the caller's when well formed, else a new `req_…`); events it caused carry it"
  }),
  livemode: Schema.Boolean,
  key_id: ApiKeyId,
  method: Schema.String,
  path: Schema.String.annotations({ description: "The path as requested, without its query string" }),
  status: Schema.Int.annotations({ description: "The HTTP status answered" }),
  duration_ms: Schema.Number.annotations({ description: "Time to answer, in milliseconds" }),
  idempotency_key: Schema.NullOr(Schema.String),
  error_code: Schema.NullOr(Schema.String).annotations({ description: "The error's `code` when the request failed" }),
  created_at: Schema.DateTimeUtc.annotations({ description: "When the request arrived" })
}

export const RequestLogResource = Schema.Struct(resourceFields).annotations({ identifier: "RequestLog" })
export const RequestLog = Schema.Struct({ ...resourceFields, account_id: AccountId })
export type RequestLog = typeof RequestLog.Type

/** A line as the request's observer writes it: its id is given when it is stored, off the request's path. */
export type RequestLogDraft = Omit<RequestLog, "object" | "request_log_id">

/**
 * The stored line: the draft with its id. Written out field by field rather than spread: a batch makes hundreds, and
 * spread copies with keys added took three times as long to make, encode and serialise (6 µs a line against 2).
 */
export const make = (draft: RequestLogDraft, request_log_id: RequestLogId): RequestLog => ({
  object: "request_log",
  request_log_id,
  request_id: draft.request_id,
  livemode: draft.livemode,
  key_id: draft.key_id,
  method: draft.method,
  path: draft.path,
  status: draft.status,
  duration_ms: draft.duration_ms,
  idempotency_key: draft.idempotency_key,
  error_code: draft.error_code,
  created_at: draft.created_at,
  account_id: draft.account_id
})

/** Where a line stands in a newest-first list. */
export const position = Pagination.byCreation<RequestLog>((l) => l.created_at, (l) => l.request_log_id)

/**
 * The lowest id a line written at `time` or later can have: lines whose ids sort below it were written before
 * (an id's time comes first). Pruning deletes by this range of the primary key, so the table needs no index by age;
 * a line is written within moments of its request, so "written before" and "made before" differ by that much.
 */
export const writtenFrom = (time: DateTime.Utc): RequestLogId =>
  firstIdAt(prefixes.requestLog, DateTime.toEpochMillis(time)) as RequestLogId

/** At most this much of a path or an `Idempotency-Key` is kept. */
export const maxPathLength = 500
export const maxKeyLength = 255

/** `status`: one code (`404`) or a class (`4xx`). */
export const statusFilterPattern = /^(?:[1-5]xx|[1-5][0-9]{2})$/

export interface StatusRange {
  readonly min: number
  readonly max: number
}

/** The statuses a `status` filter names: `404` is 404 alone, `4xx` is 400 to 499. */
export const statusRange = (filter: string): Either.Either<StatusRange, InvalidRequest> => {
  if (!statusFilterPattern.test(filter)) {
    return Either.left(new InvalidRequest({ message: `status must be a status code (404) or a class (4xx), not '${filter}'` }))
  }
  const first = Number(filter[0]) * 100
  return Either.right(filter.endsWith("xx") ? { min: first, max: first + 99 } : { min: Number(filter), max: Number(filter) })
}

/** What a list may be narrowed to. */
export interface RequestLogFilter {
  readonly status?: StatusRange | undefined
  /** Paths that start with this. */
  readonly path?: string | undefined
  readonly key_id?: string | undefined
  readonly request_id?: string | undefined
  /** At or after. */
  readonly since?: DateTime.Utc | undefined
  /** Before. */
  readonly until?: DateTime.Utc | undefined
}

/** Whether a line passes a filter (the memory store's reading of what the SQL one queries). */
export const matches = (line: RequestLog, filter: RequestLogFilter): boolean =>
  (filter.status === undefined || (line.status >= filter.status.min && line.status <= filter.status.max)) &&
  (filter.path === undefined || line.path.startsWith(filter.path)) &&
  (filter.key_id === undefined || line.key_id === filter.key_id) &&
  (filter.request_id === undefined || line.request_id === filter.request_id) &&
  (filter.since === undefined || !DateTime.lessThan(line.created_at, filter.since)) &&
  (filter.until === undefined || DateTime.lessThan(line.created_at, filter.until))
