"""Load on `paimon serve` from clients nobody here wrote (run by scripts/load-serve.sh, and in
short by scripts/test-serve.sh):

- CLIENTS threads for LOAD_SECONDS, in four roles by index: pypaimon 2.1 committers (REST commits,
  one batch of BATCH rows each), pypaimon REST loadTable callers, pyarrow.flight Flight SQL
  aggregates (`count(*)`, `count(DISTINCT id)`), and pyarrow.flight scans whose endpoints are
  read from a worker (`paimon serve --worker-bind`); beside them, Java 1.4.2's RESTCatalog
  commits in a loop (scripts/java-oracle.sh rest-write);
- every read must see whole commits only: ids distinct and, per commit, all BATCH rows or none;
- afterwards, per table, the snapshots are dense (1..N), the APPEND snapshots are exactly the
  commits that reported success, and pypaimon's read of the table is exactly their rows (no
  lost, no doubled commit); no client saw an error;
- the peak RSS (VmHWM) of the server and of the worker is reported;
- a worker killed (SIGKILL) while a client reads a scan endpoint from it: the client gets an
  error, never a stream that ends cleanly with part of the rows.

Environment: PAIMON (the CLI), ORACLE (scripts/java-oracle.sh), CLIENTS (default 32), LOAD_SECONDS
(default 60), BIG_ROWS (rows of the table read while its worker is killed, default 1000000).
Prints one JSON line of results and exits non-zero on any failure.
"""

import collections
import json
import logging
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

import pyarrow as pa
import pyarrow.flight as flight

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "interop", "peers"))
from pypaimon_rest import SCHEMA, catalog  # noqa: E402
from pypaimon import Schema  # noqa: E402

from flight_proto import statement  # noqa: E402

PAIMON = os.environ["PAIMON"]
ORACLE = os.environ["ORACLE"]
CLIENTS = int(os.environ.get("CLIENTS", "32"))
SECONDS = float(os.environ.get("LOAD_SECONDS", "60"))
BIG_ROWS = int(os.environ.get("BIG_ROWS", "1000000"))
BATCH = 50
TABLES = [f"load.t{k}" for k in range(4)]
# Java's rest-write serves the warehouse by this name.
NAME = "rest_warehouse"
TOKEN = "tok-load"
JAVA_BASE = 10_000_000 // BATCH  # commit numbers of the Java writer: ids from 10,000,000


def start(args):
    """Starts `paimon serve ARGS`; returns the process and the URLs it prints (one per line)."""
    proc = subprocess.Popen([PAIMON, "serve", *args], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, text=True)
    return proc


def read_url(proc, scheme):
    line = proc.stdout.readline().strip()
    assert line.startswith(scheme), line
    return line


def peak_rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return None


def batch_of(c):
    ids = list(range(c * BATCH, (c + 1) * BATCH))
    return pa.Table.from_pydict({"id": ids, "v": [f"c{c}" for i in ids]}, schema=SCHEMA)


def commit(cat, name, c):
    t = cat.get_table(name)
    wb = t.new_batch_write_builder()
    w = wb.new_write()
    cm = wb.new_commit()
    try:
        w.write_arrow(batch_of(c))
        cm.commit(w.prepare_commit())
    finally:
        w.close()
        cm.close()


