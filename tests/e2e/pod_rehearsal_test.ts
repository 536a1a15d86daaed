/**
 * The pod rehearsal (`deno task pod-rehearsal`): the shipped controller under a distroless pod's
 * conditions, without Docker. The root file system is rebuilt from the Debian packages of
 * gcr.io/distroless/cc-debian12 (tests/e2e/pod/base_layer.ts), the binary is stood in for by the Deno runtime
 * plus the pre-cached program (tests/e2e/pod/layers.ts), and the process gets the Deployment's args, user,
 * read-only root, /tmp volume, service-account token and in-cluster env (tests/e2e/pod/pod.ts), in its own
 * namespaces with loopback-only networking. Needs root.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DEFAULT_IN_CLUSTER_DIR } from "../../lib/config/mod.ts";
import { createNamespace } from "../_util/testenv.ts";
import { startPod } from "./pod/pod.ts";
import {
  exitCodeWithin,
  leaseHolder,
  leaseOf,
  podEventually,
  prepare,
  procStatus,
  reconcileExampleFoo,
  say,
  scrapeMetrics,
  waitLeader,
  waitReady,
} from "./pod/rehearsal.ts";
import { diffTrees, snapshotTree } from "./pod/tree.ts";

Deno.test("the rehearsed pod's root file system satisfies the runtime binary's libraries with its own loader", async () => {
  const r = await prepare();
  const binary = r.spec.image.entrypoint[0]!;
  await using pod = await startPod(r.options({ argv: ["/lib64/ld-linux-x86-64.so.2", "--list", binary] }));
  const code = await pod.exited;
  const listing = pod.logs();
  assert.equal(code, 0, listing);
  assert.doesNotMatch(listing, /not found/);
  const libs: [string, string][] = [...listing.matchAll(/^\s*(\S+)(?: => (\S+))? \(0x[0-9a-f]+\)$/gm)]
    .map((m) => [m[1]!, m[2] ?? m[1]!]);
  say(
    `ldd ${binary}, by the root file system's own loader as UID ${r.spec.container.uid ?? r.spec.image.uid}:`,
  );
  for (const [lib, path] of libs) say(`  ${lib} => ${path}`);
  for (const [lib, path] of libs) {
    if (lib === "linux-vdso.so.1") continue;
    // Every library resolved to a file of the base layer: nothing came from the host.
    const info = await Deno.stat(join(r.layers.base, path));
    assert.ok(info.isFile, `${lib} resolves to ${path}, not a file of the base layer`);
  }
  assert.ok(libs.some(([lib]) => lib === "libgcc_s.so.1"), "libgcc_s (the cc part of the image) is needed");
});

Deno.test("the rehearsed pod has no shell and no setuid program", async () => {
  const r = await prepare();
  for (const layer of [r.layers.base, r.layers.runtime, r.layers.program]) {
    for (const [path, entry] of await snapshotTree(layer)) {
      assert.ok(!/\/(sh|bash|dash|busybox)$/.test(path), `${path} is a shell`);
      if (entry.kind === "file") assert.equal(entry.mode & 0o6000, 0, `${path} is setuid or setgid`);
    }
  }
});

Deno.test("in the rehearsed pod the controller starts, leads, reconciles, serves probes and metrics, writes nothing, and exits 0 on SIGTERM releasing the Lease", async () => {
  const r = await prepare();
  const before = await Promise.all(Object.values(r.layers).map((l) => snapshotTree(l)));
  await using ns = await createNamespace("pod-rehearsal");
  const started = performance.now();
  await using pod = await startPod(r.options());
  say(`started pod ${pod.name}: PID ${pod.pid} on the host, read-only root`);
  say(`argv: ${pod.argv.join(" ")}`);

  const status = await procStatus(pod.pid);
  const uid = r.spec.container.uid ?? r.spec.image.uid;
  const gid = r.spec.container.gid ?? r.spec.image.gid;
  assert.equal(status["Uid"], `${uid}\t${uid}\t${uid}\t${uid}`);
  assert.equal(status["Gid"], `${gid}\t${gid}\t${gid}\t${gid}`);
  assert.equal(status["Groups"], "");
  assert.equal(status["NoNewPrivs"], "1");
  assert.equal(status["CapEff"], "0000000000000000");
  assert.equal(status["CapPrm"], "0000000000000000");
  say(
    `process: Uid ${status["Uid"]!.replaceAll("\t", " ")}, Gid ${status["Gid"]!.replaceAll("\t", " ")}, ` +
      `NoNewPrivs ${status["NoNewPrivs"]}, CapEff ${status["CapEff"]}`,
  );
  const environ = (await Deno.readTextFile(`/proc/${pod.pid}/environ`)).split("\0").filter((e) => e !== "");
  assert.deepEqual(environ.sort(), Object.entries(pod.env).map(([k, v]) => `${k}=${v}`).sort());
  say(`environment (nothing else): ${Object.keys(pod.env).sort().join(" ")}`);
  // The pod's network namespace has loopback only: the one way out is the bridge to the apiserver.
  const interfaces = (await Deno.readTextFile(`/proc/${pod.pid}/net/dev`)).split("\n").slice(2)
    .map((l) => l.trim().split(":")[0]).filter((n) => n);
  assert.deepEqual(interfaces, ["lo"]);
  const mounts = (await Deno.readTextFile(`/proc/${pod.pid}/mountinfo`)).trim().split("\n").map((l) => {
    const f = l.split(" ");
    return { point: f[4]!, options: f[5]!.split(",") };
  });
  const mountOf = (point: string) => mounts.findLast((m) => m.point === point);
  assert.ok(mountOf("/")?.options.includes("ro"), "the root is mounted read-only");
  for (const m of r.spec.container.mounts) {
    assert.ok(mountOf(m.path)?.options.includes(m.readOnly ? "ro" : "rw"));
  }
  assert.ok(mountOf(DEFAULT_IN_CLUSTER_DIR)?.options.includes("ro"), "the token volume is read-only");
  say(
    `network interfaces: ${interfaces.join(", ")}; mounts: / ro, ` +
      `${r.spec.container.mounts.map((m) => `${m.path} ${m.readOnly ? "ro" : "rw"}`).join(", ")}, ` +
      `${DEFAULT_IN_CLUSTER_DIR} ro`,
  );
  assert.equal(
    await Deno.readLink(`/proc/${pod.pid}/cwd`).then((p) => p.endsWith(r.spec.image.workdir)),
    true,
  );

  await waitReady(pod, r.spec);
  say(
    `probes ${r.spec.container.probes.map((p) => `${p.kind} ${p.path}:${p.port}`).join(", ")} answer 200 ` +
      `after ${Math.round(performance.now() - started)} ms`,
  );
  const holder = await waitLeader(pod, r.spec);
  say(`Lease ${leaseOf(r.spec).namespace}/${leaseOf(r.spec).name} held by ${holder}`);
  await reconcileExampleFoo(ns.name, pod);
  say(`Foo ${ns.name}/example-foo reconciled: owned Deployment created, status written`);
  const metrics = await scrapeMetrics(r, pod);
  assert.match(metrics, new RegExp(`leader_election_master_status\\{name="${leaseOf(r.spec).name}"\\} 1`));
  assert.match(metrics, /controller_runtime_reconcile_total\{[^}]*result="success"[^}]*\} [1-9]/);

  const code = await pod.stop();
  assert.equal(code, 0, `exit code ${code}; logs:\n${pod.logs()}`);
  assert.equal(await leaseHolder(r.spec), "", "the Lease is released");
  assert.doesNotMatch(pod.logs(), /"level":"error"/);
  say(
    `SIGTERM: exit code ${code}, Lease released, ${Math.round(performance.now() - started)} ms after start`,
  );

  const after = await Promise.all(Object.values(r.layers).map((l) => snapshotTree(l)));
  before.forEach((b, i) => assert.deepEqual(diffTrees(b, after[i]!), [], "an image layer changed"));
  const tmp = [...Deno.readDirSync(pod.volumeDirs["/tmp"]!)].map((e) => e.name);
  say(
    `root file system unchanged (${before.reduce((n, t) => n + t.size, 0)} paths compared); /tmp holds: ` +
      `${tmp.length === 0 ? "nothing" : tmp.join(", ")}`,
  );
});

Deno.test("with a writable root the rehearsed pod still writes nothing outside its volumes", async () => {
  const r = await prepare();
  await using ns = await createNamespace("pod-rehearsal-rw");
  await using pod = await startPod(r.options({ writableRoot: true }));
  const etcBefore = await snapshotTree(pod.etcDir);
  await waitReady(pod, r.spec);
  await waitLeader(pod, r.spec);
  await reconcileExampleFoo(ns.name, pod);
  await scrapeMetrics(r, pod);
  assert.equal(await pod.stop(), 0, pod.logs());
  // Anything the process wrote to the root (its 0700 home, /var/tmp, /var/lock are writable to it here) would
  // be copied up into the overlay's upper layer.
  const written = await snapshotTree(pod.upperDir!);
  assert.deepEqual(
    [...written.keys()],
    ["/"],
    `written outside the volumes: ${[...written.keys()].join(", ")}`,
  );
  assert.deepEqual(
    diffTrees(etcBefore, await snapshotTree(pod.etcDir)),
    [],
    "/etc/hosts and friends changed",
  );
  say("writable root: the overlay's upper layer is empty after start, reconcile, scrape and SIGTERM");
});

Deno.test("the rehearsed pod's binary may not read a kubeconfig outside the service-account directory", async () => {
  const r = await prepare();
  // A valid kubeconfig for the pod's own identity, readable by its user on the file system: only the
  // binary's --allow-read stands in the way.
  const kubeconfig = [
    "apiVersion: v1",
    "kind: Config",
    "clusters: [{name: c, cluster: {server: 'https://10.0.0.1:443', certificate-authority-data: " +
    `'${btoa(r.serviceAccount["ca.crt"]!)}'}}]`,
    `users: [{name: u, user: {token: '${r.serviceAccount["token"]}'}}]`,
    "contexts: [{name: x, context: {cluster: c, user: u}}]",
    "current-context: x",
  ].join("\n");
  await using pod = await startPod(r.options({
    emptyDirFiles: { kubeconfig },
    extraArgs: ["--kubeconfig=/tmp/kubeconfig"],
  }));
  const code = await exitCodeWithin(pod, 30_000);
  const line = pod.logs().split("\n").find((l) => l.includes("/tmp/kubeconfig")) ?? "";
  assert.equal(code, 2, `expected exit code 2 (configuration error); logs:\n${pod.logs()}`);
  assert.match(
    line,
    /Cannot read kubeconfig \\"\/tmp\/kubeconfig\\": Requires read access to \\"\/tmp\/kubeconfig\\"/,
  );
  say(`--kubeconfig=/tmp/kubeconfig: exit ${code}: ${line}`);
});

Deno.test("the rehearsed pod's binary cannot start a process (an exec credential plugin)", async () => {
  const r = await prepare();
  // The kubeconfig sits where the binary may read, so only the missing --allow-run stops the plugin.
  const kubeconfig = [
    "apiVersion: v1",
    "kind: Config",
    "clusters: [{name: c, cluster: {server: 'https://10.0.0.1:443', certificate-authority: ca.crt}}]",
    "users: [{name: u, user: {exec: {apiVersion: client.authentication.k8s.io/v1, " +
    `command: ${r.spec.image.entrypoint[0]}, args: ['--version'], interactiveMode: Never}}}]`,
    "contexts: [{name: x, context: {cluster: c, user: u}}]",
    "current-context: x",
  ].join("\n");
  await using pod = await startPod(r.options({
    serviceAccount: { ...r.serviceAccount, kubeconfig },
    extraArgs: [`--kubeconfig=${DEFAULT_IN_CLUSTER_DIR}/kubeconfig`],
  }));
  const line = await podEventually(
    pod,
    "no exec plugin error",
    () => Promise.resolve(pod.logs().split("\n").find((l) => /exec plugin/.test(l))),
  );
  assert.match(line, /needs Deno's --allow-run permission, which this program was not given/);
  const code = await pod.stop();
  say(`exec credential plugin refused: ${line} (exit ${code})`);
});
