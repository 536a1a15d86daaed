/**
 * What gcr.io/distroless/cc-debian12 is made of, as the distroless project declares it (facts, recorded by
 * hand from its repository, GoogleContainerTools/distroless, commit cd080764af31, 2026-08-21):
 * - packages: `static/config.bzl` (static layer), `base/config.bzl` (base layer), `cc/config.bzl` (cc layer);
 * - versions: `private/repos/deb/bookworm.lock.json` (Debian snapshot 2026-08-18, amd64);
 * - derived files, users, env: `common/BUILD.bazel`, `static/static.bzl`, `common/variables.bzl`.
 * The rehearsal rebuilds this file set from the same Debian packages at the versions apt offers today and
 * reports each version next to the one listed here.
 */

/** One Debian package of the image. */
export interface DistrolessPackage {
  /** Debian package name. */
  readonly name: string;
  /** Which distroless image layer adds it. */
  readonly layer: "static" | "base" | "cc";
  /** The version distroless' bookworm lock file pins (amd64). */
  readonly lockedVersion: string;
  /** "whole": the package's data files; otherwise only the derived part distroless keeps. */
  readonly use: "whole" | "ca-bundle" | "c-utf8-locale";
}

/** The distroless commit the list was taken from. */
export const DISTROLESS_SOURCE = "GoogleContainerTools/distroless@cd080764af31 (2026-08-21)";

/** Every package of cc-debian12, in layer order. */
export const DISTROLESS_CC_DEBIAN12: readonly DistrolessPackage[] = [
  { name: "base-files", layer: "static", lockedVersion: "12.4+deb12u15", use: "whole" },
  { name: "netbase", layer: "static", lockedVersion: "6.4", use: "whole" },
  { name: "tzdata", layer: "static", lockedVersion: "2026b-0+deb12u1", use: "whole" },
  { name: "media-types", layer: "static", lockedVersion: "10.0.0", use: "whole" },
  // The static layer's /etc/ssl/certs/ca-certificates.crt: every certificate of the package concatenated in
  // sorted path order (update-ca-certificates cannot run in the image), plus the package's copyright file.
  { name: "ca-certificates", layer: "static", lockedVersion: "20250419~deb12u1", use: "ca-bundle" },
  { name: "libc6", layer: "base", lockedVersion: "2.36-9+deb12u14", use: "whole" },
  // Only the C.utf8 locale of libc-bin (its programs are left out).
  { name: "libc-bin", layer: "base", lockedVersion: "2.36-9+deb12u14", use: "c-utf8-locale" },
  { name: "libssl3", layer: "base", lockedVersion: "3.0.20-1~deb12u2", use: "whole" },
  { name: "libgomp1", layer: "cc", lockedVersion: "12.2.0-14+deb12u1", use: "whole" },
  { name: "libstdc++6", layer: "cc", lockedVersion: "12.2.0-14+deb12u1", use: "whole" },
  { name: "libgcc-s1", layer: "cc", lockedVersion: "12.2.0-14+deb12u1", use: "whole" },
  { name: "gcc-12-base", layer: "cc", lockedVersion: "12.2.0-14+deb12u1", use: "whole" },
];

/** The `nonroot` user of the `:nonroot` tags (uid = gid, with a passwd entry and a 0700 home). */
export const DISTROLESS_NONROOT = { uid: 65532, gid: 65532, name: "nonroot", home: "/home/nonroot" } as const;

/** Environment of the image config (static layer). */
export const DISTROLESS_ENV: Readonly<Record<string, string>> = {
  PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
  SSL_CERT_FILE: "/etc/ssl/certs/ca-certificates.crt",
};

/** /etc/passwd of the image: root, nobody and nonroot, all with a nologin shell. */
export const DISTROLESS_PASSWD = [
  "root:x:0:0:root:/root:/sbin/nologin",
  "nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin",
  "nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin",
];

/** /etc/group of the image. */
export const DISTROLESS_GROUP = [
  "root:x:0:",
  "nobody:x:65534:",
  "tty:x:5:",
  "staff:x:50:",
  "nonroot:x:65532:",
];

/** The image replaces Debian's /etc/os-release with its own. */
export const DISTROLESS_OS_RELEASE = [
  'PRETTY_NAME="Distroless"',
  'NAME="Debian GNU/Linux"',
  'ID="debian"',
  'VERSION_ID="12"',
  'VERSION="Debian GNU/Linux 12 (bookworm)"',
  'HOME_URL="https://github.com/GoogleContainerTools/distroless"',
  'SUPPORT_URL="https://github.com/GoogleContainerTools/distroless/blob/master/README.md"',
  'BUG_REPORT_URL="https://github.com/GoogleContainerTools/distroless/issues/new"',
];

/** Name-service lookups of the image's /etc/nsswitch.conf (files only, plus DNS for hosts). */
export const DISTROLESS_NSSWITCH = [
  "passwd: compat",
  "group: compat",
  "shadow: compat",
  "gshadow: files",
  "hosts: files dns",
  "networks: files",
  "protocols: db files",
  "services: db files",
  "ethers: db files",
  "rpc: db files",
  "netgroup: nis",
];
