/**
 * The client's address, for every per-address rule (the failed-authentication throttle, the dashboard's sign-in
 * throttle, the audit log, the request log). Behind a load balancer the socket's peer is the balancer, so the address
 * is taken from `X-Forwarded-For`, but only through the proxies the operator trusts (`FILS_TRUSTED_PROXIES`): a hop
 * count, or a list of addresses and CIDRs (`proxy-addr`'s names `loopback`, `linklocal`, `uniquelocal` too). By
 * default none is trusted, and a header from anyone is ignored: a client cannot choose its own address.
 */
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Config, ConfigError, Effect, Either, Option } from "effect"
import proxyaddr from "proxy-addr"

/** Which peers may say who the client is: the n nearest hops, or those matching `proxy-addr`'s trust. */
export type Trust = (address: string, hop: number) => boolean

export const trustNone: Trust = () => false

/** `FILS_TRUSTED_PROXIES` as written: empty (none), a hop count, or addresses and CIDRs separated by commas. */
export const parseTrust = (text: string): Either.Either<Trust, string> => {
  const value = text.trim()
  if (value === "" || value === "0") return Either.right(trustNone)
  if (/^[0-9]+$/.test(value)) {
    const hops = Number(value)
    return hops > 32 ? Either.left("a hop count is at most 32") : Either.right((_address, hop) => hop < hops)
  }
  const list = value.split(",").map((part) => part.trim())
  if (list.some((part) => part === "")) return Either.left("an empty entry in the list")
  try {
    return Either.right(proxyaddr.compile(list))
  } catch (error) {
    return Either.left(error instanceof Error ? error.message : String(error))
  }
}

export const TrustedProxies: Config.Config<Trust> = Config.string("FILS_TRUSTED_PROXIES").pipe(
  Config.withDefault(""),
  Config.mapOrFail((text) =>
    Either.mapLeft(parseTrust(text), (reason) =>
      ConfigError.InvalidData(
        ["FILS_TRUSTED_PROXIES"],
        `FILS_TRUSTED_PROXIES must be a hop count or a comma-separated list of addresses or CIDRs (${reason}): '${text}'`
      )))
)

/** The client's address: the socket's peer, or the nearest untrusted address `X-Forwarded-For` names past trusted hops. */
export const clientAddressOf = (
  socketAddress: string | undefined,
  headers: Readonly<Record<string, string | undefined>>,
  trust: Trust
): string | undefined => {
  if (socketAddress === undefined) return undefined
  if (trust === trustNone) return socketAddress
  const forwarded = headers["x-forwarded-for"]
  const request = { headers: forwarded === undefined ? {} : { "x-forwarded-for": forwarded }, socket: { remoteAddress: socketAddress } }
  return proxyaddr(request as never, trust)
}

/** Sets the request's `remoteAddress` to the client's, for everything after it (the rules and the log). */
export const clientAddress = (trust: Trust) =>
  HttpMiddleware.make((app) =>
    trust === trustNone
      ? app
      : Effect.updateService(app, HttpServerRequest.HttpServerRequest, (request) => {
        const address = clientAddressOf(Option.getOrUndefined(request.remoteAddress), request.headers, trust)
        return address === undefined ? request : request.modify({ remoteAddress: address })
      })
  )
