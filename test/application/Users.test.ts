/**
 * Dashboard users and the home page's figures, over the memory store: sign-in links (once, 24 hours),
 * passwords, one error for every failed sign-in, sessions' idle and absolute timeouts, signing out everywhere, the
 * role table, and the overview's sums and monthly recurring revenue.
 */
import { assert, describe, it } from "@effect/vitest"
import { Chunk, DateTime, Duration, Effect, Fiber, Option, Redacted, TestClock } from "effect"
import { randomBytes, scryptSync } from "node:crypto"
import { Accounts } from "../../src/application/Accounts.js"
import { Reports } from "../../src/application/Reports.js"
import { onClockTime } from "../../src/application/Time.js"
import { ceilingDelay, failureLimits, Users } from "../../src/application/Users.js"
import * as User from "../../src/domain/DashboardUser.js"
import * as TwoFactor from "../../src/domain/TwoFactor.js"
import { Signer } from "../../src/ports/Signer.js"
import { Store } from "../../src/ports/Store.js"
import { cards, formWith, makeProduct, makeSession, pay } from "../support/checkout.js"
import { assertHidden } from "../support/secrets.js"
import { lightKdf, newAccount, withEngine } from "./harness.js"

const password = Redacted.make("a long enough password")

/** Turns two-factor sign-in on for `signed`: its codes at a step offset from now, and the recovery codes. */
const enrol = (signed: Parameters<Users["startEnrolment"]>[0]) =>
  Effect.gen(function*() {
    const users = yield* Users
    const signer = yield* Signer
    const enrolling = yield* users.startEnrolment(signed, password, "10.9.0.1")
    const codeAt = (offsetSteps = 0) =>
      Effect.flatMap(DateTime.now, (now) => signer.totpCode(enrolling.secret, TwoFactor.stepAt(DateTime.toEpochMillis(now)) + offsetSteps))
    const recovery = (yield* users.confirmEnrolment(signed, yield* codeAt())).map(Redacted.value)
    return { codeAt, recovery }
  })

/**
 * The two tests of the stored hash itself run the product's signer, with OWASP's parameters (a few hundred ms and 128
 * MiB per hash); the tests that hash dozens of times use `lightKdf`, the same scrypt at a smaller cost.
 */
