"""Ray Data: read_paimon / read_splits on a local 2-CPU cluster equal the local read."""

import os

os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
os.environ.setdefault("RAY_DISABLE_DOCKER_CPU_WARNING", "1")

import pyarrow as pa
import pytest
import ray

import paimon_rs as pr
import paimon_rs.ray as pray
from conftest import EXPECTED, WAREHOUSE
from paimon_rs.ray import PaimonDatasource, _pack


@pytest.fixture(scope="module")
def cluster():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()


def rows(t):
    return sorted(repr(sorted(r.items())) for r in t.to_pylist())


def test_pack_never_makes_more_tasks_than_splits():
    assert _pack([5, 1, 1, 1], 2) == [[0], [1, 2, 3]]
    assert len(_pack([1] * 3, 8)) == 3
    assert sorted(i for g in _pack([3, 9, 2, 7, 1], 3) for i in g) == [0, 1, 2, 3, 4]
    assert len(_pack([3, 9, 2, 7, 1], 3)) == 3


@pytest.mark.parametrize("table", ["pk/partitioned", "append/fixed_bucket"])
def test_read_paimon_equals_the_local_read(cluster, table):
    db, t = table.split("/")
    path = str(WAREHOUSE / f"{db}.db" / t)
    local = pr.read_table(path)
    n_splits = len(pr.Table.open(path).scan().plan().splits)
    assert n_splits >= 2
    source = PaimonDatasource(path, pr.Table.open(path).scan().plan().splits)
    tasks = source.get_read_tasks(2)
    assert len(tasks) == 2
    assert len(source.get_read_tasks(1000)) == n_splits
    ds = pray.read_paimon(path, override_num_blocks=2)
    got = pa.concat_tables([ray.get(r) for r in ds.to_arrow_refs()])
    assert rows(got) == rows(local)


def test_read_splits_from_bytes_with_projection_and_filter(cluster):
    path = str(WAREHOUSE / "append.db" / "unaware")
    blobs = [s.to_bytes() for s in pr.Table.open(path).scan().plan().splits]
    ds = pray.read_splits(path, blobs, select=["id", "name"], filter="id < 10")
    got = pa.concat_tables([ray.get(r) for r in ds.to_arrow_refs()])
    want = pr.read_table(path, select=["id", "name"], filter="id < 10")
    assert got.column_names == ["id", "name"]
    assert rows(got) == rows(want) and want.num_rows > 0


def test_ray_projection_and_predicate_pushdown(cluster):
    from ray.data.expressions import col

    path = str(WAREHOUSE / "append.db" / "unaware")
    ds = pray.read_paimon(path).select_columns(["id", "price"]).filter(expr=col("id") < 5)
    got = sorted(ds.to_pandas()["id"].tolist())
    want = sorted(pr.read_table(path, filter="id < 5")["id"].to_pylist())
    assert got == want and got


def test_block_metadata_rows_only_when_exact():
    path = str(WAREHOUSE / "append.db" / "unaware")
    splits = pr.Table.open(path).scan().plan().splits
    tasks = PaimonDatasource(path, splits).get_read_tasks(len(splits))
    assert [t.metadata.num_rows for t in tasks] == [s.exact_row_count for s in splits]
    assert all(t.metadata.num_rows is not None for t in tasks)
    pk = str(WAREHOUSE / "pk.db" / "dedup_uncompacted")
    pk_splits = pr.Table.open(pk).scan().plan().splits
    assert any(s.exact_row_count is None for s in pk_splits)
    pk_tasks = PaimonDatasource(pk, pk_splits).get_read_tasks(1)
    assert pk_tasks[0].metadata.num_rows is None
    assert PaimonDatasource(pk, pk_splits).estimate_inmemory_data_size() == sum(s.file_size for s in pk_splits)


def test_pushdown_hooks_select_columns_and_filter_rows_in_the_task():
    from ray.data.expressions import col

    path = str(WAREHOUSE / "append.db" / "unaware")
    source = PaimonDatasource(path, pr.Table.open(path).scan().plan().splits)
    assert source.supports_projection_pushdown() and source.supports_predicate_pushdown()
    pushed = source.apply_projection({"id": "id", "price": "price"}).apply_predicate(col("id") < 5)
    assert pushed.schema().names == ["id", "price"]
    tasks = pushed.get_read_tasks(2)
    assert all(t.metadata.num_rows is None for t in tasks)  # a filter makes counts inexact
    got = pa.concat_tables([b for t in tasks for b in t()])
    want = pr.read_table(path, select=["id", "price"], filter="id < 5")
    assert got.column_names == ["id", "price"]
    assert rows(got) == rows(want) and want.num_rows > 0
    # The original is untouched (Ray clones datasources when it pushes down).
    assert "name" in source.schema().names


