"""One `rkt eval` child process, bounded in time and tied to the actor that started it.

A kernel that crashes or hangs ends inside rkt eval (its child judge and workers are killed
there); what is left for the actor is to bound rkt eval itself and to take it down with the
actor: the child runs in a process group of its own, is sent SIGTERM when the actor's process
dies (PR_SET_PDEATHSIG; rkt eval then kills its judges and compilers), and past its deadline
gets SIGTERM, then SIGKILL, as a group.
"""
from __future__ import annotations

import ctypes
import dataclasses
import os
import signal
import subprocess
import time
from typing import Dict, List, Optional

# After SIGTERM at the deadline, how long rkt eval has to kill its children and exit.
TERMINATE_GRACE_S = 10  # [s]
_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def _die_with_parent() -> None:
    """Runs in the child before exec: SIGTERM when the actor's process dies."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):
        pass  # not Linux: the deadline still bounds it


@dataclasses.dataclass
class ChildOutcome:
    exit_code: Optional[int]  # None: killed at the deadline; negative: the signal that ended it
    stdout: str
    seconds: float  # [s]


def _signal_group(process: subprocess.Popen, signal_number: int) -> None:
    try:
        os.killpg(process.pid, signal_number)
    except ProcessLookupError:
        pass


def run_eval_child(argv: List[str], environment: Dict[str, str], deadline_s: float,
                   log_path: str, working_directory: str) -> ChildOutcome:
    """Runs `argv`, its standard error to `log_path`; at most `deadline_s` seconds."""
    start = time.monotonic()
    with open(log_path, "w") as log:
        process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=log, env=environment,
                                   cwd=working_directory, text=True, start_new_session=True,
                                   preexec_fn=_die_with_parent)
        try:
            stdout, _ = process.communicate(timeout=deadline_s)
            return ChildOutcome(process.returncode, stdout, time.monotonic() - start)
        except subprocess.TimeoutExpired:
            _signal_group(process, signal.SIGTERM)
            try:
                stdout, _ = process.communicate(timeout=TERMINATE_GRACE_S)
            except subprocess.TimeoutExpired:
                _signal_group(process, signal.SIGKILL)
                stdout, _ = process.communicate()
            return ChildOutcome(None, stdout or "", time.monotonic() - start)
