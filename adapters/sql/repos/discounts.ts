/**
 * Discount codes on PostgreSQL (migration 0022). A code is unique per account and mode by an index on its upper case:
 * an insert that meets it writes nothing (`ON CONFLICT DO NOTHING`), so two requests for one code cannot both take
 * it. The uses a charge holds and counts are kept under the table's CHECK (`times_used + held <= usage_limit`).
 */
import { Effect } from "effect"
import { codeKey } from "../../../src/domain/Discount.js"
import type { DiscountsRepo } from "../../../src/ports/Store.js"
import type { Queries } from "../queries.js"
import * as Rows from "../rows.js"
import { orUnavailable, uniqueViolation } from "../SqlErrors.js"

export const makeDiscountsRepo = ({ first, forUpdateInTransaction, inScope, page, sql }: Queries): DiscountsRepo => ({
  insert: Effect.fnUntraced(function*(discount) {
    const rows = yield* sql<{ discount_id: string }>`INSERT INTO discounts ${sql.insert(Rows.discountToRow(discount))}
      ON CONFLICT (account_id, livemode, upper(code)) DO NOTHING RETURNING discount_id`
    return rows.length === 1
  }, orUnavailable),

  get: Effect.fnUntraced(function*(scope, id) {
    return first(yield* sql<Rows.DiscountRow>`SELECT * FROM discounts WHERE discount_id = ${id} AND ${inScope(scope)}`, Rows.discountFromRow)
  }, orUnavailable),

  lock: Effect.fnUntraced(function*(scope, id) {
    const lock = yield* forUpdateInTransaction
    const rows = yield* sql<Rows.DiscountRow>`SELECT * FROM discounts WHERE discount_id = ${id} AND ${inScope(scope)} ${lock}`
    return first(rows, Rows.discountFromRow)
  }, orUnavailable),

  lockAll: Effect.fnUntraced(function*(ids) {
    if (ids.length === 0) return []
    const lock = yield* forUpdateInTransaction
    const rows = yield* sql<Rows.DiscountRow>`SELECT * FROM discounts WHERE discount_id IN ${sql.in(ids)}
      ORDER BY discount_id COLLATE "C" ${lock}`
    return rows.map(Rows.discountFromRow)
  }, orUnavailable),

  findByCode: Effect.fnUntraced(function*(scope, code) {
    const rows = yield* sql<Rows.DiscountRow>`SELECT * FROM discounts WHERE ${inScope(scope)} AND upper(code) = ${codeKey(code)}`
    return first(rows, Rows.discountFromRow)
  }, orUnavailable),

  // Another discount's code is refused before the index would be (a statement that fails aborts its transaction);
  // should one be taken at the same moment, the index refuses it all the same, and so does this.
  update: (discount) =>
    Effect.gen(function*() {
      const rows = yield* sql<{ discount_id: string }>`UPDATE discounts SET ${sql.update(Rows.discountChanges(discount))}
        WHERE discount_id = ${discount.discount_id} AND ${inScope({ accountId: discount.account_id, livemode: discount.livemode })}
          AND NOT EXISTS (SELECT 1 FROM discounts AS other
            WHERE other.account_id = ${discount.account_id} AND other.livemode = ${discount.livemode}
              AND upper(other.code) = ${codeKey(discount.code)} AND other.discount_id <> ${discount.discount_id})
        RETURNING discount_id`
      return rows.length === 1
    }).pipe(
      Effect.catchIf((error) => uniqueViolation(error) === "discounts_code", () => Effect.succeed(false)),
      orUnavailable
    ),

  delete: Effect.fnUntraced(function*(scope, id) {
    const rows = yield* sql`DELETE FROM discounts WHERE discount_id = ${id} AND ${inScope(scope)} RETURNING discount_id`
    return rows.length === 1
  }, orUnavailable),

  list: Effect.fnUntraced(function*(scope, request) {
    return yield* page("discounts", [inScope(scope)], request, Rows.discountFromRow)
  }, orUnavailable)
})
