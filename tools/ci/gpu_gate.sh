#!/usr/bin/env bash
# The GPU merge gate (.github/workflows/ci.yml, job `gpu`; docs/ci.md). Runnable by hand on a GPU
# machine too:
#
#   tools/ci/gpu_gate.sh OUT_DIR [BASE_REVISION]
#
#   1. builds (tools/bootstrap.sh) and runs every ctest test with JUnit XML in OUT_DIR/junit.xml
#      (one entry per ctest test) and OUT_DIR/junit/*.xml (one testcase per kernel case: each
#      kernel test's own report, written to BUILD/junit/ by `rkt test --junit`); CUDA tests carry RESOURCE_GROUPS gpus:1 and the resource spec (tools/gpu/ctest_resources.sh)
#      has one slot per GPU, so no two CUDA tests share a GPU while CPU tests run in parallel;
#   2. runs the main job into OUT_DIR/new (results.json, report.md, report.html): exits non-zero
#      when a kernel fails a gate;
#   3. with BASE_REVISION: builds that revision in a worktree (OUT_DIR/base-src, sharing ccache),
#      runs its main job on the same machine into OUT_DIR/base, and
#      `rkt compare OUT_DIR/base/results.json OUT_DIR/new/results.json` > OUT_DIR/compare.md:
#      non-zero when a kernel got slower by more than the measured noise;
#   4. checks that no file of the run folder or the JUnit reports contains the value of
#      RKT_SECRET_SEED.
# Every step runs even when an earlier one failed; the exit status is non-zero when any did.
#
# Secrets: RKT_SECRET_SEED (a number) and RKT_HIDDEN_SUITE_TEXT (the hidden suite's text; written
# to a file only this user can read, whose path goes to rkt as RKT_HIDDEN_SUITE).
set -uo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="${1:?usage: gpu_gate.sh OUT_DIR [BASE_REVISION]}"
base="${2:-}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
build_dir="${RKT_BUILD_DIR:-$repo_root/build}"
status=0
step() { echo "gpu_gate: $*"; }

if [ -n "${RKT_HIDDEN_SUITE_TEXT:-}" ]; then
  hidden="$(mktemp)"  # mode 600
  printf '%s\n' "$RKT_HIDDEN_SUITE_TEXT" > "$hidden"
  export RKT_HIDDEN_SUITE="$hidden"
  unset RKT_HIDDEN_SUITE_TEXT
  trap 'rm -f "$hidden"' EXIT
fi

step "building"
bash "$repo_root/tools/bootstrap.sh" || exit 1

step "ctest (JUnit: $out/junit.xml, per case: $out/junit/)"
bash "$repo_root/tools/gpu/ctest_resources.sh" > "$out/gpus.json"
rm -rf "$build_dir/junit" "$out/junit"  # No report of an earlier run may pass for this one's.
ctest --test-dir "$build_dir" --output-on-failure -j "$(nproc)" \
  --resource-spec-file "$out/gpus.json" --output-junit "$out/junit.xml" || status=1
mkdir -p "$out/junit"
cp "$build_dir"/junit/*.xml "$out/junit/" 2>/dev/null || echo "gpu_gate: no per-case JUnit reports"

step "main job (run folder: $out/new)"
"$build_dir/bin/rkt" run --out "$out/new" || status=1

if [ -n "$base" ] && ! [[ "$base" =~ ^0+$ ]]; then
  step "main job of the base revision $base (run folder: $out/base)"
  rm -rf "$out/base-src"
  git -C "$repo_root" worktree add --detach "$out/base-src" "$base" >/dev/null
  # The base's gates may fail too; only its timings matter here.
  RKT_BUILD_DIR="$out/base-src/build" bash "$out/base-src/tools/bootstrap.sh" &&
    { "$out/base-src/build/bin/rkt" run --out "$out/base" || true; }
  git -C "$repo_root" worktree remove --force "$out/base-src"
  if [ -f "$out/base/results.json" ]; then
    step "rkt compare base new"
    "$build_dir/bin/rkt" compare "$out/base/results.json" "$out/new/results.json" \
      > "$out/compare.md" || status=1
    cat "$out/compare.md"
  else
    echo "gpu_gate: the base revision produced no results.json; no comparison" | tee "$out/compare.md"
    status=1
  fi
else
  echo "gpu_gate: no base revision; no comparison" > "$out/compare.md"
fi

if [ -n "${RKT_SECRET_SEED:-}" ] && grep -rqF -- "$RKT_SECRET_SEED" "$out/new" "$out/junit.xml" "$out/junit" 2>/dev/null; then
  echo "gpu_gate: FAILED: the run folder contains the value of RKT_SECRET_SEED"
  status=1
fi
exit "$status"
