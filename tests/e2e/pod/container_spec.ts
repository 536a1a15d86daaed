/** The controller container of the Deployment in manifests/, read structurally. */
import { parseAllDocuments } from "yaml";
import { sourceError as fail } from "./source_error.ts";

/** A volume mount of the container, with its volume. */
export interface MountSpec {
  readonly path: string;
  readonly volume: string;
  readonly readOnly: boolean;
  /** Set for emptyDir volumes (the only kind the rehearsal provides besides the service account). */
  readonly emptyDir?: { readonly sizeLimit?: string };
}

/** An env entry of the container. */
export interface EnvSpec {
  readonly name: string;
  readonly value?: string;
  /** `valueFrom.fieldRef.fieldPath`. */
  readonly fieldPath?: string;
}

/** The controller container of the Deployment in manifests/. */
export interface ContainerSpec {
  readonly deployment: string;
  readonly namespace: string;
  readonly serviceAccount: string;
  readonly automountToken: boolean;
  readonly image: string;
  readonly command?: readonly string[];
  readonly args: readonly string[];
  readonly env: readonly EnvSpec[];
  /** Effective runAsUser/runAsGroup: the container's, else the pod's. */
  readonly uid?: number;
  readonly gid?: number;
  readonly runAsNonRoot: boolean;
  readonly readOnlyRoot: boolean;
  readonly allowPrivilegeEscalation: boolean;
  readonly dropAllCapabilities: boolean;
  readonly mounts: readonly MountSpec[];
  /** containerPort by port name. */
  readonly ports: Readonly<Record<string, number>>;
  /** httpGet probes, with named ports resolved (timeoutSeconds defaults to 1, as in Kubernetes). */
  readonly probes: readonly { kind: string; path: string; port: number; timeoutSeconds: number }[];
}

// deno-lint-ignore no-explicit-any
type Json = any;

/** Reads the Deployment whose container runs the project's image. */
export function containerSpec(manifests: readonly { name: string; text: string }[]): ContainerSpec {
  const objects: Json[] = manifests.flatMap(({ name, text }) =>
    parseAllDocuments(text).map((d) => {
      if (d.errors.length > 0) fail(`manifests/${name}: ${d.errors.join("; ")}`);
      return d.toJS();
    })
  ).filter((o) => o !== null);
  const deployments = objects.filter((o) =>
    o.kind === "Deployment" &&
    (o.spec?.template?.spec?.containers ?? []).some((c: Json) =>
      /^kubeloop\/sample-controller:/.test(c.image)
    )
  );
  if (deployments.length !== 1) {
    fail(`expected one Deployment running kubeloop/sample-controller, found ${deployments.length}`);
  }
  const dep = deployments[0];
  const pod = dep.spec.template.spec;
  const c = pod.containers.find((c: Json) => /^kubeloop\/sample-controller:/.test(c.image));
  const sc = c.securityContext ?? {};
  const psc = pod.securityContext ?? {};
  const ports: Record<string, number> = {};
  for (const p of c.ports ?? []) if (p.name) ports[p.name] = p.containerPort;
  const resolvePort = (port: string | number) =>
    typeof port === "number" ? port : ports[port] ?? fail(`probe port "${port}" names no container port`);
  const probes = (["liveness", "readiness", "startup"] as const).flatMap((kind) => {
    const probe = c[`${kind}Probe`];
    const get = probe?.httpGet;
    return get
      ? [{
        kind,
        path: get.path as string,
        port: resolvePort(get.port),
        timeoutSeconds: probe.timeoutSeconds ?? 1,
      }]
      : [];
  });
  const volumes = new Map<string, Json>((pod.volumes ?? []).map((v: Json) => [v.name, v]));
  const mounts: MountSpec[] = (c.volumeMounts ?? []).map((m: Json) => {
    const v = volumes.get(m.name) ?? fail(`volumeMount "${m.name}" names no volume`);
    return {
      path: m.mountPath,
      volume: m.name,
      readOnly: m.readOnly === true,
      ...(v.emptyDir
        ? { emptyDir: v.emptyDir.sizeLimit ? { sizeLimit: String(v.emptyDir.sizeLimit) } : {} }
        : {}),
    };
  });
  const uid = sc.runAsUser ?? psc.runAsUser;
  const gid = sc.runAsGroup ?? psc.runAsGroup;
  return {
    deployment: dep.metadata.name,
    namespace: dep.metadata.namespace ?? "default",
    serviceAccount: pod.serviceAccountName ?? "default",
    automountToken: pod.automountServiceAccountToken !== false,
    image: c.image,
    ...(c.command ? { command: c.command } : {}),
    args: (c.args ?? []).map(String),
    env: (c.env ?? []).map((e: Json) => ({
      name: e.name,
      ...(e.value !== undefined ? { value: String(e.value) } : {}),
      ...(e.valueFrom?.fieldRef ? { fieldPath: e.valueFrom.fieldRef.fieldPath } : {}),
    })),
    ...(uid === undefined ? {} : { uid }),
    ...(gid === undefined ? {} : { gid }),
    runAsNonRoot: (sc.runAsNonRoot ?? psc.runAsNonRoot) === true,
    readOnlyRoot: sc.readOnlyRootFilesystem === true,
    allowPrivilegeEscalation: sc.allowPrivilegeEscalation !== false,
    dropAllCapabilities: (sc.capabilities?.drop ?? []).includes("ALL"),
    mounts,
    ports,
    probes,
  };
}
