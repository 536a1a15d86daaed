/**
 * What checking a server's chain ourselves costs when nothing about it is remembered (the first
 * connection of a TlsConnector to a server): a leaf signed by an ECDSA P-256 intermediate, which an
 * RSA-2048 root signed (tests/http/fixtures/trust/signatures/mixed-*.crt), so two signatures.
 * - "full chain check, nothing cached": the root parsed from PEM each time too, so its key is never
 *   reused (a new TlsConnector);
 * - "full chain check, anchors parsed once": one TlsConnector meeting a leaf it has not seen;
 * - one signature of each kind, the issuer parsed each time (so its key is imported each time).
 *
 *   deno bench --allow-read bench/chain_check_bench.ts
 *       (KUBELOOP_BENCH_ITERATIONS per case with --allow-env: see _util/bench_env.ts)
 *   deno run --allow-read bench/chain_check_bench.ts --medians [N]   # N interleaved rounds (default
 *       2000) of all of them; prints each median
 */
import { checkChain, parseTrustAnchors } from "../lib/x509/server_certificate.ts";
import { parseCertificate, pemCertificates } from "../lib/x509/certificate.ts";
import { signedBy } from "../lib/x509/signature.ts";
import { median, print } from "./_util/stats.ts";
import { benchIterations } from "./_util/bench_env.ts";

const fixtures = new URL("../tests/http/fixtures/trust/signatures/", import.meta.url);
const pem = (name: string) => Deno.readTextFileSync(new URL(name, fixtures));
const der = (name: string) => pemCertificates(pem(name))[0]!;

const rootPem = pem("mixed-root.crt");
const presented = [der("mixed-leaf.crt"), der("mixed-intermediate.crt")];
const anchors = parseTrustAnchors([rootPem]);
const leaf = parseCertificate(presented[0]!);
const intermediate = parseCertificate(presented[1]!);
const root = der("mixed-root.crt");
const now = Date.now();

const cases: [string, string, () => Promise<void>][] = [
  ["chain", "full chain check, nothing cached", async () => {
    await checkChain(presented, parseTrustAnchors([rootPem]), now);
  }],
  ["chain", "full chain check, anchors parsed once", async () => {
    await checkChain(presented, anchors, now);
  }],
  ["signature", "one ECDSA P-256 signature", async () => {
    if (!await signedBy(leaf, parseCertificate(presented[1]!))) throw new Error("not verified");
  }],
  ["signature", "one RSA-2048 PKCS#1 v1.5 signature", async () => {
    if (!await signedBy(intermediate, parseCertificate(root))) throw new Error("not verified");
  }],
];

for (const [group, name, fn] of cases) Deno.bench(name, { group, ...benchIterations() }, fn);

if (import.meta.main && Deno.args.includes("--medians")) {
  const rounds = Number(Deno.args[Deno.args.indexOf("--medians") + 1] ?? "") || 2000;
  const times = cases.map((): number[] => []);
  for (let i = 0; i < 100; i++) for (const [, , fn] of cases) await fn(); // warm-up
  for (let i = 0; i < rounds; i++) {
    for (let j = 0; j < cases.length; j++) {
      const k = (i + j) % cases.length;
      const start = performance.now();
      await cases[k]![2]();
      times[k]!.push(performance.now() - start);
    }
  }
  print(`${rounds} interleaved rounds (medians):`);
  cases.forEach(([, name], k) => print(`  ${name}: ${(median(times[k]!) * 1000).toFixed(0)} µs`));
}
