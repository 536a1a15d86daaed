#!/usr/bin/env bash
# `deno task test`: formatting, lint and type check (gates), then every test file in a `deno test`
# process of its own, with a timeout, so a hang or a crash is reported with the file's name. Unit
# tests first; then integration and end-to-end tests against ONE real kube-apiserver + etcd
# (+ kube-controller-manager), built from Go modules and shared by all files (tests/_util/testenv.ts
# attaches to it). Before them, the @example code blocks of lib/ run as tests (`deno test --doc`) against
# the same control plane: its admin kubeconfig is their $KUBECONFIG, so `await loadConfig()` reaches it;
# a gate type-checks them (`deno check --doc-only lib/`) in every mode. Ends with one plain line,
# "N passed, N failed, N skipped", where
#   passed  = leaf test cases (a test without steps, or a step without steps) that ran and passed;
#   failed  = failed leaf cases + each file that crashed or timed out + each failed gate;
#   skipped = ignored tests and steps (and `ignore` doc examples), never counted as passed.
# Usage:
#   bash tests/run.sh                   everything
#   bash tests/run.sh --unit            gates and unit tests; no control plane, doc examples only type-checked
#   bash tests/run.sh [--no-gates] [--timeout=SECONDS] [--doc[=DIR]] FILE...
#                                       only these test files; with --doc also the doc examples of DIR's
#                                       .ts files (default lib), with a control plane
#   bash tests/run.sh --coverage        `deno task coverage`: the tests (no gates) with coverage of lib/,
#                                       then per-folder line and branch coverage; a folder of lib/ below
#                                       KUBELOOP_COVERAGE_MIN % of lines (default 90) fails like a gate
# Each file may run KUBELOOP_TEST_TIMEOUT seconds (default 600), then it is stopped and counted as failed.
# KUBELOOP_TESTENV_BIN, when set, names the control plane binaries instead of tests/testenv/build.sh.
set -uo pipefail
cd "$(dirname "$0")/.."
deno="${DENO:-}"
if [ -z "$deno" ]; then
  if [ -x .tools/deno/node_modules/.bin/deno ]; then deno=.tools/deno/node_modules/.bin/deno; else deno=deno; fi
fi

unit_only=false
gates=true
coverage=false
doc_dir=""
timeout_s="${KUBELOOP_TEST_TIMEOUT:-600}"
files=()
for arg in "$@"; do
  case "$arg" in
    --unit) unit_only=true ;;
    --no-gates) gates=false ;;
    --coverage) coverage=true; gates=false ;;
    --timeout=*) timeout_s="${arg#--timeout=}" ;;
    --doc) doc_dir=lib ;;
    --doc=*) doc_dir="${arg#--doc=}" ;;
    -*) echo "tests/run.sh: unknown option $arg" >&2; exit 2 ;;
    *) files+=("$arg") ;;
  esac
