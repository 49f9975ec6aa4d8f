#!/usr/bin/env bash
# `rkt baselines` on the CPU: the table's files are written and valid, a second run into the same
# folder resumes without measuring again, a later run adds tasks to the table, and a task whose
# measurement died in an earlier run is reported rather than retried, and a table copied without
# its records is kept (its rows read back from results.json) rather than overwritten; a table of
# another device or an unreadable one is refused, untouched; shards split the tasks and their
# records merge into the whole table. No timing is asserted.
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
# --task is a substring filter: "softmax" takes the bf16 and fp16 softmax tasks too.
assert sorted(rows) == ["dropout", "softmax", "softmax_bf16", "softmax_fp16", "sum_dim"], sorted(rows)
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
# 4. Only results.json survives (the table was copied or committed without baselines/): its rows
#    are kept, written back as records, and a new task joins them.
mkdir "$work/copied"
cp "$work/table/results.json" "$work/copied/results.json"
"$rkt" baselines --device cpu --out "$work/copied" --task rmsnorm | tee "$work/run4.txt"
grep -q "5 measured earlier in .* (5 of them read from its results.json)" "$work/run4.txt" \
  || fail "the rows of a copied results.json were not read back"
"$python" - "$work/table/results.json" "$work/copied/results.json" <<'PY' || fail "the copied table's rows were not kept"
import json, sys
before = {row["task"]: row for row in json.load(open(sys.argv[1]))["tasks"]}
after = {row["task"]: row for row in json.load(open(sys.argv[2]))["tasks"]}
assert set(before) < set(after) and "rmsnorm" in after, sorted(after)  # --task is a substring filter
for task, row in before.items():
    for key in ("problem", "dims", "floor_ms", "tf32_speedup", "baselines"):
        assert after[task][key] == row[key], (task, key, after[task][key], row[key])
print("copied table: its 5 rows kept exactly, rmsnorm added")
PY

# 5. Refusals, each naming the file and leaving it as it was: another device's table, and a
#    file that is not a baseline table.
"$python" -c "import json,sys; t=json.load(open(sys.argv[1])); t['device']='cuda'; json.dump(t, open(sys.argv[2], 'w'))" \
  "$work/copied/results.json" "$work/cuda_table.json"
for case in cuda_table not_a_table; do
  mkdir "$work/$case"
  if [ "$case" = cuda_table ]; then cp "$work/cuda_table.json" "$work/$case/results.json";
  else echo '{"schema": "rkt-results/3"}' > "$work/$case/results.json"; fi
  cp "$work/$case/results.json" "$work/$case.before"
  set +e
  "$rkt" baselines --device cpu --out "$work/$case" --task rmsnorm > "$work/$case.log" 2>&1
  code=$?
  set -e
  [ "$code" = 1 ] || { cat "$work/$case.log"; fail "$case: exit $code, expected 1"; }
  grep -q "$work/$case/results.json" "$work/$case.log" || { cat "$work/$case.log"; fail "$case: the file is not named"; }
  cmp -s "$work/$case.before" "$work/$case/results.json" || fail "$case: results.json was changed"
done
grep -q "holds a cuda table" "$work/cuda_table.log" || fail "the device mismatch is not said"
grep -q "not 'rkt-baselines/1'" "$work/not_a_table.log" || fail "the wrong schema is not said"

# 6. Shards (one per GPU on a machine with several): each shard measures the tasks at its
#    positions of the selected tasks sorted by id; the shards' records copied into one folder
#    make the whole table, which a run with the same selection rebuilds without measuring.
for shard in 1 2; do
  "$rkt" baselines --device cpu --out "$work/shard$shard" --task sum_dim,dropout,kb_l1_019 \
    --shard "$shard/2" | tee "$work/shard$shard.txt"
done
mkdir -p "$work/merged/baselines"
cp "$work"/shard1/baselines/*.record "$work"/shard2/baselines/*.record "$work/merged/baselines/"
cp "$work/shard1/peaks_cpu.txt" "$work/merged/" 2>/dev/null || true
"$rkt" baselines --device cpu --out "$work/merged" --task sum_dim,dropout,kb_l1_019 | tee "$work/merged.txt"
grep -q "measured 0 tasks" "$work/merged.txt" || fail "the merged table measured again"
"$python" - "$work" <<'PY' || fail "the shards do not split the table"
import json, sys
tasks = lambda name: [row["task"] for row in json.load(open(f"{sys.argv[1]}/{name}/results.json"))["tasks"]]
one, two, merged = tasks("shard1"), tasks("shard2"), tasks("merged")
assert one and two and not set(one) & set(two), (one, two)
everything = sorted(one + two)
assert sorted(merged) == everything, (merged, everything)
assert sorted(one) == everything[0::2] and sorted(two) == everything[1::2], (one, two)
print("shards:", one, two, "-> merged", len(merged), "tasks")
PY
set +e
"$rkt" baselines --device cpu --out "$work/bad_shard" --shard 3/2 > "$work/bad_shard.log" 2>&1
code=$?
set -e
[ "$code" = 2 ] || { cat "$work/bad_shard.log"; fail "--shard 3/2: exit $code, expected 2"; }
grep -q "I is larger than N" "$work/bad_shard.log" || fail "--shard 3/2: the reason is not said"

echo "baselines: files written and valid, resumed without re-measuring, a died task reported, a copied table kept, refusals named, shards split and merge"
