"""Table.compact / expire_snapshots / remove_orphan_files on copies of Java-written fixture
tables: before and after each, Java (the oracle) reads the table, and our reads equal Java's
rows of the table as Java wrote it (fixtures/expected)."""

import shutil

import pytest

import paimon_rs as pr
from conftest import EXPECTED, WAREHOUSE, compare
from test_write import java_dump, snapshot_ids


def copy(name, tmp_path):
    dst = tmp_path / name.replace("/", "_")
    db, table = name.split("/")
    shutil.copytree(WAREHOUSE / f"{db}.db" / table, dst)
    return pr.Table(str(dst))


def reads_as_java_wrote_it(t, name, tmp_path):
    """Our read and Java's read of `t` both equal Java's rows of the fixture as written."""
    expected = EXPECTED / name / "latest.jsonl"
    assert compare(t.path, expected, t.scan().to_arrow(), [], tmp_path) is None
    java = java_dump(t.path, tmp_path / "java-now.jsonl")
    assert sorted(java.read_text().splitlines()) == sorted(expected.read_text().splitlines())


def test_full_compaction_commits_one_snapshot_and_keeps_the_rows(tmp_path):
    t = copy("pk/dedup_uncompacted", tmp_path)
    before = snapshot_ids(t)
    made = t.compact(full=True)
    assert len(made) == 1 and made[0] == before[-1] + 1
    assert snapshot_ids(t)[-1] == made[0]
    assert t.snapshots()[-1]["commit_kind"] == "COMPACT"
    reads_as_java_wrote_it(t, "pk/dedup_uncompacted", tmp_path)
    # Nothing left to compact: no snapshot.
    assert t.compact(full=True) == []


def test_minor_compaction_of_a_primary_key_table(tmp_path):
    t = copy("pk/dedup_uncompacted", tmp_path)
    t.compact()
    reads_as_java_wrote_it(t, "pk/dedup_uncompacted", tmp_path)


def test_lookup_changelog_minor_then_full_compaction_keep_the_rows(tmp_path):
    # Java's writers compacted this table after each write, so a minor compaction finds
    # nothing to do (the acceptance suite compares one that does with Java's); a full one
    # merges the levels into the last.
    t = copy("pk/changelog_lookup", tmp_path)
    before = snapshot_ids(t)
    assert t.compact() == []
    assert snapshot_ids(t) == before
    made = t.compact(full=True)
    assert len(made) == 1
    reads_as_java_wrote_it(t, "pk/changelog_lookup", tmp_path)


def test_minor_compaction_of_a_first_row_table(tmp_path):
    # Java compacts first-row tables by lookup, which is run here too.
    t = copy("pk/first_row", tmp_path)
    t.compact()
    t.compact(full=True)
    java = java_dump(t.path, tmp_path / "java-now.jsonl")
    assert compare(t.path, java, t.scan().to_arrow(), [], tmp_path) is None


def test_append_compaction_by_partition(tmp_path):
    t = copy("append/unaware", tmp_path)
    t.compact(full=True)
    reads_as_java_wrote_it(t, "append/unaware", tmp_path)


def test_expire_snapshots_keeps_the_latest_readable(tmp_path):
    t = copy("pk/many_snapshots", tmp_path)
    ids = snapshot_ids(t)
    assert len(ids) > 2
    dry = t.expire_snapshots(retain_max=1, retain_min=1, older_than="0 s", dry_run=True)
    assert dry["expired"] == ids[:-1] and dry["files"]
    assert snapshot_ids(t) == ids
    done = t.expire_snapshots(retain_max=1, retain_min=1, older_than="0 s")
    assert done["expired"] == ids[:-1] and done["earliest"] == ids[-1]
    assert snapshot_ids(t) == ids[-1:]
    reads_as_java_wrote_it(t, "pk/many_snapshots", tmp_path)


