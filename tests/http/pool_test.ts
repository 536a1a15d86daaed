import assert from "node:assert/strict";
import { Connection } from "../../lib/http/connection.ts";
import { ConnectionPool } from "../../lib/http/pool.ts";
import { FakeClock } from "../_util/fake_clock.ts";
import type { ByteSocket } from "../../lib/http/connection.ts";

/** A socket whose reads wait until the test delivers bytes or EOF, or the socket is closed. */
class QuietSocket implements ByteSocket {
  closed = false;
  refs: string[] = [];
  #reader: ((n: number | null) => void) | undefined;
  #buf: Uint8Array | undefined;

  read(p: Uint8Array): Promise<number | null> {
    if (this.closed) return Promise.resolve(null);
    this.#buf = p;
    return new Promise((resolve) => this.#reader = resolve);
  }

  /** Delivers `bytes` (or EOF, for null) to the pending read. */
  deliver(bytes: Uint8Array | null): void {
    if (bytes !== null) this.#buf!.set(bytes);
    const reader = this.#reader;
    this.#reader = undefined;
    reader?.(bytes === null ? null : bytes.length);
  }

  write(p: Uint8Array): Promise<number> {
    return Promise.resolve(p.length);
  }

  ref(): void {
    this.refs.push("ref");
  }

  unref(): void {
    this.refs.push("unref");
  }

  close(): void {
    this.closed = true;
    this.deliver(null);
  }
}

function connection(origin = "http://a:80"): { conn: Connection; socket: QuietSocket } {
  const socket = new QuietSocket();
  return { conn: new Connection(socket, origin, false), socket };
}

Deno.test("the pool hands back the most recently returned connection for the same origin only", () => {
  const pool = new ConnectionPool({ maxIdlePerOrigin: 4, idleTimeoutMs: 1000, clock: new FakeClock() });
  const first = connection().conn, second = connection().conn, other = connection("https://b:443").conn;
  pool.put(first);
  pool.put(second);
  pool.put(other);
  assert.equal(pool.size, 3);
  assert.equal(pool.take("http://a:80"), second);
  assert.equal(pool.take("http://a:80"), first);
  assert.equal(pool.take("http://a:80"), undefined);
  assert.equal(pool.take("https://b:443"), other);
  pool.close();
});

Deno.test("idle connections beyond maxIdlePerOrigin are closed, oldest first", () => {
  const pool = new ConnectionPool({ maxIdlePerOrigin: 2, idleTimeoutMs: 1000, clock: new FakeClock() });
  const made = [connection(), connection(), connection()];
  for (const { conn } of made) pool.put(conn);
  assert.equal(pool.size, 2);
  assert.deepEqual(made.map((m) => m.socket.closed), [true, false, false]);
  pool.close();
  assert.deepEqual(made.map((m) => m.socket.closed), [true, true, true]);
});

Deno.test("connections idle longer than idleTimeoutMs are closed instead of reused", async () => {
  const clock = new FakeClock();
  const pool = new ConnectionPool({ maxIdlePerOrigin: 4, idleTimeoutMs: 1000, clock });
  const old = connection(), fresh = connection();
  pool.put(old.conn);
  await clock.advance(600);
  pool.put(fresh.conn);
  await clock.advance(500);
  assert.equal(pool.take("http://a:80"), fresh.conn);
  assert.equal(old.socket.closed, true);
  assert.equal(pool.take("http://a:80"), undefined);
  fresh.conn.close();
});

Deno.test("closed connections are skipped and a closed pool closes what is returned", () => {
  const pool = new ConnectionPool({ maxIdlePerOrigin: 4, idleTimeoutMs: 1000, clock: new FakeClock() });
  const a = connection(), b = connection();
  pool.put(a.conn);
  pool.put(b.conn);
  b.conn.close();
  assert.equal(pool.take("http://a:80"), a.conn);
  pool.close();
  pool.put(a.conn);
  assert.equal(a.socket.closed, true);
  assert.equal(pool.size, 0);
});

Deno.test("an idle connection that receives a byte is closed, dropped and reported; one taken first is not", async () => {
  const reported: string[] = [];
  const pool = new ConnectionPool({
    maxIdlePerOrigin: 4,
    idleTimeoutMs: 1000,
    clock: new FakeClock(),
    onUnsolicited: (origin, bytes) => reported.push(`${origin} ${bytes}`),
  });
  const hostile = connection(), closing = connection(), healthy = connection();
  pool.put(healthy.conn);
  pool.put(closing.conn);
  pool.put(hostile.conn);
  assert.deepEqual(hostile.socket.refs, ["unref"], "an idle read does not keep the process alive");
  hostile.socket.deliver(new TextEncoder().encode("HTTP/1.1 200 OK\r\n"));
  closing.socket.deliver(null);
  await Promise.resolve();
  assert.equal(hostile.socket.closed, true);
  assert.equal(closing.socket.closed, true);
  assert.equal(pool.size, 1);
  assert.deepEqual(reported, ["http://a:80 17"], "a server closing an idle connection is not reported");
  const taken = pool.take("http://a:80")!;
  assert.equal(taken, healthy.conn);
  taken.begin("http://a:80/x", 0);
  assert.deepEqual(healthy.socket.refs, ["unref", "ref"]);
  // Bytes after `begin` are the response: the pending read is the request's first read.
  healthy.socket.deliver(new TextEncoder().encode("HTTP/1.1 204 No Content\r\n\r\n"));
  const first = await taken.read();
  assert.equal(new TextDecoder().decode(first!), "HTTP/1.1 204 No Content\r\n\r\n");
  assert.equal(healthy.socket.closed, false);
  assert.equal(taken.received, 27);
  taken.close();
  pool.close();
});
