import assert from "node:assert/strict";
import { parseListenAddress } from "../../lib/observe/mod.ts";
import { defaultFlags, FlagError, parseFlags, usage } from "../../lib/sample_controller/flags.ts";

function run(...args: string[]) {
  const parsed = parseFlags(args);
  assert.equal(parsed.kind, "run");
  return parsed.kind === "run" ? parsed.flags : defaultFlags();
}

function rejects(args: string[], flag: string, message: RegExp): void {
  assert.throws(() => parseFlags(args), (error: unknown) => {
    assert.ok(error instanceof FlagError, String(error));
    assert.equal(error.flag, flag);
    assert.match(error.message, message);
    assert.equal(error.message.includes("\n"), false, "messages are one line");
    return true;
  });
}

Deno.test("no arguments gives the documented defaults", () => {
  assert.deepEqual(run(), {
    workers: 2,
    leaderElect: false,
    leaderElectionId: "kubeloop-sample-controller",
    warmStandby: true,
    metricsBindAddress: ":8443",
    metricsSecure: true,
    metricsCertName: "tls.crt",
    metricsCertKey: "tls.key",
    webhookBindAddress: "0",
    webhookCertName: "tls.crt",
    webhookCertKey: "tls.key",
    webhookService: "kubeloop-sample-controller-webhook",
    healthProbeBindAddress: ":8081",
    logLevel: "info",
    logFormat: "json",
    shardGroup: "kubeloop-sample-controller",
    shardKey: "uid",
    shardSelector: "auto",
    shardLeaseDurationS: 15,
  });
});

Deno.test("every flag is parsed in the --name=value form", () => {
  assert.deepEqual(
    run(
      "--kubeconfig=/k/config",
      "--context=kind",
      "--master=https://10.0.0.1:6443",
      "--namespace=team-a",
      "--workers=8",
      "--leader-elect",
      "--leader-election-id=my-lease",
      "--leader-election-namespace=ops",
      "--warm-standby=false",
      "--metrics-bind-address=127.0.0.1:9090",
      "--metrics-secure=false",
      "--metrics-cert-path=/certs",
      "--metrics-cert-name=serving.crt",
      "--metrics-cert-key=serving.key",
      "--webhook-bind-address=:9443",
      "--webhook-cert-path=/webhook-certs",
      "--webhook-cert-name=w.crt",
      "--webhook-cert-key=w.key",
      "--webhook-service=hooks",
      "--webhook-url=https://127.0.0.1:9443",
      "--health-probe-bind-address=0",
      "--kube-api-qps=20.5",
      "--kube-api-burst=40",
      "--log-level=debug",
      "--log-format=text",
      "--shard-group=foos-a",
      "--shard-key=namespace",
      "--shard-selector=client",
      "--shard-namespace=ops",
      "--shard-lease-duration=6",
    ),
    {
      kubeconfig: "/k/config",
      context: "kind",
      master: "https://10.0.0.1:6443",
      namespace: "team-a",
      workers: 8,
      leaderElect: true,
      leaderElectionId: "my-lease",
      leaderElectionNamespace: "ops",
      warmStandby: false,
      metricsBindAddress: "127.0.0.1:9090",
      metricsSecure: false,
      metricsCertPath: "/certs",
      metricsCertName: "serving.crt",
      metricsCertKey: "serving.key",
      webhookBindAddress: ":9443",
      webhookCertPath: "/webhook-certs",
      webhookCertName: "w.crt",
      webhookCertKey: "w.key",
      webhookService: "hooks",
      webhookUrl: "https://127.0.0.1:9443",
      healthProbeBindAddress: "0",
      kubeApiQps: 20.5,
      kubeApiBurst: 40,
      logLevel: "debug",
      logFormat: "text",
      shardGroup: "foos-a",
      shardKey: "namespace",
      shardSelector: "client",
      shardNamespace: "ops",
      shardLeaseDurationS: 6,
    },
  );
});

Deno.test("--shards takes a power of two and excludes --leader-elect", () => {
  assert.equal(run("--shards=32").shards, 32);
  rejects(["--shards=12"], "--shards", /must be a power of two from 1 to 1024/);
  rejects(["--shards=2048"], "--shards", /must be an integer from 1 to 1024/);
  rejects(["--shards=8", "--leader-elect"], "--shards", /--shards and --leader-elect exclude each other/);
  rejects(["--shard-key=name"], "--shard-key", /must be one of uid, namespace/);
  rejects(["--shard-group=Foos_A"], "--shard-group", /lowercase letters, digits and "-"/);
});

