#!/usr/bin/env bash
# Builds the local control plane from the Go modules pinned in go.mod and caches the binaries
# outside the repository, keyed by a hash of their inputs, so a warm start builds nothing:
#   <cache>/k8s-<hash of go.mod, go.sum, Go version, ldflags>/  kube-apiserver, kube-controller-manager,
#                                                                kube-scheduler[, kubectl]
#   <cache>/testenv-<hash of the testenv sources>/                testenv
#   <cache>/kwok-<hash of kwok/go.mod, go.sum, Go version>/       kwok, kwok-stages.yaml
#   <cache>/bin-<all three hashes>/                              links to all of them
# Prints that last directory as the only line on stdout; progress goes to stderr.
# KUBELOOP_K8S_VERSION picks the Kubernetes release (minor version): 1.37 (the default, pinned in this
# module's go.mod) or 1.34 (pinned in k8s-1.34/go.mod). Both cache side by side.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
export GOWORK=off GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS="-trimpath -buildvcs=false"

k8s_mod="$(bash hack/k8s-module.sh)"
kver="$(cd "$k8s_mod" && go list -m -f '{{.Version}}' k8s.io/kubernetes)"
minor="$(echo "$kver" | cut -d. -f2)"
ldflags="-s -w -X k8s.io/component-base/version.gitVersion=${kver} -X k8s.io/component-base/version.gitMajor=1 \
-X k8s.io/component-base/version.gitMinor=${minor} -X k8s.io/component-base/version.gitTreeState=clean \
-X k8s.io/component-base/version.buildDate=1970-01-01T00:00:00Z \
-X k8s.io/client-go/pkg/version.gitVersion=${kver} -X k8s.io/client-go/pkg/version.gitMajor=1 \
-X k8s.io/client-go/pkg/version.gitMinor=${minor}"
root="${KUBELOOP_TESTENV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kubeloop-testenv}"
k8s_cmds="kube-apiserver kube-controller-manager kube-scheduler"
k8s_key="$( { cat "$k8s_mod/go.mod" "$k8s_mod/go.sum"; go env GOVERSION; echo "$ldflags $k8s_cmds"; } | sha256sum | cut -c1-16)"
kwok_key="$( { cat kwok/go.mod kwok/go.sum; go env GOVERSION; } | sha256sum | cut -c1-16)"
env_key="$( { cat go.mod go.sum ./*.go; go env GOVERSION; } | sha256sum | cut -c1-16)"

kubectl_ok() {
  # usable when its client minor version is at least 30
  local m
  m="$("$1" version --client -o json 2>/dev/null | sed -n 's/.*"minor": *"\([0-9]*\).*/\1/p' | head -n1)"
  [ -n "$m" ] && [ "$m" -ge 30 ]
}

# build_into DIR CMD... : runs CMD with $tmp set, then publishes DIR atomically.
build_into() {
  local dir="$1"; shift
  [ -f "$dir/.complete" ] && return 0
  local tmp="$dir.tmp.$$"
  rm -rf "$tmp"; mkdir -p "$tmp"
  local start; start=$(date +%s)
  tmp="$tmp" "$@"
  touch "$tmp/.complete"
  rm -rf "$dir"; mv "$tmp" "$dir"
  echo "testenv: built $(basename "$dir") in $(( $(date +%s) - start ))s" >&2
}

build_k8s() {
  echo "testenv: building Kubernetes ${kver} (${k8s_cmds// /, }); the first build takes a while" >&2
  cd "$k8s_mod"
  go build -pgo=off -ldflags "$ldflags" -o "$tmp/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver >&2
  go build -pgo=off -ldflags "$ldflags" -o "$tmp/kube-controller-manager" k8s.io/kubernetes/cmd/kube-controller-manager >&2
  go build -pgo=off -ldflags "$ldflags" -o "$tmp/kube-scheduler" k8s.io/kubernetes/cmd/kube-scheduler >&2
  if ! command -v kubectl >/dev/null 2>&1 || ! kubectl_ok "$(command -v kubectl)"; then
    echo "testenv: no kubectl >= 1.30 on PATH; building kubectl ${kver}" >&2
    go build -pgo=off -ldflags "$ldflags" -o "$tmp/kubectl" k8s.io/kubernetes/cmd/kubectl >&2
  fi
  cd "$here"
}

# KWOK simulates the nodes and the kubelets: its own module, because it pins other k8s.io versions.
build_kwok() {
  cd kwok
  local ver dir
  ver="$(go list -m -f '{{.Version}}' sigs.k8s.io/kwok)"
  echo "testenv: building KWOK ${ver} (simulated nodes and pods)" >&2
  go build -ldflags "-s -w" -o "$tmp/kwok" sigs.k8s.io/kwok/cmd/kwok >&2
  # KWOK's own "fast" stages as the module ships them: nodes turn Ready, pods turn Running and Ready
  # (Job pods complete), deleted pods go away.
  dir="$(go list -m -f '{{.Dir}}' sigs.k8s.io/kwok)/kustomize/stage"
  for f in node/fast/node-initialize.yaml pod/fast/pod-ready.yaml pod/fast/pod-complete.yaml \
    pod/fast/pod-delete.yaml; do
    echo "---"
    cat "$dir/$f"
  done >"$tmp/kwok-stages.yaml"
  cd "$here"
}

build_testenv() {
  go build -ldflags "-s -w" -o "$tmp/testenv" . >&2
}

build_into "$root/testenv-$env_key" build_testenv
build_into "$root/k8s-$k8s_key" build_k8s
build_into "$root/kwok-$kwok_key" build_kwok

bin="$root/bin-$k8s_key-$env_key-$kwok_key"
mkdir -p "$bin"
for f in $k8s_cmds; do ln -sfn "$root/k8s-$k8s_key/$f" "$bin/$f"; done
for f in kwok kwok-stages.yaml; do ln -sfn "$root/kwok-$kwok_key/$f" "$bin/$f"; done
ln -sfn "$root/testenv-$env_key/testenv" "$bin/testenv"
if [ -x "$root/k8s-$k8s_key/kubectl" ]; then
  ln -sfn "$root/k8s-$k8s_key/kubectl" "$bin/kubectl"
else
  ln -sfn "$(command -v kubectl)" "$bin/kubectl"
fi
echo "$bin"
