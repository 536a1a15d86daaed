import assert from "node:assert/strict";
import { parse } from "yaml";
import { readYamlSubset } from "../../lib/config/_yaml_subset.ts";
import { seededRandom } from "../_util/seeded_random.ts";

/** What npm:yaml makes of `text` (the full parser the subset reader stands in for), or its error. */
function full(text: string): { value: unknown } | { error: string } {
  try {
    return { value: parse(text, { logLevel: "error" }) };
  } catch (error) {
    return { error: String(error) };
  }
}

/** The subset reader accepts `text` and agrees with the full parser. */
function assertSame(text: string): void {
  const ours = readYamlSubset(text);
  assert.notEqual(ours, undefined, `the subset reader refused:\n${text}`);
  assert.deepStrictEqual(ours, (full(text) as { value: unknown }).value, text);
}

const KUBECTL_WRITTEN = `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUM=
    server: https://127.0.0.1:38211
  name: kind-kind
- cluster:
    insecure-skip-tls-verify: true
    proxy-url: http://proxy.example:3128
    server: https://[::1]:6443
    tls-server-name: kubernetes.default.svc
  name: other
contexts:
- context:
    cluster: kind-kind
    namespace: team-a
    user: kind-kind
  name: kind-kind
current-context: kind-kind
kind: Config
preferences: {}
users:
- name: kind-kind
  user:
    client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg==
    client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQo=
- name: eks
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      args:
      - --region
      - us-west-2
      - eks
      - get-token
      - --cluster-name
      - arn:aws:eks:us-west-2:123456789012:cluster/prod
      command: aws
      env:
      - name: AWS_PROFILE
        value: prod
      - name: EMPTY
        value: ""
      interactiveMode: IfAvailable
      provideClusterInfo: false
- name: gke
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: gke-gcloud-auth-plugin
      installHint: Install gke-gcloud-auth-plugin for use with kubectl by following
        https://cloud.google.com/kubernetes-engine/docs/how-to/cluster-access-for-kubectl#install_plugin
      provideClusterInfo: true
`;

Deno.test("the subset reader reads a kubeconfig as kubectl writes it, as the full parser does", () => {
  assertSame(KUBECTL_WRITTEN);
});

Deno.test("the subset reader reads the other common layouts: indented sequences, comments, quotes, ---", () => {
  assertSame(`---
# written by hand
apiVersion: v1
kind: Config
clusters:
  - name: "dev cluster"   # quoted, with a comment
    cluster:
      server: 'https://dev.example:6443'
      extensions:
        - name: client.authentication.k8s.io/exec
          extension:
            audience: "aud\\u00e9nce\\n"
            list: []
            nothing:
            tilde: ~
            count: 3
users:
  -   name: it's
      user:
        token: "a#b c"
        username: x#y
        password: 'don''t'
contexts:
-
  name: c
  context: {}
`);
});

Deno.test("the subset reader leaves everything outside the subset to the full parser", () => {
  const outside = [
    "", // empty document: null, decided by the full parser
    "# only a comment\n",
    "- a\n- b\n", // not a mapping at the top
    "a: 1\n  b: 2\n", // a continued plain scalar that is a number, then a key
    "a: x\n\n  y\n", // a blank line folds to a line break
    "a: x\n  # note\n  y\n", // a comment ends the scalar
    "a: x # note\n  y\n",
    "a: 'x'\n  y\n", // a continued quoted scalar
    "a: x\n  - y\n",
    "a: x\n  b: c\n",
    "a: true\n  x\n",
    "a: &x 1\nb: *x\n", // anchor and alias
    "a: !!str 1\n", // tag
    "a: |\n  text\n", // block scalar
    "a: >\n  text\n",
    "a: {b: 1}\n", // flow collection with content
    "a: [1, 2]\n",
    "a:\tb\n", // tab
    "a: b\r\nc: d\r\n", // CR line ends
    "a: 1\na: 2\n", // duplicate key (the full parser says why)
    "__proto__: x\n",
    "a: 0x1f\n", // numbers beyond small decimal integers
    "a: 1.5\n",
    "a: -1\n",
    "a: 012\n",
    "a: .inf\n",
    "true: x\n", // keys the core schema would not keep as strings
    "a: b: c\n",
    'a: "unterminated\n  more"\n',
    'a: "\\x41"\n', // escape outside the subset
    "? a\n: b\n",
    "a: 1\n...\n",
    "%YAML 1.2\n---\na: 1\n",
    "\ufeffa: 1\n",
    "a: 1\n---\nb: 2\n", // a second document
    "  a: 1\n", // indented top level
    "a:\n- - x\n", // compact nested sequence
  ];
  for (const text of outside) assert.equal(readYamlSubset(text), undefined, JSON.stringify(text));
});

