/** The merchant account and its API keys. */
import { Redacted, Schema } from "effect"
import { AccountId, ApiKeyId } from "./Ids.js"
import { Currency, supportedCurrencies } from "./Money.js"
import { TaxProfile } from "./TaxProfile.js"

/** What a request acts as: one account in one mode. Every stored object belongs to exactly one scope. */
export interface Scope {
  readonly accountId: AccountId
  readonly livemode: boolean
}

export const scopeKey = (scope: Scope): string => `${scope.accountId}:${scope.livemode ? "live" : "test"}`

/** Whether a stored row (of any kind) belongs to the scope: its account, in its mode. */
export const inScope = (row: { readonly account_id: string; readonly livemode: boolean }, scope: Scope): boolean =>
  row.account_id === scope.accountId && row.livemode === scope.livemode

/** The operator (the CLI on the server's machine): acts on any account, in either mode. */
export interface OperatorScope {
  readonly _tag: "Operator"
}
export const operator: OperatorScope = { _tag: "Operator" }

/** Who a use case acts for: a scope (an API key, a dashboard user), or the operator. */
export type Authority = Scope | OperatorScope

/** Whether `authority` may see a stored row: the operator sees every row, a scope its own. */
export const sees = (authority: Authority, row: { readonly account_id: string; readonly livemode: boolean }): boolean =>
  "_tag" in authority || inScope(row, authority)

/** The stored account (not a resource: `GET /account` shows it per mode through `toResource`). */
export const Account = Schema.Struct({
  account_id: AccountId,
  business_name: Schema.NullOr(Schema.String),
  support_email: Schema.NullOr(Schema.String),
  /** The operator turned live payments on (a live processor, or the simulated one for staging). */
  live_payments_enabled: Schema.Boolean,
  /** The merchant as the supplier of its tax documents; none: no VAT, no documents (docs/tax-documents.md). */
  tax_profile: Schema.NullOr(TaxProfile),
  /** Where the dashboard shows times and counts days: an IANA zone (`TimeZone.ts`); the API stays UTC. */
  time_zone: Schema.String,
  /** Every dashboard user of the account must sign in with two factors (an owner's choice). */
  two_factor_required: Schema.Boolean,
  created_at: Schema.DateTimeUtcFromSelf
})
export type Account = typeof Account.Type

/** `GET /account`: the account as the key's mode sees it (docs/api.md "Endpoints"). */
export const AccountResource = Schema.Struct({
  object: Schema.Literal("account"),
  account_id: AccountId,
  business_name: Schema.NullOr(Schema.String),
  support_email: Schema.NullOr(Schema.String),
  livemode: Schema.Boolean,
  payments_enabled: Schema.Boolean,
  currencies: Schema.Array(Currency),
  tax_profile: Schema.NullOr(TaxProfile)
}).annotations({ identifier: "Account" })
export type AccountResource = typeof AccountResource.Type

/**
 * How the merchant's prices meet VAT: none for a merchant that charges none (no profile, or not registered), else
 * whether its prices include it (docs/tax-documents.md).
 */
export const vatPricing = (account: Account): { readonly pricesIncludeVat: boolean } | null =>
  account.tax_profile === null || !account.tax_profile.vat_registered
    ? null
    : { pricesIncludeVat: account.tax_profile.prices_include_vat }

/** Test mode always takes payments (the simulated processor); live mode only when `livePayments` says so. */
export const toResource = (account: Account, livemode: boolean, livePayments: boolean): AccountResource => ({
  object: "account",
  account_id: account.account_id,
  business_name: account.business_name,
  support_email: account.support_email,
  livemode,
  payments_enabled: livemode ? livePayments : true,
  currencies: supportedCurrencies,
  tax_profile: account.tax_profile
})

export const ApiKeyMode = Schema.Literal("test", "live")
export type ApiKeyMode = typeof ApiKeyMode.Type

export const ApiKey = Schema.Struct({
  key_id: ApiKeyId,
  account_id: AccountId,
  livemode: Schema.Boolean,
  /** SHA-256 of the secret, hex. The secret itself is never stored. */
  hash: Schema.String,
  /** The last four characters, to tell keys apart in listings. */
  last4: Schema.String,
  created_at: Schema.DateTimeUtcFromSelf,
  revoked_at: Schema.NullOr(Schema.DateTimeUtcFromSelf)
})
export type ApiKey = typeof ApiKey.Type

export const keyPrefix = (livemode: boolean) => (livemode ? "sk_live_" : "sk_test_")

/** A key is `sk_test_` or `sk_live_` followed by 24 to 128 URL-safe characters. */
const keyShape = /^sk_(test|live)_[A-Za-z0-9_-]{24,128}$/
export const isWellFormedKey = (key: Redacted.Redacted<string>): boolean => keyShape.test(Redacted.value(key))
