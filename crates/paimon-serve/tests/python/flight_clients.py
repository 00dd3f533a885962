"""Flight SQL clients nobody here wrote, against the Flight SQL service over the bundled
fixtures warehouse (run by scripts/test-flight.sh, which installs them):

- ADBC (adbc-driver-flightsql): queries, the basic-auth handshake and a bearer header, a wrong
  token refused, and execute_partitions / read_partition read in parallel with the same rows
  as `paimon sql`;
- pyarrow.flight reads the tickets of GetFlightInfo, and a hostile ticket is an error after
  which the server still answers;
- every split of a scan ticket is a split `paimon read-split` reads: together, the rows of
  `paimon sql`.

- over TLS (`paimon serve --tls-cert --tls-key`, a self-signed certificate made here with
  openssl): ADBC and pyarrow.flight at `grpc+tls://` with the certificate as their root read
  the same rows (partitions in parallel too), also from a worker over TLS; a client without
  that root, and a plaintext one, are refused; a bad certificate or key file stops the server
  with one line naming it. Mutual TLS (`--tls-client-ca`): with a client certificate the CA
  issued, ADBC and pyarrow.flight read through a planner and at its worker; without one, or
  with another CA's, they are refused and the servers keep serving.

- the Arrow Flight SQL JDBC driver, through the Java oracle's flight-sql-query and
  flight-sql-tables (ORACLE: scripts/java-oracle.sh), runs a query (rows of `paimon sql`),
  browses GetTables, and a wrong token is refused.

Environment: PAIMON (the CLI, whose `paimon serve --flight-bind` is the server), WAREHOUSE, ORACLE.
"""

import base64
import concurrent.futures
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

import adbc_driver_flightsql.dbapi as flightsql
import pyarrow as pa
import pyarrow.flight as flight

from flight_proto import any_of, parse_any, statement

PAIMON = os.environ["PAIMON"]
WAREHOUSE = os.path.abspath(os.environ["WAREHOUSE"])
ORACLE = os.environ["ORACLE"]
SCAN_TICKET_TYPE = "type.googleapis.com/paimon.rs.ScanTicket"
USERS = "tok-alice alice read\ntok-bob bob read:pk\n"


def start_server(tmp, tls=()):
    """`paimon serve`: the REST catalog (its URL first) and Flight SQL (`grpc://HOST:PORT`, or
    `grpc+tls://` with `tls` = (cert, key)); returns the process and the Flight URL."""
    auth = os.path.join(tmp, "users")
    with open(auth, "w") as f:
        f.write(USERS)
    tls_args = ["--tls-cert", tls[0], "--tls-key", tls[1]] if tls else []
    proc = subprocess.Popen(
        [PAIMON, "serve", WAREHOUSE, "--auth", auth, "--rest-bind", "127.0.0.1:0",
         "--flight-bind", "127.0.0.1:0", "--flight-target-partitions", "4", *tls_args],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True)
    rest = proc.stdout.readline()
    assert rest.startswith("https://" if tls else "http://"), rest
    line = proc.stdout.readline().strip()
    assert line.startswith("grpc+tls://" if tls else "grpc://"), line
    return proc, line


def stop_server(proc):
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=20) == 0, "paimon serve did not stop cleanly on SIGTERM"


def self_signed(tmp, name, cn="localhost"):
    """A self-signed certificate for localhost and 127.0.0.1 (openssl): (cert, key) paths."""
    cert, key = os.path.join(tmp, name + ".crt"), os.path.join(tmp, name + ".key")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-keyout", key, "-out", cert, "-subj", "/CN=" + cn,
                    "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
                   check=True, capture_output=True)
    return cert, key


def paimon_sql_rows(sql):
    out = subprocess.run([PAIMON, "sql", WAREHOUSE, sql, "--format", "jsonl"],
                         check=True, capture_output=True, text=True).stdout
    return sorted(json.dumps(json.loads(l), sort_keys=True) for l in out.splitlines() if l)


