"""The command: `python -m rkt_ray eval FILE... [--address auto] [rkt eval's options]`.

Like `rkt eval`: progress on standard error; with --json one record per kernel per line on
standard output; exit 0 when every kernel passed (or was skipped), 1 when one failed or a file
gave none, 2 on a usage error or when the run folder could not be written.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import List, Optional

from rkt_ray.evaluate import DEFAULT_FILE_TIMEOUT_S, DEFAULT_MAX_ATTEMPTS, evaluate


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="python -m rkt_ray",
                                  description="Judges kernel files with rkt eval on a Ray cluster.")
    commands = top.add_subparsers(dest="command", required=True)
    batch = commands.add_parser("eval", help="judge FILE... (.cpp on CPU judges, .cu on GPUs)")
    batch.add_argument("files", nargs="+", metavar="FILE")
    batch.add_argument("--address", default=None,
                       help="the cluster (ray.init's address: 'auto', 'ray://host:10001'); "
                            "default: a cluster of this machine alone")
    batch.add_argument("--task", default=None, help="only this task's kernels (rkt eval --task)")
    batch.add_argument("--out", default=None, help="run folder (default runs/ray-<UTC time>)")
    batch.add_argument("--recheck", type=int, default=0, metavar="K",
                       help="rkt eval --recheck K: the K fastest passing kernels of the batch "
                            "judged again (fresh processes, a fresh secret seed)")
    batch.add_argument("--json", action="store_true", help="one record per line on stdout")
    batch.add_argument("--rkt", default=None,
                       help="rkt's path on every node (default $RKT_BINARY, else rkt on PATH)")
    batch.add_argument("--max-attempts", type=int, default=DEFAULT_MAX_ATTEMPTS,
                       help="judges a file may be lost with before its node_lost record "
                            "(default %(default)s)")
    batch.add_argument("--file-timeout", type=int, default=DEFAULT_FILE_TIMEOUT_S,
                       help="rkt eval --file-timeout (default %(default)s s)")
    batch.add_argument("--timeout", type=int, default=None, help="rkt eval --timeout")
    batch.add_argument("--benchmark-timeout", type=int, default=None,
                       help="rkt eval --benchmark-timeout")
    batch.add_argument("--allow-declarations", action="store_true",
                       help="rkt eval --allow-declarations")
    batch.add_argument("--seed", type=int, default=None,
                       help="the batch's RKT_SEED (default $RKT_SEED, else a fresh one, printed)")
    return top


def main(argv: Optional[List[str]] = None) -> int:
    options = parser().parse_args(argv)
    all_pass = True
    try:
        for record in evaluate(options.files, task=options.task, out=options.out,
                               recheck=options.recheck, address=options.address, rkt=options.rkt,
                               max_attempts=options.max_attempts,
                               file_timeout_s=options.file_timeout,
                               case_timeout_s=options.timeout,
                               benchmark_timeout_s=options.benchmark_timeout,
                               allow_declarations=options.allow_declarations, seed=options.seed):
            all_pass = all_pass and record.get("verdict") != "FAIL"
            if options.json:
                sys.stdout.write(json.dumps(record, ensure_ascii=False) + "\n")
                sys.stdout.flush()
    except (ValueError, RuntimeError, OSError) as error:
        sys.stderr.write("rkt_ray: error: %s\n" % error)
        return 2
    return 0 if all_pass else 1
