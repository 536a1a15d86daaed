import { parseListenAddress } from "../observe/mod.ts";
import { type ControllerFlags, FlagError } from "./controller_flags.ts";

/** One flag: its name (without dashes), whether it is boolean, its help line and how it sets the draft. */
export type Spec = {
  name: string;
  value: "string" | "bool";
  help: string;
  apply: (f: Draft, v: string, as: string) => void;
};
/** A ControllerFlags being filled in. */
export type Draft = { -readonly [K in keyof ControllerFlags]: ControllerFlags[K] };

const dnsLabel = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const dnsSubdomain = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function invalid(as: string, value: string, why: string): FlagError {
  return new FlagError(`invalid value "${value}" for flag ${as}: ${why}`, as);
}
function nonEmpty(as: string, value: string): string {
  if (value === "") throw invalid(as, value, "must not be empty");
  return value;
}
function integer(as: string, value: string, min: number, max: number): number {
  const n = /^[0-9]+$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw invalid(as, value, `must be an integer from ${min} to ${max}`);
  }
  return n;
}
function boolean(as: string, value: string): boolean {
  if (["true", "1", "t", "TRUE", "True", "T"].includes(value)) return true;
  if (["false", "0", "f", "FALSE", "False", "F"].includes(value)) return false;
  throw invalid(as, value, "must be true or false");
}
/** Validated by the parser the metrics/health server uses, so a flag that parses here also binds there. */
function bindAddress(as: string, value: string): string {
  try {
    parseListenAddress(value);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    throw invalid(as, value, 'must be "host:port", ":port" or "0"');
  }
  return value;
}
function fileName(as: string, value: string, dir: string): string {
  if (value === "" || value.includes("/") || value === "." || value === "..") {
    throw invalid(as, value, `must be a file name inside ${dir}`);
  }
  return value;
}
function oneOf<T extends string>(as: string, value: string, allowed: readonly T[]): T {
  const found = allowed.find((a) => a === value);
  if (found === undefined) throw invalid(as, value, `must be one of ${allowed.join(", ")}`);
  return found;
}

