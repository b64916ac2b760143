/**
 * Accounts and their API keys.
 *
 * One repository of the Store port (`../Store.ts`), a Tag of its own, so that a use case depends on the aggregates it
 * uses and nothing else.
 */
import type { DateTime, Option, Stream } from "effect"
import { Context } from "effect"
import type { Account, ApiKey, Scope } from "../../domain/Account.js"
import type { AccountId, ApiKeyId } from "../../domain/Ids.js"
import type { Op } from "./Op.js"

export interface AccountsRepo {
  readonly insert: (account: Account) => Op<void>
  readonly get: (id: AccountId) => Op<Option.Option<Account>>
  /** `get` for several, in one statement: those that exist (a batch of checkouts reading their merchants). */
  readonly findAll: (ids: ReadonlyArray<AccountId>) => Op<ReadonlyArray<Account>>
  /** `get`, locking the row until the transaction ends (inside `transact`): an update reads with it. */
  readonly lock: (id: AccountId) => Op<Option.Option<Account>>
  readonly update: (account: Account) => Op<void>
  /**
   * Sets the account's time zone (inside `transact`) and counts its payments' days again in it (the day totals of
   * `PaymentsRepo.summary`); false, and nothing changed, when the store does not know the zone.
   */
  readonly setTimeZone: (id: AccountId, zone: string) => Op<boolean>
  readonly count: Op<number>
  /** Every account, oldest first (the operator's `fils accounts list`). */
  readonly list: Op<ReadonlyArray<Account>>
}

export interface ApiKeysRepo {
  readonly insert: (key: ApiKey) => Op<void>
  readonly findByHash: (hash: string) => Op<Option.Option<ApiKey>>
  readonly get: (id: ApiKeyId) => Op<Option.Option<ApiKey>>
  /** A scope's keys, revoked ones included, newest first. */
  readonly list: (scope: Scope) => Op<ReadonlyArray<ApiKey>>
  /** Records that a key was used at `at` (kept only if later than what is recorded). */
  readonly touch: (id: ApiKeyId, at: DateTime.Utc) => Op<void>
  /** When each of `ids` was last used, for those used at all. */
  readonly lastUsed: (ids: ReadonlyArray<ApiKeyId>) => Op<ReadonlyArray<{ readonly key_id: ApiKeyId; readonly last_used_at: DateTime.Utc }>>
  /** Sets `revoked_at` once; returns the key as it is afterwards. Every process sharing the store hears of it. */
  readonly revoke: (id: ApiKeyId, at: DateTime.Utc) => Op<Option.Option<ApiKey>>
  /**
   * The keys revoked through any process sharing this store, as they are revoked, so that a cache of key lookups can
   * drop them at once; `anyKey` when some may have been missed (the stream started or reconnected), to drop all.
   */
  readonly revocations: Stream.Stream<ApiKeyId | typeof anyKey>
}

/** In `ApiKeysRepo.revocations`: any key may have been revoked unheard. */
export const anyKey = "*" as const

/** Accounts and their API keys. */
export type AccountRepositoryShape = AccountsRepo & { readonly keys: ApiKeysRepo }

export class AccountRepository extends Context.Tag("fils/AccountRepository")<AccountRepository, AccountRepositoryShape>() {}