def test_remove_orphan_files_takes_only_unreferenced_files(tmp_path):
    t = copy("append/unaware", tmp_path)
    bucket = next(p for p in (tmp_path / "append_unaware").iterdir() if p.name.startswith("bucket-"))
    orphan = bucket / "data-orphan-0.parquet"
    orphan.write_bytes(b"not referenced")
    assert t.remove_orphan_files() == []  # younger than a day
    listed = t.remove_orphan_files(older_than="0 s", dry_run=True)
    assert [p.rsplit("/", 1)[-1] for p in listed] == [orphan.name] and orphan.exists()
    removed = t.remove_orphan_files(older_than="0 s")
    assert [p.rsplit("/", 1)[-1] for p in removed] == [orphan.name] and not orphan.exists()
    reads_as_java_wrote_it(t, "append/unaware", tmp_path)


def test_bad_durations_are_invalid_arguments(tmp_path):
    t = copy("append/unaware", tmp_path)
    with pytest.raises(pr.InvalidArgumentError, match="duration"):
        t.expire_snapshots(older_than="soon")
    with pytest.raises(pr.InvalidArgumentError, match="duration"):
        t.remove_orphan_files(older_than="-")


def test_expire_partitions_drops_the_old_ones_java_reads_the_rest(tmp_path):
    import pyarrow as pa
    from test_write import java_equals

    (tmp_path / "wh" / "db.db").mkdir(parents=True)
    schema = pa.schema([pa.field("id", pa.int32()), pa.field("dt", pa.string())])
    t = pr.Catalog(str(tmp_path / "wh")).create_table(
        "db.events", schema, partition_keys=["dt"], options={"partition.timestamp-formatter": "yyyyMMdd"}
    )
    t.write_arrow(pa.table({"id": [1, 2, 3, 4], "dt": ["20200101", "20200102", "20990101", "x"]}, schema=schema))
    before = snapshot_ids(t)
    dry = t.expire_partitions(expiration_time="30 d", dry_run=True)
    assert dry == {"partitions": [{"dt": "20200101"}, {"dt": "20200102"}], "snapshots": []}
    assert snapshot_ids(t) == before
    done = t.expire_partitions(expiration_time="30 d", max_expires=1)
    assert done["partitions"] == [{"dt": "20200101"}] and done["snapshots"] == [before[-1] + 1]
    assert t.snapshots()[-1]["commit_kind"] == "OVERWRITE"
    java_equals(t, pa.table({"id": [2, 3, 4], "dt": ["20200102", "20990101", "x"]}, schema=schema), tmp_path)
    with pytest.raises(pr.InvalidArgumentError, match="expiration"):
        t.expire_partitions()


def test_global_index_built_and_dropped_from_python(tmp_path):
    """fixtures/global-index at its fourth snapshot: 200 rows, row id n holding id = n and
    name = NULL when n % 17 == 0 else 'n{n % 7}' (scripts/gen-global-index-fixture.py)."""
    from conftest import FIXTURES

    dst = tmp_path / "t"
    shutil.copytree(FIXTURES / "global-index" / "db.db" / "t", dst)
    for n in (5, 6, 7):
        (dst / "snapshot" / f"snapshot-{n}").unlink()
    shutil.rmtree(dst / "index")
    (dst / "snapshot" / "LATEST").write_text("4")
    t = pr.Table(str(dst))

    built = t.create_global_index("name", "bitmap", options={"sorted-index.records-per-file": "50"})
    assert (built["files"], built["rows"], built["snapshots"]) == (4, 200, [5])
    assert built["row_ranges"] == [(0, 199)] * 4
    want = sorted(n for n in range(200) if n % 17 != 0 and n % 7 == 3)
    got = lambda: sorted(t.scan(filter="name = 'n3'").to_arrow().column("id").to_pylist())
    assert got() == want
    assert t.create_global_index("name", "bitmap")["snapshots"] == []

    dropped = t.drop_global_index("name", "bitmap")
    assert (dropped["files"], dropped["snapshots"]) == (4, [6])
    assert got() == want
    assert t.drop_global_index("name", "bitmap") == {"files": 0, "snapshots": []}
    with pytest.raises(pr.InvalidArgumentError, match="unknown column 'nope'"):
        t.drop_global_index("nope", "bitmap")
    assert t.create_global_index("name", "bitmap")["rows"] == 200
