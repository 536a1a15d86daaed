# syntax=docker/dockerfile:1
# kubeloop sample-controller: a single `deno compile` binary on distroless.
# Build:  docker build -t kubeloop/sample-controller:0.1.0 .

# Base images. Both stages should be referenced by digest, `FROM <image>:<tag>@sha256:<digest>`, so a rebuild
# uses exactly the bytes that were reviewed (a tag can be re-pushed; distroless's `nonroot` moves with every
# Debian security update). The digests are not filled in yet: they must be read from the registry, which the
# machine this was written on cannot reach, and a digest copied from anywhere else is not a pin. To pin or bump
# (e.g. for a new Deno version or a distroless security rebuild), on a machine with registry access:
#   docker buildx imagetools inspect denoland/deno:debian-2.9.6          # the "Digest:" line (multi-arch index)
#   docker buildx imagetools inspect gcr.io/distroless/cc-debian12:nonroot
# (or `crane digest <image>:<tag>`), append `@sha256:...` to the tag below, rebuild, and run the image's
# `--version`. Keep the tag next to the digest: it documents what the digest is and the packaging test reads it.
# Distroless images are signed keyless; check a new digest before pinning it:
#   cosign verify gcr.io/distroless/cc-debian12:nonroot@sha256:<digest>
#     --certificate-oidc-issuer https://accounts.google.com
#     --certificate-identity keyless@distroless.iam.gserviceaccount.com

# Build stage: the official Deno image at the exact version the project pins in .tools/deno/package.json
# (2.9.6; tests/packaging/dockerfile_test.ts checks they agree).
FROM denoland/deno:debian-2.9.6 AS build
WORKDIR /src
# Dependencies first (only npm:yaml), resolved against the committed lockfile, so this layer caches.
COPY deno.json deno.lock ./
RUN deno install --frozen
COPY main.ts ./
COPY lib/ lib/
# The permission flags baked into the binary live in deno.json's "compile" task, the single source of truth
# (tests/packaging/dockerfile_test.ts checks they equal the "start" task's).
# --ignore-env=LOG_TOKENS,LOG_STREAM: npm:yaml, which parses kubeconfigs, reads those two debug variables as
# it parses. Without the flag Deno refuses the read (NotCapable; an interactive `deno run` would prompt
# instead), and allowing them would let the environment switch on yaml's console dumps; ignored, they read
# as unset.
RUN deno task compile && ./dist/kubeloop-sample-controller --version

# Runtime stage: glibc + libgcc_s only (all the binary needs), no shell, non-root.
FROM gcr.io/distroless/cc-debian12:nonroot
COPY --from=build /src/dist/kubeloop-sample-controller /usr/local/bin/kubeloop-sample-controller
# The Deno runtime needs HOME or DENO_DIR to resolve its cache directory; nothing is written there in normal
# operation. /tmp is an emptyDir in manifests/deployment.yaml, so this stays valid with a read-only root.
ENV DENO_DIR=/tmp/deno
# 65532 = nonroot in distroless.
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/kubeloop-sample-controller"]
