/**
 * The ports the engine needs besides its Store, as this package implements them on Node: the Signer over
 * node:crypto, the simulated processor (test cards), and webhook delivery over node:http(s).
 */
import { Layer } from "effect"
import { SignerNode } from "../crypto/SignerNode.js"
import { SimulatedProcessor } from "../processor/SimulatedProcessor.js"
import { WebhookTransportHttp } from "../webhooks/WebhookTransportHttp.js"

export const NodeAdapters = Layer.mergeAll(SignerNode, SimulatedProcessor, WebhookTransportHttp)
