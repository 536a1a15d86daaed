/**
 * Declaring validating and mutating webhooks: what they intercept, how the API server treats them when they
 * fail, and the handler. The same declaration serves requests and generates the webhook configurations.
 * @module
 */
import type { KubeObject, ResourceRef } from "../resources/object.ts";
import type { LabelSelector } from "../resources/apimachinery.ts";
import type { MatchCondition } from "../resources/admissionregistration_v1.ts";
import type { AdmissionRequest, AdmissionResponse, Operation } from "./admission_review.ts";
import type { AdmissionContext, SideEffects } from "./admission_context.ts";
import type { AdmissionVerdict, Denied } from "./verdict.ts";
import { reviewAdmission, type ReviewOptions } from "./_admit.ts";

/** What the API server does when the webhook cannot answer, and what the webhook does when its handler throws. */
export type FailurePolicy = "Fail" | "Ignore";

/** What every webhook declares besides its handler. */
export interface WebhookOptions<T extends KubeObject> {
  /**
   * The webhook's name in the configuration: a DNS subdomain with at least three labels, conventionally
   * `<what>.<verb>.<group>`, e.g. "foos.validate.samplecontroller.k8s.io" (the API server requires it
   * fully qualified).
   */
  name: string;
  /** The resource it intercepts; its object type is the handler's `T`. */
  resource: ResourceRef<T>;
  /**
   * Subresources it also intercepts, e.g. ["status"].
   * @default {[] (the main resource only)}
   */
  subresources?: readonly string[];
  /**
   * Operations it intercepts.
   * @default {["CREATE", "UPDATE"]}
   */
  operations?: readonly Operation[];
  /**
   * "Fail": when the webhook cannot be reached, times out, or its handler throws, the request is refused.
   * "Ignore": it proceeds (a throwing handler allows it with a warning). Choose "Fail" when the rule
   * guards something; "Ignore" when it only helps.
   * @default {"Fail"}
   */
  failurePolicy?: FailurePolicy;
  /**
   * "None": the handler changes nothing outside the request. "NoneOnDryRun": it does, through
   * `context.sideEffect`, which skips dry runs.
   * @default {"None"}
   */
  sideEffects?: SideEffects;
  /**
   * How long the API server waits for an answer, 1 to 30 s; the handler's `context.signal` aborts then.
   * @default {10}
   */
  timeoutSeconds?: number;
  /**
   * CEL conditions (over `object`, `oldObject`, `request` and `authorizer`) that must all hold for the API
   * server to call the webhook, e.g. `{ name: "not-admin", expression: "request.userInfo.username != 'admin'" }`.
   * @default {[]}
   */
  matchConditions?: readonly MatchCondition[];
  /**
   * Limits the namespaces whose objects it intercepts. The generated configuration always excludes
   * kube-system and the controller's own namespace besides.
   * @default {every other namespace}
   */
  namespaceSelector?: LabelSelector;
  /**
   * Limits the objects it intercepts by their labels.
   * @default {every object}
   */
  objectSelector?: LabelSelector;
  /**
   * The URL path it is served at.
   * @default {"/validate/<name>" or "/mutate/<name>"}
   */
  path?: string;
}

/** A handler that checks a request. */
export type Validator<T extends KubeObject> = (
  request: AdmissionRequest<T>,
  context: AdmissionContext,
) => AdmissionVerdict | Promise<AdmissionVerdict>;

/**
 * A handler that returns the object it wants stored (it may change and return the copy it was given) or
 * a denial. kubeloop sends the API server the JSON Patch from the request's object to that one.
 */
export type Mutator<T extends KubeObject> = (
  object: T,
  request: AdmissionRequest<T>,
  context: AdmissionContext,
) => T | Denied | Promise<T | Denied>;

/** Options of {@linkcode validatingWebhook}. */
export interface ValidatingWebhookOptions<T extends KubeObject> extends WebhookOptions<T> {
  /** Allows or denies each request. */
  validate: Validator<T>;
}

/** Options of {@linkcode mutatingWebhook}. */
export interface MutatingWebhookOptions<T extends KubeObject> extends WebhookOptions<T> {
  /** Returns the object to store. Called only when the request carries an object (not for DELETE). */
  mutate: Mutator<T>;
  /**
   * "IfNeeded": the API server calls the webhook again when a later mutating webhook changed the object.
   * @default {"Never"}
   */
  reinvocationPolicy?: "Never" | "IfNeeded";
}

