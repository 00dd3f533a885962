"""SplitReader.read_async: reads for asyncio, compared with Java's rows."""

import asyncio

import pyarrow as pa
import pytest

import paimon_rs as pr
from conftest import EXPECTED, FIXTURES, REPO, WAREHOUSE, compare

TABLES = [
    ("append/part_multi", "append/part_multi/latest.jsonl"),
    ("pk/dedup_uncompacted", "pk/dedup_uncompacted/latest.jsonl"),
    ("pk/dv32", "pk/dv32/latest.jsonl"),
    ("pk/dedup_avro", "pk/dedup_avro/latest.jsonl"),
    ("append/fmt_orc_zstd", "append/fmt_orc_zstd/latest.jsonl"),
]


def table_dir(name):
    db, t = name.split("/")
    return WAREHOUSE / f"{db}.db" / t


async def collect(reader, splits):
    batches = []
    async for b in reader.read_async(splits):
        assert isinstance(b, pr.RecordBatch)
        batches.append(pa.record_batch(b))
    return batches


@pytest.mark.parametrize("table,expected", TABLES, ids=[t for t, _ in TABLES])
def test_async_reads_give_javas_rows(table, expected, tmp_path):
    path = str(table_dir(table))
    splits = pr.Table.open(path).scan().plan().splits
    assert splits
    reader = pr.SplitReader(path)
    batches = asyncio.run(collect(reader, splits))
    t = pa.Table.from_batches(batches, schema=pa.schema(reader.schema))
    assert compare(table_dir(table), EXPECTED / expected, t, [], tmp_path) is None


def test_split_reads_interleave_on_one_event_loop(tmp_path):
    """Two tables read at once by two tasks of one loop: each gets its own rows."""
    a, b = "pk/dedup_uncompacted", "append/part_multi"

    async def both():
        readers = [pr.SplitReader(str(table_dir(t))) for t in (a, b)]
        plans = [pr.Table.open(str(table_dir(t))).scan().plan().splits for t in (a, b)]
        return await asyncio.gather(*(collect(r, p) for r, p in zip(readers, plans)))

    got = asyncio.run(both())
    for t, batches in zip((a, b), got):
        schema = pa.schema(pr.SplitReader(str(table_dir(t))).schema)
        table = pa.Table.from_batches(batches, schema=schema)
        assert compare(table_dir(t), EXPECTED / f"{t}/latest.jsonl", table, [], tmp_path) is None


def test_java_planned_split_bytes_read_async_with_a_limit(tmp_path):
    files = sorted((FIXTURES / "splits" / "pk_dedup_compacted").glob("*.bin"))
    assert files
    rewrite = [("/work/main/", str(REPO) + "/")]
    path = str(table_dir("pk/dedup_compacted"))
    full = asyncio.run(collect(pr.SplitReader(path, path_rewrites=rewrite), [f.read_bytes() for f in files]))
    t = pa.Table.from_batches(full)
    assert compare(table_dir("pk/dedup_compacted"), EXPECTED / "pk/dedup_compacted/latest.jsonl", t, [], tmp_path) is None
    assert t.num_rows > 2
    limited = asyncio.run(
        collect(pr.SplitReader(path, path_rewrites=rewrite, limit=2), [f.read_bytes() for f in files])
    )
    assert sum(b.num_rows for b in limited) == 2


def test_async_read_errors_are_typed(damaged):
    path = damaged("append/unaware")
    splits = pr.Table.open(str(path)).scan().plan().splits
    for f in path.glob("bucket-0/*.parquet"):
        f.write_bytes(b"PAR1 not a parquet file PAR1")
    with pytest.raises(pr.PaimonError) as e:
        asyncio.run(collect(pr.SplitReader(str(path)), splits))
    assert ".parquet" in str(e.value)
    with pytest.raises(pr.CorruptError):
        asyncio.run(collect(pr.SplitReader(str(path)), b"\x00\x01 not a split"))
