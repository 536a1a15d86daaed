import assert from "node:assert/strict";
import { decodeKubernetesProtobuf, ProtobufDecodeError } from "../../bench/protobuf/decoder.ts";

// A tiny protobuf writer for hand-made messages.
function varint(n: number): number[] {
  const out: number[] = [];
  while (n >= 0x80) {
    out.push((n % 128) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return out;
}
const bytesField = (num: number, b: number[]) => [...varint((num << 3) | 2), ...varint(b.length), ...b];
const str = (num: number, s: string) => bytesField(num, [...new TextEncoder().encode(s)]);
const int = (num: number, n: number) => [...varint(num << 3), ...varint(n)];

function envelope(kind: string, raw: number[]): Uint8Array {
  const typeMeta = [...str(1, "v1"), ...str(2, kind)];
  return new Uint8Array([0x6b, 0x38, 0x73, 0x00, ...bytesField(1, typeMeta), ...bytesField(2, raw)]);
}

Deno.test("the protobuf prototype decodes a ConfigMapList into the JSON shape, skipping unknown fields", () => {
  const time = [...int(1, 1767225600)]; // 2026-01-01T00:00:00Z
  const meta = [
    ...str(1, "cm-1"),
    ...str(3, "ns"),
    ...int(99, 7), // unknown varint field
    ...bytesField(98, [1, 2, 3]), // unknown length-delimited field
    ...bytesField(8, time),
    ...bytesField(11, [...str(1, "app"), ...str(2, "web")]),
    ...bytesField(17, [...str(1, "kubectl"), ...str(2, "Update"), ...bytesField(7, str(1, '{"f:data":{}}'))]),
  ];
  const item = [
    ...bytesField(1, meta),
    ...bytesField(2, [...str(1, "key"), ...str(2, "välue")]),
    ...int(77, 1),
  ];
  const list = [...bytesField(1, str(2, "42")), ...bytesField(2, item)];
  assert.deepEqual(decodeKubernetesProtobuf(envelope("ConfigMapList", list)), {
    kind: "ConfigMapList",
    apiVersion: "v1",
    metadata: { resourceVersion: "42" },
    items: [{
      metadata: {
        name: "cm-1",
        namespace: "ns",
        creationTimestamp: "2026-01-01T00:00:00Z",
        labels: { app: "web" },
        managedFields: [{ manager: "kubectl", operation: "Update", fieldsV1: { "f:data": {} } }],
      },
      data: { key: "välue" },
    }],
  });
});

Deno.test("the protobuf prototype rejects bodies without the k8s magic and truncated messages", () => {
  assert.throws(() => decodeKubernetesProtobuf(new Uint8Array([1, 2, 3, 4])), ProtobufDecodeError);
  const truncated = envelope("ConfigMapList", bytesField(1, str(2, "42"))).slice(0, -2);
  assert.throws(() => decodeKubernetesProtobuf(truncated), ProtobufDecodeError);
});
