"""One writer writing a table's rows into a new table and committing them, timed inside this
process.

    python bench_write.py WRITER SOURCE_TABLE_PATH OUT_WAREHOUSE REPS

WRITER is `paimon_rs` (this checkout's wheel: `Table.write_arrow`), `pypaimon` (2.1.0: its
batch write builder's `write_arrow`, `prepare_commit`, `commit`) or `pypaimon_rust`
(paimon-rust 0.4.0: the same calls, one record batch at a time). The source's rows are read
into memory once with paimon_rs (not timed); each rep creates a new table with the source's
columns, keys and options (with paimon_rs, so every writer gets the same table) and times the
write and the commit. Prints `rows=N cpu=S wall=S` for the best rep (CPU of every thread of
the process) and checks that the table then holds N rows.
"""

import shutil
import sys
import time
from pathlib import Path

import pyarrow as pa

import paimon_rs as pr


def write_paimon_rs(wh, ident, data):
    db, t = ident.split(".")
    pr.Table.open(f"{wh}/{db}.db/{t}").write_arrow(data)


def write_pypaimon(wh, ident, data):
    from pypaimon import CatalogFactory

    t = CatalogFactory.create({"warehouse": wh}).get_table(ident)
    wb = t.new_batch_write_builder()
    w = wb.new_write()
    c = wb.new_commit()
    w.write_arrow(data)
    c.commit(w.prepare_commit())
    w.close()
    c.close()


def write_pypaimon_rust(wh, ident, data):
    import pypaimon_rust.datafusion as prd

    t = prd.PaimonCatalog({"warehouse": wh}).get_table(ident)
    wb = t.new_batch_write_builder()
    w = wb.new_write()
    for b in data.to_batches():
        w.write_arrow(b)
    messages = w.prepare_commit()
    w.close()
    c = wb.new_commit()
    c.commit(messages)
    c.close()


WRITERS = {"paimon_rs": write_paimon_rs, "pypaimon": write_pypaimon, "pypaimon_rust": write_pypaimon_rust}


def main():
    writer, source, out, reps = sys.argv[1], sys.argv[2], Path(sys.argv[3]), int(sys.argv[4])
    write = WRITERS[writer]
    src = pr.Table.open(source)
    data = pr.read_table(source)
    schema = pa.schema(src.schema)
    best_cpu = best_wall = None
    for rep in range(reps):
        shutil.rmtree(out, ignore_errors=True)
        (out / "w.db").mkdir(parents=True)
        t = pr.Catalog(str(out)).create_table(
            f"w.t{rep}",
            schema,
            primary_keys=src.primary_keys,
            partition_keys=src.partition_keys,
            options=src.options,
        )
        c0, w0 = time.process_time(), time.perf_counter()
        write(str(out), f"w.t{rep}", data)
        cpu, wall = time.process_time() - c0, time.perf_counter() - w0
        written = pr.read_table(t.path).num_rows
        if written != data.num_rows:
            sys.exit(f"{writer}: wrote {written} rows of {data.num_rows}")
        best_cpu = cpu if best_cpu is None else min(best_cpu, cpu)
        best_wall = wall if best_wall is None else min(best_wall, wall)
    shutil.rmtree(out, ignore_errors=True)
    print(f"rows={data.num_rows} cpu={best_cpu:.3f} wall={best_wall:.3f}")


if __name__ == "__main__":
    main()
