// Fixture of tests/tooling/run_sh_test.ts (not a test file of the suite): a test whose second step
// fails. Leaves count, so this is one pass and one failure; the parent test is not counted again.
Deno.test("a test with steps", async (t) => {
  await t.step("a step that passes", () => {});
  await t.step("a step that fails", () => {
    throw new Error("this fixture step fails on purpose");
  });
});
