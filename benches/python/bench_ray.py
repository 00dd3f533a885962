"""A Ray Data read of a whole table on a local 2-CPU cluster, timed on the driver.

    python bench_ray.py READER WAREHOUSE DB.TABLE REPS

READER is `paimon_rs` (paimon_rs.ray.read_paimon) or `pypaimon` (pypaimon.ray.read_paimon,
2.1.0). The cluster starts once (not timed); each rep builds the dataset and pulls every
block to the driver, counting rows from the blocks themselves (a `count()` could answer from
block metadata without reading). Prints `rows=N wall=S` (best rep).
"""

import os
import sys
import time

os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
os.environ.setdefault("RAY_DISABLE_DOCKER_CPU_WARNING", "1")

import ray  # noqa: E402


def dataset(reader, wh, ident):
    if reader == "paimon_rs":
        import paimon_rs.ray

        db, table = ident.split(".")
        return paimon_rs.ray.read_paimon(f"{wh}/{db}.db/{table}")
    from pypaimon.ray import read_paimon

    return read_paimon(ident, {"warehouse": wh})


def main():
    reader, wh, ident, reps = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    best = None
    rows = None
    for _ in range(reps):
        w0 = time.perf_counter()
        ds = dataset(reader, wh, ident)
        rows = sum(ray.get(ref).num_rows for ref in ds.to_arrow_refs())
        wall = time.perf_counter() - w0
        best = wall if best is None else min(best, wall)
    ray.shutdown()
    print(f"rows={rows} wall={best:.3f}")


if __name__ == "__main__":
    main()
