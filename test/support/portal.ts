/**
 * Opening a customer portal link as a browser does: the link's GET shows a page (and sets the page's cookie), its
 * button posts back to the same path from that page. The browser session's cookie (`name=value`).
 */
import { expect } from "vitest"

export const openPortalLink = async (url: string): Promise<string> => {
  const shown = await fetch(url, { redirect: "manual" })
  const body = await shown.text()
  expect(shown.status, body.slice(0, 300)).toBe(200)
  const openToken = /name="open_token" value="([^"]+)"/.exec(body)?.[1] ?? ""
  const opened = await fetch(url, {
    method: "POST",
    redirect: "manual",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      origin: new URL(url).origin,
      cookie: shown.headers.getSetCookie().map((c) => c.split(";")[0]!).join("; ")
    },
    body: new URLSearchParams({ open_token: openToken }).toString()
  })
  expect(opened.status, await opened.text()).toBe(303)
  return opened.headers.getSetCookie().map((c) => c.split(";")[0]!).find((c) => /^(__Host-)?fils_portal=/.test(c)) ?? ""
}