def paimon_sql_list(sql):
    """`paimon sql`'s rows of `sql` in its order, as dicts."""
    out = subprocess.run([PAIMON, "sql", WAREHOUSE, sql, "--format", "jsonl"],
                         check=True, capture_output=True, text=True).stdout
    return [json.loads(l) for l in out.splitlines() if l]


def table_rows(table):
    return sorted(json.dumps(r, sort_keys=True) for r in table.to_pylist())


def main():
    started = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        proc, uri = start_server(tmp)
        try:
            run(uri, tmp)
        finally:
            stop_server(proc)
        run_memory_limit(tmp)
        tls_started = time.time()
        run_tls(tmp)
        print(f"flight clients over TLS: ok in {time.time() - tls_started:.1f}s")
    print(f"flight clients: ok in {time.time() - started:.1f}s")


def run_memory_limit(tmp):
    """`--memory-limit`: a sort over it fails at the client with the reason, the server
    serves on; the same sort, unbounded, gives `paimon sql`'s rows (checked in run())."""
    auth = os.path.join(tmp, "users")
    with open(auth, "w") as f:
        f.write(USERS)
    proc = subprocess.Popen(
        [PAIMON, "serve", WAREHOUSE, "--auth", auth, "--rest-bind", "127.0.0.1:0",
         "--flight-bind", "127.0.0.1:0", "--memory-limit", "64KiB"],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True)
    try:
        proc.stdout.readline()
        uri = proc.stdout.readline().strip()
        with flightsql.connect(uri, db_kwargs={"username": "alice",
                                               "password": "tok-alice"}) as conn:
            cur = conn.cursor()
            try:
                cur.execute(SORTED)
                cur.fetch_arrow_table()
                raise AssertionError("a sort over --memory-limit 64KiB ran")
            except flightsql.Error as e:
                assert "Resources exhausted" in str(e), e
            cur.execute("SELECT count(*) AS n FROM append.unaware")
            assert cur.fetch_arrow_table().to_pylist() == [{"n": 90}]
    finally:
        stop_server(proc)


SORTED = "SELECT id, name FROM append.unaware WHERE id < 10 ORDER BY name DESC, id"


