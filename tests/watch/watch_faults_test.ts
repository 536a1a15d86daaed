/**
 * Faults only, over a real local TCP socket: a fake API server writes raw HTTP bytes, and a tiny
 * ListWatcher reads them with Deno.connect. Real timers, short idle timeout.
 */
import assert from "node:assert/strict";
import { ApiError } from "../../lib/client/api_error.ts";
import type { KubeObject, ObjectList, ResourceRef } from "../../lib/resources/object.ts";
import type { ListOptions, RawWatchOptions } from "../../lib/client/types.ts";
import type { ListWatcher } from "../../lib/watch/list_watcher.ts";
import { WatchDecodeError } from "../../lib/watch/watch_decode_error.ts";
import { WatchIdleTimeoutError } from "../../lib/watch/watch_idle_timeout_error.ts";
import { watcher } from "../../lib/watch/watcher.ts";
import type { WatcherEvent } from "../../lib/watch/watcher_event.ts";
import { bookmark, cm, configMaps, line, page, take } from "./_helpers.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

type Script = (conn: Deno.Conn) => Promise<void>;

/** Serves one script per accepted connection, in order; records request targets. */
class FakeApiServer {
  readonly targets: string[] = [];
  readonly #listener: Deno.Listener;
  readonly #scripts: Script[];
  readonly #tasks: Promise<void>[] = [];
  readonly #accepting: Promise<void>;

  constructor(scripts: Script[]) {
    this.#listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    this.#scripts = scripts;
    this.#accepting = this.#accept();
  }

  get port(): number {
    return (this.#listener.addr as Deno.NetAddr).port;
  }

  async #accept(): Promise<void> {
    try {
      for await (const conn of this.#listener) this.#tasks.push(this.#serve(conn));
    } catch {
      // listener closed
    }
  }

  async #serve(conn: Deno.Conn): Promise<void> {
    try {
      const head = await readHead(conn);
      this.targets.push(head.text.split(" ")[1] ?? "");
      const script = this.#scripts.shift();
      if (script) await script(conn);
      // Hold the connection until the client closes it (a stalled server looks exactly like this).
      const buf = new Uint8Array(1024);
      while ((await conn.read(buf).catch(() => null)) !== null) { /* drain */ }
    } catch {
      // the client went away mid-script
    } finally {
      try {
        conn.close();
      } catch { /* already closed by the script */ }
    }
  }

  async close(): Promise<void> {
    this.#listener.close();
    await this.#accepting;
    await Promise.all(this.#tasks);
  }
}

async function readHead(conn: Deno.Conn): Promise<{ text: string; rest: Uint8Array }> {
  let acc = new Uint8Array(0);
  const buf = new Uint8Array(4096);
  for (;;) {
    const n = await conn.read(buf);
    if (n === null) throw new Error("connection closed before the end of the head");
    const next = new Uint8Array(acc.length + n);
    next.set(acc);
    next.set(buf.subarray(0, n), acc.length);
    acc = next;
    const text = dec.decode(acc);
    const end = text.indexOf("\r\n\r\n");
    if (end !== -1) {
      const headBytes = enc.encode(text.slice(0, end + 4)).length;
      return { text: text.slice(0, end), rest: acc.slice(headBytes) };
    }
  }
}

const OK_HEAD = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n";

/** Lists from memory; watches over TCP, returning the socket's bytes after the response head. */
class TcpListWatcher implements ListWatcher {
  constructor(readonly port: number, readonly pages: ObjectList[]) {}

  list<T extends KubeObject>(_ref: ResourceRef, _opts: ListOptions): Promise<ObjectList<T>> {
    return Promise.resolve(this.pages.shift() as ObjectList<T>);
  }