def ray_predicate_cases():
    """Ray expressions over append/unaware and the Paimon filter each should become."""
    import datetime as dt
    from decimal import Decimal

    from ray.data.expressions import col, lit

    return [
        (col("id") < 5, '"id" < 5'),
        ((lit(80) <= col("id")) & col("name").is_not_null(), '"id" >= 80', '"name" IS NOT NULL'),
        (col("dt") >= dt.date(2024, 2, 1), "\"dt\" >= DATE '2024-02-01'"),
        (col("amount") > Decimal("85.74"), '"amount" > 85.74'),
        (col("ts") < dt.datetime(2024, 1, 1, 5, 0), "\"ts\" < TIMESTAMP '2024-01-01 05:00:00.000000'"),
        (col("flag") == True, '"flag" = TRUE'),  # noqa: E712 (a Ray expression, not a test)
        (col("name").is_in(["name-1", "name-11", "x'y"]), "\"name\" IN ('name-1', 'name-11', 'x''y')"),
        (~(col("id") > 3) | col("flag").is_null(), '((NOT "id" > 3) OR "flag" IS NULL)'),
        (col("id").not_in([0, 1, 2]) & (col("id") != 7), '"id" NOT IN (0, 1, 2)', '"id" <> 7'),
    ]


@pytest.mark.parametrize("case", range(len(ray_predicate_cases())))
def test_ray_predicates_become_paimon_filters(case):
    expr, *filters = ray_predicate_cases()[case]
    path = str(WAREHOUSE / "append.db" / "unaware")
    source = PaimonDatasource(path, pr.Table.open(path).scan().plan().splits).apply_predicate(expr)
    text, residual = source.pushed_filter()
    assert text == " AND ".join(filters)
    assert residual is None  # Paimon covers all of it: no per-block filtering in Python
    got = pa.concat_tables([b for t in source.get_read_tasks(2) for b in t()])
    # pyarrow's evaluation of the same Ray expression is the independent answer.
    want = pr.read_table(path).filter(expr.to_pyarrow())
    assert rows(got) == rows(want)
    assert 0 < want.num_rows < 90


def test_ray_predicate_parts_paimon_cannot_hold_stay_in_the_task():
    from ray.data.expressions import col

    path = str(WAREHOUSE / "append.db" / "unaware")
    splits = pr.Table.open(path).scan().plan().splits
    cases = [
        # arithmetic is no Paimon filter: pushed 'id < 60', residual the rest
        ((col("id") < 60) & (col("id") * 2 > 50), '"id" < 60'),
        # a float comparison is pushed (pruning) and also kept: NaN ordering differs
        ((col("price") > 10.0) & (col("id") < 70), '"price" > 10.0 AND "id" < 70'),
        # a column compared with a column
        (col("id") > col("price"), None),
    ]
    for expr, pushed in cases:
        source = PaimonDatasource(path, splits, {"select": ["name"]}).apply_predicate(expr)
        text, residual = source.pushed_filter()
        assert text == pushed
        assert residual is not None
        got = pa.concat_tables([b for t in source.get_read_tasks(3) for b in t()])
        want = pr.read_table(path).filter(expr.to_pyarrow()).select(["name"])
        assert got.column_names == ["name"]  # residual columns read, used and dropped
        assert rows(got) == rows(want) and want.num_rows > 0


def test_ray_predicate_the_table_refuses_stays_in_the_task():
    from ray.data.expressions import col

    from paimon_rs.ray_filter import split_predicate

    # a literal of the wrong type for its column: the table refuses it, Ray keeps it
    path = str(WAREHOUSE / "append.db" / "unaware")
    source = PaimonDatasource(path, pr.Table.open(path).scan().plan().splits)
    assert source._accepts('"id" < 5') and not source._accepts("\"id\" < 'five'")
    pushed, residual = split_predicate((col("id") < 5) & (col("dt") > 3), (), lambda t: "dt" not in t)
    assert pushed == ['"id" < 5'] and residual.structurally_equals(col("dt") > 3)


