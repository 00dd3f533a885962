"""Writes fixtures/global-index: a row-tracked data-evolution table whose BTree (on `id`) and
bitmap (on `name`) global indexes pypaimon 2.1 built, plus rows appended after the build that
no index covers. Run by scripts/gen-global-index-fixture.sh with the peers venv's python.

Rows (kept in the Rust tests too): for n in 0..200: id = n, name = NULL when n % 17 == 0 else
'n{n % 7}', k = n % 5 (four commits of 50 rows, row ids 0..199, indexed); then for i in 0..10:
id = 1000 + i, name = 'n{i % 7}', k = i % 5 (row ids 200..209, not indexed)."""
import json
import os
import sys

import pyarrow as pa
from pypaimon import CatalogFactory, Schema

SCHEMA = pa.schema([("id", pa.int64()), ("name", pa.string()), ("k", pa.int32())])


def write(table, rows):
    wb = table.new_batch_write_builder()
    w = wb.new_write()
    c = wb.new_commit()
    w.write_arrow(pa.Table.from_pylist(rows, schema=SCHEMA))
    c.commit(w.prepare_commit())
    w.close()
    c.close()


def main(warehouse):
    cat = CatalogFactory.create({"warehouse": warehouse})
    cat.create_database("db", False)
    schema = Schema.from_pyarrow_schema(
        SCHEMA,
        options={
            "row-tracking.enabled": "true",
            "data-evolution.enabled": "true",
            "bucket": "-1",
        },
    )
    cat.create_table("db.t", schema, False)
    t = cat.get_table("db.t")
    for batch in range(4):
        write(t, [{"id": n, "name": None if n % 17 == 0 else "n%d" % (n % 7), "k": n % 5}
                  for n in range(batch * 50, batch * 50 + 50)])
    assert t.create_global_index("id", index_type="btree") == 1
    assert t.create_global_index("name", index_type="bitmap") == 1
    write(t, [{"id": 1000 + i, "name": "n%d" % (i % 7), "k": i % 5} for i in range(10)])
    # pypaimon's own full read (no filter), one JSON row per line sorted by id: the tests
    # filter these rows themselves and compare with paimon-rs's indexed reads.
    t = cat.get_table("db.t")
    rb = t.new_read_builder()
    rows = rb.new_read().to_arrow(rb.new_scan().plan().splits()).to_pylist()
    with open(os.path.join(warehouse, "expected-full-read.jsonl"), "w") as out:
        for r in sorted(rows, key=lambda r: r["id"]):
            out.write(json.dumps(r, sort_keys=True) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
