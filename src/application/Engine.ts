/**
 * The engine: every use case, built from the ports. An embedding team provides `Store` and `Signer` (and, as the
 * engine grows, the processor and webhook transport) and uses the services.
 */
import { Layer } from "effect"
import { Accounts } from "./Accounts.js"
import { Customers } from "./Customers.js"
import { IdempotencyService } from "./Idempotency.js"
import { Products } from "./Products.js"
import { RateLimits } from "./RateLimits.js"

export const Engine = Layer.mergeAll(
  Accounts.Default,
  Products.Default,
  Customers.Default,
  IdempotencyService.Default,
  RateLimits.Default
)
