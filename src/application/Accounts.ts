/** Accounts and their API keys: create, update, issue and revoke keys, authenticate a key. */
import type { TaxProfile } from "../domain/TaxProfile.js"
import { Clock, DateTime, Duration, Effect, Fiber, Option, Redacted, Scope, Stream } from "effect"
import * as Account from "../domain/Account.js"
import { InvalidRequest, NotFound, StoreUnavailable, Unauthorized } from "../domain/Errors.js"
import * as Customer from "../domain/Customer.js"
import * as Text from "../domain/Text.js"
import { defaultTimeZone, timeZoneProblem } from "../domain/TimeZone.js"
import type { AccountId, ApiKeyId } from "../domain/Ids.js"
import { prefixes } from "../domain/Ids.js"
import { PaymentProcessor } from "../ports/PaymentProcessor.js"
import { Signer } from "../ports/Signer.js"
import { Transactions } from "../ports/Transactions.js"
import { AccountRepository, anyKey } from "../ports/repositories/AccountRepository.js"
import { newId } from "./Ids.js"
import { Settings } from "./Settings.js"

/** Who is calling: an account in one mode, through one key. */
export interface Principal extends Account.Scope {
  readonly keyId: ApiKeyId
}

export interface IssuedKey {
  readonly key_id: ApiKeyId
  readonly account_id: AccountId
  readonly mode: Account.ApiKeyMode
  /** The secret, `Redacted` until the one place that shows it (`revealKey`). */
  readonly secret: Redacted.Redacted<string>
  readonly created_at: string
}

/** An issued key as shown once (the CLI's output, the dashboard's notice): the secret in clear. */
export interface ShownKey extends Omit<IssuedKey, "secret"> {
  readonly secret: string
}

/** The one way a new key's secret is shown, at the moment it is issued; never again (only its hash is kept). */
export const revealKey = (issued: IssuedKey): ShownKey => ({ ...issued, secret: Redacted.value(issued.secret) })

export interface AccountSettings {
  readonly business_name?: string | null | undefined
  readonly support_email?: string | null | undefined
  readonly live_payments_enabled?: boolean | undefined
  /** The merchant as the supplier of its tax documents (already decoded: `TaxProfile`); `null` removes it. */
  readonly tax_profile?: TaxProfile | null | undefined
  readonly two_factor_required?: boolean | undefined
}

/** How often a key's "last used" is recorded, at most, per process. */
const usageEveryMillis = 60_000

const secretBytes = 24 // 32 base64url characters after the prefix

