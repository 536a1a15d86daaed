// Fixture of tests/tooling/run_sh_test.ts (not a test file of the suite): one test that fails.
Deno.test("fails", () => {
  throw new Error("this fixture fails on purpose");
});
