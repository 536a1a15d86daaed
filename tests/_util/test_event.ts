import type { Event } from "../../lib/resources/mod.ts";

/**
 * A minimal valid events.k8s.io/v1 Event. Events are the resource kube-apiserver keeps no watch
 * cache for, so watches on them go straight to etcd: the tests that need a real 410 Gone use them.
 */
export function testEvent(
  name: string,
  namespace: string,
  reportingController: string,
  note?: string,
): Event {
  return {
    apiVersion: "events.k8s.io/v1",
    kind: "Event",
    metadata: { name, namespace },
    // MicroTime: RFC 3339 with microseconds.
    eventTime: new Date().toISOString().replace("Z", "000Z"),
    reportingController,
    reportingInstance: "test",
    action: "Testing",
    reason: "Test",
    ...(note === undefined ? {} : { note }),
    type: "Normal",
    regarding: { apiVersion: "v1", kind: "ConfigMap", name: "anything", namespace },
  };
}
