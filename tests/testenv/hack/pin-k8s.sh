#!/usr/bin/env bash
# Regenerates a go.mod for a Kubernetes release: one replace per staging module, read from
# that release's own go.mod, then the tool lines and a tidy. Run by hand when moving to a new release:
#   bash hack/pin-k8s.sh v1.37.2              the testenv module itself (newest release)
#   bash hack/pin-k8s.sh v1.34.4 k8s-1.34     the module that builds the oldest supported release
set -euo pipefail
kver="${1:?usage: $0 v1.X.Y [module dir]}"
sver="v0.${kver#v1.}"
cd "$(dirname "$0")/.."
dir="${2:-.}"
mkdir -p "$dir"
cd "$dir"
export GOWORK=off GOTOOLCHAIN=local
[ -f go.mod ] || go mod init "kubeloop.invalid/testenv/k8s-${kver%.*}"
gomod="$(go mod download -json "k8s.io/kubernetes@${kver}" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",*$/\1/p')"
test -s "$gomod"
# Same language version and GODEBUG defaults as upstream's own build of that release.
go mod edit "-go=$(sed -n 's/^go //p' "$gomod")"
godebug="$(sed -n 's/^godebug //p' "$gomod")"
[ -z "$godebug" ] || go mod edit "-godebug=${godebug}"
for m in $(sed -n 's#^[[:space:]]*\(k8s\.io/[a-z0-9-]*\)[[:space:]]*=>[[:space:]]*\./staging/.*#\1#p' "$gomod"); do
  go mod edit "-replace=${m}=${m}@${sver}"
done
for cmd in kube-apiserver kube-controller-manager kube-scheduler kubectl; do
  go get -tool "k8s.io/kubernetes/cmd/${cmd}@${kver}"
done
go mod tidy
