#!/usr/bin/env bash
# Builds the OpenTelemetry Collector of the tracing tests (main.go here) from the Go modules pinned in
# go.mod and caches it beside the control plane's binaries, keyed by a hash of its inputs, so a warm run
# builds nothing:  <cache>/otelcol-<hash of go.mod, go.sum, main.go, Go version>/otelcol
# Prints the binary's path as the only line on stdout; progress goes to stderr (a line at least every
# KUBELOOP_PROGRESS_SECONDS, 20, while it builds). tests/run.sh runs it before the files that need it.
#
# A cold build compiles about 2.7 CPU-minutes of Go (measured 2026-12-03 on a 2-core machine shared with other
# builds: 6 min 50 s wall, 2 min 14 s user + 28 s sys) after ~30 s of module downloads; a rebuild after a
# change to main.go alone takes ~9 s.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here"
export GOWORK=off GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS="-trimpath -buildvcs=false"
root="${KUBELOOP_TESTENV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kubeloop-testenv}"
mkdir -p "$root" && root="$(cd "$root" && pwd)"
key="$( { cat go.mod go.sum ./*.go; go env GOVERSION; } | sha256sum | cut -c1-16)"
dir="$root/otelcol-$key"
if [ ! -f "$dir/.complete" ]; then
  echo "otelcol: building into $dir (cache root: $root; set KUBELOOP_TESTENV_CACHE to move it)" >&2
  tmp="$dir.tmp.$$"
  rm -rf "$tmp" && mkdir -p "$tmp"
  start=$(date +%s)
  log="$tmp/.build.log"
  ( trap 'kill "$nap" 2>/dev/null; exit 0' TERM
    while :; do
      sleep "${KUBELOOP_PROGRESS_SECONDS:-20}" & nap=$!
      wait "$nap"
      echo "otelcol: still building: $(( $(date +%s) - start ))s elapsed, latest: $(tail -n 1 "$log" 2>/dev/null)" >&2
    done ) & ticker=$!
  rc=0
  go build -v -ldflags "-s -w" -o "$tmp/otelcol" . 2>"$log" || rc=$?
  kill "$ticker" 2>/dev/null || true
  wait "$ticker" 2>/dev/null || true
  if [ "$rc" -ne 0 ]; then
    echo "otelcol: build failed (exit $rc); the end of its log:" >&2
    tail -n 40 "$log" >&2
    exit "$rc"
  fi
  rm -f "$log"
  touch "$tmp/.complete"
  rm -rf "$dir" && mv "$tmp" "$dir"
  echo "otelcol: built in $(( $(date +%s) - start ))s" >&2
fi
echo "$dir/otelcol"
