"""pypaimon 2.1's REST catalog against a REST server (`paimon serve`).

    python pypaimon_rest.py write URI WAREHOUSE TOKEN DB.TABLE FROM TO
        Creates the database and the table (id INT, v STRING) if missing, then writes rows
        (id, 'py-<id>') for id in [FROM, TO) in one batch commit, through the REST catalog.
    python pypaimon_rest.py dump URI WAREHOUSE TOKEN DB.TABLE
        Prints every row of the table as read through the REST catalog, as sorted JSON lines
        {"id": .., "v": ..}.
"""

import json
import sys

import pyarrow as pa

from pypaimon import CatalogFactory, Schema

SCHEMA = pa.schema([("id", pa.int32()), ("v", pa.string())])


def catalog(uri, warehouse, token):
    return CatalogFactory.create({
        "metastore": "rest",
        "uri": uri,
        "warehouse": warehouse,
        "token.provider": "bear",
        "token": token,
    })


def write(uri, warehouse, token, name, start, end):
    c = catalog(uri, warehouse, token)
    c.create_database(name.split(".")[0], True)
    c.create_table(name, Schema.from_pyarrow_schema(SCHEMA), True)
    t = c.get_table(name)
    wb = t.new_batch_write_builder()
    w = wb.new_write()
    cm = wb.new_commit()
    ids = list(range(start, end))
    w.write_arrow(pa.Table.from_pydict(
        {"id": ids, "v": [f"py-{i}" for i in ids]}, schema=SCHEMA))
    cm.commit(w.prepare_commit())
    w.close()
    cm.close()
    print(json.dumps({"written": end - start}))


def dump(uri, warehouse, token, name):
    t = catalog(uri, warehouse, token).get_table(name)
    rb = t.new_read_builder()
    splits = rb.new_scan().plan().splits()
    data = rb.new_read().to_arrow(splits)
    rows = sorted(zip(data.column("id").to_pylist(), data.column("v").to_pylist()))
    for i, v in rows:
        print(json.dumps({"id": i, "v": v}))


def main(argv):
    cmd = argv[1]
    if cmd == "write":
        write(argv[2], argv[3], argv[4], argv[5], int(argv[6]), int(argv[7]))
    elif cmd == "dump":
        dump(argv[2], argv[3], argv[4], argv[5])
    else:
        sys.exit(f"unknown command {cmd}")


if __name__ == "__main__":
    main(sys.argv)
