"""Writes fixtures/manifest-sidecar: an append table paimon-rust 0.4 wrote with its manifest
sidecars on (`manifest.sidecar.enabled`), row tracking on, three commits, so every manifest of
the table has a `<manifest>.avro.sidecar` beside it, listed in the manifest list's
`_EXTRA_FILES` (Java after 2.0 writes the same field). Run by scripts/gen-sidecar-fixture.sh
with the peers venv's python.

Rows (kept in the Rust tests too): commit c (0, 1, 2) writes id = 10 * c + i, v = 'c{c}-{i}'
for i in 0..3, so ids 0, 1, 2, 10, 11, 12, 20, 21, 22 (row ids 0..8)."""
import json
import sys

import pyarrow as pa
import pypaimon_rust.datafusion as prd
from pypaimon import CatalogFactory, Schema

SCHEMA = pa.schema([("id", pa.int64()), ("v", pa.string())])


def main(warehouse):
    cat = CatalogFactory.create({"warehouse": warehouse})
    cat.create_database("db", False)
    options = {"manifest.sidecar.enabled": "true", "row-tracking.enabled": "true",
               "bucket": "-1"}
    cat.create_table("db.t", Schema.from_pyarrow_schema(SCHEMA, options=options), False)
    table = prd.PaimonCatalog({"warehouse": warehouse}).get_table("db.t")
    for c in range(3):
        wb = table.new_batch_write_builder()
        w = wb.new_write()
        w.write_arrow(pa.record_batch(
            {"id": [10 * c + i for i in range(3)], "v": [f"c{c}-{i}" for i in range(3)]},
            schema=SCHEMA))
        messages = w.prepare_commit()
        w.close()
        commit = wb.new_commit()
        commit.commit(messages)
        commit.close()
    # paimon-rust's own read of the latest snapshot, sorted by id.
    rb = table.new_read_builder()
    splits = rb.new_scan().plan().splits()
    rows = pa.Table.from_batches(list(rb.new_read().read_arrow(splits)), schema=SCHEMA).to_pylist()
    with open(f"{warehouse}/expected-rows.jsonl", "w") as f:
        for r in sorted(rows, key=lambda r: r["id"]):
            f.write(json.dumps(r, sort_keys=True) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
