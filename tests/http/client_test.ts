import assert from "node:assert/strict";
import { ConnectError, HttpClient, HttpError, ProtocolError, TimeoutError } from "../../lib/http/mod.ts";
import { dec, enc, gzip } from "./_helpers.ts";
import { keepAliveHandler, ScriptedServer } from "./_server.ts";

const OK = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";

function tick(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

Deno.test("two sequential requests reuse one keep-alive connection", async () => {
  const server = new ScriptedServer(keepAliveHandler(OK));
  const client = new HttpClient();
  try {
    for (let i = 0; i < 3; i++) {
      const res = await client.request({ method: "GET", url: new URL(`${server.url}/x`) });
      assert.equal(res.status, 200);
      assert.equal(await res.text(), "ok");
    }
    assert.equal(server.accepted.length, 1);
    assert.equal(client.idleConnections, 1);
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("the request head carries method, path, host, gzip acceptance and the body", async () => {
  let seen: { head: string; body: string } | null = null;
  const server = new ScriptedServer(async (conn) => {
    seen = await conn.readRequest();
    await conn.send(OK);
  });
  await using client = new HttpClient({ userAgent: "ua/1" });
  try {
    const res = await client.request({
      method: "POST",
      url: new URL(`${server.url}/a/b?c=d`),
      headers: { "Content-Type": "application/json" },
      body: '{"x":"é"}',
    });
    await res.bytes();
    const { head, body } = seen!;
    assert.match(head, /^POST \/a\/b\?c=d HTTP\/1\.1\r\n/);
    assert.match(head, new RegExp(`\r\nHost: 127\\.0\\.0\\.1:${server.port}\r\n`));
    assert.match(head, /\r\nUser-Agent: ua\/1\r\n/);
    assert.match(head, /\r\nAccept-Encoding: gzip\r\n/);
    assert.match(head, /\r\nContent-Length: 10$/);
    assert.equal(body, '{"x":"é"}');
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("a response with Connection: close is not reused", async () => {
  const server = new ScriptedServer(async (conn) => {
    await conn.readRequest();
    await conn.send("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok");
  });
  const client = new HttpClient();
  try {
    for (let i = 0; i < 2; i++) {
      assert.equal(await (await client.request({ method: "GET", url: new URL(server.url) })).text(), "ok");
    }
    assert.equal(server.accepted.length, 2);
    assert.equal(client.idleConnections, 0);
  } finally {
    client.close();
    await server.close();
  }
});

/**
 * Serves one keep-alive response on the first connection, then reads the next request and closes the
 * connection without answering it (a server timing out the idle connection just as the request comes);
 * later connections serve normally.
 */
function closeAfterFirst(): ScriptedServer {
  return new ScriptedServer(async (conn, index) => {
    if (index === 0) {
      await conn.readRequest();
      await conn.send(OK);
      await conn.readRequest();
      return; // the server drops the connection without answering
    }
    await keepAliveHandler(OK)(conn);
  });
}

Deno.test("a GET on a pooled connection the server closed is retried once on a fresh connection", async () => {
  const server = closeAfterFirst();
  const client = new HttpClient();
  try {
    assert.equal(await (await client.request({ method: "GET", url: new URL(server.url) })).text(), "ok");
    assert.equal(await (await client.request({ method: "GET", url: new URL(server.url) })).text(), "ok");
    assert.equal(server.accepted.length, 2);
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("a POST on a pooled connection the server closed after receiving it is not retried", async () => {
  const server = closeAfterFirst();
  const client = new HttpClient();
  try {
    assert.equal(await (await client.request({ method: "GET", url: new URL(server.url) })).text(), "ok");
    await assert.rejects(
      client.request({ method: "POST", url: new URL(server.url), body: "x" }),
      (err: unknown) => {
        assert.ok(err instanceof HttpError, String(err));
        assert.match(err.message, /before responding to POST http:\/\/127\.0\.0\.1:\d+\//);
        return true;
      },
    );
    assert.equal(server.accepted.length, 1);
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("aborting while reading the body rejects with the reason and closes the socket", async () => {
  let clientClosed = false;
  const server = new ScriptedServer(async (conn) => {
    await conn.readRequest();
    await conn.send("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789");
    clientClosed = await conn.waitForClose();
  });
  const client = new HttpClient();
  try {
    const controller = new AbortController();
    const res = await client.request({ method: "GET", url: new URL(server.url), signal: controller.signal });
    const reader = res.body.getReader();
    assert.equal(dec.decode((await reader.read()).value), "0123456789");
    const reason = new Error("stop now");
    const next = reader.read();
    controller.abort(reason);
    await assert.rejects(next, (err) => err === reason);
    await server.close();
    assert.equal(clientClosed, true);
    assert.equal(client.idleConnections, 0);
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("aborting before the head arrives rejects with the reason and closes the socket", async () => {
  const server = new ScriptedServer(async (conn) => {
    await conn.readRequest();
    await conn.waitForClose();
  });
  const client = new HttpClient();
  try {
    const controller = new AbortController();
    const pending = client.request({ method: "GET", url: new URL(server.url), signal: controller.signal });
    await tick(20);
    controller.abort(new DOMException("gone", "AbortError"));
    await assert.rejects(pending, (err: unknown) => err instanceof DOMException && err.message === "gone");
    await assert.rejects(
      client.request({ method: "GET", url: new URL(server.url), signal: controller.signal }),
      (err: unknown) => err instanceof DOMException,
    );
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("aborting an idle stream request closes its socket and errors the body", async () => {
  let clientClosed = false;
  const server = new ScriptedServer(async (conn) => {
    await conn.readRequest();
    await conn.send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n");
    clientClosed = await conn.waitForClose();
  });
  const client = new HttpClient();
  try {
    const controller = new AbortController();
    const res = await client.request({
      method: "GET",
      url: new URL(server.url),
      signal: controller.signal,
      stream: true,
    });
    const reader = res.body.getReader();
    assert.equal(dec.decode((await reader.read()).value), "{}");
    controller.abort(new Error("shutdown"));
    await server.close();
    assert.equal(clientClosed, true);
    await assert.rejects(reader.read(), /shutdown/);
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("cancelling a body part-way closes the socket instead of pooling it", async () => {
  const server = new ScriptedServer(async (conn) => {
    await conn.readRequest();
    await conn.send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n");
    await conn.waitForClose();
  });
  const client = new HttpClient();
  try {
    const res = await client.request({ method: "GET", url: new URL(server.url) });
    for await (const chunk of res.body) {
      assert.equal(dec.decode(chunk), "abc");
      break;
    }
    await server.close();
    assert.equal(client.idleConnections, 0);
  } finally {
    client.close();
    await server.close();
  }
});

/**
 * Read timeouts in these tests: long enough that a loopback server in the same process answers well within
 * them on a loaded 2-core machine (a response that should arrive must not time out), short enough to keep
 * the tests quick. Silences that must trip the timeout are endless; gaps that must not trip it (the
 * stream test) are the timeout plus a margin, and timers never fire early, so loading the machine only
 * makes those gaps longer.
 */
const READ_TIMEOUT_MS = 250;
const GAP_MS = READ_TIMEOUT_MS + 100;

Deno.test("a silent server trips the read timeout for the head and between body chunks", async () => {
  const server = new ScriptedServer(async (conn, index) => {
    await conn.readRequest();
    if (index === 1) await conn.send("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc");
    await conn.waitForClose();
  });
  const client = new HttpClient({ readTimeoutMs: READ_TIMEOUT_MS });
  try {
    await assert.rejects(
      client.request({ method: "GET", url: new URL(`${server.url}/slow`) }),
      (err: unknown) => {
        assert.ok(err instanceof TimeoutError, String(err));
        assert.match(
          err.message,
          /Timed out waiting for the response head from http:\/\/127\.0\.0\.1:\d+\/slow: not complete after 250 ms/,
        );
        return true;
      },
    );
    const res = await client.request({ method: "GET", url: new URL(server.url) });
    await assert.rejects(res.text(), TimeoutError);
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("a stream request gets its own connection, no read timeout between chunks, and is never pooled", async () => {
  let streamHead = "";
  const server = new ScriptedServer(async (conn, index) => {
    if (index === 0) return await keepAliveHandler(OK)(conn);
    streamHead = (await conn.readRequest())!.head;
    await conn.send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
    for (const event of ['{"a":1}\n', '{"b":2}\n']) {
      await tick(GAP_MS);
      await conn.send(`${event.length.toString(16)}\r\n${event}\r\n`);
    }
    await conn.send("0\r\n\r\n");
    await conn.waitForClose();
  });
  const client = new HttpClient({ readTimeoutMs: READ_TIMEOUT_MS });
  try {
    await (await client.request({ method: "GET", url: new URL(server.url) })).text();
    assert.equal(client.idleConnections, 1);
    const res = await client.request({ method: "GET", url: new URL(`${server.url}/watch`), stream: true });
    assert.equal(await res.text(), '{"a":1}\n{"b":2}\n');
    assert.equal(server.accepted.length, 2);
    assert.match(streamHead, /\r\nConnection: close/);
    assert.equal(client.idleConnections, 1);
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("a gzip-encoded chunked response is decoded end to end", async () => {
  const text = "x".repeat(5000) + "end";
  const zipped = await gzip(enc.encode(text));
  const server = new ScriptedServer(async (conn) => {
    const req = await conn.readRequest();
    assert.match(req!.head, /Accept-Encoding: gzip/);
    await conn.send("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n");
    for (let at = 0; at < zipped.length; at += 7) {
      const part = zipped.subarray(at, at + 7);
      await conn.send(`${part.length.toString(16)}\r\n`);
      await conn.send(part);
      await conn.send("\r\n");
    }
    await conn.send("0\r\n\r\n");
    await conn.waitForClose();
  });
  const client = new HttpClient();
  try {
    const res = await client.request({ method: "GET", url: new URL(server.url) });
    assert.equal(await res.text(), text);
    assert.equal(client.idleConnections, 1);
  } finally {
    client.close();
    await server.close();
  }
  assert.deepEqual(server.errors, []);
});

Deno.test("a corrupt gzip body rejects and closes the socket instead of leaving it open", async () => {
  let clientClosed = false;
  const server = new ScriptedServer(async (conn) => {
    await conn.readRequest();
    await conn.send("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 100000\r\n\r\n");
    await conn.send(new Uint8Array([31, 139, 8, 0, 1, 2, 3, 4, 5, 6, 7, 8]));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const gaveUp = new Promise<boolean>((resolve) => timer = setTimeout(() => resolve(false), 2000));
    clientClosed = await Promise.race([conn.waitForClose(), gaveUp]);
    clearTimeout(timer);
  });
  const client = new HttpClient();
  try {
    const res = await client.request({ method: "GET", url: new URL(server.url) });
    await assert.rejects(res.text(), /^ProtocolError: Invalid gzip response body/);
  } finally {
    client.close();
    await server.close();
  }
  assert.equal(clientClosed, true, "the client closed its socket");
});

Deno.test("a malformed response head rejects with ProtocolError naming the URL", async () => {
  const server = new ScriptedServer(async (conn) => {
    await conn.readRequest();
    await conn.send("HTTP/1.1 OK\r\n\r\n");
  });
  const client = new HttpClient();
  try {
    await assert.rejects(
      client.request({ method: "GET", url: new URL(`${server.url}/p`) }),
      (err: unknown) => {
        assert.ok(err instanceof ProtocolError);
        assert.match(
          err.message,
          /^Invalid response from http:\/\/127\.0\.0\.1:\d+\/p: malformed status line/,
        );
        return true;
      },
    );
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("an interim 100 response is skipped", async () => {
  const server = new ScriptedServer(async (conn) => {
    await conn.readRequest();
    await conn.send("HTTP/1.1 100 Continue\r\n\r\n" + OK);
    await conn.waitForClose();
  });
  const client = new HttpClient();
  try {
    const res = await client.request({ method: "GET", url: new URL(server.url) });
    assert.equal(res.status, 200);
    assert.equal(await res.text(), "ok");
  } finally {
    client.close();
    await server.close();
  }
});

Deno.test("a refused connection is a ConnectError saying where", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listener.addr.port;
  listener.close();
  const client = new HttpClient();
  await assert.rejects(
    client.request({ method: "GET", url: new URL(`http://127.0.0.1:${port}/x`) }),
    (err: unknown) => {
      assert.ok(err instanceof ConnectError);
      assert.equal(err.message, `Cannot connect to http://127.0.0.1:${port}: connection refused`);
      assert.equal(err.url, `http://127.0.0.1:${port}`);
      return true;
    },
  );
  client.close();
});

Deno.test("bad arguments are rejected and a closed client refuses requests", async () => {
  assert.throws(() => new HttpClient({ readTimeoutMs: 0 }), RangeError);
  assert.throws(() => new HttpClient({ tls: { cert: "x" } }), TypeError);
  const client = new HttpClient();
  await assert.rejects(client.request({ method: "GET", url: new URL("ftp://h/") }), TypeError);
  await assert.rejects(
    client.request({ method: "GET", url: new URL("http://127.0.0.1:1/"), headers: { "X": "a\r\nb" } }),
    TypeError,
  );
  client.close();
  await assert.rejects(client.request({ method: "GET", url: new URL("http://127.0.0.1:1/") }), TypeError);
});
