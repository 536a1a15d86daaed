// Our server-certificate path check against Go's crypto/x509, scenario by scenario: the same
// verdict (accepted or refused) on every generated chain, except where kubeloop is stricter on
// purpose, or accepts a key type Go does not implement (each such scenario says why;
// docs/security.md lists them). With KUBELOOP_X509_REPORT set to a file name, every verdict pair
// is written there as JSON lines.
import assert from "node:assert/strict";
import { certificatePem } from "./_builder.ts";
import { goVerdicts, type Verdict } from "./_go_verdict.ts";
import { type Scenario, World } from "./_path_world.ts";
import { basicScenarios } from "./_scenarios_basic.ts";
import { caScenarios } from "./_scenarios_ca.ts";
import { nameScenarios } from "./_scenarios_names.ts";
import { randomScenarios } from "./_scenarios_random.ts";
import { seededRandom } from "../_util/seeded_random.ts";
import {
  parseTrustAnchors,
  ServerCertificateError,
  verifyServerCertificate,
} from "../../lib/x509/server_certificate.ts";

const SEED = 0x5e509;
const RANDOM_SCENARIOS = 300;

async function generate(): Promise<{ named: Scenario[]; random: Scenario[] }> {
  const random = seededRandom(SEED);
  const world = await World.create(random);
  const named = [...await basicScenarios(world), ...await caScenarios(world), ...await nameScenarios(world)];
  return { named, random: await randomScenarios(world, random, RANDOM_SCENARIOS) };
}

async function ourVerdict(s: Scenario): Promise<Verdict> {
  let anchors;
  try {
    anchors = parseTrustAnchors([s.roots.map(certificatePem).join("")]);
  } catch (err) {
    // A configured CA that cannot be read is a configuration error: nothing is trusted.
    assert.ok(err instanceof TypeError, String(err));
    return { ok: false, reason: "configuration", detail: err.message };
  }
  try {
    await verifyServerCertificate([s.leaf, ...s.intermediates], anchors, s.name, s.now);
    return { ok: true };
  } catch (err) {
    assert.ok(err instanceof ServerCertificateError, String(err));
    return { ok: false, detail: err.message };
  }
}

Deno.test("the path check gives Go's crypto/x509 verdict on every generated chain", async () => {
  const { named, random } = await generate();
  const all = [...named, ...random];
  assert.equal(new Set(all.map((s) => s.id)).size, all.length, "scenario ids are unique");
  const go = await goVerdicts(all);
  const ours = await Promise.all(all.map(ourVerdict));
  const report = Deno.env.get("KUBELOOP_X509_REPORT");
  if (report !== undefined) {
    const lines = all.map((s, i) =>
      JSON.stringify({ id: s.id, stricter: s.stricter, go: go[i], ours: ours[i] })
    );
    Deno.writeTextFileSync(report, lines.join("\n") + "\n");
  }
  const wrong: string[] = [];
  all.forEach((s, i) => {
    const g = go[i]!;
    const o = ours[i]!;
    if (s.stricter !== undefined && !g.ok) wrong.push(`${s.id}: marked stricter, but Go refuses too`);
    else if (o.ok !== (s.stricter !== undefined ? false : g.ok)) {
      wrong.push(
        `${s.id}: Go ${g.ok ? "accepts" : `refuses (${g.reason}: ${g.detail})`}, ours ` +
          (o.ok ? "accepts" : `refuses (${o.detail})`),
      );
    }
  });
  assert.deepEqual(wrong, [], `${wrong.length} of ${all.length} scenarios differ:\n${wrong.join("\n")}`);
});

Deno.test("the scenarios cover each kind of verdict Go gives", async () => {
  const { named, random } = await generate();
  assert.ok(named.length >= 40, `${named.length} named scenarios`);
  const go = await goVerdicts([...named, ...random]);
  const reasons = new Set(go.map((v) => v.ok ? "ok" : v.reason));
  for (
    const reason of [
      "ok",
      "unknown-authority",
      "expired",
      "name",
      "key-usage",
      "name-constraints",
      "path-length",
      "critical-extension",
      "not-a-ca",
      "no-valid-chain",
    ]
  ) {
    assert.ok(reasons.has(reason), `no scenario where Go says ${reason}: ${[...reasons].join(", ")}`);
  }
  const accepted = go.filter((v) => v.ok).length;
  assert.ok(accepted >= 40 && go.length - accepted >= 40, `${accepted} of ${go.length} accepted by Go`);
});
