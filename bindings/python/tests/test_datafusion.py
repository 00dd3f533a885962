"""paimon_rs.Table and paimon_rs.Catalog queried by the PyPI `datafusion` package through
DataFusion's FFI: answers equal Java's expected rows (kept with the fixtures) and our own
reader's, filters reach our scan, and a `datafusion` of another major version is refused."""

import json
from collections import Counter, defaultdict

import datafusion
import pyarrow as pa
import pytest

import paimon_rs as pr
from conftest import EXPECTED, WAREHOUSE, compare, fixture_cases, skips

SKIPS = skips()


def java_rows(db_table, name="latest.jsonl"):
    """Java's rows of `db/table` (fixtures/expected) as dicts."""
    path = EXPECTED / db_table / name
    return [json.loads(line) for line in path.read_text().splitlines() if line]


def table_dir(db_table):
    db, t = db_table.split("/")
    return WAREHOUSE / f"{db}.db" / t


def ctx_with(**tables):
    """A SessionContext with each `name=db/table` registered from a paimon_rs.Table."""
    ctx = datafusion.SessionContext()
    for name, db_table in tables.items():
        ctx.register_table(name, pr.Table(str(table_dir(db_table))))
    return ctx


def catalog_ctx():
    ctx = datafusion.SessionContext()
    ctx.register_catalog_provider("paimon", pr.Catalog(str(WAREHOUSE)))
    return ctx


def sql(ctx, query):
    return ctx.sql(query).to_arrow_table()


def scalar(ctx, query):
    t = sql(ctx, query)
    assert t.num_rows == 1 and t.num_columns == 1, t
    return t.column(0)[0].as_py()


def explain(ctx, query):
    """EXPLAIN's text: every plan line, logical and physical."""
    t = sql(ctx, f"EXPLAIN {query}")
    return "\n".join(f"{p}: {s}" for p, s in zip(t.column(0).to_pylist(), t.column(1).to_pylist()))


def test_count_equals_javas_and_our_reader():
    ctx = ctx_with(t="pk/dedup_uncompacted")
    rows = java_rows("pk/dedup_uncompacted")
    ours = pr.Table(str(table_dir("pk/dedup_uncompacted"))).scan().to_arrow()
    assert scalar(ctx, "SELECT count(*) FROM t") == len(rows) == ours.num_rows == 45


def test_filtered_count_and_sum_equal_javas():
    ctx = ctx_with(t="pk/dedup_uncompacted")
    rows = java_rows("pk/dedup_uncompacted")
    assert scalar(ctx, "SELECT count(*) FROM t WHERE id > 3") == sum(r["id"] > 3 for r in rows)
    assert scalar(ctx, "SELECT sum(id) FROM t") == sum(r["id"] for r in rows)
    assert scalar(ctx, "SELECT sum(id) FROM t WHERE id BETWEEN 10 AND 20") == sum(
        r["id"] for r in rows if 10 <= r["id"] <= 20
    )
    assert scalar(ctx, "SELECT count(*) FROM t WHERE v IS NULL") == sum(r["v"] is None for r in rows)


def test_select_star_equals_our_reader():
    ctx = ctx_with(t="pk/partitioned")
    ours = pr.Table(str(table_dir("pk/partitioned"))).scan().to_arrow()
    got = sql(ctx, "SELECT * FROM t")
    assert got.schema.names == ours.schema.names
    key = [(c, "ascending") for c in ours.schema.names]
    assert got.sort_by(key).to_pylist() == ours.sort_by(key).to_pylist()


def test_group_by_partition_equals_javas():
    ctx = ctx_with(t="pk/partitioned")
    want = defaultdict(lambda: [0, 0])
    for r in java_rows("pk/partitioned"):
        want[(r["dt"], r["hr"])][0] += 1
        want[(r["dt"], r["hr"])][1] += r["id"]
    got = sql(ctx, "SELECT dt, hr, count(*) AS n, sum(id) AS s FROM t GROUP BY dt, hr").to_pylist()
    assert {(g["dt"], g["hr"]): [g["n"], g["s"]] for g in got} == dict(want)
    assert len(want) == 6


