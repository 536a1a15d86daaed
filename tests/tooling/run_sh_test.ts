/**
 * tests/run.sh counts what ran: it is run on a tiny fixture suite (tests/tooling/run_sh_fixtures/) with
 * a pass, a fail, a failing step, skips, a crash and a hang, and doc examples (with a stand-in for the
 * control plane), and its summary line must be exact.
 */
import assert from "node:assert/strict";

const root = new URL("../../", import.meta.url).pathname;
const fixture = (name: string) => `tests/tooling/run_sh_fixtures/${name}.ts`;

async function runSh(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; out: string; last: string }> {
  const out = await new Deno.Command("bash", {
    args: ["tests/run.sh", "--no-gates", ...args],
    cwd: root,
    // The fixtures check no metrics, so the nested run need not look for the checker.
    env: { NO_COLOR: "1", KUBELOOP_METRICS_CHECK: "/nonexistent/metrics-check", ...env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  const lines = new TextDecoder().decode(out.stdout).trimEnd().split("\n");
  return { code: out.code, out: text, last: lines.at(-1) ?? "" };
}

Deno.test("run.sh counts leaves: a failed step is one failure, a crashed or hung file one more each, skips apart", async () => {
  const files = ["pass", "fail", "failing_step", "skip", "crash", "hang"].map(fixture);
  const started = Date.now();
  const { code, out, last } = await runSh(["--timeout=8", ...files]);
  // passed: pass, the passing step, the passing step next to the ignored one (the crashed file's
  // passing test is lost with its report); failed: fail, the failing step, the crash, the hang;
  // skipped: the ignored test and the ignored step.
  assert.equal(last, "3 passed, 4 failed, 2 skipped", out);
  assert.equal(code, 1);
  assert.match(out, /FAILED: tests\/tooling\/run_sh_fixtures\/crash\.ts crashed \(exit 137\)/);
  assert.match(out, /FAILED: tests\/tooling\/run_sh_fixtures\/hang\.ts timed out after 8 s/);
  assert.match(out, /^ {2}tests\/tooling\/run_sh_fixtures\/fail\.ts: 1 failed$/m);
  assert.match(out, /^ {2}tests\/tooling\/run_sh_fixtures\/failing_step\.ts: 1 failed$/m);
  assert.ok(Date.now() - started < 60_000, "the hang was stopped by the timeout, not waited out");
});

Deno.test("run.sh: a deliberately skipped test is reported as skipped, not passed, and does not fail the run", async () => {
  const { code, out, last } = await runSh([fixture("skip"), fixture("pass")]);
  assert.equal(last, "2 passed, 0 failed, 2 skipped", out);
  assert.equal(code, 0, out);
});

Deno.test("run.sh --doc runs doc examples with the control plane's kubeconfig, one failure each, `ignore` ones skipped", async () => {
  // Where the nested run keeps its logs and the stand-in control plane its state (not the outer run's).
  const logs = await Deno.makeTempDir();
  try {
    const { code, out, last } = await runSh([
      "--doc=tests/tooling/run_sh_fixtures/doc_examples",
      fixture("pass"),
    ], {
      KUBELOOP_TESTENV_BIN: `${root}tests/tooling/run_sh_fixtures/fake_testenv`,
      KUBELOOP_TEST_LOGS: logs,
    });
    // passed: pass.ts, the example that sees the kubeconfig, the credential scan of the logs;
    // failed: the failing example; skipped: the `ignore` example, which deno test does not report.
    assert.equal(last, "3 passed, 1 failed, 1 skipped", out);
    assert.equal(code, 1);
    assert.match(out, /== doc examples of tests\/tooling\/run_sh_fixtures\/doc_examples \(deno test --doc\)/);
    assert.match(
      out,
      /^ {2}doc examples of tests\/tooling\/run_sh_fixtures\/doc_examples \(deno test --doc\): 1 failed$/m,
    );
  } finally {
    await Deno.remove(logs, { recursive: true });
  }
});
