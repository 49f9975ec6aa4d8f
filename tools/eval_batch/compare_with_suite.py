#!/usr/bin/env python3
"""Checks a batch's `rkt eval` verdicts against the right answers and against the same kernels
compiled into a suite.

    compare_with_suite.py EVAL_JSONL SUITE_RESULTS_JSON EXPECTED_JSON

EVAL_JSONL: `rkt eval --json`'s records; SUITE_RESULTS_JSON: the suite's `run` results.json;
EXPECTED_JSON: make_candidates.py's expected.json. For every candidate file: the eval verdict must
be the expected one, and equal to the suite's verdict for the same kernel id, case by case (each
case's status; the benchmark's numbers are measurements and are not compared). Prints a table and
a summary; exit 1 on any difference, 2 on unreadable input.
"""
import json
import sys


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    try:
        records = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
        suite = json.load(open(sys.argv[2]))
        expected = json.load(open(sys.argv[3]))
    except (OSError, ValueError) as error:
        print("compare_with_suite.py: cannot read the inputs: %s" % error)
        return 2
    by_file = {}
    for record in records:
        by_file.setdefault(record["file"].rsplit("/", 1)[-1], []).append(record)
    suite_kernels = {k["kernel"]: k for k in suite.get("kernels", []) if k.get("task") == "relu"}
    problems = []
    rows = []
    for name in sorted(expected):
        want = expected[name]
        got = by_file.get(name, [])
        if len(got) != 1:
            problems.append("%s: %d eval records, expected 1" % (name, len(got)))
            continue
        record = got[0]
        eval_verdict = record.get("verdict", "?")
        compiled = suite_kernels.get(want["kernel"])
        suite_verdict = compiled["verdict"] if compiled else "absent"
        eval_cases = {c["name"]: c["status"] for c in record.get("cases", [])}
        suite_cases = {c["name"]: c["status"] for c in (compiled or {}).get("cases", [])}
        first = next((c for c in record.get("cases", []) if c["status"] in ("failed", "crashed")), None)
        rows.append((name, want["expect"], eval_verdict, suite_verdict,
                     "%s %s" % (first["name"].split(".")[-1], first["status"]) if first else "-"))
        if eval_verdict != want["expect"]:
            problems.append("%s (%s): rkt eval says %s, expected %s (status %s: %s)" % (
                name, want["family"], eval_verdict, want["expect"], record.get("status"),
                (record.get("message") or (first or {}).get("message", ""))[:300]))
        if suite_verdict != eval_verdict:
            problems.append("%s: rkt eval says %s, the suite %s" % (name, eval_verdict, suite_verdict))
        elif eval_cases != suite_cases:
            differing = sorted(n for n in set(eval_cases) | set(suite_cases)
                               if eval_cases.get(n) != suite_cases.get(n))
            problems.append("%s: case statuses differ between eval and suite: %s" % (
                name, ", ".join("%s eval=%s suite=%s" % (n, eval_cases.get(n), suite_cases.get(n))
                                for n in differing[:6])))
    print("| file | expected | rkt eval | suite | first failing case |")
    print("|---|---|---|---|---|")
    for row in rows:
        print("| %s |" % " | ".join(row))
    failing = sum(e["expect"] == "FAIL" for e in expected.values())
    print("\n%d files (%d expected to fail): %d as expected, %d equal to the suite case by case; %d problems"
          % (len(expected), failing,
             sum(1 for r in rows if r[2] == r[1]), sum(1 for r in rows if r[2] == r[3]), len(problems)))
    for problem in problems:
        print("PROBLEM: " + problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
