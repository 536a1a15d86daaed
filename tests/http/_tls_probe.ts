// Run as a subprocess by tls_trust_test.ts, so its environment (DENO_CERT) can change which
// roots the process trusts by default. Sends one GET to Deno.args[0] with the CA file named by
// Deno.args[1] (or none, "-") as caCerts, and prints the outcome as one JSON line.
import { HttpClient } from "../../lib/http/mod.ts";

const [url, caFile] = Deno.args;
const print = (value: unknown) =>
  Deno.stdout.writeSync(new TextEncoder().encode(`${JSON.stringify(value)}\n`));
const tls = caFile && caFile !== "-" ? { caCerts: [Deno.readTextFileSync(caFile)] } : {};
await using client = new HttpClient({ tls });
try {
  const body = await (await client.request({ method: "GET", url: new URL(url!) })).text();
  print({ ok: true, body });
} catch (err) {
  const e = err as Error;
  print({ ok: false, name: e.name, message: e.message });
}
