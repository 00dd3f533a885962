"""Tables with the 2.x-era peers' defaults, written in turns by pypaimon 2.1, paimon-rs and
paimon-rust 0.4, read by all three (scripts/test-peers-2x.sh).

    tables_2x.py create WH
        pypaimon 2.1 creates one table per KIND (below) in database `v2x`.
    tables_2x.py ddl
        The same tables as SQL `CREATE TABLE` statements, one a line (for `paimon sql`).

The database is `v2x`, or `$V2X_DB` when set (the tables paimon-rs creates).
    tables_2x.py round WH WRITER R OUT_DIR
        Round R's rows of every table (ids 10R..10R+4; on primary-key tables also an update of
        id 10(R-1), v = 'u{R}'), as JSON lines in OUT_DIR/<table>.jsonl; WRITER `pypaimon` or
        `rust` (pypaimon_rust's batch writer and committer) also writes and commits them,
        WRITER `ours` leaves that to `paimon write`.
    tables_2x.py row_ids WH OUT_FILE
        pypaimon's `_ROW_ID` of every row of the row-tracked tables, as JSON
        {table: {id: row id}} in OUT_FILE (every row must have one).
    tables_2x.py check WH ROUNDS OURS_DIR [ROW_IDS_FILE]
        For every table: the rows of rounds 0..ROUNDS-1 (an upsert by id on primary-key
        tables) equal pypaimon's read, paimon-rust's read and OURS_DIR/<table>.jsonl (what
        `paimon read --format jsonl` printed). On the sidecar table, every manifest of the
        latest snapshot that has a sidecar file still lists it in `_EXTRA_FILES`, and there is
        at least one per writer that made one (paimon-rust's rounds). With ROW_IDS_FILE, the
        row ids each of the three reads of a row-tracked table (ours: the `_ROW_ID` column
        of OURS_DIR/<table>.jsonl) equal the ones kept there.
"""
import glob
import json
import os
import sys
from pathlib import Path

import fastavro
import pyarrow as pa
from pypaimon import CatalogFactory, Schema

DB = os.environ.get("V2X_DB", "v2x")
SCHEMA = pa.schema([pa.field("id", pa.int64(), nullable=False), ("v", pa.string())])

KINDS = {
    # table: (primary keys, options)
    "append": ([], {"bucket": "-1"}),
    "append_fixed": ([], {"bucket": "2", "bucket-key": "id"}),
    "pk": (["id"], {"bucket": "2"}),
    "pk_dv": (["id"], {"bucket": "1", "deletion-vectors.enabled": "true"}),
    "row_tracking": ([], {"bucket": "-1", "row-tracking.enabled": "true"}),
    "sidecar": ([], {"bucket": "-1", "row-tracking.enabled": "true",
                     "manifest.sidecar.enabled": "true"}),
}


def catalog(wh):
    return CatalogFactory.create({"warehouse": wh})


def create(wh):
    c = catalog(wh)
    c.create_database(DB, True)
    for name, (pks, options) in KINDS.items():
        c.create_table(f"{DB}.{name}", Schema.from_pyarrow_schema(
            SCHEMA, primary_keys=pks, options=options), False)
    print(f"created {len(KINDS)} tables")


def ddl():
    for name, (pks, options) in KINDS.items():
        key = f", PRIMARY KEY ({', '.join(pks)}) NOT ENFORCED" if pks else ""
        with_ = ", ".join(f"'{k}' = '{v}'" for k, v in options.items())
        print(f"CREATE TABLE {DB}.{name} (id BIGINT NOT NULL, v STRING{key}) WITH ({with_})")


def round_rows(name, r):
    rows = [{"id": 10 * r + i, "v": f"r{r}-{i}"} for i in range(5)]
    if KINDS[name][0] and r > 0:
        rows.append({"id": 10 * (r - 1), "v": f"u{r}"})
    return rows


def write_pypaimon(wh, name, rows):
    t = catalog(wh).get_table(f"{DB}.{name}")
    wb = t.new_batch_write_builder()
    w = wb.new_write()
    w.write_arrow(pa.Table.from_pylist(rows, schema=SCHEMA))
    c = wb.new_commit()
    c.commit(w.prepare_commit())
    w.close()
    c.close()


def write_rust(wh, name, rows):
    import pypaimon_rust.datafusion as prd
    t = prd.PaimonCatalog({"warehouse": wh}).get_table(f"{DB}.{name}")
    wb = t.new_batch_write_builder()
    w = wb.new_write()
    for batch in pa.Table.from_pylist(rows, schema=SCHEMA).to_batches():
        w.write_arrow(batch)
    messages = w.prepare_commit()
    w.close()
    c = wb.new_commit()
    c.commit(messages)
    c.close()


