/**
 * The dashboard's languages: the Arabic catalogue words every English string (the typecheck already refuses a missing
 * key; this refuses one left empty, left in English or copied), and no page module keeps words of its own outside the
 * catalogues.
 */
import { readdirSync, readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { counted, dayForms } from "../../../adapters/http/i18n/dashboard/ar/counts.js"
import { dashboardCatalogues } from "../../../adapters/http/i18n/dashboard/Catalogues.js"

/** Every leaf of a catalogue by its dotted path: strings and the functions that word a sentence from its parts. */
const leaves = (value: unknown, path = ""): ReadonlyArray<readonly [string, unknown]> =>
  typeof value === "object" && value !== null && !("__html" in value)
    ? Object.entries(value).flatMap(([key, child]) => leaves(child, path === "" ? key : `${path}.${key}`))
    : [[path, value]]

/**
 * What a sentence's function is called with when the table below gives nothing: a value that reads as `7` wherever a
 * string or number is wanted, and as itself for any property (an object's field, an array's `map`).
 */
const anything: unknown = new Proxy(function() {}, {
  get: (_, key) =>
    key === Symbol.toPrimitive ? (hint: string) => (hint === "number" ? 7 : "7") : key === "length" ? 1 : key === Symbol.iterator ? [][Symbol.iterator] : anything,
  apply: () => anything
})

/** Arguments for the sentences `anything` cannot stand in for (a choice between words by a value). */
const samples: Readonly<Record<string, ReadonlyArray<unknown>>> = {
  "frame.switchTo": [true],
  "frame.who": ["ana@souq.ae", "owner"],
  "frame.refused": ["amount must be at most AED 12.00"],
  "frame.fieldRefused": ["must be at most 5000 characters"],
  "frame.cannot": ["Subscription sub_1 is cancelled; cannot change its plan"],
  "frame.rateLimited": [42, "Too many sign-in attempts; try again in 42 seconds"],
  "payments.refused.note": ["must be at most 500 characters"],
  "payments.confirm.webhooks": ["refund.succeeded"],
  "customers.clock.advanceTo": ["ISO 8601"],
  "customers.clock.refused": ["ISO 8601", "2027-01-31T09:00:00Z"],
  "products.list.every": ["month", 3],
  "discounts.onSubscription": ["10 %", 3],
  "subscriptions.schedule": ["AED 45.00", "month", 3],
  "subscriptions.cancel.webhooks": ["subscription.cancelled"],
  "subscriptions.charge.declined": ["card_declined"],
  "developers.endpoint.testLabel": ["test", "true"],
  "developers.endpoint.recoverLabel": ["Asia/Dubai", "YYYY-MM-DD HH:MM"],
  "developers.done.testQueued": ["payment.succeeded"],
  "developers.done.chooseType": ["payment.succeeded, payment.failed"],
  "developers.done.badSince": ["YYYY-MM-DD HH:MM", "Asia/Dubai", "yesterday"],
  "requestLogs.list.status": ["404", "4xx"],
  "requestLogs.deliveryStatus": ["succeeded"]
}

/** Arabic sentences that rightly hold no Arabic letter (names, codes and amounts, and words already worded). */
const noLetters = new Set([
  "frame.who",
  "frame.common.appliedDiscount",
  "home.attention.onHold",
  "payments.why",
  "planPolicy.coded",
  "planChanges.plan"
])

/** Latin words an Arabic page writes as they are: codes, formats and names a merchant reads in any language. */
const latinWords = new Set([
  "AED",
  "API",
  "CSV",
  "URL",
  "TRN",
  "PINT",
  "AE",
  "JSON",
  "HTTP",
  "HTTPS",
  "TOTP",
  "XML",
  "UBL",
  "PDF",
  "UTC",
  "GMT",
  "Peppol",
  "IANA",
  "ID",
  "MM",
  "YY",
  "HMAC",
  "SHA",
  "QR"
])

const text = (value: unknown) => String(typeof value === "object" && value !== null && "__html" in value ? (value as { __html: string }).__html : value)

describe("Arabic counts", () => {
  it("take the noun's form by the number: one, two, 3–10, 11–99, round hundreds, and none", () => {
    expect([0, 1, 2, 5, 10, 14, 99, 100, 103, 111, 200, 365].map((n) => counted(n, dayForms))).toEqual([
      "0 أيام",
      "يوم واحد",
      "يومين",
      "5 أيام",
      "10 أيام",
      "14 يومًا",
      "99 يومًا",
      "100 يوم",
      "103 أيام",
      "111 يومًا",
      "200 يوم",
      "365 يومًا"
    ])
  })
})

describe("the dashboard's catalogues", () => {
  const english = new Map(leaves(dashboardCatalogues.en))
  const arabic = new Map(leaves(dashboardCatalogues.ar))

  it("have the same keys in both languages", () => {
    expect([...arabic.keys()].sort()).toEqual([...english.keys()].sort())
  })

  it("translate every English string into Arabic, none empty, copied or left with English words", () => {
    const untranslated: Array<string> = []
    for (const [path, en] of english) {
      const ar = arabic.get(path)
      let [enText, arText]: [string, string] = ["", ""]
      if (typeof en === "function") {
        if (typeof ar !== "function") {
          untranslated.push(`${path}: not a function`)
          continue
        }
        const args = samples[path] ?? Array.from({ length: Math.max(en.length, ar.length) }, () => anything)
        try {
          ;[enText, arText] = [text(en(...args)), text(ar(...args))]
        } catch (error) {
          untranslated.push(`${path}: needs sample arguments (${String(error)})`)
          continue
        }
      } else {
        ;[enText, arText] = [text(en), text(ar)]
      }
      if (path === "frame.languageName") continue
      const words = arText.replace(/<[^>]*>/g, " ").replace(/&[a-z]+;/g, " ")
      if (arText.trim() === "" || arText === enText) untranslated.push(`${path}: ${arText}`)
      else if (!noLetters.has(path) && !/[\u0600-\u06FF]/.test(words)) untranslated.push(`${path}: no Arabic in ${arText}`)
      else {
        // The engine's own words, quoted after an Arabic introduction, are the only English an Arabic sentence holds.
        const own = samples[path]?.filter((a): a is string => typeof a === "string") ?? []
        const rest = own.reduce((left, quoted) => left.split(quoted).join(" "), words)
        const latin = (rest.match(/[A-Za-z]{2,}/g) ?? []).filter((w) => !latinWords.has(w))
        if (latin.length > 0) untranslated.push(`${path}: English words ${latin.join(", ")} in ${arText}`)
      }
    }
    expect(untranslated).toEqual([])
  })
})

/**
 * The static text of every template literal in `code`, an expression standing as U+0000; `html` tells whether it was
 * an `html` template. Templates inside expressions are found too.
 */
const templates = (code: string): ReadonlyArray<{ readonly html: boolean; readonly text: string }> => {
  const found: Array<{ readonly html: boolean; readonly text: string }> = []
  const skipString = (j: number) => {
    const quote = code[j]
    for (j++; j < code.length && code[j] !== quote; j++) if (code[j] === "\\") j++
    return j + 1
  }
  // From just after an opening backtick to just after its closing one.
  const template = (j: number, isHtml: boolean): number => {
    let text = ""
    while (j < code.length && code[j] !== "`") {
      if (code[j] === "\\") {
        text += code.slice(j, j + 2)
        j += 2
      } else if (code.startsWith("${", j)) {
        j = expression(j + 2)
        text += "\u0000"
      } else text += code[j++]
    }
    found.push({ html: isHtml, text })
    return j + 1
  }
  // From just after `${` to just after its `}`.
  const expression = (j: number): number => {
    let depth = 1
    while (j < code.length && depth > 0) {
      const c = code[j]!
      if (c === "`") j = template(j + 1, code.slice(Math.max(0, j - 4), j) === "html")
      else if (c === '"' || c === "'") j = skipString(j)
      else {
        if (c === "{") depth++
        if (c === "}") depth--
        j++
      }
    }
    return j
  }
  for (let i = 0; i < code.length;) {
    const c = code[i]!
    if (c === "`") i = template(i + 1, code.slice(Math.max(0, i - 4), i) === "html")
    else if (c === '"' || c === "'") i = skipString(i)
    else i++
  }
  return found
}

const hasWord = (text: string) => /[A-Za-z]{2,}/.test(text)

/**
 * Words a dashboard module writes itself rather than take from the catalogues: a text node of an `html` template
 * (`<th>Amount</th>`), an attribute a person reads (`aria-label="Payments"`), or a phrase of two words or more in a
 * string or a template (`"Checkout link made"`). Comments, log lines and the stylesheet are not read.
 */
const ownWords = (source: string): ReadonlyArray<string> => {
  const code = source
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .split("\n")
    .filter((line) => !/^\s*\/\//.test(line) && !/Effect\.log|logError|logWarning|logInfo|logDebug/.test(line))
    .join("\n")
    .replace(/const styles = `[\s\S]*?`\n/, "")
  const found: Array<string> = []
  const phrase = /^[A-Z][a-z']+ .*[a-z]{2}/
  for (const { html, text } of templates(code)) {
    if (html) {
      for (const tag of text.match(/<[^>]*>/g) ?? []) {
        for (const m of tag.matchAll(/(?:aria-label|title|placeholder|alt|data-label)="([^"]*)"/g)) {
          found.push(...m[1]!.split("\u0000").filter(hasWord))
        }
      }
      // Text between tags (not a fragment of a tag's attributes, `aria-label="${…}"`).
      found.push(
        ...text.replace(/<[^>]*>/g, "\u0000").replace(/&[a-z#0-9]+;/g, " ").split("\u0000").filter((part) => hasWord(part) && !part.includes("=\""))
      )
    } else if (phrase.test(text.replace(/\u0000/g, "7").trim())) found.push(text.replace(/\u0000/g, "…"))
  }
  for (const m of code.matchAll(/"([A-Z][a-z']+(?: [^"\n]+)+)"/g)) found.push(m[1]!)
  return [...new Set(found.map((w) => w.trim()).filter(hasWord))]
}

/**
 * Modules allowed words of their own: `Fields.ts` restates a schema's issue in the engine's English (`This is
 * required`), which the pages show through `Pages.fieldErrorsIn` (translated by key, or introduced in the page's
 * language).
 */
const pending = new Set([
  "Fields.ts"
])

describe("the dashboard's modules", () => {
  const dir = new URL("../../../adapters/http/dashboard/", import.meta.url)
  const modules = readdirSync(dir).filter((name) => name.endsWith(".ts"))

  it("finds the words a module writes itself (the check below can fail)", () => {
    expect(ownWords("const page = html`<th>Amount</th><td>${x} paid ${y ? html`<b>Yes</b>` : \"\"}</td>`; kit.done(f, to, \"Checkout link made\")"))
      .toEqual(["Yes", "Amount", "paid", "Checkout link made"])
    expect(ownWords("html`<a aria-label=\"Open it\" href=\"${u}\">${t.open}</a>`; const x: Effect.Effect<A, B> = label(`From ${day} on`)"))
      .toEqual(["Open it", "From … on"])
    expect(ownWords("html`<th>${t.amount}</th><input value=\"${v}\" required>` // Amount\nEffect.logError(\"Dashboard page failed\")")).toEqual([])
  })

  it.each(modules.filter((name) => !pending.has(name)))("%s takes every word from the catalogues", (name) => {
    expect(ownWords(readFileSync(new URL(name, dir), "utf8"))).toEqual([])
  })
})
