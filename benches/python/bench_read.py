"""One reader's full scan of a table into a pyarrow Table, timed inside this process.

    python bench_read.py READER WAREHOUSE DB.TABLE REPS

READER is `paimon_rs` (this checkout's wheel), `pypaimon` (2.1.0, pure Python) or
`pypaimon_rust` (paimon-rust 0.4.0 through pypaimon-rust). Each rep opens the table, plans
and reads every row; the best rep's CPU seconds (every thread of the process: time.process_time)
and wall seconds are printed as `rows=N cpu=S wall=S`, so interpreter start-up and imports are
not measured. scripts/bench-python.sh pins the process to one core (taskset) so every reader
runs with the same one thread of CPU.
"""

import sys
import time


def read_paimon_rs(wh, ident):
    import paimon_rs as pr

    db, table = ident.split(".")
    return pr.read_table(f"{wh}/{db}.db/{table}", threads=1)


def read_pypaimon(wh, ident):
    from pypaimon import CatalogFactory

    t = CatalogFactory.create({"warehouse": wh}).get_table(ident)
    rb = t.new_read_builder()
    return rb.new_read().to_arrow(rb.new_scan().plan().splits())


def read_pypaimon_rust(wh, ident):
    import pyarrow as pa
    import pypaimon_rust.datafusion as prd

    t = prd.PaimonCatalog({"warehouse": wh}).get_table(ident)
    rb = t.new_read_builder()
    batches = rb.new_read().read(rb.new_scan().plan().splits())
    return pa.Table.from_batches(batches)


READERS = {"paimon_rs": read_paimon_rs, "pypaimon": read_pypaimon, "pypaimon_rust": read_pypaimon_rust}


def main():
    reader, wh, ident, reps = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    read = READERS[reader]
    best_cpu = best_wall = None
    rows = None
    for _ in range(reps):
        c0, w0 = time.process_time(), time.perf_counter()
        t = read(wh, ident)
        cpu, wall = time.process_time() - c0, time.perf_counter() - w0
        rows = t.num_rows
        del t
        best_cpu = cpu if best_cpu is None else min(best_cpu, cpu)
        best_wall = wall if best_wall is None else min(best_wall, wall)
    print(f"rows={rows} cpu={best_cpu:.3f} wall={best_wall:.3f}")


if __name__ == "__main__":
    main()
