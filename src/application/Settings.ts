/**
 * What the operator or an embedding team decides for the engine (docs/configuration.md), as one service read by
 * the use cases. The use cases never read the environment: the edge provides `Settings` (the server reads it from
 * its configuration, `SettingsFromConfig` in adapters/runtime), and without one the defaults apply.
 */
import { Context, Duration, Layer } from "effect"
import type { FeeSchedule } from "../domain/Payment.js"
import { defaultFees } from "../domain/Payment.js"

export interface EngineSettings {
  /** Where customers reach the hosted pages: checkout and portal links start with it (no trailing slash). */
  readonly publicUrl: string
  /** The fee on each payment (docs/decisions.md §5). */
  readonly fees: FeeSchedule
  /** Requests per API key per rolling minute. */
  readonly rateLimitPerMinute: number
  /** Failed authentications per client address per minute. */
  readonly authFailuresPerMinute: number
  /** How long a looked-up API key is trusted before it is read again (a revocation is heard at once regardless). */
  readonly keyCacheTtl: Duration.Duration
  /** How long API requests' log lines are kept (docs/api.md, "Request logs"); zero logs none. */
  readonly requestLogRetention: Duration.Duration
  /**
   * Log lines waiting to be written, at most: a request never waits for its line, so when the store falls behind
   * this far, further lines are dropped (and counted) rather than slow the requests.
   */
  readonly requestLogBuffer: number
}

export const defaults: EngineSettings = {
  publicUrl: "http://127.0.0.1:4242",
  fees: defaultFees,
  rateLimitPerMinute: 240,
  authFailuresPerMinute: 30,
  keyCacheTtl: Duration.seconds(5),
  requestLogRetention: Duration.days(7),
  requestLogBuffer: 10_000
}

export class Settings extends Context.Reference<Settings>()("fils/Settings", { defaultValue: () => defaults }) {}

/** The defaults with `overrides` (an embedding team's choices). */
export const layer = (overrides: Partial<EngineSettings> = {}): Layer.Layer<never> =>
  Layer.succeed(Settings, { ...defaults, ...overrides })
