"""Commit messages at CommitMessageSerializer version 14 between pypaimon 2.1 and paimon-rs.

    python pypaimon_messages.py gen WAREHOUSE OUT_DIR
        Creates tables with pypaimon 2.1 in WAREHOUSE, writes rows, prepares the commit and
        writes each message's v14 bytes (pypaimon's own serializer) to
        OUT_DIR/<case>/message-NNNN.bin without committing them, plus OUT_DIR/<case>/rows.json
        (the rows written) and OUT_DIR/messages.json (every message's fields as pypaimon
        reports them). One case is a hand-built message carrying what the writers here do not
        produce (compaction lists, deletion-vector ranges, global-index metadata, total
        buckets, the check-from snapshot): its bytes are pypaimon's serializer's too.
    python pypaimon_messages.py rust-gen WAREHOUSE OUT_DIR
        The same cases written by paimon-rust 0.4 (pypaimon_rust's batch writer) into tables
        `rust_<case>`: its `CommitMessage.serialize` bytes, uncommitted, and the fields
        pypaimon's deserializer reports for those bytes, in the same layout as `gen`. The
        synthetic case is pypaimon's, decoded and re-encoded by paimon-rust.
    python pypaimon_messages.py commit WAREHOUSE TABLE MESSAGE_FILE...
        Decodes v14 message files with pypaimon's deserializer and commits them with
        pypaimon's batch committer.
    python pypaimon_messages.py rows WAREHOUSE TABLE
        Prints the table's rows as read by pypaimon, as sorted JSON.
    python pypaimon_messages.py create WAREHOUSE CASE TABLE_NAME ROWS_JSONL
        Creates a table of CASE's schema with pypaimon (empty) and writes CASE's rows as JSON
        lines to ROWS_JSONL, for another writer to write.
    python pypaimon_messages.py expect-rows WAREHOUSE TABLE ROWS_JSON
        Exits non-zero unless pypaimon reads exactly the rows of ROWS_JSON (a JSON list, or
        JSON lines) from TABLE.
    python pypaimon_messages.py same-rows FILE_A FILE_B
        Exits non-zero unless the two files (JSON lists or JSON lines) hold the same rows.
    python pypaimon_messages.py same-bytes paimon_rust MESSAGE_FILE...
    python pypaimon_messages.py same-bytes pypaimon WAREHOUSE TABLE MESSAGE_FILE...
        The peer decodes each v14 message file and must encode it back
        to the same bytes (no commit).
    python pypaimon_messages.py rust-bytes WAREHOUSE TABLE MESSAGE_FILE...
        Decodes v14 message files with paimon-rust 0.4 (pypaimon_rust) and checks that its
        serializer gives the same bytes back; then commits them with pypaimon_rust's committer.
"""

import json
import sys
from pathlib import Path

import pyarrow as pa

from pypaimon import CatalogFactory, Schema
from pypaimon.globalindex.global_index_meta import GlobalIndexMeta
from pypaimon.index.deletion_vector_meta import DeletionVectorMeta
from pypaimon.index.index_file_meta import IndexFileMeta
from pypaimon.manifest.index_manifest_entry import IndexManifestEntry
from pypaimon.write.commit_message import CommitMessage
from pypaimon.write.commit_message_serializer import (
    VERSION, deserialize_commit_message, serialize_commit_message,
)

DB = "peers"


def catalog(warehouse):
    return CatalogFactory.create({"warehouse": warehouse})


def file_json(f):
    return {
        "file_name": f.file_name,
        "file_size": f.file_size,
        "row_count": f.row_count,
        "min_sequence_number": f.min_sequence_number,
        "max_sequence_number": f.max_sequence_number,
        "schema_id": f.schema_id,
        "level": f.level,
        "extra_files": list(f.extra_files or []),
        "delete_row_count": f.delete_row_count,
        "file_source": f.file_source,
        "external_path": f.external_path,
        "first_row_id": f.first_row_id,
        "write_cols": f.write_cols,
        "write_cols_sequences": f.write_cols_sequences,
    }


