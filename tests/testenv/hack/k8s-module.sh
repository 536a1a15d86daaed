#!/usr/bin/env bash
# Prints the Go module directory (relative to tests/testenv) that pins the Kubernetes release chosen by
# KUBELOOP_K8S_VERSION (a minor version such as 1.34; unset = the newest, pinned in tests/testenv/go.mod).
set -euo pipefail
cd "$(dirname "$0")/.."
want="${KUBELOOP_K8S_VERSION:-}"
want="${want#v}"
newest="$(GOWORK=off go list -m -f '{{.Version}}' k8s.io/kubernetes | cut -d. -f1,2)"
if [ -z "$want" ] || [ "v$want" = "$newest" ]; then
  echo .
elif [[ "$want" =~ ^1\.[0-9]+$ ]] && [ -f "k8s-$want/go.mod" ]; then
  echo "k8s-$want"
else
  echo "testenv: KUBELOOP_K8S_VERSION=${KUBELOOP_K8S_VERSION} is not pinned here; choose one of:" \
    "${newest#v}" $(ls -d k8s-1.* 2>/dev/null | sed 's/^k8s-//') >&2
  exit 2
fi
