import assert from "node:assert/strict";
import { writeRequestHead } from "../../lib/http/request_writer.ts";
import { dec } from "./_helpers.ts";

const base = { userAgent: "test/1" };

Deno.test("a GET head carries the path, query, host, user agent and gzip acceptance", () => {
  const head = dec.decode(
    writeRequestHead({ ...base, method: "GET", url: new URL("https://h:6443/api/v1?watch=1&x=%20") }),
  );
  assert.equal(
    head,
    "GET /api/v1?watch=1&x=%20 HTTP/1.1\r\nHost: h:6443\r\nUser-Agent: test/1\r\nAccept-Encoding: gzip\r\n\r\n",
  );
});

Deno.test("a body adds Content-Length and a bodiless POST sends zero", () => {
  const withBody = dec.decode(
    writeRequestHead({ ...base, method: "PATCH", url: new URL("http://h/x"), bodyLength: 12 }),
  );
  assert.match(withBody, /\r\nContent-Length: 12\r\n\r\n$/);
  const post = dec.decode(writeRequestHead({ ...base, method: "POST", url: new URL("http://h/x") }));
  assert.match(post, /\r\nContent-Length: 0\r\n\r\n$/);
  const get = dec.decode(writeRequestHead({ ...base, method: "GET", url: new URL("http://h/x") }));
  assert.doesNotMatch(get, /Content-Length/);
});

Deno.test("caller headers are written and can replace the defaults", () => {
  const head = dec.decode(writeRequestHead({
    ...base,
    method: "GET",
    url: new URL("http://h/"),
    headers: { "Accept-Encoding": "identity", Authorization: "Bearer t", "user-agent": "mine" },
    close: true,
  }));
  assert.equal(
    head,
    "GET / HTTP/1.1\r\nHost: h\r\nAccept-Encoding: identity\r\nAuthorization: Bearer t\r\nuser-agent: mine\r\n" +
      "Connection: close\r\n\r\n",
  );
});

Deno.test("CR, LF or NUL in a header value is rejected with TypeError", () => {
  for (const value of ["a\r\nX-Evil: 1", "a\nb", "a\rb", "a\0b"]) {
    assert.throws(
      () =>
        writeRequestHead({ ...base, method: "GET", url: new URL("http://h/"), headers: { "X-A": value } }),
      TypeError,
    );
  }
});

Deno.test("invalid header names, methods and client-managed headers are rejected with TypeError", () => {
  const url = new URL("http://h/");
  for (const name of ["Bad Name", "X\r\nY", "", "a:b"]) {
    assert.throws(
      () => writeRequestHead({ ...base, method: "GET", url, headers: { [name]: "v" } }),
      TypeError,
    );
  }
  assert.throws(() => writeRequestHead({ ...base, method: "GET /x", url }), TypeError);
  for (const name of ["Content-Length", "transfer-encoding", "Connection"]) {
    assert.throws(
      () => writeRequestHead({ ...base, method: "GET", url, headers: { [name]: "1" } }),
      TypeError,
    );
  }
});