def test_read_paimon_filter_expression_pushes_into_the_scan(cluster, monkeypatch):
    from ray.data.expressions import col

    # Ray plans the read on the driver: record the filters its read tasks were given.
    seen = []
    original = PaimonDatasource.pushed_filter

    def recording(self):
        out = original(self)
        seen.append(out)
        return out

    monkeypatch.setattr(PaimonDatasource, "pushed_filter", recording)
    path = str(WAREHOUSE / "append.db" / "part_multi")
    expr = (col("yr") == 2024) & col("region").is_in(["eu", "us"])
    got = pray.read_paimon(path).filter(expr=expr).to_arrow_refs()
    got = pa.concat_tables([ray.get(r) for r in got])
    want = pr.read_table(path).filter(expr.to_pyarrow())
    assert rows(got) == rows(want) and want.num_rows > 0
    assert ('"yr" = 2024 AND "region" IN (\'eu\', \'us\')', None) in seen


def test_write_paimon_commits_every_task_once_and_java_reads_the_rows(cluster, tmp_path):
    from test_write import java_equals

    wh = tmp_path / "wh"
    (wh / "db.db").mkdir(parents=True)
    cat = pr.Catalog(str(wh))
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("v", pa.string()), pa.field("p", pa.int32())])
    data = pa.table({"id": list(range(200)), "v": [f"v{i}" for i in range(200)], "p": [i % 3 for i in range(200)]}, schema=schema)
    ds = ray.data.from_arrow(data).repartition(4)

    # Append table, partitioned: four write tasks, one APPEND snapshot.
    t = cat.create_table("db.append", schema, partition_keys=["p"])
    assert pray.write_paimon(ds, t.path) == [1]
    assert [s["commit_kind"] for s in t.snapshots()] == ["APPEND"]
    java_equals(t, data, tmp_path)

    # Primary-key table: rows shuffled by key; a second write updates every even id.
    pk = cat.create_table("db.pk", schema, primary_keys=["id"], options={"bucket": "4"})
    assert pray.write_paimon(ds, pk.path, num_blocks=3) == [1]
    update = data.filter(pa.compute.equal(pa.compute.bit_wise_and(data["id"], 1), 0))
    update = update.set_column(1, "v", pa.array([f"new{i}" for i in update["id"].to_pylist()]))
    assert pray.write_paimon(ray.data.from_arrow(update), pk.path) == [2]
    want = pa.table(
        {"id": list(range(200)), "v": [f"new{i}" if i % 2 == 0 else f"v{i}" for i in range(200)], "p": [i % 3 for i in range(200)]},
        schema=schema,
    )
    java_equals(pk, want, tmp_path)

    # Overwrite of the append table through Ray replaces only partition p = 1.
    ones = data.filter(pa.compute.equal(data["p"], 1)).slice(0, 5)
    assert len(pray.write_paimon(ray.data.from_arrow(ones), t.path, overwrite=True, partition={"p": 1})) == 1
    kept = data.filter(pa.compute.not_equal(data["p"], 1))
    java_equals(t, pa.concat_tables([kept, ones]), tmp_path)


def test_write_paimon_on_a_dynamic_bucket_table_uses_one_task(cluster, tmp_path):
    from test_write import java_equals

    wh = tmp_path / "wh"
    (wh / "db.db").mkdir(parents=True)
    cat = pr.Catalog(str(wh))
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("v", pa.string())])
    t = cat.create_table("db.dyn", schema, primary_keys=["id"], options={"dynamic-bucket.target-row-num": "40"})
    data = pa.table({"id": list(range(100)), "v": [f"v{i}" for i in range(100)]}, schema=schema)
    assert pray.write_paimon(ray.data.from_arrow(data).repartition(4), t.path) == [1]
    update = pa.table({"id": list(range(0, 120, 2)), "v": [f"new{i}" for i in range(0, 120, 2)]}, schema=schema)
    assert pray.write_paimon(ray.data.from_arrow(update).repartition(3), t.path) == [2]
    ids = sorted(set(range(100)) | set(range(0, 120, 2)))
    want = pa.table({"id": ids, "v": [f"new{i}" if i % 2 == 0 else f"v{i}" for i in ids]}, schema=schema)
    java_equals(t, want, tmp_path)
    with pytest.raises(pr.InvalidArgumentError, match="one task"):
        pray.write_paimon(ray.data.from_arrow(update), t.path, num_blocks=2)


def test_a_failing_write_task_commits_nothing_and_leaves_no_files(cluster, tmp_path):
    wh = tmp_path / "wh"
    (wh / "db.db").mkdir(parents=True)
    schema = pa.schema([pa.field("id", pa.int64(), nullable=False), pa.field("v", pa.string())])
    t = pr.Catalog(str(wh)).create_table("db.t", schema)
    root = wh / "db.db" / "t"

    def files():
        return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())

    before = files()
    good = pa.table({"id": list(range(10)), "v": ["x"] * 10}, schema=schema)
    bad = pa.table({"id": pa.array([None], pa.int64()), "v": ["y"]})
    # One task at a time, the good block first: its files are written before the bad one fails.
    ds = ray.data.from_arrow([good, good, bad])
    with pytest.raises(Exception, match="null value in non-nullable column id"):
        pray.write_paimon(ds, t.path, concurrency=1)
    assert t.snapshots() == []
    assert files() == before


