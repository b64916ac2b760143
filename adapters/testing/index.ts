/**
 * `fils/testing`: what an embedding team needs to test against Fils without a database or a network.
 *
 * - `FilsTest.layer(options)` / `FilsTest.FilsTestLive`: the engine on the memory store, the Node signer, the
 *   simulated processor and a recording webhook transport (`WebhookRecorder`), configured from a map;
 * - `FilsTest.account`, `FilsTest.pay`, `FilsTest.cards`: an account with its scopes, paying a session with a test card;
 * - `FilsTest.advanceTo`, `FilsTest.runBillingAt`, `FilsTest.advanceToNextRenewal`: TestClock helpers;
 * - `Arbitraries`: fast-check arbitraries for every resource, inputs and stored values;
 * - `ProcessorContract`: the PaymentProcessor port's contract as checks a processor adapter runs against itself.
 */
export * as Arbitraries from "./Arbitraries.js"
export * as FilsTest from "./FilsTest.js"
export * as ProcessorContract from "./ProcessorContract.js"
export { WebhookRecorder } from "./Layers.js"
