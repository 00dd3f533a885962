"""Splits: Java-planned split files read through SplitReader, splits planned here read in
another process from their bytes, byte round trips, hostile bytes."""

import json
import pickle
import subprocess
import sys
import threading

import pyarrow as pa
import pytest

import paimon_rs as pr
from conftest import EXPECTED, FIXTURES, REPO, WAREHOUSE, compare, scan_kwargs

# (split dir, table, reader kwargs, expected rows): the cases scripts/gen-plans.sh recorded.
JAVA_SPLITS = [
    ("pk_dedup_compacted", "pk/dedup_compacted", {}, "pk/dedup_compacted/latest.jsonl"),
    ("pk_many_snapshots_incremental_t3_t6", "pk/many_snapshots", {}, "pk/many_snapshots/q-incremental-tags.jsonl"),
    ("pk_dv32_diff_2_8", "pk/dv32", {"with_kind": True}, "pk/dv32/q-diff-2-8.jsonl"),
]


def table_dir(name):
    db, t = name.split("/")
    return WAREHOUSE / f"{db}.db" / t


@pytest.mark.parametrize("split_dir,table,kw,expected", JAVA_SPLITS, ids=[c[0] for c in JAVA_SPLITS])
def test_java_planned_splits_read_javas_rows(split_dir, table, kw, expected, tmp_path):
    files = sorted((FIXTURES / "splits" / split_dir).glob("*.bin"))
    assert files
    # Java wrote the bucket paths of the checkout it ran in.
    rewrite = [("/work/main/", str(REPO) + "/")]
    reader = pr.SplitReader(str(table_dir(table)), path_rewrites=rewrite, **kw)
    got = reader.read([f.read_bytes() for f in files]).read_all()
    args = ["--with-kind"] if kw.get("with_kind") else []
    assert compare(table_dir(table), EXPECTED / expected, got, args, tmp_path) is None


WORKER = """
import sys, pyarrow as pa, paimon_rs as pr
table, out = sys.argv[1], sys.argv[2]
blobs = [open(p, "rb").read() for p in sys.argv[3:]]
t = pa.table(pr.SplitReader(table).read(blobs).read_all())
with pa.OSFile(out, "wb") as f, pa.ipc.new_file(f, t.schema) as w:
    w.write_table(t)
"""


@pytest.mark.parametrize("table", ["pk/dedup_uncompacted", "append/part_multi", "pk/dv32"])
def test_splits_sent_as_bytes_to_another_process_read_the_same(table, tmp_path):
    path = str(table_dir(table))
    plan = pr.Table.open(path).scan().plan()
    assert plan.splits
    blobs = []
    for i, s in enumerate(plan.splits):
        for frame in ("raw", "split-v1"):
            b = s.to_bytes(frame=frame)
            again = pr.Split.from_bytes(b)
            assert again.to_bytes(frame=frame) == b
            assert again.row_count == s.row_count and again.bucket == s.bucket
        p = tmp_path / f"split-{i}.bin"
        p.write_bytes(s.to_bytes(version=9, frame="raw"))
        blobs.append(str(p))
    out = tmp_path / "remote.arrow"
    subprocess.run([sys.executable, "-c", WORKER, path, str(out), *blobs], check=True)
    remote = pa.ipc.open_file(str(out)).read_all()
    local = pr.Table.open(path).scan().to_arrow()
    key = lambda t: sorted(map(str, t.to_pylist()))
    assert remote.num_rows == local.num_rows > 0
    assert key(remote) == key(local)
    # And both equal Java's rows.
    assert compare(path, EXPECTED / table / "latest.jsonl", remote, [], tmp_path) is None


def test_split_metadata():
    path = str(table_dir("append/part_multi"))
    t = pr.Table.open(path)
    assert t.partition_keys == ["region", "yr", "dt"]
    splits = t.scan().plan().splits
    parts = [s.partition for s in splits]
    assert all(set(p) == {"region", "yr", "dt"} for p in parts)
    # An append table without deletions: the files' rows are Java's rows.
    java_rows = len((EXPECTED / "append/part_multi/latest.jsonl").read_text().splitlines())
    assert sum(s.row_count for s in splits) == java_rows
    assert all(s.exact_row_count == s.row_count for s in splits)
    assert all(f["path"].endswith(f["file_name"]) for s in splits for f in s.files)
    s = splits[0]
    assert pickle.loads(pickle.dumps(s)).to_bytes() == s.to_bytes()
    assert pr.Split.from_bytes(s.to_bytes()).partition is None


