/**
 * Posted forms, for every server-rendered page (checkout, dashboard, portal), read in one place:
 *
 * - A form's text is taken exactly as sent, or refused: invalid UTF-8 (`%FF`, an encoded surrogate, an overlong
 *   form) is refused with `FormNotUtf8` (as the JSON API refuses it), never turned into U+FFFD; nothing is trimmed or
 *   cut; a field given twice is refused (`FormFieldRepeated`), not read as its first. Length limits are the API's,
 *   checked by its own schemas.
 * - A value shown in a control comes back as the browser sends it (an `<input>` drops line breaks; a `<textarea>`
 *   sends CRLF): `unchanged` tells such a value from an edit, so that saving keeps a stored value byte for byte.
 * - POST-redirect-GET: a change answers `303` to a page that shows its outcome (`seeOther`, a `Flash` signed with a
 *   key of the session, so that a crafted link cannot put words on the page), and a form that moves money carries a
 *   one-time token (`onceToken`) that the handler uses as its idempotency key: posted twice, it acts once.
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as UrlParams from "@effect/platform/UrlParams"
import { Data, Effect, Option } from "effect"
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import { sameOriginSubmission } from "./Origin.js"

/** A form body that is not UTF-8: refused with nothing changed. */
export class FormNotUtf8 extends Data.TaggedError("FormNotUtf8")<{ readonly message: string }> {}

export const notUtf8Message = "The form was not sent as UTF-8 text, so nothing was changed. " +
  "Reload the page and send it again from your browser."

/** A form body that gives a field twice (no page's form does): refused with nothing changed, not read as its first. */
export class FormFieldRepeated extends Data.TaggedError("FormFieldRepeated")<{ readonly field: string; readonly message: string }> {}

export const repeatedMessage = (field: string) =>
  `The form gave the field '${field}' more than once, so nothing was changed. Send each field once.`

/** The fields a form may give more than once, as a group of checkboxes does: a webhook's event types, a discount's products. */
const multiValued = new Set(["event_types", "restricted_to"])

/** The first field `params` gives more than once that may be given only once, if any. */
const repeatedField = (params: UrlParams.UrlParams): string | undefined => {
  const seen = new Set<string>()
  for (const [name] of params) {
    if (seen.has(name) && !multiValued.has(name)) return name
    seen.add(name)
  }
  return undefined
}

// `ignoreBOM`: a leading U+FEFF is text the user sent, kept like any other.
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })

/**
 * `+` as a space, and each run of percent-escapes as the UTF-8 text its bytes spell; `undefined` when they spell
 * none. A `%` that starts no escape stays itself, as URLSearchParams reads it.
 */
const decodeComponent = (text: string): string | undefined => {
  let invalid = false
  const decoded = text.replace(/\+/g, " ").replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    try {
      return utf8.decode(Uint8Array.from(run.slice(1).split("%"), (hex) => parseInt(hex, 16)))
    } catch {
      invalid = true
      return ""
    }
  })
  return invalid ? undefined : decoded
}

/** An `application/x-www-form-urlencoded` body as fields, or `undefined` when an escape's bytes are not UTF-8. */
export const parseForm = (text: string): UrlParams.UrlParams | undefined => {
  const fields: Array<[string, string]> = []
  for (const pair of text.split("&")) {
    if (pair === "") continue
    const at = pair.indexOf("=")
    const name = decodeComponent(at < 0 ? pair : pair.slice(0, at))
    const value = decodeComponent(at < 0 ? "" : pair.slice(at + 1))
    if (name === undefined || value === undefined) return undefined
    fields.push([name, value])
  }
  return fields
}

/**
 * The request's form fields; `FormNotUtf8` when they are not UTF-8 text, `FormFieldRepeated` when one is given twice
 * (`multiValued` aside); none when the body cannot be read. (The body's own bytes were read strictly before any route
 * ran, `BodyText.ts`: here the percent-escapes are.)
 */
export const readForm: Effect.Effect<UrlParams.UrlParams, FormNotUtf8 | FormFieldRepeated, HttpServerRequest.HttpServerRequest> =
  Effect.gen(function*() {
    const r = yield* HttpServerRequest.HttpServerRequest
    const params = parseForm(yield* r.text.pipe(Effect.orElseSucceed(() => "")))
    if (params === undefined) return yield* new FormNotUtf8({ message: notUtf8Message })
    const repeated = repeatedField(params)
    return repeated === undefined ? params : yield* new FormFieldRepeated({ field: repeated, message: repeatedMessage(repeated) })
  })