  async watch(_ref: ResourceRef, opts: RawWatchOptions): Promise<ReadableStream<Uint8Array>> {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: this.port });
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      conn.close();
    };
    try {
      const query = new URLSearchParams({ watch: "1", resourceVersion: opts.resourceVersion ?? "" });
      await conn.write(enc.encode(`GET /api/v1/configmaps?${query} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`));
      const { text, rest } = await readHead(conn);
      const code = Number(text.split(" ")[1]);
      if (code !== 200) throw new ApiError({ code, reason: "", message: `HTTP ${code}` });
      return new ReadableStream<Uint8Array>({
        start(c) {
          if (rest.length) c.enqueue(rest);
        },
        async pull(c) {
          const buf = new Uint8Array(16 * 1024);
          try {
            const n = await conn.read(buf);
            if (n === null) {
              close();
              c.close();
            } else {
              c.enqueue(buf.subarray(0, n));
            }
          } catch (error) {
            close();
            c.error(error);
          }
        },
        cancel: close,
      }, { highWaterMark: 0 });
    } catch (error) {
      close();
      throw error;
    }
  }
}

const brief = (e: WatcherEvent) =>
  e.type === "apply"
    ? `apply:${e.object.metadata.name}@${e.object.metadata.resourceVersion}`
    : e.type === "error"
    ? `error:${e.error.name}`
    : e.type;

async function writeSlowly(conn: Deno.Conn, text: string, piece: number): Promise<void> {
  const bytes = enc.encode(text);
  for (let at = 0; at < bytes.length; at += piece) {
    await conn.write(bytes.subarray(at, at + piece));
    await new Promise((r) => setTimeout(r, 1));
  }
}

Deno.test("a watch that stalls without closing is abandoned after the idle timeout and resumed from the last RV", async () => {
  const server = new FakeApiServer([
    async (conn) => {
      await conn.write(enc.encode(OK_HEAD + line("ADDED", cm("a", "11")) + bookmark("15")));
      // …and then silence, with the socket still open.
    },
    async (conn) => {
      await conn.write(enc.encode(OK_HEAD + line("ADDED", cm("b", "16"))));
    },
  ]);
  const lw = new TcpListWatcher(server.port, [page([], "10")]);
  const it = watcher(lw, configMaps, { initialList: "paged", idleTimeoutMs: 200 });
  try {
    const started = Date.now();
    const got = await take(it, 5);
    assert.deepEqual(got.map(brief), [
      "init",
      "initDone",
      "apply:a@11",
      "error:WatchIdleTimeoutError",
      "apply:b@16",
    ]);
    const idle = got[3]!;
    assert.ok(idle.type === "error" && idle.error instanceof WatchIdleTimeoutError);
    assert.ok(Date.now() - started >= 190, "waited for the idle timeout");
    assert.deepEqual(server.targets.map((t) => new URLSearchParams(t.split("?")[1]).get("resourceVersion")), [
      "10",
      "15",
    ]);
  } finally {
    await it.return();
    await server.close();
  }
});

Deno.test("a connection cut mid-line resumes with no lost or duplicated event", async () => {
  const first = line("ADDED", cm("a", "11", { data: { note: "日本語 😀" } })) + line("ADDED", cm("b", "12"));
  const cutAt = enc.encode(first).length - 25;
  const server = new FakeApiServer([
    async (conn) => {
      await conn.write(enc.encode(OK_HEAD));
      await writeSlowly(conn, dec.decode(enc.encode(first).subarray(0, cutAt)), 7);
      conn.close(); // cut: the second event is half-written
    },
    async (conn) => {
      await conn.write(enc.encode(OK_HEAD));
      await writeSlowly(
        conn,
        line("ADDED", cm("b", "12")) + line("MODIFIED", cm("a", "13", { data: { note: "é" } })),
        5,
      );
    },
  ]);
  const lw = new TcpListWatcher(server.port, [page([], "10")]);
  const it = watcher(lw, configMaps, { initialList: "paged", idleTimeoutMs: 2_000 });
  try {
    const got = await take(it, 6);
    assert.deepEqual(got.map(brief), [
      "init",
      "initDone",
      "apply:a@11",
      "error:WatchDecodeError",
      "apply:b@12",
      "apply:a@13",
    ]);
    const cut = got[3]!;
    assert.ok(
      cut.type === "error" && cut.error instanceof WatchDecodeError && cut.error.reason === "truncated",
    );
    const a = got[2]!;
    assert.ok(a.type === "apply" && (a.object as { data?: { note?: string } }).data?.note === "日本語 😀");
    assert.deepEqual(server.targets.map((t) => new URLSearchParams(t.split("?")[1]).get("resourceVersion")), [
      "10",
      "11",
    ]);
  } finally {
    await it.return();
    await server.close();
  }
});
