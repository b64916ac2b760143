/**
 * The engine's `Settings` from the server's configuration (docs/configuration.md): the one place the use cases'
 * settings are read, at the edge. Checked as read: a bad value is a `ConfigError` naming it.
 */
import { Config, Duration, Layer } from "effect"
import { defaults, Settings } from "../../src/application/Settings.js"

const positive = { message: "must be a positive integer", validation: (n: number) => n > 0 }

/** The fee schedule: `FILS_FEE_BPS` and `FILS_FEE_FIXED`. */
export const FeeConfig = Config.all({
  bps: Config.integer("FILS_FEE_BPS").pipe(Config.withDefault(defaults.fees.bps)),
  fixed: Config.integer("FILS_FEE_FIXED").pipe(Config.withDefault(defaults.fees.fixed))
})

/** `FILS_PUBLIC_URL`, without a trailing slash. */
export const PublicUrlConfig = Config.string("FILS_PUBLIC_URL").pipe(
  Config.withDefault(defaults.publicUrl),
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
