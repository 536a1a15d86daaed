// Run as a subprocess by tls_trust_test.ts, so its environment (DENO_CERT) can change which
// roots the process trusts by default. Deno.args[0] is a JSON list of probes; each sends one GET
// with its own HttpClient and the outcomes are printed as one JSON list.
import { HttpClient, type TlsOptions } from "../../lib/http/mod.ts";

/** One request: `caFile` (the configured CA), `certFile`/`keyFile` (a client certificate). */
export interface Probe {
  readonly url: string;
  readonly caFile?: string;
  readonly serverName?: string;
  readonly certFile?: string;
  readonly keyFile?: string;
}

/** What happened: the body, or the error's name and message. */
export interface ProbeResult {
  readonly ok: boolean;
  readonly body?: string;
  readonly name?: string;
  readonly message?: string;
}

async function run(probe: Probe): Promise<ProbeResult> {
  const read = (file: string | undefined) => file === undefined ? undefined : Deno.readTextFileSync(file);
  const ca = read(probe.caFile);
  const cert = read(probe.certFile);
  const key = read(probe.keyFile);
  const tls: TlsOptions = {
    ...(ca !== undefined && { caCerts: [ca] }),
    ...(probe.serverName !== undefined && { serverName: probe.serverName }),
    ...(cert !== undefined && key !== undefined && { cert, key }),
  };
  await using client = new HttpClient({ tls });
  try {
    return {
      ok: true,
      body: await (await client.request({ method: "GET", url: new URL(probe.url) })).text(),
    };
  } catch (err) {
    const e = err as Error;
    return { ok: false, name: e.name, message: e.message };
  }
}

if (import.meta.main) {
  const probes = JSON.parse(Deno.args[0]!) as Probe[];
  const results: ProbeResult[] = [];
  for (const probe of probes) results.push(await run(probe));
  Deno.stdout.writeSync(new TextEncoder().encode(`${JSON.stringify(results)}\n`));
}
