/**
 * The ConfigMaps of the cold-sync bench: ~1 KB of data each, with the labels and annotations a
 * real workload carries. `configMap(i)` is what kubectl creates; `serverConfigMap(i)` adds what the
 * API server returns on top (uid, resourceVersion, creationTimestamp, managedFields), for the
 * decode bench.
 *
 *   deno run bench/peers/configmaps.ts <namespace> <from> <to> [configmaps|foos]   # a v1 List of [from, to)
 */

/** One ConfigMap as a client would create it (about 1.3 KB of JSON). */
export function configMap(i: number, namespace: string): Record<string, unknown> {
  const data: Record<string, string> = {};
  for (let k = 0; k < 8; k++) {
    data[`setting-${k}.properties`] = `# generated for bench object ${i}\nkey.${k}=` +
      `${i.toString(36)}-${k}-`.padEnd(72, "abcdefghijklmnopqrstuvwxyz0123456789");
  }
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: {
      name: `bench-${String(i).padStart(6, "0")}`,
      namespace,
      labels: {
        "app.kubernetes.io/name": "bench",
        "app.kubernetes.io/instance": `bench-${i % 50}`,
        "app.kubernetes.io/component": i % 2 ? "worker" : "api",
        "app.kubernetes.io/part-of": "kubeloop",
        "app.kubernetes.io/managed-by": "kubeloop-bench",
        "app.kubernetes.io/version": "1.2.3",
      },
      annotations: {
        "kubeloop.dev/checksum": `sha256:${(i * 2654435761 >>> 0).toString(16).padStart(8, "0").repeat(8)}`,
        "kubeloop.dev/description": "Configuration rendered for the cold-sync benchmark",
      },
    },
    data,
  };
}

/** The same ConfigMap as the API server returns it in a list. */
export function serverConfigMap(i: number, namespace: string): Record<string, unknown> {
  const base = configMap(i, namespace);
  const meta = base.metadata as Record<string, unknown>;
  const data = base.data as Record<string, string>;
  const fieldsData: Record<string, unknown> = { ".": {} };
  for (const key of Object.keys(data)) fieldsData[`f:${key}`] = {};
  const fieldsLabels: Record<string, unknown> = { ".": {} };
  for (const key of Object.keys(meta.labels as object)) fieldsLabels[`f:${key}`] = {};
  const fieldsAnnotations: Record<string, unknown> = { ".": {} };
  for (const key of Object.keys(meta.annotations as object)) fieldsAnnotations[`f:${key}`] = {};
  return {
    ...base,
    metadata: {
      ...meta,
      uid: `6f1c2a0e-0000-4000-8000-${String(i).padStart(12, "0")}`,
      resourceVersion: String(1_000 + i),
      creationTimestamp: "2026-01-01T00:00:00Z",
      managedFields: [{
        manager: "kubectl-create",
        operation: "Update",
        apiVersion: "v1",
        time: "2026-01-01T00:00:00Z",
        fieldsType: "FieldsV1",
        fieldsV1: {
          "f:data": fieldsData,
          "f:metadata": { "f:annotations": fieldsAnnotations, "f:labels": fieldsLabels },
        },
      }],
    },
  };
}

/** One Foo (the sample-controller's custom resource) as a client would create it. */
export function foo(i: number, namespace: string): Record<string, unknown> {
  const name = `bench-${String(i).padStart(6, "0")}`;
  return {
    apiVersion: "samplecontroller.k8s.io/v1alpha1",
    kind: "Foo",
    metadata: {
      name,
      namespace,
      labels: { "app.kubernetes.io/name": "bench", "app.kubernetes.io/instance": `bench-${i % 50}` },
    },
    spec: { deploymentName: name, replicas: 1 + (i % 3) },
  };
}

if (import.meta.main) {
  const [namespace = "default", from = "0", to = "1000", kind = "configmaps"] = Deno.args;
  const make = kind === "foos" ? foo : configMap;
  const items = [];
  for (let i = Number(from); i < Number(to); i++) items.push(make(i, namespace));
  const list = JSON.stringify({ apiVersion: "v1", kind: "List", items });
  Deno.stdout.writeSync(new TextEncoder().encode(list + "\n"));
}
