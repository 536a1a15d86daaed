// Run as a subprocess by tls_memory_test.ts (with --v8-flags=--expose-gc): opens connections with a
// configured CA to 127.0.0.1:<port> through TlsConnector, one after another (each sends a request,
// reads the answer to the end, closes), and prints the process' anonymous resident memory (RssAnon:
// heap and allocator, not the executable's code paged in) after the warm-up and after the rest,
// each after two forced garbage collections, as one JSON line.
// Arguments: <port> <CA PEM file> <warm-up connections> <measured connections>.
import { TlsConnector } from "../../lib/http/tls.ts";

const [port, caFile, warmup, count] = [
  Number(Deno.args[0]),
  Deno.args[1]!,
  Number(Deno.args[2]),
  Number(Deno.args[3]),
];
const connector = new TlsConnector({ caCerts: [Deno.readTextFileSync(caFile)] });
const request = new TextEncoder().encode("GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
const buf = new Uint8Array(4096);

async function once(): Promise<void> {
  const socket = await connector.connect("127.0.0.1", port);
  try {
    await socket.write(request);
    while ((await socket.read(buf)) !== null) {
      // Read to the end: the server closes after its answer.
    }
  } finally {
    socket.close();
  }
}

function anonBytes(): number {
  const gc = (globalThis as { gc?: () => void }).gc!;
  gc();
  gc();
  const status = Deno.readTextFileSync("/proc/self/status");
  return Number(/^RssAnon:\s+(\d+) kB$/m.exec(status)![1]) * 1024;
}

for (let i = 0; i < warmup; i++) await once();
const before = anonBytes();
for (let i = 0; i < count; i++) await once();
const after = anonBytes();
Deno.stdout.writeSync(new TextEncoder().encode(`${JSON.stringify({ before, after })}\n`));
