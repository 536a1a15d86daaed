/**
 * HTTP/1.1 response parsing against Go's net/http: 2,000 generated response streams (interim heads,
 * status lines, header forms, Content-Length and chunked framing, chunk extensions and trailers, gzip
 * members, extra bytes, split at random write boundaries) are served to both clients; each verdict (the
 * status and whole body, or a refusal) must match, except the argued differences listed in
 * _http_known_differences.ts and docs/security.md. The long run is `deno task fuzz:http`.
 */
import assert from "node:assert/strict";
import { describeBytes } from "./_http_cases.ts";
import { runHttpDifferential, type Verdict } from "./_http_differential.ts";

const show = (v: Verdict) => v.ok ? `${v.status} with ${v.body.length} body bytes` : `refused: ${v.error}`;

Deno.test("2,000 generated responses get the same verdict from our client and Go's, but for listed differences", async () => {
  const report = await runHttpDifferential({ seed: 20261203, cases: 2_000 });
  const details = report.unexplained.slice(0, 5).map((m) =>
    `case seed ${m.case.seed} (replay: deno task fuzz:http --seeds=${m.case.seed}):\n` +
    `  ours: ${show(m.ours)}\n  go:   ${show(m.go)}\n${describeBytes(m.case.bytes, 400)}`
  );
  assert.equal(report.unexplained.length, 0, details.join("\n\n"));
  assert.equal(report.cases, 2_000);
  // The generator must exercise both outcomes and most of the listed differences, or the test proves little.
  assert.ok(report.bothAccepted > 900, `both accepted ${report.bothAccepted}`);
  assert.ok(report.bothRefused > 300, `both refused ${report.bothRefused}`);
  assert.ok(report.known.size >= 8, `known differences seen: ${[...report.known.keys()].join(", ")}`);
});