Deno.test("values may follow as the next argument, with one or two dashes", () => {
  const flags = run("--kubeconfig", "/a", "-context", "c", "--workers", "3", "-namespace", "n");
  assert.equal(flags.kubeconfig, "/a");
  assert.equal(flags.context, "c");
  assert.equal(flags.workers, 3);
  assert.equal(flags.namespace, "n");
});

Deno.test("sample-controller's own invocation (-kubeconfig=..., -master=...) works unchanged", () => {
  const flags = run("-kubeconfig=/home/u/.kube/config", "-master=http://localhost:8080");
  assert.equal(flags.kubeconfig, "/home/u/.kube/config");
  assert.equal(flags.master, "http://localhost:8080");
});

Deno.test("klog's -v is accepted for compatibility: 4 and above means debug", () => {
  assert.equal(run("-v=4").logLevel, "debug");
  assert.equal(run("-v", "2").logLevel, "info");
});

Deno.test("a boolean flag takes no separate value but accepts =true and =false", () => {
  assert.equal(run("--leader-elect=false").leaderElect, false);
  assert.equal(run("--leader-elect=true").leaderElect, true);
  assert.equal(run("-leader-elect", "--workers=1").leaderElect, true);
  rejects(["--leader-elect=maybe"], "--leader-elect", /invalid value "maybe" for flag --leader-elect/);
});

Deno.test("the last occurrence of a flag wins, as with Go's flag package", () => {
  assert.equal(run("--workers=1", "--workers=5").workers, 5);
});

Deno.test("--help, -h and --version end parsing even after other flags", () => {
  assert.deepEqual(parseFlags(["--workers=3", "--help"]), { kind: "help" });
  assert.deepEqual(parseFlags(["-h"]), { kind: "help" });
  assert.deepEqual(parseFlags(["-help"]), { kind: "help" });
  assert.deepEqual(parseFlags(["--version"]), { kind: "version" });
});

Deno.test("an unknown flag is an error naming it as written", () => {
  rejects(["--kubeconfg=/x"], "--kubeconfg", /^unknown flag --kubeconfg/);
  rejects(["-alsologtostderr"], "-alsologtostderr", /^unknown flag -alsologtostderr/);
});

Deno.test("a flag without its value is an error naming the flag", () => {
  rejects(["--kubeconfig"], "--kubeconfig", /^flag --kubeconfig needs a value$/);
});

Deno.test("stray positional arguments are errors", () => {
  rejects(["run"], "", /unexpected argument "run"/);
  rejects(["--", "x"], "", /unexpected argument "x"/);
  assert.equal(parseFlags(["--"]).kind, "run");
});

Deno.test("bad values are rejected with the flag and the reason", () => {
  rejects(
    ["--workers=0"],
    "--workers",
    /invalid value "0" for flag --workers: must be an integer from 1 to 1000/,
  );
  rejects(["--workers=two"], "--workers", /--workers/);
  rejects(["--workers=1.5"], "--workers", /--workers/);
  rejects(["--kube-api-qps=-1"], "--kube-api-qps", /greater than 0/);
  rejects(["--kube-api-qps=abc"], "--kube-api-qps", /--kube-api-qps/);
  rejects(["--kube-api-burst=0"], "--kube-api-burst", /--kube-api-burst/);
  rejects(["--log-level=trace"], "--log-level", /must be one of debug, info, warn, error/);
  rejects(["--log-format=xml"], "--log-format", /must be one of json, text/);
  rejects(["--namespace=Bad_NS"], "--namespace", /namespace name/);
  rejects(["--leader-election-namespace=a.b"], "--leader-election-namespace", /namespace name/);
  rejects(["--leader-election-id=UPPER"], "--leader-election-id", /Lease name/);
  rejects(["--metrics-bind-address=8080"], "--metrics-bind-address", /host:port/);
  rejects(["--health-probe-bind-address=:99999"], "--health-probe-bind-address", /host:port/);
  rejects(["--master=ftp://x"], "--master", /--master/);
  rejects(["--kubeconfig="], "--kubeconfig", /must not be empty/);
  rejects(["-v=x"], "-v", /-v/);
});

Deno.test("bind addresses accept :port, host:port, [ipv6]:port and 0", () => {
  assert.equal(run("--metrics-bind-address=:9000").metricsBindAddress, ":9000");
  assert.equal(run("--metrics-bind-address=0.0.0.0:8080").metricsBindAddress, "0.0.0.0:8080");
  assert.equal(run("--metrics-bind-address=[::1]:8080").metricsBindAddress, "[::1]:8080");
  assert.equal(run("--metrics-bind-address=0").metricsBindAddress, "0");
});