def index_json(entry):
    m = entry.index_file
    g = m.global_index_meta
    return {
        "index_type": m.index_type,
        "file_name": m.file_name,
        "file_size": m.file_size,
        "row_count": m.row_count,
        "external_path": m.external_path,
        "dv_ranges": None if m.dv_ranges is None else [
            [v.data_file_name, v.offset, v.length, v.cardinality] for v in m.dv_ranges.values()
        ],
        "global_index": None if g is None else {
            "row_range_start": g.row_range_start,
            "row_range_end": g.row_range_end,
            "index_field_id": g.index_field_id,
            "extra_field_ids": g.extra_field_ids,
            "index_meta": None if g.index_meta is None else g.index_meta.hex(),
            "source_meta": None if g.source_meta is None else g.source_meta.hex(),
        },
    }


def message_json(m):
    return {
        "bucket": m.bucket,
        "total_buckets": m.total_buckets,
        "check_from_snapshot": m.check_from_snapshot,
        "new_files": [file_json(f) for f in m.new_files],
        "deleted_files": [file_json(f) for f in m.deleted_files],
        "changelog_files": [file_json(f) for f in m.changelog_files],
        "new_index_files": [index_json(e) for e in m.index_adds],
        "deleted_index_files": [index_json(e) for e in m.index_deletes],
        "compact_before": [file_json(f) for f in m.compact_before],
        "compact_after": [file_json(f) for f in m.compact_after],
        "compact_changelog_files": [file_json(f) for f in m.compact_changelog_files],
        "compact_new_index_files": [index_json(e) for e in m.compact_index_adds],
        "compact_deleted_index_files": [index_json(e) for e in m.compact_index_deletes],
    }


def rows_json(table):
    rb = table.new_read_builder()
    splits = rb.new_scan().plan().splits()
    data = rb.new_read().to_arrow(splits)
    rows = data.to_pylist() if data is not None else []
    return sorted(rows, key=lambda r: json.dumps(r, sort_keys=True, default=str))


CASES = {
    # name: (schema, partition keys, primary keys, options, batches of rows)
    "append": (
        pa.schema([("id", pa.int64()), ("name", pa.string())]), [], [], {},
        [{"id": [1, 2, 3], "name": ["a", "b", "c"]}],
    ),
    "append_partitioned": (
        pa.schema([("dt", pa.string()), ("id", pa.int32()), ("v", pa.float64())]), ["dt"], [],
        {},
        [{"dt": ["2026-12-01", "2026-12-01", "2026-12-02"], "id": [1, 2, 3],
          "v": [0.5, 1.5, 2.5]}],
    ),
    "pk_buckets": (
        pa.schema([pa.field("k", pa.int64(), nullable=False), ("v", pa.string())]), [], ["k"],
        {"bucket": "2"},
        [{"k": [1, 2, 3, 4, 5], "v": ["one", "two", "three", "four", "five"]}],
    ),
}


def create(warehouse, name, table_name=None):
    schema, parts, pks, options, _ = CASES[name]
    table_name = table_name or name
    c = catalog(warehouse)
    c.create_database(DB, True)
    c.create_table(f"{DB}.{table_name}", Schema.from_pyarrow_schema(
        schema, partition_keys=parts, primary_keys=pks, options=options), False)
    return c.get_table(f"{DB}.{table_name}")


def case_rows(name):
    schema, _, _, _, batches = CASES[name]
    rows = []
    for b in batches:
        rows.extend(pa.Table.from_pydict(b, schema=schema).to_pylist())
    return rows


def sort_rows(rows):
    return sorted(rows, key=lambda r: json.dumps(r, sort_keys=True, default=str))


def load_rows(path):
    text = Path(path).read_text()
    try:
        rows = json.loads(text)
    except json.JSONDecodeError:
        rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    return json.loads(json.dumps(sort_rows(rows), default=str))


def same_rows(a, b):
    ra, rb = load_rows(a), load_rows(b)
    if ra != rb:
        sys.exit(f"{a} holds {ra}, {b} holds {rb}")
    print(f"{len(ra)} rows alike")


