#!/usr/bin/env python3
"""tools/include_layers.py --check: the real tree passes; trees that break a rule are refused.

    include_layers_test.py PROJECT_SOURCE_DIR
"""
import pathlib
import subprocess
import sys
import tempfile

source = pathlib.Path(sys.argv[1])
script = source / "tools" / "include_layers.py"


def check(root):
    return subprocess.run([sys.executable, str(script), "--root", str(root), "--check"],
                          capture_output=True, text=True)


def tree(files):
    root = pathlib.Path(tempfile.mkdtemp())
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (root / "include" / "rkt").mkdir(parents=True, exist_ok=True)
    return root


failures = []
real = check(source)
if real.returncode != 0:
    failures.append("the checkout itself fails:\n" + real.stdout + real.stderr)

cases = {
    "an include that reaches up": (
        {"framework/base/low.h": '#include "framework/cli/high.h"\n',
         "framework/cli/high.h": "\n"},
        "framework/base includes framework/cli"),
    "the judge using the worker": (
        {"framework/runs/report.cpp": '#include "framework/worker/sandbox.h"\n',
         "framework/worker/sandbox.h": "\n"},
        "framework/runs includes framework/worker"),
    "a public header including the framework": (
        {"include/rkt/task.h": '#include "framework/base/file_access.h"\n',
         "framework/base/file_access.h": "\n"},
        "public header include/rkt includes framework/base"),
    "a folder not in the order": (
        {"framework/misc/thing.h": "\n"}, "folder framework/misc is not in FOLDER_ORDER"),
    "a cycle across folders": (
        {"framework/base/a.h": '#include "framework/timing/b.h"\n',
         "framework/timing/b.h": '#include "framework/base/a.h"\n'},
        "a module cycle crosses folders"),
}
for name, (files, expected) in cases.items():
    result = check(tree(files))
    if result.returncode != 1 or expected not in result.stderr:
        failures.append(f"{name}: expected exit 1 naming '{expected}', got {result.returncode}:\n"
                        + result.stderr)

allowed = check(tree({"framework/cli/top.cpp": '#include "framework/base/low.h"\n',
                      "framework/base/low.h": '#include "rkt/task.h"\n'}))
if allowed.returncode != 0:
    failures.append("an include that reaches down was refused:\n" + allowed.stderr)

for failure in failures:
    print("FAILED: " + failure)
print(f"{len(cases) + 2 - len(failures)} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
