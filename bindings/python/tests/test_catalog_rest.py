"""`paimon_rs.Catalog(options={...})` against Java's own REST catalog server
(`RESTCatalogServer` of paimon-core 1.4.2's tests jar, started on loopback by
`scripts/java-oracle.sh rest-server`): Java writes through REST and Python reads Java's rows;
Python creates, writes and commits through REST and Java's `rest-dump` reads ours; the
catalog's calls (databases, tables, rename, drop) and its errors map to paimon_rs's exception
classes."""

import json
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

import pyarrow as pa
import pytest

import paimon_rs as pr

from conftest import REPO

TOKEN = "py-rest-token"
ORACLE = str(REPO / "scripts" / "java-oracle.sh")


@pytest.fixture(scope="module")
def server():
    """A running rest-server (its URL); it stops when its stdin closes."""
    with tempfile.TemporaryDirectory() as d:
        url_file = Path(d) / "url"
        data = Path(d) / "data"
        data.mkdir()
        proc = subprocess.Popen(
            [ORACLE, "rest-server", str(data), str(url_file), "--token", TOKEN],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
        )
        try:
            started = time.monotonic()
            while not url_file.exists():
                assert proc.poll() is None, "rest-server exited"
                assert time.monotonic() - started < 600, "rest-server did not start"
                time.sleep(0.1)
            yield url_file.read_text().strip()
        finally:
            proc.stdin.close()
            proc.wait(timeout=60)


def options(url, token=TOKEN):
    return {
        "metastore": "rest",
        "uri": url,
        "token.provider": "bear",
        "token": token,
        "warehouse": "rest_warehouse",
    }


def oracle(*args):
    r = subprocess.run([ORACLE, *args], capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert r.returncode == 0, f"{args}: {r.stderr}"
    return r.stdout


def server_snapshot_id(url, db, table):
    """The latest snapshot id the REST server has recorded for `db.table` (`GET
    .../snapshot`): it moves only for commits that went through the server."""
    req = urllib.request.Request(
        f"{url.rstrip('/')}/v1/paimon/databases/{db}/tables/{table}/snapshot",
        headers={"Authorization": f"Bearer {TOKEN}"},
    )
    with urllib.request.urlopen(req) as r:
        return json.loads(r.read())["snapshot"]["snapshot"]["id"]


def rows_of(table):
    t = table.scan().to_arrow()
    return sorted(zip(t.column("id").to_pylist(), t.column("v").to_pylist()))


def rows(lo, hi, tag):
    return [(i, f"{tag}-{i}") for i in range(lo, hi)]


def test_java_writes_through_rest_and_python_reads_its_rows(server):
    oracle("rest-write", server, "java_py.t", "--from", "0", "--to", "7", "--token", TOKEN)
    catalog = pr.Catalog(options=options(server))
    assert "java_py" in catalog.list_databases()
    assert catalog.list_tables("java_py") == ["t"]
    assert rows_of(catalog.get_table("java_py.t")) == rows(0, 7, "java")
    with pytest.raises(pr.NotFoundError, match="table java_py.missing does not exist"):
        catalog.get_table("java_py.missing")
    with pytest.raises(pr.NotFoundError, match="no_such_db"):
        catalog.list_tables("no_such_db")


def test_python_creates_writes_commits_through_rest_and_java_reads_ours(server):
    catalog = pr.Catalog(options=options(server))
    catalog.create_database("py_db")
    with pytest.raises(pr.AlreadyExistsError, match="py_db"):
        catalog.create_database("py_db")
    catalog.create_database("py_db", if_not_exists=True)
    schema = pa.schema([("id", pa.int32()), ("v", pa.string())])
    table = catalog.create_table("py_db.t", schema)
    with pytest.raises(pr.AlreadyExistsError, match="table py_db.t already exists"):
        catalog.create_table("py_db.t", schema)
    assert catalog.list_tables("py_db") == ["t"]

    def batch(lo, hi):
        ids = list(range(lo, hi))
        return pa.table(
            {"id": pa.array(ids, pa.int32()), "v": [f"py-{i}" for i in ids]}, schema=schema
        )

    assert table.write_arrow(batch(0, 4)) == [1]
    # A worker's messages committed twice with one identifier land once.
    w = table.new_write()
    w.write(batch(4, 6))
    messages = w.prepare_commit()
    commit = table.new_commit()
    assert commit.commit(messages, identifier=7) == [2]
    assert commit.commit(messages, identifier=7) == []
    # Both commits went through the server's commit endpoint, not around it.
    assert server_snapshot_id(server, "py_db", "t") == 2

    dump = oracle("rest-dump", server, "py_db.t", "--token", TOKEN)
    dumped = [json.loads(line) for line in dump.splitlines()]
    assert sorted((r["id"], r["v"]) for r in dumped) == rows(0, 6, "py")
    assert rows_of(catalog.get_table("py_db.t")) == rows(0, 6, "py")

    # (Java's test server keeps a renamed table's old path in its metadata, so neither Java
    # nor we read rows through the new name there: the rename itself is what is checked.)
    catalog.rename_table("py_db.t", "py_db.t2")
    assert catalog.list_tables("py_db") == ["t2"]
    with pytest.raises(pr.NotFoundError, match="table py_db.t does not exist"):
        catalog.get_table("py_db.t")
    with pytest.raises(pr.NotFoundError, match="py_db.t"):
        catalog.rename_table("py_db.t", "py_db.t3")
    with pytest.raises(pr.NotFoundError, match="py_db"):
        catalog.drop_database("py_db_missing")
    catalog.drop_table("py_db.t2")
    with pytest.raises(pr.NotFoundError, match="table py_db.t2 does not exist"):
        catalog.get_table("py_db.t2")
    catalog.drop_table("py_db.t2", if_exists=True)
    catalog.drop_database("py_db")
    assert "py_db" not in catalog.list_databases()


def test_wrong_token_is_an_authorization_error(server):
    with pytest.raises(pr.AuthorizationError) as e:
        pr.Catalog(options=options(server, token="not-the-token")).list_databases()
    assert server.rstrip("/") in str(e.value)


def test_options_naming_no_catalog_are_invalid_arguments(server):
    with pytest.raises(pr.InvalidArgumentError, match="uri"):
        pr.Catalog(options={"metastore": "rest", "token.provider": "bear", "token": TOKEN})
    with pytest.raises(pr.InvalidArgumentError):
        pr.Catalog(options={"metastore": "no-such-metastore", "uri": server})


def test_filesystem_warehouse_through_options(tmp_path):
    catalog = pr.Catalog(options={"warehouse": str(tmp_path)})
    catalog.create_database("db")
    schema = pa.schema([("id", pa.int32()), ("v", pa.string())])
    t = catalog.create_table("db.t", schema)
    t.write_arrow(pa.table({"id": pa.array([1], pa.int32()), "v": ["a"]}, schema=schema))
    assert catalog.list_tables("db") == ["t"]
    assert rows_of(pr.Catalog(str(tmp_path)).get_table("db.t")) == [(1, "a")]
    catalog.drop_table("db.t")
    assert catalog.list_tables("db") == []
