"""Every error class, raised by bad arguments (before any I/O) and by damaged tables."""

import os

import pytest

import paimon_rs as pr
from conftest import WAREHOUSE

UNAWARE = str(WAREHOUSE / "append.db" / "unaware")


def test_hierarchy():
    for cls in (pr.NotFoundError, pr.CorruptError, pr.UnsupportedError, pr.InvalidArgumentError, pr.StorageError, pr.InternalError):
        assert issubclass(cls, pr.PaimonError)


def test_missing_table_is_not_found(tmp_path):
    with pytest.raises(pr.NotFoundError) as e:
        pr.Table.open(str(tmp_path / "nope"))
    assert "nope" in str(e.value)


@pytest.mark.parametrize(
    "kw,needle",
    [
        ({"select": ["id", "no_such_col"]}, "no_such_col"),
        ({"filter": "no_such_col > 1"}, "no_such_col"),
        ({"filter": "id >"}, "id >"),
        ({"filter": "id = 'x'"}, "'x'"),
        ({"snapshot": 1, "tag": "t"}, "snapshot, tag"),
        ({"incremental_mode": "diff"}, "incremental"),
        ({"incremental": "1"}, "incremental"),
        ({"incremental": "1,2", "incremental_mode": "sideways"}, "incremental_mode"),
    ],
)
def test_bad_scan_arguments_raise_invalid_argument(kw, needle):
    t = pr.Table.open(UNAWARE)
    with pytest.raises(pr.InvalidArgumentError) as e:
        t.scan(**kw)
    assert needle in str(e.value)


def test_bad_reader_arguments_raise_invalid_argument():
    with pytest.raises(pr.InvalidArgumentError):
        pr.SplitReader(UNAWARE, threads=0)
    with pytest.raises(pr.InvalidArgumentError):
        pr.SplitReader(UNAWARE, memory_budget="lots")
    with pytest.raises(pr.InvalidArgumentError):
        pr.SplitReader(UNAWARE, select=["nope"])
    with pytest.raises(pr.InvalidArgumentError):
        pr.SplitReader(UNAWARE).read(42)
    with pytest.raises(pr.InvalidArgumentError):
        pr.Table.open(UNAWARE).scan().plan().splits[0].to_bytes(frame="json")
    with pytest.raises(pr.InvalidArgumentError):
        pr.Table.open(UNAWARE, options={"s3.endpoint": "http://127.0.0.1:9"})


WRONG_TYPES = [
    ("snapshot", lambda: pr.Table.open(UNAWARE).scan(snapshot="abc")),
    ("select", lambda: pr.Table.open(UNAWARE).scan(select="id")),
    ("limit", lambda: pr.Table.open(UNAWARE).scan(limit=-1)),
    ("with_kind", lambda: pr.Table.open(UNAWARE).scan(with_kind="yes")),
    ("filter", lambda: pr.Table.open(UNAWARE).scan(filter=5)),
    ("path", lambda: pr.Table.open(42)),
    ("options", lambda: pr.Table.open(UNAWARE, options=["s3.endpoint"])),
    ("warehouse", lambda: pr.Catalog(3.5)),
    ("batch_size", lambda: pr.SplitReader(UNAWARE, batch_size="big")),
    ("threads", lambda: pr.SplitReader(UNAWARE, threads=1.5)),
    ("path_rewrites", lambda: pr.SplitReader(UNAWARE, path_rewrites="a")),
    ("data", lambda: pr.Split.from_bytes("not bytes")),
    ("version", lambda: pr.Table.open(UNAWARE).scan().plan().splits[0].to_bytes(version="9")),
    ("batch_size", lambda: pr.Table.open(UNAWARE).scan().to_arrow(batch_size=[1])),
]


@pytest.mark.parametrize("needle,call", WRONG_TYPES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(WRONG_TYPES)])
def test_wrong_argument_types_raise_invalid_argument(needle, call):
    # A wrong type is a bad argument: InvalidArgumentError (a PaimonError), never a bare
    # TypeError, and the message names the argument and the value given.
    with pytest.raises(pr.InvalidArgumentError) as e:
        call()
    assert str(e.value).startswith(needle + ":"), str(e.value)
    assert "takes" in str(e.value) and "got" in str(e.value)


def test_paths_may_be_path_objects():
    from pathlib import Path

    assert pr.Table.open(Path(UNAWARE)).path == UNAWARE
    assert pr.SplitReader(Path(UNAWARE)).schema is not None
    assert pr.Catalog(WAREHOUSE).warehouse == str(WAREHOUSE)


def test_missing_snapshot_and_tag_are_not_found():
    t = pr.Table.open(UNAWARE)
    with pytest.raises(pr.NotFoundError):
        t.scan(snapshot=999).plan()
    with pytest.raises(pr.NotFoundError):
        t.scan(tag="no-such-tag").plan()


