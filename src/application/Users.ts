/**
 * Dashboard users: invited with a one-time sign-in link (24 h) where they set a password; signing in with
 * e-mail and password (failures throttled without letting a stranger lock a user out, one message for every
 * failure); browser sessions
 * (a random cookie secret, stored hashed; idle 12 h, absolute 7 days); signing out here or everywhere; and the
 * audit log of changes made through the dashboard. Link and cookie secrets and passwords are `Redacted` from the page
 * that reads them to the hashing, and the new ones returned are `Redacted` until the page shows or sets them.
 */
import { DateTime, Effect, Option, Redacted } from "effect"
import type { AccountId, AuditId } from "../domain/Ids.js"
import { prefixes, type UserId } from "../domain/Ids.js"
import * as Customer from "../domain/Customer.js"
import * as User from "../domain/DashboardUser.js"
import * as Text from "../domain/Text.js"
import * as TwoFactor from "../domain/TwoFactor.js"
import { InvalidRequest, InvalidState, NotFound, notFound, RateLimited, Unauthorized } from "../domain/Errors.js"
import { Signer } from "../ports/Signer.js"
import { Transactions } from "../ports/Transactions.js"
import { AccountRepository } from "../ports/repositories/AccountRepository.js"
import { RateLimitRepository } from "../ports/repositories/RateLimitRepository.js"
import { UserRepository } from "../ports/repositories/UserRepository.js"
import { newId } from "./Ids.js"
import * as Secrets from "./Secrets.js"
import { onRealTime } from "./Time.js"

/**
 * Failed sign-ins allowed (OWASP ASVS 2.2.1: guessing is slowed, yet no stranger can lock a user out). A success
 * never counts.
 *
 * - per e-mail from one client address: 10 a minute, then that address is refused for that e-mail (`429`): one
 *   guesser only stops themselves;
 * - per client address, whatever the e-mail: 30 a minute, then refused (`429`);
 * - per e-mail from every address: 100 an hour (ASVS's ceiling); past it every attempt on that e-mail waits
 *   `ceilingDelay` first, and is never refused, so its owner still signs in.
 */
export const failureLimits = [
  { bucket: (email: string, address: string) => `signin-pair:${email}|${address}`, limit: 10, windowSeconds: 60, over: "refuse" },
  { bucket: (_: string, address: string) => `signin-address:${address}`, limit: 30, windowSeconds: 60, over: "refuse" },
  { bucket: (email: string) => `signin-email:${email}`, limit: 100, windowSeconds: 3600, over: "delay" }
] as const
export const ceilingDelay = "5 seconds"

/**
 * Wrong two-factor codes allowed, whatever the addresses they come from (a million codes are guessed from many
 * addresses otherwise): a waiting sign-in ends after `perSignIn` (its password must be typed again); past `perUser`
 * an hour, the user's code step is refused (audited), the right code too, until the hour has passed.
 */
export const codeFailureLimits = { perSignIn: 5, perUser: 20, perUserWindowSeconds: 3600 } as const

/**
 * The refusals of signing in and of a user's own sign-in details, worded for the API and the English dashboard; the
 * dashboard's other languages word each by its key.
 */
export const signInMessages = {
  wrongCredentials: "That e-mail and password do not match an account",
  emailUnavailable: "That e-mail address cannot be used here: choose another",
  changedMeanwhile: "Your sign-in details changed meanwhile (in another tab, or by a sign-in link): reload the page and try again",
  emailTaken: "This e-mail address already signs in to the dashboard, and an address signs in to one account only: " +
    "ask the owner who invited you to invite another address",
  linkGone: "This sign-in link is not valid any more; ask an owner for a new one",
  userGone: "This user no longer exists",
  wrongPassword: "That is not your current password",
  wrongCode: "That code is not right: type the one your app shows now, or one of your recovery codes",
  signInExpired: "This sign-in waited too long for its code: sign in again",
  tooManyCodes: "Too many wrong codes: sign in again",
  setUpCodeWrong: "That code is not right: check that your phone's clock is set automatically, and type the code it shows now"
} as const

const wrongCredentials = new Unauthorized({ message: signInMessages.wrongCredentials })
/** One answer whatever the reason, so that the form tells nothing of which addresses sign in elsewhere. */
const emailUnavailable = new InvalidState({ message: signInMessages.emailUnavailable })
const changedMeanwhile = new InvalidState({ message: signInMessages.changedMeanwhile })
const emailTaken = new InvalidState({ message: signInMessages.emailTaken })
const linkGone = new Unauthorized({ message: signInMessages.linkGone })
const userGone = new Unauthorized({ message: signInMessages.userGone })

