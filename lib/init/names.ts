/**
 * The naming rules the generator checks its input against, and the names it derives: the API server
 * refuses a CRD whose group, version, kind or plural break them, so the generator refuses them first,
 * before writing anything.
 * @module
 */

/** A DNS-1123 subdomain: lowercase labels joined by dots, at most 253 characters. */
export function isDnsSubdomain(value: string): boolean {
  return value.length <= 253 &&
    /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(value);
}

/** A DNS-1123 label: lowercase letters, digits and dashes, starting and ending alphanumeric, at most 63. */
export function isDnsLabel(value: string): boolean {
  return value.length <= 63 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(value);
}

/** A Kubernetes API version name: v1, v2beta3, v1alpha1. */
export function isApiVersion(value: string): boolean {
  return /^v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$/.test(value);
}

/** UpperCamelCase starting with a letter, ASCII letters and digits only, as Kubernetes kinds are. */
export function isUpperCamel(value: string): boolean {
  return value.length <= 63 && /^[A-Z][A-Za-z0-9]*$/.test(value);
}

/**
 * The resource name Kubernetes conventions give a kind: lowercased, then "y" after a consonant becomes
 * "ies", a trailing s, x, z, ch or sh takes "es", anything else takes "s" (Policy → policies, Gateway →
 * gateways, Class → classes, Widget → widgets). Irregular plurals need `--plural`.
 */
export function pluralOf(kind: string): string {
  const lower = kind.toLowerCase();
  if (/[^aeiou]y$/.test(lower)) return `${lower.slice(0, -1)}ies`;
  if (/(s|x|z|ch|sh)$/.test(lower)) return `${lower}es`;
  return `${lower}s`;
}

/** UpperCamel to snake_case, for file names: WidgetSet → widget_set, DNSRecord → dns_record. */
export function snakeCase(kind: string): string {
  return kind
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2")
    .toLowerCase();
}

/** UpperCamel to lowerCamel, for variables: WidgetSet → widgetSet, DNSRecord → dnsRecord. */
export function lowerCamel(kind: string): string {
  const lead = /^[A-Z]+(?=[A-Z][a-z]|$)|^[A-Z]/.exec(kind)?.[0] ?? "";
  return lead.toLowerCase() + kind.slice(lead.length);
}
