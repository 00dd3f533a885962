"""Ray reads and writes through a catalog (`catalog_options`), against Java's own REST catalog
server (the `server` fixture of test_catalog_rest.py): Ray reads the rows Java wrote through
REST, Ray writes rows whose single commit goes through the server's commit endpoint (the
server's recorded snapshot moves) and Java's `rest-dump` reads them; the write tasks never
receive the catalog's token; Ray compacts through the catalog (its COMPACT snapshot committed
by the server, Java reads the same rows) and the compaction tasks never receive the token
either; DataFusion from Python queries the same catalog."""

import json
import os
import pickle

os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
os.environ.setdefault("RAY_DISABLE_DOCKER_CPU_WARNING", "1")

import datafusion
import pyarrow as pa
import pytest
import ray

import paimon_rs as pr
import paimon_rs.ray as pray
from test_catalog_rest import TOKEN, options, oracle, server, server_snapshot_id  # noqa: F401
from test_ray import cluster  # noqa: F401


def arrow_of(ds):
    return pa.concat_tables([ray.get(r) for r in ds.to_arrow_refs()])


def id_v(table):
    return sorted(zip(table.column("id").to_pylist(), table.column("v").to_pylist()))


def test_ray_reads_and_writes_through_the_rest_catalog(cluster, server):  # noqa: F811
    oracle("rest-write", server, "ray_db.t", "--from", "0", "--to", "6", "--token", TOKEN)
    assert server_snapshot_id(server, "ray_db", "t") == 1
    cat_opts = options(server)

    ds = pray.read_paimon("ray_db.t", catalog_options=cat_opts, override_num_blocks=2)
    got = arrow_of(ds)
    assert id_v(got) == [(i, f"java-{i}") for i in range(6)]
    projected = pray.read_paimon("ray_db.t", catalog_options=cat_opts, select=["v"], filter="id >= 4")
    assert sorted(arrow_of(projected).column("v").to_pylist()) == ["java-4", "java-5"]

    schema = pa.schema([pa.field("id", pa.int32()), pa.field("v", pa.string())])
    new = pa.table({"id": list(range(100, 110)), "v": [f"ray-{i}" for i in range(100, 110)]}, schema=schema)
    sink = pray.PaimonDatasink("ray_db.t", catalog_options=cat_opts)
    # What Ray ships to the write tasks: the path and storage options, not the token.
    shipped = pickle.dumps(sink.__getstate__())
    assert TOKEN.encode() not in shipped
    ray.kill(sink._written)

    assert pray.write_paimon(ray.data.from_arrow(new).repartition(3), "ray_db.t", catalog_options=cat_opts) == [2]
    # The commit went through the server's commit endpoint, and Java reads every row.
    assert server_snapshot_id(server, "ray_db", "t") == 2
    dumped = [json.loads(line) for line in oracle("rest-dump", server, "ray_db.t", "--token", TOKEN).splitlines()]
    want = [(i, f"java-{i}") for i in range(6)] + [(i, f"ray-{i}") for i in range(100, 110)]
    assert sorted((r["id"], r["v"]) for r in dumped) == want
    again = pray.read_paimon("ray_db.t", catalog_options=cat_opts)
    assert id_v(arrow_of(again)) == want

    with pytest.raises(pr.InvalidArgumentError):
        pray.read_paimon("ray_db.t", catalog_options=cat_opts, options={"fs.x": "y"})


class _RecordingRemote:
    """Stands in for ``paimon_rs.ray._run_compact_task``: keeps the arguments each Ray task is
    started with (what Ray pickles and ships to the worker) and starts the real task."""

    def __init__(self, real):
        self.real = real
        self.calls = []

    def options(self, **kwargs):
        inner = self.real.options(**kwargs)
        calls = self.calls

        class Started:
            def remote(self, *args):
                calls.append(args)
                return inner.remote(*args)

        return Started()


def test_ray_compacts_through_the_rest_catalog(cluster, server, monkeypatch):  # noqa: F811
    # Three Java commits: three small data files in the table's one (unaware) bucket.
    for lo, hi in ((0, 3), (3, 5), (5, 9)):
        oracle("rest-write", server, "ray_cdb.t", "--from", str(lo), "--to", str(hi), "--token", TOKEN)
    assert server_snapshot_id(server, "ray_cdb", "t") == 3
    cat_opts = options(server)
    recorder = _RecordingRemote(pray._run_compact_task)
    monkeypatch.setattr(pray, "_run_compact_task", recorder)

    assert pray.compact("ray_cdb.t", full=True, catalog_options=cat_opts) == [4]
    # The COMPACT snapshot went through the server's commit endpoint.
    assert server_snapshot_id(server, "ray_cdb", "t") == 4
    table = pr.Catalog(options=cat_opts).get_table("ray_cdb.t")
    assert table.snapshots()[-1]["commit_kind"] == "COMPACT"
    # Java reads exactly the rows it wrote, now from the compacted files.
    dumped = [json.loads(line) for line in oracle("rest-dump", server, "ray_cdb.t", "--token", TOKEN).splitlines()]
    want = [(i, f"java-{i}") for i in range(9)]
    assert sorted((r["id"], r["v"]) for r in dumped) == want
    assert id_v(arrow_of(pray.read_paimon("ray_cdb.t", catalog_options=cat_opts))) == want

    # What the tasks were shipped: the table's path, the task bytes and storage options,
    # never the catalog's token.
    assert recorder.calls
    for context, path, storage, task in recorder.calls:
        assert path == table.path
        assert isinstance(task, bytes) and isinstance(context, bytes)
        assert "token" not in storage and TOKEN not in storage.values()
    assert TOKEN.encode() not in pickle.dumps(recorder.calls)

    # Nothing left to compact: no task, no snapshot.
    assert pray.compact("ray_cdb.t", catalog_options=cat_opts) == []
    assert server_snapshot_id(server, "ray_cdb", "t") == 4
    with pytest.raises(pr.InvalidArgumentError):
        pray.compact("ray_cdb.t", catalog_options=cat_opts, options={"fs.x": "y"})


def test_datafusion_from_python_queries_and_inserts_through_the_rest_catalog(server):  # noqa: F811
    oracle("rest-write", server, "df_db.t", "--from", "0", "--to", "4", "--token", TOKEN)
    ctx = datafusion.SessionContext()
    ctx.register_catalog_provider("rest", pr.Catalog(options=options(server)))
    got = ctx.sql("SELECT id, v FROM rest.df_db.t ORDER BY id").to_arrow_table()
    assert id_v(got) == [(i, f"java-{i}") for i in range(4)]
    ctx.sql("INSERT INTO rest.df_db.t VALUES (40, 'df-40')").collect()
    assert server_snapshot_id(server, "df_db", "t") == 2
    dumped = [json.loads(line) for line in oracle("rest-dump", server, "df_db.t", "--token", TOKEN).splitlines()]
    assert sorted((r["id"], r["v"]) for r in dumped) == [(i, f"java-{i}") for i in range(4)] + [(40, "df-40")]