/** A form's fields, once the browser says it was sent from this site (`undefined` otherwise): the dashboard's and portal's posts. */
export const postedForm = (publicOrigin: string | undefined) =>
  Effect.gen(function*() {
    const r = yield* HttpServerRequest.HttpServerRequest
    if (!sameOriginSubmission(r.headers, publicOrigin, r.originalUrl)) return undefined
    return yield* readForm
  })

/** A posted field exactly as sent (empty when absent). */
export const formField = (params: UrlParams.UrlParams, name: string): string =>
  Option.getOrElse(UrlParams.getFirst(params, name), () => "")

/**
 * What a browser sends back for `stored` shown in a control: the HTML parser reads CR and CRLF as LF; an `<input>`
 * then drops line breaks, and a submitted `<textarea>` writes each as CRLF.
 */
export const asSubmitted = (stored: string, control: "input" | "textarea"): string =>
  control === "input" ? stored.replace(/[\r\n]/g, "") : stored.replace(/\r\n|\r|\n/g, "\r\n")

/** `posted`, unless it is `stored` as the control sends it back unedited: then `stored`, byte for byte. */
export const unchanged = (posted: string, stored: string | null | undefined, control: "input" | "textarea"): string =>
  stored !== null && stored !== undefined && posted !== stored && posted === asSubmitted(stored, control) ? stored : posted

/**
 * A `<textarea>`'s content: the HTML parser drops one newline right after the opening tag, so one is always
 * written there, and a value that starts with a newline keeps it.
 */
export const textareaContent = (value: string): string => `\n${value}`

// POST-redirect-GET -----------------------------------------------------------------------------------------------

/** What a change says on the page it redirects to. */
export interface Flash {
  readonly tone: "done" | "alert"
  readonly text: string
}

const mac = (key: string, payload: string) => createHmac("sha256", key).update(payload).digest("base64url")

/** `location` with the flash (signed with `key`, a secret of the session) in its query. */
export const withFlash = (location: string, flash: Flash, key: string): string => {
  const payload = Buffer.from(JSON.stringify([flash.tone, flash.text]), "utf8").toString("base64url")
  return `${location}${location.includes("?") ? "&" : "?"}flash=${payload}.${mac(key, payload)}`
}

/** The flash of a page's query, if it was signed with `key`; anything else shows nothing. */
export const readFlash = (query: URLSearchParams, key: string): Flash | undefined => {
  const [payload = "", signature = ""] = (query.get("flash") ?? "").split(".")
  if (payload === "" || key === "" || payload.length > 4000) return undefined
  const expected = Buffer.from(mac(key, payload))
  const given = Buffer.from(signature)
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined
  try {
    const [tone, text] = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as [unknown, unknown]
    return (tone === "done" || tone === "alert") && typeof text === "string" ? { tone, text } : undefined
  } catch {
    return undefined
  }
}

/** The answer to a change: `303 See Other` to the page that shows its outcome. */
export const seeOther = (location: string, setCookie?: string) =>
  HttpServerResponse.empty({
    status: 303,
    headers: { location, "cache-control": "no-store", ...(setCookie === undefined ? {} : { "set-cookie": setCookie }) }
  })

/** The name of a money form's one-time token field. */
export const onceField = "once"

/**
 * How long a form with a one-time token may be sent: less than the 24 hours its idempotency key is kept
 * (`Idempotency.retention`), so that a form sent again always meets what an earlier send of it did.
 */
export const onceLifetimeMillis = 23 * 3600 * 1000

/**
 * A fresh one-time token for a form that acts once (the handler's idempotency key): when it was made, in base-36
 * milliseconds, then 24 random bytes.
 */
export const onceToken = (now: number = Date.now()): string => `${now.toString(36)}.${randomBytes(24).toString("base64url")}`

/** Whether `token`'s form was made longer ago than it may be sent (`onceLifetimeMillis`); a token without its time is not. */
export const isOutOfDate = (token: string, now: number): boolean => {
  const made = /^([0-9a-z]{1,11})\./.exec(token)
  return made !== null && now - parseInt(made[1]!, 36) > onceLifetimeMillis
}
