"""Write contexts: a driver plans `Table.write_context()` once and workers write with the bytes
alone (`TableWrite.from_context`, `paimon_rs.run_compact_task`), never opening the table's
metadata; the workers' primary-key rows win over the committed ones of the same keys. Java
Paimon 1.4.2 reads exactly the rows kept in each test."""

import pathlib
import shutil

import pyarrow as pa
import pytest

import paimon_rs as pr
from test_write import PK, catalog, java_equals  # noqa: F401 (catalog: a fixture)


def metadata_moved_away(table, tmp_path, names=("schema", "snapshot", "manifest")):
    """Moves the table's schema, snapshot and manifest directories (or `names`) aside;
    returns a function that puts them back."""
    root = tmp_path / "aside"
    root.mkdir()
    for n in names:
        shutil.move(f"{table.path}/{n}", root / n)

    def restore():
        for n in names:
            shutil.move(root / n, f"{table.path}/{n}")

    return restore


def test_a_worker_writes_with_the_context_alone_and_its_rows_win(catalog, tmp_path):
    t = catalog.create_table("db.pk", PK, primary_keys=["id"], options={"bucket": "2"})
    t.write_arrow(pa.table({"id": [1, 2, 3, 4], "v": ["a", "b", "c", "d"], "n": [1.0, 2.0, 3.0, 4.0]}, schema=PK))
    context = t.write_context()
    assert isinstance(context, bytes) and context[:8] == b"PMWCTX01"

    restore = metadata_moved_away(t, tmp_path)
    try:
        # Without the context a worker cannot even open the table now.
        with pytest.raises(pr.PaimonError):
            pr.Table.open(t.path)
        w = pr.TableWrite.from_context(context, t.path, threads=1)
        w.write(pa.table({"id": pa.array([2, 4, 9], pa.int32()), "v": ["B", "D", "i"], "n": [20.0, 40.0, 9.0]}))
        messages = w.prepare_commit()
    finally:
        restore()
    assert t.new_commit().commit(messages) == [2]
    want = pa.table({"id": [1, 2, 3, 4, 9], "v": ["a", "B", "c", "D", "i"], "n": [1.0, 20.0, 3.0, 40.0, 9.0]}, schema=PK)
    java_equals(t, want, tmp_path)


def test_a_dynamic_bucket_worker_finds_committed_keys_in_the_context(catalog, tmp_path):
    t = catalog.create_table(
        "db.dyn", PK, primary_keys=["id"], options={"bucket": "-1", "dynamic-bucket.target-row-num": "3"}
    )
    t.write_arrow(pa.table({"id": list(range(7)), "v": [f"a{i}" for i in range(7)], "n": [float(i) for i in range(7)]}, schema=PK))
    context = t.write_context()
    restore = metadata_moved_away(t, tmp_path)
    try:
        w = pr.TableWrite.from_context(context, t)
        w.write(pa.table({"id": pa.array([0, 6, 7], pa.int32()), "v": ["b0", "b6", "b7"], "n": [10.0, 16.0, 17.0]}))
        messages = w.prepare_commit()
    finally:
        restore()
    t.new_commit().commit(messages)
    # Each updated key stays in the bucket the committed index gave it: one row per key.
    ids = list(range(8))
    want = pa.table(
        {
            "id": ids,
            "v": ["b0", "a1", "a2", "a3", "a4", "a5", "b6", "b7"],
            "n": [10.0, 1.0, 2.0, 3.0, 4.0, 5.0, 16.0, 17.0],
        },
        schema=PK,
    )
    java_equals(t, want, tmp_path)


def test_an_overwrite_context_starts_from_nothing(catalog, tmp_path):
    t = catalog.create_table("db.pk", PK, primary_keys=["id"], options={"bucket": "1"})
    t.write_arrow(pa.table({"id": [1, 2], "v": ["a", "b"], "n": [1.0, 2.0]}, schema=PK))
    w = pr.TableWrite.from_context(t.write_context(overwrite=True), t)
    w.write(pa.table({"id": pa.array([2, 3], pa.int32()), "v": ["B", "C"], "n": [20.0, 30.0]}))
    assert t.new_commit().overwrite(w.prepare_commit()) == [2]
    java_equals(t, pa.table({"id": [2, 3], "v": ["B", "C"], "n": [20.0, 30.0]}, schema=PK), tmp_path)


def test_a_compaction_worker_takes_the_schema_from_the_context(tmp_path):
    from test_maintenance import copy, reads_as_java_wrote_it

    t = copy("pk/dedup_uncompacted", tmp_path)
    context = t.write_context()
    tasks = t.compact_tasks(full=True)
    # The split reader reads the schema files of its input files' schema ids, as every read
    # worker does; snapshots and manifests stay out of reach.
    restore = metadata_moved_away(t, tmp_path, names=("snapshot", "manifest"))
    try:
        messages = [pr.run_compact_task(context, task, t.path) for task in tasks]
    finally:
        restore()
    assert len(t.new_commit().commit(messages)) == 1
    assert t.snapshots()[-1]["commit_kind"] == "COMPACT"
    reads_as_java_wrote_it(t, "pk/dedup_uncompacted", tmp_path)


def test_damaged_context_bytes_are_refused(catalog):
    t = catalog.create_table("db.pk", PK, primary_keys=["id"], options={"bucket": "1"})
    context = t.write_context()
    with pytest.raises(pr.CorruptError, match="write context"):
        pr.TableWrite.from_context(b"not a context", t)
    with pytest.raises(pr.CorruptError):
        pr.TableWrite.from_context(context[: len(context) // 2], t)
    with pytest.raises(pr.CorruptError):
        pr.run_compact_task(context[:-1], b"", t)


def files_under(path):
    return sorted(str(p.relative_to(path)) for p in pathlib.Path(path).rglob("*") if p.is_file())


def test_a_context_naming_another_table_is_refused_before_writing(catalog):
    # A worker told to write `db.mine` gets the context of `db.other` (hostile or mixed up):
    # the bytes may not point its files at another directory. Nothing is written there.
    mine = catalog.create_table("db.mine", PK, primary_keys=["id"], options={"bucket": "1"})
    other = catalog.create_table("db.other", PK, primary_keys=["id"], options={"bucket": "1"})
    before = files_under(other.path)
    context = other.write_context()
    for expected in (mine, mine.path, pathlib.Path(mine.path)):
        with pytest.raises(pr.InvalidArgumentError, match="is for table .*other, not .*mine"):
            w = pr.TableWrite.from_context(context, expected)
            w.write(pa.table({"id": pa.array([1], pa.int32()), "v": ["x"], "n": [1.0]}))
            w.prepare_commit()
        with pytest.raises(pr.InvalidArgumentError, match="is for table .*other, not .*mine"):
            pr.run_compact_task(context, b"", expected)
    assert files_under(other.path) == before
    # The context of the table itself is taken, with or without a trailing slash.
    w = pr.TableWrite.from_context(context, other.path + "/")
    w.write(pa.table({"id": pa.array([1], pa.int32()), "v": ["x"], "n": [1.0]}))
    assert other.new_commit().commit(w.prepare_commit()) == [1]
    assert other.scan().to_arrow().to_pydict() == {"id": [1], "v": ["x"], "n": [1.0]}
