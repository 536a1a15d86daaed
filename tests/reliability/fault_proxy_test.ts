// The fault proxy itself, against a local TCP server: each fault does what the scenarios rely on.
import assert from "node:assert/strict";
import { FaultProxy } from "../_util/fault_proxy.ts";

/** A loopback server that records what it reads and lets the test write to the accepted connection. */
async function withServer(
  fn: (proxy: FaultProxy, client: Deno.TcpConn, server: Deno.TcpConn) => Promise<void>,
): Promise<void> {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  await using proxy = await FaultProxy.start({ target: { hostname: "127.0.0.1", port } });
  const client = await Deno.connect({ hostname: "127.0.0.1", port: proxy.port });
  const server = await listener.accept();
  listener.close();
  // The proxy registers the link once its own upstream connect completes.
  while (proxy.links().length === 0) await new Promise((r) => setTimeout(r, 5));
  try {
    await fn(proxy, client, server);
  } finally {
    for (const conn of [client, server]) {
      try {
        conn.close();
      } catch { /* closed by the test */ }
    }
    await settlePending();
  }
}

const enc = new TextEncoder();
const dec = new TextDecoder();

/** Pending reads by connection: a read that outlived its wait is reused by the next wait. */
const pendingReads = new Map<Deno.TcpConn, Promise<string | null>>();

/** Reads what arrives within `ms` (null at EOF, "" when nothing came). */
async function readWithin(conn: Deno.TcpConn, ms: number): Promise<string | null> {
  let read = pendingReads.get(conn);
  if (!read) {
    const buf = new Uint8Array(4096);
    read = conn.read(buf).then((n) => n === null ? null : dec.decode(buf.subarray(0, n)));
    read.catch(() => {});
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((r) => timer = setTimeout(() => r("timeout"), ms));
  try {
    const result = await Promise.race([read, timeout]);
    if (result === "timeout") {
      pendingReads.set(conn, read);
      return "";
    }
    pendingReads.delete(conn);
    return result;
  } catch (error) {
    pendingReads.delete(conn);
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** Lets reads left pending by a test settle (the connections are closed by then). */
async function settlePending(): Promise<void> {
  const reads = [...pendingReads.values()];
  pendingReads.clear();
  await Promise.allSettled(reads);
}

Deno.test("fault proxy: forwards bytes both ways unchanged and counts them", async () => {
  await withServer(async (proxy, client, server) => {
    await client.write(enc.encode("ping"));
    assert.equal(await readWithin(server, 2000), "ping");
    await server.write(enc.encode("pong!"));
    assert.equal(await readWithin(client, 2000), "pong!");
    assert.equal(proxy.counters.connections, 1);
    assert.equal(proxy.counters.bytesToServer, 4);
    assert.equal(proxy.counters.bytesToClient, 5);
    assert.equal(proxy.faultsInjected, 0);
  });
});

Deno.test("fault proxy: reset makes both peers see ECONNRESET", async () => {
  await withServer(async (proxy, client, server) => {
    await client.write(enc.encode("x"));
    assert.equal(await readWithin(server, 2000), "x");
    proxy.reset(proxy.links()[0]!);
    await assert.rejects(client.read(new Uint8Array(10)), Deno.errors.ConnectionReset);
    await assert.rejects(server.read(new Uint8Array(10)), Deno.errors.ConnectionReset);
    assert.equal(proxy.counters.faults.reset, 1);
  });
});

Deno.test("fault proxy: a stall forwards nothing and closes nothing, then delivers everything", async () => {
  await withServer(async (proxy, client, server) => {
    proxy.stall(proxy.links()[0]!, 600);
    await server.write(enc.encode("held"));
    assert.equal(await readWithin(client, 300), "", "nothing while stalled");
    assert.equal(await readWithin(client, 2000), "held");
    assert.equal(proxy.links().length, 1);
    await settlePending();
  });
});

Deno.test("fault proxy: a blackhole drops bytes without closing until heal() resets it", async () => {
  await withServer(async (proxy, client, server) => {
    proxy.blackhole(proxy.links()[0]!);
    await server.write(enc.encode("lost"));
    await client.write(enc.encode("lost too"));
    assert.equal(await readWithin(client, 400), "");
    assert.equal(await readWithin(server, 100), "");
    proxy.heal();
    await assert.rejects(readWithin(client, 2000), Deno.errors.ConnectionReset);
    await settlePending();
  });
});

Deno.test("fault proxy: a blackhole hides a peer's close: the other peer still sees nothing", async () => {
  await withServer(async (proxy, client, server) => {
    proxy.blackhole(proxy.links()[0]!);
    server.close(); // the server ends its side (a watch at its timeoutSeconds, an idle close)
    assert.equal(await readWithin(client, 500), "", "no EOF, no reset: the FIN was lost on the dead path");
    assert.equal(proxy.links().length, 1, "the client's side stays open");
    proxy.heal();
    await assert.rejects(readWithin(client, 2000), Deno.errors.ConnectionReset);
    await settlePending();
  });
});

Deno.test("fault proxy: latency delays every chunk and keeps the order", async () => {
  await withServer(async (proxy, client, server) => {
    proxy.addLatency(proxy.links()[0]!, 300);
    const sent = Date.now();
    await server.write(enc.encode("a"));
    await server.write(enc.encode("b"));
    let got = "";
    while (got.length < 2) got += await readWithin(client, 3000) ?? "";
    assert.equal(got, "ab");
    assert.ok(Date.now() - sent >= 290, `arrived after ${Date.now() - sent} ms`);
    await settlePending();
  });
});

Deno.test("fault proxy: half-close to the client sends EOF one way and keeps the other open", async () => {
  await withServer(async (proxy, client, server) => {
    proxy.halfClose(proxy.links()[0]!, "toClient");
    assert.equal(await readWithin(client, 2000), null, "the client reads EOF");
    await client.write(enc.encode("still flows"));
    assert.equal(await readWithin(server, 2000), "still flows");
    assert.equal(proxy.counters.faults.halfCloseToClient, 1);
  });
});

Deno.test("fault proxy: half-close to the server sends EOF to the server only", async () => {
  await withServer(async (proxy, client, server) => {
    proxy.halfClose(proxy.links()[0]!, "toServer");
    assert.equal(await readWithin(server, 2000), null, "the server reads EOF");
    await server.write(enc.encode("answer"));
    assert.equal(await readWithin(client, 2000), "answer");
  });
});

Deno.test("fault proxy: an unreachable target is refused with a reset and counted", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  await using proxy = await FaultProxy.start({ target: { hostname: "127.0.0.1", port } });
  const client = await Deno.connect({ hostname: "127.0.0.1", port: proxy.port });
  try {
    await assert.rejects(client.read(new Uint8Array(10)), Deno.errors.ConnectionReset);
  } finally {
    client.close();
  }
  assert.equal(proxy.counters.refused, 1);
});