// ---- differential: whatever the subset reader accepts, the full parser reads the same -----------

const COMMON_KEYS = [
  "apiVersion",
  "kind",
  "clusters",
  "cluster",
  "server",
  "name",
  "user",
  "token",
  "exec",
  "args",
  "env",
  "value",
  "a",
  "b.c",
  "x/y",
  "k-1",
  "_z",
];
const TRICKY_KEYS = [
  "true",
  "null",
  "on",
  "__proto__",
  "key with space",
  "é",
  "1",
];
// What kubeconfigs hold, and what makes a scalar mean something else.
const COMMON = [
  "v1",
  "https://127.0.0.1:6443",
  "LS0tLS1CRUdJTi==",
  "--region",
  "us-west-2",
  "/home/me/.kube/ca.crt",
  "kind-kind",
  "IfAvailable",
];
const TRICKY = [
  "-x",
  "-",
  "- ",
  "a b",
  "x#y",
  " #",
  "#",
  ":",
  ": ",
  "a:b",
  "{",
  "}",
  "[",
  "]",
  ",",
  "&a",
  "*a",
  "!",
  "|",
  ">",
  "%",
  "@",
  "`",
  "'",
  '"',
  "\\",
  "~",
  "null",
  "Null",
  "NULL",
  "nULL",
  "true",
  "True",
  "TRUE",
  "tRUE",
  "false",
  "False",
  "FALSE",
  "yes",
  "on",
  "0",
  "7",
  "012",
  "-1",
  "+1",
  "1.5",
  "1e3",
  ".5",
  ".inf",
  ".NaN",
  "0x1F",
  "0o7",
  "1_000",
  "123456789012345678",
  "<<",
  "=",
  "?",
  "? x",
  "é",
  "日本",
  "😀",
  "\u00a0",
  "---",
  "...",
  "",
  " ",
];
const MUTATIONS = [
  " ",
  "  ",
  "-",
  "- ",
  ":",
  ": ",
  "#",
  " #",
  "'",
  '"',
  "\\",
  "{",
  "}",
  "[",
  "]",
  "\t",
  "\n",
  "\r",
];

Deno.test("differential: every scalar of the generator, alone as a value and as a key, plain and quoted", () => {
  let accepted = 0;
  for (const atom of [...COMMON, ...TRICKY, ...COMMON_KEYS, ...TRICKY_KEYS]) {
    for (const written of [atom, `'${atom.replaceAll("'", "''")}'`, JSON.stringify(atom)]) {
      for (const text of [`a: ${written}\n`, `${written}: a\n`, `a:\n- ${written}\n`]) {
        const ours = readYamlSubset(text);
        if (ours === undefined) continue;
        accepted++;
        assert.deepStrictEqual(ours, (full(text) as { value: unknown }).value, JSON.stringify(text));
      }
    }
  }
  assert.ok(accepted > 300, `only ${accepted} accepted`);
});