export class Accounts extends Effect.Service<Accounts>()("fils/Accounts", {
  scoped: Effect.gen(function*() {
    const accountRepo = yield* AccountRepository
    const transactions = yield* Transactions
    const signer = yield* Signer
    const processor = yield* PaymentProcessor
    const cacheTtlMillis = Duration.toMillis((yield* Settings).keyCacheTtl)

    // Key lookups are cached briefly. A revocation through any process sharing the store drops the key at once (the
    // store announces it); the TTL only bounds how long a revocation missed meanwhile can go unheard. Misses are
    // never cached, so a new key works immediately.
    const cache = new Map<string, { readonly key: Account.ApiKey; readonly until: number }>()
    // When this process last recorded each key's use.
    const touched = new Map<string, number>()
    // Bumped by every revocation heard: a lookup that was in flight meanwhile may have read the key before it, so
    // its answer is not cached.
    let generation = 0
    const forget = (keyId: ApiKeyId | typeof anyKey) => {
      generation++
      if (keyId === anyKey) cache.clear()
      else for (const [hash, entry] of cache) if (entry.key.key_id === keyId) cache.delete(hash)
    }
    // Listening starts with the first key lookup (a one-shot CLI command never needs it), as a daemon interrupted
    // without waiting when the service goes, so that closing a listening connection can never hold up an exit.
    const scope = yield* Effect.scope
    const listening = yield* Effect.once(
      Effect.flatMap(
        Effect.forkDaemon(Stream.runForEach(accountRepo.keys.revocations, (keyId) => Effect.sync(() => forget(keyId)))),
        (fiber) => Scope.addFinalizer(scope, Fiber.interruptFork(fiber))
      )
    )

    const issueKey = Effect.fn("Accounts.issueKey")(function*(accountId: AccountId, mode: Account.ApiKeyMode) {
      const livemode = mode === "live"
      const secret = Redacted.make(Account.keyPrefix(livemode) + (yield* signer.randomToken(secretBytes)))
      const key: Account.ApiKey = {
        key_id: yield* newId<ApiKeyId>(prefixes.apiKey),
        account_id: accountId,
        livemode,
        hash: yield* signer.hashApiKey(secret),
        last4: Redacted.value(secret).slice(-4),
        created_at: yield* DateTime.now,
        revoked_at: null
      }
      yield* accountRepo.keys.insert(key)
      return {
        key_id: key.key_id,
        account_id: accountId,
        mode,
        secret,
        created_at: DateTime.formatIso(key.created_at)
      } satisfies IssuedKey
    })

    // A name's length in characters, as every other limit counts it (emoji are one each); never NUL or half a pair.
    const nameProblem = (name: string | null | undefined) => {
      if (name === undefined || name === null) return undefined
      const checked = Text.check(name, 1, 200)
      return checked === true ? undefined : `business name ${checked}`
    }

    const validateSettings = (settings: AccountSettings) => {
      const name = nameProblem(settings.business_name)
      return name !== undefined
        ? Effect.fail(new InvalidRequest({ message: name }))
        : settings.support_email != null && !Customer.isEmail(settings.support_email)
        ? Effect.fail(new InvalidRequest({ message: "support email must be an e-mail address" }))
        : Effect.void
    }

    const create = Effect.fn("Accounts.create")(function*(settings: AccountSettings) {
      yield* validateSettings(settings)
      const account: Account.Account = {
        account_id: yield* newId<AccountId>(prefixes.account),
        business_name: settings.business_name ?? null,
        support_email: settings.support_email ?? null,
        live_payments_enabled: settings.live_payments_enabled ?? false,
        tax_profile: settings.tax_profile ?? null,
        time_zone: defaultTimeZone,
        two_factor_required: false,
        created_at: yield* DateTime.now
      }
      return yield* transactions.transact(Effect.gen(function*() {
        yield* accountRepo.insert(account)
        const test = yield* issueKey(account.account_id, "test")
        const live = yield* issueKey(account.account_id, "live")
        return { account, keys: { test, live } }
      }))
    })

    const get = Effect.fn("Accounts.get")(function*(id: AccountId) {
      return yield* accountRepo.get(id).pipe(
        Effect.flatMap(Option.match({
          onNone: () => Effect.fail(new NotFound({ message: `No such account: '${id}'` })),
          onSome: Effect.succeed
        }))
      )
    })

    const update = Effect.fn("Accounts.update")(function*(id: AccountId, settings: AccountSettings) {
      yield* validateSettings(settings)
      return yield* transactions.transact(Effect.gen(function*() {
        // Locked: two updates at once take turns, and the second applies its settings to what the first wrote.
        const account = Option.getOrNull(yield* accountRepo.lock(id)) ??
          (yield* new NotFound({ message: `No such account: '${id}'` }))
        const next: Account.Account = {
          ...account,
          business_name: settings.business_name !== undefined ? settings.business_name : account.business_name,
          support_email: settings.support_email !== undefined ? settings.support_email : account.support_email,
          live_payments_enabled: settings.live_payments_enabled ?? account.live_payments_enabled,
          two_factor_required: settings.two_factor_required ?? account.two_factor_required,
          tax_profile: settings.tax_profile !== undefined ? settings.tax_profile : account.tax_profile
        }
        yield* accountRepo.update(next)
        return next
      }))
    })

    /**
     * Sets the account's time zone: where its dashboard shows times and counts days (the API keeps UTC). Refused
     * when the zone is not one the server knows; its payments' days are counted again in the new zone.
     */
    const setTimeZone = Effect.fn("Accounts.setTimeZone")(function*(id: AccountId, zone: string) {
      const problem = timeZoneProblem(zone)
      if (problem !== undefined) return yield* new InvalidRequest({ message: problem })
      yield* get(id)
      const known = yield* transactions.transact(accountRepo.setTimeZone(id, zone))
      if (!known) {
        return yield* new InvalidRequest({ message: `The database does not know the time zone '${zone}' yet: choose another near it` })
      }
      return yield* get(id)
    })

    const createKey = Effect.fn("Accounts.createKey")(function*(accountId: AccountId, mode: Account.ApiKeyMode) {
      yield* get(accountId)
      return yield* issueKey(accountId, mode)
    })

    const revokeKey = Effect.fn("Accounts.revokeKey")(function*(keyId: ApiKeyId) {
      const revoked = yield* accountRepo.keys.revoke(keyId, yield* DateTime.now)
      if (Option.isNone(revoked)) return yield* new NotFound({ message: `No such key: '${keyId}'` })
      forget(keyId)
      return revoked.value
    })

    const unauthorized = new Unauthorized({ message: "Invalid API key: pass 'Authorization: Bearer sk_test_…'" })

    /**
     * The principal behind a bearer key; `Unauthorized` for a malformed, unknown or revoked key. Untraced: it runs
     * on every request, inside its server span, and is almost always a cache hit, cheaper than a span of its own.
     */
    const authenticate = Effect.fnUntraced(function*(secret: Redacted.Redacted<string>) {
      yield* listening
      if (!Account.isWellFormedKey(secret)) return yield* unauthorized
      const hash = yield* signer.hashApiKey(secret)
      const now = yield* Clock.currentTimeMillis
      const cached = cache.get(hash)
      let key: Account.ApiKey
      if (cached !== undefined && cached.until > now) {
        key = cached.key
      } else {
        const before = generation
        const found = yield* accountRepo.keys.findByHash(hash)
        if (Option.isNone(found)) return yield* unauthorized
        key = found.value
        if (cacheTtlMillis > 0 && generation === before) cache.set(hash, { key, until: now + cacheTtlMillis })
      }
      if (key.revoked_at !== null) return yield* unauthorized
      // "Last used", to the minute: recorded at most once a minute per key by this process, off the request's path
      // (a failed record costs the request nothing).
      if ((touched.get(key.key_id) ?? 0) + usageEveryMillis <= now) {
        touched.set(key.key_id, now)
        if (touched.size > 10_000) touched.clear()
        yield* Effect.forkDaemon(Effect.ignore(accountRepo.keys.touch(key.key_id, DateTime.unsafeMake(now))))
      }
      return { accountId: key.account_id, livemode: key.livemode, keyId: key.key_id } satisfies Principal
    })

    /** `GET /account`: the account as the calling mode sees it. */
    const describe = Effect.fn("Accounts.describe")(function*(scope: Account.Scope) {
      const account = yield* get(scope.accountId)
      // Live payments need the operator's consent and a processor that takes live charges.
      return Account.toResource(account, scope.livemode, account.live_payments_enabled && processor.supportsLive)
    })

    /**
     * On a store with no account, creates the default one and returns it with its keys (printed once by
     * `fils serve`); otherwise nothing.
     */
    const ensureDefault = Effect.fn("Accounts.ensureDefault")(function*() {
      const count = yield* accountRepo.count
      if (count > 0) return Option.none()
      return Option.some(yield* create({ business_name: "Fils Demo Store" }))
    })

    /**
     * A scope's API keys, revoked ones included, newest first (never their secrets: only hashes are kept), each with
     * when it was last used (to the minute; null if never).
     */
    const keys = Effect.fn("Accounts.keys")(function*(scope: Account.Scope) {
      const listed = yield* accountRepo.keys.list(scope)
      const used = new Map((yield* accountRepo.keys.lastUsed(listed.map((k) => k.key_id))).map((u) => [u.key_id, u.last_used_at]))
      return listed.map((k) => ({ ...k, last_used_at: used.get(k.key_id) ?? null }))
    })

    /** Every account of the store, oldest first: how an operator finds an id (the first start's banner shows it once). */
    const list = Effect.fn("Accounts.list")(function*() {
      return yield* accountRepo.list
    })

    return { create, get, list, update, setTimeZone, createKey, revokeKey, keys, authenticate, describe, ensureDefault } as const
  })
}) {}

export type AccountsError = InvalidRequest | NotFound | StoreUnavailable
