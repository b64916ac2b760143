/**
 * Rows built once per column shape. node-postgres describes each result's columns anew (`Result.addFields`: a type
 * parser per column and an empty row built as a dictionary), then makes each row by copying that empty row and
 * setting its columns one by one. Past eight or so columns V8 gives every such row a hidden class of its own (a map
 * and its descriptors, about 1 KB for a payment's 40 columns, in the old generation), so every read of a row's
 * field misses its inline cache and the old generation fills with maps a full collection must sweep.
 *
 * Here each shape (the columns' names, types and formats, under one set of type parsers) gets, once, its parsers and
 * a function that builds the row as one object literal: rows of one shape share one hidden class. The rows are those
 * node-postgres makes: the same own properties in the same order, each parsed by its type's parser, null for NULL.
 * A shape it cannot write as a literal (binary columns, a column named `__proto__`, or Node forbidding code made
 * from strings) is built as node-postgres does. It changes node-postgres' `Result` for the whole process, which only
 * matters to an embedder using that same copy of `pg`: its rows come out the same, sooner.
 */

interface Field {
  readonly name: string
  readonly dataTypeID: number
  readonly format?: string | undefined
}

interface TypeParsers {
  readonly getTypeParser: (oid: number, format?: string) => (value: string) => unknown
}

type Parser = (value: unknown) => unknown
type Build = (parsers: ReadonlyArray<Parser>, values: ReadonlyArray<unknown>) => Record<string, unknown>

interface ResultLike {
  fields: ReadonlyArray<Field>
  _parsers: ReadonlyArray<Parser> | undefined
  _types: TypeParsers | undefined
  _prebuiltEmptyResultObject: Record<string, null> | null
  _build: Build | undefined
}

interface Shape {
  readonly fields: ReadonlyArray<Field>
  readonly parsers: ReadonlyArray<Parser>
  readonly empty: Record<string, null>
  readonly build: Build | undefined
}

const patched = Symbol.for("fils/sql/rowShapes")

/** Shapes kept per first column, column count and last column; keys kept per set of type parsers. */
const maxShapesPerKey = 8
const maxKeys = 1_000

const formatOf = (field: Field) => field.format || "text"

const sameColumns = (a: ReadonlyArray<Field>, b: ReadonlyArray<Field>): boolean => {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!
    const y = b[i]!
    if (x.name !== y.name || x.dataTypeID !== y.dataTypeID || formatOf(x) !== formatOf(y)) return false
  }
  return true
}

/**
 * `(parsers, values) => ({ "name": values[0] === null ? null : parsers[0](values[0]), … })`. Each name is written as
 * a JSON string, which is a JS string literal whatever the name holds; duplicate names keep the first's place and
 * the last's value, as node-postgres' assignments do.
 */
const builderOf = (fields: ReadonlyArray<Field>): Build | undefined => {
  if (fields.some((field) => formatOf(field) !== "text" || field.name === "__proto__")) return undefined
  const properties = fields.map((field, i) =>
    `${JSON.stringify(field.name)}: values[${i}] === null ? null : parsers[${i}](values[${i}])`
  )
  try {
    return new Function("parsers", "values", `return { ${properties.join(", ")} }`) as Build
  } catch {
    return undefined // Node run with --disallow-code-generation-from-strings
  }
}

/** A shape; `kept` (used again) is worth compiling a builder for, one made up for a single result is not. */
const shapeOf = (fields: ReadonlyArray<Field>, types: TypeParsers, kept: boolean): Shape => {
  const parsers = fields.map((field) => types.getTypeParser(field.dataTypeID, formatOf(field)) as Parser)
  const row = Object.create(null) as Record<string, null>
  for (const field of fields) row[field.name] = null
  return { fields, parsers, empty: { ...row }, build: kept ? builderOf(fields) : undefined }
}

/**
 * Makes the `Result` of the given node-postgres build its rows by shape (once per module: the pool's results, the
 * listener's and the migrations' all go through it). Rows asked for as arrays are left as they are.
 */
export const buildRowsByShape = (pg: { readonly Result: unknown; readonly types: TypeParsers }): void => {
  const prototype = (pg.Result as {
    prototype: ResultLike & { addFields: unknown; parseRow: (values: ReadonlyArray<unknown>) => unknown; [patched]?: true }
  }).prototype
  if (prototype[patched] === true) return
  const byTypes = new WeakMap<TypeParsers, Map<string, Array<Shape>>>()
  const parseEachColumn = prototype.parseRow

  prototype.addFields = function(this: ResultLike, fields: ReadonlyArray<Field>) {
    this.fields = fields
    const types = this._types ?? pg.types
    let byKey = byTypes.get(types)
    if (byKey === undefined) byTypes.set(types, byKey = new Map())
    const key = fields.length === 0 ? "" : `${fields[0]!.name}\u0000${fields.length}\u0000${fields[fields.length - 1]!.name}`
    let shapes = byKey.get(key)
    const listed = shapes !== undefined || byKey.size < maxKeys
    if (shapes === undefined) {
      shapes = []
      if (listed) byKey.set(key, shapes)
    }
    let shape = shapes.find((s) => sameColumns(s.fields, fields))
    if (shape === undefined) {
      // Past that many (statements made up on the fly) a result gets a shape of its own, its rows built as
      // node-postgres builds them.
      const kept = listed && shapes.length < maxShapesPerKey
      shape = shapeOf(fields, types, kept)
      if (kept) shapes.push(shape)
    }
    if (fields.length > 0) this._parsers = shape.parsers
    this._prebuiltEmptyResultObject = shape.empty
    this._build = shape.build
  }

  // A result made to give arrays has its own `parseRow`, which this does not shadow.
  prototype.parseRow = function(this: ResultLike, values: ReadonlyArray<unknown>) {
    return this._build === undefined ? parseEachColumn.call(this, values) : this._build(this._parsers!, values)
  }
  prototype[patched] = true
}
