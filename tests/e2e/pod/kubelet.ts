/**
 * What the kubelet and the container runtime give a pod's container besides the image: its name, its
 * environment, the service-account volume's files and the /etc files they manage.
 */
import { join } from "node:path";
import { DISTROLESS_ENV } from "./distroless.ts";
import { STAND_IN_DENO_DIR } from "./layers.ts";
import type { PodLayers, PodOptions } from "./pod.ts";

/** The `kubernetes` Service's ClusterIP and port (testenv's service range is 10.0.0.0/24; its cert names it). */
export const SERVICE_IP = "10.0.0.1";
export const SERVICE_PORT = 443;
/** The rehearsed pod's IP, where probes and scrapes connect (as the kubelet and Prometheus do). */
export const POD_IP = "10.244.0.7";

/** A pod name the way a ReplicaSet names its pods. */
export function podName(deployment: string): string {
  const alphabet = "bcdfghjklmnpqrstvwxz2456789";
  const pick = (n: number) =>
    [...crypto.getRandomValues(new Uint8Array(n))].map((b) => alphabet[b % alphabet.length]).join("");
  return `${deployment}-${pick(10)}-${pick(5)}`;
}

/** HOME as a container runtime sets it: the user's /etc/passwd entry in the image, else "/". */
async function homeOf(layers: PodLayers, uid: number): Promise<string> {
  const passwd = await Deno.readTextFile(join(layers.base, "etc/passwd"));
  const entry = passwd.split("\n").map((l) => l.split(":")).find((f) => f[2] === String(uid));
  return entry?.[5] || "/";
}

/** The environment of the container process, built as kubelet + container runtime do. */
export async function environment(o: PodOptions, name: string): Promise<Record<string, string>> {
  const { image, container } = o.spec;
  const service = `tcp://${SERVICE_IP}:${SERVICE_PORT}`;
  const env: Record<string, string> = {
    ...DISTROLESS_ENV,
    ...image.env,
    HOSTNAME: name,
    // Service links of the default `kubernetes` Service, which every pod gets.
    KUBERNETES_SERVICE_HOST: SERVICE_IP,
    KUBERNETES_SERVICE_PORT: String(SERVICE_PORT),
    KUBERNETES_SERVICE_PORT_HTTPS: String(SERVICE_PORT),
    KUBERNETES_PORT: service,
    [`KUBERNETES_PORT_${SERVICE_PORT}_TCP`]: service,
    [`KUBERNETES_PORT_${SERVICE_PORT}_TCP_PROTO`]: "tcp",
    [`KUBERNETES_PORT_${SERVICE_PORT}_TCP_PORT`]: String(SERVICE_PORT),
    [`KUBERNETES_PORT_${SERVICE_PORT}_TCP_ADDR`]: SERVICE_IP,
  };
  env["HOME"] ??= await homeOf(o.layers, container.uid ?? image.uid);
  const fields: Record<string, string> = {
    "metadata.name": name,
    "metadata.namespace": container.namespace,
    "spec.serviceAccountName": container.serviceAccount,
    "status.podIP": POD_IP,
  };
  for (const e of container.env) {
    const value = e.value ?? (e.fieldPath ? fields[e.fieldPath] : undefined);
    if (value === undefined) throw new Error(`The rehearsal cannot provide env ${e.name} of the Deployment`);
    env[e.name] = value;
  }
  // The stand-in's one difference: its dependency cache plays the part of the files a compiled binary
  // embeds. The image's DENO_DIR stays what a compiled binary would get (and points below /tmp).
  env["DENO_DIR"] = STAND_IN_DENO_DIR;
  return env;
}

/** Writes the kubelet's atomic-writer layout: files in a timestamped folder, `..data` and symlinks to it. */
export async function writeServiceAccount(
  dir: string,
  files: Readonly<Record<string, string>>,
  uid: number,
  gid: number,
): Promise<void> {
  const time = new Date().toISOString().replace(/[-:T]/g, "_").replace(/\..*$/, "");
  const stamp = `..${time}.${Date.now() % 1e9}`;
  await Deno.mkdir(join(dir, stamp), { recursive: true, mode: 0o755 });
  await Deno.chmod(dir, 0o755);
  await Deno.chmod(join(dir, stamp), 0o755);
  for (const [name, content] of Object.entries(files)) {
    const path = join(dir, stamp, name);
    await Deno.writeTextFile(path, content);
    // With runAsUser set and no fsGroup, the kubelet gives the token to that user, mode 0600.
    if (name === "token") {
      await Deno.chown(path, uid, gid);
      await Deno.chmod(path, 0o600);
    } else {
      await Deno.chmod(path, 0o644);
    }
    await Deno.symlink(`..data/${name}`, join(dir, name));
  }
  await Deno.symlink(stamp, join(dir, "..data"));
}

/** /etc/hosts, /etc/hostname and /etc/resolv.conf as the kubelet writes them for a pod. */
export function kubeletEtcFiles(name: string, namespace: string): Record<string, string> {
  return {
    "/etc/hosts": `127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n${POD_IP}\t${name}\n`,
    "/etc/hostname": `${name}\n`,
    "/etc/resolv.conf": `nameserver 10.0.0.10\nsearch ${namespace}.svc.cluster.local ` +
      `svc.cluster.local cluster.local\noptions ndots:5\n`,
  };
}
