/**
 * Deno 2.9 prints "Deno.serve: request.signal aborts on successful responses (legacy behavior)…" to stderr
 * on the first successful response of a handler that read `request.signal`. The secure metrics path read
 * it (to cancel reviews of a scraper that went away), so every controller printed the warning on its
 * first authorized scrape. This runs a server and one authorized scrape in a process of its own and
 * reads that process' stderr.
 */
import assert from "node:assert/strict";

const root = new URL("../../", import.meta.url);

Deno.test("an authorized HTTPS scrape prints no Deno.serve warning", async () => {
  const script = `
    import { serveObservability } from "${new URL("lib/observe/server.ts", root)}";
    import { staticCertificate } from "${new URL("lib/observe/certificate_source.ts", root)}";
    import { MetricsRegistry } from "${new URL("lib/metrics/registry.ts", root)}";
    import { selfSignedCertificate } from "${new URL("lib/x509/self_signed.ts", root)}";
    const tls = await selfSignedCertificate({ hosts: ["127.0.0.1"] });
    const controller = new AbortController();
    const server = serveObservability({
      metricsAddress: "127.0.0.1:0",
      healthAddress: "0",
      registry: new MetricsRegistry(),
      readyz: () => true,
      metricsTls: staticCertificate(tls),
      metricsAuthorizer: { review: () => Promise.resolve({ kind: "allowed", user: "prometheus" }) },
      signal: controller.signal,
    });
    const client = Deno.createHttpClient({ caCerts: [tls.cert] });
    for (let i = 0; i < 2; i++) {
      const response = await fetch(server.metricsUrl, { client, headers: { authorization: "Bearer t" } });
      await response.text();
      if (response.status !== 200) throw new Error("status " + response.status);
    }
    client.close();
    controller.abort();
    await server.finished;
  `;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--quiet", script],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  assert.doesNotMatch(stderr, /request\.signal|legacy behavior/);
});
