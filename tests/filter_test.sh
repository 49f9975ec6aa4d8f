#!/usr/bin/env bash
# `rkt filter` over a selection (--task), in text and JSON: two tasks that a kernel doing no real
# work passes are EXCLUDED with their reasons, a healthy one is not; counts per source; a fragment
# that selects nothing is a usage error naming it. (The whole catalog, every task judged, is
# rkt_catalog_current's.)
# Usage: filter_test.sh RKT PYTHON
set -euo pipefail
rkt="$1" python="$2"
fail() { echo "FAIL: $*"; exit 1; }
selection="kb_l1_094,kb_l2_009,kb_l1_001"

text="$("$rkt" filter --task "$selection")" || fail "rkt filter exited $?"
echo "$text"
grep -qE "^EXCLUDED +kb_l1_094$" <<<"$text" || fail "kb_l1_094 (a loss that never varies) is not EXCLUDED"
grep -qE "^EXCLUDED +kb_l2_009$" <<<"$text" || fail "kb_l2_009 (outputs within 0.01 of zero) is not EXCLUDED"
grep -qE "^ok +kb_l1_001$" <<<"$text" || fail "kb_l1_001 (a matmul) is not ok"
grep -q "^3 tasks: 2 excluded from aggregates, 0 precision-blind" <<<"$text" || fail "the totals line is wrong"

"$rkt" filter --json --task "$selection" | "$python" -c '
import json, sys
report = json.load(sys.stdin)
severity = {task["id"]: task["severity"] for task in report["tasks"]}
assert severity == {"kb_l1_001": "healthy", "kb_l1_094": "excluded", "kb_l2_009": "excluded"}, severity
reasons = {task["id"]: task["reasons"] for task in report["tasks"]}
assert any("output_std" in reason for reason in reasons["kb_l1_094"]), reasons
assert report["sources"]["kb_l1"] == {"tasks": 2, "excluded": 1, "precision_blind": 0, "with_notes": 0}, report["sources"]
' || fail "the JSON report is wrong"

set +e
unknown="$("$rkt" filter --task no_such_task 2>&1)"
code=$?
set -e
[ "$code" = 2 ] || fail "an unknown --task exited $code, expected 2"
grep -q "no registered task matches 'no_such_task'" <<<"$unknown" || fail "the unknown task is not named: $unknown"
echo "filter: excluded tasks named with reasons, healthy ones ok, unknown selection refused"
