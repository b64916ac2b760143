/**
 * Keyset pagination: newest first (`created_at` descending, id descending as tie-break). A cursor is the opaque,
 * URL-safe encoding of the last item's position plus the list and filters it belongs to, so a cursor from another
 * list or filter set is refused rather than silently misapplied.
 */
import { DateTime, Either, Encoding, Schema } from "effect"
import { InvalidRequest } from "./Errors.js"

export const defaultLimit = 20
export const maxLimit = 100

/** The position of an item in a newest-first list. */
export interface Position {
  readonly createdAtMillis: number
  readonly id: string
}

/** The position of a resource by its `created_at` and id: every list orders this way. */
export const byCreation = <A>(createdAt: (a: A) => DateTime.Utc, id: (a: A) => string) => (a: A): Position => ({
  createdAtMillis: DateTime.toEpochMillis(createdAt(a)),
  id: id(a)
})

export interface PageRequest {
  readonly limit: number
  /** Items strictly after this position (older, or as old with a smaller id). */
  readonly after: Position | undefined
}

export interface Page<A> {
  readonly items: ReadonlyArray<A>
  readonly hasMore: boolean
}

/** The wire shape of a list: `{ items, has_more, next_cursor }`. */
export const ListResource = <S extends Schema.Schema.Any>(item: S, identifier: string) =>
  Schema.Struct({
    items: Schema.Array(item),
    has_more: Schema.Boolean,
    next_cursor: Schema.NullOr(Schema.String)
  }).annotations({ identifier })

/** The largest magnitude of a JavaScript `Date` in milliseconds: a position beyond it names no instant. */
const maxDateMillis = 8_640_000_000_000_000

// A forged cursor must fail here, not in the store: every field is bounded to what `encodeCursor` can write.
const CursorJson = Schema.parseJson(Schema.Struct({
  l: Schema.String,
  t: Schema.Int.pipe(Schema.between(0, maxDateMillis)),
  i: Schema.String.pipe(Schema.pattern(/^[a-z]{2,4}_[0-9a-f]{32}$/))
}).pipe(Schema.annotations({ parseOptions: { onExcessProperty: "error" } })))
const decodeCursorJson = Schema.decodeUnknownEither(CursorJson)
const encodeCursorJson = Schema.encodeSync(CursorJson)

/** The identity of a list and its filters, e.g. `products?billing=recurring&status=active`. */
export const listKey = (list: string, filters: Record<string, string | undefined>): string => {
  const parts = Object.keys(filters)
    .filter((k) => filters[k] !== undefined)
    .sort()
    .map((k) => `${k}=${filters[k]}`)
  return parts.length === 0 ? list : `${list}?${parts.join("&")}`
}

export const encodeCursor = (key: string, position: Position): string =>
  Encoding.encodeBase64Url(encodeCursorJson({ l: key, t: position.createdAtMillis, i: position.id }))

export const maxCursorLength = 1024
/**
 * The shape of every cursor `encodeCursor` writes: base64url that starts with the encoding of `{"l":"` (six bytes,
 * so eight characters whatever follows), at most `maxCursorLength` characters. Checked first when decoding, and
 * stated as is in the OpenAPI document; only a cursor this server wrote for the same list decodes beyond it.
 */
export const cursorPattern = new RegExp(`^${Encoding.encodeBase64Url("{\"l\":\"")}[A-Za-z0-9_-]*$`)

const invalidCursor = () =>
  new InvalidRequest({ message: "cursor is not valid for this list: pass the next_cursor of the previous page" })

export const decodeCursor = (key: string, cursor: string): Either.Either<Position, InvalidRequest> => {
  if (cursor.length > maxCursorLength || !cursorPattern.test(cursor)) return Either.left(invalidCursor())
  return Encoding.decodeBase64UrlString(cursor).pipe(
    Either.flatMap((json) => decodeCursorJson(json)),
    Either.mapLeft(invalidCursor),
    Either.filterOrLeft((c) => c.l === key, invalidCursor),
    Either.map((c) => ({ createdAtMillis: c.t, id: c.i }))
  )
}

/** `limit` (at most `max`) and `cursor` of a list request, validated, into a page request. */
export const pageRequest = (
  key: string,
  params: { readonly limit?: number | undefined; readonly cursor?: string | undefined },
  max: number = maxLimit
): Either.Either<PageRequest, InvalidRequest> => {
  const limit = params.limit ?? Math.min(defaultLimit, max)
  if (!Number.isInteger(limit) || limit < 1 || limit > max) {
    return Either.left(new InvalidRequest({ message: `limit must be an integer from 1 to ${max}` }))
  }
  if (params.cursor === undefined) return Either.right({ limit, after: undefined })
  return Either.map(decodeCursor(key, params.cursor), (after) => ({ limit, after }))
}

/** Newest-first comparison of two positions: negative when `a` comes first. */
export const compare = (a: Position, b: Position): number =>
  a.createdAtMillis !== b.createdAtMillis
    ? b.createdAtMillis - a.createdAtMillis
    : a.id < b.id
    ? 1
    : a.id > b.id
    ? -1
    : 0

export const isAfter = (item: Position, after: Position | undefined): boolean =>
  after === undefined || compare(item, after) > 0

/** Turns a page of items into the wire list, with the cursor of its last item when there is more. */
export const toList = <A>(
  key: string,
  page: Page<A>,
  position: (a: A) => Position
): { readonly items: ReadonlyArray<A>; readonly has_more: boolean; readonly next_cursor: string | null } => {
  const last = page.items[page.items.length - 1]
  return {
    items: page.items,
    has_more: page.hasMore,
    next_cursor: page.hasMore && last !== undefined ? encodeCursor(key, position(last)) : null
  }
}
