/**
 * One rehearsed pod: the image's layers mounted as a read-only overlay root, the Deployment's volumes and
 * service-account token mounted as the kubelet mounts them, the environment a container runtime builds,
 * the Deployment's user, in fresh mount, PID, network, UTS and IPC namespaces (launch.sh). Needs root.
 */
import { join } from "node:path";
import { DEFAULT_IN_CLUSTER_DIR } from "../../../lib/config/mod.ts";
import { captureOutput } from "../../_util/captured_output.ts";
import { type Endpoint, forward, type Forwarder } from "./bridge.ts";
import {
  environment,
  kubeletEtcFiles,
  POD_IP,
  podName,
  SERVICE_IP,
  SERVICE_PORT,
  writeServiceAccount,
} from "./kubelet.ts";
import { RUNTIME_FILES } from "./layers.ts";
import { type PodSpec, standInArgv } from "./pod_spec.ts";

/** The image's layers, topmost first. */
export interface PodLayers {
  readonly program: string;
  readonly runtime: string;
  readonly base: string;
}

/** How to start the pod. */
export interface PodOptions {
  readonly spec: PodSpec;
  readonly layers: PodLayers;
  /** The apiserver as the host reaches it. */
  readonly apiserver: URL;
  /** Files of the service-account volume: token, ca.crt, namespace (and any extra ones). */
  readonly serviceAccount: Readonly<Record<string, string>>;
  /** Mount the root through a writable upper layer (kept for inspection) instead of read-only. */
  readonly writableRoot?: boolean;
  /** Appended to the Deployment's args. */
  readonly extraArgs?: readonly string[];
  /** Replaces the whole command line (the entrypoint included). */
  readonly argv?: readonly string[];
  /** Files put in each emptyDir volume before the start, by file name. */
  readonly emptyDirFiles?: Readonly<Record<string, string>>;
}

/** A started pod. */
export interface Pod extends AsyncDisposable {
  /** The pod name, which is also its hostname. */
  readonly name: string;
  /** Host PID of the container's process (PID 1 in the pod). */
  readonly pid: number;
  /** The environment and argv the process was started with. */
  readonly env: Readonly<Record<string, string>>;
  readonly argv: readonly string[];
  /** Host folders: the writable upper layer (writableRoot only) and each emptyDir volume by mount path. */
  readonly upperDir?: string;
  readonly volumeDirs: Readonly<Record<string, string>>;
  /** Host folder with the kubelet-managed /etc files. */
  readonly etcDir: string;
  /** An http:// URL on the host that reaches `<pod IP>:<port>` inside the pod. */
  url(port: number, path?: string): string;
  /** Everything the process wrote to stdout and stderr. */
  logs(): string;
  /** The exit code, once the process is gone. */
  readonly exited: Promise<number>;
  /** The exit code if the process is gone already, else undefined. */
  readonly exitCode: number | undefined;
  /** Sends SIGTERM (as the kubelet does) and resolves with the exit code. */
  stop(): Promise<number>;
}

/** NUL-separated words, as launch.sh reads them. */
function words(list: readonly string[]): string {
  return list.map((w) => {
    if (w.includes("\0")) throw new TypeError("a word contains NUL");
    return `${w}\0`;
  }).join("");
}