def run(uri, tmp):
    partitioned = "SELECT * FROM pk.partitioned"
    expected = paimon_sql_rows(partitioned)
    assert len(expected) == 40, len(expected)

    # ADBC, basic-auth handshake (user name, token as password).
    with flightsql.connect(uri, db_kwargs={"username": "alice", "password": "tok-alice"}) as conn:
        cur = conn.cursor()
        cur.execute(partitioned)
        assert table_rows(cur.fetch_arrow_table()) == expected
        sql = "SELECT id, name FROM append.unaware WHERE id < 10"
        cur.execute(sql)
        assert table_rows(cur.fetch_arrow_table()) == paimon_sql_rows(sql)
        cur.execute("SELECT count(*) AS n FROM append.unaware")
        assert cur.fetch_arrow_table().to_pylist() == [{"n": 90}]
        cur.execute(SORTED)
        assert cur.fetch_arrow_table().to_pylist() == paimon_sql_list(SORTED)

        # Parameters (a prepared statement's DoPut; JDBC's `?` or DataFusion's `$n`), in a
        # query run on the server and in a scan-shaped one (split into tickets).
        cur.execute("SELECT id, name FROM append.unaware WHERE id < ? AND name <> ? "
                    "ORDER BY name DESC, id", (10, "name-4"))
        assert cur.fetch_arrow_table().to_pylist() == paimon_sql_list(
            "SELECT id, name FROM append.unaware WHERE id < 10 AND name <> 'name-4' "
            "ORDER BY name DESC, id")
        cur.execute("SELECT * FROM pk.partitioned WHERE id >= $1", (5,))
        assert table_rows(cur.fetch_arrow_table()) == paimon_sql_rows(
            "SELECT * FROM pk.partitioned WHERE id >= 5")

        # execute_partitions: one partition per split group, read in parallel.
        partitions, schema = cur.adbc_execute_partitions(partitioned)
        assert len(partitions) >= 2, len(partitions)
        assert schema.names == ["dt", "hr", "id", "v"], schema.names

        def read_partition(p):
            with flightsql.connect(uri, db_kwargs={"username": "alice", "password": "tok-alice"}) as c:
                cur = c.cursor()
                cur.adbc_read_partition(p)
                return table_rows(cur.fetch_arrow_table())

        with concurrent.futures.ThreadPoolExecutor(len(partitions)) as pool:
            parts = list(pool.map(read_partition, partitions))
        assert all(parts), [len(p) for p in parts]
        assert sorted(r for p in parts for r in p) == expected

    # ADBC with a bearer header; bob reads pk only.
    bearer = {"adbc.flight.sql.authorization_header": "Bearer tok-bob"}
    with flightsql.connect(uri, db_kwargs=bearer) as conn:
        cur = conn.cursor()
        cur.execute(partitioned)
        assert table_rows(cur.fetch_arrow_table()) == expected
        try:
            cur.execute("SELECT * FROM append.unaware")
            cur.fetch_arrow_table()
            raise AssertionError("bob read append.unaware")
        except flightsql.Error as e:
            assert "permission denied" in str(e), e

    # A wrong token is refused.
    for kwargs in ({"username": "alice", "password": "tok-bob"},
                   {"adbc.flight.sql.authorization_header": "Bearer nope"}):
        try:
            with flightsql.connect(uri, db_kwargs=kwargs) as conn:
                cur = conn.cursor()
                cur.execute("SELECT 1")
                cur.fetch_arrow_table()
            raise AssertionError(f"{kwargs} was let in")
        except flightsql.Error as e:
            assert "nauthenticated" in str(e) or "UNAUTHENTICATED" in str(e), e

    # pyarrow.flight reads the tickets; the splits in them are what `paimon read-split` reads.
    client = flight.FlightClient(uri)
    options = flight.FlightCallOptions(headers=[(b"authorization", b"Bearer tok-alice")])
    info = client.get_flight_info(flight.FlightDescriptor.for_command(statement(partitioned)), options)
    assert len(info.endpoints) >= 2
    rows, split_rows = [], []
    for n, ep in enumerate(info.endpoints):
        rows += table_rows(client.do_get(ep.ticket, options).read_all())
        type_url, value = parse_any(ep.ticket.ticket)
        assert type_url == SCAN_TICKET_TYPE, type_url
        node = json.loads(value)
        files = []
        for k, split in enumerate(node["partitions"][0]):
            path = os.path.join(tmp, f"split-{n}-{k}")
            with open(path, "wb") as f:
                f.write(base64.b64decode(split))
            files.append(path)
        out = subprocess.run([PAIMON, "read-split", node["table_path"], *files, "--format", "jsonl"],
                             check=True, capture_output=True, text=True).stdout
        split_rows += [json.dumps(json.loads(l), sort_keys=True) for l in out.splitlines() if l]
    assert sorted(rows) == expected
    assert sorted(split_rows) == expected

    # Hostile tickets are errors; the server keeps serving.
    for bad in (b"garbage", any_of(SCAN_TICKET_TYPE, b"{not json"),
                any_of(SCAN_TICKET_TYPE, value.replace(node["table_path"].encode(), b"/etc"))):
        try:
            client.do_get(flight.Ticket(bad), options).read_all()
            raise AssertionError(f"{bad[:30]!r} was read")
        except (flight.FlightError, pa.ArrowException):
            pass
    jdbc(uri, expected)

    rows = [r for ep in info.endpoints for r in table_rows(client.do_get(ep.ticket, options).read_all())]
    assert sorted(rows) == expected