/** A declared webhook: its settings, as the configuration needs them, and how it answers. */
export interface AdmissionWebhook {
  /** Which configuration it belongs in. */
  readonly type: "validating" | "mutating";
  /** See {@linkcode WebhookOptions.name}. */
  readonly name: string;
  /** The URL path it is served at. */
  readonly path: string;
  /** The resource it intercepts. */
  readonly resource: ResourceRef;
  /** Subresources it also intercepts. */
  readonly subresources: readonly string[];
  /** Operations it intercepts. */
  readonly operations: readonly Operation[];
  /** See {@linkcode WebhookOptions.failurePolicy}. */
  readonly failurePolicy: FailurePolicy;
  /** See {@linkcode WebhookOptions.sideEffects}. */
  readonly sideEffects: SideEffects;
  /** See {@linkcode WebhookOptions.timeoutSeconds}. */
  readonly timeoutSeconds: number;
  /** See {@linkcode WebhookOptions.matchConditions}. */
  readonly matchConditions: readonly MatchCondition[];
  /** See {@linkcode WebhookOptions.namespaceSelector}. */
  readonly namespaceSelector?: LabelSelector;
  /** See {@linkcode WebhookOptions.objectSelector}. */
  readonly objectSelector?: LabelSelector;
  /** Mutating webhooks only. */
  readonly reinvocationPolicy?: "Never" | "IfNeeded";
  /**
   * Answers one request; never rejects: a handler that throws or overruns the timeout is logged and
   * answered by the failure policy.
   */
  review(request: AdmissionRequest, options: ReviewOptions): Promise<AdmissionResponse>;
}

/** Declares a validating webhook. Throws a TypeError or RangeError for settings the API server would refuse. */
export function validatingWebhook<T extends KubeObject>(
  options: ValidatingWebhookOptions<T>,
): AdmissionWebhook {
  const settings = settingsOf("validating", options);
  const validate = options.validate as unknown as Validator<KubeObject>;
  return {
    ...settings,
    review: (request, reviewOptions) =>
      reviewAdmission(settings, request, reviewOptions, { kind: "validate", validate }),
  };
}

/** Declares a mutating webhook. Throws a TypeError or RangeError for settings the API server would refuse. */
export function mutatingWebhook<T extends KubeObject>(options: MutatingWebhookOptions<T>): AdmissionWebhook {
  const settings = {
    ...settingsOf("mutating", options),
    reinvocationPolicy: options.reinvocationPolicy ?? "Never",
  };
  const mutate = options.mutate as unknown as Mutator<KubeObject>;
  return {
    ...settings,
    review: (request, reviewOptions) =>
      reviewAdmission(settings, request, reviewOptions, { kind: "mutate", mutate }),
  };
}

const QUALIFIED_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?){2,}$/;
const OPERATIONS: readonly Operation[] = ["CREATE", "UPDATE", "DELETE", "CONNECT"];

function settingsOf(
  type: "validating" | "mutating",
  options: WebhookOptions<KubeObject>,
): Omit<AdmissionWebhook, "review"> {
  const { name } = options;
  if (!QUALIFIED_NAME.test(name) || name.length > 253) {
    throw new TypeError(
      `Invalid webhook name "${name}": it must be a fully qualified DNS name with at least three labels, ` +
        `e.g. "foos.validate.example.com"`,
    );
  }
  const timeoutSeconds = options.timeoutSeconds ?? 10;
  if (!Number.isInteger(timeoutSeconds) || timeoutSeconds < 1 || timeoutSeconds > 30) {
    throw new RangeError(
      `Webhook "${name}": timeoutSeconds must be an integer from 1 to 30, not ${timeoutSeconds}`,
    );
  }
  const operations = options.operations ?? ["CREATE", "UPDATE"];
  if (operations.length === 0 || operations.some((op) => !OPERATIONS.includes(op))) {
    throw new TypeError(`Webhook "${name}": operations must be some of ${OPERATIONS.join(", ")}`);
  }
  const path = options.path ?? `/${type === "validating" ? "validate" : "mutate"}/${name}`;
  if (!/^\/[\x21-\x7e]*$/.test(path) || path.includes("?") || path.includes("#")) {
    throw new TypeError(`Webhook "${name}": path "${path}" must start with "/" and hold no query or spaces`);
  }
  const names = new Set<string>();
  for (const condition of options.matchConditions ?? []) {
    if (names.has(condition.name)) {
      throw new TypeError(`Webhook "${name}": two matchConditions are named "${condition.name}"`);
    }
    names.add(condition.name);
  }
  return {
    type,
    name,
    path,
    resource: options.resource,
    subresources: [...(options.subresources ?? [])],
    operations: [...operations],
    failurePolicy: options.failurePolicy ?? "Fail",
    sideEffects: options.sideEffects ?? "None",
    timeoutSeconds,
    matchConditions: [...(options.matchConditions ?? [])],
    ...(options.namespaceSelector ? { namespaceSelector: options.namespaceSelector } : {}),
    ...(options.objectSelector ? { objectSelector: options.objectSelector } : {}),
  };
}
