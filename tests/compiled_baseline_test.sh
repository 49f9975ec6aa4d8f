#!/usr/bin/env bash
# The compiled baseline end to end on the CPU: `rkt aoti-spec` -> tools/aoti/build_packages.py ->
# AOTIModelPackageLoader in `rkt bench`. An honest twin is timed; a wrong twin is refused with the
# reason; a task whose package was never built is reported absent with the reason; a backward
# task's package (its forward twin's vector-Jacobian product) is checked and timed.
# Usage: compiled_baseline_test.sh RKT PYTHON REPO
set -euo pipefail
rkt="$1" python="$2" repo="$3"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

bench() {  # bench CACHE FILTER -> Google Benchmark JSON on stdout
  RKT_AOTI_CACHE="$1" "$rkt" bench --benchmark_filter="$2" --benchmark_format=json 2>/dev/null
}

expect_timed() {  # expect_timed JSON WHAT: the one entry in JSON was timed, without an error.
  "$python" - "$1" "$2" <<'PY' || fail "$2 was not timed"
import json, sys
entry = json.load(open(sys.argv[1]))["benchmarks"][0]
assert not entry.get("error_occurred"), entry.get("error_message")
assert entry["samples"] >= 10 and entry["real_time"] > 0, entry
print(sys.argv[2], "timed:", entry["name"], entry["real_time"], entry["time_unit"])
PY
}

# 1. An honest twin: built, checked against the C++ reference, timed.
RKT_AOTI_CACHE="$work/good" "$rkt" aoti-spec --device cpu > "$work/spec.json"
"$python" "$repo/tools/aoti/build_packages.py" "$work/spec.json" --tasks relu --jobs 1
bench "$work/good" '^relu/baseline:compiled@cpu/' > "$work/good.json"
expect_timed "$work/good.json" "the honest compiled relu"
# A second build of the same spec is served from the cache.
"$python" "$repo/tools/aoti/build_packages.py" "$work/spec.json" --tasks relu --jobs 1 \
  > "$work/rebuild.txt"
grep -q "cached" "$work/rebuild.txt" || fail "an unchanged twin was rebuilt instead of served from the cache"

# 2. A wrong twin (relu returning x): refused, with the reason.
RKT_AOTI_CACHE="$work/wrong" "$rkt" aoti-spec --device cpu > "$work/spec_wrong.json"
"$python" "$repo/tools/aoti/build_packages.py" "$work/spec_wrong.json" --tasks relu --jobs 1 \
  --twins "$repo/tests/twins_wrong"
bench "$work/wrong" '^relu/baseline:compiled@cpu/' > "$work/wrong.json"
grep -q "Python twin disagrees with the C++ reference" "$work/wrong.json" \
  || fail "a wrong twin was not refused: $(cat "$work/wrong.json")"

# 3. Never built: absent, naming the missing package.
bench "$work/good" '^softmax/baseline:compiled@cpu/' > "$work/missing.json"
grep -q "no AOTInductor package at" "$work/missing.json" \
  || fail "a missing package was not reported: $(cat "$work/missing.json")"
# 4. A backward task: packaged from its forward task's twin (the vector-Jacobian product), checked
#    against the C++ autograd reference like any twin, timed.
"$python" "$repo/tools/aoti/build_packages.py" "$work/spec.json" --tasks rkb_mnist_linear_backward \
  --jobs 1
bench "$work/good" '^rkb_mnist_linear_backward/baseline:compiled@cpu/' > "$work/backward.json"
expect_timed "$work/backward.json" "the compiled backward baseline (the twin's vjp)"
echo "compiled baseline: honest twin timed, wrong twin refused, missing package reported, backward task's vjp timed"
