/**
 * The dashboard's language, over HTTP as a browser without JavaScript uses it: the browser's `Accept-Language` as the
 * first guess; the header's `?lang=` switch, remembered in the dashboard's own cookie (the customer pages' one does
 * not turn it); Arabic pages right to left, with the sign-in's refusals, the navigation, statuses and amounts in
 * Arabic; and back to English.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { signInMessages } from "../../src/application/Users.js"
import { dashboardCatalogues } from "../../adapters/http/i18n/dashboard/Catalogues.js"
import { type Served, serveFils } from "../support/cli.js"
import { ok, payThroughForm, type TestDatabase, testDatabase } from "../support/load.js"

let db: TestDatabase
let server: Served
let key = ""
let ownerLink = ""

beforeAll(async () => {
  db = await testDatabase()
  server = await serveFils({ DATABASE_URL: db.url, FILS_DATA_DIR: undefined, FILS_OWNER_EMAIL: "layla@souq.ae" }, 60_000)
  key = /Test key\s+(sk_test_[A-Za-z0-9_-]+)/.exec(server.stdout())![1]!
  ownerLink = /Sign in\s+(http\S+)/.exec(server.stdout())?.[1] ?? ""
}, 90_000)

afterAll(async () => {
  await server?.stop("SIGTERM")
  await db?.close()
}, 30_000)

const request = async (
  path: string,
  options: { readonly cookie?: string; readonly form?: Record<string, string>; readonly acceptLanguage?: string } = {}
) => {
  const response = await fetch(path.startsWith("http") ? path : `${server.baseUrl}${path}`, {
    method: options.form === undefined ? "GET" : "POST",
    redirect: "manual",
    headers: {
      ...(options.cookie === undefined ? {} : { cookie: options.cookie }),
      ...(options.acceptLanguage === undefined ? {} : { "accept-language": options.acceptLanguage }),
      ...(options.form === undefined ? {} : { "content-type": "application/x-www-form-urlencoded", origin: server.baseUrl })
    },
    ...(options.form === undefined ? {} : { body: new URLSearchParams(options.form).toString() })
  })
  return { status: response.status, headers: response.headers, body: await response.text() }
}
const cookieOf = (setCookie: string | null) => (setCookie ?? "").split(";")[0]!
const htmlLang = (body: string) => /<html lang="([a-z]+)" dir="([a-z]+)">/.exec(body)?.slice(1, 3)
const ar = dashboardCatalogues.ar.frame
const en = dashboardCatalogues.en.frame

describe("the dashboard's language", () => {
  let session = ""

  it("is English unless the browser asks for Arabic first", async () => {
    expect(htmlLang((await request("/dashboard/login")).body)).toEqual(["en", "ltr"])
    const arabic = await request("/dashboard/login", { acceptLanguage: "ar-AE,ar;q=0.9,en;q=0.8" })
    expect(htmlLang(arabic.body)).toEqual(["ar", "rtl"])
    expect(arabic.body).toContain(ar.signIn.heading)
    // A guess is not remembered: only a switch is.
    expect(arabic.headers.get("set-cookie")).toBeNull()
    expect(htmlLang((await request("/dashboard/login", { acceptLanguage: "fr-FR, de;q=0.9" })).body)).toEqual(["en", "ltr"])
  })

  it("switches with ?lang=, remembers it in its own cookie, and is not turned by the customer pages' cookie", async () => {
    const switched = await request("/dashboard/login?lang=ar")
    expect(htmlLang(switched.body)).toEqual(["ar", "rtl"])
    const remembered = switched.headers.get("set-cookie") ?? ""
    expect(remembered).toMatch(/^fils_dashboard_lang=ar; /)
    expect(remembered).toContain("HttpOnly")
    expect(htmlLang((await request("/dashboard/login", { cookie: cookieOf(remembered) })).body)).toEqual(["ar", "rtl"])
    // The checkout's switch (fils_lang) turns the customer pages only.
    expect(htmlLang((await request("/dashboard/login", { cookie: "fils_lang=ar" })).body)).toEqual(["en", "ltr"])
    // A value that is not a language is not one.
    expect(htmlLang((await request("/dashboard/login?lang=fr", { cookie: "fils_dashboard_lang=xx" })).body)).toEqual(["en", "ltr"])
  })

  it("words the sign-in's refusals in Arabic by their key, never in the engine's English", async () => {
    const refused = await request("/dashboard/login", {
      cookie: "fils_dashboard_lang=ar",
      form: { email: "nobody@souq.ae", password: "not the password" }
    })
    expect(refused.status).toBe(401)
    expect(refused.body).toContain(ar.engine.wrongCredentials)
    expect(refused.body).not.toContain(signInMessages.wrongCredentials)
    const english = await request("/dashboard/login", { form: { email: "nobody@souq.ae", password: "not the password" } })
    expect(english.body).toContain(signInMessages.wrongCredentials)
    // A form refused before it is read (a field given twice) is worded in Arabic too, not in the English message.
    const twice = await fetch(new URL("/dashboard/login", server.baseUrl), {
      method: "POST",
      redirect: "manual",
      headers: { cookie: "fils_dashboard_lang=ar", "content-type": "application/x-www-form-urlencoded", origin: server.baseUrl },
      body: "email=nobody%40souq.ae&email=other%40souq.ae&password=x"
    })
    expect(twice.status).toBe(400)
    const body = await twice.text()
    expect(body).toContain(ar.formRefused.repeated("email"))
    expect(body).not.toContain("more than once")
  })

  it("shows a signed-in page in Arabic: header, navigation, statuses and amounts; and switches back", async () => {
    const set = await request(ownerLink, { form: { password: "a long enough password 1" } })
    expect(set.status).toBe(303)
    session = cookieOf(set.headers.get("set-cookie"))
    const product = await ok(server.baseUrl, key, "POST", "/products", { name: "Qahwa beans", price: 34_950, currency: "AED" })
    expect((await payThroughForm(server.baseUrl, key, product.product_id, "4242424242424242")).status).toBe(200)

    const arabic = await request("/dashboard/test/payments?lang=ar", { cookie: session })
    expect(arabic.status).toBe(200)
    expect(htmlLang(arabic.body)).toEqual(["ar", "rtl"])
    const lang = cookieOf(arabic.headers.get("set-cookie"))
    expect(lang).toBe("fils_dashboard_lang=ar")
    const cookie = `${session}; ${lang}`
    const home = await request("/dashboard/test", { cookie })
    expect(home.body).toContain(ar.nav.payments)
    expect(home.body).toContain(ar.testMode)
    expect(home.body).toContain(ar.signOut)
    expect(home.body).toContain(`<a href="/dashboard/test" aria-current="page">${ar.nav.home}</a>`)
    // A new account's monthly recurring revenue has no earlier figure to be compared with.
    expect(home.body).toContain(dashboardCatalogues.ar.home.mrrBefore.none)
    // The switch names English in English, and leads back.
    expect(home.body).toContain(`lang="en" data-testid="language-switch">${en.languageName}</a>`)
    // The payment's status and amount as Arabic writes them.
    expect(arabic.body).toContain(ar.status.succeeded)
    expect(arabic.body).toContain(new Intl.NumberFormat("ar-AE", { style: "currency", currency: "AED" }).format(349.5))

    // The switch keeps the page as it is (its filters), only in the other language.
    const filtered = await request("/dashboard/test/payments?status=succeeded&q=349.50", { cookie })
    expect(filtered.body).toContain(`href="?status=succeeded&amp;q=349.50&amp;lang=en" hreflang="en"`)

    const back = await request("/dashboard/test?lang=en", { cookie })
    expect(htmlLang(back.body)).toEqual(["en", "ltr"])
    expect(cookieOf(back.headers.get("set-cookie"))).toBe("fils_dashboard_lang=en")
    expect(back.body).toContain(`>${en.nav.payments}</a>`)
    expect(back.body).toContain(dashboardCatalogues.en.home.mrrBefore.none)
  })
})
