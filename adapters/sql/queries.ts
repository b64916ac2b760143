/**
 * Query pieces every SQL repository shares: the scope condition, the newest-first keyset page, and the row locks
 * that only mean something inside `transact`.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Statement from "@effect/sql/Statement"
import type { SqlError } from "@effect/sql/SqlError"
import { DateTime, Effect, Option } from "effect"
import type { Scope } from "../../src/domain/Account.js"
import type { Page, PageRequest, Position } from "../../src/domain/Pagination.js"

/** The listed tables and their id columns (the keyset tie-break). */
const listTables = {
  products: "product_id",
  customers: "customer_id",
  payments: "payment_id",
  events: "event_id",
  subscriptions: "subscription_id",
  checkout_sessions: "session_id",
  discounts: "discount_id",
  test_clocks: "test_clock_id",
  request_logs: "request_log_id",
  refunds: "refund_id"
} as const
export type ListTable = keyof typeof listTables

export interface Queries {
  readonly sql: SqlClient.SqlClient
  /** `account_id = … AND livemode = …`: every read of merchant data carries it. */
  readonly inScope: (scope: Scope) => Statement.Fragment
  /** Newest first from `request.after`; one row more than the page tells whether there is more. */
  readonly page: <Row extends object, A>(
    table: ListTable,
    conditions: ReadonlyArray<Statement.Fragment>,
    request: PageRequest,
    fromRow: (row: Row) => A
  ) => Effect.Effect<Page<A>, SqlError>
  readonly first: <Row, A>(rows: ReadonlyArray<Row>, fromRow: (row: Row) => A) => Option.Option<A>
  /**
   * `FOR UPDATE` inside a transaction, nothing outside: a lock taken by a lone statement ends with it, so there it
   * would only make the read wait for other transactions' locks (the hosted page must not wait for a payment).
   */
  readonly forUpdateInTransaction: Effect.Effect<Statement.Fragment>
  /**
   * Rows of `table` by their id (`idColumn`), ordered by id in byte order; `locked`: locked in that order inside a
   * transaction (`FOR UPDATE`), so two batches that share rows take their locks in the same order and cannot deadlock.
   */
  readonly findAll: <Row extends object>(
    table: "payments" | "subscriptions" | "products",
    idColumn: string,
    ids: ReadonlyArray<string>,
    locked: boolean
  ) => Effect.Effect<ReadonlyArray<Row>, SqlError>
  /**
   * Sets `columns` of each row of `table` (matched by `idColumn` within its account and mode) to the values of
   * `records`, in one statement. A record's values are those of the table's columns as JSON (`jsonb_populate_recordset`
   * gives them the table's types). The join updates rows in no set order: call it on rows the transaction already
   * locked (`lockAll`, a claim), or two batches could take their rows in opposite orders (docs/architecture.md).
   */
  readonly updateAll: (
    table: "payments" | "subscriptions",
    idColumn: string,
    columns: ReadonlyArray<string>,
    records: ReadonlyArray<Record<string, unknown>>
  ) => Effect.Effect<void, SqlError>
  /**
   * Rows of `table` created at or after `since`, oldest first by (created_at, id), strictly after `after` in that
   * order when given, at most `limit`: every account and mode (reconciliation reads them page by page).
   */
  readonly since: <Row extends object>(
    table: "payments" | "refunds",
    idColumn: string,
    since: DateTime.Utc,
    after: Position | undefined,
    limit: number
  ) => Effect.Effect<ReadonlyArray<Row>, SqlError>
}

export const makeQueries = (sql: SqlClient.SqlClient): Queries => {
  const inScope = (scope: Scope) => sql`account_id = ${scope.accountId} AND livemode = ${scope.livemode}`

  const page = <Row extends object, A>(
    table: ListTable,
    conditions: ReadonlyArray<Statement.Fragment>,
    request: PageRequest,
    fromRow: (row: Row) => A
  ): Effect.Effect<Page<A>, SqlError> => {
    const id = listTables[table]
    const after = request.after === undefined
      ? []
      : [sql`(created_at, ${sql(id)}) < (${new Date(request.after.createdAtMillis)}, ${request.after.id})`]
    return Effect.map(
      sql<Row>`SELECT * FROM ${sql(table)} WHERE ${sql.and([...conditions, ...after])}
        ORDER BY created_at DESC, ${sql(id)} DESC LIMIT ${request.limit + 1}`,
      (rows) => ({ items: rows.slice(0, request.limit).map(fromRow), hasMore: rows.length > request.limit })
    )
  }

  const first = <Row, A>(rows: ReadonlyArray<Row>, fromRow: (row: Row) => A): Option.Option<A> =>
    Option.map(Option.fromNullable(rows[0]), fromRow)

  const forUpdateInTransaction = Effect.map(
    Effect.serviceOption(SqlClient.TransactionConnection),
    (running) => sql.literal(Option.isSome(running) ? "FOR UPDATE" : "")
  )

  const findAll = <Row extends object>(
    table: "payments" | "subscriptions" | "products",
    idColumn: string,
    ids: ReadonlyArray<string>,
    locked: boolean
  ) =>
    ids.length === 0
      ? Effect.succeed<ReadonlyArray<Row>>([])
      : Effect.flatMap(locked ? forUpdateInTransaction : Effect.succeed(sql.literal("")), (lock) =>
        sql<Row>`SELECT * FROM ${sql(table)} WHERE ${sql(idColumn)} IN ${sql.in(ids)}
          ORDER BY ${sql(idColumn)} COLLATE "C" ${lock}`)

  const updateAll = (
    table: "payments" | "subscriptions",
    idColumn: string,
    columns: ReadonlyArray<string>,
    records: ReadonlyArray<Record<string, unknown>>
  ): Effect.Effect<void, SqlError> =>
    records.length === 0 ? Effect.void : Effect.asVoid(sql`UPDATE ${sql(table)} AS t
      SET ${sql.literal(columns.map((column) => `"${column}" = v."${column}"`).join(", "))}
      FROM jsonb_populate_recordset(NULL::${sql(table)}, ${JSON.stringify(records)}::jsonb) AS v
      WHERE t.${sql(idColumn)} = v.${sql(idColumn)} AND t.account_id = v.account_id AND t.livemode = v.livemode`)

  const since = <Row extends object>(
    table: "payments" | "refunds",
    idColumn: string,
    from: DateTime.Utc,
    after: Position | undefined,
    limit: number
  ) => {
    const conditions = [sql`created_at >= ${DateTime.toDate(from)}`]
    if (after !== undefined) {
      conditions.push(sql`(created_at, ${sql(idColumn)}) > (${new Date(after.createdAtMillis)}, ${after.id})`)
    }
    return sql<Row>`SELECT * FROM ${sql(table)} WHERE ${sql.and(conditions)}
      ORDER BY created_at, ${sql(idColumn)} LIMIT ${limit}`
  }

  return { sql, inScope, page, first, forUpdateInTransaction, findAll, updateAll, since }
}