def same_bytes(peer, files, table=None):
    for f in files:
        data = Path(f).read_bytes()
        if peer == "paimon_rust":
            import pypaimon_rust.datafusion as prd
            again = prd.CommitMessage.deserialize(data, version=VERSION).serialize()
        else:
            fields = table.partition_keys_fields if table is not None else None
            if fields is None:
                sys.exit("same-bytes pypaimon needs the table (for the partition fields)")
            m = deserialize_commit_message(data, fields, table.trimmed_primary_keys_fields,
                                           version=VERSION)
            again = serialize_commit_message(m, fields)
        if again != data:
            sys.exit(f"{f}: {peer} re-encodes other bytes")
    print(f"{peer} gives back the bytes of {len(files)} messages")


def expect_rows(warehouse, table, path):
    expected = load_rows(path)
    got = json.loads(json.dumps(rows_json(catalog(warehouse).get_table(table)), default=str))
    if got != expected:
        sys.exit(f"{table}: pypaimon reads {got}, expected {expected}")
    print(f"pypaimon reads the {len(got)} expected rows of {table}")


def synthetic_message():
    """A message with every v14 field set, made in pypaimon's own classes."""
    from pypaimon.manifest.schema.data_file_meta import DataFileMeta
    from pypaimon.manifest.schema.simple_stats import SimpleStats
    from pypaimon.table.row.generic_row import GenericRow

    def dfm(name, rows, level, seq, first_row_id=None, write_cols=None, seqs=None):
        empty = GenericRow([], [])
        return DataFileMeta(
            file_name=name, file_size=1000 + rows, row_count=rows, min_key=empty,
            max_key=empty, key_stats=SimpleStats.empty_stats(),
            value_stats=SimpleStats.empty_stats(), min_sequence_number=seq,
            max_sequence_number=seq + rows - 1, schema_id=0, level=level,
            extra_files=["extra-" + name] if level else [], delete_row_count=0,
            embedded_index=None, file_source=1 if level else 0, value_stats_cols=None,
            external_path=None, first_row_id=first_row_id, write_cols=write_cols,
            write_cols_sequences=seqs)

    dv = IndexFileMeta(
        "DELETION_VECTORS", "index-dv-0.index", 64, 2,
        {"data-a.parquet": DeletionVectorMeta("data-a.parquet", 1, 24, 2),
         "data-b.parquet": DeletionVectorMeta("data-b.parquet", 25, 30, None)})
    gi = IndexFileMeta(
        "btree", "index-btree-0.index", 512, 100, None, None,
        GlobalIndexMeta(0, 99, 1, [2, 3], b"\x01\x02meta", b"source"))
    hash_index = IndexFileMeta("HASH", "index-hash-0.index", 40, 10)

    def entry(kind, meta):
        return IndexManifestEntry(kind, GenericRow([], []), 0, meta)

    return CommitMessage(
        partition=(), bucket=0, total_buckets=4, check_from_snapshot=7,
        new_files=[dfm("data-new.parquet", 3, 0, 10, first_row_id=100,
                       write_cols=["id", "name"], seqs=[10, 12])],
        deleted_files=[dfm("data-del.parquet", 2, 0, 4)],
        changelog_files=[dfm("changelog-0.parquet", 3, 0, 10)],
        index_adds=[entry(0, dv), entry(0, gi)],
        index_deletes=[entry(1, hash_index)],
        compact_before=[dfm("data-a.parquet", 5, 0, 0), dfm("data-b.parquet", 4, 1, 5)],
        compact_after=[dfm("data-c.parquet", 9, 5, 0)],
        compact_changelog_files=[dfm("changelog-1.parquet", 9, 0, 0)],
        compact_index_adds=[entry(0, hash_index)],
        compact_index_deletes=[entry(1, dv)],
    )


DV_SCHEMA = pa.schema([("id", pa.int64()), ("name", pa.string())])
DV_OPTIONS = {"row-tracking.enabled": "true", "data-evolution.enabled": "true",
              "deletion-vectors.enabled": "true"}


