/**
 * Runs generated response streams through our HttpClient and through Go's net/http client (the
 * http_oracle program) and compares their verdicts: the status and whole decoded body, or a refusal.
 * A byte-level server on 127.0.0.1 serves case N at /case/N, writing its bytes in the case's pieces
 * with a pause between them, then closing the connection. One oracle process answers every case:
 * JSON lines on its stdin and stdout.
 */
import { HttpClient } from "../../lib/http/mod.ts";
import { goOracle } from "../_util/go_oracle.ts";
import { caseSeed, generateCase, type HttpCase } from "./_http_cases.ts";
import { explain } from "./_http_known_differences.ts";

/** What a client made of a case. */
export type Verdict =
  | { readonly ok: true; readonly status: number; readonly body: Uint8Array }
  | { readonly ok: false; readonly error: string };

/** A case whose verdicts differ. */
export interface Mismatch {
  readonly case: HttpCase;
  readonly ours: Verdict;
  readonly go: Verdict;
  /** The known difference that explains it, if any. */
  readonly known: string | undefined;
}

/** The outcome of a run. */
export interface DifferentialReport {
  readonly cases: number;
  readonly bothAccepted: number;
  readonly bothRefused: number;
  /** Mismatches explained by a known difference, by its tag. */
  readonly known: ReadonlyMap<string, number>;
  readonly unexplained: readonly Mismatch[];
}

/** Settings of a run. */
export interface DifferentialOptions {
  readonly seed: number;
  readonly cases: number;
  /**
   * Requests of our client in flight at once (the oracle runs its own 8).
   * @default {16}
   */
  readonly concurrency?: number;
  /** Only these case seeds (replaying failures), instead of `cases` from `seed`. */
  readonly seeds?: readonly number[];
}

/** Generates the cases, serves them to both clients and compares. */
export async function runHttpDifferential(options: DifferentialOptions): Promise<DifferentialReport> {
  const seeds = options.seeds ?? Array.from({ length: options.cases }, (_, i) => caseSeed(options.seed, i));
  const cases: HttpCase[] = [];
  for (const seed of seeds) cases.push(await generateCase(seed));
  await using server = serveCases(cases);
  const base = `http://127.0.0.1:${server.port}/case/`;
  const [ours, go] = await Promise.all([
    runOurs(cases, base, options.concurrency ?? 16),
    runGo(cases, base),
  ]);
  let bothAccepted = 0, bothRefused = 0;
  const known = new Map<string, number>();
  const unexplained: Mismatch[] = [];
  cases.forEach((c, i) => {
    const a = ours[i]!, b = go[i]!;
    if (same(a, b)) {
      if (a.ok) bothAccepted++;
      else bothRefused++;
      return;
    }
    const why = explain(c, a, b);
    if (why === undefined) unexplained.push({ case: c, ours: a, go: b, known: undefined });
    else known.set(why, (known.get(why) ?? 0) + 1);
  });
  return { cases: cases.length, bothAccepted, bothRefused, known, unexplained };
}

function same(a: Verdict, b: Verdict): boolean {
  if (!a.ok || !b.ok) return a.ok === b.ok;
  if (a.status !== b.status || a.body.length !== b.body.length) return false;
  return a.body.every((x, i) => x === b.body[i]);
}

async function runOurs(cases: HttpCase[], base: string, concurrency: number): Promise<Verdict[]> {
  const client = new HttpClient({ maxIdlePerOrigin: 0, readTimeoutMs: 20_000 });
  const verdicts: Verdict[] = new Array(cases.length);
  let next = 0;
  const worker = async () => {
    while (next < cases.length) {
      const i = next++;
      verdicts[i] = await fetchOurs(client, cases[i]!.method, `${base}${i}`);
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    client.close();
  }
  return verdicts;
}

async function fetchOurs(client: HttpClient, method: string, url: string): Promise<Verdict> {
  try {
    const res = await client.request({ method, url: new URL(url), signal: AbortSignal.timeout(30_000) });
    return { ok: true, status: res.status, body: await res.bytes() };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) };
  }
}

async function runGo(cases: HttpCase[], base: string): Promise<Verdict[]> {
  const child = new Deno.Command(await goOracle("http_oracle"), {
    args: ["-workers", "8"],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const writer = child.stdin.getWriter();
  const lines = cases.map((c, i) => JSON.stringify({ id: i, method: c.method, url: `${base}${i}` })).join(
    "\n",
  );
  const written = writer.write(new TextEncoder().encode(lines + "\n")).then(() => writer.close());
  const verdicts: Verdict[] = new Array(cases.length);
  let buffered = "";
  let answered = 0;
  for await (const text of child.stdout.pipeThrough(new TextDecoderStream())) {
    buffered += text;
    let end: number;
    while ((end = buffered.indexOf("\n")) >= 0) {
      const answer = JSON.parse(buffered.slice(0, end)) as {
        id: number;
        ok: boolean;
        status?: number;
        body?: string;
        error?: string;
      };
      buffered = buffered.slice(end + 1);
      verdicts[answer.id] = answer.ok
        ? {
          ok: true,
          status: answer.status!,
          body: Uint8Array.from(atob(answer.body ?? ""), (ch) => ch.charCodeAt(0)),
        }
        : { ok: false, error: answer.error ?? "" };
      answered++;
    }
  }
  await written;
  const status = await child.status;
  if (!status.success || answered !== cases.length) {
    throw new Error(`http_oracle exited with ${status.code} after ${answered} of ${cases.length} answers`);
  }
  return verdicts;
}

/** A server that sends case N's bytes, in its pieces, to a request for /case/N, then closes. */
function serveCases(cases: HttpCase[]): { port: number } & AsyncDisposable {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const handlers = new Set<Promise<void>>();
  const loop = (async () => {
    for await (const conn of listener) {
      const handler = serveOne(conn, cases);
      handlers.add(handler);
      handler.finally(() => handlers.delete(handler));
    }
  })();
  return {
    port: listener.addr.port,
    async [Symbol.asyncDispose]() {
      listener.close();
      await loop.catch(() => {});
      await Promise.all(handlers);
    },
  };
}

async function serveOne(conn: Deno.TcpConn, cases: HttpCase[]): Promise<void> {
  try {
    conn.setNoDelay(true);
    let head = "";
    const buf = new Uint8Array(4096);
    while (!head.includes("\r\n\r\n")) {
      const n = await conn.read(buf);
      if (n === null) return;
      head += new TextDecoder().decode(buf.subarray(0, n));
    }
    const c = cases[Number(/^(?:GET|HEAD) \/case\/(\d+) /.exec(head)?.[1] ?? -1)];
    if (c === undefined) return;
    let from = 0;
    for (const cut of [...c.cuts, c.bytes.length]) {
      if (from > 0) await new Promise((resolve) => setTimeout(resolve, 1));
      let at = from;
      while (at < cut) at += await conn.write(c.bytes.subarray(at, cut));
      from = cut;
    }
  } catch {
    // The client gave up first (it refused the response): nothing more to send.
  } finally {
    try {
      conn.close();
    } catch {
      // Already closed.
    }
  }
}