/** Who is signed in, from a session cookie. */
export interface Signed {
  readonly user: User.DashboardUser
  readonly session: User.DashboardSession
}

/**
 * A session as its user sees it in Settings: a handle to sign it out by (a prefix of its digest, never the cookie's
 * secret), when it began and was last used, and whether it is the one looking.
 */
export interface SessionView {
  readonly handle: string
  readonly created_at: DateTime.Utc
  readonly last_seen_at: DateTime.Utc
  readonly current: boolean
}
const handleOf = (session: User.DashboardSession) => session.token_hash.slice(0, 16)

const wrongPassword = new Unauthorized({ message: signInMessages.wrongPassword })
const wrongCode = new Unauthorized({ message: signInMessages.wrongCode })
const signInExpired = new Unauthorized({ message: signInMessages.signInExpired })
const tooManyCodes = new Unauthorized({ message: signInMessages.tooManyCodes })

export class Users extends Effect.Service<Users>()("fils/Users", {
  effect: Effect.gen(function*() {
    const accountRepo = yield* AccountRepository
    const rateLimitRepo = yield* RateLimitRepository
    const transactions = yield* Transactions
    const userRepo = yield* UserRepository
    const signer = yield* Signer

    /** A new secret for a link or a cookie: 32 random bytes. */
    const newSecret = Secrets.newSecret(signer, 32)
    const digestOf = (secret: Redacted.Redacted<string>) => Secrets.digestOf(signer, secret)
    /** A hash, with today's parameters, of a password nobody knows: verified against when the e-mail is unknown. */
    const dummyHash = yield* Effect.cached(Effect.flatMap(newSecret, signer.hashPassword))

    /**
     * Why `address` cannot be a user's e-mail, in the merchant's words; kept as typed, so spaces around it are refused
     * rather than trimmed.
     */
    const emailProblem = (address: string): string | undefined =>
      Customer.isEmail(address)
        ? undefined
        : address !== address.trim() && Customer.isEmail(address.trim())
        ? `'${Text.shortened(address, 254)}' has spaces before or after it: remove them`
        : `'${Text.shortened(address, 254)}' is not an e-mail address`

    /**
     * Invites `email` to `accountId` with `role`: a new user without a password (a pending invitation), and a one-time
     * link secret (valid 24 h) for them to set one. The secret is returned once; only its hash is kept.
     *
     * Only this account's users are looked at: whether the e-mail signs in to another account is checked when the
     * link is used (`redeem`), so the inviter learns nothing of other accounts, by answer or by timing.
     */
    const create = Effect.fn("Users.create")(function*(accountId: AccountId, address: string, role: User.Role) {
      const problem = emailProblem(address)
      if (problem !== undefined) return yield* new InvalidRequest({ message: problem })
      if (Option.isNone(yield* accountRepo.get(accountId))) return yield* notFound("account", accountId)
      const team = yield* userRepo.listUsers(accountId)
      if (team.some((u) => u.email.toLowerCase() === address.toLowerCase())) {
        return yield* new InvalidState({ message: `${address} is already on this account's team` })
      }
      const now = yield* DateTime.now
      const user: User.DashboardUser = {
        user_id: yield* newId<UserId>(prefixes.user),
        account_id: accountId,
        email: address,
        role,
        password_hash: null,
        created_at: now,
        updated_at: now
      }
      yield* userRepo.insertUser(user)
      const { token } = yield* issueLink(user)
      return { user, token }
    })

    /** A new one-time sign-in link for `user` (an invitation again, or a password reset by an owner). */
    const issueLink = Effect.fn("Users.issueLink")(function*(user: User.DashboardUser) {
      const token = yield* newSecret
      const expires_at = DateTime.add(yield* DateTime.now, { millis: User.signInLinkMillis })
      yield* userRepo.insertLink({
        token_hash: yield* digestOf(token),
        user_id: user.user_id,
        expires_at,
        used_at: null
      })
      return { token, expires_at }
    })

    /**
     * A new one-time sign-in link for the user with `email`: the operator's way back in for someone who lost their
     * password or their first link. The password set there replaces the old one, which keeps working until then (so
     * a link nobody uses locks nobody out); the link works once, within 24 hours, like the first.
     */
    const signInLink = Effect.fn("Users.signInLink")(function*(email: string, accountId?: AccountId) {
      const address = email.trim()
      // Without an account: the one user this e-mail signs in as. An invitation not yet accepted (no password) may be
      // pending on several accounts, so it is found on the account named.
      const found = accountId === undefined
        ? yield* userRepo.findUserByEmail(address)
        : Option.fromNullable((yield* userRepo.listUsers(accountId)).find((u) => u.email.toLowerCase() === address.toLowerCase()))
      if (Option.isNone(found)) {
        return yield* new NotFound({
          message: accountId === undefined
            ? `No dashboard user signs in as '${address}'; for an invitation not accepted yet, name its account with --account`
            : `No dashboard user '${address}' on account '${accountId}'`
        })
      }
      return { user: found.value, ...(yield* issueLink(found.value)) }
    })

    /** A new session for `user`: the cookie's secret (returned once) and the session as stored. */
    const startSession = (user: User.DashboardUser, awaitingCode = false) =>
      Effect.gen(function*() {
        const token = yield* newSecret
        const now = yield* DateTime.now
        const session: User.DashboardSession = {
          token_hash: yield* digestOf(token),
          user_id: user.user_id,
          account_id: user.account_id,
          csrf_token: yield* signer.randomToken(24),
          created_at: now,
          last_seen_at: now,
          awaiting_code: awaitingCode
        }
        yield* userRepo.insertSession(session)
        return { token, session }
      })

    /** Whose a sign-in link is, if it is still good (without using it): the page that sets the password. */
    const linkUser = Effect.fn("Users.linkUser")(function*(token: Redacted.Redacted<string>) {
      const hash = yield* digestOf(token)
      const link = yield* userRepo.findLink(hash)
      const now = yield* DateTime.now
      const usable = Option.filter(link, (l) => l.used_at === null && DateTime.greaterThan(l.expires_at, now))
      if (Option.isNone(usable)) return Option.none<User.DashboardUser>()
      return yield* userRepo.getUser(usable.value.user_id)
    })

    /**
     * Uses a sign-in link: sets the password and signs the user in (with two-factor sign-in on, a sign-in waiting for
 * its code, as after the password step). The link works once, within 24 hours. A person
     * signs in as one user: an invitation whose e-mail already signs in elsewhere is refused, leaving the link as it
     * was. Only the link's holder sees that answer, never the inviting page.
     */
    const redeem = Effect.fn("Users.redeem")(function*(token: Redacted.Redacted<string>, password: Redacted.Redacted<string>) {
      const problem = User.passwordProblem(password)
      if (problem !== undefined) return yield* new InvalidRequest({ message: problem })
      const invited = yield* linkUser(token)
      if (Option.isSome(invited)) {
        const holder = yield* userRepo.findUserByEmail(invited.value.email)
        if (Option.isSome(holder) && holder.value.user_id !== invited.value.user_id) return yield* emailTaken
      }
      const hash = yield* digestOf(token)
      const passwordHash = yield* signer.hashPassword(password)
      // One transaction: a link whose e-mail another invitation took at the same instant stays unused. The user's
      // row is locked (its password set) before the link's is taken, the order removing a user takes them in (its
      // links go with it): a teammate removed while accepting would otherwise deadlock with it.
      const user = yield* transactions.transact(Effect.gen(function*() {
        const found = yield* linkUser(token)
        if (Option.isNone(found)) return yield* linkGone
        const user = User.withPassword(found.value, passwordHash, yield* DateTime.now)
        if (!(yield* userRepo.setPassword(user))) {
          return yield* Option.isSome(yield* userRepo.getUser(user.user_id)) ? emailTaken : userGone
        }
        // Used meanwhile (the same link posted twice): the password set above is rolled back.
        if (Option.isNone(yield* userRepo.takeLink(hash, yield* DateTime.now))) return yield* linkGone
        // A new password ends every other session.
        yield* userRepo.deleteSessionsOf(user.user_id)
        return user
      }))
      // A link is also a password reset: with two-factor sign-in on, it only opens the code's form, like a password.
      const awaitingCode = yield* twoFactorOn(user.user_id)
      return { user, awaitingCode, ...(yield* startSession(user, awaitingCode)) }
    })

    /** Whether the user's two-factor sign-in is on (an enrolment confirmed). */
    const twoFactorOn = (userId: UserId) => Effect.map(userRepo.getTwoFactor(userId), Option.exists((t) => t.enabled_at !== null))

    /**
     * Before a sign-in is tried: refused while a `refuse` limit is used up, delayed while the `delay` one is. Read
     * without counting (a count of 0): only failures count, after the attempt (`countFailure`).
     */
    const throttle = (email: string, address: string) =>
      Effect.gen(function*() {
        const now = DateTime.toEpochMillis(yield* DateTime.now)
        let delayed = false
        for (const rule of failureLimits) {
          const decision = yield* rateLimitRepo.hit(rule.bucket(email, address), now, rule.limit, rule.windowSeconds, 0)
          if (decision.remaining > 0) continue
          if (rule.over === "delay") {
            delayed = true
            continue
          }
          return yield* RateLimited.after("sign-in attempts", decision.resetSeconds)
        }
        if (delayed) yield* Effect.sleep(ceilingDelay)
      })

    const countFailure = (email: string, address: string) =>
      Effect.gen(function*() {
        const now = DateTime.toEpochMillis(yield* DateTime.now)
        for (const rule of failureLimits) {
          yield* rateLimitRepo.hit(rule.bucket(email, address), now, rule.limit, rule.windowSeconds)
        }
      })

    /**
     * Signs in with e-mail and password from `address`. Every failure reads the same (unknown e-mail, no password
     * set yet, wrong password); failures are limited (`failureLimits`), successes never count.
     */
    const signIn = Effect.fn("Users.signIn")(function*(email: string, password: Redacted.Redacted<string>, address: string) {
      const key = email.trim().toLowerCase().slice(0, 254)
      yield* throttle(key, address)
      const found = yield* userRepo.findUserByEmail(email.trim())
      const hash = Option.match(found, { onNone: () => null, onSome: (u) => u.password_hash })
      // The KDF runs whether or not the user exists, so timing tells nothing either.
      const matches = yield* signer.verifyPassword(password, hash ?? (yield* dummyHash))
      if (Option.isNone(found) || hash === null || !matches) {
        yield* countFailure(key, address)
        return yield* wrongCredentials
      }
      // A hash made with older parameters is made again with today's, now that the password is at hand.
      // Guarded by the hash verified: a password changed meanwhile is kept.
      const user = signer.passwordHashOutdated(hash)
        ? User.withPassword(found.value, yield* signer.hashPassword(password), yield* DateTime.now)
        : found.value
      if (user !== found.value) yield* userRepo.replacePassword(user.user_id, hash, user.password_hash!, user.updated_at)
      // With two-factor sign-in on, the password only opens the code's form (`completeSignIn`).
      const awaitingCode = yield* twoFactorOn(user.user_id)
      return { user, awaitingCode, ...(yield* startSession(user, awaitingCode)) }
    })

    /** The sign-in of a session cookie that waits for its code, while its few minutes last. */
    const pendingSignIn = Effect.fn("Users.pendingSignIn")(function*(token: Redacted.Redacted<string>) {
      const hash = yield* digestOf(token)
      const session = Option.filter(yield* userRepo.findSession(hash), (s) => s.awaiting_code)
      if (Option.isNone(session)) return Option.none<Signed>()
      const now = DateTime.toEpochMillis(yield* DateTime.now)
      if (now - DateTime.toEpochMillis(session.value.created_at) >= TwoFactor.pendingMillis) {
        yield* userRepo.deleteSession(hash)
        return Option.none<Signed>()
      }
      return Option.map(yield* userRepo.getUser(session.value.user_id), (user): Signed => ({ user, session: session.value }))
    })

    /**
     * The step a TOTP code typed for `twoFactor` belongs to, among those accepted now (`TwoFactor.window`); none when
     * it is no code of them.
     */
    const stepOf = (twoFactor: TwoFactor.TwoFactor, code: string) =>
      Effect.gen(function*() {
        for (const step of TwoFactor.acceptedSteps(DateTime.toEpochMillis(yield* DateTime.now))) {
          if (yield* signer.sameSecret(code, yield* signer.totpCode(twoFactor.secret, step))) return Option.some(step)
        }
        return Option.none<number>()
      })

    /**
     * A recovery code as kept: keyed by the user's TOTP secret (sealed at rest), so a copy of the database alone
     * cannot be searched for the 50-bit codes, and the same code of two users is kept differently.
     */
    const recoveryDigest = (twoFactor: TwoFactor.TwoFactor, code: string) => signer.keyedDigest(twoFactor.secret, code)

    /** Whether `typed` is a good second factor for `user`: a code not used before, or a recovery code (used up). */
    const secondFactor = (user: User.DashboardUser, typed: string) =>
      Effect.gen(function*() {
        const twoFactor = Option.filter(yield* userRepo.getTwoFactor(user.user_id), (t) => t.enabled_at !== null)
        if (Option.isNone(twoFactor)) return false
        const code = TwoFactor.typedCode(typed)
        if (code !== undefined) {
          const step = yield* stepOf(twoFactor.value, code)
          // A code already accepted (or one older than it) is refused: whoever saw it cannot use it again.
          return Option.isSome(step) && (yield* userRepo.useTotpStep(user.user_id, step.value))
        }
        const recovery = TwoFactor.typedRecoveryCode(typed)
        return recovery !== undefined && (yield* userRepo.useRecoveryCode(user.user_id, yield* recoveryDigest(twoFactor.value, recovery)))
      })

    /**
     * One try of a second factor for the user (signing in, or turning two-factor sign-in off): refused while the
     * user's wrong codes of the hour are used up; a wrong one counts as a failed sign-in of their e-mail and against
     * the user (`codeFailureLimits`), the lock audited when it is reached.
     */
    const codeAttempt = (signed: Signed, typed: string, address: string) =>
      Effect.gen(function*() {
        const { user } = signed
        const key = user.email.toLowerCase().slice(0, 254)
        yield* throttle(key, address)
        const userBucket = `code-user:${user.user_id}`
        const { perUser, perUserWindowSeconds } = codeFailureLimits
        const now = DateTime.toEpochMillis(yield* DateTime.now)
        const used = yield* rateLimitRepo.hit(userBucket, now, perUser, perUserWindowSeconds, 0)
        if (used.remaining <= 0) {
          return yield* RateLimited.after("wrong two-factor codes for this user in the last hour", used.resetSeconds)
        }
        if (yield* secondFactor(user, typed.slice(0, 40))) return true
        yield* countFailure(key, address)
        const ofUser = yield* rateLimitRepo.hit(userBucket, now, perUser, perUserWindowSeconds)
        if (ofUser.remaining <= 0) {
          yield* audit(signed, { action: "user.two_factor.locked", objectId: user.user_id, livemode: null, address })
        }
        return false
      })

    /**
     * The second step of a sign-in: the code (or a recovery code) for the session the password step left waiting.
     * Failures count as failed sign-ins of the user's e-mail (`failureLimits`) and against the user's own limits
     * (`codeFailureLimits`); success replaces the waiting session with a new one (a new cookie).
     */
    const completeSignIn = Effect.fn("Users.completeSignIn")(function*(token: Redacted.Redacted<string>, typed: string, address: string) {
      const pending = yield* pendingSignIn(token)
      if (Option.isNone(pending)) return yield* signInExpired
      const { session, user } = pending.value
      if (!(yield* codeAttempt({ user, session }, typed, address))) {
        const now = DateTime.toEpochMillis(yield* DateTime.now)
        const { perSignIn } = codeFailureLimits
        const ofSignIn = yield* rateLimitRepo.hit(`code-signin:${session.token_hash}`, now, perSignIn, TwoFactor.pendingMillis / 1000)
        if (ofSignIn.remaining <= 0) {
          yield* userRepo.deleteSession(session.token_hash)
          return yield* tooManyCodes
        }
        return yield* wrongCode
      }
      yield* userRepo.deleteSession(session.token_hash)
      return { user, ...(yield* startSession(user)) }
    })

    /** Whether the user's account requires two-factor sign-in and they have not turned it on yet. */
    const mustEnrol = Effect.fn("Users.mustEnrol")(function*(signed: Signed) {
      if (!Option.exists(yield* accountRepo.get(signed.user.account_id), (a) => a.two_factor_required)) return false
      return !Option.exists(yield* userRepo.getTwoFactor(signed.user.user_id), (t) => t.enabled_at !== null)
    })

    /**
     * Requires two-factor sign-in of every user of `by`'s account, or leaves it to each (owners only, checked by the
     * page through `can`). Requiring it needs it on for `by` first, who would otherwise be sent to set it up too.
     */
    const setTwoFactorRequired = Effect.fn("Users.setTwoFactorRequired")(function*(by: Signed, required: boolean) {
      if (required && !Option.exists(yield* userRepo.getTwoFactor(by.user.user_id), (t) => t.enabled_at !== null)) {
        return yield* new InvalidState({ message: "Turn on two-factor sign-in for yourself first, then require it of everyone" })
      }
      yield* transactions.transact(Effect.gen(function*() {
        const account = yield* accountRepo.lock(by.user.account_id)
        if (Option.isNone(account)) return yield* notFound("account", by.user.account_id)
        yield* accountRepo.update({ ...account.value, two_factor_required: required })
      }))
    })

    /** The user's two-factor sign-in: on (`enabled_at`), being set up, or none. */
    const twoFactorOf = Effect.fn("Users.twoFactorOf")(function*(userId: UserId) {
      return yield* userRepo.getTwoFactor(userId)
    })

    /**
     * Begins setting up two-factor sign-in: a new secret for the user's app (shown, as text and as an `otpauth://`
     * URI, until a code confirms it). Refused while it is on. The password is asked for: a borrowed session alone
     * cannot tie the sign-in to another person's app.
     */
    const startEnrolment = Effect.fn("Users.startEnrolment")(function*(signed: Signed, password: Redacted.Redacted<string>, address: string) {
      yield* confirmPassword(yield* current(signed), password, address)
      const found = yield* userRepo.getTwoFactor(signed.user.user_id)
      if (Option.exists(found, (t) => t.enabled_at !== null)) {
        return yield* new InvalidState({ message: "Two-factor sign-in is already on" })
      }
      const twoFactor: TwoFactor.TwoFactor = {
        user_id: signed.user.user_id,
        secret: yield* signer.totpSecret,
        enabled_at: null,
        last_step: null,
        recovery_codes: []
      }
      yield* userRepo.putTwoFactor(twoFactor)
      return twoFactor
    })

    /**
     * Turns two-factor sign-in on with a code from the app just set up; returns the recovery codes, in clear this
     * once (only their digests are kept).
     */
    const confirmEnrolment = Effect.fn("Users.confirmEnrolment")(function*(signed: Signed, typed: string) {
      const found = Option.filter(yield* userRepo.getTwoFactor(signed.user.user_id), (t) => t.enabled_at === null)
      if (Option.isNone(found)) return yield* new InvalidState({ message: "Set up two-factor sign-in first" })
      const code = TwoFactor.typedCode(typed)
      if (code === undefined) return yield* new InvalidRequest({ message: `Type the ${TwoFactor.digits}-digit code your app shows` })
      const step = yield* stepOf(found.value, code)
      if (Option.isNone(step)) {
        return yield* new InvalidRequest({ message: signInMessages.setUpCodeWrong })
      }
      const codes = yield* Effect.all(Array.from({ length: TwoFactor.recoveryCodeCount }, () => signer.recoveryCode))
      yield* userRepo.putTwoFactor({
        ...found.value,
        enabled_at: yield* DateTime.now,
        last_step: step.value,
        recovery_codes: yield* Effect.forEach(codes, (c) => recoveryDigest(found.value, c))
      })
      return codes.map((c) => Redacted.make(TwoFactor.shownRecoveryCode(c)))
    })

    /**
     * Turns two-factor sign-in off, the password and a code of the app (or a recovery code) asked for, so neither a
     * borrowed session nor a stolen password alone turns it off; refused while the account requires it.
     */
    const disableTwoFactor = Effect.fn("Users.disableTwoFactor")(function*(
      signed: Signed,
      password: Redacted.Redacted<string>,
      code: string,
      address: string
    ) {
      const user = yield* current(signed)
      yield* confirmPassword(user, password, address)
      if (Option.exists(yield* accountRepo.get(user.account_id), (a) => a.two_factor_required)) {
        return yield* new InvalidState({ message: "This account requires two-factor sign-in: it cannot be turned off" })
      }
      if (!(yield* codeAttempt({ ...signed, user }, code, address))) return yield* wrongCode
      yield* userRepo.deleteTwoFactor(user.user_id)
    })

    /** The signed-in user of a session cookie, if the session is alive; touches it (the idle timeout restarts). */
    const authenticate = Effect.fn("Users.authenticate")(function*(token: Redacted.Redacted<string>) {
      const hash = yield* digestOf(token)
      // A sign-in waiting for its code opens no page.
      const session = Option.filter(yield* userRepo.findSession(hash), (s) => !s.awaiting_code)
      if (Option.isNone(session)) return Option.none<Signed>()
      const now = yield* DateTime.now
      if (!User.sessionAlive(session.value, now)) {
        yield* userRepo.deleteSession(hash)
        return Option.none<Signed>()
      }
      const user = yield* userRepo.getUser(session.value.user_id)
      if (Option.isNone(user)) return Option.none<Signed>()
      // A write at most once a minute per session: the idle timeout is 12 hours.
      if (DateTime.toEpochMillis(now) - DateTime.toEpochMillis(session.value.last_seen_at) > 60_000) {
        yield* userRepo.touchSession(hash, now)
      }
      return Option.some<Signed>({ user: user.value, session: session.value })
    })

    /** The user as stored now (a session's copy may be older than a change made in another tab). */
    const current = (signed: Signed) =>
      Effect.flatMap(userRepo.getUser(signed.user.user_id), Option.match({ onNone: () => Effect.fail(userGone), onSome: Effect.succeed }))

    /**
     * Checks the signed-in user's password before a change to their sign-in: guesses count as failed sign-ins of
     * their e-mail from `address` (`failureLimits`), so a borrowed session guesses no faster than the sign-in form.
     */
    const confirmPassword = (user: User.DashboardUser, password: Redacted.Redacted<string>, address: string) =>
      Effect.gen(function*() {
        const key = user.email.toLowerCase().slice(0, 254)
        yield* throttle(key, address)
        const matches = user.password_hash !== null && (yield* signer.verifyPassword(password, user.password_hash))
        if (!matches) {
          yield* countFailure(key, address)
          return yield* wrongPassword
        }
      })

    /** Ends every session of the user but `keep`. */
    const endOtherSessions = (userId: UserId, keep: string) =>
      Effect.flatMap(userRepo.listSessions(userId), (sessions) =>
        Effect.forEach(sessions.filter((s) => s.token_hash !== keep), (s) => userRepo.deleteSession(s.token_hash), { discard: true }))

    /**
     * Changes the signed-in user's password: the current one is asked for; every other session ends (whoever had
     * the old password is signed out), this one stays, and sign-in links not used yet are withdrawn. Only the
     * password is written, and only if it is still the one checked: a change made meanwhile is never undone.
     */
    const changePassword = Effect.fn("Users.changePassword")(function*(
      signed: Signed,
      currentPassword: Redacted.Redacted<string>,
      next: Redacted.Redacted<string>,
      address: string
    ) {
      const problem = User.passwordProblem(next)
      if (problem !== undefined) return yield* new InvalidRequest({ message: problem })
      const user = yield* current(signed)
      yield* confirmPassword(user, currentPassword, address)
      const changed = User.withPassword(user, yield* signer.hashPassword(next), yield* DateTime.now)
      if (!(yield* userRepo.replacePassword(user.user_id, user.password_hash!, changed.password_hash!, changed.updated_at))) {
        return yield* changedMeanwhile
      }
      yield* userRepo.deleteUnusedLinks(user.user_id)
      yield* endOtherSessions(user.user_id, signed.session.token_hash)
      return changed
    })

    /**
     * Changes the signed-in user's e-mail (the one they sign in with), their password asked for. An e-mail signs in
     * as one user: one already on this account's team, or signing in to any account, is refused with one answer
     * (`emailUnavailable`). Only the e-mail is written, and only if it is still the one read; every other session
     * ends and sign-in links not used yet are withdrawn.
     */
    const changeEmail = Effect.fn("Users.changeEmail")(function*(
      signed: Signed,
      password: Redacted.Redacted<string>,
      email: string,
      address: string
    ) {
      const problem = emailProblem(email)
      if (problem !== undefined) return yield* new InvalidRequest({ message: problem })
      const user = yield* current(signed)
      if (email.toLowerCase() === user.email.toLowerCase()) {
        return yield* new InvalidRequest({ message: `${email} is already your e-mail address` })
      }
      yield* confirmPassword(user, password, address)
      const changed: User.DashboardUser = { ...user, email, updated_at: yield* DateTime.now }
      // Saved unless the e-mail changed meanwhile or another user has the new one (checked and saved at once).
      if (!(yield* userRepo.replaceEmail(user.user_id, user.email, email, changed.updated_at))) {
        return yield* ((yield* current(signed)).email === user.email ? emailUnavailable : changedMeanwhile)
      }
      yield* userRepo.deleteUnusedLinks(user.user_id)
      yield* endOtherSessions(user.user_id, signed.session.token_hash)
      return changed
    })

    /** The user's live sessions, newest first. */
    const sessions = Effect.fn("Users.sessions")(function*(signed: Signed) {
      const now = yield* DateTime.now
      return (yield* userRepo.listSessions(signed.user.user_id))
        .filter((s) => User.sessionAlive(s, now))
        .map((s): SessionView => ({
          handle: handleOf(s),
          created_at: s.created_at,
          last_seen_at: s.last_seen_at,
          current: s.token_hash === signed.session.token_hash
        }))
    })

    /** Signs out one of the user's own sessions, by its handle; another user's is never reached. */
    const signOutSession = Effect.fn("Users.signOutSession")(function*(signed: Signed, handle: string) {
      const found = (yield* userRepo.listSessions(signed.user.user_id)).find((s) => handleOf(s) === handle)
      if (found === undefined) return yield* new NotFound({ message: "That session has already ended" })
      yield* userRepo.deleteSession(found.token_hash)
      return { current: found.token_hash === signed.session.token_hash }
    })

    /** Signs out every session of the user but this one. */
    const signOutOthers = Effect.fn("Users.signOutOthers")(function*(signed: Signed) {
      yield* endOtherSessions(signed.user.user_id, signed.session.token_hash)
    })

    const signOut = Effect.fn("Users.signOut")(function*(signed: Signed) {
      yield* userRepo.deleteSession(signed.session.token_hash)
    })

    const signOutEverywhere = Effect.fn("Users.signOutEverywhere")(function*(signed: Signed) {
      yield* userRepo.deleteSessionsOf(signed.user.user_id)
    })

    /** Writes one change made through the dashboard to the account's audit log. */
    const audit = Effect.fn("Users.audit")(function*(
      signed: Signed,
      entry: { readonly action: string; readonly objectId: string | null; readonly livemode: boolean | null; readonly address: string }
    ) {
      // On the real time, whatever clock the change it is written with runs on (a test clock's, for a charge).
      yield* onRealTime(Effect.gen(function*() {
        yield* userRepo.insertAudit({
          audit_id: yield* newId<AuditId>(prefixes.audit),
          account_id: signed.user.account_id,
          user_id: signed.user.user_id,
          email: signed.user.email,
          action: entry.action,
          object_id: entry.objectId,
          livemode: entry.livemode,
          address: entry.address.slice(0, 100),
          at: yield* DateTime.now
        })
      }))
    })

    /** A user of the same account as `by`, or not found (another account's user is never reached). */
    const teammate = (by: Signed, id: UserId) =>
      Effect.flatMap(userRepo.getUser(id), (found) =>
        Option.isSome(found) && found.value.account_id === by.user.account_id
          ? Effect.succeed(found.value)
          : Effect.fail(notFound("user", id)))

    /** An account keeps at least one owner: the last one can be neither demoted nor removed. */
    const keepsAnOwner = (user: User.DashboardUser, nextRole: User.Role | undefined) =>
      Effect.gen(function*() {
        if (user.role !== "owner" || nextRole === "owner") return
        const owners = (yield* userRepo.listUsers(user.account_id)).filter((u) => u.role === "owner")
        if (owners.length <= 1) {
          return yield* new InvalidState({ message: "An account needs an owner: make someone else owner first" })
        }
      })

    /**
     * A change of the account's team, in one transaction holding the account's row: the owners `keepsAnOwner`
     * counts cannot change before the write (two owners demoting each other at once leave one owner, not none).
     */
    const teamChange = <A, E, R>(by: Signed, change: Effect.Effect<A, E, R>) =>
      transactions.transact(Effect.zipRight(accountRepo.lock(by.user.account_id), change))

    /** Changes a teammate's role (owners only, checked by the caller's page through `can`). */
    const changeRole = Effect.fn("Users.changeRole")(function*(by: Signed, id: UserId, role: User.Role) {
      return yield* teamChange(by, Effect.gen(function*() {
        const user = yield* teammate(by, id)
        yield* keepsAnOwner(user, role)
        const next = User.withRole(user, role, yield* DateTime.now)
        // The role alone: a password or e-mail changed meanwhile is kept.
        yield* userRepo.setRole(user.user_id, role, next.updated_at)
        return next
      }))
    })

    /** Removes a teammate: their sessions end with them. */
    const remove = Effect.fn("Users.remove")(function*(by: Signed, id: UserId) {
      return yield* teamChange(by, Effect.gen(function*() {
        const user = yield* teammate(by, id)
        yield* keepsAnOwner(user, undefined)
        yield* userRepo.deleteSessionsOf(user.user_id)
        yield* userRepo.deleteUser(user.user_id)
        return user
      }))
    })

    const auditLog = (accountId: AccountId, limit = 100) => userRepo.listAudit(accountId, limit)
    const team = (accountId: AccountId) => userRepo.listUsers(accountId)

    return {
      create,
      issueLink,
      signInLink,
      linkUser,
      redeem,
      signIn,
      pendingSignIn,
      completeSignIn,
      twoFactorOf,
      mustEnrol,
      setTwoFactorRequired,
      startEnrolment,
      confirmEnrolment,
      disableTwoFactor,
      authenticate,
      signOut,
      signOutEverywhere,
      changePassword,
      changeEmail,
      sessions,
      signOutSession,
      signOutOthers,
      changeRole,
      remove,
      audit,
      auditLog,
      team
    } as const
  })
}) {}
