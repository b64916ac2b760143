/**
 * The ports the engine needs besides its Store, as this package implements them on Node: the Signer over
 * node:crypto, the simulated processor (test cards), webhook delivery over node:http(s), and e-invoices (PINT AE, to
 * the configured ASP: docs/einvoicing.md). `NodeAdapters` keeps
 * the simulated processor's ledger in memory (one process: an engine on `StoreMemory`); `NodeAdaptersSql` keeps it
 * in PostgreSQL beside the Store (its own `fils_sim` schema), so that several servers answer as one processor.
 * Both give the engine its `Settings` from the configuration (`SettingsFromConfig`).
 */
import { Layer } from "effect"
import { EInvoiceAdapters } from "../einvoice/ProviderConfig.js"
import { SignerNode } from "../crypto/SignerNode.js"
import { SimulatedProcessor, SimulatedProcessorSql } from "../processor/SimulatedProcessor.js"
import { SettingsFromConfig } from "./Settings.js"
import { WebhookTransportHttp } from "../webhooks/WebhookTransportHttp.js"

export const NodeAdapters = Layer.mergeAll(
  SignerNode,
  SimulatedProcessor,
  WebhookTransportHttp,
  EInvoiceAdapters,
  SettingsFromConfig
)

/** `NodeAdapters` with the simulated processor's ledger on the context's `SqlClient`. */
export const NodeAdaptersSql = Layer.mergeAll(
  SignerNode,
  SimulatedProcessorSql,
  WebhookTransportHttp,
  EInvoiceAdapters,
  SettingsFromConfig
)
