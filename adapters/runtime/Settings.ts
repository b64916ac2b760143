/**
 * The engine's `Settings` from the server's configuration (docs/configuration.md): the one place the use cases'
 * settings are read, at the edge. Checked as read: a bad value is a `ConfigError` naming it.
 */
import { Config, ConfigError, Duration, Layer } from "effect"
import { defaults, Settings } from "../../src/application/Settings.js"

const positive = { message: "must be a positive integer", validation: (n: number) => n > 0 }

/** The fee schedule: `FILS_FEE_BPS` and `FILS_FEE_FIXED`. */
export const FeeConfig = Config.all({
  bps: Config.integer("FILS_FEE_BPS").pipe(Config.withDefault(defaults.fees.bps)),
  fixed: Config.integer("FILS_FEE_FIXED").pipe(Config.withDefault(defaults.fees.fixed))
})

/** Where a server listening on `host` and `port` is reached from this machine (all interfaces: on loopback). */
export const localUrl = (options: { readonly host: string; readonly port: number }) => {
  const host = options.host === "0.0.0.0" ? "127.0.0.1" : options.host === "::" ? "::1" : options.host
  return `http://${host.includes(":") ? `[${host}]` : host}:${options.port}`
}

/** The second name of a setting, read only when the first is not set at all (a bad value is refused, not passed over). */
export const orWhenMissing = <A>(second: Config.Config<A>) => (first: Config.Config<A>) =>
  Config.orElseIf(first, { if: ConfigError.isMissingDataOnly, orElse: () => second })

/** `FILS_PORT`, else `PORT` (the port a hosting platform gives the process). */
export const PortConfig = Config.integer("FILS_PORT").pipe(orWhenMissing(Config.integer("PORT")))
/** `FILS_HOST`, else `HOST`. */
export const HostConfig = Config.string("FILS_HOST").pipe(orWhenMissing(Config.string("HOST")))

/**
 * This machine's server as `fils serve` listens without options (`HostConfig`, else 127.0.0.1; `PortConfig`, else
 * 4242): what the CLI's links and requests default to.
 */
export const LocalUrlConfig = Config.all({
  host: HostConfig.pipe(Config.withDefault("127.0.0.1")),
  port: PortConfig.pipe(Config.withDefault(4242))
}).pipe(Config.map(localUrl))

/** `FILS_PUBLIC_URL`, without a trailing slash; else this machine's server (`LocalUrlConfig`). */
export const PublicUrlConfig = Config.string("FILS_PUBLIC_URL").pipe(
  orWhenMissing(LocalUrlConfig),
  Config.map((url) => url.replace(/\/+$/, ""))
)

/** `FILS_REQUEST_LOG_RETENTION_DAYS`: whole days, 0 (no request logs) to 365. */
export const RequestLogRetentionConfig = Config.integer("FILS_REQUEST_LOG_RETENTION_DAYS").pipe(
  Config.withDefault(Duration.toDays(defaults.requestLogRetention)),
  Config.validate({ message: "must be a whole number of days from 0 (no request logs) to 365", validation: (n) => n >= 0 && n <= 365 }),
  Config.map(Duration.days)
)

export const SettingsConfig = Config.all({
  publicUrl: PublicUrlConfig,
  fees: FeeConfig,
  rateLimitPerMinute: Config.integer("FILS_RATE_LIMIT_PER_MIN").pipe(
    Config.withDefault(defaults.rateLimitPerMinute),
    Config.validate(positive)
  ),
  authFailuresPerMinute: Config.integer("FILS_AUTH_FAILURES_PER_MIN").pipe(
    Config.withDefault(defaults.authFailuresPerMinute),
    Config.validate(positive)
  ),
  keyCacheTtl: Config.duration("FILS_KEY_CACHE_TTL").pipe(Config.withDefault(defaults.keyCacheTtl)),
  requestLogRetention: RequestLogRetentionConfig,
  requestLogBuffer: Config.integer("FILS_REQUEST_LOG_BUFFER").pipe(
    Config.withDefault(defaults.requestLogBuffer),
    Config.validate(positive)
  )
})

export const SettingsFromConfig = Layer.effect(Settings, SettingsConfig)
