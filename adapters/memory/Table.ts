/**
 * What the memory store's repositories share: tables whose writes its transactions undo, the store's `read` and
 * `write`, and the orderings PostgreSQL's indexes give the SQL store.
 */
import { DateTime, type Effect, Option } from "effect"
import { inScope, type Scope } from "../../src/domain/Account.js"
import * as Pagination from "../../src/domain/Pagination.js"

export type Undo = () => void

/** A table: rows by id, with every write recorded in the running transaction's undo log. */
export class Table<A> {
  readonly rows = new Map<string, A>()
  constructor(private readonly record: (undo: Undo) => void) {}
  get(id: string): A | undefined {
    return this.rows.get(id)
  }
  set(id: string, row: A): void {
    const had = this.rows.has(id)
    const previous = this.rows.get(id)
    this.rows.set(id, row)
    this.record(() => (had ? this.rows.set(id, previous as A) : this.rows.delete(id)))
  }
  delete(id: string): void {
    if (!this.rows.has(id)) return
    const previous = this.rows.get(id) as A
    this.rows.delete(id)
    this.record(() => this.rows.set(id, previous))
  }
}

/** How a repository reaches the store: a write joins the running transaction (or takes the lock); a read does not. */
export interface Access {
  readonly write: <A>(f: () => A) => Effect.Effect<A>
  readonly read: <A>(f: () => A) => Effect.Effect<A>
}

/** The row when it exists and belongs to `scope` (another account's or mode's is not found). */
export const scoped = <A extends { readonly account_id: string; readonly livemode: boolean }>(
  row: A | undefined,
  scope: Scope
): Option.Option<A> => row !== undefined && inScope(row, scope) ? Option.some(row) : Option.none()

/** One page of `rows` in keyset order, as the SQL store's list indexes give it. */
export const page = <A>(
  rows: Iterable<A>,
  keep: (a: A) => boolean,
  position: (a: A) => Pagination.Position,
  request: Pagination.PageRequest
): Pagination.Page<A> => {
  const selected: Array<A> = []
  for (const row of rows) if (keep(row) && Pagination.isAfter(position(row), request.after)) selected.push(row)
  selected.sort((a, b) => Pagination.compare(position(a), position(b)))
  return { items: selected.slice(0, request.limit), hasMore: selected.length > request.limit }
}

/** Oldest first, by a timestamp then id: the order in which background work is claimed. */
export const oldestFirst = <A>(
  rows: Iterable<A>,
  keep: (a: A) => boolean,
  at: (a: A) => DateTime.Utc,
  id: (a: A) => string
) =>
  [...rows].filter(keep).sort((a, b) => {
    const d = DateTime.toEpochMillis(at(a)) - DateTime.toEpochMillis(at(b))
    return d !== 0 ? d : id(a) < id(b) ? -1 : id(a) > id(b) ? 1 : 0
  })

/**
 * Rows created at or after `since` and strictly after `after` in oldest-first order (by `created_at`, then id):
 * what reconciliation reads page by page.
 */
export const oldestSince = <A extends { readonly created_at: DateTime.Utc }>(
  rows: Iterable<A>,
  since: DateTime.Utc,
  after: Pagination.Position | undefined,
  id: (a: A) => string
) =>
  oldestFirst(rows, (row) => {
    const at = DateTime.toEpochMillis(row.created_at)
    if (at < DateTime.toEpochMillis(since)) return false
    return after === undefined || at > after.createdAtMillis || (at === after.createdAtMillis && id(row) > after.id)
  }, (row) => row.created_at, id)
