import assert from "node:assert/strict";
import { CertificateError, certificateFiles, generatedCertificate } from "../../lib/observe/mod.ts";
import { selfSignedCertificate } from "../../lib/x509/self_signed.ts";
import { FakeClock } from "../_util/fake_clock.ts";
import { type Line, memoryLogger } from "../controller/memory_logger.ts";

function memoryFiles(files: Record<string, string>) {
  return (path: string) =>
    path in files ? Promise.resolve(files[path]!) : Promise.reject(new Deno.errors.NotFound(`no ${path}`));
}

Deno.test("certificate files: the first read must succeed, and failures name the file without quoting it", async () => {
  const one = await selfSignedCertificate({ hosts: ["localhost"] });
  const two = await selfSignedCertificate({ hosts: ["localhost"] });
  const signal = AbortSignal.abort();
  const open = (files: Record<string, string>) =>
    certificateFiles({
      certFile: "/c/tls.crt",
      keyFile: "/c/tls.key",
      signal,
      readTextFile: memoryFiles(files),
    });
  await assert.rejects(open({ "/c/tls.crt": one.cert }), (e: unknown) => {
    assert.ok(e instanceof CertificateError);
    assert.equal(e.message, 'Cannot read metrics certificate file "/c/tls.key" (NotFound)');
    return true;
  });
  await assert.rejects(
    open({ "/c/tls.crt": "not pem", "/c/tls.key": one.key }),
    /not a PEM X\.509 certificate/,
  );
  await assert.rejects(open({ "/c/tls.crt": one.cert, "/c/tls.key": "junk" }), /not a PEM private key/);
  await assert.rejects(open({ "/c/tls.crt": one.cert, "/c/tls.key": two.key }), (e: unknown) => {
    assert.ok(e instanceof CertificateError);
    assert.match(
      e.message,
      /^\/c\/tls\.crt \+ \/c\/tls\.key: the private key does not belong to the certificate$/,
    );
    assert.equal(e.message.includes("PRIVATE KEY"), false);
    return true;
  });
  const ok = await open({ "/c/tls.crt": one.cert, "/c/tls.key": one.key });
  assert.equal(ok.current().cert, one.cert);
});

Deno.test("certificate files are re-read: a valid new pair is announced, a bad or half-written one is skipped", async () => {
  const clock = new FakeClock();
  const lines: Line[] = [];
  const logger = memoryLogger(lines);
  const one = await selfSignedCertificate({ hosts: ["localhost"] });
  const two = await selfSignedCertificate({ hosts: ["localhost"] });
  const files: Record<string, string> = { "/c/tls.crt": one.cert, "/c/tls.key": one.key };
  const stop = new AbortController();
  const source = await certificateFiles({
    certFile: "/c/tls.crt",
    keyFile: "/c/tls.key",
    signal: stop.signal,
    intervalMs: 1_000,
    clock,
    logger,
    readTextFile: memoryFiles(files),
  });
  const seen: string[] = [];
  source.subscribe((m) => seen.push(m.cert));
  // A poll checks the pair with WebCrypto (real asynchronous work) and re-arms its timer when done.
  const poll = async () => {
    await clock.advance(1_000);
    await clock.waitForTimers(1);
  };
  await poll();
  assert.deepEqual(seen, [], "unchanged files announce nothing");
  files["/c/tls.crt"] = two.cert; // the key is not rotated yet: a mismatched pair
  await poll();
  assert.deepEqual(seen, []);
  assert.equal(source.current().cert, one.cert, "the last good certificate stays");
  assert.ok(lines.some((e) => e.msg.startsWith("Cannot reload the metrics certificate")));
  files["/c/tls.key"] = two.key;
  await poll();
  assert.deepEqual(seen, [two.cert]);
  assert.equal(source.current().key, two.key);
  stop.abort();
  assert.equal(clock.pending, 0, "no timer left after abort");
});

Deno.test("a generated certificate renews itself at two thirds of its validity, also when that is months away", async () => {
  const clock = new FakeClock(Date.UTC(2026, 11, 1));
  const stop = new AbortController();
  const year = 365 * 86_400_000;
  const source = await generatedCertificate({
    hosts: ["localhost"],
    validityMs: year,
    signal: stop.signal,
    clock,
  });
  const first = source.current();
  const seen: string[] = [];
  source.subscribe((m) => seen.push(m.cert));
  // A renewal makes a key with WebCrypto (real asynchronous work) and then re-arms the timer.
  const day = async () => {
    await clock.advance(86_400_000);
    await clock.waitForTimers(1);
  };
  for (let d = 0; d < 243; d++) await day();
  assert.deepEqual(seen, [], "nothing renewed in the first 243 days");
  await day();
  assert.equal(seen.length, 1, "renewed on day 244 (two thirds of 365)");
  assert.notEqual(source.current().cert, first.cert);
  stop.abort();
  assert.equal(clock.pending, 0);
});
