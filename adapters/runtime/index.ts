/**
 * `fils/node`: the ports besides the Store, implemented on Node. `NodeAdapters` provides the three at once: the
 * Signer over node:crypto, the simulated processor (test cards; its ledger in memory) and webhook delivery over
 * node:http(s); `NodeAdaptersSql` the same with the simulated processor's ledger in PostgreSQL (beside `StoreSql`).
 * `SecretBoxLive` seals webhook secrets at rest with `FILS_SECRET_KEY` (AES-256-GCM) for `StoreSql`.
 * `StandardWebhooks.verify` checks a delivery's signature in a merchant's receiver.
 */
export { NodeAdapters, NodeAdaptersSql } from "./NodeAdapters.js"
export { SignerNode } from "../crypto/SignerNode.js"
export { makeSecretBox, SecretBoxLive } from "../crypto/SecretBox.js"
export * as StandardWebhooks from "../crypto/StandardWebhooks.js"
export {
  brandOf,
  makeSimulatedProcessor,
  makeSimulatedProcessorMemory,
  settleAfterMillis,
  SimulatedProcessor,
  SimulatedProcessorOnLedger,
  SimulatedProcessorSql,
  testCards
} from "../processor/SimulatedProcessor.js"
export {
  type Behaviour as SimulatedBehaviour,
  makeSimulatedLedgerMemory,
  SimulatedLedger,
  type SimulatedLedgerShape
} from "../processor/SimulatedLedger.js"
export { makeSimulatedLedgerSql, SimulatedLedgerSql } from "../processor/SimulatedLedgerSql.js"
export { InternalAddressError, publicOnlyLookup, WebhookTransportHttp } from "../webhooks/WebhookTransportHttp.js"
