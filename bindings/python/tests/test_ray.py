"""Ray Data: read_paimon / read_splits on a local 2-CPU cluster equal the local read."""

import os

os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
os.environ.setdefault("RAY_DISABLE_DOCKER_CPU_WARNING", "1")

import pyarrow as pa
import pytest
import ray

import paimon_rs as pr
import paimon_rs.ray as pray
from conftest import WAREHOUSE
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
