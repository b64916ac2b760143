import { assert, describe, it } from "@effect/vitest"
import { DateTime, Effect, Either, Option, Redacted, Schema, TestClock } from "effect"
import { createHash } from "node:crypto"
import { Accounts, revealKey } from "../../src/application/Accounts.js"
import type { ApiKeyId } from "../../src/domain/Ids.js"
import { AccountId, ApiKeyId as ApiKeyIdSchema } from "../../src/domain/Ids.js"
import { Store } from "../../src/ports/Store.js"
import { assertHidden } from "../support/secrets.js"
import { withEngine } from "./harness.js"

const sha256 = (s: string) => createHash("sha256").update(s, "utf8").digest("hex")

const failureTag = <A, E extends { readonly _tag: string }>(e: Either.Either<A, E>) =>
  Either.isLeft(e) ? e.left._tag : "succeeded"

describe("Accounts.create", () => {
  it.effect("returns the account with a test and a live key", () =>
    Effect.gen(function*() {
      yield* TestClock.adjust("90 minutes")
      const accounts = yield* Accounts
      const { account, keys } = yield* accounts.create({ business_name: "Dates & Co", support_email: "help@dates.ae" })
      assert.isTrue(Schema.is(AccountId)(account.account_id))
      assert.strictEqual(account.business_name, "Dates & Co")
      assert.strictEqual(account.support_email, "help@dates.ae")
      assert.isFalse(account.live_payments_enabled)
      assert.match(Redacted.value(keys.test.secret), /^sk_test_[A-Za-z0-9_-]{32}$/)
      assert.match(Redacted.value(keys.live.secret), /^sk_live_[A-Za-z0-9_-]{32}$/)
      assert.strictEqual(keys.test.mode, "test")
      assert.strictEqual(keys.live.mode, "live")
      assert.strictEqual(keys.test.account_id, account.account_id)
      assert.strictEqual(keys.live.account_id, account.account_id)
      assert.isTrue(Schema.is(ApiKeyIdSchema)(keys.test.key_id))
      assert.notStrictEqual(keys.test.key_id, keys.live.key_id)
      assert.notStrictEqual(Redacted.value(keys.test.secret).slice(8), Redacted.value(keys.live.secret).slice(8))
      assert.strictEqual(keys.test.created_at, "1970-01-01T01:30:00.000Z")
      assert.isTrue(DateTime.Equivalence(account.created_at, DateTime.unsafeMake(90 * 60 * 1000)))
    }).pipe(withEngine()))

  it.effect("a new key's secret is Redacted until it is shown: printing the result shows no key; revealKey shows it once", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const created = yield* accounts.create({ business_name: "Dates & Co" })
      const extra = yield* accounts.createKey(created.account.account_id, "test")
      const secrets = [created.keys.test, created.keys.live, extra].map((k) => Redacted.value(k.secret))
      assertHidden(created, secrets, "the created account")
      assertHidden(extra, secrets, "the issued key")
      // The one place the secret is shown: what the CLI and the dashboard render, once.
      const shown = revealKey(extra)
      assert.strictEqual(shown.secret, secrets[2])
      assert.deepStrictEqual({ ...shown, secret: extra.secret }, extra)
      assert.strictEqual((yield* accounts.authenticate(extra.secret)).keyId, extra.key_id)
    }).pipe(withEngine()))

  it.effect("stores keys only as SHA-256 hashes with their last four characters", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const store = yield* Store
      const { keys } = yield* accounts.create({})
      for (const issued of [keys.test, keys.live]) {
        const secret = Redacted.value(issued.secret)
        const stored = Option.getOrThrow(yield* store.apiKeys.get(issued.key_id))
        assert.strictEqual(stored.hash, sha256(secret))
        assert.strictEqual(stored.last4, secret.slice(-4))
        assert.strictEqual(stored.livemode, issued.mode === "live")
        assert.isNull(stored.revoked_at)
        assert.notInclude(JSON.stringify(stored), secret)
        assert.isTrue(Option.isSome(yield* store.apiKeys.findByHash(sha256(secret))))
      }
    }).pipe(withEngine()))

  it.effect("validates the settings", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const store = yield* Store
      assert.strictEqual(failureTag(yield* Effect.either(accounts.create({ business_name: "" }))), "InvalidRequest")
      assert.strictEqual(failureTag(yield* Effect.either(accounts.create({ business_name: "x".repeat(201) }))), "InvalidRequest")
      assert.strictEqual(failureTag(yield* Effect.either(accounts.create({ support_email: "nope" }))), "InvalidRequest")
      // Characters are counted, as every other limit counts them; text that cannot be stored as sent is refused.
      for (const name of ["😀".repeat(201), "Souq\u0000", "Souq \ud800"]) {
        const refused = yield* Effect.flip(accounts.create({ business_name: name }))
        assert.match(refused.message, /^business name must /, JSON.stringify(name))
      }
      assert.strictEqual(yield* store.accounts.count, 0)
      const ok = yield* accounts.create({ business_name: "x".repeat(200), support_email: null })
      assert.strictEqual(ok.account.business_name?.length, 200)
      const emoji = yield* accounts.create({ business_name: "😀".repeat(200) })
      assert.strictEqual(emoji.account.business_name, "😀".repeat(200))
      assert.strictEqual(yield* store.accounts.count, 2)
    }).pipe(withEngine()))
})

