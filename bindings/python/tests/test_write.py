"""Writes from Python: `Catalog.create_table`, `Table.write_arrow`, `new_write` /
`prepare_commit` / `new_commit().commit`. Java Paimon 1.4.2 (the oracle) must read exactly the
rows kept in each test; bad input raises before anything is committed."""

import datetime
import decimal
import pathlib
import subprocess

import pyarrow as pa
import pytest

import paimon_rs as pr
from conftest import REPO, compare


def java_dump(table_dir, out):
    """Java's rows of the table's latest snapshot (sorted JSON lines) into `out`."""
    r = subprocess.run(
        [str(REPO / "scripts/java-oracle.sh"), "dump", str(table_dir), "--sort"],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    out.write_text(r.stdout)
    return out


def java_equals(table, data, tmp_path):
    """Java reads exactly the rows of `data` (a pyarrow Table kept in the test)."""
    expected = java_dump(table.path, tmp_path / "java.jsonl")
    diff = compare(table.path, expected, data, [], tmp_path)
    assert diff is None, diff


def snapshot_ids(table):
    return [s["id"] for s in table.snapshots()]


ORDERS = pa.schema(
    [
        pa.field("id", pa.int64(), nullable=False),
        pa.field("item", pa.string()),
        pa.field("price", pa.decimal128(10, 2)),
        pa.field("day", pa.date32()),
        pa.field("at", pa.timestamp("us")),
        pa.field("dt", pa.string()),
    ]
)


def orders(ids, dt):
    return pa.table(
        {
            "id": pa.array(ids, pa.int64()),
            "item": [f"item-{i}" if i % 3 else None for i in ids],
            "price": pa.array([decimal.Decimal(i) / 4 for i in ids], pa.decimal128(10, 2)),
            "day": [datetime.date(2024, 1, 1) + datetime.timedelta(days=i) for i in ids],
            "at": [datetime.datetime(2024, 1, 1, 12, 0, 0, i) for i in ids],
            "dt": [dt] * len(ids),
        },
        schema=ORDERS,
    )


@pytest.fixture
def catalog(tmp_path):
    wh = tmp_path / "wh"
    (wh / "db.db").mkdir(parents=True)
    return pr.Catalog(str(wh))


def test_columns_encoded_on_any_thread_count_read_as_java_reads_them(catalog, tmp_path):
    # threads=None (every core) is what the other tests use; 1 and 3 here.
    for n in (1, 3):
        t = catalog.create_table(f"db.threads{n}", ORDERS, partition_keys=["dt"])
        data = orders(range(0, 40), "2024-01-01")
        assert t.write_arrow(data, threads=n) == [1]
        java_equals(t, data, tmp_path)
    with pytest.raises(pr.InvalidArgumentError):
        t.new_write(threads=0)


def test_partitioned_append_table_written_twice_reads_as_java_reads_it(catalog, tmp_path):
    t = catalog.create_table("db.orders", ORDERS, partition_keys=["dt"])
    assert t.partition_keys == ["dt"] and t.primary_keys == []
    assert t.write_arrow(orders(range(0, 50), "2024-01-01")) == [1]
    # Columns in another order, ids as int32: matched by name and cast.
    second = orders(range(50, 80), "2024-01-02")
    second = second.select(["dt", "at", "day", "price", "item", "id"])
    second = second.set_column(5, "id", second.column("id").cast(pa.int32()))
    assert t.write_arrow(second) == [2]
    java_equals(t, pa.concat_tables([orders(range(0, 50), "2024-01-01"), orders(range(50, 80), "2024-01-02")]), tmp_path)
    # Our own reader agrees, and the table is the one catalog.get_table opens.
    assert catalog.get_table("db.orders").scan().to_arrow().num_rows == 80


def test_overwrite_of_one_partition_keeps_the_others(catalog, tmp_path):
    t = catalog.create_table("db.orders", ORDERS, partition_keys=["dt"])
    t.write_arrow(pa.concat_tables([orders(range(0, 10), "a"), orders(range(10, 20), "b")]))
    ids = t.write_arrow(orders(range(100, 103), "a"), overwrite=True, partition={"dt": "a"})
    assert len(ids) == 1
    assert t.snapshots()[-1]["commit_kind"] == "OVERWRITE"
    java_equals(t, pa.concat_tables([orders(range(10, 20), "b"), orders(range(100, 103), "a")]), tmp_path)
    # Without a partition, dynamic overwrite replaces only the partitions written to; with
    # nothing written it replaces nothing and commits no snapshot (as Java).
    assert t.write_arrow(orders([], "b"), overwrite=True) == []
    t.write_arrow(orders([7], "b"), overwrite=True)
    java_equals(t, pa.concat_tables([orders([7], "b"), orders(range(100, 103), "a")]), tmp_path)


PK = pa.schema(
    [
        pa.field("id", pa.int32(), nullable=False),
        pa.field("v", pa.string()),
        pa.field("n", pa.float64()),
    ]
)


def test_primary_key_upserts_and_deletes_with_a_row_kind_column(catalog, tmp_path):
    t = catalog.create_table("db.pk", PK, primary_keys=["id"], options={"bucket": "2"})
    t.write_arrow(pa.table({"id": [1, 2, 3, 4], "v": ["a", "b", "c", "d"], "n": [1.0, 2.0, 3.0, 4.0]}, schema=PK))
    changes = pa.table(
        {
            "op": ["+U", "-D", "+I", "+I"],
            "id": pa.array([2, 3, 5, 1], pa.int32()),
            "v": ["B", None, "e", "A"],
            "n": [20.0, None, 5.5, 10.0],
        }
    )
    assert t.write_arrow(changes, row_kind_column="op") == [2]
    want = pa.table({"id": [1, 2, 4, 5], "v": ["A", "B", "d", "e"], "n": [10.0, 20.0, 4.0, 5.5]}, schema=PK)
    java_equals(t, want, tmp_path)


def test_primary_key_buckets_flushed_on_any_thread_count_read_as_java_reads_them(catalog, tmp_path):
    # Four buckets and a small write buffer: each write flushes several times, and with threads
    # the buckets of one flush are sorted and merged side by side.
    batches, want = [], {}
    for b in range(6):
        ids = [(b * 701 + i * 7) % 1500 for i in range(1000)]
        ops = ["-D" if (i + b) % 9 == 0 else "+I" for i in range(len(ids))]
        rows = {"op": ops, "id": ids, "v": [f"v{b}-{i}" for i in ids], "n": [b + i / 8 for i in ids]}
        for op, i, v, n in zip(ops, ids, rows["v"], rows["n"]):
            if op == "-D":
                want.pop(i, None)
            else:
                want[i] = (v, n)
        batches.append(pa.record_batch([pa.array(rows["op"]), pa.array(ids, pa.int32()), pa.array(rows["v"]), pa.array(rows["n"])], names=["op", "id", "v", "n"]))
    data = pa.Table.from_batches(batches)
    keys = sorted(want)
    expected = pa.table({"id": keys, "v": [want[k][0] for k in keys], "n": [want[k][1] for k in keys]}, schema=PK)
    for n in (1, 3):
        t = catalog.create_table(
            f"db.pk_threads{n}", PK, primary_keys=["id"], options={"bucket": "4", "write-buffer-size": "32 kb"}
        )
        assert t.write_arrow(data, row_kind_column="op", threads=n) == [1]
        assert len(list(pathlib.Path(t.path).glob("bucket-*/data-*.parquet"))) > 8
        java_equals(t, expected, tmp_path)


def test_dynamic_bucket_table_keeps_each_key_in_its_bucket(catalog, tmp_path):
    t = catalog.create_table(
        "db.dyn", PK, primary_keys=["id"], options={"bucket": "-1", "dynamic-bucket.target-row-num": "3"}
    )
    t.write_arrow(pa.table({"id": list(range(7)), "v": [f"a{i}" for i in range(7)], "n": [float(i) for i in range(7)]}, schema=PK))
    # Updates and a delete of keys in buckets 0..2, new keys after them; through new_write.
    w = t.new_write(row_kind_column="op")
    w.write(
        pa.table(
            {
                "op": ["+U", "-D", "+U", "+I", "+I"],
                "id": pa.array([0, 3, 6, 7, 8], pa.int32()),
                "v": ["b0", None, "b6", "b7", "b8"],
                "n": [10.0, None, 60.0, 70.0, 80.0],
            }
        )
    )
    t.new_commit().commit(w.prepare_commit())
    buckets = sorted(p.name for p in pathlib.Path(t.path).iterdir() if p.name.startswith("bucket-"))
    assert buckets == ["bucket-0", "bucket-1", "bucket-2"]
    ids = [0, 1, 2, 4, 5, 6, 7, 8]
    v = {0: "b0", 6: "b6", 7: "b7", 8: "b8"}
    n = {0: 10.0, 6: 60.0, 7: 70.0, 8: 80.0}
    want = pa.table({"id": ids, "v": [v.get(i, f"a{i}") for i in ids], "n": [n.get(i, float(i)) for i in ids]}, schema=PK)
    java_equals(t, want, tmp_path)
    # An overwrite starts the index afresh: one bucket's worth of keys, in bucket 0.
    t.write_arrow(pa.table({"id": [1, 2], "v": ["c1", "c2"], "n": [1.5, 2.5]}, schema=PK), overwrite=True)
    java_equals(t, pa.table({"id": [1, 2], "v": ["c1", "c2"], "n": [1.5, 2.5]}, schema=PK), tmp_path)


def java_changelog(table_dir, start, end):
    """Java's changelog rows (kind first, sorted JSON lines) of snapshots (start, end]."""
    r = subprocess.run(
        [
            str(REPO / "scripts/java-oracle.sh"),
            "dump",
            str(table_dir),
            "--incremental",
            f"{start},{end}",
            "--incremental-mode",
            "changelog",
            "--with-kind",
            "--sort",
        ],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    return sorted(r.stdout.splitlines())


def test_deletion_vector_lookup_changelog_table_is_compacted_after_each_write(catalog, tmp_path):
    # Batch reads of such a table skip level 0 and its changelog is written by the lookup
    # compaction: write_arrow compacts the buckets it wrote after its commit, as Java's writers do.
    t = catalog.create_table(
        "db.dvl",
        PK,
        primary_keys=["id"],
        options={"bucket": "1", "deletion-vectors.enabled": "true", "changelog-producer": "lookup"},
    )
    first = t.write_arrow(pa.table({"id": [1, 2, 3], "v": ["a", "b", "c"], "n": [1.0, 2.0, 3.0]}, schema=PK))
    assert len(first) == 2, first  # APPEND, then COMPACT
    java_equals(t, pa.table({"id": [1, 2, 3], "v": ["a", "b", "c"], "n": [1.0, 2.0, 3.0]}, schema=PK), tmp_path)
    changes = pa.table(
        {"op": ["+U", "-D", "+I"], "id": pa.array([2, 3, 4], pa.int32()), "v": ["B", None, "d"], "n": [20.0, None, 4.0]}
    )
    second = t.write_arrow(changes, row_kind_column="op")
    assert second == [first[-1] + 1, first[-1] + 2], second
    java_equals(t, pa.table({"id": [1, 2, 4], "v": ["a", "B", "d"], "n": [1.0, 20.0, 4.0]}, schema=PK), tmp_path)
    # The second compaction's changelog, against the rows the first one left (kept here).
    assert java_changelog(t.path, first[-1], second[-1]) == sorted(
        [
            '{"_ROW_KIND":"-U","id":2,"v":"b","n":2.0}',
            '{"_ROW_KIND":"+U","id":2,"v":"B","n":20.0}',
            '{"_ROW_KIND":"-D","id":3,"v":"c","n":3.0}',
            '{"_ROW_KIND":"+I","id":4,"v":"d","n":4.0}',
        ]
    )


def test_input_changelog_holds_every_row_written(catalog, tmp_path):
    t = catalog.create_table("db.inp", PK, primary_keys=["id"], options={"bucket": "2", "changelog-producer": "input"})
    t.write_arrow(pa.table({"id": [1, 2], "v": ["a", "b"], "n": [1.0, 2.0]}, schema=PK))
    # Key 1 twice in one write: the data keeps its last row, the changelog both.
    changes = pa.table(
        {"op": ["+U", "+U", "-D"], "id": pa.array([1, 1, 2], pa.int32()), "v": ["x", "y", None], "n": [5.0, 6.0, None]}
    )
    [second] = t.write_arrow(changes, row_kind_column="op")
    java_equals(t, pa.table({"id": [1], "v": ["y"], "n": [6.0]}, schema=PK), tmp_path)
    assert java_changelog(t.path, second - 1, second) == sorted(
        [
            '{"_ROW_KIND":"+U","id":1,"v":"x","n":5.0}',
            '{"_ROW_KIND":"+U","id":1,"v":"y","n":6.0}',
            '{"_ROW_KIND":"-D","id":2,"v":null,"n":null}',
        ]
    )


def test_messages_travel_as_bytes_and_commit_exactly_once(catalog, tmp_path):
    t = catalog.create_table("db.pk", PK, primary_keys=["id"], options={"bucket": "3"})
    data = pa.table({"id": pa.array(range(30), pa.int32()), "v": [str(i) for i in range(30)], "n": [i / 2 for i in range(30)]}, schema=PK)
    with t.new_write() as w:
        assert w.write(data.slice(0, 10)) == 10
        assert w.write(data.slice(10).to_batches()[0]) == 20
        # Version 11: the bytes go to Java 1.4.2 below, which reads no later version.
        messages = w.prepare_commit(version=11)
    assert messages and all(isinstance(m, bytes) for m in messages)
    # Nothing is visible before the commit.
    assert t.snapshots() == []
    # A worker elsewhere would send the bytes; a committer with a known user and identifier
    # applies them once, however often it is retried.
    c = t.new_commit(user="py-test-user")
    assert c.commit(messages, identifier=7, version=11) == [1]
    assert t.new_commit(user="py-test-user").commit(messages, identifier=7, version=11) == []
    assert snapshot_ids(t) == [1]
    assert t.snapshots()[0]["commit_user"] == "py-test-user"
    java_equals(t, data, tmp_path)
    # Java reads our message bytes as the same messages.
    f = tmp_path / "m.bin"
    f.write_bytes(messages[0])
    r = subprocess.run(
        [str(REPO / "scripts/java-oracle.sh"), "decode-commit-messages", "message", str(f), "11"],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    assert '"bucket"' in r.stdout


def test_a_commit_without_identifier_commits_once(catalog):
    t = catalog.create_table("db.pk", PK, primary_keys=["id"], options={"bucket": "1"})
    w = t.new_write()
    w.write(pa.table({"id": pa.array([1], pa.int32()), "v": ["a"], "n": [1.0]}))
    messages = w.prepare_commit()
    c = t.new_commit()
    assert c.commit(messages) == [1]
    with pytest.raises(pr.InvalidArgumentError, match="committed once without an identifier"):
        c.commit(messages)


def test_bad_data_raises_and_commits_nothing(catalog):
    t = catalog.create_table("db.pk", PK, primary_keys=["id"], options={"bucket": "1"})
    ok = pa.table({"id": pa.array([1], pa.int32()), "v": ["a"], "n": [1.0]}, schema=PK)
    t.write_arrow(ok)
    cases = [
        (pa.table({"id": [2], "v": ["b"]}), "no column n"),
        (pa.table({"id": [2], "v": ["b"], "n": [1.0], "zz": [1]}), "zz is not a column"),
        (pa.table({"id": pa.array([None], pa.int32()), "v": ["b"], "n": [1.0]}), "null value in non-nullable column id"),
        (pa.table({"id": ["x"], "v": ["b"], "n": [1.0]}), "does not cast"),
        (pa.table({"id": [2**40], "v": ["b"], "n": [1.0]}), "Int64 does not cast to Int32"),
        ({"id": [2]}.items(), "expected Arrow data"),
    ]
    for data, message in cases:
        with pytest.raises(pr.InvalidArgumentError, match=message):
            t.write_arrow(data)
    with pytest.raises(pr.InvalidArgumentError, match="not one of"):
        t.write_arrow(pa.table({"k": ["upsert"], "id": [2], "v": ["b"], "n": [1.0]}), row_kind_column="k")
    with pytest.raises(pr.CorruptError):
        t.new_commit().commit([b"\x00\x01garbage"])
    with pytest.raises(pr.InvalidArgumentError, match="not a partition column"):
        t.write_arrow(ok, overwrite=True, partition={"id": 1})
    assert snapshot_ids(t) == [1]
    assert t.scan().to_arrow().num_rows == 1
    # An aborted writer cannot be used again.
    w = t.new_write()
    w.abort()
    with pytest.raises(pr.InvalidArgumentError, match="aborted"):
        w.write(ok)


def test_create_table_checks_the_schema_as_java_does(catalog):
    with pytest.raises(pr.InvalidArgumentError, match="must include all partition fields"):
        catalog.create_table("db.bad", ORDERS, primary_keys=["id"], partition_keys=["dt"],
                             options={"bucket": "2"})
    with pytest.raises(pr.InvalidArgumentError, match="bucket-key"):
        catalog.create_table("db.bad", ORDERS, options={"bucket": "4"})
    with pytest.raises(pr.InvalidArgumentError, match="db.table"):
        catalog.create_table("nodot", ORDERS)
    with pytest.raises(pr.UnsupportedError, match="has no Paimon type"):
        catalog.create_table("db.bad", pa.schema([pa.field("u", pa.uint64())]))
    t = catalog.create_table("db.ok", ORDERS)
    assert catalog.create_table("db.ok", PK, if_not_exists=True).schema.names == t.schema.names
    schema = t.schemas()[0]
    assert [f["name"] for f in schema["fields"]] == ORDERS.names
    assert [f["id"] for f in schema["fields"]] == list(range(len(ORDERS)))
    assert schema["fields"][0]["type"] == "BIGINT NOT NULL"