def test_compaction_runs_one_ray_task_per_bucket_and_commits_once(cluster, tmp_path):
    from test_maintenance import copy, reads_as_java_wrote_it

    t = copy("pk/dedup_uncompacted", tmp_path)
    before = len(t.snapshots())
    tasks = t.compact_tasks(full=True)
    assert len(tasks) == 2  # one per bucket
    ids = pray.compact(t.path, full=True)
    assert ids == [before + 1]
    assert t.snapshots()[-1]["commit_kind"] == "COMPACT"
    reads_as_java_wrote_it(t, "pk/dedup_uncompacted", tmp_path)
    # A copy compacted in one process ends with the same files per level.
    one = copy("pk/dedup_uncompacted", tmp_path / "one")
    assert one.compact(full=True) == [before + 1]
    def levels(table):
        return sorted((s.bucket, f["level"], f["row_count"]) for s in table.scan().plan().splits for f in s.files)

    assert levels(one) == levels(t)
    assert pray.compact(t.path, full=True) == []


def test_compaction_task_bytes_are_checked():
    t = pr.Table(str(WAREHOUSE / "pk.db" / "dedup_uncompacted"))
    task = t.compact_tasks(full=True)[0]
    with pytest.raises(pr.CorruptError):
        t.run_compact_task(task[: len(task) // 2])
    with pytest.raises(pr.CorruptError):
        t.run_compact_task(b"not a task at all")


def test_a_failed_compaction_task_leaves_no_files_of_the_finished_ones(cluster, tmp_path):
    from test_maintenance import copy

    t = copy("pk/dedup_uncompacted", tmp_path)
    snapshots = t.snapshots()
    # Bucket 1 loses a data file after planning reads the manifests: its task fails when it
    # reads it, while bucket 0's task writes its compacted files.
    root = tmp_path / "pk_dedup_uncompacted"
    gone = sorted((root / "bucket-1").glob("data-*"))[0]
    gone.unlink()

    def files():
        return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())

    before = files()
    with pytest.raises(Exception, match=gone.name):
        pray.compact(t.path, full=True)
    assert files() == before
    assert t.snapshots() == snapshots


@pytest.mark.parametrize("table", ["pk/dedup_uncompacted", "pk/partitioned", "append/unaware"])
def test_count_equals_the_rows_read(cluster, table):
    """Ray's count() of a table whose splits have no exact row count (merge reads of a
    primary-key table) reads a zero-column projection: its blocks must keep their rows."""
    db, t = table.split("/")
    path = str(WAREHOUSE / f"{db}.db" / t)
    want = len((EXPECTED / db / t / "latest.jsonl").read_text().splitlines())
    assert pr.read_table(path).num_rows == want
    ds = pray.read_paimon(path)
    assert len(ds.take_all()) == want
    assert pray.read_paimon(path).count() == want


def test_an_empty_projection_reads_one_cheap_column_with_every_row():
    """Ray 2.60 drops the rows of zero-column blocks, so the datasource answers an empty
    projection with one column: a partition column, else a key, else the first column."""
    cases = [("pk/partitioned", "dt"), ("pk/dedup_uncompacted", "id"), ("append/unaware", None)]
    for table, column in cases:
        db, t = table.split("/")
        path = str(WAREHOUSE / f"{db}.db" / t)
        want = len((EXPECTED / db / t / "latest.jsonl").read_text().splitlines())
        source = PaimonDatasource(path, pr.Table.open(path).scan().plan().splits).apply_projection({})
        blocks = [b for task in source.get_read_tasks(2) for b in task()]
        first = pa.schema(pr.SplitReader(path).schema).names[0]
        assert all(b.column_names == [column or first] for b in blocks), table
        assert sum(b.num_rows for b in blocks) == want, table


def test_a_zero_column_read_keeps_the_row_count():
    """The reader's empty projection (what Ray's count pushes down) yields batches of no
    columns with the rows of the full read."""
    path = str(WAREHOUSE / "pk.db" / "dedup_uncompacted")
    want = len((EXPECTED / "pk" / "dedup_uncompacted" / "latest.jsonl").read_text().splitlines())
    splits = pr.Table.open(path).scan().plan().splits
    got = pa.table(pr.SplitReader(path, select=[]).read(splits).read_all())
    assert got.num_columns == 0
    assert got.num_rows == want
