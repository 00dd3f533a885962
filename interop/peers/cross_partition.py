"""paimon-rust 0.4 (pypaimon_rust) writes a cross-partition upsert table for
scripts/test-cross-partition-peers.sh: a dynamic-bucket table `db.t (id BIGINT, v STRING,
dt STRING)` with primary key `id`, partitioned by `dt`, created by pypaimon 2.1, then two
commits of paimon-rust's batch writer, the second moving key 2 from dt=a to dt=b.

Usage:
    python cross_partition.py write WAREHOUSE
        Creates and writes the table; prints its rows as JSON lines (what was written).
    python cross_partition.py read WAREHOUSE
        Prints the table's rows as paimon-rust 0.4 reads them, JSON lines, sorted.
"""

import json
import sys

import pyarrow as pa

SCHEMA = pa.schema([
    pa.field("id", pa.int64(), nullable=False),
    ("v", pa.string()),
    pa.field("dt", pa.string(), nullable=False),
])


def write(warehouse):
    from pypaimon import CatalogFactory, Schema
    import pypaimon_rust.datafusion as prd

    c = CatalogFactory.create({"warehouse": warehouse})
    c.create_database("db", True)
    c.create_table("db.t", Schema.from_pyarrow_schema(
        SCHEMA, partition_keys=["dt"], primary_keys=["id"],
        options={"bucket": "-1", "dynamic-bucket.target-row-num": "2"}), False)
    table = prd.PaimonCatalog({"warehouse": warehouse}).get_table("db.t")
    for rows in (
        {"id": [1, 2, 3], "v": ["r1", "r2", "r3"], "dt": ["a", "a", "b"]},
        {"id": [2], "v": ["r2b"], "dt": ["b"]},
    ):
        builder = table.new_batch_write_builder()
        w = builder.new_write()
        w.write_arrow(pa.record_batch(rows, schema=SCHEMA))
        messages = w.prepare_commit()
        w.close()
        builder.new_commit().commit(messages)


def read(warehouse):
    import pypaimon_rust.datafusion as prd

    table = prd.PaimonCatalog({"warehouse": warehouse}).get_table("db.t")
    rb = table.new_read_builder()
    splits = rb.new_scan().plan().splits()
    data = pa.Table.from_batches(list(rb.new_read().read_arrow(splits)), schema=SCHEMA)
    rows = sorted(json.dumps(r, sort_keys=True) for r in data.to_pylist())
    print("\n".join(rows))


if __name__ == "__main__":
    {"write": write, "read": read}[sys.argv[1]](sys.argv[2])
