/**
 * Delegated authentication and authorization against the API server: TokenReview and SubjectAccessReview,
 * and {@linkcode KubeScrapeAuthorizer}, which secures the metrics endpoint with them (the
 * `ScrapeAuthorizer` the observability server takes).
 * @module
 */
export { KubeScrapeAuthorizer, type KubeScrapeAuthorizerOptions } from "./kube_scrape_authorizer.ts";
export {
  type AccessReviewResult,
  type ReviewClient,
  reviewNonResourceAccess,
  reviewToken,
  SUBJECT_ACCESS_REVIEWS,
  type SubjectAccessReview,
  TOKEN_REVIEWS,
  type TokenReview,
  type TokenReviewResult,
  type UserInfo,
} from "./reviews.ts";
export { DecisionCache } from "./decision_cache.ts";
export type { KubeObject, ResourceRef } from "../resources/object.ts";
export type { Logger } from "../log/logger.ts";
export type { ScrapeAuthorizer, ScrapeDecision, ScrapeRequest } from "../observe/mod.ts";
export type { Clock } from "../time/clock.ts";
