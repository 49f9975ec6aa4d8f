#!/usr/bin/env bash
# `rkt baselines` on the CPU: the table's files are written and valid, a second run into the same
# folder resumes without measuring again, a later run adds tasks to the table, and a task whose
# measurement died in an earlier run is reported rather than retried. No timing is asserted.
# Usage: baselines_test.sh RKT PYTHON
set -euo pipefail
rkt="$1" python="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# 1. A fresh run over one task writes the three files and the task's record.
"$rkt" baselines --device cpu --out "$work/table" --task sum_dim | tee "$work/run1.txt"
grep -q "measured 1 tasks" "$work/run1.txt" || fail "the first run did not measure sum_dim"
for file in results.json report.md report.html baselines/sum_dim.cpu.record; do
  [ -s "$work/table/$file" ] || fail "$file was not written"
done
cp "$work/table/baselines/sum_dim.cpu.record" "$work/record_before"

# 2. The same command again: nothing is measured, the record is untouched.
"$rkt" baselines --device cpu --out "$work/table" --task sum_dim | tee "$work/run2.txt"
grep -q "measured 0 tasks .* kept 1 measured earlier" "$work/run2.txt" \
  || fail "the second run measured again instead of resuming"
cmp -s "$work/record_before" "$work/table/baselines/sum_dim.cpu.record" \
  || fail "the resumed run rewrote what the first run measured"

# 3. Another task joins the table; a task whose process died mid-measurement (its marker left
#    behind, no record) is reported, not measured again.
touch "$work/table/baselines/dropout.cpu.record.started"
"$rkt" baselines --device cpu --out "$work/table" --task sum_dim,softmax,dropout \
  | tee "$work/run3.txt"
"$python" - "$work/table" <<'PY' || fail "results.json is not the table expected"
import json, sys
table = json.load(open(sys.argv[1] + "/results.json"))
assert table["schema"] == "rkt-baselines/1" and table["finished"] and table["device"] == "cpu"
rows = {row["task"]: row for row in table["tasks"]}
assert sorted(rows) == ["dropout", "softmax", "sum_dim"], sorted(rows)
for task in ("sum_dim", "softmax"):
    row = rows[task]
    assert row["problem"] == "", row["problem"]
    timings = {b["name"]: b for b in row["baselines"]}
    fp32 = timings["eager_fp32"]
    assert fp32["available"] and fp32["samples"] >= 10, fp32
    assert 0 < fp32["median_low_ms"] <= fp32["median_ms"] <= fp32["median_high_ms"], fp32
    assert not timings["eager_tf32"]["available"] and "CUDA" in timings["eager_tf32"]["absent_reason"]
    assert not timings["compiled"]["available"] and timings["compiled"]["absent_reason"]
    assert row["floor_ms"] > 0 and row["minimal_bytes"] > 0, row
assert "died while measuring" in rows["dropout"]["problem"], rows["dropout"]
assert any(s["source"] == "core" and s["tasks"] >= 3 for s in table["summary"]), table["summary"]
print("results.json:", len(rows), "tasks")
PY
grep -q "| softmax |" "$work/table/report.md" || fail "report.md lacks softmax"
grep -q "<td>sum_dim</td>" "$work/table/report.html" || fail "report.html lacks sum_dim"
grep -q "kept 1 measured earlier" "$work/run3.txt" || fail "the third run re-measured sum_dim"
echo "baselines: files written and valid, resumed without re-measuring, a died task reported"