@pytest.mark.parametrize(
    "blob",
    [b"", b"\x00", b"\xff" * 64, b"\x00\x00\x00\x09" + b"\xff" * 40, b"PSPL" + b"\x00" * 30],
)
def test_hostile_split_bytes_raise_corrupt_error(blob):
    with pytest.raises((pr.CorruptError, pr.UnsupportedError)) as e:
        pr.Split.from_bytes(blob)
    assert str(e.value)


def test_truncated_real_split_raises_corrupt_error():
    b = pr.Table.open(str(table_dir("pk/dedup_compacted"))).scan().plan().splits[0].to_bytes()
    for n in (1, len(b) // 2, len(b) - 1):
        with pytest.raises(pr.CorruptError):
            pr.Split.from_bytes(b[:n])
        with pytest.raises(pr.CorruptError):
            pr.SplitReader(str(table_dir("pk/dedup_compacted"))).read(b[:n])


def test_two_threads_reading_at_once_both_finish():
    path = str(table_dir("append/unaware"))
    want = pr.Table.open(path).scan().to_arrow().num_rows
    results, errors = [], []

    def work():
        try:
            for _ in range(5):
                results.append(pr.Table.open(path).scan().to_arrow(threads=1).num_rows)
        except Exception as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=120)
    assert not errors and not any(th.is_alive() for th in threads)
    assert results == [want] * 10


# The queries of fixtures/queries.json that shape a read (projection, filter, time travel):
# the planner sends only the read options bytes and the split bytes.
OPTION_QUERIES = [
    q
    for q in json.loads((FIXTURES / "queries.json").read_text())
    if any(a in q["args"] for a in ("--select", "--filter", "--snapshot", "--tag"))
    and not any(a in q["args"] for a in ("--changes-since", "--incremental-between", "--timestamp-ms"))
][:8]

OPTIONS_WORKER = """
import sys, pyarrow as pa, paimon_rs as pr
table, options, out = sys.argv[1], sys.argv[2], sys.argv[3]
blobs = [open(p, "rb").read() for p in sys.argv[4:]]
reader = pr.SplitReader(table, read_options=open(options, "rb").read())
t = pa.table(reader.read(blobs).read_all())
with pa.OSFile(out, "wb") as f, pa.ipc.new_file(f, t.schema) as w:
    w.write_table(t)
"""


@pytest.mark.parametrize("q", OPTION_QUERIES, ids=[q["expected"] for q in OPTION_QUERIES])
def test_a_worker_reads_with_the_planners_read_options_bytes(q, tmp_path):
    path = str(table_dir(q["table"]))
    scan = pr.Table.open(path).scan(**scan_kwargs(q["args"]))
    options = tmp_path / "options.json"
    options.write_bytes(scan.read_options_bytes())
    blobs = []
    for i, s in enumerate(scan.plan().splits):
        p = tmp_path / f"split-{i}.bin"
        p.write_bytes(s.to_bytes(frame="split-v1"))
        blobs.append(str(p))
    out = tmp_path / "remote.arrow"
    subprocess.run([sys.executable, "-c", OPTIONS_WORKER, path, str(options), str(out), *blobs], check=True)
    remote = pa.ipc.open_file(str(out)).read_all()
    assert compare(path, EXPECTED / q["expected"], remote, q["args"], tmp_path) is None


def test_read_options_bytes_stand_alone_and_are_checked():
    path = str(table_dir("append/unaware"))
    options = pr.Table.open(path).scan(select=["id"], filter="id < 3").read_options_bytes()
    with pytest.raises(pr.InvalidArgumentError, match="select cannot be given beside them"):
        pr.SplitReader(path, read_options=options, select=["id"])
    with pytest.raises(pr.CorruptError):
        pr.SplitReader(path, read_options=b"{not json")
    with pytest.raises(pr.PaimonError):
        pr.SplitReader(path, read_options=options.replace(b'"id"', b'"nope"', 1)).schema
