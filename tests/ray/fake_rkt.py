#!/usr/bin/env python3
"""A stand-in for `rkt eval FILE --json --out DIR` and `rkt merge`, for the driver's own tests.

The real rkt judges kernels; these tests judge the driver (its losses, retries, deadlines,
secrets and resume), which needs judges that die, hang or answer on cue and in a second:

- a file containing `fake: kill-judge` kills the judge actor running it (this process's parent),
  as a node dying under it would; `fake: hang` sleeps past any deadline; `fake: fail` fails;
- otherwise the file is "judged" after $FAKE_RKT_SECONDS (default 0.2) into DIR the way rkt eval
  lays out a run folder (eval.jsonl, results.json, libraries/<hash>/judge.log and results.json),
  keyed by a hash of the file's base name and content, and resumed from DIR/eval.jsonl as rkt
  eval resumes (no judge.log: nothing judged);
- `fake: median=X` sets the record's benchmark median (default 1.0); with `--recheck N` the N
  fastest passing kernels get a second judgement (`recheck`) that agrees;
- $FAKE_RKT_SEEN, when set, names a file that gets the RKT_SECRET_SEED this process saw.

`merge --out DIR RUN...` checks the shard fields rkt merge checks and writes the three files.
"""
import hashlib
import json
import os
import signal
import sys
import time


def results(kernels, seed, shard=None):
    return {"schema": "rkt-results/3", "started_utc": "2026-12-03T00:00:00Z", "seed": seed,
            "hidden_inputs": "as each file's judge read them (RKT_HIDDEN_SUITE)",
            "isolation": "isolated (each file's kernels ran in workers of a judge of its own)",
            "finished": True, "kernel_filter": "", "shard": shard, "merged_shards": 0,
            "devices": {}, "kernels": kernels, "summary": []}


def evaluate(arguments):
    source = arguments[0]
    out = arguments[arguments.index("--out") + 1]
    seed = int(os.environ.get("RKT_SEED", "0"))
    seen = os.environ.get("FAKE_RKT_SEEN")
    if seen:
        with open(seen, "a") as stream:
            stream.write(os.environ.get("RKT_SECRET_SEED", "") + "\n")
    text = open(source).read()
    if "fake: kill-judge" in text:
        os.kill(os.getppid(), signal.SIGKILL)
        time.sleep(60)
    if "fake: hang" in text:
        time.sleep(3600)
    name = os.path.basename(source)
    stem = name.rsplit(".", 1)[0]
    library_hash = hashlib.sha256((name + "\n" + text).encode()).hexdigest()[:32]
    os.makedirs(os.path.join(out, "libraries", library_hash), exist_ok=True)
    log = os.path.join(out, "eval.jsonl")
    earlier = []
    if os.path.exists(log):
        for line in open(log):
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if record.get("library_hash") == library_hash and record.get("status") == "judged":
                earlier.append(record)
    library_results = os.path.join(out, "libraries", library_hash, "results.json")
    if earlier and os.path.exists(library_results):
        records = [dict(record, file=source) for record in earlier]
    else:
        time.sleep(float(os.environ.get("FAKE_RKT_SECONDS", "0.2")))
        open(os.path.join(out, "libraries", library_hash, "judge.log"), "w").write("judged\n")
        verdict = "FAIL" if "fake: fail" in text else "pass"
        median = float(text.split("median=")[1].split()[0]) if "median=" in text else 1.0
        records = [{"file": source, "library_hash": library_hash, "status": "judged",
                    "verdict": verdict, "declarations_allowed": False, "task": "relu",
                    "kernel": stem, "cases": [{"name": "relu/%s.correctness" % stem,
                                               "status": "failed" if verdict == "FAIL" else "passed"}],
                    "benchmark": {"measured": verdict == "pass", "median_ms": median},
                    "recheck": None}]
        json.dump(results([{"kernel": stem, "verdict": verdict}], seed), open(library_results, "w"))
    if "--recheck" in arguments:
        fastest = int(arguments[arguments.index("--recheck") + 1])
        passing = sorted((r for r in records if r["verdict"] == "pass"),
                         key=lambda r: r["benchmark"]["median_ms"])
        for record in passing[:fastest]:
            record["recheck"] = {"verdict": "pass", "agrees": True, "disagreement": ""}
    with open(log, "w") as stream:
        stream.writelines(json.dumps(record) + "\n" for record in records)
    kernels = [{"task": "relu", "kernel": stem + ":" + r["kernel"], "verdict": r["verdict"]}
               for r in records]
    json.dump(results(kernels, seed), open(os.path.join(out, "results.json"), "w"))
    for record in records:
        print(json.dumps(record))
    return 0 if all(r["verdict"] == "pass" for r in records) else 1


def merge(arguments):
    out = arguments[arguments.index("--out") + 1]
    runs = [json.load(open(path)) for path in arguments[arguments.index("--out") + 2:]]
    count = len(runs)
    indices = sorted(run["shard"]["index"] for run in runs)
    if indices != list(range(1, count + 1)) or len({run["seed"] for run in runs}) != 1:
        sys.stderr.write("rkt merge: refused: shards missing or of different seeds\n")
        return 2
    kernels = [kernel for run in runs for kernel in run["kernels"]]
    if len(kernels) != runs[0]["shard"]["selected_kernels"]:
        sys.stderr.write("rkt merge: refused: kernel count\n")
        return 2
    merged = results(kernels, runs[0]["seed"])
    merged["merged_shards"] = count
    os.makedirs(out, exist_ok=True)
    json.dump(merged, open(os.path.join(out, "results.json"), "w"))
    for page in ("report.md", "report.html"):
        open(os.path.join(out, page), "w").write("%d kernels\n" % len(kernels))
    print("rkt merge: %d kernels from %d shards" % (len(kernels), count))
    return 0 if all(k["verdict"] != "FAIL" for k in kernels) else 1


if __name__ == "__main__":
    command = sys.argv[1]
    sys.exit(evaluate(sys.argv[2:]) if command == "eval" else merge(sys.argv[2:]))
