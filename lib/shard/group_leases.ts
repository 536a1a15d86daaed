import { checkRangeCount } from "./hash_range.ts";
import { checkShardKey, type ShardKey } from "./shard_selector.ts";

/** Label every Lease of a shard group carries: its value is the group's name. */
export const GROUP_LABEL = "shard.kubeloop.dev/group";
/** Label naming a Lease's role in its group: "config", "member" or "range". */
export const ROLE_LABEL = "shard.kubeloop.dev/role";
/** Annotation with the group's configuration, e.g. `ranges=16,key=uid`, on every Lease of the group. */
export const CONFIG_ANNOTATION = "shard.kubeloop.dev/config";
/** Annotation of a range Lease: its index. */
export const RANGE_ANNOTATION = "shard.kubeloop.dev/range";

/** The role of one Lease in a shard group. */
export type LeaseRole = "config" | "member" | "range";

/** What every replica of a group must agree on. */
export interface GroupConfig {
  /** Number of hash ranges (a power of two). */
  readonly ranges: number;
  /** The field objects are hashed on. */
  readonly key: ShardKey;
}

/** `ranges=16,key=uid`: the value of {@linkcode CONFIG_ANNOTATION}. */
export function encodeGroupConfig(config: GroupConfig): string {
  return `ranges=${config.ranges},key=${config.key}`;
}

/** Parses {@linkcode encodeGroupConfig}'s output; undefined for anything else. */
export function decodeGroupConfig(text: string): GroupConfig | undefined {
  const m = /^ranges=(\d+),key=([a-z]+)$/.exec(text);
  if (!m) return undefined;
  try {
    const ranges = Number(m[1]);
    checkRangeCount(ranges);
    const key = m[2]!;
    checkShardKey(key);
    return { ranges, key };
  } catch {
    return undefined;
  }
}

/** "16 ranges hashed on uid": a configuration as error messages name it. */
export function describeGroupConfig(text: string): string {
  const c = decodeGroupConfig(text);
  return c ? `${c.ranges} ranges hashed on ${c.key}` : `an unreadable configuration "${text}"`;
}

/** Names of a group's Leases. The group name must fit a label value; member names are derived. */
export class GroupLeaseNames {
  /** The group's name (a label value and the config Lease's name). */
  readonly group: string;

  /** Throws a TypeError for a group name that cannot be a label value and a Lease name prefix. */
  constructor(group: string) {
    if (!/^[a-z0-9]([-a-z0-9]{0,48}[a-z0-9])?$/.test(group)) {
      throw new TypeError(
        `Invalid shard group name "${group}": lowercase letters, digits and "-", at most 50 characters, ` +
          "starting and ending with a letter or digit",
      );
    }
    this.group = group;
  }

  /** The config Lease: holds the configuration every member must share. */
  get config(): string {
    return this.group;
  }

  /** The member Lease of `identity` (characters a Lease name cannot hold become "-"). */
  member(identity: string): string {
    const safe = identity.toLowerCase().replace(/[^a-z0-9.-]/g, "-").replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, "");
    return `${this.group}-m-${safe.slice(0, 180) || "x"}`;
  }

  /** The claim Lease of range `index`. */
  range(index: number): string {
    return `${this.group}-r${index}`;
  }
}
