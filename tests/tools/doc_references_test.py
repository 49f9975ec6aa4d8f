#!/usr/bin/env python3
"""Every relative reference in README.md, docs/*.md and the comments of tools/*.sh points to a
file or folder of this repository that exists.

A reader follows these: a Markdown link `[text](path)`, or a path written in the text
(`docs/gpu.md`, `tools/aoti/build_packages.py`, `../shared/notes.md`). A link resolves from the
file's own folder (as GitHub renders it); a path that starts with one of the repository's top
folders resolves from the repository root; one that starts with `../` from the file's folder.
It fails, naming file, line and reference, on one that leaves the repository (a reader of a
clone does not have `../shared/`) or names something missing (a renamed or never written page).
Patterns and placeholders (`tests/*.sh`, `<build>/junit/`) and generated folders (`build/`,
`runs/`) are not references to files and are skipped, and so is a path of another repository,
written with its name in front (`robust-kbench:tasks/layernorm/func_forward.py`).

The commands must also run in the bootstrap's environment: torch is installed in its virtual
environment (`~/.cache/rkt/venv-torch-<version>`, tools/bootstrap.sh), so a command that imports
torch through the system's `python3` fails, and a venv path must name the version bootstrap.sh
installs.

Usage: doc_references_test.py REPO_ROOT       (prints every reference with --list)
"""
import pathlib
import re
import sys

# The folders a path written in prose starts from (the repository's top level).
TOP_FOLDERS = ("docs", "tools", "framework", "tests", "include", "kernels", "tasks", "examples",
               "cmake")
PATH = re.compile(r"(?<![\w./<>$:-])((?:\.\./)+[\w./+-]+|(?:%s)/[\w./+-]*)" % "|".join(TOP_FOLDERS))
LINK = re.compile(r"\]\(([^)\s]+)\)")
# A reference followed by one of these is a pattern or a placeholder, not a file.
PATTERN_TAIL = set("*<{$?[")


def documents(root):
    yield root / "README.md", False
    for path in sorted((root / "docs").glob("*.md")):
        yield path, False
    for path in sorted((root / "tools").glob("*.sh")):
        yield path, True


def comment_text(line):
    """The comment of a shell line ('' when it has none): from a '#' that starts a word."""
    match = re.search(r"(^|\s)#", line)
    return line[match.end():] if match else ""


def references(path, comments_only):
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        text = comment_text(line) if comments_only else line
        for match in LINK.finditer(text):
            target = match.group(1).split("#")[0]
            if target and not re.match(r"^[a-z][a-z0-9+.-]*:", target):
                yield number, target, "link"
        for match in PATH.finditer(text):
            target = match.group(1).rstrip(".,;:")
            end = match.end(1)
            if end < len(text) and text[end] in PATTERN_TAIL:
                continue
            if target.startswith("...") or target.endswith("..."):
                continue
            yield number, target, "path"


def problem(root, document, target, kind):
    # A link as GitHub renders it; a path in prose from the root (`../shared/x` leaves it).
    base = document.parent if kind == "link" else root
    resolved = (base / target).resolve()
    if resolved != root and root not in resolved.parents:
        return "points outside the repository"
    if not resolved.exists():
        return "names a missing file"
    return None


def environment_problems(root, document, comments_only):
    """Commands that would not run in the environment tools/bootstrap.sh makes."""
    version = re.search(r'RKT_TORCH_VERSION:-([0-9.]+)', (root / "tools/bootstrap.sh").read_text())
    text = document.read_text(encoding="utf-8")
    # A command may wrap: judge each line with the one after it.
    lines = text.splitlines() + [""]
    for number, (line, after) in enumerate(zip(lines, lines[1:]), 1):
        if comments_only:
            line, after = comment_text(line), comment_text(after)
        if re.search(r"(^|[\s`(])python3\b[^`]*$|(^|[\s`(])python3\b.*import torch", line) and \
                "import torch" in line + " " + after and "bin/python" not in line:
            yield number, "imports torch through the system's python3 (torch is in the bootstrap's venv)"
        for found in re.finditer(r"venv-torch-([0-9][0-9.]*[0-9])", line):
            if version and found.group(1) != version.group(1):
                yield number, (f"names venv-torch-{found.group(1)}, but tools/bootstrap.sh installs "
                               f"torch {version.group(1)}")


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    root = pathlib.Path(argv[1]).resolve()
    listing = "--list" in argv[2:]
    problems, count = [], 0
    for document, comments_only in documents(root):
        for number, target, kind in references(document, comments_only):
            count += 1
            name = document.relative_to(root)
            if listing:
                print(f"{name}:{number}: {target}")
            found = problem(root, document, target, kind)
            if found:
                problems.append(f"{name}:{number}: '{target}' {found}")
        for number, found in environment_problems(root, document, comments_only):
            problems.append(f"{document.relative_to(root)}:{number}: {found}")
    for line in problems:
        print("FAIL:", line)
    print(f"{count} references checked, {len(problems)} dangling")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
