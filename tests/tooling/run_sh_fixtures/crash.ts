// Fixture of tests/tooling/run_sh_test.ts (not a test file of the suite): the process dies in the middle
// of the file (as after a fatal runtime error), so no report is written. The file counts as one failure.
Deno.test("passes before the crash", () => {});
Deno.test("kills its own process", () => {
  Deno.kill(Deno.pid, "SIGKILL");
});
