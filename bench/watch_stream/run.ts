/**
 * Whole-stack watch decoding, side by side: a TLS HTTP/1.1 server (server/, Go) streams the same
 * `--events` ~1.4 KB ConfigMap watch events (chunked) to each client, each a fresh process, in
 * interleaved rounds after a warm-up round. Clients: kubeloop (kubeconfig with a configured CA →
 * KubeClient.watch → WatchDecoderStream), kubeloop's watcher path (WatchStreamReader), Deno's native
 * fetch + JSON.parse per line, and @kubernetes/client-node's Watch on Node (deno_watch.ts,
 * ../peers/client_node/watch.mjs).
 *
 * Reported per client (medians): time from request to last event, events/s, process CPU (user +
 * sys), peak RSS, and kubeloop's throughput over each client's (median of per-round ratios).
 *
 *   deno run --allow-all bench/watch_stream/run.ts [--events=200000] [--rounds=5] [--flush=each|none]
 *     [--clients="kubeloop kubeloop-reader fetch client-node"]
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { median, print, progress } from "../_util/stats.ts";

const { values: opts } = parseArgs({
  args: Deno.args,
  options: {
    events: { type: "string", default: "200000" },
    rounds: { type: "string", default: "5" },
    flush: { type: "string", default: "each" },
    clients: { type: "string", default: "kubeloop kubeloop-reader fetch client-node" },
  },
});
const EVENTS = Number(opts.events);
const ROUNDS = Number(opts.rounds);
const clients = opts.clients.split(/\s+/).filter(Boolean);
const here = new URL(".", import.meta.url).pathname;
const repo = new URL("../../", import.meta.url).pathname;
const cache = Deno.env.get("KUBELOOP_BENCH_CACHE") ??
  join(Deno.env.get("HOME") ?? "/root", ".cache/kubeloop-bench");
await Deno.mkdir(cache, { recursive: true });

async function run(cmd: string, args: string[], cwd?: string, env?: Record<string, string>): Promise<void> {
  const r = await new Deno.Command(cmd, {
    args,
    ...(cwd ? { cwd } : {}),
    ...(env ? { env } : {}),
    stderr: "inherit",
    stdout: "null",
  }).output();
  if (!r.success) throw new Error(`${cmd} ${args.join(" ")} failed`);
}

progress("go: building the watch server");
await run("go", ["build", "-trimpath", "-o", join(cache, "watch-server"), "."], join(here, "server"), {
  GOWORK: "off",
  GOTOOLCHAIN: "local",
  CGO_ENABLED: "0",
});
if (clients.includes("client-node")) {
  const dir = join(cache, "client-node");
  await Deno.mkdir(dir, { recursive: true });
  for (const f of ["package.json", "package-lock.json", "watch.mjs"]) {
    await Deno.copyFile(join(repo, "bench/peers/client_node", f), join(dir, f));
  }
  const lock = await Deno.readFile(join(dir, "package-lock.json"));
  const key = Array.from(new Uint8Array(await crypto.subtle.digest("SHA-256", lock)).slice(0, 8))
    .map((b) => b.toString(16).padStart(2, "0")).join("");
  const installed = await Deno.readTextFile(join(dir, ".installed")).catch(() => "");
  if (installed.trim() !== key) {
    progress("npm: installing @kubernetes/client-node");
    await run("npm", ["ci", "--no-audit", "--no-fund", "--loglevel=error"], dir);
    await Deno.writeTextFile(join(dir, ".installed"), key + "\n");
  }
}
await run(Deno.execPath(), ["cache", "--quiet", join(here, "deno_watch.ts")]);

const work = await Deno.makeTempDir({ prefix: "kubeloop-watch-bench-" });
progress(`starting the server (${EVENTS} events per response, flush=${opts.flush})`);
const server = new Deno.Command(join(cache, "watch-server"), {
  args: [`-dir=${work}`, `-events=${EVENTS}`, `-flush=${opts.flush}`],
  stdin: "piped",
  stdout: "piped",
  stderr: "inherit",
}).spawn();
const reader = server.stdout.pipeThrough(new TextDecoderStream()).getReader();
let ready = "";
while (!ready.includes("\n")) {
  const { value, done } = await reader.read();
  if (done) throw new Error("the watch server did not start");
  ready += value;
}
void reader.cancel();
const { kubeconfig } = JSON.parse(ready.split("\n")[0]!) as { kubeconfig: string };

/** The shipped controller's V8 flags (deno.json "start"), for the kubeloop clients. */
const config = JSON.parse(await Deno.readTextFile(join(repo, "deno.json"))) as {
  tasks: Record<string, string>;
};
const shippedV8 = (config.tasks["start"] ?? "").split(/\s+/).filter((w) => w.startsWith("--v8-flags"));

