#!/usr/bin/env bash
# Side-by-side "informer cold sync" bench: kubeloop, client-go, @kubernetes/client-node and kube-rs
# against the same local kube-apiserver, in one run. See bench/peers/README.md.
#
#   bash bench/peers/run.sh                 # N=10000 RUNS=5 WARMUP=1
#   N=2000 RUNS=3 PEERS="kubeloop client-go" bash bench/peers/run.sh
#
# Builds go/npm/cargo artefacts under $KUBELOOP_BENCH_CACHE (default ~/.cache/kubeloop-bench), never in
# the repository. Progress goes to stderr, the Markdown table to stdout.
set -euo pipefail

N="${N:-10000}"
RUNS="${RUNS:-5}"
WARMUP="${WARMUP:-1}"
PEERS="${PEERS:-kubeloop client-go client-node kube-rs}"
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cache="${KUBELOOP_BENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kubeloop-bench}"
deno="${DENO:-$repo/.tools/deno/node_modules/.bin/deno}"
[ -x "$deno" ] || deno="$(command -v deno)"
timefmt=/usr/bin/time
[ -x "$timefmt" ] || { echo "run.sh: needs GNU time at /usr/bin/time (apt-get install time)" >&2; exit 1; }
log() { echo "bench: $*" >&2; }
mkdir -p "$cache"
work="$(mktemp -d)"

