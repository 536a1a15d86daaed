#!/usr/bin/env bash
# Regenerates go.mod for a Kubernetes release: one replace per staging module, read from
# that release's own go.mod, then the tool lines and a tidy. Run by hand when moving to a new release:
#   bash hack/pin-k8s.sh v1.37.2
set -euo pipefail
kver="${1:?usage: $0 v1.X.Y}"
sver="v0.${kver#v1.}"
cd "$(dirname "$0")/.."
export GOWORK=off GOTOOLCHAIN=local
gomod="$(go mod download -json "k8s.io/kubernetes@${kver}" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",*$/\1/p')"
test -s "$gomod"
for m in $(sed -n 's#^[[:space:]]*\(k8s\.io/[a-z0-9-]*\)[[:space:]]*=>[[:space:]]*\./staging/.*#\1#p' "$gomod"); do
  go mod edit "-replace=${m}=${m}@${sver}"
done
go get -tool "k8s.io/kubernetes/cmd/kube-apiserver@${kver}"
go get -tool "k8s.io/kubernetes/cmd/kube-controller-manager@${kver}"
go get -tool "k8s.io/kubernetes/cmd/kubectl@${kver}"
go mod tidy