function command(client: string): string[] {
  if (client === "client-node") {
    return ["node", join(cache, "client-node/watch.mjs"), kubeconfig, String(EVENTS)];
  }
  return [
    Deno.execPath(),
    "run",
    "--quiet",
    "--allow-net=127.0.0.1",
    "--allow-read",
    "--allow-env",
    ...(client.startsWith("kubeloop") ? shippedV8 : []),
    join(here, "deno_watch.ts"),
    client,
    kubeconfig,
    String(EVENTS),
  ];
}

interface Result {
  client: string;
  round: number;
  ms: number;
  cpuS: number;
  rssKb: number;
}

async function measure(client: string, round: number): Promise<Result> {
  const timeFile = join(work, "time");
  const out = await new Deno.Command("nice", {
    args: ["-n", "0", "/usr/bin/time", "-o", timeFile, "-f", "%e %U %S %M", ...command(client)],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  const m = text.match(/^events (\d+) ([\d.]+)$/m);
  if (!out.success || !m) {
    throw new Error(`${client} failed:\n${text}\n${new TextDecoder().decode(out.stderr).slice(-3000)}`);
  }
  const [, user, sys, rss] = (await Deno.readTextFile(timeFile)).trim().split("\n").at(-1)!.split(" ");
  const r = { client, round, ms: Number(m[2]), cpuS: Number(user) + Number(sys), rssKb: Number(rss) };
  progress(
    `${round === 0 ? "warm-up" : `round ${round}`} ${client}: ${r.ms.toFixed(0)} ms, CPU ${
      r.cpuS.toFixed(2)
    } s, ` +
      `RSS ${(r.rssKb / 1024).toFixed(0)} MB`,
  );
  return r;
}

const results: Result[] = [];
try {
  for (const c of clients) await measure(c, 0);
  for (let r = 1; r <= ROUNDS; r++) for (const c of clients) results.push(await measure(c, r));
} finally {
  await server.stdin.close();
  await server.status;
  await Deno.remove(work, { recursive: true });
}

const base = clients[0]!;
print();
print(
  `Watch decoding over TLS (configured CA), ${EVENTS} ~1.4 KB ConfigMap events, chunked, flush=${opts.flush}; ` +
    `median of ${ROUNDS} interleaved rounds, ${new Date().toISOString().slice(0, 10)}`,
);
print();
print(`| client | time (ms) | events/s | CPU (s) | peak RSS (MB) | ${base} throughput / this |`);
print("|---|---:|---:|---:|---:|---:|");
for (const c of clients) {
  const mine = results.filter((r) => r.client === c);
  const ratios: number[] = [];
  for (let r = 1; r <= ROUNDS; r++) {
    const a = results.find((x) => x.client === base && x.round === r)!;
    const b = results.find((x) => x.client === c && x.round === r)!;
    ratios.push(b.ms / a.ms);
  }
  const ms = median(mine.map((r) => r.ms));
  print(
    `| ${c} | ${ms.toFixed(0)} | ${(EVENTS / ms * 1000).toFixed(0)} | ${
      median(mine.map((r) => r.cpuS)).toFixed(2)
    } | ${(median(mine.map((r) => r.rssKb)) / 1024).toFixed(0)} | ${median(ratios).toFixed(2)}x |`,
  );
}
print();
print("Raw runs (client, round, ms, CPU s, peak RSS KB):");
print();
for (const r of results) {
  print(`    ${r.client} ${r.round} ${r.ms.toFixed(1)} ${r.cpuS.toFixed(2)} ${r.rssKb}`);
}
