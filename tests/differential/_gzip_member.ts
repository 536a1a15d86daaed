/** gzip members with every optional header field (RFC 1952), for the HTTP differential test. */

/** Optional parts of a member's header. */
export interface MemberOptions {
  /** FEXTRA: the extra field's bytes. */
  readonly extra?: Uint8Array;
  /** FNAME: the name, without its terminating NUL. */
  readonly name?: Uint8Array;
  /** FCOMMENT: the comment, without its terminating NUL. */
  readonly comment?: Uint8Array;
  /** FHCRC: a header CRC, right or wrong. */
  readonly headerCrc?: "right" | "wrong";
  /** Sets a reserved flag bit (RFC 1952 says a decoder must refuse it). */
  readonly reservedFlag?: boolean;
}

const CRC_TABLE = new Uint32Array(256).map((_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

/** CRC-32 of `bytes` (written here, not lib/gzip's, so the test does not check the decoder against itself). */
export function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

async function deflateRaw(data: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([data as Uint8Array<ArrayBuffer>]).stream().pipeThrough(
    new CompressionStream("deflate-raw"),
  );
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function le32(n: number): number[] {
  return [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff];
}

/** One gzip member holding `data`. */
export async function gzipMember(data: Uint8Array, options: MemberOptions = {}): Promise<Uint8Array> {
  let flags = 0;
  const header: number[] = [];
  if (options.extra) {
    flags |= 4;
    header.push(options.extra.length & 0xff, options.extra.length >>> 8, ...options.extra);
  }
  if (options.name) {
    flags |= 8;
    header.push(...options.name, 0);
  }
  if (options.comment) {
    flags |= 16;
    header.push(...options.comment, 0);
  }
  if (options.headerCrc) flags |= 2;
  if (options.reservedFlag) flags |= 0x20;
  const fixed = [0x1f, 0x8b, 8, flags, 0, 0, 0, 0, 0, 255];
  const head = [...fixed, ...header];
  if (options.headerCrc) {
    const crc = crc32(new Uint8Array(head)) ^ (options.headerCrc === "wrong" ? 1 : 0);
    head.push(crc & 0xff, (crc >>> 8) & 0xff);
  }
  const body = await deflateRaw(data);
  const out = new Uint8Array(head.length + body.length + 8);
  out.set(head);
  out.set(body, head.length);
  out.set([...le32(crc32(data)), ...le32(data.length)], head.length + body.length);
  return out;
}