/** The UID of a live process, or undefined once it is gone. */
async function uidOf(pid: number): Promise<number | undefined> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`).catch(() => "");
  const m = /^Uid:\s+(\d+)/m.exec(status);
  return m ? Number(m[1]) : undefined;
}

/**
 * The host PID of the pod's PID 1: the launcher unshare forked, which becomes the container's process when
 * it exec's it after setting everything up. Resolves once `started` exists and the exec chain switched to
 * the pod's user (or the process already finished, as a short command may).
 */
async function containerPid(
  launcher: number,
  started: string,
  uid: number,
  exited: Promise<number>,
): Promise<number> {
  let gone = false;
  exited.then(() => gone = true);
  let pid = 0;
  const exists = (path: string) => Deno.stat(path).then(() => true, () => false);
  // The launcher waits up to 30 s for the socket bridge; allow for that plus a loaded machine.
  for (let i = 0; i < 1800; i++) {
    if (pid === 0) {
      const children = await Deno.readTextFile(`/proc/${launcher}/task/${launcher}/children`).catch(() => "");
      pid = Number(children.trim().split(/\s+/)[0]) || 0;
    }
    if (pid > 0 && await exists(started)) {
      if (gone || uid === 0 || await uidOf(pid) === uid) return pid;
    } else if (gone) {
      throw new Error("the pod's launcher exited before starting the container process");
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error("the container process did not start within 45 s");
}

/** Starts the pod. */
/**
 * The socket bridge (bridge.ts) in `dir`: its host side, listening now (the apiserver's Unix socket, and a
 * local TCP port per container port), and the command that runs its pod side in the pod's namespaces.
 */
function socketBridge(dir: string, apiserver: URL, ports: readonly number[]) {
  const sock = (n: string) => join(dir, `${n}.sock`);
  const forwarders: Forwarder[] = [
    forward({ transport: "unix", path: sock("apiserver") }, {
      transport: "tcp",
      hostname: apiserver.hostname,
      port: Number(apiserver.port),
    }),
  ];
  const hostPorts = new Map<number, number>();
  for (const port of ports) {
    const f = forward({ transport: "tcp", hostname: "127.0.0.1", port: 0 }, {
      transport: "unix",
      path: sock(`port-${port}`),
    });
    forwarders.push(f);
    hostPorts.set(port, (f.listening as Extract<Endpoint, { transport: "tcp" }>).port);
  }
  const ready = join(dir, "ready");
  const command = [
    Deno.execPath(),
    "run",
    "--no-config",
    "--allow-net",
    `--allow-read=${dir}`,
    `--allow-write=${dir}`,
    "--allow-run", // to signal the pod's PID 1 when the test is gone
    new URL("./bridge.ts", import.meta.url).pathname,
    ready,
    "1",
    `tcp:${SERVICE_IP}:${SERVICE_PORT}=unix:${sock("apiserver")}`,
    ...ports.map((p) => `unix:${sock(`port-${p}`)}=tcp:${POD_IP}:${p}`),
  ];
  return { forwarders, hostPorts, ready, command };
}

/** Starts the pod; disposing it stops the pod (SIGTERM, then SIGKILL after 30 s) and removes its files. */
export async function startPod(o: PodOptions): Promise<Pod> {
  const { image, container } = o.spec;
  const uid = container.uid ?? image.uid;
  const gid = container.gid ?? image.gid;
  const name = podName(container.deployment);
  const runDir = await Deno.makeTempDir({ prefix: "kubeloop-pod-" });
  const path = (p: string) => join(runDir, p);
  for (const d of ["root", "sockets", "etc", "volumes", "serviceaccount"]) await Deno.mkdir(path(d));

  const mounts: string[] = [];
  const volumeDirs: Record<string, string> = {};
  for (const m of container.mounts) {
    if (!m.emptyDir) {
      throw new Error(`The rehearsal can only provide emptyDir volumes; "${m.volume}" is not one`);
    }
    const dir = path(`volumes/${m.volume}`);
    await Deno.mkdir(dir);
    await Deno.chmod(dir, 0o777); // as the kubelet creates emptyDir folders
    for (const [file, content] of Object.entries(o.emptyDirFiles ?? {})) {
      await Deno.writeTextFile(join(dir, file), content);
      await Deno.chmod(join(dir, file), 0o644);
    }
    volumeDirs[m.path] = dir;
    mounts.push(dir, m.path, m.readOnly ? "ro" : "rw");
  }
  if (container.automountToken) {
    await writeServiceAccount(path("serviceaccount"), o.serviceAccount, uid, gid);
    mounts.push(path("serviceaccount"), DEFAULT_IN_CLUSTER_DIR, "ro");
  }
  const etc = kubeletEtcFiles(name, container.namespace);
  for (const file of RUNTIME_FILES) {
    const host = path(`etc/${file.split("/").pop()}`);
    await Deno.writeTextFile(host, etc[file] ?? "");
    mounts.push(host, file, "rw");
  }

  const bridge = socketBridge(path("sockets"), o.apiserver, [...new Set(Object.values(container.ports))]);
  const forwarders = bridge.forwarders;
  const env = await environment(o, name);
  const argv = o.argv ? [...o.argv] : standInArgv(o.spec, o.extraArgs);
  await Deno.writeTextFile(path("mounts"), words(mounts));
  await Deno.writeTextFile(path("bridge"), words(bridge.command));
  await Deno.writeTextFile(path("env"), words(Object.entries(env).map(([k, v]) => `${k}=${v}`)));
  await Deno.writeTextFile(path("argv"), words(argv));
  let upperDir: string | undefined;
  const launchEnv: Record<string, string> = {
    POD_ROOT: path("root"),
    POD_LOWER: [o.layers.program, o.layers.runtime, o.layers.base].join(":"),
    POD_MOUNTS: path("mounts"),
    POD_HOSTNAME: name,
    POD_ADDRESSES: `${SERVICE_IP} ${POD_IP}`,
    POD_BRIDGE: path("bridge"),
    POD_BRIDGE_READY: bridge.ready,
    POD_ENV: path("env"),
    POD_ARGV: path("argv"),
    POD_UID: String(uid),
    POD_GID: String(gid),
    POD_WORKDIR: image.workdir,
    POD_STARTED: path("started"),
  };
  if (o.writableRoot) {
    upperDir = path("upper");
    await Deno.mkdir(upperDir);
    await Deno.mkdir(path("work"));
    launchEnv["POD_UPPER"] = upperDir;
    launchEnv["POD_WORK"] = path("work");
  }
  const child = new Deno.Command("unshare", {
    args: [
      "--mount",
      "--pid",
      "--net",
      "--uts",
      "--ipc",
      "--fork",
      "--kill-child",
      "--propagation=private",
      "bash",
      new URL("./launch.sh", import.meta.url).pathname,
    ],
    env: launchEnv,
    // Held open for the pod's life: the bridge stops the pod when it ends (see bridge.ts).
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const output = captureOutput(child);
  let exitCode: number | undefined;
  const exited = child.status.then(async (s) => {
    await output.done;
    exitCode = s.code;
    return s.code;
  });
  let pid: number;
  try {
    pid = await containerPid(child.pid, launchEnv["POD_STARTED"]!, uid, exited);
  } catch (error) {
    try {
      child.kill("SIGKILL");
    } catch { /* gone */ }
    await child.stdin.close().catch(() => {});
    await exited;
    for (const f of forwarders) await f[Symbol.asyncDispose]();
    await Deno.remove(runDir, { recursive: true });
    throw new Error(`${(error as Error).message}; output:\n${output.text()}`);
  }
  let stopping: Promise<number> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      if (exitCode === undefined) {
        try {
          Deno.kill(pid, "SIGTERM");
        } catch { /* already gone */ }
      }
      return await exited;
    })();
    return stopping;
  };
  return {
    name,
    pid,
    env,
    argv,
    ...(upperDir ? { upperDir } : {}),
    volumeDirs,
    etcDir: path("etc"),
    url: (port, p = "") => `http://127.0.0.1:${bridge.hostPorts.get(port) ?? 0}${p}`,
    logs: () => output.text(),
    exited,
    get exitCode() {
      return exitCode;
    },
    stop,
    async [Symbol.asyncDispose]() {
      // Killing the pod's PID 1 takes every process of its PID namespace with it. (unshare's --kill-child
      // does not reach it: the switch to the pod's user clears the parent-death signal.)
      const timer = setTimeout(() => {
        if (exitCode !== undefined) return;
        try {
          Deno.kill(pid, "SIGKILL");
        } catch { /* gone */ }
      }, 30_000);
      try {
        await stop();
      } finally {
        clearTimeout(timer);
        await child.stdin.close().catch(() => {});
        for (const f of forwarders) await f[Symbol.asyncDispose]();
        await Deno.remove(runDir, { recursive: true });
      }
    },
  };
}
