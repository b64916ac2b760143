/**
 * Every migration, for `Migrator.fromRecord`: key `<id>_<name>`, applied in id order, each once. Never edit a
 * migration that has shipped; add the next one.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { Effect } from "effect"
import init from "./0001_init.js"
import rateLimitHit from "./0002_rate_limit_hit.js"
import checkoutPaymentsEvents from "./0003_checkout_payments_events.js"
import subscriptions from "./0004_subscriptions.js"
import webhooks from "./0005_webhooks.js"
import webhookSecretsAtRest from "./0006_webhook_secrets_at_rest.js"
import rateLimitInOrder from "./0007_rate_limit_in_order.js"
import performance from "./0008_performance.js"
import rateLimitBatches from "./0009_rate_limit_batches.js"
import rateLimitLatest from "./0010_rate_limit_latest.js"
import refunds from "./0011_refunds.js"
import dashboard from "./0012_dashboard.js"
import paymentDays from "./0013_payment_days.js"
import timeZone from "./0031_time_zone.js"
import paymentSearch from "./0033_payment_search.js"
import twoFactor from "./0035_two_factor.js"
import monthlyRevenueDays from "./0036_monthly_revenue_days.js"
import requestLogsPrunedById from "./0037_request_logs_pruned_by_id.js"
import deliveryIndexes from "./0038_delivery_indexes.js"
import apiKeyUsage from "./0014_api_key_usage.js"
import customerPortal from "./0015_customer_portal.js"
import rateLimitShares from "./0016_rate_limit_shares.js"
import dashboardInvitations from "./0017_dashboard_invitations.js"
import eventSubjects from "./0018_event_subjects.js"
import taxDocuments from "./0019_tax_documents.js"
import einvoiceTransmissions from "./0020_einvoice_transmissions.js"
import billingReasons from "./0021_billing_reasons.js"
import discounts from "./0022_discounts.js"
import trials from "./0023_trials.js"
import planChanges from "./0024_plan_changes.js"
import testClocks from "./0025_test_clocks.js"
import webhookDebugging from "./0026_webhook_debugging.js"
import requestLogs from "./0027_request_logs.js"
import periodRevenue from "./0028_period_revenue.js"
import webhookStorage from "./0029_webhook_storage.js"
import testClockDocuments from "./0030_test_clock_documents.js"
import refundReasons from "./0032_refund_reasons.js"
import refundsByScope from "./0034_refunds_by_scope.js"

export const migrations: Record<string, Effect.Effect<void, unknown, SqlClient.SqlClient>> = {
  "0001_init": init,
  "0002_rate_limit_hit": rateLimitHit,
  "0003_checkout_payments_events": checkoutPaymentsEvents,
  "0004_subscriptions": subscriptions,
  "0005_webhooks": webhooks,
  "0006_webhook_secrets_at_rest": webhookSecretsAtRest,
  "0007_rate_limit_in_order": rateLimitInOrder,
  "0008_performance": performance,
  "0009_rate_limit_batches": rateLimitBatches,
  "0010_rate_limit_latest": rateLimitLatest,
  "0011_refunds": refunds,
  "0012_dashboard": dashboard,
  "0013_payment_days": paymentDays,
  "0014_api_key_usage": apiKeyUsage,
  "0015_customer_portal": customerPortal,
  "0016_rate_limit_shares": rateLimitShares,
  "0017_dashboard_invitations": dashboardInvitations,
  "0018_event_subjects": eventSubjects,
  "0019_tax_documents": taxDocuments,
  "0020_einvoice_transmissions": einvoiceTransmissions,
  "0021_billing_reasons": billingReasons,
  "0022_discounts": discounts,
  "0023_trials": trials,
  "0024_plan_changes": planChanges,
  "0025_test_clocks": testClocks,
  "0026_webhook_debugging": webhookDebugging,
  "0027_request_logs": requestLogs,
  "0028_period_revenue": periodRevenue,
  "0029_webhook_storage": webhookStorage,
  "0030_test_clock_documents": testClockDocuments,
  "0031_time_zone": timeZone,
  "0032_refund_reasons": refundReasons,
  "0033_payment_search": paymentSearch,
  "0034_refunds_by_scope": refundsByScope,
  "0035_two_factor": twoFactor,
  "0036_monthly_revenue_days": monthlyRevenueDays,
  "0037_request_logs_pruned_by_id": requestLogsPrunedById,
  "0038_delivery_indexes": deliveryIndexes
}