export const specs: readonly Spec[] = [
  {
    name: "kubeconfig",
    value: "string",
    help: "Path to a kubeconfig. Only required if out-of-cluster.",
    apply: (f, v, as) => f.kubeconfig = nonEmpty(as, v),
  },
  {
    name: "context",
    value: "string",
    help: "Kubeconfig context to use (default: its current-context).",
    apply: (f, v, as) => f.context = nonEmpty(as, v),
  },
  {
    name: "master",
    value: "string",
    help: "Address of the API server. Overrides any value in kubeconfig.",
    apply: (f, v, as) => {
      if (!/^https?:\/\/[^/]/.test(v) && !/^[^/:]+(:[0-9]+)?$/.test(v)) {
        throw invalid(as, v, "must be a URL such as https://host:6443");
      }
      f.master = v;
    },
  },
  {
    name: "namespace",
    value: "string",
    help: "Watch Foos and Deployments in this namespace only (default: all).",
    apply: (f, v, as) => {
      if (!dnsLabel.test(v) || v.length > 63) {
        throw invalid(as, v, "must be a namespace name (RFC 1123 label)");
      }
      f.namespace = v;
    },
  },
  {
    name: "workers",
    value: "string",
    help: "Number of concurrent reconciles (default 2).",
    apply: (f, v, as) => f.workers = integer(as, v, 1, 1000),
  },
  {
    name: "leader-elect",
    value: "bool",
    help: "Run only while holding the leader-election Lease.",
    apply: (f, v, as) => f.leaderElect = boolean(as, v),
  },
  {
    name: "leader-election-id",
    value: "string",
    help: 'Name of the Lease (default "kubeloop-sample-controller").',
    apply: (f, v, as) => {
      if (!dnsSubdomain.test(v) || v.length > 253) {
        throw invalid(as, v, "must be a Lease name (RFC 1123 subdomain)");
      }
      f.leaderElectionId = v;
    },
  },
  {
    name: "leader-election-namespace",
    value: "string",
    help: 'Namespace of the Lease (default: the in-cluster namespace, else "default").',
    apply: (f, v, as) => {
      if (!dnsLabel.test(v) || v.length > 63) {
        throw invalid(as, v, "must be a namespace name (RFC 1123 label)");
      }
      f.leaderElectionNamespace = v;
    },
  },
  {
    name: "warm-standby",
    value: "bool",
    help:
      "With --leader-elect, keep the caches synced while standing by (default true; false: list once leading).",
    apply: (f, v, as) => f.warmStandby = boolean(as, v),
  },
  {
    name: "shards",
    value: "string",
    help: "Share the work with other replicas over this many hash ranges (a power of two, e.g. 32).",
    apply: (f, v, as) => {
      const n = integer(as, v, 1, 1024);
      if ((n & (n - 1)) !== 0) throw invalid(as, v, "must be a power of two from 1 to 1024");
      f.shards = n;
    },
  },
  {
    name: "shard-group",
    value: "string",
    help: 'Replicas with the same group share the work (default "kubeloop-sample-controller").',
    apply: (f, v, as) => {
      if (!/^[a-z0-9]([-a-z0-9]{0,48}[a-z0-9])?$/.test(v)) {
        throw invalid(as, v, 'must be lowercase letters, digits and "-", at most 50 characters');
      }
      f.shardGroup = v;
    },
  },
  {
    name: "shard-key",
    value: "string",
    help: "What Foos are hashed on: uid or namespace (default uid).",
    apply: (f, v, as) => f.shardKey = oneOf(as, v, ["uid", "namespace"] as const),
  },
  {
    name: "shard-selector",
    value: "string",
    help: "auto, server or client: whether the API server filters each replica's share (default auto).",
    apply: (f, v, as) => f.shardSelector = oneOf(as, v, ["auto", "server", "client"] as const),
  },
  {
    name: "shard-namespace",
    value: "string",
    help: 'Namespace of the shard Leases (default: the in-cluster namespace, else "default").',
    apply: (f, v, as) => {
      if (!dnsLabel.test(v) || v.length > 63) {
        throw invalid(as, v, "must be a namespace name (RFC 1123 label)");
      }
      f.shardNamespace = v;
    },
  },
  {
    name: "shard-lease-duration",
    value: "string",
    help: "Seconds before a dead replica's ranges are taken over (default 15).",
    apply: (f, v, as) => f.shardLeaseDurationS = integer(as, v, 3, 600),
  },
  {
    name: "metrics-bind-address",
    value: "string",
    help: 'Address of /metrics, "0" disables (default ":8443").',
    apply: (f, v, as) => f.metricsBindAddress = bindAddress(as, v),
  },
  {
    name: "metrics-secure",
    value: "bool",
    help: "Serve /metrics over HTTPS, only to callers RBAC allows (default true; false: plain HTTP, open).",
    apply: (f, v, as) => f.metricsSecure = boolean(as, v),
  },
  {
    name: "metrics-cert-path",
    value: "string",
    help: "Directory of the metrics certificate, reloaded on change (default: a generated self-signed one).",
    apply: (f, v, as) => f.metricsCertPath = nonEmpty(as, v),
  },
  {
    name: "metrics-cert-name",
    value: "string",
    help: 'Certificate file in --metrics-cert-path (default "tls.crt").',
    apply: (f, v, as) => f.metricsCertName = fileName(as, v, "--metrics-cert-path"),
  },
  {
    name: "metrics-cert-key",
    value: "string",
    help: 'Private key file in --metrics-cert-path (default "tls.key").',
    apply: (f, v, as) => f.metricsCertKey = fileName(as, v, "--metrics-cert-path"),
  },
  {
    name: "webhook-bind-address",
    value: "string",
    help: 'Address of the Foo webhooks (HTTPS), e.g. ":9443"; "0" serves none (default "0").',
    apply: (f, v, as) => f.webhookBindAddress = bindAddress(as, v),
  },
  {
    name: "webhook-cert-path",
    value: "string",
    help: "Directory of the webhook certificate (e.g. cert-manager's Secret), reloaded on change.",
    apply: (f, v, as) => f.webhookCertPath = nonEmpty(as, v),
  },
  {
    name: "webhook-cert-name",
    value: "string",
    help: 'Certificate file in --webhook-cert-path (default "tls.crt").',
    apply: (f, v, as) => f.webhookCertName = fileName(as, v, "--webhook-cert-path"),
  },
  {
    name: "webhook-cert-key",
    value: "string",
    help: 'Private key file in --webhook-cert-path (default "tls.key").',
    apply: (f, v, as) => f.webhookCertKey = fileName(as, v, "--webhook-cert-path"),
  },
  {
    name: "webhook-cert-secret",
    value: "string",
    help: "Self-managed webhook certificates kept in this Secret, rotated by the leader (no cert-manager).",
    apply: (f, v, as) => {
      if (!dnsSubdomain.test(v) || v.length > 253) throw invalid(as, v, "must be a Secret name");
      f.webhookCertSecret = v;
    },
  },
  {
    name: "webhook-service",
    value: "string",
    help:
      'Service of the webhooks, named in the self-managed certificate (default "kubeloop-sample-controller-webhook").',
    apply: (f, v, as) => {
      if (!dnsLabel.test(v) || v.length > 63) throw invalid(as, v, "must be a Service name");
      f.webhookService = v;
    },
  },
  {
    name: "webhook-url",
    value: "string",
    help: "Development: the https:// URL the API server reaches the webhooks at; registers them there.",
    apply: (f, v, as) => {
      let url: URL | undefined;
      try {
        url = new URL(v);
      } catch {
        url = undefined;
      }
      if (url?.protocol !== "https:" || url.pathname !== "/" || url.search || url.username) {
        throw invalid(as, v, "must be https://host:port");
      }
      f.webhookUrl = url.origin;
    },
  },
  {
    name: "health-probe-bind-address",
    value: "string",
    help: 'Address of /healthz and /readyz, "0" disables (default ":8081").',
    apply: (f, v, as) => f.healthProbeBindAddress = bindAddress(as, v),
  },
  {
    name: "kube-api-qps",
    value: "string",
    help: "Requests per second to the API server (default: the client's).",
    apply: (f, v, as) => {
      const n = /^[0-9]+(\.[0-9]+)?$/.test(v) ? Number(v) : NaN;
      if (!(n > 0) || !Number.isFinite(n)) throw invalid(as, v, "must be a number greater than 0");
      f.kubeApiQps = n;
    },
  },
  {
    name: "kube-api-burst",
    value: "string",
    help: "Burst of requests to the API server (default: the client's).",
    apply: (f, v, as) => f.kubeApiBurst = integer(as, v, 1, 100_000),
  },
  {
    name: "log-level",
    value: "string",
    help: "debug, info, warn or error (default info).",
    apply: (f, v, as) => f.logLevel = oneOf(as, v, ["debug", "info", "warn", "error"] as const),
  },
  {
    name: "log-format",
    value: "string",
    help: "json or text (default json).",
    apply: (f, v, as) => f.logFormat = oneOf(as, v, ["json", "text"] as const),
  },
  {
    name: "v",
    value: "string",
    help: "klog verbosity, accepted for compatibility with sample-controller: 4 or more means debug.",
    apply: (f, v, as) => f.logLevel = integer(as, v, 0, 10) >= 4 ? "debug" : "info",
  },
];