describe("Users", { timeout: 60_000 }, () => {
  it.effect("a sign-in link sets the password once, within 24 hours; the password is stored only as a KDF hash", () =>
    Effect.gen(function*() {
      const users = yield* Users
      const { account } = yield* newAccount
      const { token, user } = yield* users.create(account.account_id, "amal@dune.ae", "admin")
      assert.isTrue(Option.isSome(yield* users.linkUser(token)))
      const short = yield* Effect.flip(users.redeem(token, Redacted.make("too short")))
      assert.strictEqual(short._tag, "InvalidRequest")
      const done = yield* users.redeem(token, password)
      // OWASP's password storage cheat sheet: scrypt N = 2^17, r = 8, p = 1.
      assert.match(done.user.password_hash ?? "", /^scrypt\$131072\$8\$1\$/)
      assert.notInclude(done.user.password_hash ?? "", Redacted.value(password))
      assert.strictEqual((yield* Effect.flip(users.redeem(token, password)))._tag, "Unauthorized", "once")
      const { token: late } = yield* users.issueLink(user)
      yield* TestClock.adjust("24 hours")
      assert.isTrue(Option.isNone(yield* users.linkUser(late)), "24 hours at most")
      assert.strictEqual((yield* Effect.flip(users.create(account.account_id, "AMAL@dune.ae", "viewer")))._tag, "InvalidState")
      assert.strictEqual((yield* Effect.flip(users.create(account.account_id, "not an address", "viewer")))._tag, "InvalidRequest")
      // Padded, it is refused as typed, not trimmed into an address.
      const padded = yield* Effect.flip(users.create(account.account_id, " bob@dune.ae ", "viewer"))
      assert.deepStrictEqual([padded._tag, padded.message], ["InvalidRequest", "' bob@dune.ae ' has spaces before or after it: remove them"])
      assert.deepStrictEqual((yield* users.team(account.account_id)).map((u) => u.email), ["amal@dune.ae"])
    }).pipe(withEngine()))

  it.effect("link tokens, session tokens and passwords are Redacted: printing an invitation, a sign-in or its failure shows none", () =>
    Effect.gen(function*() {
      const users = yield* Users
      const { account } = yield* newAccount
      const invited = yield* users.create(account.account_id, "noor@dune.ae", "owner")
      const link = Redacted.value(invited.token)
      assertHidden(invited, [link], "the invitation")
      const done = yield* users.redeem(invited.token, password)
      const signedIn = yield* users.signIn("noor@dune.ae", password, "10.0.0.1")
      const secrets = [link, Redacted.value(password), Redacted.value(done.token), Redacted.value(signedIn.token)]
      assertHidden(done, secrets, "the redeemed link")
      assertHidden(signedIn, secrets, "the sign-in")
      const wrong = Redacted.make("the wrong password, typed")
      assertHidden(yield* Effect.flip(users.signIn("noor@dune.ae", wrong, "10.0.0.1")), ["the wrong password"], "the refusal")
      const again = yield* users.signInLink("noor@dune.ae")
      assertHidden(again, [...secrets, Redacted.value(again.token)], "a new link")
      // Each still does its work: the cookie's secret names the session.
      assert.strictEqual(Option.getOrThrow(yield* users.authenticate(signedIn.token)).user.email, "noor@dune.ae")
    }).pipe(withEngine([], lightKdf)))

  it.effect("an e-mail of another account's user is invited as a fresh one (pending); it is refused only when its link is used", () =>
    Effect.gen(function*() {
      const users = yield* Users
      const first = (yield* newAccount).account
      const second = (yield* newAccount).account
      yield* users.redeem((yield* users.create(first.account_id, "amal@dune.ae", "owner")).token, password)
      const taken = yield* users.create(second.account_id, "AMAL@dune.ae", "viewer")
      const fresh = yield* users.create(second.account_id, "noor@dune.ae", "viewer")
      assert.deepStrictEqual(
        (yield* users.team(second.account_id)).map((u) => [u.email, u.password_hash]),
        [["AMAL@dune.ae", null], ["noor@dune.ae", null]]
      )
      const refused = yield* Effect.flip(users.redeem(taken.token, password))
      assert.strictEqual(refused._tag, "InvalidState")
      assert.isTrue(Option.isSome(yield* users.linkUser(taken.token)), "a refused acceptance leaves the link as it was")
      assert.strictEqual((yield* users.signIn("amal@dune.ae", password, "10.0.0.1")).user.account_id, first.account_id)
      assert.strictEqual((yield* users.redeem(fresh.token, password)).user.account_id, second.account_id)
      assert.strictEqual((yield* Effect.flip(users.create(second.account_id, "Noor@dune.ae", "viewer")))._tag, "InvalidState", "once per account")
    }).pipe(withEngine([], lightKdf)))

  it.effect("invitations of one e-mail in three accounts accepted at once: one signs in, the others are refused and their links stay unused", () =>
    Effect.gen(function*() {
      const users = yield* Users
      const invites = yield* Effect.forEach([1, 2, 3], () =>
        Effect.flatMap(newAccount, ({ account }) => users.create(account.account_id, "hala@dune.ae", "viewer")))
      const results = yield* Effect.forEach(invites, (invite) => Effect.either(users.redeem(invite.token, password)), {
        concurrency: "unbounded"
      })
      assert.strictEqual(results.filter((r) => r._tag === "Right").length, 1)
      for (const [i, result] of results.entries()) {
        if (result._tag === "Right") continue
        assert.strictEqual(result.left._tag, "InvalidState")
        assert.isTrue(Option.isSome(yield* users.linkUser(invites[i]!.token)), "the refused link as it was")
      }
    }).pipe(withEngine([], lightKdf)))

  it.effect("a password of blanks only is refused, however long; spaces inside a password are kept", () =>
    Effect.gen(function*() {
      const users = yield* Users
      const { account } = yield* newAccount
      const { token } = yield* users.create(account.account_id, "blank@dune.ae", "viewer")
      for (const blank of [" ".repeat(12), "\t".repeat(20), "\u3000".repeat(12), " \n ".repeat(10)]) {
        const refused = yield* Effect.flip(users.redeem(token, Redacted.make(blank)))
        assert.strictEqual(refused._tag, "InvalidRequest", JSON.stringify(blank))
        assert.include(refused.message, "blank")
      }
      assert.isTrue(Option.isSome(yield* users.linkUser(token)), "a refused password leaves the link unused")
      yield* users.redeem(token, Redacted.make("  spaced out words  "))
      assert.strictEqual((yield* users.signIn("blank@dune.ae", Redacted.make("  spaced out words  "), "10.0.0.1")).user.email, "blank@dune.ae")
    }).pipe(withEngine([], lightKdf)))

  it.effect("a hash made with older scrypt parameters still verifies, and is made again with today's at that sign-in", () =>
    Effect.gen(function*() {
      const users = yield* Users
      const store = yield* Store
      const { account } = yield* newAccount
      const { token, user } = yield* users.create(account.account_id, "old@dune.ae", "owner")
      yield* users.redeem(token, password)
      // As stored before: N = 2^15.
      const salt = randomBytes(16)
      const key = scryptSync(Redacted.value(password).normalize("NFC"), salt, 32, { N: 32_768, r: 8, p: 1, maxmem: 64 * 1024 * 1024 })
      const old = `scrypt$32768$8$1$${salt.toString("base64url")}$${key.toString("base64url")}`
      yield* store.dashboard.updateUser({ ...Option.getOrThrow(yield* store.dashboard.getUser(user.user_id)), password_hash: old })
      assert.strictEqual((yield* Effect.flip(users.signIn("old@dune.ae", Redacted.make("not the password"), "10.0.0.1")))._tag, "Unauthorized")
      assert.strictEqual(Option.getOrThrow(yield* store.dashboard.getUser(user.user_id)).password_hash, old, "a failed sign-in changes nothing")
      yield* users.signIn("old@dune.ae", password, "10.0.0.1")
      const rehashed = Option.getOrThrow(yield* store.dashboard.getUser(user.user_id)).password_hash ?? ""
      assert.match(rehashed, /^scrypt\$131072\$8\$1\$/)
      assert.notStrictEqual(rehashed, old)
      yield* users.signIn("old@dune.ae", password, "10.0.0.1")
      assert.strictEqual(Option.getOrThrow(yield* store.dashboard.getUser(user.user_id)).password_hash, rehashed, "once")
    }).pipe(withEngine()))

  it.effect("sign-in throttling: only failures count, per e-mail and address, so nobody else's guesses lock a user out", () =>
    Effect.gen(function*() {
      const users = yield* Users
      const { account } = yield* newAccount
      const { token } = yield* users.create(account.account_id, "omar@dune.ae", "owner")
      yield* users.redeem(token, password)
      // Successes never count.
      for (let i = 0; i < 2; i++) yield* users.signIn("omar@dune.ae", password, "10.0.0.1")
      // Ten wrong passwords a minute from one address (a stranger, or a typo-prone owner): the eleventh is refused
      // there without being tried.
      for (let i = 0; i < 10; i++) {
        assert.strictEqual((yield* Effect.flip(users.signIn("omar@dune.ae", Redacted.make(`wrong password ${i}`), "10.0.0.1")))._tag, "Unauthorized", `try ${i}`)
      }
      const refused = yield* Effect.flip(users.signIn("omar@dune.ae", password, "10.0.0.1"))
      assert.strictEqual(refused._tag, "RateLimited")
      assert.isAbove((refused as { readonly retryAfterSeconds: number }).retryAfterSeconds, 0)
      // The same e-mail from another address is not locked out.
      assert.strictEqual((yield* users.signIn("OMAR@dune.ae", password, "192.0.2.7")).user.email, "omar@dune.ae")
      yield* TestClock.adjust("61 seconds")
      assert.strictEqual((yield* users.signIn("omar@dune.ae", password, "10.0.0.1")).user.email, "omar@dune.ae")
    }).pipe(withEngine([], lightKdf)))

  it.effect("past an e-mail's hourly ceiling of failures, from any addresses, its sign-ins wait but are never refused", () =>
    Effect.gen(function*() {
      const users = yield* Users
      const store = yield* Store
      const { account } = yield* newAccount
      const { token } = yield* users.create(account.account_id, "huda@dune.ae", "owner")
      yield* users.redeem(token, password)
      // A hundred failures this hour, spread over many addresses (none reaching its own limit).
      const ceiling = failureLimits.find((rule) => rule.over === "delay")!
      const now = DateTime.toEpochMillis(yield* DateTime.now)
      yield* store.rateLimits.hit(ceiling.bucket("huda@dune.ae"), now, ceiling.limit, ceiling.windowSeconds, ceiling.limit)
      const signing = yield* Effect.fork(users.signIn("huda@dune.ae", password, "198.51.100.1"))
      while (Chunk.isEmpty(yield* TestClock.sleeps())) yield* Effect.yieldNow()
      yield* TestClock.adjust(Duration.subtract(ceilingDelay, "1 millis"))
      assert.isTrue(Option.isNone(yield* Fiber.poll(signing)), "it waits")
      yield* TestClock.adjust("1 millis")
      assert.strictEqual((yield* Fiber.join(signing)).user.email, "huda@dune.ae")
    }).pipe(withEngine([], lightKdf)))

  it.effect("a new sign-in link by e-mail: the old password works until the new one is set; once; 24 hours", () =>
    Effect.gen(function*() {
      const users = yield* Users
      const { account } = yield* newAccount
      const first = yield* users.create(account.account_id, "rana@dune.ae", "owner")
      yield* users.redeem(first.token, password)
      const other = yield* users.signIn("rana@dune.ae", password, "10.1.0.1")
      const again = yield* users.signInLink(" RANA@dune.ae ")
      assert.strictEqual(again.user.user_id, first.user.user_id)
      assert.notStrictEqual(Redacted.value(again.token), Redacted.value(first.token))
      // Issuing a link changes nothing yet: the old password still signs in.
      yield* users.signIn("rana@dune.ae", password, "10.1.0.2")
      const renewed = Redacted.make("a brand new password")
      yield* users.redeem(again.token, renewed)
      assert.strictEqual((yield* Effect.flip(users.signIn("rana@dune.ae", password, "10.1.0.3")))._tag, "Unauthorized")
      yield* users.signIn("rana@dune.ae", renewed, "10.1.0.4")
      assert.isTrue(Option.isNone(yield* users.authenticate(other.token)), "the new password ends older sessions")
      assert.strictEqual((yield* Effect.flip(users.redeem(again.token, Redacted.make("yet another password"))))._tag, "Unauthorized", "once")
      const late = yield* users.signInLink("rana@dune.ae")
      yield* TestClock.adjust("24 hours")
      assert.strictEqual((yield* Effect.flip(users.redeem(late.token, Redacted.make("yet another password"))))._tag, "Unauthorized", "24 hours")
      assert.strictEqual((yield* Effect.flip(users.signInLink("nobody@dune.ae")))._tag, "NotFound")
      // An invitation never accepted (the lost first link): found on its account only.
      const pending = yield* users.create(account.account_id, "lina@dune.ae", "owner")
      assert.strictEqual((yield* Effect.flip(users.signInLink("lina@dune.ae")))._tag, "NotFound")
      const renewedInvite = yield* users.signInLink("Lina@dune.ae", account.account_id)
      assert.strictEqual(renewedInvite.user.user_id, pending.user.user_id)
      yield* users.redeem(renewedInvite.token, renewed)
      yield* users.signIn("lina@dune.ae", renewed, "10.1.0.5")
    }).pipe(withEngine([], lightKdf)))

  it.effect("sign-in: one error for an unknown e-mail, a wrong password and a user without a password", () =>
    Effect.gen(function*() {
      const users = yield* Users
      const { account } = yield* newAccount
      const { token } = yield* users.create(account.account_id, "omar@dune.ae", "owner")
      const pending = yield* users.create(account.account_id, "noor@dune.ae", "viewer")
      yield* users.redeem(token, password)
      const failures = [
        yield* Effect.flip(users.signIn("omar@dune.ae", Redacted.make("wrong password here"), "10.0.0.1")),
        yield* Effect.flip(users.signIn("nobody@dune.ae", password, "10.0.0.2")),
        yield* Effect.flip(users.signIn(pending.user.email, password, "10.0.0.3"))
      ]
      assert.deepStrictEqual(new Set(failures.map((f) => `${f._tag}: ${f.message}`)).size, 1)
      const signed = yield* users.signIn("OMAR@dune.ae", password, "10.0.0.4")
      assert.strictEqual(signed.user.email, "omar@dune.ae")
    }).pipe(withEngine([], lightKdf)))

  it.effect("sessions end after 12 idle hours or 7 days in all; signing out everywhere ends every one", () =>
    Effect.gen(function*() {
      const users = yield* Users
      const { account } = yield* newAccount
      const { token } = yield* users.create(account.account_id, "sara@dune.ae", "owner")
      const first = yield* users.redeem(token, password)
      yield* TestClock.adjust("11 hours")
      assert.isTrue(Option.isSome(yield* users.authenticate(first.token)), "used within 12 hours")
      yield* TestClock.adjust("11 hours")
      assert.isTrue(Option.isSome(yield* users.authenticate(first.token)), "the idle clock restarted")
      yield* TestClock.adjust("12 hours")
      assert.isTrue(Option.isNone(yield* users.authenticate(first.token)), "idle 12 hours")

      const second = yield* users.signIn("sara@dune.ae", password, "10.0.0.5")
      for (let i = 0; i < 15; i++) { // 165 hours: inside 7 days, never 12 hours idle
        yield* TestClock.adjust("11 hours")
        assert.isTrue(Option.isSome(yield* users.authenticate(second.token)), `after ${(i + 1) * 11} hours`)
      }
      yield* TestClock.adjust("4 hours")
      assert.isTrue(Option.isNone(yield* users.authenticate(second.token)), "7 days at most")

      const a = yield* users.signIn("sara@dune.ae", password, "10.0.0.5")
      const b = yield* users.signIn("sara@dune.ae", password, "10.0.0.6")
      const signed = Option.getOrThrow(yield* users.authenticate(a.token))
      yield* users.signOutEverywhere(signed)
      assert.isTrue(Option.isNone(yield* users.authenticate(a.token)))
      assert.isTrue(Option.isNone(yield* users.authenticate(b.token)))
      assert.isTrue(Option.isNone(yield* users.authenticate(Redacted.make("garbage"))))
    }).pipe(withEngine([], lightKdf)))

  it.effect("settings: the password changes with the current one (others signed out); the e-mail with the password, unique; sessions listed and signed out one by one", () =>
    Effect.gen(function*() {
      const users = yield* Users
      const { account } = yield* newAccount
      const { token } = yield* users.create(account.account_id, "huda@dune.ae", "admin")
      const here = yield* users.redeem(token, password)
      yield* TestClock.adjust("1 minute")
      const there = yield* users.signIn("huda@dune.ae", password, "10.2.0.2")
      const signed = Option.getOrThrow(yield* users.authenticate(here.token))
      const refusal = (effect: Effect.Effect<unknown, { readonly _tag: string; readonly message: string }>) =>
        Effect.map(Effect.flip(effect), (e) => `${e._tag}: ${e.message}`)

      // Sessions: both listed, newest first, this one marked; the list never shows a cookie's secret or its digest.
      const listed = yield* users.sessions(signed)
      assert.deepStrictEqual(listed.map((s) => s.current), [false, true])
      assertHidden(listed, [Redacted.value(here.token), Redacted.value(there.token), here.session.token_hash, there.session.token_hash], "the sessions")
      assert.strictEqual(yield* refusal(users.signOutSession(signed, "not-a-session")), "NotFound: That session has already ended")
      assert.deepStrictEqual(yield* users.signOutSession(signed, listed[0]!.handle), { current: false })
      assert.isTrue(Option.isNone(yield* users.authenticate(there.token)))
      assert.deepStrictEqual((yield* users.sessions(signed)).map((s) => s.current), [true])

      // The password: the current one asked for (a wrong one counts as a failed sign-in); others signed out.
      const next = Redacted.make("another long password")
      const other = yield* users.signIn("huda@dune.ae", password, "10.2.0.3")
      assert.strictEqual(yield* refusal(users.changePassword(signed, Redacted.make("not my password"), next, "10.2.0.1")), "Unauthorized: That is not your current password")
      assert.strictEqual(yield* refusal(users.changePassword(signed, password, Redacted.make("short"), "10.2.0.1")), "InvalidRequest: The password must be at least 12 characters")
      assert.isTrue(Option.isSome(yield* users.authenticate(other.token)), "a refused change changes nothing")
      yield* users.changePassword(signed, password, next, "10.2.0.1")
      assert.isTrue(Option.isNone(yield* users.authenticate(other.token)), "other sessions end")
      assert.isTrue(Option.isSome(yield* users.authenticate(here.token)), "this one stays")
      assert.strictEqual((yield* Effect.flip(users.signIn("huda@dune.ae", password, "10.2.0.4")))._tag, "Unauthorized")

      // The e-mail: the password asked for; one on the team or signing in elsewhere refused; refused as typed.
      const { token: teammate } = yield* users.create(account.account_id, "rami@dune.ae", "viewer")
      const { account: elsewhere } = yield* newAccount
      yield* users.redeem((yield* users.create(elsewhere.account_id, "zaid@dune.ae", "owner")).token, password)
      assert.strictEqual(yield* refusal(users.changeEmail(signed, password, "huda@oasis.ae", "10.2.0.1")), "Unauthorized: That is not your current password")
      // One answer for a teammate's address and another account's: the form tells nothing of who signs in elsewhere.
      const unavailable = "InvalidState: That e-mail address cannot be used here: choose another"
      assert.strictEqual(yield* refusal(users.changeEmail(signed, next, "RAMI@dune.ae", "10.2.0.1")), unavailable)
      assert.strictEqual(yield* refusal(users.changeEmail(signed, next, "zaid@dune.ae", "10.2.0.1")), unavailable)
      assert.strictEqual(yield* refusal(users.changeEmail(signed, next, " huda@oasis.ae", "10.2.0.1")), "InvalidRequest: ' huda@oasis.ae' has spaces before or after it: remove them")
      assert.strictEqual((yield* users.changeEmail(signed, next, "huda@oasis.ae", "10.2.0.1")).email, "huda@oasis.ae")
      assert.strictEqual((yield* users.signIn("huda@oasis.ae", next, "10.2.0.5")).user.user_id, signed.user.user_id)
      assert.strictEqual((yield* Effect.flip(users.signIn("huda@dune.ae", next, "10.2.0.5")))._tag, "Unauthorized")
      assert.isTrue(Option.isSome(yield* users.linkUser(teammate)), "the teammate's invitation is untouched")
    }).pipe(withEngine([], lightKdf)))

  it.effect("two-factor sign-in: confirmed by a code; the password step then waits for a code, once each; recovery codes work once; off with the password", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.UTC(2026, 10, 27, 9, 0, 10))
      const users = yield* Users
      const signer = yield* Signer
      const { account } = yield* newAccount
      const { token } = yield* users.create(account.account_id, "lina@dune.ae", "admin")
      const signed = Option.getOrThrow(yield* users.authenticate((yield* users.redeem(token, password)).token))
      const failure = (effect: Effect.Effect<unknown, { readonly _tag: string; readonly message: string }>) =>
        Effect.map(Effect.flip(effect), (e) => `${e._tag}: ${e.message}`)

      // Setting it up asks for the password: a borrowed session alone cannot tie sign-in to another person's app.
      assert.strictEqual(yield* failure(users.startEnrolment(signed, Redacted.make("not the password"), "10.3.0.1")), "Unauthorized: That is not your current password")
      assert.isTrue(Option.isNone(yield* users.twoFactorOf(signed.user.user_id)))
      const enrolling = yield* users.startEnrolment(signed, password, "10.3.0.1")
      const codeAt = (offsetSteps = 0) =>
        Effect.flatMap(DateTime.now, (now) => signer.totpCode(enrolling.secret, TwoFactor.stepAt(DateTime.toEpochMillis(now)) + offsetSteps))
      assert.strictEqual((yield* users.signIn("lina@dune.ae", password, "10.3.0.1")).awaitingCode, false, "not on until confirmed")
      assert.strictEqual(yield* failure(users.confirmEnrolment(signed, "12345")), "InvalidRequest: Type the 6-digit code your app shows")
      const wrong = String((Number(yield* codeAt()) + 1) % 1_000_000).padStart(6, "0")
      assert.match(yield* failure(users.confirmEnrolment(signed, wrong)), /^InvalidRequest: That code is not right/)
      const recovery = (yield* users.confirmEnrolment(signed, yield* codeAt())).map(Redacted.value)
      assert.strictEqual(new Set(recovery).size, 10)
      for (const code of recovery) assert.match(code, /^[a-z2-7]{5}-[a-z2-7]{5}$/)
      const stored = Option.getOrThrow(yield* users.twoFactorOf(signed.user.user_id))
      assert.isTrue(recovery.every((c) => !stored.recovery_codes.some((d) => d.includes(c.replace("-", "")))), "kept only as digests")
      // Keyed: a plain SHA-256 of a 50-bit code could be searched for from a copy of the database alone.
      const plain = yield* Effect.forEach(recovery, (c) => signer.digest(c.replace("-", "")))
      assert.isTrue(plain.every((d) => !stored.recovery_codes.includes(d)), "not an unkeyed digest")
      assert.deepStrictEqual(stored.recovery_codes, yield* Effect.forEach(recovery, (c) => signer.keyedDigest(stored.secret, c.replace("-", ""))))

      // The password step: a session that opens no page, waiting for its code.
      const first = yield* users.signIn("lina@dune.ae", password, "10.3.0.1")
      assert.isTrue(first.awaitingCode)
      assert.isTrue(Option.isNone(yield* users.authenticate(first.token)), "the password alone opens nothing")
      assert.match(yield* failure(users.completeSignIn(first.token, wrong, "10.3.0.1")), /^Unauthorized: That code is not right/)
      // The code of the step just used to confirm is used up: the next step's code signs in (a clock a step ahead).
      assert.match(yield* failure(users.completeSignIn(first.token, yield* codeAt(), "10.3.0.1")), /^Unauthorized: That code is not right/, "replayed")
      const done = yield* users.completeSignIn(first.token, yield* codeAt(1), "10.3.0.1")
      assert.isTrue(Option.isSome(yield* users.authenticate(done.token)))
      assert.isTrue(Option.isNone(yield* users.pendingSignIn(first.token)), "the waiting session is gone")
      const again = yield* users.signIn("lina@dune.ae", password, "10.3.0.2")
      assert.match(yield* failure(users.completeSignIn(again.token, yield* codeAt(1), "10.3.0.2")), /^Unauthorized/, "a code works once")

      // A recovery code, in any case and spacing, once.
      const byRecovery = yield* users.completeSignIn(again.token, ` ${recovery[0]!.toUpperCase()} `, "10.3.0.2")
      assert.isTrue(Option.isSome(yield* users.authenticate(byRecovery.token)))
      const third = yield* users.signIn("lina@dune.ae", password, "10.3.0.3")
      assert.match(yield* failure(users.completeSignIn(third.token, recovery[0]!, "10.3.0.3")), /^Unauthorized/, "used once")
      // The code's form waits 5 minutes.
      yield* TestClock.adjust("5 minutes")
      assert.strictEqual(yield* failure(users.completeSignIn(third.token, recovery[1]!, "10.3.0.3")), "Unauthorized: This sign-in waited too long for its code: sign in again")

      // Required of the account: only by one who has it on; a teammate without it must set it up first.
      const now = Option.getOrThrow(yield* users.authenticate(byRecovery.token))
      const teammate = Option.getOrThrow(yield* users.authenticate(
        (yield* users.redeem((yield* users.create(account.account_id, "omar@dune.ae", "owner")).token, password)).token
      ))
      assert.strictEqual(yield* failure(users.setTwoFactorRequired(teammate, true)), "InvalidState: Turn on two-factor sign-in for yourself first, then require it of everyone")
      assert.deepStrictEqual([yield* users.mustEnrol(now), yield* users.mustEnrol(teammate)], [false, false])
      yield* users.setTwoFactorRequired(now, true)
      assert.deepStrictEqual([yield* users.mustEnrol(now), yield* users.mustEnrol(teammate)], [false, true])

      // Off: the password and a code (or a recovery code) asked for; not while the account requires it.
      assert.strictEqual(yield* failure(users.disableTwoFactor(now, Redacted.make("not the password"), recovery[2]!, "10.3.0.1")), "Unauthorized: That is not your current password")
      assert.strictEqual(yield* failure(users.disableTwoFactor(now, password, recovery[2]!, "10.3.0.1")), "InvalidState: This account requires two-factor sign-in: it cannot be turned off")
      yield* (yield* Accounts).update(account.account_id, { two_factor_required: false })
      assert.match(yield* failure(users.disableTwoFactor(now, password, "", "10.3.0.1")), /^Unauthorized: That code is not right/, "the password alone does not turn it off")
      assert.isTrue(Option.exists(yield* users.twoFactorOf(signed.user.user_id), (t) => t.enabled_at !== null), "still on")
      yield* users.disableTwoFactor(now, password, recovery[2]!, "10.3.0.1")
      assert.isFalse((yield* users.signIn("lina@dune.ae", password, "10.3.0.4")).awaitingCode)
    }).pipe(withEngine([], lightKdf)))

  it.effect("a sign-in link (a password reset) of a user with two-factor on only opens the code's form", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.UTC(2026, 10, 27, 9, 0, 10))
      const users = yield* Users
      const { account } = yield* newAccount
      const { token, user } = yield* users.create(account.account_id, "sara@dune.ae", "owner")
      const signed = Option.getOrThrow(yield* users.authenticate((yield* users.redeem(token, password)).token))
      const { codeAt } = yield* enrol(signed)
      const reset = yield* users.redeem((yield* users.issueLink(user)).token, Redacted.make("a brand new password"))
      assert.isTrue(reset.awaitingCode)
      assert.isTrue(Option.isNone(yield* users.authenticate(reset.token)), "the link alone opens nothing")
      const done = yield* users.completeSignIn(reset.token, yield* codeAt(1), "10.4.0.1")
      assert.isTrue(Option.isSome(yield* users.authenticate(done.token)))
    }).pipe(withEngine([], lightKdf)))

  it.effect("wrong codes, from any addresses: a waiting sign-in ends after 5; the user's code step is refused after 20 in an hour, audited", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.UTC(2026, 10, 27, 9, 0, 10))
      const users = yield* Users
      const { account } = yield* newAccount
      const { token } = yield* users.create(account.account_id, "rana@dune.ae", "owner")
      const signed = Option.getOrThrow(yield* users.authenticate((yield* users.redeem(token, password)).token))
      const { codeAt } = yield* enrol(signed)
      const wrong = Effect.map(codeAt(1), (c) => String((Number(c) + 1) % 1_000_000).padStart(6, "0"))
      let address = 0
      const failure = (t: Redacted.Redacted<string>, code: string) =>
        Effect.map(Effect.flip(users.completeSignIn(t, code, `10.5.0.${++address}`)), (e) => `${e._tag}: ${e.message}`)
      for (let round = 0; round < 4; round++) {
        const waiting = yield* users.signIn("rana@dune.ae", password, `10.6.0.${round}`)
        for (let i = 0; i < 4; i++) assert.match(yield* failure(waiting.token, yield* wrong), /^Unauthorized: That code is not right/)
        assert.strictEqual(yield* failure(waiting.token, yield* wrong), "Unauthorized: Too many wrong codes: sign in again")
        assert.strictEqual(yield* failure(waiting.token, yield* codeAt(1)), "Unauthorized: This sign-in waited too long for its code: sign in again", "the 5th ended it")
      }
      // 20 wrong codes this hour: even the right one is refused, whatever the address; the lock is in the audit log.
      const fifth = yield* users.signIn("rana@dune.ae", password, "10.6.0.9")
      assert.match(yield* failure(fifth.token, yield* codeAt(1)), /^RateLimited: Too many wrong two-factor codes for this user in the last hour; try again in \d+ seconds/)
      assert.deepStrictEqual((yield* users.auditLog(account.account_id)).filter((e) => e.action === "user.two_factor.locked").map((e) => e.email), ["rana@dune.ae"])
      yield* TestClock.adjust("1 hour")
      const later = yield* users.signIn("rana@dune.ae", password, "10.6.0.10")
      assert.isTrue(Option.isSome(yield* users.authenticate((yield* users.completeSignIn(later.token, yield* codeAt(1), "10.5.1.1")).token)))
    }).pipe(withEngine([], lightKdf)))

  it.effect("a password change writes only the password, guarded by the one checked: a change made meanwhile is never undone", () =>
    Effect.gen(function*() {
      const users = yield* Users
      const { account } = yield* newAccount
      const owner = Option.getOrThrow(yield* users.authenticate((yield* users.redeem((yield* users.create(account.account_id, "reem@dune.ae", "owner")).token, password)).token))
      const { token, user } = yield* users.create(account.account_id, "yara@dune.ae", "admin")
      const here = Option.getOrThrow(yield* users.authenticate((yield* users.redeem(token, password)).token))
      // A role changed while the password's hash is made is kept.
      yield* Effect.all([users.changePassword(here, password, Redacted.make("first new password"), "10.7.0.2"), users.changeRole(owner, user.user_id, "viewer")], { concurrency: "unbounded" })
      assert.strictEqual(Option.getOrThrow(yield* (yield* Store).dashboard.getUser(user.user_id)).role, "viewer")
      // Two changes at once from two tabs (each checked the same password): one is saved, the other refused.
      const again = Option.getOrThrow(yield* users.authenticate((yield* users.signIn("yara@dune.ae", Redacted.make("first new password"), "10.7.0.3")).token))
      const current = Redacted.make("first new password")
      const both = yield* Effect.all([
        Effect.either(users.changePassword(here, current, Redacted.make("second new password"), "10.7.0.4")),
        Effect.either(users.changeEmail(again, current, "yara@oasis.ae", "10.7.0.5")),
        Effect.either(users.changePassword(again, current, Redacted.make("third new password"), "10.7.0.6"))
      ], { concurrency: "unbounded" })
      const passwords = [both[0], both[2]]
      assert.strictEqual(passwords.filter((r) => r._tag === "Right").length, 1, "one password change of two")
      const refused = passwords.find((r) => r._tag === "Left")
      assert.strictEqual(refused?._tag === "Left" ? refused.left.message : "", "Your sign-in details changed meanwhile (in another tab, or by a sign-in link): reload the page and try again")
      assert.strictEqual(both[1]._tag, "Right", "the e-mail is a column of its own")
      const saved = Option.getOrThrow(yield* (yield* Store).dashboard.getUser(user.user_id))
      assert.deepStrictEqual([saved.email, saved.role], ["yara@oasis.ae", "viewer"])
    }).pipe(withEngine([], lightKdf)))

  it.effect("a new password or e-mail withdraws sign-in links not used yet; a new e-mail also ends the other sessions", () =>
    Effect.gen(function*() {
      const users = yield* Users
      const { account } = yield* newAccount
      const { token, user } = yield* users.create(account.account_id, "dana@dune.ae", "admin")
      const first = yield* users.redeem(token, password)
      const here = Option.getOrThrow(yield* users.authenticate(first.token))
      const reset = yield* users.issueLink(user)
      const next = Redacted.make("another long password")
      yield* users.changePassword(here, password, next, "10.8.0.1")
      assert.isTrue(Option.isNone(yield* users.linkUser(reset.token)), "a reset link issued before the change is withdrawn")
      const later = yield* users.issueLink(user)
      const other = yield* users.signIn("dana@dune.ae", next, "10.8.0.2")
      yield* users.changeEmail(here, next, "dana@oasis.ae", "10.8.0.1")
      assert.isTrue(Option.isNone(yield* users.linkUser(later.token)), "and by an e-mail change")
      assert.isTrue(Option.isNone(yield* users.authenticate(other.token)), "other sessions end")
      assert.isTrue(Option.isSome(yield* users.authenticate(first.token)), "this one stays")
    }).pipe(withEngine([], lightKdf)))

  it("the role table: owners do everything, admins all but the team, developers keys, viewers read", () => {
    const actions: ReadonlyArray<User.Action> = ["read", "write", "refund", "keys", "live_keys", "settings", "team", "audit"]
    const table = Object.fromEntries(User.roles.map((role) => [role, actions.filter((a) => User.can(role, a))]))
    assert.deepStrictEqual(table, {
      owner: ["read", "write", "refund", "keys", "live_keys", "settings", "team", "audit"],
      admin: ["read", "write", "refund", "keys", "live_keys", "settings", "audit"],
      developer: ["read", "keys"],
      viewer: ["read"]
    })
  })
})

