import type { Project } from "../project.ts";

/**
 * The base images, pinned by digest: the ones kubeloop's own Dockerfile reviewed and pins (a test keeps
 * the two equal, so they are bumped together).
 */
export const BUILD_IMAGE =
  "denoland/deno:debian-2.9.6@sha256:2014dc167ece617ef7e7ba40631ac2234c59e75ce693e7cc2dc2602b3c87859d";
/** The runtime image: glibc and libgcc_s, no shell, non-root. */
export const RUNTIME_IMAGE =
  "gcr.io/distroless/cc-debian12:nonroot@sha256:9dac0a79194e45a7da0158a9c6da57b217585af0786db3845d1f0ec1a0dd182f";

/** Dockerfile: `deno task compile` in a build stage, the binary alone on distroless. */
export function dockerfile(p: Project): string {
  return `# syntax=docker/dockerfile:1
# ${p.name}: one \`deno compile\` binary on distroless, running as non-root.
# Build:  docker build -t ${p.name}:0.1.0 .
# The base images are pinned by digest, so a rebuild uses exactly the bytes that were reviewed (a tag can
# be re-pushed). To bump one, read the new digest on a networked machine, e.g.
#   docker buildx imagetools inspect gcr.io/distroless/cc-debian12:nonroot

FROM ${BUILD_IMAGE} AS build
WORKDIR /src
# Dependencies first, resolved against the committed lockfile, so this layer caches.
COPY deno.json deno.lock ./
RUN deno install --frozen
COPY main.ts ./
COPY src/ src/
# The permission flags baked into the binary are those of deno.json's "compile" task.
RUN deno task compile

FROM ${RUNTIME_IMAGE}
COPY --from=build /src/dist/${p.name} /usr/local/bin/${p.name}
# The Deno runtime needs HOME or DENO_DIR to name its cache directory; nothing is written there in normal
# operation. /tmp is an emptyDir in manifests/deployment.yaml, so this holds with a read-only root.
ENV DENO_DIR=/tmp/deno
# 65532 = nonroot in distroless.
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/${p.name}"]
`;
}
