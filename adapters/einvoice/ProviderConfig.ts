/**
 * Which Accredited Service Provider takes each mode's e-invoices (docs/einvoicing.md, docs/configuration.md):
 * test mode goes to `FILS_EINVOICE_TEST_URL` when set, else to the simulated provider; live mode goes to
 * `FILS_EINVOICE_URL` when set, else nowhere (its e-invoices stay pending, and the worker and `fils einvoices list`
 * say so). Each URL needs its token.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { Config, Effect, Layer, Option } from "effect"
import { EInvoiceProvider, type EInvoiceProviderShape, ProviderUnavailable } from "../../src/ports/EInvoiceProvider.js"
import { PintAeWriter } from "./PintAe.js"
import { makeProviderHttp } from "./ProviderHttp.js"
import { makeSimulation, simulatedProvider } from "./SimulatedProvider.js"

/** An ASP's URL and token; none when the URL is unset or empty. */
const asp = (urlName: string, tokenName: string) =>
  Config.all({
    url: Config.string(urlName).pipe(
      Config.withDefault(""),
      Config.validate({
        message: "must be an http:// or https:// URL",
        validation: (url) => url === "" || /^https?:\/\/[^\s/]+/.test(url)
      })
    ),
    token: Config.option(Config.redacted(tokenName))
  }).pipe(
    Config.validate({
      message: `${tokenName} is required with ${urlName}`,
      validation: ({ token, url }) => url === "" || Option.isSome(token)
    }),
    Config.map(({ token, url }) =>
      url === "" ? Option.none() : Option.some({ url: url.replace(/\/+$/, ""), token: Option.getOrThrow(token) })
    )
  )

export const EInvoiceConfig = Config.all({
  live: asp("FILS_EINVOICE_URL", "FILS_EINVOICE_TOKEN"),
  test: asp("FILS_EINVOICE_TEST_URL", "FILS_EINVOICE_TEST_TOKEN")
})

/** The provider of each mode, from the configuration. */
export const EInvoiceProviderFromConfig = Layer.effect(
  EInvoiceProvider,
  Effect.gen(function*() {
    const config = yield* EInvoiceConfig
    const test: EInvoiceProviderShape = Option.isSome(config.test)
      ? yield* makeProviderHttp({ ...config.test.value, livemodes: [false] })
      : simulatedProvider(yield* makeSimulation())
    const live = Option.isSome(config.live)
      ? Option.some(yield* makeProviderHttp({ ...config.live.value, livemodes: [true] }))
      : Option.none<EInvoiceProviderShape>()
    const none = new ProviderUnavailable({ message: "No e-invoice provider is configured for live mode" })
    return EInvoiceProvider.of({
      serves: (livemode) => !livemode || Option.isSome(live),
      submit: (submission) =>
        !submission.livemode ? test.submit(submission) : Option.match(live, {
          onNone: () => Effect.fail(none),
          onSome: (p) => p.submit(submission)
        }),
      status: (reference, livemode) =>
        !livemode ? test.status(reference, false) : Option.match(live, {
          onNone: () => Effect.fail(none),
          onSome: (p) => p.status(reference, true)
        })
    })
  })
).pipe(Layer.provide(FetchHttpClient.layer))

/** The e-invoice ports as `fils serve` has them: the configured providers, and PINT AE. */
export const EInvoiceAdapters = Layer.mergeAll(EInvoiceProviderFromConfig, PintAeWriter)
