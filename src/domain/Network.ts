/**
 * Which addresses a live webhook may not reach (decisions.md §7): loopback, private, link-local and other
 * internal or special-purpose ranges, in IPv4 and IPv6. Checked on the URL at creation and on every resolved
 * address at delivery time, so a DNS change cannot turn an endpoint internal.
 */

const ipv4 = (s: string): ReadonlyArray<number> | undefined => {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s)
  if (m === null) return undefined
  const parts = m.slice(1).map(Number)
  return parts.every((p) => p <= 255) ? parts : undefined
}

const internalV4 = ([a, b, c]: ReadonlyArray<number>): boolean =>
  a === 0 || // "this" network
  a === 10 || // private
  a === 127 || // loopback
  (a === 100 && b! >= 64 && b! <= 127) || // carrier-grade NAT
  (a === 169 && b === 254) || // link-local (cloud metadata lives here)
  (a === 172 && b! >= 16 && b! <= 31) || // private
  (a === 192 && b === 168) || // private
  (a === 192 && b === 0 && (c === 0 || c === 2)) || // IETF protocol assignments, TEST-NET-1
  (a === 198 && (b === 18 || b === 19)) || // benchmarking
  a! >= 224 // multicast, reserved, broadcast

/** Expands an IPv6 text form into eight 16-bit groups; undefined when it is not one. */
const ipv6 = (raw: string): ReadonlyArray<number> | undefined => {
  let s = raw.startsWith("[") && raw.endsWith("]") ? raw.slice(1, -1) : raw
  const zone = s.indexOf("%")
  if (zone !== -1) s = s.slice(0, zone)
  if (!s.includes(":")) return undefined
  // An embedded IPv4 tail (::ffff:10.0.0.1) becomes two groups.
  const v4tail = /(\d{1,3}(?:\.\d{1,3}){3})$/.exec(s)
  if (v4tail) {
    const v4 = ipv4(v4tail[1]!)
    if (v4 === undefined) return undefined
    s = s.slice(0, -v4tail[1]!.length) + `${((v4[0]! << 8) | v4[1]!).toString(16)}:${((v4[2]! << 8) | v4[3]!).toString(16)}`
  }
  const halves = s.split("::")
  if (halves.length > 2) return undefined
  const head = halves[0] === "" ? [] : halves[0]!.split(":")
  const tail = halves.length === 2 ? (halves[1] === "" ? [] : halves[1]!.split(":")) : []
  const missing = 8 - head.length - tail.length
  if ((halves.length === 1 && missing !== 0) || missing < 0) return undefined
  const groups = [...head, ...new Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...tail]
  if (groups.length !== 8 || !groups.every((g) => /^[0-9a-f]{1,4}$/i.test(g))) return undefined
  return groups.map((g) => parseInt(g, 16))
}

const internalV6 = (g: ReadonlyArray<number>): boolean => {
  if (g.slice(0, 7).every((x) => x === 0)) return g[7] === 0 || g[7] === 1 // unspecified, loopback
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) {
    return internalV4([g[6]! >> 8, g[6]! & 0xff, g[7]! >> 8, g[7]! & 0xff]) // IPv4-mapped
  }
  if (g[0] === 0x64 && g[1] === 0xff9b) return true // NAT64: may reach internal IPv4
  return (g[0]! & 0xfe00) === 0xfc00 || // unique local
    (g[0]! & 0xffc0) === 0xfe80 || // link-local
    (g[0]! & 0xff00) === 0xff00 || // multicast
    (g[0] === 0x2001 && g[1] === 0xdb8) // documentation
}

/** Whether `address` (an IPv4 or IPv6 literal) is internal; false for anything that is not an IP literal. */
export const isInternalAddress = (address: string): boolean => {
  const v4 = ipv4(address)
  if (v4 !== undefined) return internalV4(v4)
  const v6 = ipv6(address)
  return v6 !== undefined && internalV6(v6)
}

export const isIpLiteral = (host: string): boolean => ipv4(host) !== undefined || ipv6(host) !== undefined

/** Host names that always mean this machine or its private network, whatever DNS says. */
export const isInternalName = (host: string): boolean => {
  const h = host.toLowerCase().replace(/\.$/, "")
  return h === "localhost" || h.endsWith(".localhost") || h.endsWith(".local") || h.endsWith(".internal") ||
    h === "metadata.google.internal" || !h.includes(".")
}

/** Whether a URL's host (name or literal) is internal on its face, before any DNS lookup. */
export const isInternalHost = (host: string): boolean =>
  isIpLiteral(host) ? isInternalAddress(host) : isInternalName(host)

/** Whether `address` (an IP literal) is this machine: 127.0.0.0/8, ::1, or IPv4-mapped loopback. */
export const isLoopbackAddress = (address: string): boolean => {
  const v4 = ipv4(address)
  if (v4 !== undefined) return v4[0] === 127
  const g = ipv6(address)
  if (g === undefined) return false
  if (g.slice(0, 7).every((x) => x === 0)) return g[7] === 1
  return g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff && g[6]! >> 8 === 127
}

/** Whether a URL's host names this machine on its face (`localhost`, `*.localhost`, a loopback literal). */
export const isLoopbackHost = (host: string): boolean => {
  const h = host.toLowerCase().replace(/\.$/, "").replace(/^\[|\]$/g, "")
  return isIpLiteral(h) ? isLoopbackAddress(h) : h === "localhost" || h.endsWith(".localhost")
}

/**
 * Whether a webhook may not reach `host` (decisions.md §7): in live mode any internal host; in test mode the same
 * less loopback, so a merchant can point test deliveries at a receiver on their own machine, but never at a
 * private network or a cloud metadata address.
 */
export const isRefusedHost = (host: string, livemode: boolean): boolean =>
  isInternalHost(host) && (livemode || !isLoopbackHost(host))

/** The same rule for one resolved address. */
export const isRefusedAddress = (address: string, livemode: boolean): boolean =>
  isInternalAddress(address) && (livemode || !isLoopbackAddress(address))
