// Fixture of tests/tooling/run_sh_test.ts (not a test file of the suite): an ignored test and an
// ignored step, reported as skipped (never as passed), next to a step that passes.
Deno.test({ name: "an ignored test", ignore: true, fn: () => {} });
Deno.test("a test with an ignored step", async (t) => {
  await t.step({ name: "an ignored step", ignore: true, fn: () => {} });
  await t.step("a step that passes", () => {});
});
