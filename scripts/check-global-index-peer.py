"""pypaimon 2.1 reads a table whose global indexes paimon-rs built (scripts/test-global-index-peers.sh):
the table of scripts/gen-global-index-fixture.py at its fourth snapshot (rows n in 0..200 with
row id n: id = n, name = NULL when n % 17 == 0 else 'n{n % 7}', k = n % 5), with a BTree index
on `id` and a bitmap index on `name` written by `paimon create-global-index`.

For each filter, pypaimon's plan must be IndexedSplits whose row ranges are exactly the rows
the filter keeps (so pypaimon used our index files), and its read must return those rows.
With `--dropped COLUMN` (after `paimon drop-global-index`), filters on that column must plan
plain splits with no row ranges, and still return the same rows."""
import sys

from pypaimon import CatalogFactory


def row(n):
    return {"id": n, "name": None if n % 17 == 0 else "n%d" % (n % 7), "k": n % 5}


def ranges(ids):
    out = []
    for i in sorted(ids):
        if out and out[-1][1] + 1 == i:
            out[-1][1] = i
        else:
            out.append([i, i])
    return [tuple(r) for r in out]


def main(warehouse, dropped=None):
    t = CatalogFactory.create({"warehouse": warehouse}).get_table("db.t")
    rows = [row(n) for n in range(200)]
    cases = [
        ("id = 42", lambda pb: pb.equal("id", 42), lambda r: r["id"] == 42),
        ("id IN (5, 120, 199)", lambda pb: pb.is_in("id", [5, 120, 199]),
         lambda r: r["id"] in (5, 120, 199)),
        ("id >= 190", lambda pb: pb.greater_or_equal("id", 190), lambda r: r["id"] >= 190),
        ("id < 3", lambda pb: pb.less_than("id", 3), lambda r: r["id"] < 3),
        ("name = 'n3'", lambda pb: pb.equal("name", "n3"), lambda r: r["name"] == "n3"),
        ("name IS NULL", lambda pb: pb.is_null("name"), lambda r: r["name"] is None),
        ("name IN ('n1', 'n6')", lambda pb: pb.is_in("name", ["n1", "n6"]),
         lambda r: r["name"] in ("n1", "n6")),
    ]
    failures = 0
    for text, make, keep in cases:
        rb = t.new_read_builder()
        rb = rb.with_filter(make(rb.new_predicate_builder()))
        splits = rb.new_scan().plan().splits()
        expected = [r for r in rows if keep(r)]
        kinds = sorted({type(s).__name__ for s in splits})
        got_ranges = sorted((r.from_, r.to) for s in splits
                            for r in (s.row_ranges() if hasattr(s, "row_ranges") else []))
        want_ranges = ranges(r["id"] for r in expected)
        got = sorted(rb.new_read().to_arrow(splits).to_pylist(), key=lambda r: r["id"])
        if dropped is not None and text.startswith(dropped + " "):
            ok = "IndexedSplit" not in kinds and not got_ranges and got == expected
        else:
            ok = kinds == ["IndexedSplit"] and got_ranges == want_ranges and got == expected
        print("%s %s: %d rows, splits %s, row ranges %s" % (
            "PASS" if ok else "FAIL", text, len(got), kinds, got_ranges))
        if not ok:
            failures += 1
            print("    expected %d rows, ranges %s" % (len(expected), want_ranges))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    args = sys.argv[1:]
    if len(args) == 3 and args[1] == "--dropped":
        main(args[0], args[2])
    elif len(args) == 1:
        main(args[0])
    else:
        sys.exit("usage: check-global-index-peer.py WAREHOUSE [--dropped COLUMN]")
