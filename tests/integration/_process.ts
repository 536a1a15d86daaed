/**
 * Runs tests/integration/_manager_main.ts as a real subprocess against the test control plane, with
 * the start task's permissions, and gives tests its logs, its endpoints and its exit code.
 */
import { join } from "node:path";
import { freePort, startTaskFlags } from "../e2e/controller_process.ts";
import { eventually, testEnv } from "../_util/testenv.ts";
import type { ManagerMainOptions } from "./_manager_main.ts";
import { captureOutput } from "../_util/captured_output.ts";

/** One JSON log line of the subprocess. */
export type LogLine = Record<string, unknown> & { msg?: string; level?: string };

/** A running `_manager_main.ts`. Disposing it SIGKILLs the process if it still runs and reaps it. */
export interface ManagerProcess extends AsyncDisposable {
  /** The leader election identity it was given. */
  readonly identity: string;
  /** e.g. http://127.0.0.1:41234/metrics */
  readonly metricsUrl: string;
  /** Base URL of /healthz and /readyz. */
  readonly healthUrl: string;
  /** Resolves with the exit code once the process exited and its output was read. */
  readonly exited: Promise<number>;
  /** Sends a signal (ignored when the process is gone). */
  kill(signal: Deno.Signal): void;
  /** Every log line so far, parsed (non-JSON lines become `{ msg: line }`). */
  lines(): LogLine[];
  /** The raw output so far, for failure messages. */
  output(): string;
  /** Waits for a log line matching `match`, or fails after `timeoutMs` with the output attached. */
  waitForLine(match: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
}

const program = new URL("./_manager_main.ts", import.meta.url).pathname;

/** Starts `_manager_main.ts` with free ports and the admin kubeconfig. */
export async function startManagerProcess(
  options: Omit<ManagerMainOptions, "kubeconfig" | "metricsPort" | "healthPort">,
): Promise<ManagerProcess> {
  const metricsPort = freePort();
  const healthPort = freePort();
  const settings: ManagerMainOptions = {
    ...options,
    kubeconfig: testEnv.kubeconfig,
    metricsPort,
    healthPort,
  };
  const home = Deno.env.get("HOME") ?? "/root";
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...await startTaskFlags(), program, JSON.stringify(settings)],
    clearEnv: true,
    env: {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: home,
      DENO_DIR: Deno.env.get("DENO_DIR") ?? join(home, ".cache", "deno"),
      DENO_NO_UPDATE_CHECK: "1",
      // `deno task coverage`: the process's coverage counts too.
      ...(Deno.env.get("DENO_COVERAGE_DIR") ? { DENO_COVERAGE_DIR: Deno.env.get("DENO_COVERAGE_DIR")! } : {}),
    },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const captured = captureOutput(child, `manager-${options.identity}`);
  const exited = child.status.then(async (status) => {
    await captured.done;
    return status.code;
  });
  let done = false;
  void exited.then(() => void (done = true));
  const kill = (signal: Deno.Signal) => {
    if (done) return;
    try {
      child.kill(signal);
    } catch {
      // Already exited.
    }
  };
  const lines = () => captured.text().split("\n").filter((l) => l.trim() !== "").map(parseLine);
  return {
    identity: options.identity,
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    healthUrl: `http://127.0.0.1:${healthPort}`,
    exited,
    kill,
    lines,
    output: () => captured.text(),
    waitForLine: (match, timeoutMs = 20_000) =>
      eventually(() => lines().find(match), {
        timeoutMs,
        intervalMs: 50,
        // Taken at the timeout: the output then, and what the process was doing.
        message: () =>
          `no matching log line from ${options.identity} (${
            done ? "exited" : processState(child.pid)
          }); output:\n${captured.text().slice(-6000)}`,
      }),
    async [Symbol.asyncDispose]() {
      kill("SIGKILL");
      await exited;
    },
  };
}

/**
 * What a running process is doing, from /proc (Linux; elsewhere "state unknown"): its state, its pending,
 * blocked and caught signals, and each thread's state and kernel wait channel, so a timeout tells a
 * process blocked in a write or never handling a signal from one that is busy or waiting for the network.
 */
export function processState(pid: number): string {
  const read = (path: string) => {
    try {
      return Deno.readTextFileSync(path).trim();
    } catch {
      return undefined;
    }
  };
  const status = read(`/proc/${pid}/status`);
  if (status === undefined) return `pid ${pid}: state unknown`;
  const fields = status.split("\n").filter((l) => /^(State|SigQ|SigPnd|ShdPnd|SigBlk|SigIgn|SigCgt):/.test(l))
    .map((l) => l.replace(/:\s+/, "=")).join(" ");
  const threads: string[] = [];
  try {
    for (const task of Deno.readDirSync(`/proc/${pid}/task`)) {
      const stat = read(`/proc/${pid}/task/${task.name}/stat`) ?? "";
      // "tid (comm) S ...": the comm may contain spaces, the state follows its closing parenthesis.
      const close = stat.lastIndexOf(")");
      const comm = stat.slice(stat.indexOf("(") + 1, close);
      const state = stat.slice(close + 2, close + 3);
      threads.push(`${comm}:${state}:${read(`/proc/${pid}/task/${task.name}/wchan`) ?? "?"}`);
    }
  } catch {
    // The process exited meanwhile.
  }
  return `pid ${pid}: ${fields}; threads ${threads.join(" ")}`;
}

function parseLine(line: string): LogLine {
  try {
    const value: unknown = JSON.parse(line);
    if (typeof value === "object" && value !== null) return value as LogLine;
  } catch {
    // Deno's own messages (e.g. an uncaught error) are not JSON.
  }
  return { msg: line };
}

/** Waits until GET `url` answers 200. */
export async function waitForOk(url: string, timeoutMs = 20_000): Promise<void> {
  await eventually(async () => {
    const res = await fetch(url).catch(() => undefined);
    await res?.body?.cancel();
    return res?.ok ? true : undefined;
  }, { timeoutMs, message: `${url} did not answer 200` });
}

/** True for the reconcile log lines of `key`. */
export function reconcileLine(
  msg: "Reconcile started" | "Reconcile finished",
  key: string,
): (line: LogLine) => boolean {
  return (line: LogLine): boolean => line.msg === msg && line["key"] === key;
}
