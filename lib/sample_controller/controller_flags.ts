import type { LogFormat, LogLevel } from "../log/create_logger.ts";

export type { LogFormat, LogLevel };

/** The controller's settings, after parsing the command line. */
export interface ControllerFlags {
  /** Path of a kubeconfig file; upstream's `-kubeconfig`. */
  kubeconfig?: string;
  /** Kubeconfig context to use instead of current-context. */
  context?: string;
  /** API server URL overriding the kubeconfig's; upstream's `-master`. */
  master?: string;
  /** Watch only this namespace. Undefined: all namespaces. */
  namespace?: string;
  /**
   * Concurrent reconciles.
   * @default {2}
   */
  workers: number;
  /**
   * Run only while holding the Lease.
   * @default {false}
   */
  leaderElect: boolean;
  /**
   * Name of the Lease.
   * @default {"kubeloop-sample-controller"}
   */
  leaderElectionId: string;
  /** Namespace of the Lease. Undefined: the in-cluster namespace, else "default". */
  leaderElectionNamespace?: string;
  /**
   * With `leaderElect`, keep the caches synced while standing by, so a failover reconciles at once
   * (`ManagerOptions.warmStandby`); false lists only once leading, and saves the standby that memory.
   * @default {true}
   */
  warmStandby: boolean;
  /**
   * Split the work with the other replicas of `shardGroup` over this many hash ranges (a power of two)
   * instead of one replica doing it all. Undefined: no sharding.
   */
  shards?: number;
  /**
   * The shard group: replicas with the same group share the work.
   * @default {"kubeloop-sample-controller"}
   */
  shardGroup: string;
  /**
   * What Foos are hashed on: `uid` (even spread) or `namespace` (a namespace stays on one replica).
   * @default {"uid"}
   */
  shardKey: "uid" | "namespace";
  /**
   * `auto` (use the API server's shard selector when it offers one), `server` (require it) or `client`.
   * @default {"auto"}
   */
  shardSelector: "auto" | "server" | "client";
  /** Namespace of the shard Leases. Undefined: the in-cluster namespace, else "default". */
  shardNamespace?: string;
  /**
   * Lease duration of shard claims in seconds; the renew deadline is 2/3 of it and the retry period 2/15.
   * @default {15}
   */
  shardLeaseDurationS: number;
  /**
   * `host:port` or `:port` for /metrics; "0" disables.
   * @default {":8443"}
   */
  metricsBindAddress: string;
  /**
   * Serve /metrics over HTTPS and let only callers RBAC allows to `get` the non-resource URL `/metrics`
   * scrape it (TokenReview + SubjectAccessReview); false serves plain, open HTTP.
   * @default {true}
   */
  metricsSecure: boolean;
  /** Directory of the metrics serving certificate. Undefined: a generated self-signed one. */
  metricsCertPath?: string;
  /**
   * Certificate file name in `metricsCertPath`.
   * @default {"tls.crt"}
   */
  metricsCertName: string;
  /**
   * Private key file name in `metricsCertPath`.
   * @default {"tls.key"}
   */
  metricsCertKey: string;
  /**
   * `host:port` or `:port` of the Foo webhooks (validation, defaulting, v1beta1 conversion), served over
   * HTTPS; "0" serves none, so the controller stays a drop-in for sample-controller.
   * @default {"0"}
   */
  webhookBindAddress: string;
  /** Directory of the webhook serving certificate, followed as it changes. */
  webhookCertPath?: string;
  /**
   * Certificate file name in `webhookCertPath`.
   * @default {"tls.crt"}
   */
  webhookCertName: string;
  /**
   * Private key file name in `webhookCertPath`.
   * @default {"tls.key"}
   */
  webhookCertKey: string;
  /**
   * Self-managed certificates: the Secret, in the controller's namespace, that holds the webhook CA and
   * serving certificate. Created at first start (by whichever replica comes first), renewed and rotated by
   * the leader, which also writes the CA into the caBundle of the two webhook configurations and of the Foo
   * CRD's conversion. Excludes `webhookCertPath`.
   */
  webhookCertSecret?: string;
  /**
   * The webhook Service, in the controller's namespace: the self-managed serving certificate is valid for
   * `<service>.<namespace>.svc` and `<service>.<namespace>.svc.cluster.local`.
   * @default {"kubeloop-sample-controller-webhook"}
   */
  webhookService: string;
  /**
   * Development: the base URL (`https://host:port`) a local control plane reaches the webhooks at. The
   * controller then registers the webhook configurations and the Foo CRD's conversion at that URL, with the
   * CA of its certificate (a generated one unless `webhookCertPath` or `webhookCertSecret` is set; with the
   * latter the leader writes the CA), and removes the configurations when it stops.
   */
  webhookUrl?: string;
  /**
   * `host:port` or `:port` for /healthz and /readyz; "0" disables.
   * @default {":8081"}
   */
  healthProbeBindAddress: string;
  /** Client-side request rate limit. Undefined: the client's default. */
  kubeApiQps?: number;
  /** Client-side burst. Undefined: the client's default. */
  kubeApiBurst?: number;
  /**
   * Minimum level logged.
   * @default {"info"}
   */
  logLevel: LogLevel;
  /**
   * Log line format.
   * @default {"json"}
   */
  logFormat: LogFormat;
}

/** A bad command line; `main` prints the message and exits with code 2. */
export class FlagError extends Error {
  /** The flag concerned, as written (e.g. "--workers"), or "" for a stray argument. */
  readonly flag: string;
  /** `flag` as written on the command line. */
  constructor(message: string, flag: string) {
    super(message);
    this.name = "FlagError";
    this.flag = flag;
  }
}

/** The defaults of every flag. */
export function defaultFlags(): ControllerFlags {
  return {
    workers: 2,
    leaderElect: false,
    leaderElectionId: "kubeloop-sample-controller",
    warmStandby: true,
    shardGroup: "kubeloop-sample-controller",
    shardKey: "uid",
    shardSelector: "auto",
    shardLeaseDurationS: 15,
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
  };
}
