import type { Project } from "../project.ts";
import { docComment } from "./doc_comment.ts";
import { KUBELOOP } from "./specifiers.ts";

/** src/<kind>_controller.ts: the reconcile function and the controller's wiring. */
export function controllerTs(p: Project): string {
  const K = p.kind;
  const v = p.variable;
  // A cluster-scoped kind has no namespace for its ConfigMap: it goes to the controller's own namespace.
  const where = p.namespaced ? "in the same namespace" : "in the controller's namespace";
  const cmNamespace = p.namespaced ? `namespace: ${v}.metadata.namespace` : "namespace";
  const moduleDoc = docComment(
    `The ${K} controller. For every ${K} it keeps a ConfigMap of the same name, ${where}, holding the ` +
      `${K}'s message; the ConfigMap is owned by the ${K}, so the garbage collector deletes it with it. ` +
      `The ${K}'s Ready condition reports the outcome. Make it yours: change \`desiredConfigMap\` (or ` +
      "apply other kinds, and add them to `owns` and to the RBAC rules in manifests/rbac.yaml) and the " +
      "status.\n@module",
  );
  const reconcileDoc = docComment(
    `Brings the world in line with the ${K} cached under \`key\` ("namespace/name" or "name"); the ` +
      `controller calls it after every change of the ${K} or of its ConfigMap, and retries it with backoff ` +
      "when it throws.\n" +
      "- gone: nothing to do (the garbage collector deletes its ConfigMap);\n" +
      "- being deleted: clean up what the garbage collector cannot, then remove our finalizer;\n" +
      "- otherwise: add our finalizer, apply the ConfigMap, and set Ready=True once it is written. The " +
      "status is written only when it changes, so the reconcile that our own status write triggers writes " +
      "nothing.",
  );
  const controllerDoc = docComment(
    `The controller, for \`manager.controller(...)\`: reconciles each ${K} when it changes, and when a ` +
      "ConfigMap it controls changes (so a hand edit is undone).",
  );
  return `${moduleDoc}
import {
  addFinalizer,
  apiVersionOf,
  apply,
  type ApplyConfiguration,
  CONFIG_MAPS,
  type ConfigMap,
  type ControllerOptions,
  controllerReference,
  type DeepReadonly,
  findCondition,
  type InformerSource,
  isTerminating,
  jsonEqual,
  ownsSource,
  removeFinalizer,
  type ResourceClient,
  setCondition,
  type Store,
} from ${KUBELOOP};
import { type ${K}, ${p.refName}, type ${K}StatusCondition } from "./${p.stem}_types.ts";

/** Owner of the fields this controller applies (server-side apply), and its name in logs and metrics. */
export const FIELD_MANAGER = "${p.name}";
/** Holds a ${K} until the controller has cleaned up after it. */
export const FINALIZER = "${p.finalizer}";
/** Marks the ConfigMaps this controller writes; their informer caches only these. */
export const MANAGED_BY = "app.kubernetes.io/managed-by";

/** What the reconciler reads and writes: a KubeClient in production, FakeApi in unit tests. */
export interface ${K}Deps {
  /** The cache of ${K}s. */
  readonly ${v}s: Store<${K}>;
  /** Reads and writes ${K}s and ConfigMaps. */
  readonly client: Pick<ResourceClient, "get" | "patch">;${
    p.namespaced ? "" : `
  /** Where the ConfigMaps go: the controller's own namespace. */
  readonly namespace: string;`
  }
  /** Time of the Ready condition's transitions. */
  readonly now: () => Date;
}

/** The ConfigMap a ${K} asks for, as this controller's server-side apply body. */
export function desiredConfigMap(
  ${v}: DeepReadonly<${K}>,${p.namespaced ? "" : "\n  namespace: string,"}
): ApplyConfiguration<ConfigMap> {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: ${v}.metadata.name ?? "",
      ${cmNamespace},
      labels: { [MANAGED_BY]: FIELD_MANAGER },
      ownerReferences: [controllerReference(${v}, ${p.refName})],
    },
    data: { message: ${v}.spec.message ?? "" },
  };
}

${reconcileDoc}
export async function reconcile${K}(key: string, deps: ${K}Deps, signal: AbortSignal): Promise<void> {
  const cached = deps.${v}s.get(key);
  if (cached === undefined) return;
  const options = { fieldManager: FIELD_MANAGER, signal };
  if (isTerminating(cached)) {
    // Delete here what lives outside the cluster, or in the cluster without an ownerReference to it.
    await removeFinalizer(deps.client, ${p.refName}, cached, FINALIZER, options);
    return;
  }
  const ${v} = await addFinalizer(deps.client, ${p.refName}, cached, FINALIZER, options);
  await apply(deps.client, CONFIG_MAPS, desiredConfigMap(${v}${
    p.namespaced ? "" : ", deps.namespace"
  }), options);

  // Only the fields we own: other writers' conditions stay (conditions is a list-map keyed by type).
  const generation = ${v}.metadata.generation ?? 0; // the server sets it on every object
  const previous = findCondition(${v}.status?.conditions, "Ready");
  const status = {
    observedGeneration: generation,
    conditions: setCondition<${K}StatusCondition>(previous ? [previous] : [], {
      type: "Ready",
      status: "True",
      reason: "ConfigMapApplied",
      message: "The ConfigMap holds the message",
      observedGeneration: generation,
    }, deps.now()),
  };
  const current = {
    observedGeneration: ${v}.status?.observedGeneration,
    conditions: previous ? [previous] : [],
  };
  if (jsonEqual(current, status)) return;
  await apply(deps.client, ${p.refName}, {
    apiVersion: apiVersionOf(${p.refName}),
    kind: "${K}",
    metadata: { name: ${v}.metadata.name ?? "", namespace: ${v}.metadata.namespace },
    status,
  }, { ...options, subresource: "status" });
}

/** Where the controller gets its caches and its client. */
export interface ${K}Wiring {
  /** A SharedInformerFactory (the Manager's). */
  readonly informers: InformerSource;
  /** The API client. */
  readonly client: Pick<ResourceClient, "get" | "patch">;${
    p.namespaced ? "" : `
  /** The controller's own namespace, where the ConfigMaps go. */
  readonly namespace: string;`
  }
  /**
   * Time source of the conditions.
   * @default {() => new Date()}
   */
  readonly now?: () => Date;
}

${controllerDoc}
export function ${v}Controller(wiring: ${K}Wiring): ControllerOptions<${K}> {
  const deps: ${K}Deps = {
    ${v}s: wiring.informers.informer(${p.refName}).store,
    client: wiring.client,${p.namespaced ? "" : "\n    namespace: wiring.namespace,"}
    now: wiring.now ?? (() => new Date()),
  };
  return {
    name: "${p.stem.replaceAll("_", "-")}",
    for: ${p.refName},
    owns: [ownsSource(CONFIG_MAPS, { labelSelector: \`\${MANAGED_BY}=\${FIELD_MANAGER}\`${
    p.namespaced ? "" : ", namespace: wiring.namespace"
  } })],
    reconcile: (_request, ctx) => reconcile${K}(ctx.key, deps, ctx.signal),
  };
}
`;
}