done
if [ "${#files[@]}" -eq 0 ] && [ -z "$doc_dir" ]; then
  $unit_only || doc_dir=lib
  while IFS= read -r f; do
    case "$f" in
      tests/testenv/*) ;;
      tests/integration/*|tests/e2e/*|tests/reliability/*) $unit_only || files+=("$f") ;;
      *) files+=("$f") ;;
    esac
  done < <(find tests examples -name '*_test.ts' | LC_ALL=C sort | awk '/^tests\/(integration|e2e|reliability)\//{late[++n]=$0; next} {print} END{for(i=1;i<=n;i++) print late[i]}')
fi

work="$(mktemp -d)"
# Every log the tests capture, and every credential they create, go here for the final scan
# (tests/_util/test_logs.ts); kept when the scan fails.
own_logs=false
if ! $unit_only && [ -z "${KUBELOOP_TEST_LOGS:-}" ]; then
  KUBELOOP_TEST_LOGS="$(mktemp -d -t kubeloop-test-logs.XXXXXX)"; export KUBELOOP_TEST_LOGS; own_logs=true
fi
if $coverage; then
  # Every deno process of the run (test files, and the controllers they start) writes its profile here.
  rm -rf coverage/raw && mkdir -p coverage/raw
  export DENO_COVERAGE_DIR="$PWD/coverage/raw"
fi
passed=0
failed=0
skipped=0
failures=()
fail() { # fail WHAT: one failure that is not a test case (a gate, a crashed or hung file, the build)
  echo "FAILED: $1"
  failures+=("$1")
  failed=$((failed + 1))
}

gate() { # gate NAME CMD... : a check that counts as one test
  local name="$1"; shift
  echo "== $name"
  if "$@"; then passed=$((passed + 1)); else fail "$name"; fi
}

# The control plane: testenv reads its stdin from a FIFO that only this script holds open (fd 9, closed
# in every child), so it also stops when this script is killed outright.
plane_pid=""
stop_control_plane() {
  [ -n "$plane_pid" ] || return 0
  exec 9>&-
  kill -TERM "$plane_pid" 2>/dev/null
  wait "$plane_pid" 2>/dev/null
  plane_pid=""
}
start_control_plane() {
  local bin="${KUBELOOP_TESTENV_BIN:-}"
  if [ -z "$bin" ]; then
    echo "== building the local control plane (cached after the first build)"
    if ! bin="$(bash tests/testenv/build.sh | tail -n 1)" || [ -z "$bin" ]; then
      fail "building the control plane (tests/testenv/build.sh)"
      return 1
    fi
  fi
  export KUBELOOP_TESTENV_BIN="$bin"
  echo "== starting the control plane (shared by all integration and end-to-end tests)"
  mkfifo "$work/testenv.stdin"
  # With log collection on, the state directory (component logs, keys) stays for the credential scan.
  local state=() log="$work/testenv.log"
  if [ -n "${KUBELOOP_TEST_LOGS:-}" ]; then
    mkdir -p "$KUBELOOP_TEST_LOGS/logs"
    state=(-dir="$KUBELOOP_TEST_LOGS/logs/testenv-shared")
    log="$KUBELOOP_TEST_LOGS/logs/testenv-shared.log"
  fi
  "$bin/testenv" -print=json -exit-on-stdin-eof -bin="$bin" "${state[@]}" -log-file="$log" \
    <"$work/testenv.stdin" >"$work/testenv.json" 2>>"$log" &
  plane_pid=$!
  exec 9>"$work/testenv.stdin"
  local waited=0
  until grep -q '^{.*}$' "$work/testenv.json" 2>/dev/null; do
    if ! kill -0 "$plane_pid" 2>/dev/null || [ "$waited" -ge 600 ]; then
      tail -n 40 "$log"
      stop_control_plane
      fail "starting the control plane (its log is above)"
      return 1
    fi
    sleep 0.2
    waited=$((waited + 1))
  done
  export KUBELOOP_TESTENV_ATTACH="$work/testenv.json"
  if [ -n "${KUBELOOP_TEST_LOGS:-}" ]; then
    "$deno" eval "import { registerControlPlaneKeys } from 'file://$PWD/tests/_util/test_logs.ts';
      await registerControlPlaneKeys('$KUBELOOP_TEST_LOGS/logs/testenv-shared');" ||
      fail "registering the control plane's keys for the credential scan"
  fi
}

# Counts one JUnit report: prints "passed failed skipped" over leaf cases. A case is a parent when
# another case's name starts with its name + " > " (Deno names steps "test > step"). A parent's own
# failure counts only when it is not just "N test step(s) failed" (its failed steps count already).
count_report() {
  awk '
    function decode(s) {
      gsub(/&lt;/, "<", s); gsub(/&gt;/, ">", s); gsub(/&quot;/, "\"", s); gsub(/&apos;/, "\047", s)
      gsub(/&amp;/, "\\&", s); return s
    }
    /<testcase / {
      n++; cur = n; state[n] = "pass"; own[n] = 0
      line = $0; sub(/.*<testcase name="/, "", line); sub(/" classname=".*/, "", line)
      name[n] = decode(line)
    }
    /<failure|<error/ && cur {
      state[cur] = "fail"
      msg = $0; sub(/.*message="/, "", msg); sub(/".*/, "", msg)
      own[cur] = (msg !~ /^[0-9]+ test steps? failed/)
    }
    /<skipped/ && cur { state[cur] = "skip" }
    /<\/testcase>|<testcase [^>]*\/>/ { cur = 0 }
    END {
      p = 0; f = 0; s = 0
      for (i = 1; i <= n; i++) {
        parent = 0
        for (j = 1; j <= n; j++) if (index(name[j], name[i] " > ") == 1) { parent = 1; break }
        if (parent) { if (state[i] == "fail" && own[i]) f++; continue }
        if (state[i] == "pass") p++; else if (state[i] == "fail") f++; else s++
      }
      print p, f, s
    }' "$1"
}

