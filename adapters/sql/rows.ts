/**
 * Table rows and their mapping to the domain. Columns are named like the domain fields; node-postgres returns
 * `timestamptz` as a `Date`, `jsonb` parsed, and `int8` as a number with `int8AsNumber` (as text without it, which
 * `toSafeInt` also accepts, so the store works on any SqlClient).
 */
import { DateTime } from "effect"
import type { Account, ApiKey } from "../../src/domain/Account.js"
import type { Customer } from "../../src/domain/Customer.js"
import type { IdempotencyRecord } from "../../src/domain/Idempotency.js"
import type { AccountId, ApiKeyId, CustomerId, ProductId } from "../../src/domain/Ids.js"
import type { Metadata } from "../../src/domain/Metadata.js"
import type { Currency } from "../../src/domain/Money.js"
import type { Billing, BillingInterval, Product, ProductStatus } from "../../src/domain/Product.js"
import type { RateDecision } from "../../src/domain/RateWindow.js"

type Timestamp = Date | string

export const fromTimestamp = (value: Timestamp): DateTime.Utc =>
  DateTime.unsafeFromDate(value instanceof Date ? value : new Date(value))

const fromNullableTimestamp = (value: Timestamp | null): DateTime.Utc | null =>
  value === null ? null : fromTimestamp(value)

/** For parameters: `timestamptz` columns take a Date. */
export const toTimestamp = (value: DateTime.Utc): Date => DateTime.toDate(value)
export const toNullableTimestamp = (value: DateTime.Utc | null): Date | null =>
  value === null ? null : DateTime.toDate(value)

export const toSafeInt = (value: number | string | bigint): number => {
  const n = Number(value)
  if (!Number.isSafeInteger(n)) throw new Error(`integer column out of the safe range: ${String(value)}`)
  return n
}

export interface AccountRow {
  readonly account_id: string
  readonly business_name: string | null
  readonly support_email: string | null
  readonly live_payments_enabled: boolean
  readonly created_at: Timestamp
}

export const accountFromRow = (row: AccountRow): Account => ({
  account_id: row.account_id as AccountId,
  business_name: row.business_name,
  support_email: row.support_email,
  live_payments_enabled: row.live_payments_enabled,
  created_at: fromTimestamp(row.created_at)
})

export const accountToRow = (a: Account) => ({
  account_id: a.account_id,
  business_name: a.business_name,
  support_email: a.support_email,
  live_payments_enabled: a.live_payments_enabled,
  created_at: toTimestamp(a.created_at)
})

export interface ApiKeyRow {
  readonly key_id: string
  readonly account_id: string
  readonly livemode: boolean
  readonly hash: string
  readonly last4: string
  readonly created_at: Timestamp
  readonly revoked_at: Timestamp | null
}

export const apiKeyFromRow = (row: ApiKeyRow): ApiKey => ({
  key_id: row.key_id as ApiKeyId,
  account_id: row.account_id as AccountId,
  livemode: row.livemode,
  hash: row.hash,
  last4: row.last4,
  created_at: fromTimestamp(row.created_at),
  revoked_at: fromNullableTimestamp(row.revoked_at)
})

export const apiKeyToRow = (k: ApiKey) => ({
  key_id: k.key_id,
  account_id: k.account_id,
  livemode: k.livemode,
  hash: k.hash,
  last4: k.last4,
  created_at: toTimestamp(k.created_at),
  revoked_at: toNullableTimestamp(k.revoked_at)
})

export interface ProductRow {
  readonly product_id: string
  readonly account_id: string
  readonly livemode: boolean
  readonly name: string
  readonly description: string
  readonly price: number | string
  readonly currency: string
  readonly billing: string
  readonly billing_interval: string | null
  readonly interval_count: number | null
  readonly status: string
  readonly metadata: Metadata
  readonly created_at: Timestamp
  readonly updated_at: Timestamp | null
}

export const productFromRow = (row: ProductRow): Product => ({
  object: "product",
  product_id: row.product_id as ProductId,
  account_id: row.account_id as AccountId,
  livemode: row.livemode,
  name: row.name,
  description: row.description,
  price: toSafeInt(row.price),
  currency: row.currency as Currency,
  billing: row.billing as Billing,
  billing_interval: row.billing_interval as BillingInterval | null,
  interval_count: row.interval_count,
  status: row.status as ProductStatus,
  metadata: row.metadata,
  created_at: fromTimestamp(row.created_at),
  updated_at: fromNullableTimestamp(row.updated_at)
})

/** The columns an update may change (id, owner, mode and creation time never change). */
export const productChanges = (p: Product) => ({
  name: p.name,
  description: p.description,
  price: p.price,
  currency: p.currency,
  billing: p.billing,
  billing_interval: p.billing_interval,
  interval_count: p.interval_count,
  status: p.status,
  metadata: JSON.stringify(p.metadata),
  updated_at: toNullableTimestamp(p.updated_at)
})

export const productToRow = (p: Product) => ({
  product_id: p.product_id,
  account_id: p.account_id,
  livemode: p.livemode,
  ...productChanges(p),
  created_at: toTimestamp(p.created_at)
})

export interface CustomerRow {
  readonly customer_id: string
  readonly account_id: string
  readonly livemode: boolean
  readonly name: string | null
  readonly email: string
  readonly phone_number: string | null
  readonly metadata: Metadata
  readonly created_at: Timestamp
}

export const customerFromRow = (row: CustomerRow): Customer => ({
  object: "customer",
  customer_id: row.customer_id as CustomerId,
  account_id: row.account_id as AccountId,
  livemode: row.livemode,
  name: row.name,
  email: row.email,
  phone_number: row.phone_number,
  metadata: row.metadata,
  created_at: fromTimestamp(row.created_at)
})

export const customerChanges = (c: Customer) => ({
  name: c.name,
  email: c.email,
  phone_number: c.phone_number,
  metadata: JSON.stringify(c.metadata)
})

export const customerToRow = (c: Customer) => ({
  customer_id: c.customer_id,
  account_id: c.account_id,
  livemode: c.livemode,
  ...customerChanges(c),
  created_at: toTimestamp(c.created_at)
})

export interface IdempotencyRow {
  readonly scope: string
  readonly key: string
  readonly fingerprint: string
  readonly response_status: number | null
  readonly response_body: string | null
  readonly locked_until: Timestamp
  readonly expires_at: Timestamp
}

export const idempotencyFromRow = (row: IdempotencyRow): IdempotencyRecord => ({
  scope: row.scope,
  key: row.key,
  fingerprint: row.fingerprint,
  response: row.response_status === null || row.response_body === null
    ? null
    : { status: row.response_status, body: row.response_body },
  lockedUntil: fromTimestamp(row.locked_until),
  expiresAt: fromTimestamp(row.expires_at)
})

export interface RateRow {
  readonly allowed: boolean
  readonly remaining: number
  readonly reset_seconds: number
  readonly seconds: ReadonlyArray<number | string>
  readonly counts: ReadonlyArray<number>
}

export const rateDecisionFromRow = (row: RateRow, limit: number): RateDecision => ({
  allowed: row.allowed,
  limit,
  remaining: row.remaining,
  resetSeconds: row.reset_seconds,
  state: { seconds: row.seconds.map(toSafeInt), counts: [...row.counts] }
})