def test_join_of_two_tables_equals_javas():
    ctx = ctx_with(a="pk/dedup_uncompacted", b="pk/partitioned")
    left = java_rows("pk/dedup_uncompacted")
    right = java_rows("pk/partitioned")
    want = Counter(
        (x["id"], x["v"], y["v"], y["dt"]) for x in left for y in right if x["id"] == y["id"] and y["hr"] == 1
    )
    got = sql(ctx, "SELECT a.id, a.v AS av, b.v AS bv, b.dt FROM a JOIN b ON a.id = b.id WHERE b.hr = 1")
    assert Counter((g["id"], g["av"], g["bv"], g["dt"]) for g in got.to_pylist()) == want
    assert sum(want.values()) > 0


def test_catalog_query_equals_javas():
    ctx = catalog_ctx()
    rows = java_rows("pk/dedup_uncompacted")
    assert scalar(ctx, "SELECT count(*) FROM paimon.pk.dedup_uncompacted") == len(rows)
    assert scalar(ctx, "SELECT sum(id) FROM paimon.append.part_date WHERE dt >= DATE '2024-02-01'") == sum(
        r["id"] for r in java_rows("append/part_date") if r["dt"] is not None and r["dt"] >= "2024-02-01"
    )


def test_catalog_join_across_databases_equals_javas():
    ctx = catalog_ctx()
    want = sum(
        1 for x in java_rows("append/part_date") for y in java_rows("pk/dedup_uncompacted") if x["id"] == y["id"]
    )
    got = scalar(
        ctx,
        "SELECT count(*) FROM paimon.append.part_date p JOIN paimon.pk.dedup_uncompacted d ON p.id = d.id",
    )
    assert got == want > 0


def catalog_name(args):
    """The quoted catalog table-name suffix (paimon-datafusion's TableName) of `paimon read`
    snapshot/tag/branch arguments, None for other arguments."""
    opts = dict(zip(args[::2], args[1::2]))
    if len(args) % 2 or len(opts) > 1:
        return None
    if not opts:
        return ""
    (k, v), = opts.items()
    return {"--snapshot": f"@snapshot={v}", "--tag": f"@tag={v}", "--branch": f"$branch_{v}"}.get(k)


TRAVEL = [c for c in fixture_cases() if catalog_name(c[2]) is not None]


def test_there_are_many_time_travel_cases():
    assert len(TRAVEL) > 100
    assert {a[0] for _, _, a, _ in TRAVEL if a} == {"--snapshot", "--tag", "--branch"}


@pytest.mark.parametrize("case,tdir,args,expected", TRAVEL, ids=[c[0] for c in TRAVEL])
def test_catalog_select_star_reads_javas_rows(case, tdir, args, expected, tmp_path):
    """Every table, snapshot, tag and branch of the fixtures through the catalog."""
    db = tdir.parent.name[: -len(".db")]
    query = f'SELECT * FROM paimon."{db}"."{tdir.name}{catalog_name(args)}"'
    if case in SKIPS:
        with pytest.raises(Exception):
            sql(catalog_ctx(), query)
        pytest.skip(f"skips.rs: {SKIPS[case]}")
    diff = compare(tdir, expected, sql(catalog_ctx(), query), args, tmp_path)
    assert diff is None, diff


def plain_queries():
    """The queries of fixtures/queries.json that are a projection and a filter of the latest
    snapshot over the table's own columns: those SQL states as SELECT ... WHERE ..."""
    out = []
    for q in json.loads((WAREHOUSE.parent / "queries.json").read_text()):
        opts = dict(zip(q["args"][::2], q["args"][1::2]))
        if len(q["args"]) % 2 or set(opts) - {"--select", "--filter"}:
            continue
        if "_ROW_ID" in opts.get("--select", ""):
            continue
        out.append((q["expected"], q["table"], q["args"], opts.get("--select"), opts.get("--filter")))
    return out


PLAIN = plain_queries()


