import type { KubeObject, ResourceRef } from "../resources/object.ts";
import { ShardConfigError } from "./errors.ts";

/** `authorization.k8s.io/v1` SelfSubjectAccessReviews (create only). */
export const SELF_SUBJECT_ACCESS_REVIEWS: ResourceRef<SelfSubjectAccessReview> = Object.freeze({
  group: "authorization.k8s.io",
  version: "v1",
  plural: "selfsubjectaccessreviews",
  kind: "SelfSubjectAccessReview",
  namespaced: false,
});

/** The fields of a SelfSubjectAccessReview this module sends and reads. */
export interface SelfSubjectAccessReview extends KubeObject {
  /** What to check. */
  spec: { resourceAttributes: { namespace: string; verb: string; group: string; resource: string } };
  /** The answer. */
  status?: { allowed?: boolean; reason?: string };
}

/** What the check needs from the API client; KubeClient satisfies it. */
export interface ReviewCreator {
  /** POSTs the review; resolves with the server's answer. */
  create<T extends KubeObject>(ref: ResourceRef<T>, obj: T, options: { signal?: AbortSignal }): Promise<T>;
}

/** The verbs a member needs on the Leases of its group's namespace. */
export const LEASE_VERBS = ["get", "list", "create", "update"] as const;

/**
 * Asks the API server whether this identity may `get`, `list`, `create` and `update` Leases in
 * `namespace` (one SelfSubjectAccessReview per verb, which every authenticated user may create), and
 * throws a {@linkcode ShardConfigError} naming the verbs it lacks. Without them a replica could never
 * claim a range; refusing at start says why instead of retrying forever.
 */
export async function checkLeasePermissions(
  client: ReviewCreator,
  namespace: string,
  signal?: AbortSignal,
): Promise<void> {
  const answers = await Promise.all(LEASE_VERBS.map(async (verb) => {
    const review = await client.create(SELF_SUBJECT_ACCESS_REVIEWS, {
      apiVersion: "authorization.k8s.io/v1",
      kind: "SelfSubjectAccessReview",
      metadata: {},
      spec: { resourceAttributes: { namespace, verb, group: "coordination.k8s.io", resource: "leases" } },
    }, signal ? { signal } : {});
    return { verb, allowed: review.status?.allowed === true };
  }));
  const missing = answers.filter((a) => !a.allowed).map((a) => a.verb);
  if (missing.length > 0) {
    throw new ShardConfigError(
      `Sharding needs to ${LEASE_VERBS.join(", ")} leases.coordination.k8s.io in namespace "${namespace}"; ` +
        `RBAC does not allow: ${missing.join(", ")}`,
      "forbidden",
    );
  }
}