def round_(wh, writer, r, out):
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    for name in KINDS:
        rows = round_rows(name, int(r))
        (out / f"{name}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in rows))
        if writer == "pypaimon":
            write_pypaimon(wh, name, rows)
        elif writer == "rust":
            write_rust(wh, name, rows)
        elif writer != "ours":
            sys.exit(f"unknown writer {writer}")
    print(f"round {r}: {writer}")


def expected(name, rounds):
    rows = {} if KINDS[name][0] else []
    for r in range(rounds):
        for x in round_rows(name, r):
            if isinstance(rows, dict):
                rows[x["id"]] = x
            else:
                rows.append(x)
    rows = list(rows.values()) if isinstance(rows, dict) else rows
    return sorted(rows, key=lambda x: (x["id"], x["v"]))


def row_tracked(name):
    return KINDS[name][1].get("row-tracking.enabled") == "true"


def ids_of(rows):
    """{id: _ROW_ID} of `rows`, as strings (JSON object keys)."""
    return {str(x["id"]): x.get("_ROW_ID") for x in rows}


def read_ids_pypaimon(wh, name):
    t = catalog(wh).get_table(f"{DB}.{name}")
    rb = t.new_read_builder().with_projection(["id", "_ROW_ID"])
    return ids_of(rb.new_read().to_arrow(rb.new_scan().plan().splits()).to_pylist())


def read_ids_rust(wh, name):
    import pypaimon_rust.datafusion as prd
    t = prd.PaimonCatalog({"warehouse": wh}).get_table(f"{DB}.{name}")
    rb = t.new_read_builder().with_projection(["id", "_ROW_ID"])
    batches = list(rb.new_read().read_arrow(rb.new_scan().plan().splits()))
    return ids_of(pa.Table.from_batches(batches).to_pylist() if batches else [])


def row_ids(wh, out):
    kept = {name: read_ids_pypaimon(wh, name) for name in KINDS if row_tracked(name)}
    for name, ids in kept.items():
        missing = [i for i, r in ids.items() if r is None]
        if missing or not ids:
            sys.exit(f"{name}: pypaimon reads no row id for ids {missing} ({len(ids)} rows)")
    Path(out).write_text(json.dumps(kept, sort_keys=True))
    print(f"kept the row ids of {sum(len(x) for x in kept.values())} rows")


def normal(rows):
    return sorted(({"id": x["id"], "v": x["v"]} for x in rows), key=lambda x: (x["id"], x["v"]))


def read_pypaimon(wh, name):
    t = catalog(wh).get_table(f"{DB}.{name}")
    rb = t.new_read_builder()
    return normal(rb.new_read().to_arrow(rb.new_scan().plan().splits()).to_pylist())


def read_rust(wh, name):
    import pypaimon_rust.datafusion as prd
    t = prd.PaimonCatalog({"warehouse": wh}).get_table(f"{DB}.{name}")
    rb = t.new_read_builder()
    batches = list(rb.new_read().read_arrow(rb.new_scan().plan().splits()))
    return normal(pa.Table.from_batches(batches).to_pylist() if batches else [])


def sidecars_listed(wh, name):
    """(manifests with a sidecar file, of them those whose `_EXTRA_FILES` lists it)."""
    root = Path(wh) / f"{DB}.db" / name
    latest = (root / "snapshot" / "LATEST").read_text().strip()
    snap = json.loads((root / "snapshot" / f"snapshot-{latest}").read_text())
    with_file, listed = 0, 0
    for key in ("baseManifestList", "deltaManifestList"):
        with open(root / "manifest" / snap[key], "rb") as f:
            for m in fastavro.reader(f):
                sidecar = root / "manifest" / (m["_FILE_NAME"] + ".avro.sidecar")
                if sidecar.exists():
                    with_file += 1
                    if sidecar.name in (m.get("_EXTRA_FILES") or []):
                        listed += 1
    return with_file, listed


def check(wh, rounds, ours_dir, row_ids_file=None):
    failed = []
    kept = json.loads(Path(row_ids_file).read_text()) if row_ids_file else {}
    for name in KINDS:
        want = expected(name, int(rounds))
        ours_path = Path(ours_dir) / f"{name}.jsonl"
        ours_raw = [json.loads(x) for x in ours_path.read_text().splitlines() if x.strip()]
        ours = normal(ours_raw)
        for who, got in (("pypaimon 2.1", read_pypaimon(wh, name)),
                         ("paimon-rust 0.4", read_rust(wh, name)), ("paimon-rs", ours)):
            if got != want:
                failed.append(f"{name}: {who} reads {got}, expected {want}")
            else:
                print(f"PASS {name}: {who} reads the {len(want)} rows")
        if name not in kept:
            continue
        for who, read in (("pypaimon 2.1", lambda: read_ids_pypaimon(wh, name)),
                          ("paimon-rust 0.4", lambda: read_ids_rust(wh, name)),
                          ("paimon-rs", lambda: ids_of(ours_raw))):
            try:
                got = read()
            except Exception as e:  # a refused read is a failure, not a crash of the check
                got = f"error: {e}"
            if got != kept[name]:
                failed.append(f"{name}: {who} reads row ids {got}, kept {kept[name]}")
            else:
                print(f"PASS {name}: {who} reads the {len(got)} kept row ids")
    with_file, listed = sidecars_listed(wh, "sidecar")
    if with_file == 0 or listed != with_file:
        failed.append(f"sidecar: {with_file} manifests have a sidecar file, {listed} list it")
    else:
        print(f"PASS sidecar: all {with_file} sidecars of paimon-rust's manifests still listed")
    for f in failed:
        print(f"FAIL {f}")
    sys.exit(1 if failed else 0)


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    {"create": create, "ddl": ddl, "round": round_, "row_ids": row_ids,
     "check": check}[cmd](*args)


if __name__ == "__main__":
    main()
