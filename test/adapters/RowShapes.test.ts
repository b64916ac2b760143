/**
 * The pool's rows are built by column shape (adapters/sql/rowShapes.ts): whatever statements run in whatever order,
 * each row has exactly its own statement's columns, in order, each read by its own type's parser, as node-postgres
 * alone would give, including statements that agree on their first and last columns and their count, duplicate
 * names and a column named `__proto__`.
 */
import { assert, describe, it } from "@effect/vitest"
import { SqlClient } from "@effect/sql"
import { Context, Effect, FastCheck as fc, Layer } from "effect"
import { PgLive } from "../../adapters/sql/Postgres.js"
import { freshDatabaseUrl } from "../support/database.js"

/** A column of a statement: its SQL, and the value node-postgres gives for it (int8 read as a number by the pool). */
const kinds = {
  int8: { sql: (v: number) => `${v}::int8`, value: (v: number) => v },
  int4: { sql: (v: number) => `${v}::int4`, value: (v: number) => v },
  text: { sql: (v: number) => `'${v}'::text`, value: (v: number) => String(v) },
  bool: { sql: (v: number) => `${v % 2 === 0}::bool`, value: (v: number) => v % 2 === 0 },
  numeric: { sql: (v: number) => `${v}.5::numeric`, value: (v: number) => `${v}.5` },
  null: { sql: () => "NULL::text", value: () => null }
} as const
type Kind = keyof typeof kinds

interface Column {
  readonly name: string
  readonly kind: Kind
}

const column = fc.record({
  // Few names, so that statements often agree on their first and last columns and their count.
  name: fc.constantFrom("a", "b", "c", "d"),
  kind: fc.constantFrom(...(Object.keys(kinds) as Array<Kind>))
})
// Distinct names: a row keeps one value per name.
const statement = fc.uniqueArray(column, { minLength: 1, maxLength: 4, selector: (c) => c.name })

const sqlOf = (columns: ReadonlyArray<Column>, v: number) =>
  `SELECT ${columns.map((c) => `${kinds[c.kind].sql(v)} AS ${c.name}`).join(", ")}`
const expected = (columns: ReadonlyArray<Column>, v: number) =>
  Object.fromEntries(columns.map((c) => [c.name, kinds[c.kind].value(v)]))

const pool = Effect.flatMap(freshDatabaseUrl, (url) =>
  Effect.map(Layer.build(PgLive(url, { maxConnections: 2 })), Context.get(SqlClient.SqlClient)))

describe("shared row shapes", () => {
  it.scoped("every row has its own statement's columns and values, whatever ran before", () =>
    Effect.gen(function*() {
      const sql = yield* pool
      const runs = fc.sample(fc.array(statement, { minLength: 1, maxLength: 30 }), { numRuns: 25, seed: 20261128 })
      let checked = 0
      for (const statements of runs) {
        for (const [i, columns] of statements.entries()) {
          const rows = yield* sql.unsafe(sqlOf(columns, i + 1))
          assert.deepStrictEqual(Object.keys(rows[0]!), columns.map((c) => c.name))
          assert.deepStrictEqual({ ...rows[0] }, expected(columns, i + 1))
          assert.strictEqual(Object.getPrototypeOf(rows[0]), Object.prototype)
          checked++
        }
      }
      assert.isAbove(checked, 100)
    }))

  it.scoped("more shapes under one key than it keeps are still read right", () =>
    Effect.gen(function*() {
      const sql = yield* pool
      // Twelve statements with the same first and last column and count, each with its own middle column.
      for (let round = 0; round < 2; round++) {
        for (let i = 0; i < 12; i++) {
          const rows = yield* sql.unsafe(`SELECT 1::int8 AS first, ${i}::int4 AS middle_${i}, 'z'::text AS last`)
          assert.deepStrictEqual({ ...rows[0] }, { first: 1, [`middle_${i}`]: i, last: "z" })
        }
      }
    }))

  it.scoped("duplicate names keep the first's place and the last's value; __proto__ stays a column", () =>
    Effect.gen(function*() {
      const sql = yield* pool
      for (let round = 0; round < 2; round++) {
        const [twice] = yield* sql.unsafe(`SELECT 1 AS a, 2 AS b, ${round} AS a`)
        assert.deepStrictEqual(Object.entries(twice!), [["a", round], ["b", 2]])
        const [odd] = yield* sql.unsafe(`SELECT ${round} AS "__proto__", 'x' AS "a""b", 'y' AS "c d"`)
        assert.deepStrictEqual(Object.keys(odd!), ["__proto__", "a\"b", "c d"])
        assert.strictEqual(Object.getOwnPropertyDescriptor(odd, "__proto__")?.value, round)
        assert.strictEqual(Object.getPrototypeOf(odd), Object.prototype)
        assert.strictEqual((odd as Record<string, unknown>)["a\"b"], "x")
      }
    }))

  it.scoped("a statement without rows or columns still answers", () =>
    Effect.gen(function*() {
      const sql = yield* pool
      assert.deepStrictEqual(yield* sql.unsafe("SELECT 1 AS a WHERE false"), [])
      yield* sql.unsafe("CREATE TEMP TABLE t (a int)")
      assert.deepStrictEqual(yield* sql.unsafe("INSERT INTO t VALUES (1)"), [])
    }))
})
