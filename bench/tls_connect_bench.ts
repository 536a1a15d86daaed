/**
 * What verifying the server's chain ourselves costs per connection: TCP connect + TLS handshake
 * (configured CA) to the local control plane's kube-apiserver, until the socket is ready for the
 * first request, then closed.
 * - "node:tls verdict only": the path before kubeloop checked chains itself (node:tls with the CA,
 *   rejectUnauthorized and node's name check), kept here as the reference;
 * - "TlsConnector": the path the HttpClient uses with the kubeconfig's client certificate (node:tls,
 *   then our own chain and name check), warm: the chain was verified before, so its signatures are
 *   not checked again (an HttpClient keeps one TlsConnector, so this is every connection after its
 *   first);
 * - "TlsConnector, cold": a new TlsConnector each time, so every signature is checked (the first
 *   connection of an HttpClient);
 * - "TlsConnector, no client cert": the path of a token (in-cluster, exec plugin): Deno's TLS
 *   (`Deno.startTls`, TCP_NODELAY) and our check of the leaf, warm;
 * - "... no client cert, node:tls": the same connector forced onto node:tls (the path of a token
 *   before Deno's TLS was used);
 * - "Deno.connectTls, client cert": the one Deno API that presents a client certificate (Nagle on),
 *   for the record: why client certificates stay on node:tls.
 *
 *   deno bench --allow-all bench/tls_connect_bench.ts                  # batches of 25 connections
 *       (KUBELOOP_BENCH_ITERATIONS batches per case: see _util/bench_env.ts)
 *   deno run --allow-all bench/tls_connect_bench.ts --interleaved [N]  # N rounds (default 200) of
 *       all of them, each round in another order; prints each median and its ratio to "before"
 *
 * It starts the control plane (tests/_util/testenv.ts), so without --allow-run (as in `deno task bench`)
 * it registers one ignored bench and does nothing.
 */
import * as nodeTls from "node:tls";
import type { TlsOptions } from "../lib/http/types.ts";
import { benchIterations } from "./_util/bench_env.ts";

const canRun = (await Deno.permissions.query({ name: "run" })).state === "granted";

if (!canRun) {
  Deno.bench({ name: "TLS connect (needs --allow-all: starts the control plane)", ignore: true, fn() {} });
} else {
  const { testEnv } = await import("../tests/_util/testenv.ts");
  const { loadConfig } = await import("../lib/config/mod.ts");
  const { TlsConnector } = await import("../lib/http/tls.ts");
  const config = await loadConfig({ kubeconfig: testEnv.kubeconfig });
  const credentials = await config.credentials.get();
  const tls: TlsOptions = {
    ...config.tls,
    ...(credentials.cert && credentials.key ? { cert: credentials.cert, key: credentials.key } : {}),
  };
  const host = config.server.hostname;
  const port = Number(config.server.port);
  const connector = new TlsConnector(tls);

  /** The connection path before the fix: node:tls decides alone. */
  const runtimeVerdictOnly = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const socket = nodeTls.connect({
        host,
        port,
        ALPNProtocols: ["http/1.1"],
        rejectUnauthorized: true,
        checkServerIdentity: (_name, cert) => nodeTls.checkServerIdentity(host, cert),
        ca: [...tls.caCerts!],
        ...(tls.cert !== undefined && { cert: tls.cert, key: tls.key }),
      });
      socket.once("error", reject);
      socket.once("secureConnect", () => {
        socket.destroy();
        resolve();
      });
    });
  const withOurCheck = async (): Promise<void> => (await connector.connect(host, port)).close();
  const withOurCheckCold = async (): Promise<void> =>
    (await new TlsConnector(tls).connect(host, port)).close();
  const { cert: _cert, key: _key, ...tokenTls } = tls;
  const tokenConnector = new TlsConnector(tokenTls);
  const tokenNodeConnector = new TlsConnector(tokenTls, { denoTls: false });
  const withoutCert = async (): Promise<void> => (await tokenConnector.connect(host, port)).close();
  const withoutCertNode = async (): Promise<void> => (await tokenNodeConnector.connect(host, port)).close();
  const denoConnectTls = async (): Promise<void> => {
    const conn = await Deno.connectTls({
      hostname: host,
      port,
      caCerts: [...tls.caCerts!],
      alpnProtocols: ["http/1.1"],
      ...(tls.cert !== undefined && { cert: tls.cert, key: tls.key! }),
    });
    try {
      await conn.handshake();
    } finally {
      conn.close();
    }
  };

  // Each bench iteration is a batch of connections, one after another: timed one by one, these
  // async node:tls handshakes were reported at 0.03-0.3 ms by deno bench while a timed loop of them
  // took 1.2 ms each in the same process. A few batches only: thousands of connections closed in a
  // burst leave the client's ports in TIME_WAIT and slow whichever bench runs later.
  const BATCH = 25;
  const batch = (fn: () => Promise<void>) => async () => {
    for (let i = 0; i < BATCH; i++) await fn();
  };
  const fixed = { group: `TLS connect x${BATCH}`, ...benchIterations({ n: 12, warmup: 2 }) };
  Deno.bench(
    `${BATCH} x node:tls verdict only (before)`,
    { ...fixed, baseline: true },
    batch(runtimeVerdictOnly),
  );
  Deno.bench(`${BATCH} x TlsConnector, own chain check (after)`, fixed, batch(withOurCheck));
  Deno.bench(`${BATCH} x TlsConnector, cold (after, first connection)`, fixed, batch(withOurCheckCold));
  Deno.bench(`${BATCH} x TlsConnector, no client cert (Deno TLS)`, fixed, batch(withoutCert));
  Deno.bench(`${BATCH} x TlsConnector, no client cert, node:tls`, fixed, batch(withoutCertNode));

  if (import.meta.main && Deno.args.includes("--interleaved")) {
    const rounds = Number(Deno.args[Deno.args.indexOf("--interleaved") + 1] ?? "") || 200;
    const series: [string, () => Promise<void>, number[]][] = [
      ["before (node:tls verdict only)", runtimeVerdictOnly, []],
      ["after (own chain check, warm)", withOurCheck, []],
      ["after (own chain check, cold)", withOurCheckCold, []],
      ["no client cert: Deno TLS + own leaf check, warm", withoutCert, []],
      ["no client cert: node:tls + own chain check, warm", withoutCertNode, []],
      ["Deno.connectTls with the client cert (not used)", denoConnectTls, []],
    ];
    for (let i = 0; i < 10; i++) for (const [, fn] of series) await fn(); // warm-up
    for (let i = 0; i < rounds; i++) {
      // Each round runs every series, starting with a different one each time.
      for (let j = 0; j < series.length; j++) {
        const [, fn, times] = series[(i + j) % series.length]!;
        const start = performance.now();
        await fn();
        times.push(performance.now() - start);
      }
    }
    const median = (xs: number[]) => {
      const s = [...xs].sort((a, b) => a - b);
      const mid = s.length >> 1;
      return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
    };
    const base = median(series[0]![2]);
    const line = `TLS connect to ${config.server.origin}, ${rounds} interleaved rounds (medians):\n` +
      series.map(([label, , times]) => {
        const m = median(times);
        return `  ${label}: ${m.toFixed(2)} ms, ratio to before ${(m / base).toFixed(2)}\n`;
      }).join("");
    Deno.stdout.writeSync(new TextEncoder().encode(line));
  }
}
