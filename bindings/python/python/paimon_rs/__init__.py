"""paimon_rs: read Apache Paimon tables and splits into Arrow with paimon-rs.

    import paimon_rs as pr
    t = pr.Table.open("warehouse/db.db/orders")
    df = t.scan(select=["id", "amount"], filter="amount > 5").to_pandas()

Planning (``Table.scan(...).plan()``) and reading (``SplitReader.read``) meet only through
split bytes (``Split.to_bytes`` / ``Split.from_bytes``), the same bytes Java Paimon uses, so a
planner and its workers may live in different processes or machines. Readers hand Arrow over
zero-copy through the Arrow C stream interface (``__arrow_c_stream__``). Ray Data reads live in
``paimon_rs.ray``.
"""

from ._paimon_rs import (
    CorruptError,
    InternalError,
    InvalidArgumentError,
    NotFoundError,
    PaimonError,
    Plan,
    RecordBatchReader,
    Scan,
    Schema,
    Split,
    SplitReader,
    StorageError,
    Table,
    UnsupportedError,
    __version__,
)

__all__ = [
    "CorruptError",
    "InternalError",
    "InvalidArgumentError",
    "NotFoundError",
    "PaimonError",
    "Plan",
    "RecordBatchReader",
    "Scan",
    "Schema",
    "Split",
    "SplitReader",
    "StorageError",
    "Table",
    "UnsupportedError",
    "read_table",
    "__version__",
]


def read_table(path, *, options=None, batch_size=8192, threads=None, memory_budget=None, **scan_kwargs):
    """Opens the table at ``path``, scans it with ``scan_kwargs`` (the arguments of
    ``Table.scan``) and returns a ``pyarrow.Table``. ``options`` are FileIO options."""
    scan = Table.open(path, options=options).scan(**scan_kwargs)
    return scan.to_arrow(batch_size=batch_size, threads=threads, memory_budget=memory_budget)