def issued(tmp, name, ca):
    """A client certificate for `name` issued by the authority `ca` = (cert, key) (openssl):
    (cert, key) paths."""
    cert, key = os.path.join(tmp, name + ".crt"), os.path.join(tmp, name + ".key")
    csr, ext = os.path.join(tmp, name + ".csr"), os.path.join(tmp, name + ".ext")
    with open(ext, "w") as f:
        f.write("basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n")
    subprocess.run(["openssl", "req", "-new", "-newkey", "rsa:2048", "-nodes", "-keyout", key,
                    "-out", csr, "-subj", "/CN=" + name], check=True, capture_output=True)
    subprocess.run(["openssl", "x509", "-req", "-in", csr, "-CA", ca[0], "-CAkey", ca[1],
                    "-CAcreateserial", "-days", "1", "-out", cert, "-extfile", ext],
                   check=True, capture_output=True)
    return cert, key


def read(path):
    with open(path) as f:
        return f.read()


def run_mtls(tmp, cert, key, expected, query):
    """Mutual TLS (`--tls-client-ca`): a planner and a worker accept only clients with a
    certificate the CA issued. ADBC and pyarrow.flight with alice's certificate read the rows
    (through the planner and at the worker); no certificate, or one of another CA, is refused
    and both keep serving."""
    ca = self_signed(tmp, "client-ca", cn="paimon test client CA")
    alice = issued(tmp, "alice", ca)
    mallory = issued(tmp, "mallory", self_signed(tmp, "other-ca", cn="another CA"))
    root = read(cert)
    mtls = ["--tls-cert", cert, "--tls-key", key, "--tls-client-ca", ca[0]]
    worker = subprocess.Popen(
        [PAIMON, "serve", WAREHOUSE, "--worker-bind", "127.0.0.1:0", *mtls],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True)
    planner = None
    try:
        worker_url = worker.stdout.readline().strip()
        assert worker_url.startswith("grpc+tls://"), worker_url
        auth = os.path.join(tmp, "users")
        with open(auth, "w") as f:
            f.write(USERS)
        planner = subprocess.Popen(
            [PAIMON, "serve", WAREHOUSE, "--auth", auth, "--rest-bind", "127.0.0.1:0",
             "--flight-bind", "127.0.0.1:0", "--workers", worker_url, *mtls],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True)
        planner.stdout.readline()
        planner_url = planner.stdout.readline().strip()

        def adbc_kwargs(client):
            kwargs = {"username": "alice", "password": "tok-alice",
                      "adbc.flight.sql.client_option.tls_root_certs": root}
            if client:
                kwargs["adbc.flight.sql.client_option.mtls_cert_chain"] = read(client[0])
                kwargs["adbc.flight.sql.client_option.mtls_private_key"] = read(client[1])
            return kwargs

        def adbc_count(client):
            with flightsql.connect(planner_url, db_kwargs=adbc_kwargs(client)) as conn:
                cur = conn.cursor()
                cur.execute("SELECT count(*) AS n FROM append.unaware")
                return cur.fetch_arrow_table().to_pylist()

        def pyarrow_rows(client):
            kwargs = {"tls_root_certs": root.encode()}
            if client:
                kwargs.update(cert_chain=read(client[0]).encode(),
                              private_key=read(client[1]).encode())
            options = flight.FlightCallOptions(headers=[(b"authorization", b"Bearer tok-alice")])
            info = flight.FlightClient(planner_url, **kwargs).get_flight_info(
                flight.FlightDescriptor.for_command(statement(query)), options)
            rows = []
            for ep in info.endpoints:
                assert [l.uri.decode() for l in ep.locations] == [worker_url], ep.locations
                at_worker = flight.FlightClient(worker_url, **kwargs)
                rows += table_rows(at_worker.do_get(ep.ticket).read_all())
            return sorted(rows)

        assert adbc_count(alice) == [{"n": 90}]
        assert pyarrow_rows(alice) == expected
        for client in (None, mallory):
            for attempt in (adbc_count, pyarrow_rows):
                try:
                    attempt(client)
                    raise AssertionError(f"{attempt.__name__} with client {client} was served")
                except (flightsql.Error, flight.FlightError):
                    pass
        # A worker refuses a client without a certificate even with a valid ticket.
        info = flight.FlightClient(planner_url, tls_root_certs=root.encode(),
                                   cert_chain=read(alice[0]).encode(),
                                   private_key=read(alice[1]).encode()).get_flight_info(
            flight.FlightDescriptor.for_command(statement(query)),
            flight.FlightCallOptions(headers=[(b"authorization", b"Bearer tok-alice")]))
        try:
            flight.FlightClient(worker_url, tls_root_certs=root.encode()).do_get(
                info.endpoints[0].ticket).read_all()
            raise AssertionError("the worker served a client without a certificate")
        except flight.FlightError:
            pass
        # ... and both still serve.
        assert adbc_count(alice) == [{"n": 90}]
        assert pyarrow_rows(alice) == expected
    finally:
        for p in (planner, worker):
            if p is not None:
                stop_server(p)


