/**
 * `fils/http`: the HTTP API. The contract (`FilsApi`, an `@effect/platform` HttpApi: groups, endpoints, schemas,
 * errors with their statuses), the application implementing it (`HttpAppLive`, which needs the engine and a Store),
 * the Node server (`ServerLive`), handlers to mount it in a host's server (`makeWebHandler` for fetch-style hosts,
 * `makeNodeHandler` for Express and node:http), and the typed client derived from the same contract
 * (`FilsClient.make`). The OpenAPI document is `OpenApi.fromApi(FilsApi)` (from `@effect/platform`).
 */
export {
  AccountGroup,
  Authentication,
  basePath,
  CheckoutSessionsGroup,
  CurrentPrincipal,
  CustomerList,
  CustomersGroup,
  EventList,
  EventsGroup,
  FilsApi,
  IdempotencyHeaders,
  PaymentList,
  PaymentsGroup,
  ProductList,
  ProductsGroup,
  SubscriptionList,
  SubscriptionsGroup,
  WebhookDeleted,
  WebhookList,
  WebhooksGroup,
  WebhookSecret
} from "./Api.js"
export { ApiLive, HttpAppLive } from "./App.js"
export * as FilsClient from "./Client.js"
export * as HttpErrors from "./Errors.js"
export { type ListenOptions, ServerLive } from "./Server.js"
export {
  type FilsHandle,
  type FilsServices,
  type HandlerOptions,
  makeNodeHandler,
  makeWebHandler,
  type NodeHandler,
  type WebHandler
} from "./WebHandler.js"
