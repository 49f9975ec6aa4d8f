#!/usr/bin/env python3
"""Evaluates a folder of candidate kernels for one task with `rkt eval` and ranks those that pass.

    eval_loop.py --rkt build/bin/rkt --task relu examples/eval_loop/candidates
    eval_loop.py --rkt build/bin/rkt --task relu CANDIDATES --rounds 5 --generate "./my_model.sh"

Every .cpp and .cu file in the folder is compiled into its own kernel library and judged as
`rkt run` judges a kernel (correctness, properties, integrity gates, then a benchmark against the
task's baselines). The kernels that pass are ranked by their speedup against the strongest
baseline (the low end of its 95% interval first, so that a lucky median does not win); the others
are listed with their status and first failure.

A kernel is ranked only among kernels that hold the same bar: one that waives a gate, allows an
operator or narrows its task's domain (rkt eval refuses those unless --allow-declarations) is
never ranked among the unrestricted ones, and a precision claim (tf32, bf16 on an fp32 task) is
ranked only among kernels with the same claim. Each such group is a ranking of its own.

A generation loop plugs in with --generate: before each round after the first, the command runs
with two arguments, the folder and a JSON file of the last round's records (one per kernel: its
file, verdict, first failure and speedups), and writes new candidate files into the folder. Each
round evaluates the whole folder into the same run folder, so `rkt eval` skips every file it has
already judged (same library hash) and only the new ones cost time.
"""
import argparse
import json
import pathlib
import subprocess
import sys


def evaluate(rkt, task, folder, out, timeout, allow_declarations=False):
    """Runs rkt eval on every source in `folder`; returns its records (one dict per kernel)."""
    sources = sorted(str(p) for p in pathlib.Path(folder).iterdir() if p.suffix in (".cpp", ".cu"))
    if not sources:
        sys.exit(f"eval_loop: no .cpp or .cu file in {folder}")
    command = [rkt, "eval", *sources, "--task", task, "--json", "--out", out]
    if timeout:
        command += ["--timeout", str(timeout)]
    if allow_declarations:
        command += ["--allow-declarations"]
    # Standard output carries the records (JSON Lines); progress goes to standard error.
    finished = subprocess.run(command, stdout=subprocess.PIPE, text=True)
    if finished.returncode not in (0, 1, 2) or not finished.stdout.strip():
        sys.exit(f"eval_loop: rkt eval ended with exit code {finished.returncode}")
    return [json.loads(line) for line in finished.stdout.splitlines() if line.strip()]


def speedup_of(record):
    """(low, ratio) of the speedup against the strongest baseline; (0, 0) when not timed."""
    benchmark = record.get("benchmark") or {}
    speedup = benchmark.get("speedup_vs_strongest") or {}
    return speedup.get("low", 0.0), speedup.get("ratio", 0.0)


def ranking_group(record):
    """(restricted, precision): kernels are ranked only against kernels of the same group.

    restricted: the record's declarations waive a gate, allow an operator or narrow the domain
    (its speed was bought with a lower bar); precision: the claim the kernel was judged by."""
    declarations = record.get("declarations") or {}
    return bool(declarations.get("restricted")), declarations.get("precision", record.get("precision", "fp32"))


def group_title(group):
    restricted, precision = group
    bar = "restricted (waivers, allowed operators or a narrowed domain)" if restricted else "unrestricted"
    return f"{bar}, precision {precision}"


def print_ranking(records):
    passed = sorted((r for r in records if r["verdict"] == "pass"), key=speedup_of, reverse=True)
    print(f"\n{len(passed)} of {len(records)} kernels passed, fastest first, each group ranked apart:")
    # The unrestricted fp32 kernels first, then each other group, never merged.
    groups = sorted({ranking_group(r) for r in passed}, key=lambda g: (g[0], g[1] != "fp32", g[1]))
    for group in groups:
        members = [r for r in passed if ranking_group(r) == group]
        timed = [r for r in members if (r.get("benchmark") or {}).get("measured")]
        print(f"ranking: {group_title(group)}")
        print("rank  speedup [95% interval]    median ms  baseline      file / kernel")
        for rank, record in enumerate(timed, 1):
            benchmark = record["benchmark"]
            speedup = benchmark["speedup_vs_strongest"]
            print(f"{rank:>4}  {speedup['ratio']:6.2f}x [{speedup['low']:.2f}, {speedup['high']:.2f}]"
                  f"  {benchmark['median_ms']:10.4g}  {benchmark['strongest_baseline']:<12}  "
                  f"{record['file']} / {record['kernel']}")
        for record in members:
            if record not in timed:  # passed, but its timing was refused (e.g. an overloaded machine)
                print(f"   -  not timed: {record['benchmark'].get('problem', '')[:90]}  {record['file']} / {record['kernel']}")
    failed = [r for r in records if r["verdict"] != "pass"]
    if failed:
        print("\nnot ranked:")
    for record in failed:
        benchmark = record.get("benchmark") or {}
        why = (record.get("message") or (record.get("first_failure") or {}).get("message")
               or "; ".join(record.get("problems") or []) or benchmark.get("spot_check_message")
               or ("impossibly fast: under the physical floor" if benchmark.get("impossible") else ""))
        why = next((line for line in why.splitlines() if line and line != "Failed"), "")
        print(f"  {record['verdict']:<7} {record['status']:<18} {record['file']}: {why[:110]}")
    return passed


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", help="the candidates: .cpp and .cu files")
    parser.add_argument("--rkt", default="rkt", help="the rkt executable (default: rkt on PATH)")
    parser.add_argument("--task", required=True, help="the task every candidate implements")
    parser.add_argument("--out", default="runs/eval_loop", help="the run folder (resumed)")
    parser.add_argument("--timeout", type=int, default=0, help="rkt's --timeout per case [s]")
    parser.add_argument("--rounds", type=int, default=1, help="evaluation rounds")
    parser.add_argument("--generate", help="command run before each later round: FOLDER RECORDS")
    parser.add_argument("--allow-declarations", action="store_true",
                        help="judge files that waive gates, allow operators or narrow the domain "
                             "(rkt eval refuses them by default); each is ranked in a group of its own")
    args = parser.parse_args()
    records = []
    for round_number in range(1, args.rounds + 1):
        if round_number > 1 and args.generate:
            last = pathlib.Path(args.out) / "last_round.json"
            last.write_text(json.dumps(records, indent=1))
            subprocess.run([*args.generate.split(), args.folder, str(last)], check=True)
        records = evaluate(args.rkt, args.task, args.folder, args.out, args.timeout,
                           args.allow_declarations)
        print(f"round {round_number}: {len(records)} kernels judged (see {args.out}/report.html)")
        print_ranking(records)
    return 0


if __name__ == "__main__":
    sys.exit(main())
