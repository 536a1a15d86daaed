/**
 * What each TLS connection leaves behind in the client process: N connections, one after another, to a
 * local TLS server (each sends one request, reads the answer, closes), then the client's memory after
 * two forced garbage collections, compared with the same reading after a warm-up. Each variant runs
 * in a fresh process, the variants interleaved round by round, so one run compares them all:
 * - "TlsConnector, node:tls": kubeloop's connector with a configured CA, forced onto node:tls (the
 *   path every such connection took before Deno's own TLS was used);
 * - "TlsConnector": the connector as HttpClient uses it (configured CA, Deno's TLS + our leaf check);
 * - "TlsConnector, client cert": the same with a client certificate (`Deno.connectTls`);
 * - "node:tls, ca per connect" / "node:tls, one SecureContext": bare node:tls, the CA passed on each
 *   connect or one `tls.createSecureContext` shared by all (no verification of ours, no adapter);
 * - "Deno.connectTls", "Deno.startTls": bare Deno TLS with the CA.
 *
 *   deno run --allow-all bench/tls_connection_memory.ts [--n=2000] [--rounds=3] [--warmup=200]
 *
 * Clients run with `--v8-flags=--expose-gc,--max-semi-space-size=2` (the start task's semi-space, so
 * the young generation's growth does not hide the rest). "KiB/conn" is the growth divided by N; RSS
 * is split into anonymous memory (heap, allocator) and file pages (the deno binary's code paged in).
 * The server is another process, so none of its memory is counted.
 */
import * as nodeTls from "node:tls";
import { TlsConnector } from "../lib/http/tls.ts";
import type { ByteSocket } from "../lib/http/connection.ts";
import { memory } from "./_util/proc_stats.ts";
import { median, print, progress } from "./_util/stats.ts";

const fixtures = new URL("../tests/http/fixtures/", import.meta.url);
const read = (name: string) => Deno.readTextFileSync(new URL(name, fixtures));
const flags = new Map(Deno.args.map((a) => a.replace(/^--/, "").split("=") as [string, string]));
const REQUEST = new TextEncoder().encode("GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
const ANSWER = new TextEncoder().encode(
  "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok",
);

const VARIANTS = [
  "TlsConnector, node:tls",
  "TlsConnector",
  "TlsConnector, client cert",
  "node:tls, ca per connect",
  "node:tls, one SecureContext",
  "Deno.connectTls",
  "Deno.startTls",
] as const;
type Variant = typeof VARIANTS[number];

/** One client process' readings, in bytes (and ms). */
interface Reading {
  readonly rss: number;
  readonly anon: number;
  readonly file: number;
  readonly heapTotal: number;
  readonly heapUsed: number;
  readonly external: number;
  /** RSS just before the final forced collections: what a process that never forces one has. */
  readonly rssNoGc: number;
  readonly msPerConnection: number;
}

/** The server: answers each connection's request once and closes. Prints its port. */
async function serve(): Promise<void> {
  const listener = Deno.listenTls({
    hostname: "127.0.0.1",
    port: 0,
    cert: read("localhost.crt"),
    key: read("localhost.key"),
    alpnProtocols: ["http/1.1"],
  });
  print(String((listener.addr as Deno.NetAddr).port));
  for await (const conn of listener) {
    (async () => {
      try {
        await conn.read(new Uint8Array(4096));
        await conn.write(ANSWER);
      } catch {
        // A client that went away.
      } finally {
        conn.close();
      }
    })();
  }
}

async function readToEnd(socket: { read(p: Uint8Array): Promise<number | null> }): Promise<void> {
  const buf = new Uint8Array(4096);
  while ((await socket.read(buf)) !== null) {
    // Drain.
  }
}

async function overSocket(socket: ByteSocket | Deno.TlsConn): Promise<void> {
  try {
    await socket.write(REQUEST);
    await readToEnd(socket);
  } finally {
    socket.close();
  }
}

function overNodeTls(port: number, options: nodeTls.ConnectionOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = nodeTls.connect({ host: "127.0.0.1", port, servername: "localhost", ...options });
    socket.once("error", reject);
    socket.once("secureConnect", () => socket.write(REQUEST));
    socket.on("data", () => {});
    socket.once("end", () => socket.destroy());
    socket.once("close", () => resolve());
  });
}

function connectOnce(variant: Variant, port: number): () => Promise<void> {
  const ca = read("ca.crt");
  const clientCert = { cert: read("client-ec-pkcs8.crt"), key: read("client-ec-pkcs8.key") };
  switch (variant) {
    case "TlsConnector, node:tls": {
      const connector = new TlsConnector({ caCerts: [ca] }, { denoTls: false });
      return async () => await overSocket(await connector.connect("127.0.0.1", port));
    }
    case "TlsConnector": {
      const connector = new TlsConnector({ caCerts: [ca] });
      return async () => await overSocket(await connector.connect("127.0.0.1", port));
    }
    case "TlsConnector, client cert": {
      const connector = new TlsConnector({ caCerts: [ca], ...clientCert });
      return async () => await overSocket(await connector.connect("127.0.0.1", port));
    }
    case "node:tls, ca per connect":
      return () => overNodeTls(port, { ca: [ca], ALPNProtocols: ["http/1.1"] });
    case "node:tls, one SecureContext": {
      const secureContext = nodeTls.createSecureContext({ ca: [ca] });
      return () => overNodeTls(port, { secureContext, ALPNProtocols: ["http/1.1"] });
    }
    case "Deno.connectTls":
      return async () =>
        await overSocket(
          await Deno.connectTls({ hostname: "127.0.0.1", port, caCerts: [ca], alpnProtocols: ["http/1.1"] }),
        );
    case "Deno.startTls":
      return async () => {
        const tcp = await Deno.connect({ hostname: "127.0.0.1", port });
        tcp.setNoDelay(true);
        const conn = await Deno.startTls(tcp, {
          hostname: "127.0.0.1",
          caCerts: [ca],
          alpnProtocols: ["http/1.1"],
        });
        await overSocket(conn);
      };
  }
}

