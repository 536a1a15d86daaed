/**
 * Conversion webhooks with typed hub-and-spoke converters: each version other than the hub converts to and
 * from the hub, and any two versions convert through it.
 * @module
 */
import type { KubeObject } from "../resources/object.ts";
import type { Logger } from "../log/logger.ts";
import type { ConversionRequest, ConversionResponse } from "./conversion_review.ts";
import type { JsonValue } from "./json_patch.ts";
import { lostFields, restoreFields } from "./_preserve.ts";

/** How one version converts to and from the hub. Converters get copies: they may change their argument. */
export interface SpokeConverters<Hub extends KubeObject, S extends KubeObject> {
  /** This version → the hub. `apiVersion`, `kind` and `metadata` of the result are set by kubeloop. */
  toHub(object: S): Hub;
  /** The hub → this version. */
  fromHub(hub: Hub): S;
}

/** A version other than the hub, with its converters (see {@linkcode spoke}). */
export interface Spoke<Hub extends KubeObject> {
  /** The version, e.g. "v1beta1". */
  readonly version: string;
  /** See {@linkcode SpokeConverters.toHub}. */
  readonly toHub: (object: KubeObject) => Hub;
  /** See {@linkcode SpokeConverters.fromHub}. */
  readonly fromHub: (hub: Hub) => KubeObject;
}

/** Declares version `version` of a CRD whose objects have type `S`, converting to and from hub type `Hub`. */
export function spoke<Hub extends KubeObject, S extends KubeObject>(
  version: string,
  converters: SpokeConverters<Hub, S>,
): Spoke<Hub> {
  return {
    version,
    toHub: (object) => converters.toHub(object as S),
    fromHub: (hub) => converters.fromHub(hub),
  };
}

/** Options of {@linkcode conversionWebhook}. */
export interface ConversionWebhookOptions<Hub extends KubeObject> {
  /** The CRD's name, `<plural>.<group>`, e.g. "foos.samplecontroller.k8s.io". */
  crd: string;
  /** The hub version (usually the storage version), e.g. "v1alpha1". */
  hub: string;
  /** Every other served version. */
  spokes: readonly Spoke<Hub>[];
  /**
   * Keep the fields a conversion drops (members of the source the round trip back does not restore) in
   * the annotation `<group>/preserved-<source version>` of the converted object, and put them back when
   * it is converted to that version again, so a newer version's fields survive storage in an older one.
   * @default {true}
   */
  preserveFields?: boolean;
  /**
   * The URL path it is served at.
   * @default {"/convert/<crd>"}
   */
  path?: string;
}

/** A declared conversion webhook. */
export interface ConversionWebhook {
  /** The CRD's name. */
  readonly crd: string;
  /** The CRD's API group. */
  readonly group: string;
  /** The hub version. */
  readonly hub: string;
  /** Every version it converts between, the hub first. */
  readonly versions: readonly string[];
  /** The URL path it is served at. */
  readonly path: string;
  /**
   * Converts one object to `apiVersion` (`<group>/<version>`). Throws a TypeError for a group or version
   * it does not know, and whatever a converter throws.
   */
  convert(object: KubeObject, apiVersion: string): KubeObject;
  /** Answers a ConversionRequest: all objects converted, or a Failure naming the first that failed. */
  review(request: ConversionRequest, options: { logger: Logger }): ConversionResponse;
}

