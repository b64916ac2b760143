/**
 * Whether a form post comes from a page of this server, as far as the browser says (docs/decisions.md §3): the check
 * every server-rendered form shares (checkout, dashboard, portal).
 */
/**
 * An `Origin` header's value as a URL when it is an http(s) origin exactly as browsers serialize one (lower case,
 * no default port, no path, no credentials), else `undefined`.
 */
const parsedOrigin = (value: string): URL | undefined => {
  try {
    const url = new URL(value)
    return (url.protocol === "http:" || url.protocol === "https:") && url.origin === value
      ? url
      : undefined
  } catch {
    return undefined
  }
}

/** A `Host` header's value as `URL.host` writes it for `protocol` (lower case, no default port), if it is one. */
const hostFor = (protocol: string, host: string | undefined): string | undefined => {
  if (host === undefined || host === "" || /[/?#@\\\s]/.test(host)) return undefined
  try {
    return new URL(`${protocol}//${host}`).host
  } catch {
    return undefined
  }
}

/**
 * Whether a form submission comes from a page of this server, as far as the browser says (docs/decisions.md §3): the
 * form token alone cannot tell, since anyone may fetch the page from their own server and read it.
 *
 * - `Sec-Fetch-Site: cross-site` or `same-site` (another site, or another port or subdomain of this one) is refused.
 * - An `Origin` other than where the page was served from is refused: the origin of `FILS_PUBLIC_URL` (its path,
 *   a host framework's mount prefix, plays no part), or the request's own host whatever the scheme: its `Host` (or
 *   `X-Forwarded-Host`) header, or the host of its URL when a fetch-style host hands over an absolute one. A page
 *   on another site cannot set any of these. `Origin: null` (a browser hiding the origin, as Chromium does for a
 *   page under `Referrer-Policy: no-referrer`; the page's own `<meta name="referrer">` avoids that) passes only
 *   when `Sec-Fetch-Site` says `same-origin` or `none`.
 * - Neither header (a script, `curl`, an old browser): nothing to go on; the form token still applies.
 */
export const sameOriginSubmission = (
  headers: Readonly<Record<string, string | undefined>>,
  publicOrigin: string | undefined,
  requestUrl?: string | undefined
): boolean => {
  const site = headers["sec-fetch-site"]?.trim().toLowerCase()
  if (site === "cross-site" || site === "same-site") return false
  const origin = headers["origin"]?.trim()
  if (origin === undefined) return true
  if (origin.toLowerCase() === "null") return site === "same-origin" || site === "none"
  const claimed = parsedOrigin(origin)
  if (claimed === undefined) return false
  if (publicOrigin !== undefined && claimed.origin === publicOrigin) return true
  const forwarded = headers["x-forwarded-host"]?.split(",")[0]?.trim()
  const ownHosts = [headers["host"], forwarded, absoluteHostOf(requestUrl)]
  return ownHosts.some((host) => hostFor(claimed.protocol, host) === claimed.host)
}

/** The host of an absolute http(s) URL (`request.originalUrl` of a fetch-style request); `undefined` for a path. */
const absoluteHostOf = (url: string | undefined) => {
  if (url === undefined || !/^https?:\/\//i.test(url)) return undefined
  try {
    return new URL(url).host
  } catch {
    return undefined
  }
}
