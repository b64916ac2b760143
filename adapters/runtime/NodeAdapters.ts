/**
 * The ports the engine needs besides its Store, as this package implements them on Node: the Signer over
 * node:crypto, the simulated processor (test cards), webhook delivery over node:http(s), and e-invoices (PINT AE, to
 * the configured ASP: docs/einvoicing.md). `NodeAdapters` keeps
 * the simulated processor's ledger in memory (one process: an engine on `StoreMemory`); `NodeAdaptersSql` keeps it
 * in PostgreSQL beside the Store (its own `fils_sim` schema), so that several servers answer as one processor.
 * Both give the engine its `Settings` from the configuration (`SettingsFromConfig`).
 */
import { Effect, Layer } from "effect"
import { EInvoiceAdapters } from "../einvoice/ProviderConfig.js"
import { SignerNode } from "../crypto/SignerNode.js"
import { SimulatedProcessor, SimulatedProcessorSql } from "../processor/SimulatedProcessor.js"
import { isLoopbackHost } from "../../src/domain/Network.js"
import { makeWebhookTransportHttp } from "../webhooks/WebhookTransportHttp.js"
import { PublicUrlConfig, SettingsFromConfig } from "./Settings.js"

/**
 * Webhook delivery over node:http(s). Receivers' answers from this machine's loopback are kept in the delivery log only
 * when the server's public URL is itself on loopback: a developer's own server, not one merchants share.
 */
const WebhookTransportFromConfig = Layer.unwrapEffect(Effect.map(PublicUrlConfig, (url) => {
  const host = URL.canParse(url) ? new URL(url).hostname.replace(/^\[|\]$/g, "") : ""
  return makeWebhookTransportHttp({ keepLoopbackAnswers: isLoopbackHost(host) })
}))

export const NodeAdapters = Layer.mergeAll(
  SignerNode,
  SimulatedProcessor,
  WebhookTransportFromConfig,
  EInvoiceAdapters,
  SettingsFromConfig
)

/** `NodeAdapters` with the simulated processor's ledger on the context's `SqlClient`. */
export const NodeAdaptersSql = Layer.mergeAll(
  SignerNode,
  SimulatedProcessorSql,
  WebhookTransportFromConfig,
  EInvoiceAdapters,
  SettingsFromConfig
)
