/**
 * Where a sign-in returns to. A signed-out visit to a dashboard page is sent to the sign-in form with the page as
 * `next`, and the sign-in (its second step too) leads back there. Only a page of this dashboard is a target: `next`
 * is resolved as a browser would resolve it (dot segments, `%2e%2e` among them), and anything that does not land on
 * this site under the dashboard (another site, a protocol-relative path, a path outside the dashboard) leads Home.
 */

/** The page a sign-in leads to when `next` names none: Home in test mode. */
export const home = (base: string) => `${base}/test`

/** A stand-in origin: `next` is resolved against it, and must stay on it. */
const here = "http://fils.invalid"

/** `next` when it is a page of the dashboard at `base`, as the resolved path and query (ASCII only), else undefined. */
export const pageOf = (base: string, next: string | null | undefined): string | undefined => {
  if (next === null || next === undefined || next.length > 2000 || !next.startsWith("/") || /[\\\u0000-\u001f\u007f]/.test(next)) {
    return undefined
  }
  let url: URL
  try {
    url = new URL(next, here)
  } catch {
    return undefined
  }
  return url.origin === here && url.pathname.startsWith(`${base}/`) ? `${url.pathname}${url.search}` : undefined
}

/** Where a sign-in leads: `next` when it is a page of the dashboard, else Home. */
export const after = (base: string, next: string | null | undefined): string => pageOf(base, next) ?? home(base)

/** A path of the sign-in flow (`${base}/login`, `${base}/login/code`) carrying `next` when it is a page other than Home. */
export const carrying = (path: string, base: string, next: string | null | undefined): string => {
  const page = pageOf(base, next)
  return page === undefined || page === home(base) ? path : `${path}?${new URLSearchParams({ next: page })}`
}
