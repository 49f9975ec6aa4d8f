"""A run folder's eval.jsonl: each file's records appended the moment they arrive.

The records are `rkt eval --json` lines. A file's records go out in one write, flushed and
synced before the driver moves on, so a driver killed mid-batch loses nothing already
written; at most its last line is cut short, and opening the log drops such a line (rkt eval's
reader skips it too) so that the next append starts on a line of its own.

Beside the log, `libraries/<library hash>/results.json` holds each judged library's own run
(its child judge's results, as rkt eval keeps them): rkt eval needs it to resume a kernel by
library hash, and the driver writes it before the record that refers to it.
"""
from __future__ import annotations

import collections
import json
import os
import pathlib
from typing import Dict, Iterable, List

RECORDS_FILE = "eval.jsonl"
LIBRARIES_FOLDER = "libraries"


def write_atomically(path: pathlib.Path, text: str) -> None:
    """Writes `text` beside `path` and renames it there: a reader never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    with open(partial, "w") as stream:
        stream.write(text)
        stream.flush()
        os.fsync(stream.fileno())
    os.replace(partial, path)


class RecordLog:
    """The records of one run folder, read back at the start and appended as files finish."""

    def __init__(self, folder: str):
        self.folder = pathlib.Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.path = self.folder / RECORDS_FILE
        self.records: List[dict] = []
        self._lines_by_name: Dict[str, List[str]] = collections.defaultdict(list)
        self._records_by_name: Dict[str, List[dict]] = collections.defaultdict(list)
        self._drop_cut_line()
        if self.path.exists():
            for line in self.path.read_text(errors="replace").splitlines():
                self._remember(line)

    def _drop_cut_line(self) -> None:
        """Truncates a last line without its newline: a write the driver did not finish."""
        if not self.path.exists():
            return
        data = self.path.read_bytes()
        if data and not data.endswith(b"\n"):
            with open(self.path, "r+b") as stream:
                stream.truncate(data.rfind(b"\n") + 1)

    def _remember(self, line: str) -> None:
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            return
        if not isinstance(record, dict) or "file" not in record:
            return
        self.records.append(record)
        name = os.path.basename(str(record["file"]))
        self._lines_by_name[name].append(line)
        self._records_by_name[name].append(record)

    @property
    def library_hashes(self) -> set:
        """Every library hash a record of this folder names."""
        return {r.get("library_hash") for r in self.records if r.get("library_hash")}

    def earlier_lines(self, name: str) -> List[str]:
        """The records of files of this base name (rkt eval's key holds the base name)."""
        return list(self._lines_by_name.get(name, []))

    def earlier_library_results(self, name: str) -> Dict[str, str]:
        """The kept run results of the libraries judged for files of this base name."""
        results = {}
        for record in self._records_by_name.get(name, []):
            library_hash = record.get("library_hash", "")
            if record.get("status") == "judged" and library_hash and library_hash not in results:
                text = self.library_results(library_hash)
                if text:
                    results[library_hash] = text
        return results

    def library_results(self, library_hash: str) -> str:
        """The child judge's results.json of a library judged before, or ""."""
        path = self.folder / LIBRARIES_FOLDER / library_hash / "results.json"
        return path.read_text() if path.exists() else ""

    def keep_library_results(self, results: Dict[str, str]) -> None:
        for library_hash, text in results.items():
            write_atomically(self.folder / LIBRARIES_FOLDER / library_hash / "results.json", text)

    def append(self, records: Iterable[dict]) -> None:
        """Appends records in one write, flushed to the disk before returning."""
        lines = [json.dumps(record, ensure_ascii=False) for record in records]
        if not lines:
            return
        with open(self.path, "a") as stream:
            stream.write("".join(line + "\n" for line in lines))
            stream.flush()
            os.fsync(stream.fileno())
        for line in lines:
            self._remember(line)