def run_tls(tmp):
    cert, key = self_signed(tmp, "server")
    other_cert, other_key = self_signed(tmp, "other")
    junk = os.path.join(tmp, "junk.pem")
    with open(junk, "w") as f:
        f.write("not a certificate\n")
    # A bad certificate or key file: one line naming it, before anything is bound.
    for args, named in (((junk, key), junk), ((cert, junk), junk), ((cert, other_key), other_key),
                        ((os.path.join(tmp, "missing.crt"), key), "missing.crt")):
        run = subprocess.run([PAIMON, "serve", WAREHOUSE, "--rest-bind", "127.0.0.1:0",
                              "--flight-bind", "127.0.0.1:0", "--tls-cert", args[0],
                              "--tls-key", args[1]],
                             stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=30)
        lines = run.stderr.strip().splitlines()
        assert run.returncode != 0 and run.stdout == "", (args, run)
        assert len(lines) == 1 and named in lines[0] and "TLS" in lines[0], (args, run.stderr)

    proc, uri = start_server(tmp, (cert, key))
    try:
        partitioned = "SELECT * FROM pk.partitioned"
        expected = paimon_sql_rows(partitioned)
        with open(cert) as f:
            root = f.read()
        tls_kwargs = {"username": "alice", "password": "tok-alice",
                      "adbc.flight.sql.client_option.tls_root_certs": root}
        with flightsql.connect(uri, db_kwargs=tls_kwargs) as conn:
            cur = conn.cursor()
            cur.execute(partitioned)
            assert table_rows(cur.fetch_arrow_table()) == expected
            partitions, _ = cur.adbc_execute_partitions(partitioned)
            assert len(partitions) >= 2, len(partitions)

        def read_partition(p):
            with flightsql.connect(uri, db_kwargs=tls_kwargs) as c:
                cur = c.cursor()
                cur.adbc_read_partition(p)
                return table_rows(cur.fetch_arrow_table())

        with concurrent.futures.ThreadPoolExecutor(len(partitions)) as pool:
            parts = list(pool.map(read_partition, partitions))
        assert sorted(r for p in parts for r in p) == expected

        client = flight.FlightClient(uri, tls_root_certs=root.encode())
        options = flight.FlightCallOptions(headers=[(b"authorization", b"Bearer tok-alice")])
        info = client.get_flight_info(
            flight.FlightDescriptor.for_command(statement(partitioned)), options)
        rows = [r for ep in info.endpoints
                for r in table_rows(client.do_get(ep.ticket, options).read_all())]
        assert sorted(rows) == expected

        # Refused: a client trusting another certificate, and a plaintext client.
        with open(other_cert) as f:
            other_root = f.read()
        refused = [dict(tls_kwargs, **{"adbc.flight.sql.client_option.tls_root_certs": other_root})]
        for kwargs, target in ((refused[0], uri), ({"username": "alice", "password": "tok-alice"}, "grpc://" + uri.split("://")[1])):
            try:
                with flightsql.connect(target, db_kwargs=kwargs) as conn:
                    cur = conn.cursor()
                    cur.execute("SELECT 1")
                    cur.fetch_arrow_table()
                raise AssertionError(f"{target} with the wrong trust was served")
            except flightsql.Error:
                pass
        # ... and the server still serves.
        with flightsql.connect(uri, db_kwargs=tls_kwargs) as conn:
            cur = conn.cursor()
            cur.execute("SELECT count(*) AS n FROM append.unaware")
            assert cur.fetch_arrow_table().to_pylist() == [{"n": 90}]
    finally:
        stop_server(proc)

    # A worker over TLS: the planner's endpoints name it at grpc+tls://, pyarrow.flight reads
    # them from it with the certificate as root.
    worker = subprocess.Popen(
        [PAIMON, "serve", WAREHOUSE, "--worker-bind", "127.0.0.1:0", "--tls-cert", cert,
         "--tls-key", key], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True)
    planner = None
    try:
        worker_url = worker.stdout.readline().strip()
        assert worker_url.startswith("grpc+tls://"), worker_url
        planner = subprocess.Popen(
            [PAIMON, "serve", WAREHOUSE, "--rest-bind", "127.0.0.1:0", "--flight-bind",
             "127.0.0.1:0", "--workers", worker_url, "--tls-cert", cert, "--tls-key", key],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True)
        planner.stdout.readline()
        planner_url = planner.stdout.readline().strip()
        client = flight.FlightClient(planner_url, tls_root_certs=root.encode())
        info = client.get_flight_info(flight.FlightDescriptor.for_command(statement(partitioned)))
        rows = []
        for ep in info.endpoints:
            assert [l.uri.decode() for l in ep.locations] == [worker_url], ep.locations
            at_worker = flight.FlightClient(worker_url, tls_root_certs=root.encode())
            rows += table_rows(at_worker.do_get(ep.ticket).read_all())
        assert sorted(rows) == expected
    finally:
        for p in (planner, worker):
            if p is not None:
                stop_server(p)

    run_mtls(tmp, cert, key, expected, partitioned)


