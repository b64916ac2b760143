/**
 * Where a sign-in returns to. A signed-out visit to a dashboard page is sent to the sign-in form with the page as
 * `next`, and the sign-in (its second step too) leads back there. Only a page of this dashboard is a target: anything
 * else (another site, a protocol-relative or dot-segment path, a path outside the dashboard) leads to Home, so `next`
 * can never send a user away from the site.
 */

/** The page a sign-in leads to when `next` names none: Home in test mode. */
export const home = (base: string) => `${base}/test`

/** `next` when it is a page of the dashboard at `base`, else undefined. */
export const pageOf = (base: string, next: string | null | undefined): string | undefined =>
  next !== null && next !== undefined && next.length <= 2000 && next.startsWith(`${base}/`) &&
    !/[\\\s\u0000-\u001f\u007f]|\/\/|\/\.\.?(?:[/?#]|$)/.test(next)
    ? next
    : undefined

/** Where a sign-in leads: `next` when it is a page of the dashboard, else Home. */
export const after = (base: string, next: string | null | undefined): string => pageOf(base, next) ?? home(base)

/** A path of the sign-in flow (`${base}/login`, `${base}/login/code`) carrying `next` when it is a page other than Home. */
export const carrying = (path: string, base: string, next: string | null | undefined): string => {
  const page = pageOf(base, next)
  return page === undefined || page === home(base) ? path : `${path}?${new URLSearchParams({ next: page })}`
}
