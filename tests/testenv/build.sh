#!/usr/bin/env bash
# Builds the local control plane from the Go modules pinned in go.mod and caches the binaries
# outside the repository, keyed by a hash of their inputs, so a warm start builds nothing:
#   <cache>/k8s-<hash of go.mod, go.sum, Go version, ldflags>/  kube-apiserver, kube-controller-manager,
#                                                                kube-scheduler[, kubectl]
#   <cache>/testenv-<hash of the testenv sources>/                testenv
#   <cache>/kwok-<hash of kwok/go.mod, go.sum, Go version>/       kwok, kwok-stages.yaml
#   <cache>/metrics-check-<hash of metrics_check/>/              metrics-check (see metrics_check/main.go)
#   <cache>/bin-<k8s, testenv and kwok hashes>/                  links to all of them
# Prints that last directory as the only line on stdout; progress goes to stderr: what is built,
# where the cache lives, and a line at least every 30 s while it builds (KUBELOOP_PROGRESS_SECONDS: 20).
#   bash build.sh                  everything
#   bash build.sh metrics-check    only the metrics checker; prints the path of the binary
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
mkdir -p "$root" && root="$(cd "$root" && pwd)"
k8s_cmds="kube-apiserver kube-controller-manager kube-scheduler"
k8s_key="$( { cat "$k8s_mod/go.mod" "$k8s_mod/go.sum"; go env GOVERSION; echo "$ldflags $k8s_cmds"; } | sha256sum | cut -c1-16)"
kwok_key="$( { cat kwok/go.mod kwok/go.sum; go env GOVERSION; } | sha256sum | cut -c1-16)"
env_key="$( { cat go.mod go.sum ./*.go; go env GOVERSION; } | sha256sum | cut -c1-16)"
metrics_key="$( { cat metrics_check/go.mod metrics_check/go.sum metrics_check/*.go; go env GOVERSION; } \
  | sha256sum | cut -c1-16)"

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
  echo "testenv: building into $dir (cache root: $root; set KUBELOOP_TESTENV_CACHE to move it)" >&2
  local tmp="$dir.tmp.$$"
  rm -rf "$tmp"; mkdir -p "$tmp"
  local start; start=$(date +%s)
  tmp="$tmp" "$@"
  touch "$tmp/.complete"
  rm -rf "$dir"; mv "$tmp" "$dir"
  echo "testenv: built $(basename "$dir") in $(( $(date +%s) - start ))s" >&2
}

# progress LABEL LOG START: every KUBELOOP_PROGRESS_SECONDS (20) prints the elapsed time and the
# latest line of `go build -v` (the package being compiled, or a module being downloaded).
progress() {
  local label="$1" log="$2" start="$3" nap
  trap 'kill "$nap" 2>/dev/null; exit 0' TERM
  while :; do
    sleep "${KUBELOOP_PROGRESS_SECONDS:-20}" & nap=$!
    wait "$nap"
    echo "testenv: still building $label: $(( $(date +%s) - start ))s elapsed, $(grep -vc '^go: ' "$log" \
      2>/dev/null || true) packages compiled, latest: $(tail -n 1 "$log" 2>/dev/null)" >&2
  done
}

# go_build LABEL ARGS... : `go build -v ARGS` with progress lines; on failure prints the end of its log.
go_build() {
  local label="$1"; shift
  local log="$tmp/.$label.log" start rc=0 ticker
  start=$(date +%s)
  echo "testenv: building $label (go build -v; progress every ${KUBELOOP_PROGRESS_SECONDS:-20} s)" >&2
  progress "$label" "$log" "$start" & ticker=$!
  go build -v "$@" 2>"$log" || rc=$?
  kill "$ticker" 2>/dev/null || true
  wait "$ticker" 2>/dev/null || true
  if [ "$rc" -ne 0 ]; then
    echo "testenv: building $label failed (exit $rc); the end of its log ($log):" >&2
    tail -n 40 "$log" >&2
    return "$rc"
  fi
  rm -f "$log"
  echo "testenv: built $label in $(( $(date +%s) - start ))s" >&2
}

build_k8s() {
  echo "testenv: building Kubernetes ${kver} (${k8s_cmds// /, }); the first build takes a while" >&2
  cd "$k8s_mod"
  go_build kube-apiserver -pgo=off -ldflags "$ldflags" -o "$tmp/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver
  go_build kube-controller-manager -pgo=off -ldflags "$ldflags" -o "$tmp/kube-controller-manager" \
    k8s.io/kubernetes/cmd/kube-controller-manager
  go_build kube-scheduler -pgo=off -ldflags "$ldflags" -o "$tmp/kube-scheduler" k8s.io/kubernetes/cmd/kube-scheduler
  if ! command -v kubectl >/dev/null 2>&1 || ! kubectl_ok "$(command -v kubectl)"; then
    echo "testenv: no kubectl >= 1.30 on PATH; building kubectl ${kver}" >&2
    go_build kubectl -pgo=off -ldflags "$ldflags" -o "$tmp/kubectl" k8s.io/kubernetes/cmd/kubectl
  fi
  cd "$here"
}

# KWOK simulates the nodes and the kubelets: its own module, because it pins other k8s.io versions.
build_kwok() {
  cd kwok
  local ver dir
  ver="$(go list -m -f '{{.Version}}' sigs.k8s.io/kwok)"
  echo "testenv: building KWOK ${ver} (simulated nodes and pods)" >&2
  go_build kwok -ldflags "-s -w" -o "$tmp/kwok" sigs.k8s.io/kwok/cmd/kwok
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
  go_build testenv -ldflags "-s -w" -o "$tmp/testenv" .
}

# The metrics checker is its own small module (metrics_check/go.mod, pinned to the Prometheus module
# versions the Kubernetes build list above already uses), so changing it never changes the k8s key.
build_metrics_check() {
  (cd metrics_check && go_build metrics-check -ldflags "-s -w" -o "$tmp/metrics-check" .)
}

build_into "$root/metrics-check-$metrics_key" build_metrics_check
if [ "${1:-}" = "metrics-check" ]; then
  echo "$root/metrics-check-$metrics_key/metrics-check"
  exit 0
fi
build_into "$root/testenv-$env_key" build_testenv
build_into "$root/k8s-$k8s_key" build_k8s
build_into "$root/kwok-$kwok_key" build_kwok

bin="$root/bin-$k8s_key-$env_key-$kwok_key"
mkdir -p "$bin"
for f in $k8s_cmds; do ln -sfn "$root/k8s-$k8s_key/$f" "$bin/$f"; done
for f in kwok kwok-stages.yaml; do ln -sfn "$root/kwok-$kwok_key/$f" "$bin/$f"; done
ln -sfn "$root/testenv-$env_key/testenv" "$bin/testenv"
ln -sfn "$root/metrics-check-$metrics_key/metrics-check" "$bin/metrics-check"
if [ -x "$root/k8s-$k8s_key/kubectl" ]; then
  ln -sfn "$root/k8s-$k8s_key/kubectl" "$bin/kubectl"
else
  ln -sfn "$(command -v kubectl)" "$bin/kubectl"
fi
echo "$bin"