def whole_commits(ids, what):
    """Every commit seen whole: distinct ids, BATCH of each commit number or none."""
    if len(ids) != len(set(ids)):
        dup = [i for i, n in collections.Counter(ids).items() if n > 1][:5]
        raise AssertionError(f"{what}: {len(ids) - len(set(ids))} doubled ids, e.g. {dup}")
    per = collections.Counter(i // BATCH for i in ids)
    torn = {c: n for c, n in per.items() if n != BATCH}
    if torn:
        raise AssertionError(f"{what}: commits seen in part (commit: rows): {dict(list(torn.items())[:5])}")


class Retries(logging.Handler):
    """Counts pypaimon's commit retries (a snapshot id another commit took first: the server
    answered `success: false`) instead of printing each."""

    def __init__(self):
        super().__init__()
        self.count = 0

    def emit(self, record):
        if "Atomic commit failed" in record.getMessage():
            self.count += 1
        else:
            sys.stderr.write(self.format(record) + "\n")


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.ops = collections.Counter()
        self.seconds = collections.Counter()
        self.errors = []
        self.committed = collections.defaultdict(list)  # table -> commit numbers

    def done(self, role, started):
        with self.lock:
            self.ops[role] += 1
            self.seconds[role] += time.time() - started

    def error(self, role, e):
        with self.lock:
            self.errors.append(f"{role}: {type(e).__name__}: {str(e)[:300]}")


def client(i, rest, planner, deadline, stats, next_commit):
    role = ("commit", "loadTable", "flight-aggregate", "flight-scan")[i % 4]
    table = TABLES[(i // 4) % len(TABLES)]
    headers = flight.FlightCallOptions(headers=[(b"authorization", f"Bearer {TOKEN}".encode())])
    cat = catalog(rest, NAME, TOKEN) if role in ("commit", "loadTable") else None
    fc = flight.FlightClient(planner) if role.startswith("flight") else None
    workers = {}
    while time.time() < deadline:
        started = time.time()
        try:
            if role == "commit":
                with stats.lock:
                    c = next(next_commit)
                commit(cat, table, c)
                with stats.lock:
                    stats.committed[table].append(c)
            elif role == "loadTable":
                t = cat.get_table(table)
                assert [f.name for f in t.fields] == ["id", "v"], t.fields
            elif role == "flight-aggregate":
                sql = f"SELECT count(*) AS n, count(DISTINCT id) AS d FROM {table}"
                info = fc.get_flight_info(flight.FlightDescriptor.for_command(statement(sql)), headers)
                rows = [r for ep in info.endpoints for r in fc.do_get(ep.ticket, headers).read_all().to_pylist()]
                assert len(rows) == 1 and rows[0]["n"] == rows[0]["d"] and rows[0]["n"] % BATCH == 0, rows
            else:
                sql = f"SELECT id FROM {table}"
                info = fc.get_flight_info(flight.FlightDescriptor.for_command(statement(sql)), headers)
                ids = []
                for ep in info.endpoints:
                    assert ep.locations, "a scan endpoint without a worker"
                    loc = ep.locations[0].uri.decode()
                    if loc not in workers:
                        workers[loc] = flight.FlightClient(loc)
                    ids += workers[loc].do_get(ep.ticket, headers).read_all().column("id").to_pylist()
                whole_commits(ids, f"a Flight scan of {table}")
            stats.done(role, started)
        except Exception as e:  # every error is a failure of the run, reported at the end
            stats.error(role, e)
            time.sleep(0.2)


def java_writer(rest, deadline, stats, tmp):
    """Java's RESTCatalog commits into TABLES[0] in a loop, one process per commit."""
    j = 0
    while time.time() < deadline:
        c = JAVA_BASE + j
        j += 1
        started = time.time()
        run = subprocess.run([ORACLE, "rest-write", rest, TABLES[0], "--from", str(c * BATCH),
                              "--to", str((c + 1) * BATCH), "--token", TOKEN],
                             capture_output=True, text=True)
        if run.returncode == 0:
            with stats.lock:
                stats.committed[TABLES[0]].append(c)
            stats.done("java-commit", started)
        else:
            stats.error("java-commit", RuntimeError(run.stderr[-500:]))


def snapshots(wh, table):
    db, t = table.split(".")
    d = os.path.join(wh, f"{db}.db", t, "snapshot")
    ids = sorted(int(f[len("snapshot-"):]) for f in os.listdir(d) if f.startswith("snapshot-"))
    kinds = collections.Counter()
    for s in ids:
        with open(os.path.join(d, f"snapshot-{s}")) as f:
            kinds[json.load(f)["commitKind"]] += 1
    return ids, kinds


def read_ids(rest, table):
    t = catalog(rest, NAME, TOKEN).get_table(table)
    rb = t.new_read_builder()
    return rb.new_read().to_arrow(rb.new_scan().plan().splits()).column("id").to_pylist()


def kill_worker_mid_stream(planner, worker, headers):
    """Reads the big table's first endpoint from the worker, kills it after the first batch."""
    fc = flight.FlightClient(planner)
    info = fc.get_flight_info(flight.FlightDescriptor.for_command(statement("SELECT * FROM load.big")), headers)
    eps = [ep for ep in info.endpoints if ep.locations]
    assert eps, "no endpoint names the worker"
    reader = flight.FlightClient(eps[0].locations[0].uri.decode()).do_get(eps[0].ticket, headers)
    rows = reader.read_chunk().data.num_rows
    worker.send_signal(signal.SIGKILL)
    worker.wait()
    try:
        while True:
            rows += reader.read_chunk().data.num_rows
    except StopIteration:
        raise AssertionError(f"the stream ended cleanly after the worker was killed, with {rows} rows")
    except (flight.FlightError, pa.ArrowException, OSError) as e:
        return rows, f"{type(e).__name__}: {str(e).splitlines()[0][:160]}"


def main():
    started = time.time()
    result = {"clients": CLIENTS, "seconds": SECONDS}
    failures = []
    stats = Stats()
    retries = Retries()
    commit_log = logging.getLogger("pypaimon.write.file_store_commit")
    commit_log.addHandler(retries)
    commit_log.propagate = False
    with tempfile.TemporaryDirectory() as tmp:
        wh = os.path.join(tmp, NAME)
        os.makedirs(wh)
        users = os.path.join(tmp, "users")
        with open(users, "w") as f:
            f.write(f"{TOKEN} loader admin\n")
        worker = start([wh, "--worker-bind", "127.0.0.1:0", "--auth", users])
        server = None
        try:
            worker_url = read_url(worker, "grpc://")
            server = start([wh, "--rest-bind", "127.0.0.1:0", "--flight-bind", "127.0.0.1:0",
                            "--auth", users, "--workers", worker_url])
            rest = read_url(server, "http://")
            planner = read_url(server, "grpc://")
            headers = flight.FlightCallOptions(headers=[(b"authorization", f"Bearer {TOKEN}".encode())])

            # Setup: the tables, each with one commit, and the big table.
            cat = catalog(rest, NAME, TOKEN)
            cat.create_database("load", True)
            next_commit = iter(range(1, 10**9))
            for name in TABLES + ["load.big"]:
                cat.create_table(name, Schema.from_pyarrow_schema(SCHEMA), True)
            for name in TABLES:
                c = next(next_commit)
                commit(cat, name, c)
                stats.committed[name].append(c)
            t = cat.get_table("load.big")
            wb = t.new_batch_write_builder()
            w, cm = wb.new_write(), wb.new_commit()
            ids = list(range(BIG_ROWS))
            w.write_arrow(pa.Table.from_pydict({"id": ids, "v": [f"big-row-{i:012d}" for i in ids]}, schema=SCHEMA))
            cm.commit(w.prepare_commit())
            w.close()
            cm.close()
            del ids
            result["setup_s"] = round(time.time() - started, 1)

            deadline = time.time() + SECONDS
            threads = [threading.Thread(target=client, args=(i, rest, planner, deadline, stats, next_commit))
                       for i in range(CLIENTS)]
            threads.append(threading.Thread(target=java_writer, args=(rest, deadline, stats, tmp)))
            load_started = time.time()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            result["load_s"] = round(time.time() - load_started, 1)
            result["ops"] = dict(stats.ops)
            result["mean_ms"] = {r: round(1000 * stats.seconds[r] / n, 1) for r, n in stats.ops.items()}

            failures += stats.errors
            commits = 0
            for name in TABLES:
                done = sorted(stats.committed[name])
                commits += len(done)
                ids, kinds = snapshots(wh, name)
                if ids != list(range(1, len(ids) + 1)):
                    failures.append(f"{name}: snapshot ids not dense: {ids[:5]}..{ids[-5:]}")
                if kinds["APPEND"] != len(done):
                    failures.append(f"{name}: {kinds['APPEND']} APPEND snapshots for {len(done)} commits ({dict(kinds)})")
                got = read_ids(rest, name)
                want = [i for c in done for i in range(c * BATCH, (c + 1) * BATCH)]
                if sorted(got) != sorted(want):
                    lost = len(set(want) - set(got))
                    failures.append(f"{name}: pypaimon reads {len(got)} rows, the {len(done)} commits wrote "
                                    f"{len(want)} ({lost} lost, {len(got) - len(set(got))} doubled)")
            result["commits"] = commits
            result["pypaimon_commit_retries"] = retries.count
            result["server_peak_rss_mib"] = peak_rss_mib(server.pid)
            result["worker_peak_rss_mib"] = peak_rss_mib(worker.pid)

            try:
                rows, err = kill_worker_mid_stream(planner, worker, headers)
                result["killed_worker"] = {"rows_before_error": rows, "error": err}
            except AssertionError as e:
                failures.append(str(e))
        finally:
            if worker.poll() is None:
                worker.kill()
            if server is not None:
                server.send_signal(signal.SIGTERM)
                if server.wait(timeout=30) != 0:
                    failures.append("paimon serve did not stop cleanly on SIGTERM")
    result["errors"] = len(stats.errors)
    result["total_s"] = round(time.time() - started, 1)
    print(json.dumps(result))
    if failures:
        for f in failures[:20]:
            print("FAIL", f)
        sys.exit(1)


if __name__ == "__main__":
    main()
