import type { KubeObject, ResourceRef } from "../resources/object.ts";

/** `authentication.k8s.io/v1` TokenReviews (create only). */
export const TOKEN_REVIEWS: ResourceRef<TokenReview> = Object.freeze({
  group: "authentication.k8s.io",
  version: "v1",
  plural: "tokenreviews",
  kind: "TokenReview",
  namespaced: false,
});

/** `authorization.k8s.io/v1` SubjectAccessReviews (create only). */
export const SUBJECT_ACCESS_REVIEWS: ResourceRef<SubjectAccessReview> = Object.freeze({
  group: "authorization.k8s.io",
  version: "v1",
  plural: "subjectaccessreviews",
  kind: "SubjectAccessReview",
  namespaced: false,
});

/** What the reviews need from the API client; KubeClient satisfies it. */
export interface ReviewClient {
  /** POSTs a review and resolves with the server's answer (the object with its status). */
  create<T extends KubeObject>(
    ref: ResourceRef<T>,
    obj: T,
    options: { signal?: AbortSignal | undefined },
  ): Promise<T>;
}

/** The user a token belongs to, as TokenReview reports it. */
export interface UserInfo {
  /** e.g. "system:serviceaccount:monitoring:prometheus". */
  username: string;
  /** The user's UID, when the authenticator knows one. */
  uid?: string;
  /** e.g. ["system:serviceaccounts", "system:authenticated"]. */
  groups?: string[];
  /** Authenticator-specific attributes, passed on to authorization. */
  extra?: Record<string, string[]>;
}

/** The outcome of a TokenReview. */
export type TokenReviewResult = { authenticated: true; user: UserInfo } | {
  authenticated: false;
  reason: string;
};

/** An `authentication.k8s.io/v1` TokenReview: the fields this module sends and reads. */
export interface TokenReview extends KubeObject {
  /** The token to check and, optionally, the audiences it must be issued for. */
  spec: { token: string; audiences?: string[] };
  /** The server's answer. */
  status?: { authenticated?: boolean; user?: Partial<UserInfo>; error?: string };
}

/**
 * Asks the API server who `token` belongs to (TokenReview). `audiences` restricts which audiences the token
 * may be issued for; omitted, the API server's own audiences apply. Rejects with the client's error when the
 * review itself fails (never an "authenticated" answer).
 */
export async function reviewToken(
  client: ReviewClient,
  token: string,
  options: { signal?: AbortSignal | undefined; audiences?: readonly string[] } = {},
): Promise<TokenReviewResult> {
  const review: TokenReview = {
    apiVersion: "authentication.k8s.io/v1",
    kind: "TokenReview",
    metadata: {},
    spec: { token, ...(options.audiences ? { audiences: [...options.audiences] } : {}) },
  };
  const answer = await client.create(TOKEN_REVIEWS, review, options.signal ? { signal: options.signal } : {});
  const status = answer.status ?? {};
  const username = status.user?.username ?? "";
  if (status.authenticated !== true || username === "") {
    return { authenticated: false, reason: status.error || "token not authenticated" };
  }
  const user = status.user ?? {};
  return {
    authenticated: true,
    user: {
      username,
      ...(user.uid ? { uid: user.uid } : {}),
      ...(user.groups ? { groups: [...user.groups] } : {}),
      ...(user.extra ? { extra: user.extra } : {}),
    },
  };
}

/** The outcome of a SubjectAccessReview. */
export interface AccessReviewResult {
  /** True only when the server said `allowed: true`. */
  allowed: boolean;
  /** The authorizer's reason, or its evaluation error, when given. */
  reason: string;
}

/** An `authorization.k8s.io/v1` SubjectAccessReview: the fields this module sends and reads. */
export interface SubjectAccessReview extends KubeObject {
  /** Who asks to do what. */
  spec: {
    user: string;
    uid?: string;
    groups?: string[];
    extra?: Record<string, string[]>;
    nonResourceAttributes: { path: string; verb: string };
  };
  /** The server's answer. */
  status?: { allowed?: boolean; denied?: boolean; reason?: string; evaluationError?: string };
}

/**
 * Asks the API server whether `user` may `verb` the non-resource URL `path` (SubjectAccessReview), as RBAC
 * rules with `nonResourceURLs` grant it. Rejects when the review itself fails.
 */
export async function reviewNonResourceAccess(
  client: ReviewClient,
  user: UserInfo,
  attributes: { path: string; verb: string },
  options: { signal?: AbortSignal | undefined } = {},
): Promise<AccessReviewResult> {
  const review: SubjectAccessReview = {
    apiVersion: "authorization.k8s.io/v1",
    kind: "SubjectAccessReview",
    metadata: {},
    spec: {
      user: user.username,
      ...(user.uid ? { uid: user.uid } : {}),
      ...(user.groups ? { groups: user.groups } : {}),
      ...(user.extra ? { extra: user.extra } : {}),
      nonResourceAttributes: { path: attributes.path, verb: attributes.verb },
    },
  };
  const answer = await client.create(
    SUBJECT_ACCESS_REVIEWS,
    review,
    options.signal ? { signal: options.signal } : {},
  );
  const status = answer.status ?? {};
  return { allowed: status.allowed === true, reason: status.reason || status.evaluationError || "" };
}