function collected(): Omit<Reading, "rssNoGc" | "msPerConnection"> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error("run the client with --v8-flags=--expose-gc");
  gc();
  gc();
  const m = Deno.memoryUsage();
  const p = memory(Deno.pid);
  return {
    rss: p.rss,
    anon: p.anon,
    file: p.file,
    heapTotal: m.heapTotal,
    heapUsed: m.heapUsed,
    external: m.external,
  };
}

/** A client process: warm-up, a reading, N connections, another reading; prints both as JSON. */
async function client(variant: Variant, port: number, n: number, warmup: number): Promise<void> {
  const once = connectOnce(variant, port);
  for (let i = 0; i < warmup; i++) await once();
  const before = { ...collected(), rssNoGc: memory(Deno.pid).rss, msPerConnection: 0 };
  const start = performance.now();
  for (let i = 0; i < n; i++) await once();
  const ms = (performance.now() - start) / n;
  const rssNoGc = memory(Deno.pid).rss;
  const after = { ...collected(), rssNoGc, msPerConnection: ms };
  print(JSON.stringify({ before, after }));
}

async function runClient(variant: Variant, port: number, n: number, warmup: number): Promise<Reading> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-all",
      "--v8-flags=--expose-gc,--max-semi-space-size=2",
      new URL(import.meta.url).pathname,
      `--client=${variant}`,
      `--port=${port}`,
      `--n=${n}`,
      `--warmup=${warmup}`,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(`${variant}: ${new TextDecoder().decode(out.stderr)}`);
  const { before, after } = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    before: Reading;
    after: Reading;
  };
  return {
    rss: after.rss - before.rss,
    anon: after.anon - before.anon,
    file: after.file - before.file,
    heapTotal: after.heapTotal - before.heapTotal,
    heapUsed: after.heapUsed - before.heapUsed,
    external: after.external - before.external,
    rssNoGc: after.rssNoGc - before.rssNoGc,
    msPerConnection: after.msPerConnection,
  };
}

async function main(): Promise<void> {
  const n = Number(flags.get("n") ?? 2000);
  const rounds = Number(flags.get("rounds") ?? 3);
  const warmup = Number(flags.get("warmup") ?? 200);
  const server = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", new URL(import.meta.url).pathname, "--serve"],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  try {
    const reader = server.stdout.pipeThrough(new TextDecoderStream()).getReader();
    const first = await reader.read();
    reader.releaseLock();
    const port = Number(first.value?.trim());
    const results = new Map<Variant, Reading[]>(VARIANTS.map((v) => [v, []]));
    for (let r = 0; r < rounds; r++) {
      for (let j = 0; j < VARIANTS.length; j++) {
        const variant = VARIANTS[(r + j) % VARIANTS.length]!;
        progress(`round ${r + 1}/${rounds}: ${variant}`);
        results.get(variant)!.push(await runClient(variant, port, n, warmup));
      }
    }
    report(results, n, rounds, warmup);
  } finally {
    server.kill();
    await server.status;
    await server.stdout.cancel().catch(() => {});
  }
}

function report(results: Map<Variant, Reading[]>, n: number, rounds: number, warmup: number): void {
  const kib = (bytes: number) => (bytes / 1024 / n).toFixed(2).padStart(7);
  const med = (v: Variant, key: keyof Reading) => median(results.get(v)!.map((x) => x[key]));
  const base = med("TlsConnector, node:tls", "rss");
  print(
    `${n} TLS connections after ${warmup} warm-up, ${rounds} interleaved rounds, medians; ` +
      `growth per connection after two forced GCs (KiB/conn):`,
  );
  print(
    `${"variant".padEnd(28)}${"RSS".padStart(7)}${"anon".padStart(7)}${"file".padStart(7)}` +
      `${"heapTot".padStart(8)}${"heapUsd".padStart(8)}${"RSS noGC".padStart(9)}${"ms/conn".padStart(8)}` +
      `  RSS ratio to node:tls`,
  );
  for (const v of VARIANTS) {
    print(
      `${v.padEnd(28)}${kib(med(v, "rss"))}${kib(med(v, "anon"))}${kib(med(v, "file"))}` +
        ` ${kib(med(v, "heapTotal"))} ${kib(med(v, "heapUsed"))}  ${kib(med(v, "rssNoGc"))}` +
        `${med(v, "msPerConnection").toFixed(2).padStart(8)}  ${(med(v, "rss") / base).toFixed(2)}`,
    );
  }
}

if (import.meta.main) {
  if (flags.has("serve")) {
    await serve();
  } else if (flags.has("client")) {
    const variant = flags.get("client") as Variant;
    if (!VARIANTS.includes(variant)) throw new Error(`unknown variant "${variant}"`);
    await client(variant, Number(flags.get("port")), Number(flags.get("n")), Number(flags.get("warmup")));
  } else {
    await main();
  }
}
