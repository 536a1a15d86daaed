// Asks tests/differential/x509_oracle (Go's crypto/x509, as crypto/tls uses it for a client) for
// its verdict on each scenario: one process for all of them, JSON lines in and out.
import { goOracle } from "../_util/go_oracle.ts";
import { certificatePem } from "./_builder.ts";
import type { Scenario } from "./_path_world.ts";

/** Go's verdict: accepted, or refused with a reason class and Go's message. */
export interface Verdict {
  readonly ok: boolean;
  readonly reason?: string;
  readonly detail?: string;
}

/** Go's verdict on each of `scenarios`, in order. */
export async function goVerdicts(scenarios: readonly Scenario[]): Promise<Verdict[]> {
  const child = new Deno.Command(await goOracle("x509_oracle"), {
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const input = scenarios.map((s) =>
    JSON.stringify({
      id: s.id,
      roots: s.roots.map(certificatePem).join(""),
      intermediates: s.intermediates.map(certificatePem).join(""),
      leaf: certificatePem(s.leaf),
      name: s.name,
      timeMs: s.now,
    }) + "\n"
  ).join("");
  // Read while writing: the answers could fill the pipe before the last question is written.
  const output = child.output();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(input));
  await writer.close();
  const { success, stdout, stderr } = await output;
  if (!success) throw new Error(`x509_oracle failed: ${new TextDecoder().decode(stderr)}`);
  const answers = new TextDecoder().decode(stdout).trim().split("\n").map((line) =>
    JSON.parse(line) as Verdict & { id: string }
  );
  if (answers.length !== scenarios.length) {
    throw new Error(`x509_oracle answered ${answers.length} of ${scenarios.length} scenarios`);
  }
  return answers.map((a, i) => {
    if (a.id !== scenarios[i]!.id) {
      throw new Error(`x509_oracle answered "${a.id}" for "${scenarios[i]!.id}"`);
    }
    return {
      ok: a.ok,
      ...(a.reason !== undefined && { reason: a.reason }),
      ...(a.detail && { detail: a.detail }),
    };
  });
}
