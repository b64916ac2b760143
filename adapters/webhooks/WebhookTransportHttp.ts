/**
 * The WebhookTransport port over node:http(s). An endpoint's host is resolved through a `lookup` hook that
 * refuses internal addresses (in test mode all but loopback), and the connection goes to the very address that was checked, so a DNS answer that
 * changes between the check and the connection (rebinding) cannot reach an internal service. The host is resolved
 * afresh for every attempt, by the system resolver or by given DNS servers (`makeWebhookTransportHttp`). The same
 * lookup answers `checkHost` when an endpoint is created or its url changes.
 */
import { Effect, Layer } from "effect"
import { lookup as dnsLookup, type LookupAddress, Resolver } from "node:dns"
import { request as httpRequest } from "node:http"
import { request as httpsRequest } from "node:https"
import type { LookupFunction } from "node:net"
import { answerLimitBytes, type AttemptOutcome } from "../../src/domain/Delivery.js"
import { isInternalName, isLoopbackAddress, isLoopbackHost, isRefusedAddress } from "../../src/domain/Network.js"
import { type HostCheck, type OutboundRequest, WebhookTransport } from "../../src/ports/WebhookTransport.js"

export class InternalAddressError extends Error {
  override readonly name = "InternalAddressError"
}

/**
 * A `lookup` that resolves like the system but refuses internal addresses; with `allowLoopback` (test mode,
 * docs/decisions.md §7) it lets this machine through and still refuses private, link-local and other internal ones.
 */
export const publicOnlyLookup = (
  resolve: typeof dnsLookup = dnsLookup,
  options: { readonly allowLoopback?: boolean } = {}
): LookupFunction => {
  const livemode = options.allowLoopback !== true
  return (hostname, lookupOptions, callback) => {
    if (isInternalName(hostname) && (livemode || !isLoopbackHost(hostname))) {
      callback(new InternalAddressError(`${hostname} is an internal host`), "", 4)
      return
    }
    resolve(hostname, { ...lookupOptions, all: true }, (error, addresses) => {
      if (error) return callback(error, "", 4)
      const list = (addresses as unknown as ReadonlyArray<LookupAddress>) ?? []
      const internal = list.find((a) => isRefusedAddress(a.address, livemode))
      if (internal !== undefined || list.length === 0) {
        return callback(new InternalAddressError(`${hostname} resolves to an internal address`), "", 4)
      }
      if ((lookupOptions as { all?: boolean }).all) return (callback as any)(null, list)
      callback(null, list[0]!.address, list[0]!.family)
    })
  }
}

/**
 * Resolves `host` through `lookup` (a `publicOnlyLookup`) as a connection would, and says what it found; no answer
 * within `timeoutMillis` (wall-clock, whatever Clock the caller runs on) is `unresolved`.
 */
export const checkHost = (host: string, lookup: LookupFunction, timeoutMillis = 3_000): Promise<HostCheck> =>
  new Promise((resolve) => {
    const timer = setTimeout(() => resolve("unresolved"), timeoutMillis)
    const done = (found: HostCheck) => {
      clearTimeout(timer)
      resolve(found)
    }
    try {
      lookup(host, { all: true }, (error) =>
        done(error === null ? "allowed" : error instanceof InternalAddressError ? "internal" : "unresolved"))
    } catch {
      done("unresolved") // a name the resolver will not even look up
    }
  })

const systemLookups = { live: publicOnlyLookup(), test: publicOnlyLookup(dnsLookup, { allowLoopback: true }) }

const maxResponseBytes = 64 * 1024

/**
 * Sends one attempt. The start of the receiver's answer is kept for the delivery log, except from a receiver on this
 * machine's loopback (test mode lets endpoints point there) unless `keepLoopbackAnswers`: on a server many merchants
 * share, that would let a test key read what local services answer. A server whose public URL is itself on loopback
 * serves only the developer at that machine, and keeps them (`NodeAdapters`).
 */