/** Declares a conversion webhook; throws a TypeError for a malformed CRD name or duplicate versions. */
export function conversionWebhook<Hub extends KubeObject>(
  options: ConversionWebhookOptions<Hub>,
): ConversionWebhook {
  const { crd, hub } = options;
  const dot = crd.indexOf(".");
  if (dot <= 0 || !/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(crd)) {
    throw new TypeError(`Invalid CRD name "${crd}": expected "<plural>.<group>", e.g. "foos.example.com"`);
  }
  const group = crd.slice(dot + 1);
  const spokes = new Map<string, Spoke<Hub>>();
  for (const s of options.spokes) {
    if (s.version === hub || spokes.has(s.version)) {
      throw new TypeError(`Conversion webhook for "${crd}": version "${s.version}" is declared twice`);
    }
    spokes.set(s.version, s);
  }
  const versions = [hub, ...spokes.keys()];
  const preserve = options.preserveFields ?? true;
  const keyOf = (version: string) => `${group}/preserved-${version}`;

  const versionOf = (apiVersion: unknown, what: string): string => {
    const text = typeof apiVersion === "string" ? apiVersion : "";
    const version = text.startsWith(`${group}/`) ? text.slice(group.length + 1) : undefined;
    if (version === undefined || !versions.includes(version)) {
      throw new TypeError(
        `Cannot convert ${what} "${text.slice(0, 100)}": this webhook converts ${crd} versions ${
          versions.join(", ")
        }`,
      );
    }
    return version;
  };

  /** Converts without preservation, through the hub. */
  const pure = (object: KubeObject, from: string, to: string): KubeObject => {
    const toHub = from === hub
      ? structuredClone(object) as Hub
      : spokes.get(from)!.toHub(structuredClone(object));
    const converted = to === hub ? toHub : spokes.get(to)!.fromHub(structuredClone(toHub));
    return envelope(object, converted, `${group}/${to}`);
  };

  const convert = (object: KubeObject, apiVersion: string): KubeObject => {
    const to = versionOf(apiVersion, "to");
    const from = versionOf(object.apiVersion, "from");
    if (from === to) return object;
    const out = pure(object, from, to);
    if (!preserve) return out;
    const annotations = { ...out.metadata.annotations };
    const kept = parsePreserved(annotations[keyOf(to)]);
    delete annotations[keyOf(to)];
    delete annotations[keyOf(from)];
    out.metadata = { ...out.metadata, annotations };
    if (kept) restoreFields(out as unknown as Record<string, JsonValue>, kept);
    const back = pure(out, to, from);
    const lost = lostFields(
      object as unknown as Record<string, JsonValue>,
      JSON.parse(JSON.stringify(back)) as Record<string, JsonValue>,
    );
    if (Object.keys(lost).length > 0) annotations[keyOf(from)] = JSON.stringify(lost);
    if (Object.keys(annotations).length === 0) {
      const { annotations: _, ...rest } = out.metadata;
      out.metadata = rest;
    }
    return out;
  };

  return {
    crd,
    group,
    hub,
    versions,
    path: options.path ?? `/convert/${crd}`,
    convert,
    review(request, { logger }) {
      const log = logger.child({ crd, uid: request.uid, desiredAPIVersion: request.desiredAPIVersion });
      const convertedObjects: KubeObject[] = [];
      for (const object of request.objects) {
        try {
          convertedObjects.push(convert(object, request.desiredAPIVersion));
        } catch (error) {
          const name = [object.metadata?.namespace, object.metadata?.name].filter(Boolean).join("/");
          log.error("Conversion failed", { error, object: name });
          const why = error instanceof Error ? error.message : String(error);
          return {
            uid: request.uid,
            convertedObjects: [],
            result: { status: "Failure", message: `converting ${name || "an object"} failed: ${why}` },
          };
        }
      }
      return { uid: request.uid, convertedObjects, result: { status: "Success" } };
    },
  };
}

/**
 * The converted object with `apiVersion`, the source's kind and metadata (labels and annotations as the
 * converter left them, when it returned metadata: the API server allows only those to change).
 */
function envelope(source: KubeObject, converted: KubeObject, apiVersion: string): KubeObject {
  const { apiVersion: _v, kind: _k, metadata, ...rest } = converted;
  const meta = { ...structuredClone(source.metadata) };
  for (const field of ["labels", "annotations"] as const) {
    if (metadata === undefined) break;
    if (metadata[field] === undefined) delete meta[field];
    else meta[field] = structuredClone(metadata[field]);
  }
  return { apiVersion, ...(source.kind === undefined ? {} : { kind: source.kind }), metadata: meta, ...rest };
}

function parsePreserved(text: string | undefined): Record<string, JsonValue> | undefined {
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? value as Record<string, JsonValue>
      : undefined;
  } catch {
    // Not ours, or edited by hand: nothing to put back.
    return undefined;
  }
}