Deno.test("a bind address flag accepts exactly what the metrics and health server can bind", () => {
  for (const address of [":9000", "localhost:1", "[::1]:8080", "0", "8080", ":99999", "a:b:1", "[::1]", ""]) {
    const serverAccepts = (() => {
      try {
        parseListenAddress(address);
        return true;
      } catch {
        return false;
      }
    })();
    if (serverAccepts) {
      assert.equal(run(`--health-probe-bind-address=${address}`).healthProbeBindAddress, address);
    } else {
      rejects([`--health-probe-bind-address=${address}`], "--health-probe-bind-address", /host:port/);
    }
  }
});

Deno.test("the usage text lists every flag once", () => {
  const text = usage("sample-controller");
  for (
    const name of [
      "kubeconfig",
      "context",
      "master",
      "namespace",
      "workers",
      "leader-elect",
      "leader-election-id",
      "leader-election-namespace",
      "metrics-bind-address",
      "metrics-secure",
      "metrics-cert-path",
      "metrics-cert-name",
      "metrics-cert-key",
      "webhook-bind-address",
      "webhook-cert-path",
      "webhook-cert-name",
      "webhook-cert-key",
      "webhook-cert-secret",
      "webhook-service",
      "webhook-url",
      "health-probe-bind-address",
      "kube-api-qps",
      "kube-api-burst",
      "log-level",
      "log-format",
      "help",
      "version",
    ]
  ) {
    assert.equal(
      text.split("\n").filter((l) => l.startsWith(`  --${name} `) || l === `  --${name}`).length,
      1,
      name,
    );
  }
});

Deno.test("metrics certificate file names must stay inside --metrics-cert-path", () => {
  rejects(["--metrics-cert-name=../../etc/passwd"], "--metrics-cert-name", /file name inside/);
  rejects(["--metrics-cert-key=a/b"], "--metrics-cert-key", /file name inside/);
  rejects(["--metrics-cert-path="], "--metrics-cert-path", /must not be empty/);
  assert.equal(run("--metrics-secure").metricsSecure, true);
  assert.equal(run("-metrics-secure=f").metricsSecure, false);
});

Deno.test("webhooks: off by default; on, they need a certificate the API server trusts or the development URL", () => {
  assert.equal(run().webhookBindAddress, "0");
  assert.equal(run("--webhook-bind-address=:9443", "--webhook-cert-path=/c").webhookCertPath, "/c");
  assert.equal(
    run("--webhook-bind-address=127.0.0.1:0", "--webhook-url=https://127.0.0.1:9443/").webhookUrl,
    "https://127.0.0.1:9443",
  );
  rejects(
    ["--webhook-bind-address=:9443"],
    "--webhook-bind-address",
    /needs --webhook-cert-path .*, --webhook-cert-secret .* or --webhook-url/,
  );
  rejects(["--webhook-url=https://127.0.0.1:9443"], "--webhook-url", /needs --webhook-bind-address/);
  rejects(["--webhook-cert-path=/c"], "--webhook-cert-path", /needs --webhook-bind-address/);
  for (const url of ["http://127.0.0.1:9443", "https://127.0.0.1:9443/path", "not a url"]) {
    rejects(
      ["--webhook-bind-address=:9443", `--webhook-url=${url}`],
      "--webhook-url",
      /must be https:\/\/host:port/,
    );
  }
  rejects(["--webhook-cert-name=../x"], "--webhook-cert-name", /file name inside --webhook-cert-path/);
});

Deno.test("self-managed webhook certificates: a Secret name, not with certificate files, only when serving", () => {
  const flags = run(
    "--webhook-bind-address=:9443",
    "--webhook-cert-secret=hooks-certs",
    "--webhook-service=hooks",
  );
  assert.equal(flags.webhookCertSecret, "hooks-certs");
  assert.equal(flags.webhookService, "hooks");
  assert.equal(
    run(
      "--webhook-bind-address=127.0.0.1:9443",
      "--webhook-cert-secret=c",
      "--webhook-url=https://127.0.0.1:9443",
    )
      .webhookCertSecret,
    "c",
    "with a development URL too",
  );
  rejects(
    ["--webhook-bind-address=:9443", "--webhook-cert-secret=c", "--webhook-cert-path=/c"],
    "--webhook-cert-secret",
    /exclude each other/,
  );
  rejects(["--webhook-cert-secret=c"], "--webhook-cert-secret", /needs --webhook-bind-address/);
  // Sharded replicas have no Lease leader: each would rotate the certificates and write the caBundles.
  rejects(
    ["--shards=4", "--webhook-bind-address=:9443", "--webhook-cert-secret=c"],
    "--webhook-cert-secret",
    /--webhook-cert-secret and --shards exclude each other/,
  );
  rejects(["--webhook-cert-secret=Not_A_Name"], "--webhook-cert-secret", /must be a Secret name/);
  rejects(["--webhook-service=a.b"], "--webhook-service", /must be a Service name/);
});
