"""pypaimon 2.1's REST catalog against a REST server (`paimon serve`).

    python pypaimon_rest.py write URI WAREHOUSE TOKEN DB.TABLE FROM TO
        Creates the database and the table (id INT, v STRING) if missing, then writes rows
        (id, 'py-<id>') for id in [FROM, TO) in one batch commit, through the REST catalog.
    python pypaimon_rest.py dump URI WAREHOUSE TOKEN DB.TABLE
        Prints every row of the table as read through the REST catalog, as sorted JSON lines
        {"id": .., "v": ..}.
    python pypaimon_rest.py partitions URI WAREHOUSE TOKEN DB.TABLE
        Prints the table's partitions through list_partitions_paged (pages of 2, following
        the page tokens) as JSON lines with Java's keys (spec, recordCount, fileSizeInBytes,
        fileCount, lastFileCreationTime, totalBuckets, done), sorted by spec.
    python pypaimon_rest.py versions URI WAREHOUSE TOKEN DB.TABLE
        Creates tag py_t on snapshot 1 and branch py_b from it, then prints
        {"tags": [...], "tag_snapshot": N, "branches": [...]} as pypaimon reads them back
        (tags in pages of 1).
    python pypaimon_rest.py drop-partitions URI WAREHOUSE TOKEN DB.TABLE K=V[/K=V][;...]
        Drops the partitions through the REST catalog's drop_partitions (pypaimon 2.1 commits
        a truncation of them through the commit endpoint), prints {"dropped": N specs}.
        Values of digits are passed as ints.
    python pypaimon_rest.py alter-database URI WAREHOUSE TOKEN DB K=V
        Sets option K of database DB through alter_database (POST .../databases/DB); prints
        {"altered": true}, or {"error": <exception class>, "message": ...} when refused.

With CLIENT_CERT and CLIENT_KEY set (PEM files), every HTTP session pypaimon opens presents
that client certificate (mutual TLS): pypaimon 2.1 has no option of its own for one, so this
script sets it on the `requests` sessions pypaimon makes.
"""

import json
import os
import sys

import pyarrow as pa
import requests

from pypaimon import CatalogFactory, Schema

if os.environ.get("CLIENT_CERT"):
    _client_cert = (os.environ["CLIENT_CERT"], os.environ["CLIENT_KEY"])
    _session_init = requests.Session.__init__

    def _init_with_client_cert(self, *args, **kwargs):
        _session_init(self, *args, **kwargs)
        self.cert = _client_cert

    requests.Session.__init__ = _init_with_client_cert

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


def partitions(uri, warehouse, token, name):
    c = catalog(uri, warehouse, token)
    rows, token_ = [], None
    for _ in range(1000):
        page = c.list_partitions_paged(name, 2, token_, None)
        for p in page.elements:
            rows.append({
                "spec": dict(sorted(p.spec.items())),
                "recordCount": p.record_count,
                "fileSizeInBytes": p.file_size_in_bytes,
                "fileCount": p.file_count,
                "lastFileCreationTime": p.last_file_creation_time,
                "totalBuckets": p.total_buckets,
                "done": p.done,
            })
        token_ = page.next_page_token
        if not token_:
            break
    for r in sorted(rows, key=lambda r: str(r["spec"])):
        print(json.dumps(r, separators=(",", ":")))


def versions(uri, warehouse, token, name):
    c = catalog(uri, warehouse, token)
    c.create_tag(name, "py_t", 1)
    c.create_branch(name, "py_b", "py_t")
    tags, token_ = [], None
    for _ in range(1000):
        page = c.list_tags_paged(name, 1, token_, None)
        tags.extend(page.elements)
        token_ = page.next_page_token
        if not token_:
            break
    print(json.dumps({
        "tags": tags,
        "tag_snapshot": c.get_tag(name, "py_t").snapshot.id,
        "branches": sorted(c.list_branches(name)),
    }, separators=(",", ":")))


def drop_partitions(uri, warehouse, token, name, specs):
    # pypaimon 2.1 compares the spec's values with the partition statistics as they are
    # typed: an INT partition's value must be an int ("1" fails with a TypeError).
    parts = [{k: (int(v) if v.lstrip("-").isdigit() else v)
              for k, v in (kv.split("=", 1) for kv in spec.split("/"))}
             for spec in specs.split(";")]
    catalog(uri, warehouse, token).drop_partitions(name, parts)
    print(json.dumps({"dropped": len(parts)}))


def alter_database(uri, warehouse, token, db, kv):
    from pypaimon.catalog.rest.property_change import PropertyChange
    k, v = kv.split("=", 1)
    try:
        catalog(uri, warehouse, token).alter_database(db, [PropertyChange.set_property(k, v)])
    except Exception as e:  # the refusal is the answer printed
        print(json.dumps({"error": type(e).__name__, "message": str(e)}))
        return
    print(json.dumps({"altered": True}))


def main(argv):
    cmd = argv[1]
    if cmd == "write":
        write(argv[2], argv[3], argv[4], argv[5], int(argv[6]), int(argv[7]))
    elif cmd == "dump":
        dump(argv[2], argv[3], argv[4], argv[5])
    elif cmd == "partitions":
        partitions(argv[2], argv[3], argv[4], argv[5])
    elif cmd == "versions":
        versions(argv[2], argv[3], argv[4], argv[5])
    elif cmd == "drop-partitions":
        drop_partitions(argv[2], argv[3], argv[4], argv[5], argv[6])
    elif cmd == "alter-database":
        alter_database(argv[2], argv[3], argv[4], argv[5], argv[6])
    else:
        sys.exit(f"unknown command {cmd}")


if __name__ == "__main__":
    main(sys.argv)