function generate(random: () => number): string {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  // Some documents hold only what kubeconfigs hold, others much that means something else.
  const tricky = random() < 0.3 ? 0 : random() * 0.3;
  const width = pick([1, 2, 2, 2, 4]);
  const compactSequences = random() < 0.5; // `- ` in the key's column, as kubectl writes it
  const out: string[] = [];
  if (random() < 0.1) out.push("---");

  const scalarText = (): string => {
    let s = "";
    for (let n = random() < 0.6 ? 1 : 2 + Math.floor(random() * 2); n > 0; n--) {
      s += pick(random() < tricky ? TRICKY : COMMON);
    }
    const style = random();
    if (style < 0.6) return s;
    if (style < 0.75) return `'${random() < 0.9 ? s.replaceAll("'", "''") : s}'`;
    let d = "";
    for (const c of s) {
      d += c === '"' || c === "\\"
        ? (random() < 0.9 ? "\\" + c : c)
        : c === "é" && random() < 0.5
        ? "\\u00e9"
        : random() < 0.03
        ? pick(["\\n", "\\t", "\\/", "\\x41", "\\e", "\\ ", "\\u12", "\\U0001F600"])
        : c;
    }
    return `"${d}"`;
  };
  const keyText = (): string => {
    const k = pick(random() < tricky ? TRICKY_KEYS : COMMON_KEYS);
    const style = random();
    if (style < 0.8) return k;
    return style < 0.9 ? `'${k.replaceAll("'", "''")}'` : JSON.stringify(k);
  };
  const comment = () => (random() < 0.15 ? `${pick([" ", "  "])}#${pick(TRICKY)}` : "");
  const inline = (): string => {
    const r = random();
    return r < 0.08 ? "{}" : r < 0.14 ? "[]" : scalarText();
  };

  // Lines that continue a plain scalar (go-yaml wraps long strings so), sometimes after a gap.
  const continuation = (indent: number) => {
    if (random() >= 0.15) return;
    for (let n = 1 + Math.floor(random() * 2); n > 0; n--) {
      if (random() < 0.1) out.push(random() < 0.5 ? "" : `${" ".repeat(indent + 1)}# note`);
      const words = Array.from({ length: 1 + Math.floor(random() * 3) }, () => scalarText());
      out.push(" ".repeat(indent + 1 + Math.floor(random() * 4)) + words.join(" "));
    }
  };
  const mapping = (indent: number, depth: number, firstPrefix?: string) => {
    const count = 1 + Math.floor(random() * 4);
    for (let i = 0; i < count; i++) {
      const lead = i === 0 && firstPrefix !== undefined ? firstPrefix : " ".repeat(indent);
      const key = keyText();
      const r = random();
      if (depth < 4 && r < 0.25) {
        out.push(`${lead}${key}:${comment()}`);
        mapping(indent + width, depth + 1);
      } else if (depth < 4 && r < 0.45) {
        out.push(`${lead}${key}:${comment()}`);
        sequence(compactSequences ? indent : indent + width, depth + 1);
      } else if (r < 0.5) {
        out.push(`${lead}${key}:${comment()}`);
      } else {
        out.push(`${lead}${key}: ${inline()}${comment()}`);
        continuation(indent);
      }
      if (random() < 0.05) out.push(random() < 0.5 ? "" : `${" ".repeat(Math.floor(random() * 6))}# note`);
    }
  };
  const sequence = (indent: number, depth: number) => {
    const count = 1 + Math.floor(random() * 3);
    for (let i = 0; i < count; i++) {
      const dash = " ".repeat(indent) + "-" + " ".repeat(1 + Math.floor(random() * 2));
      const r = random();
      if (depth < 4 && r < 0.45) {
        mapping(dash.length, depth + 1, dash);
      } else if (depth < 4 && r < 0.55) {
        out.push(" ".repeat(indent) + "-");
        mapping(indent + width, depth + 1);
      } else {
        out.push(`${dash}${inline()}${comment()}`);
        continuation(indent);
      }
    }
  };
  mapping(0, 0);
  let text = out.join("\n") + (random() < 0.9 ? "\n" : "");
  for (let n = random() < 0.4 ? 1 + Math.floor(random() * 2) : 0; n > 0; n--) {
    const at = Math.floor(random() * (text.length + 1));
    const r = random();
    text = r < 0.6
      ? text.slice(0, at) + pick(MUTATIONS) + text.slice(at)
      : r < 0.85
      ? text.slice(0, at) + text.slice(at + 1)
      : text.replace(/\n( *)/, (_, spaces: string) => `\n${spaces}${random() < 0.5 ? " " : ""}`);
  }
  return text;
}

Deno.test("differential: on 6,000 generated and mutated documents, what the subset reader accepts the full parser reads the same", () => {
  const seed = 20261202;
  const random = seededRandom(seed);
  let accepted = 0;
  let refusedValid = 0;
  for (let i = 0; i < 6_000; i++) {
    const text = generate(random);
    const ours = readYamlSubset(text);
    const theirs = full(text);
    if (ours === undefined) {
      if ("value" in theirs) refusedValid++;
      continue;
    }
    accepted++;
    assert.ok(
      "value" in theirs,
      `seed ${seed}, document ${i}: accepted text the full parser refuses:\n${text}`,
    );
    assert.deepStrictEqual(ours, theirs.value, `seed ${seed}, document ${i}:\n${text}`);
  }
  // The generator must reach both sides, or the comparison proves nothing.
  assert.ok(accepted > 1_000, `only ${accepted} documents accepted`);
  assert.ok(refusedValid > 300, `only ${refusedValid} valid documents refused`);
});