def data_files(table_dir):
    return sorted(p for p in table_dir.rglob("*") if p.is_file() and p.name.startswith("data-"))


def test_truncated_data_file_is_corrupt(damaged):
    d = damaged("append/unaware")
    f = data_files(d)[0]
    f.write_bytes(f.read_bytes()[:20])
    with pytest.raises(pr.CorruptError) as e:
        pr.Table.open(str(d)).scan().to_arrow()
    assert f.name in str(e.value)


def test_deleted_data_file_is_not_found(damaged):
    d = damaged("append/unaware")
    f = data_files(d)[0]
    f.unlink()
    with pytest.raises(pr.NotFoundError) as e:
        pr.Table.open(str(d)).scan().to_arrow()
    assert f.name in str(e.value)


def test_garbled_snapshot_is_corrupt(damaged):
    d = damaged("append/unaware")
    snap = sorted((d / "snapshot").glob("snapshot-*"))[-1]
    snap.write_text("{not json")
    with pytest.raises(pr.CorruptError) as e:
        pr.Table.open(str(d)).scan().plan()
    assert snap.name in str(e.value)


def test_garbled_manifest_is_corrupt(damaged):
    d = damaged("append/unaware")
    lists = sorted((d / "manifest").glob("manifest-list-*"))
    assert lists
    for m in lists:
        m.write_bytes(b"garbage" * 10)
    with pytest.raises(pr.CorruptError) as e:
        pr.Table.open(str(d)).scan().plan()
    assert "manifest-list-" in str(e.value)


def test_unknown_schema_type_is_corrupt(damaged):
    d = damaged("append/unaware")
    s = sorted((d / "schema").glob("schema-*"))[-1]
    s.write_text(s.read_text().replace('"INT', '"HYPERINT', 1))
    with pytest.raises(pr.CorruptError) as e:
        pr.Table.open(str(d))
    assert s.name in str(e.value) and "HYPERINT" in str(e.value)


def test_stream_errors_name_the_file(damaged):
    import pyarrow as pa

    d = damaged("append/unaware")
    f = data_files(d)[0]
    f.write_bytes(f.read_bytes()[:20])
    r = pr.Table.open(str(d)).scan().to_reader()
    with pytest.raises(Exception) as e:
        pa.table(r)
    assert f.name in str(e.value)


def test_unknown_split_version_is_unsupported():
    b = bytearray(pr.Table.open(UNAWARE).scan().plan().splits[0].to_bytes(frame="raw"))
    b[8:12] = (99).to_bytes(4, "big")  # after the 8-byte DataSplit magic
    with pytest.raises(pr.UnsupportedError) as e:
        pr.Split.from_bytes(bytes(b))
    assert "99" in str(e.value)


def test_data_file_replaced_by_a_directory_is_refused_as_corrupt(damaged):
    # A data file's status is checked before it is opened (issue 39: a FIFO or a directory in
    # a data file's place must not hang or be read), so this is refused as a corrupt table.
    d = damaged("append/unaware")
    f = data_files(d)[0]
    f.unlink()
    f.mkdir()
    with pytest.raises(pr.CorruptError) as e:
        pr.Table.open(str(d)).scan().to_arrow()
    assert f.name in str(e.value)
    assert "not a regular file" in str(e.value)


FORMAT_TABLE_REFUSAL = "format tables (type = format-table) are only read and written"


def _format_table(root):
    """A format table as pypaimon's filesystem catalog leaves it: schema-0 with
    type = format-table and a CSV file in a Hive-style partition directory."""
    (root / "schema").mkdir(parents=True)
    (root / "schema" / "schema-0").write_text(
        '{"version":3,"id":0,"fields":[{"id":0,"name":"id","type":"INT"},'
        '{"id":1,"name":"dt","type":"STRING"}],"highestFieldId":1,"partitionKeys":["dt"],'
        '"primaryKeys":[],"options":{"type":"format-table","file.format":"csv"},'
        '"timeMillis":1781088620905}'
    )
    (root / "dt=2024-01-01").mkdir()
    (root / "dt=2024-01-01" / "data-0.csv").write_text("1\n2\n")


def _files(root):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def test_format_table_is_refused_by_every_entry_point(tmp_path):
    """Table.open is where scans, writes, commits, compaction and Ray start; read_table plans
    and reads. The Python package does not read or write format tables (the `paimon` command
    and the Rust facade's `FormatTable` do): each refuses one with UnsupportedError and writes
    nothing."""
    root = tmp_path / "ft"
    _format_table(root)
    before = _files(root)
    for call in (lambda: pr.Table.open(str(root)), lambda: pr.read_table(str(root))):
        with pytest.raises(pr.UnsupportedError) as e:
            call()
        assert FORMAT_TABLE_REFUSAL in str(e.value)
    assert _files(root) == before
