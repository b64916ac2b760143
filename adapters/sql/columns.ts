/**
 * Column shapes as node-postgres returns them, as Schemas: each decodes a column into the value a domain Schema
 * holds and encodes that value back into a statement parameter. `table` joins them into a table's row Schema whose
 * type side is the domain's own Schema, so a row the domain would refuse never reaches it.
 */
import { Either, ParseResult, Schema } from "effect"
import { compile, Fails } from "./compiled.js"

/** `timestamptz`: a Date from node-postgres (text from a client without its type parsers); written as a Date. */
export const Timestamptz = Schema.Union(Schema.DateFromSelf, Schema.DateFromString).pipe(
  Schema.compose(Schema.DateTimeUtcFromDate)
)

/**
 * `int8`: a number with `int8AsNumber`, text without it (or beyond 2^53); the domain's Schema then requires a safe
 * integer, so an amount is never rounded.
 */
export const Int8 = Schema.Union(Schema.Number, Schema.NumberFromString)

/**
 * `jsonb`: parsed by node-postgres (text from a client without its type parsers); written as JSON text, since a JS
 * array would go as a PostgreSQL array.
 */
export const Jsonb = Schema.transformOrFail(Schema.Unknown, Schema.Unknown, {
  strict: true,
  decode: (value, _, ast) =>
    typeof value === "string"
      ? ParseResult.try({
        try: () => JSON.parse(value),
        catch: () => new ParseResult.Type(ast, value, "not JSON text")
      })
      : ParseResult.succeed(value),
  encode: (value) => ParseResult.succeed(JSON.stringify(value))
})

/** A row that does not decode: the store broke its own invariant (a defect, never a value of the wrong type). */
export class UndecodableRow extends Error {
  override readonly name = "UndecodableRow"
}

/**
 * The decoder of `table`'s rows, derived once from `schema` (compiled, see compiled.ts): it throws `UndecodableRow`,
 * which becomes a defect of the statement's effect, naming the row by its `key` column and what the domain refused.
 */
export const decoder = <A, I>(schema: Schema.Schema<A, I>, table: string, key?: string) => {
  const decode = compile(schema).decode
  const explain = ParseResult.decodeUnknownEither(schema)
  return (row: unknown): A => {
    const value = decode(row)
    if (value !== Fails) return value
    const result = explain(row)
    if (Either.isRight(result)) return result.right
    const id = key !== undefined && typeof row === "object" && row !== null ? Reflect.get(row, key) : undefined
    throw new UndecodableRow(
      `a row of ${table}${typeof id === "string" ? ` (${key} ${id})` : ""} does not decode: ` +
        ParseResult.TreeFormatter.formatIssueSync(result.left)
    )
  }
}

/**
 * A table's row as a domain value: `columns` decodes the column shapes, `decode` and `encode` move the columns to the
 * domain's fields and back (nesting the ones a CHECK groups), and the domain's own Schema checks what is read. What is
 * written is typed already and only encoded into its columns: the database's CHECKs judge it (a value they refuse is
 * the statement's defect, with its SQLSTATE).
 */
export const table = <C, CI, A, I>(
  names: {
    /** The table, its key column (to name a row that does not decode) and the domain value its rows hold. */
    readonly table: string
    readonly key: string
    readonly value: string
  },
  columns: Schema.Schema<C, CI>,
  domain: Schema.Schema<A, I>,
  options: { readonly decode: (row: C) => unknown; readonly encode: (value: A) => C }
) => {
  const schema: Schema.Schema<A, CI> = Schema.transform(
    columns.annotations({ identifier: `${names.table} row` }),
    Schema.typeSchema(domain).annotations({ identifier: names.value }),
    {
      strict: false,
      decode: options.decode,
      encode: (_, value) => options.encode(value)
    }
  )
  const encodeColumns = compile(columns).encode
  const explain = Schema.encodeSync(columns)
  return {
    schema,
    fromRow: decoder(schema, names.table, names.key),
    toRow: (value: A): CI => {
      const row = options.encode(value)
      const encoded = encodeColumns(row)
      return encoded !== Fails ? encoded : explain(row)
    }
  }
}
