#!/usr/bin/env bash
# `deno task testenv`: builds (or reuses) the local control plane, starts it in the foreground and
# prints one line, KUBECONFIG=<path>, once it is ready. Ctrl-C (SIGINT) or SIGTERM stops every component
# (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, KWOK) and removes the temporary state
# directory. Flags go to testenv (e.g. -nodes=10, -workloads=false); KUBELOOP_K8S_VERSION picks the release.
set -euo pipefail
bin="${KUBELOOP_TESTENV_BIN:-$(bash "$(dirname "$0")/build.sh" | tail -n 1)}"
exec "$bin/testenv" -print=env -bin="$bin" "$@"
