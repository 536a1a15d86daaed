/**
 * Admission and conversion webhooks: declare a validating webhook (allow, deny, warnings), a mutating one
 * (return the object you want; the JSON Patch is computed for you) or a CRD conversion (typed hub-and-spoke
 * converters, fields a version lacks kept in an annotation); serve them over HTTPS with a certificate that
 * may change at any time; generate the webhook configurations with safe defaults. docs/webhooks.md is the
 * guide.
 * @module
 */
export {
  ADMISSION_REVIEW_API_VERSION,
  type AdmissionRequest,
  type AdmissionResponse,
  type AdmissionReview,
  type GroupVersionKind,
  type GroupVersionResource,
  type Operation,
  type UserInfo,
} from "./admission_review.ts";
export {
  CONVERSION_REVIEW_API_VERSION,
  type ConversionRequest,
  type ConversionResponse,
  type ConversionReview,
} from "./conversion_review.ts";
export { type AdmissionContext, SideEffectError, type SideEffects } from "./admission_context.ts";
export { type AdmissionVerdict, allow, Allowed, Denied, deny, type DenyOptions } from "./verdict.ts";
export {
  type AdmissionWebhook,
  type FailurePolicy,
  mutatingWebhook,
  type MutatingWebhookOptions,
  type Mutator,
  validatingWebhook,
  type ValidatingWebhookOptions,
  type Validator,
  type WebhookOptions,
} from "./admission_webhook.ts";
export type { ReviewOptions } from "./_admit.ts";
export {
  type ConversionWebhook,
  conversionWebhook,
  type ConversionWebhookOptions,
  type Spoke,
  spoke,
  type SpokeConverters,
} from "./conversion_webhook.ts";
export { diffJson, type JsonPatchOperation, type JsonValue } from "./json_patch.ts";
export {
  DEFAULT_WEBHOOK_LIMITS,
  serveWebhooks,
  type WebhookServer,
  type WebhookServerLimits,
  type WebhookServerOptions,
} from "./webhook_server.ts";
export type { ConnectionLimits } from "./_http_connection.ts";
export {
  noopWebhookMetrics,
  type WebhookMetrics,
  webhookMetricsFor,
  type WebhookRefusal,
} from "./webhook_metrics.ts";
export {
  ALWAYS_EXCLUDED_NAMESPACES,
  crdConversion,
  type CrdConversionOptions,
  type WebhookConfigurations,
  webhookConfigurations,
  type WebhookConfigurationsOptions,
  type WebhookTarget,
} from "./configurations.ts";