describe("Accounts.authenticate", () => {
  it.effect("accepts each key in its own mode", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const { account, keys } = yield* accounts.create({})
      const test = yield* accounts.authenticate(keys.test.secret)
      const live = yield* accounts.authenticate(keys.live.secret)
      assert.deepStrictEqual(test, { accountId: account.account_id, livemode: false, keyId: keys.test.key_id })
      assert.deepStrictEqual(live, { accountId: account.account_id, livemode: true, keyId: keys.live.key_id })
      // Twice in a row (the second from the cache) gives the same principal.
      assert.deepStrictEqual(yield* accounts.authenticate(keys.test.secret), test)
    }).pipe(withEngine()))

  it.effect("keys of two accounts authenticate to their own account", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const a = yield* accounts.create({})
      const b = yield* accounts.create({})
      assert.notStrictEqual(a.account.account_id, b.account.account_id)
      assert.strictEqual((yield* accounts.authenticate(a.keys.live.secret)).accountId, a.account.account_id)
      assert.strictEqual((yield* accounts.authenticate(b.keys.live.secret)).accountId, b.account.account_id)
    }).pipe(withEngine()))

  it.effect("refuses malformed and unknown keys with Unauthorized", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const { keys } = yield* accounts.create({})
      const secret = Redacted.value(keys.test.secret)
      const swapped = secret.replace("sk_test_", "sk_live_")
      const candidates = [
        "",
        "sk_test_",
        "sk_test_short",
        `Bearer ${secret}`,
        ` ${secret}`,
        `${secret} `,
        `${secret}!`,
        secret.replace("sk_test_", "pk_test_"),
        secret.replace("sk_test_", "sk_prod_"),
        secret.toUpperCase(),
        secret.slice(0, -1),
        swapped,
        `sk_test_${"A".repeat(32)}`,
        `sk_live_${"x".repeat(129)}`
      ]
      for (const candidate of candidates) {
        const result = yield* Effect.either(accounts.authenticate(Redacted.make(candidate)))
        assert.strictEqual(failureTag(result), "Unauthorized", `'${candidate}'`)
        if (Either.isLeft(result)) assert.strictEqual(result.left.code, "UNAUTHORIZED")
      }
    }).pipe(withEngine()))

  it.effect("a revoked key is refused at once; the other key keeps working", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const { keys } = yield* accounts.create({})
      yield* accounts.authenticate(keys.test.secret) // now cached
      const revoked = yield* accounts.revokeKey(keys.test.key_id)
      assert.isNotNull(revoked.revoked_at)
      assert.strictEqual(failureTag(yield* Effect.either(accounts.authenticate(keys.test.secret))), "Unauthorized")
      assert.isTrue((yield* accounts.authenticate(keys.live.secret)).livemode)
      // Revoking twice keeps the first revocation.
      yield* TestClock.adjust("1 hour")
      const again = yield* accounts.revokeKey(keys.test.key_id)
      assert.isTrue(again.revoked_at !== null && revoked.revoked_at !== null &&
        DateTime.Equivalence(again.revoked_at, revoked.revoked_at))
    }).pipe(withEngine()))

  it.effect("a key revoked by another process (straight in the store) is refused once the cache TTL passes", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const store = yield* Store
      const { keys } = yield* accounts.create({})
      yield* accounts.authenticate(keys.test.secret)
      yield* store.apiKeys.revoke(keys.test.key_id, yield* DateTime.now)
      yield* TestClock.adjust("3 seconds")
      assert.strictEqual(failureTag(yield* Effect.either(accounts.authenticate(keys.test.secret))), "succeeded")
      yield* TestClock.adjust("3 seconds")
      assert.strictEqual(failureTag(yield* Effect.either(accounts.authenticate(keys.test.secret))), "Unauthorized")
    }).pipe(withEngine([["FILS_KEY_CACHE_TTL", "5 seconds"]])))

  it.effect("revokeKey of an unknown key is NotFound", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const result = yield* Effect.either(accounts.revokeKey(`key_${"0".repeat(32)}` as ApiKeyId))
      assert.strictEqual(failureTag(result), "NotFound")
    }).pipe(withEngine()))

  it.effect("createKey issues a further working key; unknown account is NotFound", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const { account } = yield* accounts.create({})
      const extra = yield* accounts.createKey(account.account_id, "live")
      assert.match(Redacted.value(extra.secret), /^sk_live_[A-Za-z0-9_-]{32}$/)
      const principal = yield* accounts.authenticate(extra.secret)
      assert.deepStrictEqual(principal, { accountId: account.account_id, livemode: true, keyId: extra.key_id })
      const missing = yield* Effect.either(
        accounts.createKey(`acct_${"0".repeat(32)}` as typeof account.account_id, "test")
      )
      assert.strictEqual(failureTag(missing), "NotFound")
    }).pipe(withEngine()))
})

