"""paimon_rs: read Apache Paimon tables and splits into Arrow with paimon-rs.

    import paimon_rs as pr
    t = pr.Table.open("warehouse/db.db/orders")
    df = t.scan(select=["id", "amount"], filter="amount > 5").to_pandas()

Planning (``Table.scan(...).plan()``) and reading (``SplitReader.read``) meet only through
split bytes (``Split.to_bytes`` / ``Split.from_bytes``), the same bytes Java Paimon uses, so a
planner and its workers may live in different processes or machines. Readers hand Arrow over
zero-copy through the Arrow C stream interface (``__arrow_c_stream__``). Writes mirror reads:
``Table.new_write()`` turns Arrow data into files and commit-message bytes (Java's own), and
``Table.new_commit().commit(messages)`` commits bytes from any writer; ``Table.write_arrow(data)``
does both, ``Catalog.create_table`` makes tables. Ray Data reads and writes live in
``paimon_rs.ray``. ``Table`` and ``Catalog`` (a warehouse) are DataFusion providers for the
``datafusion`` Python package of the same major version as the DataFusion this module was
built with::

    ctx = datafusion.SessionContext()
    ctx.register_table("t", pr.Table("warehouse/db.db/orders"))
    ctx.register_catalog_provider("paimon", pr.Catalog("warehouse"))
    ctx.sql("SELECT count(*) FROM paimon.db.orders WHERE amount > 5").collect()
"""

from ._paimon_rs import (
    AlreadyExistsError,
    AsyncRecordBatchReader,
    AuthorizationError,
    Catalog,
    CatalogError,
    CommitConflictError,
    CorruptError,
    InternalError,
    InvalidArgumentError,
    NotFoundError,
    PaimonError,
    Plan,
    RecordBatch,
    RecordBatchReader,
    Scan,
    Schema,
    Split,
    SplitReader,
    StorageError,
    Table,
    TableCommit,
    TableWrite,
    UnsupportedError,
    __version__,
    run_compact_task,
)

__all__ = [
    "AlreadyExistsError",
    "AsyncRecordBatchReader",
    "AuthorizationError",
    "Catalog",
    "CatalogError",
    "CommitConflictError",
    "CorruptError",
    "InternalError",
    "InvalidArgumentError",
    "NotFoundError",
    "PaimonError",
    "Plan",
    "RecordBatch",
    "RecordBatchReader",
    "Scan",
    "Schema",
    "Split",
    "SplitReader",
    "StorageError",
    "Table",
    "TableCommit",
    "TableWrite",
    "UnsupportedError",
    "read_table",
    "run_compact_task",
    "__version__",
]


def read_table(path, *, options=None, batch_size=8192, threads=None, memory_budget=None, **scan_kwargs):
    """Opens the table at ``path``, scans it with ``scan_kwargs`` (the arguments of
    ``Table.scan``) and returns a ``pyarrow.Table``. ``options`` are FileIO options."""
    scan = Table.open(path, options=options).scan(**scan_kwargs)
    return scan.to_arrow(batch_size=batch_size, threads=threads, memory_budget=memory_budget)