def oracle(*args):
    env = dict(os.environ)
    env["ORACLE_JAVA_OPTS"] = "--add-opens=java.base/java.nio=ALL-UNNAMED"
    return subprocess.run([ORACLE, *args], env=env, capture_output=True, text=True)


def jdbc(uri, expected):
    base = "jdbc:arrow-flight-sql://" + uri.removeprefix("grpc://") + "?useEncryption=false"
    alice = base + "&user=alice&password=tok-alice"
    run = oracle("flight-sql-query", alice, "SELECT * FROM pk.partitioned")
    assert run.returncode == 0, run.stderr[-3000:]
    rows = sorted(json.dumps(json.loads(l), sort_keys=True) for l in run.stdout.splitlines() if l)
    assert rows == expected, (rows[:3], expected[:3])

    run = oracle("flight-sql-tables", base + "&token=tok-bob")
    assert run.returncode == 0, run.stderr[-3000:]
    tables = [json.loads(l) for l in run.stdout.splitlines() if l]
    names = {(t["TABLE_SCHEM"], t["TABLE_NAME"]) for t in tables}
    assert ("pk", "partitioned") in names, names
    assert all(schema == "pk" for schema, _ in names), names

    run = oracle("flight-sql-query", base + "&user=alice&password=tok-bob", "SELECT 1")
    assert run.returncode != 0 and "unauthenticated" in run.stderr.lower(), run.stderr[-2000:]


if __name__ == "__main__":
    main()
    sys.exit(0)