def dv_delete_case(warehouse, case_dir, rust=False):
    """A data-evolution table: three rows committed by pypaimon, then the message of a delete
    by row id (a deletion-vector index file, and the check-from snapshot), left uncommitted.
    Returns the message files and the rows the table holds once it is committed."""
    c = catalog(warehouse)
    c.create_database(DB, True)
    name = "rust_dv_delete" if rust else "dv_delete"
    c.create_table(f"{DB}.{name}", Schema.from_pyarrow_schema(
        DV_SCHEMA, options=DV_OPTIONS), False)
    t = c.get_table(f"{DB}.{name}")
    wb = t.new_batch_write_builder()
    w = wb.new_write()
    cm = wb.new_commit()
    w.write_arrow(pa.Table.from_pydict({"id": [1, 2, 3], "name": ["a", "b", "c"]},
                                       schema=DV_SCHEMA))
    cm.commit(w.prepare_commit())
    w.close()
    cm.close()
    t = c.get_table(f"{DB}.{name}")
    files = []
    if rust:
        import pypaimon_rust.datafusion as prd
        rt = prd.PaimonCatalog({"warehouse": warehouse}).get_table(f"{DB}.{name}")
        for i, m in enumerate(rt.new_batch_write_builder().new_update().delete_by_row_id([1])):
            data = m.serialize()
            p = case_dir / f"message-{i:04d}.bin"
            p.write_bytes(data)
            decoded = deserialize_commit_message(data, t.partition_keys_fields,
                                                 t.trimmed_primary_keys_fields, version=VERSION)
            files.append({"file": p.name, "message": message_json(decoded)})
    else:
        messages = t.new_batch_write_builder().new_update().delete_by_row_id([1])
        for i, m in enumerate(messages):
            p = case_dir / f"message-{i:04d}.bin"
            p.write_bytes(serialize_commit_message(m, t.partition_keys_fields))
            files.append({"file": p.name, "message": message_json(m)})
    return files, [{"id": 1, "name": "a"}, {"id": 3, "name": "c"}]


def gen(warehouse, out):
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    report = {"version": VERSION, "cases": {}}
    for name, (_, _, _, _, batches) in CASES.items():
        t = create(warehouse, name)
        wb = t.new_batch_write_builder()
        w = wb.new_write()
        rows = []
        for b in batches:
            data = pa.Table.from_pydict(b, schema=CASES[name][0])
            w.write_arrow(data)
            rows.extend(data.to_pylist())
        messages = w.prepare_commit()
        w.close()
        case_dir = out / name
        case_dir.mkdir(exist_ok=True)
        files = []
        for i, m in enumerate(messages):
            p = case_dir / f"message-{i:04d}.bin"
            p.write_bytes(serialize_commit_message(m, t.partition_keys_fields))
            files.append({"file": p.name, "message": message_json(m)})
        (case_dir / "rows.json").write_text(json.dumps(
            sorted(rows, key=lambda r: json.dumps(r, sort_keys=True, default=str)),
            default=str))
        report["cases"][name] = {"table": f"{DB}.{name}", "messages": files}
    case_dir = out / "dv_delete"
    case_dir.mkdir(exist_ok=True)
    files, rows = dv_delete_case(warehouse, case_dir)
    (case_dir / "rows.json").write_text(json.dumps(sort_rows(rows)))
    report["cases"]["dv_delete"] = {"table": f"{DB}.dv_delete", "messages": files}
    synth = out / "synthetic"
    synth.mkdir(exist_ok=True)
    m = synthetic_message()
    (synth / "message-0000.bin").write_bytes(serialize_commit_message(m, []))
    report["cases"]["synthetic"] = {
        "table": None, "messages": [{"file": "message-0000.bin", "message": message_json(m)}]}
    (out / "messages.json").write_text(json.dumps(report, indent=1, sort_keys=True))
    print(f"wrote {sum(len(c['messages']) for c in report['cases'].values())} messages")


