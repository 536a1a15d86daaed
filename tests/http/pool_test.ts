import assert from "node:assert/strict";
import { Connection } from "../../lib/http/connection.ts";
import { ConnectionPool } from "../../lib/http/pool.ts";
import { FakeClock } from "../_util/fake_clock.ts";
import { ScriptedSocket } from "./_helpers.ts";

function connection(origin = "http://a:80"): { conn: Connection; socket: ScriptedSocket } {
  const socket = new ScriptedSocket([]);
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