describe("Accounts.describe and update", () => {
  it.effect("test mode takes payments; live only once enabled with a processor that takes live charges", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const { account } = yield* accounts.create({ business_name: "Shop" })
      const test = yield* accounts.describe({ accountId: account.account_id, livemode: false })
      const live = yield* accounts.describe({ accountId: account.account_id, livemode: true })
      assert.deepStrictEqual(test, {
        object: "account",
        account_id: account.account_id,
        business_name: "Shop",
        support_email: null,
        livemode: false,
        payments_enabled: true,
        currencies: ["AED"],
        tax_profile: null
      })
      assert.isFalse(live.payments_enabled)
      assert.isTrue(live.livemode)
      yield* accounts.update(account.account_id, { live_payments_enabled: true, support_email: "a@b.co" })
      const after = yield* accounts.describe({ accountId: account.account_id, livemode: true })
      assert.isTrue(after.payments_enabled)
      assert.strictEqual(after.support_email, "a@b.co")
      assert.strictEqual(after.business_name, "Shop")
      const cleared = yield* accounts.update(account.account_id, { business_name: null })
      assert.isNull(cleared.business_name)
      assert.strictEqual(failureTag(yield* Effect.either(accounts.update(account.account_id, { support_email: "x" }))), "InvalidRequest")
    }).pipe(withEngine([["FILS_SIMULATED_LIVE", "true"]])))

  it.effect("live payments stay off without a processor that takes live charges, even when enabled", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const { account } = yield* accounts.create({ business_name: "Shop", live_payments_enabled: true })
      const live = yield* accounts.describe({ accountId: account.account_id, livemode: true })
      assert.isFalse(live.payments_enabled)
      const test = yield* accounts.describe({ accountId: account.account_id, livemode: false })
      assert.isTrue(test.payments_enabled)
    }).pipe(withEngine()))
})

describe("Accounts.ensureDefault", () => {
  it.effect("creates the default account exactly once", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const store = yield* Store
      const first = yield* accounts.ensureDefault()
      assert.isTrue(Option.isSome(first))
      const created = Option.getOrThrow(first)
      assert.strictEqual(created.account.business_name, "Fils Demo Store")
      assert.strictEqual((yield* accounts.authenticate(created.keys.test.secret)).accountId, created.account.account_id)
      assert.isTrue(Option.isNone(yield* accounts.ensureDefault()))
      assert.isTrue(Option.isNone(yield* accounts.ensureDefault()))
      assert.strictEqual(yield* store.accounts.count, 1)
    }).pipe(withEngine()))

  it.effect("creates nothing when an account exists", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const store = yield* Store
      yield* accounts.create({})
      assert.isTrue(Option.isNone(yield* accounts.ensureDefault()))
      assert.strictEqual(yield* store.accounts.count, 1)
    }).pipe(withEngine()))

  it.effect("concurrent calls still create one account (memory store)", () =>
    Effect.gen(function*() {
      const accounts = yield* Accounts
      const store = yield* Store
      const results = yield* Effect.all(Array.from({ length: 5 }, () => accounts.ensureDefault()), {
        concurrency: "unbounded"
      })
      assert.strictEqual(results.filter(Option.isSome).length, 1)
      assert.strictEqual(yield* store.accounts.count, 1)
    }).pipe(withEngine()))
})
