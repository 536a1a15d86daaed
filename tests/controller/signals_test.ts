import assert from "node:assert/strict";
import { installSignalHandlers } from "../../lib/controller/mod.ts";

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
}

Deno.test({
  name: "the first signal aborts the controller and the second calls onSecondSignal",
  ignore: Deno.build.os === "windows",
  fn: async () => {
    const ctl = new AbortController();
    const second: string[] = [];
    {
      using _handlers = installSignalHandlers(ctl, {
        signals: ["SIGUSR2"],
        onSecondSignal: (s) => void second.push(s),
      });
      Deno.kill(Deno.pid, "SIGUSR2");
      await until(() => ctl.signal.aborted);
      assert.ok(ctl.signal.aborted);
      assert.match(String(ctl.signal.reason), /SIGUSR2/);
      assert.deepEqual(second, []);
      Deno.kill(Deno.pid, "SIGUSR2");
      await until(() => second.length > 0);
      assert.deepEqual(second, ["SIGUSR2"]);
    }
  },
});
