#!/usr/bin/env bash
# `deno task test`: formatting, lint, type check, unit tests, then integration and end-to-end tests
# against a real kube-apiserver + etcd (+ kube-controller-manager) built from Go modules.
# Ends with one plain line: "N passed, N failed".
#   bash tests/run.sh           everything
#   bash tests/run.sh --unit    no control plane: unit tests only
set -uo pipefail
cd "$(dirname "$0")/.."
deno="${DENO:-}"
if [ -z "$deno" ]; then
  if [ -x .tools/deno/node_modules/.bin/deno ]; then deno=.tools/deno/node_modules/.bin/deno; else deno=deno; fi
fi
unit_only=false
[ "${1:-}" = "--unit" ] && unit_only=true

passed=0
failed=0
gate() { # gate NAME CMD... : a check that counts as one test
  local name="$1"; shift
  echo "== $name"
  if "$@"; then passed=$((passed + 1)); else echo "FAILED: $name"; failed=$((failed + 1)); fi
}

gate "deno fmt --check" "$deno" fmt --check
gate "deno lint" "$deno" lint
gate "deno check" "$deno" check main.ts lib/ tests/ bench/
gate "deno check README examples" "$deno" check --doc-only README.md
gate "deno doc --lint" "$deno" doc --lint lib/mod.ts lib/sample_controller/mod.ts

dirs=()
for d in tests/*/; do
  case "$d" in
    tests/_util/|tests/testenv/) ;;
    tests/integration/|tests/e2e/|tests/reliability/) $unit_only || dirs+=("$d") ;;
    *) dirs+=("$d") ;;
  esac
done

if ! $unit_only; then
  echo "== building the local control plane (cached after the first build)"
  if bin="$(bash tests/testenv/build.sh | tail -n 1)"; then
    export KUBELOOP_TESTENV_BIN="$bin"
  else
    echo "FAILED: building the control plane"; failed=$((failed + 1))
  fi
fi

# Every log the tests capture, and every credential they create, go here for the final scan.
own_logs=false
if ! $unit_only && [ -z "${KUBELOOP_TEST_LOGS:-}" ]; then
  KUBELOOP_TEST_LOGS="$(mktemp -d -t kubeloop-test-logs.XXXXXX)"; export KUBELOOP_TEST_LOGS; own_logs=true
fi

junit="$(mktemp -d)/junit.xml"
echo "== deno test ${dirs[*]}"
"$deno" test --sanitize-ops --sanitize-resources --allow-all --junit-path="$junit" "${dirs[@]}"
test_rc=$?
if [ -s "$junit" ]; then
  # Leaf results only: a <testcase> is a test or a step; <failure> marks the failed ones.
  cases=$(grep -o '<testcase ' "$junit" | wc -l)
  fails=$(grep -o '<failure' "$junit" | wc -l)
  passed=$((passed + cases - fails))
  failed=$((failed + fails))
  if [ "$test_rc" -ne 0 ] && [ "$fails" -eq 0 ]; then failed=$((failed + 1)); fi
else
  echo "FAILED: deno test produced no report (exit $test_rc)"; failed=$((failed + 1))
fi
rm -rf "$(dirname "$junit")"
if ! $unit_only; then
  if gate "no credential in any captured log" \
    "$deno" run --allow-read tests/reliability/scan_logs.ts "$KUBELOOP_TEST_LOGS" --min-secrets=1; then
    if $own_logs; then rm -rf "$KUBELOOP_TEST_LOGS"; fi
  else
    echo "logs kept in $KUBELOOP_TEST_LOGS"
  fi
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
