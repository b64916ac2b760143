/** A dashboard user signed in over HTTP, for tests that post the dashboard's forms to an in-process server. */
import { Effect, Redacted } from "effect"
import { randomUUID } from "node:crypto"
import { Users } from "../../src/application/Users.js"
import type { TestServer } from "./server.js"

/** An owner of account A signed in to the dashboard: a GET, or a POST of a form with its CSRF token. */
export const dashboardAs = async (s: TestServer) => {
  const owner = `owner-${randomUUID()}@a.example`
  const { csrf, token } = await s.run(Effect.gen(function*() {
    const users = yield* Users
    const made = yield* users.create(s.accountA.accountId, owner, "owner")
    const signed = yield* users.redeem(made.token, Redacted.make("a long enough password"))
    return { token: Redacted.value(signed.token), csrf: signed.session.csrf_token }
  }) as Effect.Effect<{ readonly csrf: string; readonly token: string }, unknown, never>)
  const cookie = `fils_session=${token}`
  /** A page of the test mode (`/products`), or, starting with `/dashboard/`, one outside the modes (the settings). */
  const page = (path: string, form?: Record<string, string>) =>
    fetch(`${s.origin}${path.startsWith("/dashboard/") ? "" : "/dashboard/test"}${path}`, {
      method: form === undefined ? "GET" : "POST",
      redirect: "manual",
      headers: {
        cookie,
        ...(form === undefined ? {} : { "content-type": "application/x-www-form-urlencoded", origin: s.origin })
      },
      ...(form === undefined ? {} : { body: new URLSearchParams({ ...form, csrf_token: csrf }).toString() })
    }).then(async (r) => ({ status: r.status, location: r.headers.get("location"), body: await r.text() }))
  return Object.assign(page, { cookie })
}