# ---- control plane, stopped on exit -------------------------------------------------------------
testenv_pid=""
cleanup() {
  if [ -n "$testenv_pid" ]; then
    exec {tin}>&- 2>/dev/null || true # closing testenv's stdin stops it (-exit-on-stdin-eof)
    for _ in $(seq 100); do kill -0 "$testenv_pid" 2>/dev/null || break; sleep 0.1; done
    kill "$testenv_pid" 2>/dev/null || true
    wait "$testenv_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- build --------------------------------------------------------------------------------------
has() { case " $PEERS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
drop() { PEERS="$(echo " $PEERS " | sed "s/ $1 / /; s/^ *//; s/ *$//")"; }

if has kubeloop; then
  log "deno: caching kubeloop_informer.ts"
  "$deno" cache --quiet "$here/kubeloop_informer.ts"
fi
if has client-go; then
  log "go: building client-go-informer"
  (cd "$here/client_go" && GOWORK=off GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-mod=readonly \
    go build -trimpath -o "$cache/client-go-informer" .)
fi
if has client-node; then
  dir="$cache/client-node"
  mkdir -p "$dir"
  cp "$here/client_node/package.json" "$here/client_node/package-lock.json" "$here/client_node/informer.mjs" "$dir/"
  key="$(cat "$dir/package-lock.json" | sha256sum | cut -c1-16)"
  if [ "$(cat "$dir/.installed" 2>/dev/null)" != "$key" ]; then
    log "npm: installing @kubernetes/client-node into $dir"
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >&2)
    echo "$key" >"$dir/.installed"
  fi
fi
if has kube-rs; then
  if ! command -v cargo >/dev/null; then
    log "kube-rs: no cargo; skipped"
    drop kube-rs
  else
    log "cargo: building kube-rs-informer (release; the first build takes several minutes)"
    if ! CARGO_TARGET_DIR="$cache/kube-rs-target" cargo build --release --locked --quiet \
      --manifest-path "$here/kube_rs/Cargo.toml" >&2; then
      log "kube-rs: build failed; skipped"
      drop kube-rs
    fi
  fi
fi

log "testenv: building or reusing the control plane"
bin="$(bash "$repo/tests/testenv/build.sh" | tail -n 1)"
mkfifo "$work/stdin"
"$bin/testenv" -bin="$bin" -print=json -exit-on-stdin-eof -controller-manager=false -log-file=/dev/null \
  <"$work/stdin" >"$work/ready" 2>"$work/testenv.err" &
testenv_pid=$!
exec {tin}>"$work/stdin" # held open until cleanup; EOF on it stops the control plane
for _ in $(seq 1200); do
  [ -s "$work/ready" ] && break
  kill -0 "$testenv_pid" 2>/dev/null || break
  sleep 0.1
done
ready="$(head -n 1 "$work/ready")"
case "$ready" in "{"*) ;; *) tail -n 30 "$work/testenv.err" >&2; log "testenv did not start"; exit 1 ;; esac
kubeconfig="$(echo "$ready" | sed -n 's/.*"kubeconfig": *"\([^"]*\)".*/\1/p')"
[ -n "$kubeconfig" ] || { log "unexpected ready line: $ready"; exit 1; }
export KUBECONFIG="$kubeconfig"
kubectl="$bin/kubectl"
log "control plane up: $(echo "$ready" | sed -n 's/.*"server": *"\([^"]*\)".*/\1/p')"

# ---- fixture: N ConfigMaps in one namespace -----------------------------------------------------
ns="bench-cold-sync"
"$kubectl" create namespace "$ns" >/dev/null
started=$(date +%s)
batch=1000
pids=()
for ((from = 0; from < N; from += batch)); do
  to=$((from + batch < N ? from + batch : N))
  "$deno" run --quiet "$here/configmaps.ts" "$ns" "$from" "$to" >"$work/list-$from.json"
  "$kubectl" create -f "$work/list-$from.json" -o name >/dev/null &
  pids+=($!)
  # at most 4 kubectl processes at once
  if [ "${#pids[@]}" -ge 4 ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
done
for p in "${pids[@]}"; do wait "$p"; done
count="$("$kubectl" get configmaps -n "$ns" -o name | wc -l)"
log "created $count ConfigMaps in $(($(date +%s) - started)) s"
[ "$count" -eq "$N" ] || { log "expected $N ConfigMaps, found $count"; exit 1; }

# ---- measurement --------------------------------------------------------------------------------
command_of() {
  case "$1" in
    # The same V8 flag as the shipped controller (deno.json "start"/"compile"): a capped young generation.
    kubeloop) echo "$deno run --quiet --v8-flags=--max-semi-space-size=2 --allow-net=127.0.0.1 --allow-read \
--allow-env=KUBECONFIG,HOME,KUBERNETES_SERVICE_HOST,KUBERNETES_SERVICE_PORT,KUBELOOP_BENCH_T0_MS \
--ignore-env=LOG_TOKENS,LOG_STREAM $here/kubeloop_informer.ts $ns $N" ;;
    client-go) echo "$cache/client-go-informer -kubeconfig=$kubeconfig -namespace=$ns -expect=$N" ;;
    client-node) echo "node $cache/client-node/informer.mjs $ns $N" ;;
    kube-rs) echo "$cache/kube-rs-target/release/kube-rs-informer $ns $N" ;;
  esac
}

# One run: appends "<peer> <round> <synced ms> <wall s> <rss KB>" to $work/results.
measure() {
  local peer="$1" round="$2" out synced
  # shellcheck disable=SC2046
  if ! KUBELOOP_BENCH_T0_MS="$(date +%s%3N)" /usr/bin/time -o "$work/time" -f "%e %M" $(command_of "$peer") >"$work/out" 2>"$work/err"; then
    log "$peer failed:"; tail -n 20 "$work/err" >&2; exit 1
  fi
  out="$(grep '^synced ' "$work/out" | tail -n 1)"
  [ "$(echo "$out" | cut -d' ' -f2)" = "$N" ] || { log "$peer printed '$out'"; exit 1; }
  synced="$(echo "$out" | cut -d' ' -f3)"
  log "$round $peer: synced ${synced} ms, wall/rss $(tail -n 1 "$work/time")"
  [ "$round" = "warm-up" ] || echo "$peer ${round#run } $synced $(tail -n 1 "$work/time")" >>"$work/results"
}

: >"$work/results"
for ((r = 0; r < WARMUP; r++)); do for p in $PEERS; do measure "$p" warm-up; done; done
for ((r = 1; r <= RUNS; r++)); do for p in $PEERS; do measure "$p" "run $r/$RUNS"; done; done

# ---- table --------------------------------------------------------------------------------------
echo
echo "Informer cold sync of $N ConfigMaps (one namespace), median of $RUNS interleaved runs after $WARMUP warm-up"
echo
awk -v order="$PEERS" '
  function median(list,    a, n, i, j, t) {
    n = split(list, a, " ")
    for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > t + 0; j--) a[j + 1] = a[j]; a[j + 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  { split($2, rr, "/"); r = rr[1]; rounds[r] = 1
    s[$1] = s[$1] " " $3; w[$1] = w[$1] " " $4; m[$1] = m[$1] " " $5
    S[$1, r] = $3; W[$1, r] = $4; M[$1, r] = $5 }
  END {
    n = split(order, peers, " ")
    base = peers[1]
    for (i = 1; i <= n; i++) {
      p = peers[i]; ms[p] = median(s[p]); ws[p] = median(w[p]); rs[p] = median(m[p]) / 1024
      rsyn = ""; rwall = ""
      for (r in rounds) { rsyn = rsyn " " S[p, r] / S[base, r]; rwall = rwall " " W[p, r] / W[base, r] }
      qs[p] = median(rsyn); qw[p] = median(rwall)
    }
    printf "| program | time-to-synced (ms) | wall (s) | peak RSS (MB) | synced vs %s | wall vs %s | RSS vs %s |\n", base, base, base
    print "|---|---:|---:|---:|---:|---:|---:|"
    for (i = 1; i <= n; i++) {
      p = peers[i]
      printf "| %s | %d | %.2f | %.0f | %.2fx | %.2fx | %.2fx |\n", p, ms[p], ws[p], rs[p], qs[p], qw[p], rs[p] / rs[base]
    }
    print ""
    print "Times and RSS are medians over runs; the time ratios are medians of per-round ratios (each round runs"
    print "every program back to back, so a ratio compares runs made under the same background load)."
  }' "$work/results"
echo
echo "Raw runs (program, round, synced ms, wall s, peak RSS KB):"
echo
sed 's/^/    /' "$work/results"