export const send = (
  request: OutboundRequest,
  lookup?: LookupFunction,
  options: { readonly keepLoopbackAnswers?: boolean } = {}
): Promise<AttemptOutcome> =>
  new Promise((resolve) => {
    const started = performance.now()
    // The start of the answer, for the delivery log: at most `answerLimitBytes`, a character cut short left out.
    const kept: Array<Buffer> = []
    let keptBytes = 0
    let keep = true
    const answer = () => new TextDecoder("utf-8").decode(Buffer.concat(kept), { stream: true })
    const done = (statusCode: number | null, error: string | null) =>
      resolve({
        ok: statusCode !== null && statusCode >= 200 && statusCode < 300,
        statusCode,
        error,
        durationMillis: Math.round(performance.now() - started),
        ...(statusCode === null || !keep ? {} : { answer: answer() })
      })
    let url: URL
    try {
      url = new URL(request.url)
    } catch {
      return done(null, "invalid url")
    }
    // A literal IP skips `lookup`, so it is checked here.
    const host = url.hostname.replace(/^\[|\]$/g, "")
    if (isRefusedAddress(host, request.livemode)) return done(null, "refused: internal address")
    const make = url.protocol === "https:" ? httpsRequest : httpRequest
    const req = make(url, {
      method: "POST",
      headers: { ...request.headers, "content-length": Buffer.byteLength(request.body).toString() },
      timeout: request.timeoutMillis,
      lookup: lookup ?? (request.livemode ? systemLookups.live : systemLookups.test)
    }, (res) => {
      const peer = res.socket?.remoteAddress
      keep = options.keepLoopbackAnswers === true || peer === undefined || !isLoopbackAddress(peer)
      let received = 0
      res.on("data", (chunk: Buffer) => {
        received += chunk.length
        if (keep && keptBytes < answerLimitBytes) {
          const part = chunk.subarray(0, answerLimitBytes - keptBytes)
          kept.push(part)
          keptBytes += part.length
        }
        if (received > maxResponseBytes) res.destroy() // the answer's body is not needed; never buffer much
      })
      res.on("end", () => done(res.statusCode ?? null, null))
      res.on("close", () => done(res.statusCode ?? null, null))
      res.on("error", () => done(res.statusCode ?? null, null))
    })
    const timer = setTimeout(() => req.destroy(new Error("timeout")), request.timeoutMillis)
    req.on("close", () => clearTimeout(timer))
    req.on("timeout", () => req.destroy(new Error("timeout")))
    req.on("error", (error) =>
      done(null, error instanceof InternalAddressError ? `refused: ${error.message}` : error.message || "error"))
    req.end(request.body)
  })

/**
 * A `dns.lookup` (as `publicOnlyLookup` calls it: every address) that asks the given DNS servers (`ip` or
 * `ip:port`) for A and AAAA records instead of the system resolver. No cache: each attempt sees the current answer.
 */
export const resolverLookup = (servers: ReadonlyArray<string>): typeof dnsLookup => {
  const resolver = new Resolver({ timeout: 2_000, tries: 2 })
  resolver.setServers([...servers])
  const records = (family: 4 | 6, hostname: string) =>
    new Promise<ReadonlyArray<LookupAddress>>((resolve, reject) => {
      const done = (error: Error | null, addresses: ReadonlyArray<string>) =>
        error ? reject(error) : resolve(addresses.map((address) => ({ address, family })))
      if (family === 4) resolver.resolve4(hostname, done)
      else resolver.resolve6(hostname, done)
    })
  return ((hostname: string, _options: unknown, callback: (error: Error | null, addresses?: unknown) => void) => {
    void Promise.allSettled([records(4, hostname), records(6, hostname)]).then(([v4, v6]) => {
      const found = [v4, v6].flatMap((r) => (r.status === "fulfilled" ? r.value : []))
      if (found.length > 0) return callback(null, found)
      callback(v4.status === "rejected" ? v4.reason as Error : new Error(`${hostname} has no address`))
    })
  }) as unknown as typeof dnsLookup
}

export interface WebhookTransportHttpOptions {
  /** How endpoints' hosts are resolved (every address is then checked): the system resolver by default. */
  readonly resolve?: typeof dnsLookup
  /** Keep the answers of receivers on this machine's loopback in the delivery log (`send`); off by default. */
  readonly keepLoopbackAnswers?: boolean
}

export const makeWebhookTransportHttp = (options: WebhookTransportHttpOptions = {}) => {
  const live = publicOnlyLookup(options.resolve)
  const test = publicOnlyLookup(options.resolve, { allowLoopback: true })
  return Layer.succeed(
    WebhookTransport,
    WebhookTransport.of({
      send: (request) =>
        Effect.promise(() => send(request, request.livemode ? live : test, { keepLoopbackAnswers: options.keepLoopbackAnswers === true })),
      checkHost: (host, livemode) => Effect.promise(() => checkHost(host, livemode ? live : test))
    })
  )
}

export const WebhookTransportHttp = makeWebhookTransportHttp()
