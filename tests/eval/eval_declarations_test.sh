#!/usr/bin/env bash
# Declarations from untrusted files (issue 28; framework/registry/declaration_policy.h): rkt eval
# refuses by default a file that waives a gate (relu_waives_replay.cpp) or narrows its task's
# domain (relu_one_size.cpp, hard-coded for the CPU's 37 x 300), as status declaration_refused
# naming the declaration and its line; requires_alignment (relu_aligned.cpp) and a precision claim
# (relu_claims_tf32.cpp) are not refused. With --allow-declarations the same files are judged, the
# records carry the declarations in force, and examples/eval_loop ranks the restricted kernels and
# the tf32 claim apart from the unrestricted fp32 ones.
# Usage: eval_declarations_test.sh RKT DECLARATION_CANDIDATES HONEST_CANDIDATE PYTHON EVAL_LOOP
set -euo pipefail
rkt="$1"; candidates="$2"; honest="$3"; python="$4"; eval_loop="$5"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
export RKT_EVAL_CACHE="$work/cache"
export RKT_SEED=20261202
mkdir "$work/folder"
cp "$candidates"/*.cpp "$honest" "$work/folder/"

# Refused by default: exit 1 (a file gave no judged kernel), each refusal naming its line.
set +e
"$rkt" eval "$work/folder"/*.cpp --json --out "$work/run" --timeout 30 > "$work/records" 2> "$work/log"
code=$?
set -e
[ "$code" = 1 ] || { cat "$work/log"; fail "the default batch exited $code, expected 1"; }
"$python" - "$work/records" <<'PY' || { cat "$work/log"; exit 1; }
import json, sys
records = {json.loads(l)["file"].rsplit("/", 1)[-1]: json.loads(l) for l in open(sys.argv[1]) if l.strip()}
waiver = records["relu_waives_replay.cpp"]
assert waiver["status"] == "declaration_refused" and waiver["verdict"] == "FAIL", waiver
assert "relu_waives_replay.cpp:22) waives gate 'replay'" in waiver["message"], waiver["message"]
one_size = records["relu_one_size.cpp"]
assert one_size["status"] == "declaration_refused", one_size
for restriction in ('"B >= 37"', '"B <= 37"', '"N >= 300"', '"N <= 300"'):
    assert restriction in one_size["message"], (restriction, one_size["message"])
assert "narrower than task 'relu''s domain" in one_size["message"], one_size["message"]
for name in ("relu_aligned.cpp", "relu_claims_tf32.cpp", "relu_honest.cpp"):
    record = records[name]
    assert record["status"] == "judged" and record["verdict"] == "pass", (name, record.get("first_failure"))
    assert record["declarations"]["restricted"] is False, record["declarations"]
assert records["relu_aligned.cpp"]["declarations"]["alignment_bytes"] == 16
assert records["relu_claims_tf32.cpp"]["declarations"]["precision"] == "tf32"
print("default: the waiver and the narrowed domain refused, alignment and tf32 judged")
PY

# Allowed: the same folder again with --allow-declarations judges the refused files (a refusal
# is never resumed) and resumes the others; the records show the declarations in force.
"$rkt" eval "$work/folder"/*.cpp --json --out "$work/run" --timeout 30 --allow-declarations \
  > "$work/allowed" 2> "$work/log" || { cat "$work/log"; fail "the allowed batch failed"; }
[ "$(grep -c 'judging ' "$work/log")" = 2 ] || { cat "$work/log"; fail "not exactly the 2 refused files judged again"; }
"$python" - "$work/allowed" <<'PY' || { cat "$work/log"; exit 1; }
import json, sys
records = {json.loads(l)["file"].rsplit("/", 1)[-1]: json.loads(l) for l in open(sys.argv[1]) if l.strip()}
waiver = records["relu_waives_replay.cpp"]
assert waiver["status"] == "judged" and waiver["verdict"] == "pass", waiver
assert waiver["declarations_allowed"] is True
assert waiver["declarations"]["restricted"] is True
assert "replay" in waiver["declarations"]["waived_gates"], waiver["declarations"]
assert [c["status"] for c in waiver["cases"] if c["name"].endswith("integrity_replay")] == ["skipped"], waiver["cases"]
one_size = records["relu_one_size.cpp"]
assert one_size["status"] == "judged" and one_size["verdict"] == "pass", one_size.get("first_failure")
assert one_size["declarations"]["supports"] == ["B >= 37", "B <= 37", "N >= 300", "N <= 300"], one_size["declarations"]
print("allowed: both judged, their declarations in the records")
PY
grep -q "gate replay waived" "$work/run/report.md" || fail "report.md does not show the waiver"
grep -q "supports only" "$work/run/report.md" || fail "report.md does not show the narrowed domain"

# Without --allow-declarations again: the files judged under it are judged again, and refused.
set +e
"$rkt" eval "$work/folder/relu_waives_replay.cpp" --json --out "$work/run" > "$work/again" 2> "$work/log"
set -e
grep -q '"status":"declaration_refused"' "$work/again" || { cat "$work/again" "$work/log"; fail "a result judged under --allow-declarations was resumed without it"; }

# The ranking: groups never merged.
"$python" "$eval_loop" --rkt "$rkt" --task relu "$work/folder" --out "$work/run" --timeout 30 \
  --allow-declarations > "$work/ranking" 2> "$work/log" || { cat "$work/ranking" "$work/log"; fail "eval_loop.py failed"; }
cat "$work/ranking"
"$python" - "$work/ranking" <<'PY'
import sys
groups, current = {}, None
for line in open(sys.argv[1]):
    if line.startswith("ranking: "):
        current = line[len("ranking: "):].strip()
        groups[current] = ""
    elif line.startswith("not ranked"):
        current = None
    elif current is not None:
        groups[current] += line
unrestricted = groups.get("unrestricted, precision fp32", "")
assert "relu_honest.cpp" in unrestricted and "relu_aligned.cpp" in unrestricted, groups
for name in ("relu_waives_replay.cpp", "relu_one_size.cpp", "relu_claims_tf32.cpp"):
    assert name not in unrestricted, (name, groups)
restricted = [text for title, text in groups.items() if title.startswith("restricted")]
assert any("relu_waives_replay.cpp" in text for text in restricted), groups
assert any("relu_one_size.cpp" in text for text in restricted), groups
assert "relu_claims_tf32.cpp" in groups.get("unrestricted, precision tf32", ""), groups
print("ranking: restricted kernels and the tf32 claim ranked apart")
PY
echo "eval declarations: refused by default, judged when allowed, ranked apart"
