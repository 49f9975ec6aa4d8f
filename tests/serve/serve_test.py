#!/usr/bin/env python3
"""rkt serve on the CPU, with the clients a generation loop brings (issue 29):

- the records equal `rkt eval --json`'s for the same files, case by case;
- several concurrent clients, each answered on its own connection, served in turn (a client
  with three files queued does not hold back another's one file);
- a crashing kernel and a hanging kernel fail their own request, and the server answers after;
- malformed requests get an error line naming the problem, never a dead server;
- a client that disconnects mid-request loses its queued requests, and the server goes on;
- `rkt eval --server` prints the same records; `tools/rkt_serve_client.py` works as documented;
- the secret seed appears in no answer and no log line.

Usage: serve_test.py RKT CANDIDATES_DIR CLIENT_MODULE_DIR
Every wait is bounded: the whole test ends within its ctest TIMEOUT even if the server hangs.
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

rkt, candidates, client_dir = sys.argv[1:4]
sys.path.insert(0, client_dir)
from rkt_serve_client import RktServeClient, RktServeError, speedup_reward  # noqa: E402

SECRET = "918273645546372819"
work = tempfile.mkdtemp(prefix="rkt-serve-test-")
sock = os.path.join(work, "s.sock")
env = dict(os.environ, RKT_EVAL_CACHE=os.path.join(work, "cache"), RKT_SEED="20261203",
           RKT_SECRET_SEED=SECRET)
failures = []
received = []  # every line any client got, for the secret check


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL:", message, flush=True)


def outcomes(record):
    """Each case's name and status (its milliseconds differ from one judging to the next), and
    that every case carries its time."""
    for case in record["cases"]:
        check(isinstance(case.get("milliseconds"), (int, float)) and case["milliseconds"] >= 0,
              f"{case['name']}: no milliseconds in the record ({case})")
    return [(case["name"], case["status"]) for case in record["cases"]]


def candidate(name):
    return os.path.join(candidates, name)


def judged(client, **request):
    records = client.judge(**request)
    received.extend(json.dumps(r) for r in records)
    return records


server_log = open(os.path.join(work, "server.log"), "w")
server = subprocess.Popen([rkt, "serve", "--socket", sock, "--out", os.path.join(work, "serve"),
                           "--timeout", "20"], env=env, stdout=server_log, stderr=subprocess.STDOUT,
                          start_new_session=True)


def stop_server():
    if server.poll() is None:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)


def connect(timeout=300):
    return RktServeClient(sock, timeout=timeout)


try:
    deadline = time.monotonic() + 60
    while True:
        try:
            with connect(5) as probe:
                check(probe.ping() == 0, "a fresh server has nothing queued")
            break
        except (OSError, RktServeError):
            check(server.poll() is None, "the server exited at start")
            if server.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("FAIL: the server never answered a ping; its log:\n" +
                                 open(os.path.join(work, "server.log")).read())
            time.sleep(0.2)
    check(oct(os.stat(sock).st_mode & 0o777) == "0o600", "the socket is the owner's alone (0600)")

    # A second server on the same socket is refused, the first one unharmed.
    second = subprocess.run([rkt, "serve", "--socket", sock, "--out", os.path.join(work, "other")],
                            env=env, capture_output=True, text=True, timeout=60)
    check(second.returncode == 2 and "already listens" in second.stderr,
          f"a second server on a live socket: exit {second.returncode}, {second.stderr!r}")

    # 1. The same records as rkt eval --json, case by case (the same seed, the same cache).
    files = ["relu_honest.cpp", "relu_wrong_edge.cpp"]
    eval_run = subprocess.run([rkt, "eval", *[candidate(f) for f in files], "--json", "--timeout", "20",
                               "--out", os.path.join(work, "eval")], env=env, capture_output=True,
                              text=True, timeout=900)
    eval_records = {os.path.basename(json.loads(l)["file"]): json.loads(l)
                    for l in eval_run.stdout.splitlines() if l.strip()}
    check(set(eval_records) == set(files), f"rkt eval gave records for {sorted(eval_records)}")

    # 2. Three concurrent clients: two send the same two files, one a crash and a hang.
    results = {}

    def client_thread(name, requests):
        try:
            with connect() as client:
                ids = [(request, client.submit(**request)) for request in requests]
                results[name] = [(request, client.results(i)) for request, i in ids]
        except Exception as error:  # reported below as a failure of this client
            results[name] = error

    threads = [
        threading.Thread(target=client_thread, args=(
            "a", [dict(file=candidate(f)) for f in files])),
        threading.Thread(target=client_thread, args=(
            "b", [dict(file=candidate("relu_honest.cpp"))])),
        threading.Thread(target=client_thread, args=(
            "c", [dict(file=candidate("relu_crash.cpp")),
                  dict(file=candidate("relu_hang.cpp"), timeout=5)])),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=900)
    check(not any(thread.is_alive() for thread in threads), "a client waited past 900 s")
    for name in "ab":
        outcome = results.get(name)
        check(isinstance(outcome, list), f"client {name}: {outcome!r}")
        if not isinstance(outcome, list):
            continue
        for request, records in outcome:
            received.extend(json.dumps(r) for r in records)
            base = os.path.basename(request["file"])
            check(len(records) == 1, f"client {name}, {base}: {len(records)} records")
            if not records or base not in eval_records:
                continue
            served, local = records[0], eval_records[base]
            check(served["verdict"] == local["verdict"],
                  f"{base}: served {served['verdict']}, rkt eval {local['verdict']}")
            check(outcomes(served) == outcomes(local),
                  f"{base}: the cases differ from rkt eval's:\n{served['cases']}\n{local['cases']}")
            check(served["library_hash"] == local["library_hash"], f"{base}: another library")
            check(set(served) == set(local), f"{base}: other fields than rkt eval's record: "
                                             f"{sorted(set(served) ^ set(local))}")
    outcome = results.get("c")
    check(isinstance(outcome, list), f"client c: {outcome!r}")
    if isinstance(outcome, list):
        for request, records in outcome:
            received.extend(json.dumps(r) for r in records)
            base = os.path.basename(request["file"])
            check(len(records) == 1 and records[0]["verdict"] == "FAIL", f"{base}: {records}")
            failure = (records[0].get("first_failure") or {}) if records else {}
            if base == "relu_crash.cpp":  # the worker died: its case failed, naming the signal
                check("signal 11" in failure.get("message", ""), f"the crash's first failure: {failure}")
            else:  # the hang: killed by the case time limit, its other cases not run
                check(failure.get("status") == "crashed" and "killed (hang)" in failure.get("message", ""),
                      f"the hang's first failure: {failure}")
    check(server.poll() is None, "the server died of a crashing or hanging kernel")
    honest = [records for request, records in results.get("a", []) if "honest" in request["file"]]
    if honest and honest[0] and honest[0][0]["benchmark"].get("measured"):
        check(speedup_reward(honest[0]) > 0, "the honest kernel earns a reward")
    wrong = [records for request, records in results.get("a", []) if "wrong" in request["file"]]
    if wrong:
        check(speedup_reward(wrong[0]) == 0.0, "a failing kernel earns nothing")

    # 3. Malformed requests: an error line each, the server alive after.
    raw = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    raw.settimeout(60)
    raw.connect(sock)
    bad = [b"this is not json", b'{"id": "n1", "file": 3}', b'{"id": "n2"}',
           b'{"id": "n3", "file": "/x.cpp", "colour": "red"}',
           b'{"id": "n4", "source": "int x;", "name": "../escape.cpp"}',
           b'{"id": "n5", "file": "/x.cpp", "timeout": -4}', b'[1, 2]',
           b'{"id": "n6", "file": "/x.cpp", "allow_declarations": true}']
    raw.sendall(b"\n".join(bad) + b"\n")
    answers, buffer = [], b""
    while len(answers) < len(bad):
        chunk = raw.recv(65536)
        if not chunk:
            break
        buffer += chunk
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            answers.append(json.loads(line))
    raw.close()
    check(len(answers) == len(bad) and all("error" in a for a in answers),
          f"each malformed request gets an error line: {answers}")
    by_id = {a.get("id"): a["error"] for a in answers}
    for request_id, words in (("n1", '"file" takes a string'), ("n2", '"file"'),
                              ("n3", 'unknown field "colour"'), ("n4", '"name"'),
                              ("n5", "positive whole number"), ("n6", "--allow-declarations")):
        check(words in by_id.get(request_id, ""), f"{request_id}: {by_id.get(request_id)!r} lacks {words!r}")
    check(any(a.get("id") is None and "not JSON" in a["error"] for a in answers), "a non-JSON line is named")

    # A missing file is a record (as in rkt eval), not an error; a source sent as text works.
    with connect() as client:
        missing = judged(client, file=os.path.join(work, "missing.cpp"))
        check(len(missing) == 1 and missing[0]["status"] == "missing_file", f"missing file: {missing}")
        text = open(candidate("relu_honest.cpp")).read()
        inline = judged(client, source=text, name="relu_honest.cpp")
        check(len(inline) == 1 and inline[0]["verdict"] == eval_records["relu_honest.cpp"]["verdict"],
              f"a source sent as text: {inline}")
        check(inline and inline[0]["library_hash"] == eval_records["relu_honest.cpp"]["library_hash"],
              "a source sent as text hits the same cache entry as the file")

    # 4. A client that disconnects mid-request: its queued requests dropped, the server goes on.
    gone = RktServeClient(sock, timeout=60)
    gone.submit(file=candidate("relu_hang.cpp"), timeout=5)
    for _ in range(3):
        gone.submit(file=candidate("relu_honest.cpp"))
    time.sleep(1.0)
    gone.close()
    # 5. Fairness: client x queues two files, then y one (while the gone client's hang is still
    # being judged); y's answer comes before x's second.
    order = []
    lock = threading.Lock()

    def queue_and_wait(name, count):
        with connect() as client:
            ids = [client.submit(file=candidate("relu_honest.cpp")) for _ in range(count)]
            for index, request_id in enumerate(ids):
                client.results(request_id)
                with lock:
                    order.append((name, index))

    x = threading.Thread(target=queue_and_wait, args=("x", 2))
    x.start()
    time.sleep(0.5)
    y = threading.Thread(target=queue_and_wait, args=("y", 1))
    y.start()
    for thread in (x, y):
        thread.join(timeout=900)
    check(("y", 0) in order and ("x", 1) in order and order.index(("y", 0)) < order.index(("x", 1)),
          f"clients served in turn: {order}")
    with connect(60) as client:
        check(client.ping() == 0, "nothing left queued (the gone client's requests were dropped)")
    log = open(os.path.join(work, "server.log")).read()
    check("went away; dropped its" in log, "the server says it dropped a gone client's requests")

    # 6. rkt eval --server: the same records, exit 1 for a failing file.
    cli = subprocess.run([rkt, "eval", "--server", sock, candidate("relu_wrong_edge.cpp"), "--json"],
                         env=env, capture_output=True, text=True, timeout=900)
    check(cli.returncode == 1, f"rkt eval --server with a failing file exits {cli.returncode}: {cli.stderr}")
    cli_records = {os.path.basename(json.loads(l)["file"]): json.loads(l)
                   for l in cli.stdout.splitlines() if l.strip()}
    for base in ["relu_wrong_edge.cpp"]:
        check(base in cli_records and outcomes(cli_records[base]) == outcomes(eval_records[base]),
              f"rkt eval --server: {base}'s cases differ from rkt eval's")
    received.extend(cli.stdout.splitlines())
    refused = subprocess.run([rkt, "eval", "--server", sock, candidate("relu_honest.cpp"), "--recheck", "1"],
                             env=env, capture_output=True, text=True, timeout=60)
    check(refused.returncode == 2 and "--recheck does not go with --server" in refused.stderr,
          f"--recheck with --server: {refused.returncode} {refused.stderr!r}")
    nobody = subprocess.run([rkt, "eval", "--server", os.path.join(work, "none.sock"), candidate("relu_honest.cpp")],
                            env=env, capture_output=True, text=True, timeout=60)
    check(nobody.returncode == 2 and "no rkt serve answers" in nobody.stderr,
          f"no server: {nobody.returncode} {nobody.stderr!r}")

    # 7. The Python client's command line.
    tool = subprocess.run([sys.executable, os.path.join(client_dir, "rkt_serve_client.py"), "--socket", sock,
                           candidate("relu_honest.cpp")], capture_output=True, text=True, timeout=900)
    check(tool.returncode == 0 and json.loads(tool.stdout.splitlines()[0])["verdict"] == "pass",
          f"rkt_serve_client.py: {tool.returncode} {tool.stdout[:300]!r} {tool.stderr!r}")
    received.extend(tool.stdout.splitlines())

    # 8. Secrets stay in the server.
    log = open(os.path.join(work, "server.log")).read()
    check(all(SECRET not in line for line in received), "the secret seed reached a client")
    check(SECRET not in log, "the secret seed is in the server's log")
    records_file = open(os.path.join(work, "serve", "eval.jsonl")).read()
    check(SECRET not in records_file, "the secret seed is in eval.jsonl")
    check(server.poll() is None, "the server is still up at the end")
finally:
    stop_server()
    server_log.close()

if failures:
    print(open(os.path.join(work, "server.log")).read()[-6000:])
    print(f"{len(failures)} checks failed")
    sys.exit(1)
shutil.rmtree(work, ignore_errors=True)
print("rkt serve: every check passed")
