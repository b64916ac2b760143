/**
 * Discount codes in memory: the same rules as PostgreSQL's table (migration 0022): a code is unique per account and
 * mode whatever its case, and `times_used` plus the uses held never passes `usage_limit`.
 */
import { Option } from "effect"
import { inScope } from "../../src/domain/Account.js"
import { codeKey, type Discount, position } from "../../src/domain/Discount.js"
import * as Pagination from "../../src/domain/Pagination.js"
import type { DiscountsRepo } from "../../src/ports/repositories/DiscountRepository.js"
import type { Access, Table } from "./Table.js"

export const makeDiscountsMemory = (
  discounts: Table<Discount>,
  { read, write }: Access
): DiscountsRepo => {
  /** Whether another discount of `d`'s scope has its code (PostgreSQL's unique index on the upper-cased code). */
  const taken = (d: Discount) => {
    const key = codeKey(d.code)
    for (const other of discounts.rows.values()) {
      if (other.discount_id !== d.discount_id && other.account_id === d.account_id && other.livemode === d.livemode && codeKey(other.code) === key) return true
    }
    return false
  }
  /** The table's CHECKs: a row the database would refuse is a defect here too. */
  const check = (d: Discount) => {
    if (d.held < 0 || d.times_used < 0 || (d.usage_limit !== null && d.times_used + d.held > d.usage_limit)) {
      throw new Error(`discount ${d.discount_id}: ${d.times_used} used and ${d.held} held pass its usage limit ${d.usage_limit}`)
    }
  }
  const save = (d: Discount, fresh: boolean) => {
    if (fresh ? discounts.get(d.discount_id) !== undefined : discounts.get(d.discount_id) === undefined) {
      throw new Error(`discount ${d.discount_id} ${fresh ? "exists" : "does not exist"}`)
    }
    if (taken(d)) return false
    check(d)
    discounts.set(d.discount_id, d)
    return true
  }
  const scoped = (id: string, scope: Parameters<DiscountsRepo["get"]>[0]) =>
    Option.filter(Option.fromNullable(discounts.get(id)), (d) => inScope(d, scope))
  return {
    insert: (d) => write(() => save(d, true)),
    get: (scope, id) => read(() => scoped(id, scope)),
    lock: (scope, id) => read(() => scoped(id, scope)),
    lockAll: (ids) =>
      read(() =>
        [...new Set(ids)].sort().flatMap((id) => {
          const d = discounts.get(id)
          return d === undefined ? [] : [d]
        })
      ),
    findByCode: (scope, code) =>
      read(() => {
        const key = codeKey(code)
        for (const d of discounts.rows.values()) if (inScope(d, scope) && codeKey(d.code) === key) return Option.some(d)
        return Option.none()
      }),
    update: (d) => write(() => save(d, false)),
    delete: (scope, id) =>
      write(() => {
        if (Option.isNone(scoped(id, scope))) return false
        discounts.delete(id)
        return true
      }),
    list: (scope, request) =>
      read(() => {
        const selected = [...discounts.rows.values()]
          .filter((d) => inScope(d, scope) && Pagination.isAfter(position(d), request.after))
          .sort((a, b) => Pagination.compare(position(a), position(b)))
        return { items: selected.slice(0, request.limit), hasMore: selected.length > request.limit }
      })
  }
}