def rust_gen(warehouse, out):
    import pypaimon_rust.datafusion as prd
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    report = {"version": VERSION, "cases": {}}
    for name, (schema, _, _, _, batches) in CASES.items():
        table_name = f"rust_{name}"
        t = create(warehouse, name, table_name)
        rt = prd.PaimonCatalog({"warehouse": warehouse}).get_table(f"{DB}.{table_name}")
        w = rt.new_batch_write_builder().new_write()
        rows = []
        for b in batches:
            data = pa.Table.from_pydict(b, schema=schema)
            for batch in data.to_batches():
                w.write_arrow(batch)
            rows.extend(data.to_pylist())
        messages = w.prepare_commit()
        w.close()
        case_dir = out / name
        case_dir.mkdir(exist_ok=True)
        files = []
        for i, m in enumerate(messages):
            data = m.serialize()
            p = case_dir / f"message-{i:04d}.bin"
            p.write_bytes(data)
            decoded = deserialize_commit_message(data, t.partition_keys_fields,
                                                 t.trimmed_primary_keys_fields, version=VERSION)
            files.append({"file": p.name, "message": message_json(decoded)})
        (case_dir / "rows.json").write_text(json.dumps(sort_rows(rows), default=str))
        report["cases"][name] = {"table": f"{DB}.{table_name}", "messages": files}
    case_dir = out / "dv_delete"
    case_dir.mkdir(exist_ok=True)
    files, rows = dv_delete_case(warehouse, case_dir, rust=True)
    (case_dir / "rows.json").write_text(json.dumps(sort_rows(rows)))
    report["cases"]["dv_delete"] = {"table": f"{DB}.rust_dv_delete", "messages": files}
    synth = out / "synthetic"
    synth.mkdir(exist_ok=True)
    m = synthetic_message()
    data = prd.CommitMessage.deserialize(
        serialize_commit_message(m, []), version=VERSION).serialize()
    (synth / "message-0000.bin").write_bytes(data)
    report["cases"]["synthetic"] = {
        "table": None, "messages": [{"file": "message-0000.bin", "message": message_json(m)}]}
    (out / "messages.json").write_text(json.dumps(report, indent=1, sort_keys=True))
    print(f"wrote {sum(len(c['messages']) for c in report['cases'].values())} messages")


def commit(warehouse, table, files):
    t = catalog(warehouse).get_table(table)
    messages = []
    for f in files:
        data = Path(f).read_bytes()
        m = deserialize_commit_message(data, t.partition_keys_fields,
                                       t.trimmed_primary_keys_fields, version=VERSION)
        if serialize_commit_message(m, t.partition_keys_fields) != data:
            sys.exit(f"{f}: pypaimon does not re-encode the bytes it decoded")
        messages.append(m)
    c = t.new_batch_write_builder().new_commit()
    c.commit(messages)
    c.close()
    print(f"pypaimon committed {len(messages)} messages")


def rust_bytes(warehouse, table, files):
    import pypaimon_rust.datafusion as prd
    messages = []
    for f in files:
        data = Path(f).read_bytes()
        m = prd.CommitMessage.deserialize(data, version=VERSION)
        if m.serialize() != data:
            sys.exit(f"{f}: paimon-rust 0.4 re-encodes other bytes")
        messages.append(m)
    t = prd.PaimonCatalog({"warehouse": warehouse}).get_table(table)
    wb = t.new_batch_write_builder()
    c = wb.new_commit()
    c.commit(messages)
    c.close()
    print(f"paimon-rust committed {len(messages)} messages")


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "gen":
        gen(args[0], args[1])
    elif cmd == "rust-gen":
        rust_gen(args[0], args[1])
    elif cmd == "commit":
        commit(args[0], args[1], args[2:])
    elif cmd == "rows":
        print(json.dumps(rows_json(catalog(args[0]).get_table(args[1])), default=str))
    elif cmd == "create":
        create(args[0], args[1], args[2])
        Path(args[3]).write_text(
            "".join(json.dumps(r, default=str) + "\n" for r in case_rows(args[1])))
    elif cmd == "expect-rows":
        expect_rows(args[0], args[1], args[2])
    elif cmd == "same-rows":
        same_rows(args[0], args[1])
    elif cmd == "same-bytes":
        if args[0] == "pypaimon":
            same_bytes("pypaimon", args[3:], catalog(args[1]).get_table(args[2]))
        else:
            same_bytes(args[0], args[1:])
    elif cmd == "rust-bytes":
        rust_bytes(args[0], args[1], args[2:])
    else:
        sys.exit(f"unknown command {cmd}")


if __name__ == "__main__":
    main()
