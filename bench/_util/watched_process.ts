/**
 * A child process whose output lines a bench waits for: each stdout and stderr line is kept (the last
 * 20,000) with the time it arrived (`performance.now()`), and `waitFor` resolves with the first line that
 * matches, or rejects when the process exits or the time is up, quoting the end of its output.
 */

/** One output line and when it arrived. */
export interface OutputLine {
  readonly text: string;
  /** `performance.now()` when the harness read it. */
  readonly at: number;
  /** Its number among every line the process wrote (for `waitFor`'s `after`). */
  readonly seq: number;
}

/** Options of {@linkcode WatchedProcess.waitFor}. */
export interface WaitForOptions {
  /** Gives up after this long. @default {120_000} */
  readonly timeoutMs?: number;
  /** Only lines after this `seq`. @default {every line} */
  readonly after?: number;
}

const KEEP = 20_000;

/** A running child process and its output lines. */
export class WatchedProcess implements AsyncDisposable {
  readonly child: Deno.ChildProcess;
  readonly name: string;
  readonly #lines: OutputLine[] = [];
  #seq = 0;
  #wake: (() => void)[] = [];
  #exited = false;
  readonly #drained: Promise<unknown>;

  /** Starts `command args` with exactly `env` (plus PATH), stdin closed. */
  constructor(name: string, command: string, args: readonly string[], env: Record<string, string>) {
    this.name = name;
    this.child = new Deno.Command(command, {
      args: [...args],
      env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", ...env },
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#drained = Promise.all([this.#read(this.child.stdout), this.#read(this.child.stderr)]);
    void this.child.status.then(() => {
      this.#exited = true;
      this.#notify();
    });
  }

  /** The pid. */
  get pid(): number {
    return this.child.pid;
  }

  /** The last line's `seq` (0 before any). */
  get seq(): number {
    return this.#seq;
  }

  /** The end of the output, for error messages. */
  tail(lines = 40): string {
    return this.#lines.slice(-lines).map((l) => l.text).join("\n");
  }

  /** The first line matching `pattern` (after `options.after`), waiting for it. */
  async waitFor(pattern: RegExp, options: WaitForOptions = {}): Promise<OutputLine> {
    const deadline = performance.now() + (options.timeoutMs ?? 120_000);
    let seen = options.after ?? 0;
    // Lines are kept in `seq` order without gaps, so each wake scans only the lines it has not seen.
    const scan = () => {
      const first = this.#lines[0]?.seq ?? 1;
      for (let i = Math.max(0, seen + 1 - first); i < this.#lines.length; i++) {
        const line = this.#lines[i]!;
        seen = line.seq;
        if (pattern.test(line.text)) return line;
      }
      return undefined;
    };
    for (;;) {
      const found = scan();
      if (found) return found;
      if (this.#exited) await this.#drained; // lines written just before the exit
      const again = scan();
      if (again) return again;
      if (this.#exited) {
        throw new Error(`${this.name} exited before printing ${pattern}:\n${this.tail()}`);
      }
      const left = deadline - performance.now();
      if (left <= 0) throw new Error(`${this.name}: no line ${pattern} within the time:\n${this.tail()}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#wake.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Sends `signal` unless it exited. */
  kill(signal: Deno.Signal = "SIGTERM"): void {
    if (this.#exited) return;
    try {
      this.child.kill(signal);
    } catch {
      // Exited meanwhile.
    }
  }

  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it exited and its output is read. */
  async stop(graceMs = 30_000): Promise<Deno.CommandStatus> {
    this.kill("SIGTERM");
    const timer = setTimeout(() => this.kill("SIGKILL"), graceMs);
    const status = await this.child.status;
    clearTimeout(timer);
    await this.#drained.catch(() => {});
    return status;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop(5_000);
  }

  async #read(stream: ReadableStream<Uint8Array>): Promise<void> {
    let partial = "";
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      const parts = (partial + chunk).split("\n");
      partial = parts.pop() ?? "";
      const at = performance.now();
      for (const text of parts) this.#lines.push({ text, at, seq: ++this.#seq });
      if (this.#lines.length > KEEP) this.#lines.splice(0, this.#lines.length - KEEP);
      this.#notify();
    }
    if (partial) this.#lines.push({ text: partial, at: performance.now(), seq: ++this.#seq });
    this.#notify();
  }

  #notify(): void {
    for (const wake of this.#wake.splice(0)) wake();
  }
}
