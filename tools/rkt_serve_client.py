#!/usr/bin/env python3
"""A client of `rkt serve` (docs/serve.md), for generation loops and RL rewards.

The server judges each kernel file as `rkt eval` does and answers with the same records. This
module needs nothing beyond the standard library:

    from rkt_serve_client import RktServeClient
    with RktServeClient("/tmp/rkt.sock") as client:
        records = client.judge(source=text, name="cand.cu", task="relu")
        reward = speedup_reward(records)

Several requests may be in flight on one connection (`submit` then `results`), and several
clients may share one server: it serves them in turn, one judgement per GPU at a time.

From the shell: `python3 tools/rkt_serve_client.py --socket PATH FILE...` prints one record per
kernel, as `rkt eval --json` does.
"""
import argparse
import itertools
import json
import os
import socket
import sys
import time


class RktServeError(RuntimeError):
    """The server refused a request (its message says why) or went away."""


class RktServeClient:
    def __init__(self, socket_path, timeout=None):
        """Connects to the server on `socket_path`. `timeout` [s] bounds every wait for an answer
        (None: wait as long as the server's own time limits let a judgement run)."""
        self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._socket.settimeout(timeout)
        self._socket.connect(socket_path)
        self._buffer = b""
        self._ids = itertools.count(1)
        self._answers = {}  # request id -> lines received, for requests read past

    def close(self):
        self._socket.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _send(self, request):
        self._socket.sendall((json.dumps(request) + "\n").encode())

    def _read_line(self):
        while b"\n" not in self._buffer:
            chunk = self._socket.recv(1 << 16)
            if not chunk:
                raise RktServeError("the server closed the connection")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return json.loads(line)

    def ping(self):
        """How many requests wait in the server's queues."""
        request_id = f"ping-{next(self._ids)}"
        self._send({"id": request_id, "op": "ping"})
        for line in self._lines_of(request_id):
            if line.get("pong"):
                return line["queued"]
        raise RktServeError("no answer to ping")

    def submit(self, file=None, source=None, name=None, task=None, timeout=None,
               benchmark_timeout=None, file_timeout=None, allow_declarations=False):
        """Sends one request and returns its id. `file`: a path on the server's machine; or
        `source`: the file's text with its `name` ("cand.cu"). Time limits in seconds."""
        request_id = str(next(self._ids))
        request = {"id": request_id}
        if file is not None:
            request["file"] = os.path.abspath(file)
        if source is not None:
            request["source"] = source
            request["name"] = name
        for key, value in (("task", task), ("timeout", timeout),
                           ("benchmark_timeout", benchmark_timeout), ("file_timeout", file_timeout)):
            if value is not None:
                request[key] = value
        if allow_declarations:
            request["allow_declarations"] = True
        self._send(request)
        return request_id

    def _lines_of(self, request_id):
        """The answers to `request_id` up to its closing line, keeping others' for later."""
        for line in self._answers.pop(request_id, []):
            yield line
            if line.get("done") or "error" in line or line.get("pong"):
                return
        while True:
            line = self._read_line()
            line_id = line.get("id")
            if line_id != request_id:
                if line_id is None and "error" in line:
                    raise RktServeError(line["error"])
                self._answers.setdefault(line_id, []).append(line)
                continue
            yield line
            if line.get("done") or "error" in line or line.get("pong"):
                return

    def results(self, request_id):
        """The records of a submitted request (one per kernel, as `rkt eval --json` prints them).
        Raises RktServeError when the server refused it."""
        records = []
        for line in self._lines_of(request_id):
            if "error" in line:
                raise RktServeError(line["error"])
            if "record" in line:
                records.append(line["record"])
        return records

    def judge(self, **request):
        """submit + results: the records of one file."""
        return self.results(self.submit(**request))


def speedup_reward(records):
    """An example reward: 0 for any failure, else the low end of the speedup interval against the
    strongest baseline (a kernel that merely ties the baseline earns about 1), averaged over the
    file's kernels. A record that was not timed (timing refused) earns nothing: no evidence."""
    if not records or any(record["verdict"] != "pass" for record in records):
        return 0.0
    total = 0.0
    for record in records:
        benchmark = record.get("benchmark") or {}
        if not benchmark.get("measured"):
            return 0.0
        total += benchmark["speedup_vs_strongest"]["low"]
    return total / len(records)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--socket", required=True, help="the server's Unix socket")
    parser.add_argument("--task", help="only this task's kernels")
    parser.add_argument("--timeout", type=int, help="each case's time limit [s]")
    parser.add_argument("--wait", type=float, default=0,
                        help="wait up to this many seconds for the server to answer a ping first")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    deadline = time.monotonic() + args.wait
    while True:
        try:
            client = RktServeClient(args.socket)
            client.ping()
            break
        except (OSError, RktServeError) as error:
            if time.monotonic() >= deadline:
                print(f"rkt_serve_client: no server on {args.socket}: {error}", file=sys.stderr)
                return 2
            time.sleep(0.2)
    with client:
        ids = [client.submit(file=path, task=args.task, timeout=args.timeout) for path in args.files]
        failed = refused = False
        for path, request_id in zip(args.files, ids):
            try:
                for record in client.results(request_id):
                    print(json.dumps(record), flush=True)
                    failed = failed or record["verdict"] == "FAIL"
            except RktServeError as error:
                print(f"rkt_serve_client: {path}: {error}", file=sys.stderr)
                refused = True
    return 2 if refused else 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
