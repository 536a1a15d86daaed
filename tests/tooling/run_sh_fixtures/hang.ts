// Fixture of tests/tooling/run_sh_test.ts (not a test file of the suite): a test that never finishes.
// The runner's per-file timeout must stop it and name this file.
Deno.test("never finishes", async () => {
  await new Promise((resolve) => setTimeout(resolve, 3_600_000));
});
