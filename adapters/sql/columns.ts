/**
 * Column shapes as node-postgres returns them, as Schemas: each decodes a column into the value a domain Schema
 * holds and encodes that value back into a statement parameter. `table` joins them into a table's row Schema whose
 * type side is the domain's own Schema, so a row the domain would refuse never reaches it.
 */
import { DateTime, Either, ParseResult, Schema, SchemaAST as AST } from "effect"
import { compile, Fails, guardOf, lazily } from "./compiled.js"

/**
 * `timestamptz`: a Date from node-postgres (text from a client without its type parsers); written as a Date. One step
 * from either to the instant (a chain of Effect's Date Schemas cost three times as much per column read).
 */
export const Timestamptz = Schema.transformOrFail(
  Schema.Union(Schema.DateFromSelf, Schema.String),
  Schema.DateTimeUtcFromSelf,
  {
    strict: true,
    decode: (value, _, ast) => {
      const date = typeof value === "string" ? new Date(value) : value
      return Number.isNaN(date.getTime())
        ? ParseResult.fail(new ParseResult.Type(ast, value, "not a valid date"))
        : ParseResult.succeed(DateTime.unsafeFromDate(date))
    },
    encode: (instant) => ParseResult.succeed(DateTime.toDate(instant))
  }
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
export const decoder = <A, I>(
  schema: Schema.Schema<A, I>,
  table: string,
  key?: string,
  decode: (row: unknown) => A | Fails = compile(schema).decode
) => {
  const explain = lazily(() => ParseResult.decodeUnknownEither(schema))
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
 * A table's row as a domain value: `columns` decodes the column shapes; the domain's fields are the columns of the
 * same name, and `decode` gives the others (the columns a CHECK groups, nested; the object's kind); `encode` moves a
 * domain value back into its columns. The domain's own Schema checks what is read. What is written is typed already
 * and only encoded into its columns: the database's CHECKs judge it (a value they refuse is the statement's defect,
 * with its SQLSTATE).
 *
 * A read builds the domain value once, with the domain's keys in its order, and checks it in place (compiled.ts's
 * guard); only a row that fails that check goes through Effect's parser, which says why (or, rarely, accepts it).
 */
export const table = <C, CI, A extends object, I>(
  names: {
    /** The table, its key column (to name a row that does not decode) and the domain value its rows hold. */
    readonly table: string
    readonly key: string
    readonly value: string
  },
  /** The columns: a Struct (its names are read from it). */
  columns: Schema.Schema<C, CI>,
  domain: Schema.Schema<A, I>,
  options: {
    readonly decode: (row: C) => Omit<{ readonly [K in keyof A]: unknown }, keyof C & keyof A>
    readonly encode: (value: A) => C
  }
) => {
  const assemble = assembler(
    fieldNames(AST.typeAST(domain.ast)),
    new Set(fieldNames(columns.ast))
  ) as (columns: C, derived: object) => unknown
  const toDomain = (row: C) => assemble(row, options.decode(row))
  const schema: Schema.Schema<A, CI> = Schema.transform(
    columns.annotations({ identifier: `${names.table} row` }),
    Schema.typeSchema(domain).annotations({ identifier: names.value }),
    {
      strict: false,
      decode: toDomain,
      encode: (_, value) => options.encode(value)
    }
  )
  const { decode: decodeColumns, encode: encodeColumns } = compile(columns)
  const isDomain = guardOf(domain)
  const explain = lazily(() => Schema.encodeSync(columns))
  return {
    schema,
    /** The table's column names, in the Struct's order. */
    columns: fieldNames(columns.ast) as ReadonlyArray<keyof CI & string>,
    fromRow: decoder(schema, names.table, names.key, (row) => {
      const decoded = decodeColumns(row)
      if (decoded === Fails) return Fails
      const value = toDomain(decoded)
      return isDomain(value) ? value : Fails
    }),
    toRow: (value: A): CI => {
      const row = options.encode(value)
      const encoded = encodeColumns(row)
      return encoded !== Fails ? encoded : explain(row)
    }
  }
}

/** The property names of a Struct's AST, in order. */
const fieldNames = (ast: AST.AST): ReadonlyArray<string> => {
  if (!AST.isTypeLiteral(ast)) throw new Error(`expected a Struct, got ${ast._tag}`)
  return ast.propertySignatures.map((ps) => String(ps.name))
}

/**
 * `(columns, derived) => value`: an object with the domain's `names` in order, each from the column of that name when
 * there is one, from `derived` otherwise; generated once with the names written out, so the object has one shape V8
 * knows (names quoted by JSON.stringify).
 */
const assembler = (names: ReadonlyArray<string>, columnNames: ReadonlySet<string>) =>
  new Function(
    "c",
    "d",
    `return { ${names.map((n) => `${JSON.stringify(n)}: ${columnNames.has(n) ? "c" : "d"}[${JSON.stringify(n)}]`).join(", ")} };`
  )
