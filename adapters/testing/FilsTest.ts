/** The test layers and helpers as one namespace (`FilsTest.layer()`, `FilsTest.advanceToNextRenewal`, …). */
export { account, cards, FilsTestLive, layer, type Options, pay, WebhookRecorder, WebhookRecorderLive } from "./Layers.js"
export type { WebhookRecorderShape } from "./Layers.js"
export { advanceTo, advanceToNextRenewal, runBillingAt } from "./Clock.js"