describe("Reports.overview", () => {
  it.effect("sums the period's payments by mode, every day of it, and the monthly recurring revenue", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.UTC(2026, 10, 25, 12))
      const { test } = yield* newAccount
      const once = yield* makeSession(test, { product_cart: [{ product_id: (yield* makeProduct(test, { price: 10_000 })).product_id }] })
      yield* pay(once.session_id, formWith(cards.visa))
      const declined = yield* makeSession(test, { product_cart: [{ product_id: (yield* makeProduct(test, { price: 500 })).product_id }] })
      yield* pay(declined.session_id, formWith(cards.declined))
      for (const interval of ["month", "year"] as const) {
        const plan = yield* makeProduct(test, { price: 12_000, billing: "recurring", billing_interval: interval })
        const session = yield* makeSession(test, { product_cart: [{ product_id: plan.product_id }] })
        yield* pay(session.session_id, formWith(cards.visa))
      }
      const overview = yield* (yield* Reports).overview(test, 7)
      assert.strictEqual(overview.daily.length, 7)
      assert.deepStrictEqual(overview.daily.at(-1), { day: "2026-11-25", gross: 34_000 })
      assert.deepStrictEqual(
        [overview.period.gross, overview.period.succeeded, overview.period.failed, overview.activeSubscriptions, overview.mrr],
        [34_000, 3, 1, 2, 12_000 + 1_000]
      )
      assert.strictEqual(overview.period.net, overview.period.gross - overview.period.fees - overview.period.refunded)
    }).pipe(withEngine()))
  it.effect("compares the monthly recurring revenue with the figure recorded at the end of the previous period", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(Date.UTC(2026, 9, 20, 8))
      const { test } = yield* newAccount
      const reports = yield* Reports
      const subscribe = (price: number) =>
        Effect.gen(function*() {
          const plan = yield* makeProduct(test, { price, billing: "recurring", billing_interval: "month" })
          const session = yield* makeSession(test, { product_cart: [{ product_id: plan.product_id }] })
          yield* pay(session.session_id, formWith(cards.visa))
        })
      // Nothing recorded before the first reading.
      yield* subscribe(10_000)
      const first = yield* reports.overview(test, 30)
      assert.deepStrictEqual([first.mrr, first.mrrBefore], [10_000, null])
      // 37 days later (the 26th of November, Dubai), with a second subscription: the 30-day period began on the 28th
      // of October; the latest reading on or before the 27th is the first one, of the 20th.
      yield* TestClock.setTime(Date.UTC(2026, 10, 26, 8))
      yield* subscribe(5_000)
      const later = yield* reports.overview(test, 30)
      assert.strictEqual(later.mrr, 15_000)
      assert.deepStrictEqual(later.mrrBefore, { day: "2026-10-20", mrr: 10_000, subscriptions: 1 })
      // Over the last 7 days the previous period ended on the 19th of November: that same reading.
      assert.deepStrictEqual((yield* reports.overview(test, 7)).mrrBefore, { day: "2026-10-20", mrr: 10_000, subscriptions: 1 })
      // A reading is the day's last: today's (the 26th) stands for the periods to come.
      yield* TestClock.setTime(Date.UTC(2026, 10, 27, 8))
      const tomorrow = yield* reports.overview(test, 7)
      assert.deepStrictEqual(tomorrow.mrrBefore, { day: "2026-10-20", mrr: 10_000, subscriptions: 1 })
      yield* TestClock.setTime(Date.UTC(2026, 11, 4, 8))
      assert.deepStrictEqual((yield* reports.overview(test, 7)).mrrBefore, { day: "2026-11-27", mrr: 15_000, subscriptions: 2 })
    }).pipe(withEngine()))
  it.effect("counts the account's local days (Asia/Dubai by default); a zone chosen in settings counts them again, an unknown one is refused", () =>
    Effect.gen(function*() {
      // 21:30 UTC on the 25th is 01:30 on the 26th in Dubai.
      yield* TestClock.setTime(Date.UTC(2026, 10, 25, 21, 30))
      const { account, test } = yield* newAccount
      assert.strictEqual(account.time_zone, "Asia/Dubai")
      const session = yield* makeSession(test, { product_cart: [{ product_id: (yield* makeProduct(test, { price: 10_000 })).product_id }] })
      yield* pay(session.session_id, formWith(cards.visa))
      const reports = yield* Reports
      const dubai = yield* reports.overview(test, 7)
      assert.deepStrictEqual([dubai.timeZone, dubai.daily[0]?.day, dubai.daily.at(-1)], ["Asia/Dubai", "2026-11-20", { day: "2026-11-26", gross: 10_000 }])

      const accounts = yield* Accounts
      const unknown = yield* Effect.flip(accounts.setTimeZone(account.account_id, "Asia/Atlantis"))
      assert.deepStrictEqual([unknown._tag, unknown.message], [
        "InvalidRequest",
        "'Asia/Atlantis' is not a time zone this server knows: choose one from the list, such as Asia/Dubai"
      ])
      assert.strictEqual((yield* accounts.setTimeZone(account.account_id, "UTC")).time_zone, "UTC")
      const utc = yield* reports.overview(test, 7)
      assert.deepStrictEqual([utc.timeZone, utc.daily.at(-1)], ["UTC", { day: "2026-11-25", gross: 10_000 }])
      assert.strictEqual(utc.period.gross, 10_000)
    }).pipe(withEngine()))
  it.effect("the period against the one before it, and today against yesterday, each counted in the account's days; new subscriptions in each", () =>
    Effect.gen(function*() {
      const reports = yield* Reports
      const { test } = yield* newAccount
      const paid = (price: number, billing?: "recurring") =>
        Effect.gen(function*() {
          const product = yield* makeProduct(test, billing === undefined ? { price } : { price, billing, billing_interval: "month" })
          yield* pay((yield* makeSession(test, { product_cart: [{ product_id: product.product_id }] })).session_id, formWith(cards.visa))
        })
      // Dubai days: the previous 7 start on the 12th, the period on the 19th, today is the 25th.
      yield* TestClock.setTime(Date.UTC(2026, 10, 11, 19)) // still the 11th in Dubai: before both
      yield* paid(2_000)
      yield* TestClock.setTime(Date.UTC(2026, 10, 11, 21)) // the 12th in Dubai: the previous period's first day
      yield* paid(1_000)
      yield* TestClock.setTime(Date.UTC(2026, 10, 18, 19, 59)) // the 18th, 23:59 in Dubai: the previous period's last minute
      yield* paid(4_000, "recurring")
      yield* TestClock.setTime(Date.UTC(2026, 10, 18, 20)) // the 19th, 00:00 in Dubai: the period's first
      yield* paid(8_000)
      yield* TestClock.setTime(Date.UTC(2026, 10, 24, 12)) // yesterday
      yield* paid(16_000, "recurring")
      yield* TestClock.setTime(Date.UTC(2026, 10, 25, 12)) // today
      yield* paid(32_000)
      yield* paid(64_000, "recurring")
      const overview = yield* reports.overview(test, 7)
      assert.deepStrictEqual(
        [overview.period.gross, overview.period.succeeded, overview.period.newSubscriptions],
        [8_000 + 16_000 + 32_000 + 64_000, 4, 2]
      )
      assert.deepStrictEqual(
        [overview.previous.gross, overview.previous.succeeded, overview.previous.newSubscriptions],
        [1_000 + 4_000, 2, 1]
      )
      assert.strictEqual(overview.previous.net, overview.previous.gross - overview.previous.fees - overview.previous.refunded)
      assert.deepStrictEqual([overview.today, overview.yesterday], [96_000, 16_000])
      assert.deepStrictEqual([overview.daily[0], overview.daily.at(-1)], [{ day: "2026-11-19", gross: 8_000 }, { day: "2026-11-25", gross: 96_000 }])
    }).pipe(withEngine()))

})

describe("Users.audit", () => {
  it.effect("an audit entry is dated on the real time, even written by a change on a test clock's time", () =>
    Effect.gen(function*() {
      const users = yield* Users
      const { account } = yield* newAccount
      const { token } = yield* users.create(account.account_id, "huda@dune.ae", "owner")
      const { session, user } = yield* users.redeem(token, password)
      const real = yield* DateTime.now
      yield* onClockTime(DateTime.add(real, { days: 40 }))(
        users.audit({ user, session }, { action: "subscription.charge", objectId: null, livemode: false, address: "10.9.0.1" })
      )
      const [entry] = (yield* users.auditLog(account.account_id)).filter((e) => e.action === "subscription.charge")
      assert.strictEqual(DateTime.toEpochMillis(entry!.at), DateTime.toEpochMillis(real))
    }).pipe(withEngine([], lightKdf)))
})