# Runs one test file in its own process group, so a timeout (or Ctrl-C) stops everything it started.
# `run_file NAME ARGS...` runs `deno test ARGS...` instead and reports it as NAME.
child=""
trap 'if [ -n "$child" ]; then kill -TERM -- "-$child" 2>/dev/null; fi; stop_control_plane; rm -rf "$work"; exit 130' INT TERM
run_file() {
  local file="$1" report="$work/report.xml" start rc p f s
  shift
  local args=(--no-check "$file")
  [ "$#" -eq 0 ] || args=("$@")
  rm -f "$report"
  echo "== $file"
  start=$(date +%s)
  timeout -k 10 "$timeout_s" "$deno" test --allow-all --junit-path="$report" "${args[@]}" 9>&- &
  child=$!
  wait "$child"
  rc=$?
  child=""
  if [ $(($(date +%s) - start)) -ge "$timeout_s" ] && { [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; }; then
    echo
    fail "$file timed out after ${timeout_s} s (its results are lost)"
    return
  fi
  if [ ! -s "$report" ]; then
    echo
    fail "$file crashed (exit $rc) before writing its report"
    return
  fi
  read -r p f s < <(count_report "$report")
  passed=$((passed + p))
  failed=$((failed + f))
  skipped=$((skipped + s))
  if [ "$f" -gt 0 ]; then
    failures+=("$file: $f failed")
  elif [ "$rc" -ne 0 ]; then
    fail "$file crashed (exit $rc with no failed test: an uncaught error outside a test?)"
  fi
}

# The @example blocks of $doc_dir's .ts files, as tests (type-checked, then run) in one `deno test --doc`
# process, with the control plane's admin kubeconfig as $KUBECONFIG. Examples marked `ignore` never run
# and are absent from the report: they are counted as skipped here.
run_doc_examples() {
  local sources kubeconfig ignored
  mapfile -t sources < <(grep -rl --include='*.ts' -e '@example' "$doc_dir" | LC_ALL=C sort)
  if [ "${#sources[@]}" -eq 0 ]; then
    fail "doc examples: no @example in $doc_dir"
    return
  fi
  kubeconfig="$(sed -n 's/.*"kubeconfig": *"\([^"]*\)".*/\1/p' "$KUBELOOP_TESTENV_ATTACH")"
  # In parallel (one worker per core): most of the time is loading ~75 small modules, and the examples
  # write only objects of their own, named at random.
  KUBECONFIG="$kubeconfig" run_file "doc examples of $doc_dir (deno test --doc)" --doc --parallel "${sources[@]}"
  ignored=$(cat "${sources[@]}" | grep -cE '^[[:space:]]*\*?[[:space:]]*```[a-z]+[[:space:]].*\bignore\b')
  skipped=$((skipped + ignored))
}

if $gates; then
  gate "deno fmt --check" "$deno" fmt --check
  gate "deno lint" "$deno" lint
  gate "deno check" "$deno" check main.ts lib/ tests/ bench/ examples/
  gate "deno check README and docs/ examples" "$deno" check --doc-only README.md docs/*.md
  gate "deno check lib/ doc examples" "$deno" check --doc-only lib/
  gate "deno doc --lint" "$deno" doc --lint lib/mod.ts lib/resources/mod.ts lib/sample_controller/mod.ts lib/testing/mod.ts lib/codegen/mod.ts lib/init/main.ts lib/init/gen.ts
fi

need_plane=false
[ -z "$doc_dir" ] || need_plane=true
for f in "${files[@]}"; do
  case "$f" in tests/integration/*|tests/e2e/*) need_plane=true ;; esac
done
# The tracing tests send spans to a real OpenTelemetry Collector (tests/otelcol); build it once, up front.
for f in "${files[@]}"; do
  case "$f" in
    tests/integration/tracing_*)
      if [ -z "${KUBELOOP_OTELCOL:-}" ]; then
        echo "== building the OpenTelemetry Collector (cached after the first build)"
        if oc="$(bash tests/otelcol/build.sh | tail -n 1)" && [ -n "$oc" ]; then
          export KUBELOOP_OTELCOL="$oc"
        else
          fail "building the OpenTelemetry Collector (tests/otelcol/build.sh)"
        fi
      fi
      break
      ;;
  esac
done

plane_ok=true
if $need_plane; then
  start_control_plane || plane_ok=false
elif [ -z "${KUBELOOP_METRICS_CHECK:-}" ]; then
  # Unit tests check metrics exposition too; build (or find) the checker once for all files.
  if mc="$(bash tests/testenv/build.sh metrics-check | tail -n 1)" && [ -n "$mc" ]; then
    export KUBELOOP_METRICS_CHECK="$mc"
  fi
fi

doc_pending=false
[ -z "$doc_dir" ] || doc_pending=true
run_doc_examples_once() { # before the first file that needs the control plane, or after the last file
  $doc_pending || return 0
  doc_pending=false
  if $plane_ok; then run_doc_examples; else fail "doc examples of $doc_dir not run: no control plane"; fi
}
for f in "${files[@]}"; do
  case "$f" in
    tests/integration/*|tests/e2e/*|tests/reliability/*)
      run_doc_examples_once
      $plane_ok || { fail "$f not run: no control plane"; continue; } ;;
  esac
  run_file "$f"
done
run_doc_examples_once
stop_control_plane
rm -rf "$work"

if [ -n "${KUBELOOP_TEST_LOGS:-}" ] && $need_plane; then
  if gate "no credential in any captured log" \
    "$deno" run --allow-read tests/reliability/scan_logs.ts "$KUBELOOP_TEST_LOGS" --min-secrets=1; then
    if $own_logs; then rm -rf "$KUBELOOP_TEST_LOGS"; fi
  else
    echo "logs kept in $KUBELOOP_TEST_LOGS"
  fi
fi

if $coverage; then
  echo "== coverage of lib/ (raw profiles: coverage/raw, lcov: coverage/lcov.info)"
  unset DENO_COVERAGE_DIR
  if "$deno" coverage coverage/raw --include="^file://$PWD/lib/" --lcov >coverage/lcov.info; then
    "$deno" run --allow-read tests/tooling/coverage_summary.ts coverage/lcov.info \
      --min-lines="${KUBELOOP_COVERAGE_MIN:-90}" || fail "coverage of every lib/ folder >= ${KUBELOOP_COVERAGE_MIN:-90} % of lines"
  else
    fail "deno coverage"
  fi
fi

if [ "${#failures[@]}" -gt 0 ]; then
  echo
  echo "Failures:"
  printf '  %s\n' "${failures[@]}"
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