def test_there_are_plain_queries():
    assert len(PLAIN) >= 15


@pytest.mark.parametrize("case,db_table,args,select,where", PLAIN, ids=[p[0] for p in PLAIN])
def test_filter_queries_read_javas_rows(case, db_table, args, select, where, tmp_path):
    db, t = db_table.split("/")
    cols = ", ".join(f'"{c.strip()}"' for c in select.split(",")) if select else "*"
    query = f'SELECT {cols} FROM paimon."{db}"."{t}"' + (f" WHERE {where}" if where else "")
    if case in SKIPS:
        with pytest.raises(Exception):
            sql(catalog_ctx(), query)
        pytest.skip(f"skips.rs: {SKIPS[case]}")
    diff = compare(table_dir(db_table), EXPECTED / case, sql(catalog_ctx(), query), args, tmp_path)
    assert diff is None, diff


def test_filter_is_pushed_into_our_scan():
    ctx = ctx_with(t="pk/dedup_uncompacted")
    plan = explain(ctx, "SELECT count(*) FROM t WHERE id > 3")
    scan = [line for line in plan.splitlines() if "TableScan: t" in line]
    assert len(scan) == 1, plan
    # Exact pushdown: DataFusion leaves the filter to our scan, with no FilterExec above it.
    assert "full_filters=[t.id > Int32(3)]" in scan[0], plan
    assert "FFI_ExecutionPlan: PaimonScanExec" in plan, plan
    assert "FilterExec" not in plan, plan


def bytes_read():
    """Bytes this process has read through read(2)/pread(2) (Linux /proc/self/io)."""
    with open("/proc/self/io") as f:
        return int(next(line for line in f if line.startswith("rchar:")).split()[1])


def test_partition_filter_reads_under_half_the_bytes():
    ctx = catalog_ctx()
    full, part = "SELECT * FROM paimon.append.part_multi", "SELECT * FROM paimon.append.part_multi WHERE region = ''"
    sql(ctx, full)  # the first query opens the table; count the steady state

    def measured(q):
        before = bytes_read()
        rows = sql(ctx, q).num_rows
        return bytes_read() - before, rows

    (all_bytes, all_rows), (part_bytes, part_rows) = measured(full), measured(part)
    assert 0 < part_rows < all_rows
    assert part_rows == len(java_rows("append/part_multi", "q-region-empty.jsonl"))
    assert part_bytes * 2 < all_bytes, (part_bytes, all_bytes)


def test_refuses_another_datafusion_major(monkeypatch):
    table = pr.Table(str(table_dir("pk/dedup_uncompacted")))
    catalog = pr.Catalog(str(WAREHOUSE))
    ctx = datafusion.SessionContext()
    for other in ("54.1.0", "56.0.0", "not-a-version"):
        monkeypatch.setattr(datafusion, "__version__", other)
        with pytest.raises(pr.UnsupportedError, match=f"datafusion Python package is {other}.*datafusion>=55,<56"):
            table.__datafusion_table_provider__(ctx.ctx)
        with pytest.raises(pr.UnsupportedError, match=f"datafusion Python package is {other}"):
            ctx.register_table("t", table)
        with pytest.raises(pr.UnsupportedError, match=f"datafusion Python package is {other}"):
            ctx.register_catalog_provider("paimon", catalog)
    monkeypatch.setattr(datafusion, "__version__", "55.9.1")
    ctx.register_table("t", table)
    assert scalar(ctx, "SELECT count(*) FROM t") == 45


def test_provider_needs_a_session():
    table = pr.Table(str(table_dir("pk/dedup_uncompacted")))
    with pytest.raises(pr.InvalidArgumentError, match="SessionContext"):
        table.__datafusion_table_provider__(42)


def test_catalog_errors():
    with pytest.raises(pr.NotFoundError):
        pr.Catalog(str(WAREHOUSE / "no_such_dir"))
    with pytest.raises(Exception, match="no_such_table"):
        sql(catalog_ctx(), "SELECT * FROM paimon.pk.no_such_table")
