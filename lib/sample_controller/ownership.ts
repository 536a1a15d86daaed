import type { KubeObject } from "../client/types.ts";
import { controllerOf } from "../controller/mod.ts";

/** True when `obj` is controlled by `owner`: upstream's `IsControlledBy`, a UID match on the controller ref. */
export function isControlledBy(obj: KubeObject, owner: KubeObject): boolean {
  const uid = owner.metadata.uid;
  return uid !== undefined && controllerOf(obj)?.uid === uid;
}
