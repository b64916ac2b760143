/**
 * Which addresses a live webhook may reach (docs/decisions.md §7): global unicast only, in IPv4 and IPv6, decided by an
 * allow-list, so loopback, private, link-local and every other internal or special-purpose range are refused. Checked on the URL at creation and on every resolved
 * address at delivery time, so a DNS change cannot turn an endpoint internal.
 */

const ipv4 = (s: string): ReadonlyArray<number> | undefined => {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s)
  if (m === null) return undefined
  const parts = m.slice(1).map(Number)
  return parts.every((p) => p <= 255) ? parts : undefined
}

const v4Number = (o: ReadonlyArray<number>): number => ((o[0]! << 24) | (o[1]! << 16) | (o[2]! << 8) | o[3]!) >>> 0

const v4Block = (text: string, bits: number) => ({ base: v4Number(ipv4(text)!), bits })

/**
 * Every IPv4 block that is not global unicast (IANA's special-purpose registry, as ipaddr.js names them): a live
 * endpoint may reach any other address. An allow-list by construction: what is not known to be public is refused.
 */
const nonGlobalV4 = [
  v4Block("0.0.0.0", 8), // "this" network
  v4Block("10.0.0.0", 8), // private
  v4Block("100.64.0.0", 10), // carrier-grade NAT
  v4Block("127.0.0.0", 8), // loopback
  v4Block("169.254.0.0", 16), // link-local (cloud metadata lives here)
  v4Block("172.16.0.0", 12), // private
  v4Block("192.0.0.0", 24), // IETF protocol assignments
  v4Block("192.0.2.0", 24), // TEST-NET-1
  v4Block("192.31.196.0", 24), // AS112
  v4Block("192.52.193.0", 24), // AMT
  v4Block("192.88.99.0", 24), // 6to4 relay anycast
  v4Block("192.168.0.0", 16), // private
  v4Block("192.175.48.0", 24), // AS112
  v4Block("198.18.0.0", 15), // benchmarking
  v4Block("198.51.100.0", 24), // TEST-NET-2
  v4Block("203.0.113.0", 24), // TEST-NET-3
  v4Block("224.0.0.0", 4), // multicast
  v4Block("240.0.0.0", 4) // reserved, broadcast
]

const inV4Block = (n: number, { base, bits }: { readonly base: number; readonly bits: number }) =>
  bits === 0 || (n >>> (32 - bits)) === (base >>> (32 - bits))

const globalV4 = (o: ReadonlyArray<number>): boolean => {
  const n = v4Number(o)
  return !nonGlobalV4.some((block) => inV4Block(n, block))
}

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

/** The IPv4 address an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) stands for. */
const mappedV4 = (g: ReadonlyArray<number>): ReadonlyArray<number> | undefined =>
  g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff ? [g[6]! >> 8, g[6]! & 0xff, g[7]! >> 8, g[7]! & 0xff] : undefined

/**
 * Global unicast IPv6: inside 2000::/3 and outside its special blocks. Everything else is refused, including every
 * form that embeds or tunnels to an IPv4 address (IPv4-compatible `::/96`, SIIT `::ffff:0:0:0/96`, NAT64, 6to4,
 * Teredo) and the deprecated site-local `fec0::/10`, except an IPv4-mapped address, which is its IPv4 address.
 */
const globalV6 = (g: ReadonlyArray<number>): boolean => {
  const mapped = mappedV4(g)
  if (mapped !== undefined) return globalV4(mapped)
  const [a, b, c] = [g[0]!, g[1]!, g[2]!]
  return (a & 0xe000) === 0x2000 && // 2000::/3
    !(a === 0x2001 && b < 0x200) && // 2001::/23: Teredo, benchmarking, AMT, AS112, ORCHID, …
    !(a === 0x2001 && b === 0xdb8) && // documentation
    a !== 0x2002 && // 6to4
    !(a === 0x2620 && b === 0x4f && c === 0x8000) && // AS112
    !(a === 0x3fff && b < 0x1000) // 3fff::/20, documentation
}

/** Whether `address` (an IPv4 or IPv6 literal) is global unicast: an address anyone on the internet can reach. */
export const isGlobalAddress = (address: string): boolean => {
  const v4 = ipv4(address)
  if (v4 !== undefined) return globalV4(v4)
  const v6 = ipv6(address)
  return v6 !== undefined && globalV6(v6)
}

/** Whether `address` (an IPv4 or IPv6 literal) is not global unicast; false for anything that is not an IP literal. */
export const isInternalAddress = (address: string): boolean => isIpLiteral(address) && !isGlobalAddress(address)

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
 * Whether a webhook may not reach `host` (docs/decisions.md §7): in live mode any internal host; in test mode the same
 * less loopback, so a merchant can point test deliveries at a receiver on their own machine, but never at a
 * private network or a cloud metadata address.
 */
export const isRefusedHost = (host: string, livemode: boolean): boolean =>
  isInternalHost(host) && (livemode || !isLoopbackHost(host))

/** The same rule for one resolved address. */
export const isRefusedAddress = (address: string, livemode: boolean): boolean =>
  isInternalAddress(address) && (livemode || !isLoopbackAddress(address))
