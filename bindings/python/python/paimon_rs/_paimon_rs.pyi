"""Type stubs of the paimon_rs extension module (see each class's docstring)."""

from typing import Any, Awaitable, Dict, Iterator, List, Optional, Sequence, Tuple, Union

__version__: str

class PaimonError(Exception):
    """Base class of every error paimon_rs raises; the message names the file involved."""

class NotFoundError(PaimonError):
    """A table, snapshot, tag, branch, schema or file that does not exist."""

class CorruptError(PaimonError):
    """Bytes or metadata that do not follow the Paimon format."""

class UnsupportedError(PaimonError):
    """A format feature, split kind or storage scheme this build does not handle."""

class InvalidArgumentError(PaimonError):
    """A bad argument: unknown column, malformed filter, conflicting options, bad value."""

class StorageError(PaimonError):
    """The storage failed (an I/O or object-store error other than a missing file)."""

class CommitConflictError(PaimonError):
    """A commit Java's conflict checks refuse, or out of retries; nothing was committed."""

class AlreadyExistsError(PaimonError):
    """A database or table that exists already in the catalog (nothing was created)."""

class AuthorizationError(PaimonError):
    """The catalog refused the caller's credentials (401 / 403); names the URI and object."""

class CatalogError(PaimonError):
    """A catalog server unreachable, failing, refusing a request or answering nonsense."""

class InternalError(PaimonError):
    """A bug in paimon-rs."""

class Schema:
    """An Arrow schema; ``pyarrow.schema(s)`` converts it (Arrow PyCapsule interface)."""

    @property
    def names(self) -> List[str]: ...
    def __arrow_c_schema__(self, requested_schema: Any = None) -> Any: ...
    def __len__(self) -> int: ...

class RecordBatchReader:
    """Record batches of a read, consumed once through ``__arrow_c_stream__``
    (``pyarrow.table(r)``, ``pyarrow.RecordBatchReader.from_stream(r)``, polars, duckdb)."""

    @property
    def schema(self) -> Schema: ...
    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any: ...
    def __arrow_c_schema__(self, requested_schema: Any = None) -> Any: ...
    def read_all(self) -> "RecordBatchReader":
        """Reads every batch now, raising the typed error of the first failure."""

class RecordBatch:
    """One record batch of an async read; ``pyarrow.record_batch(batch)`` takes it zero-copy
    (``__arrow_c_array__``)."""

    @property
    def num_rows(self) -> int: ...
    def __len__(self) -> int: ...
    def __arrow_c_array__(self, requested_schema: Any = None) -> Any: ...
    def __arrow_c_schema__(self, requested_schema: Any = None) -> Any: ...

class AsyncRecordBatchReader:
    """Record batches of ``SplitReader.read_async``: ``async for batch in reader``; a failed
    read raises its typed paimon_rs error from the ``await``."""

    @property
    def schema(self) -> Schema: ...
    def __aiter__(self) -> "AsyncRecordBatchReader": ...
    def __anext__(self) -> Awaitable[RecordBatch]: ...
    async def next_batch(self) -> RecordBatch: ...

class Split:
    """One split: Java Paimon's serialized split bytes are its wire form."""

    @staticmethod
    def from_bytes(data: bytes) -> "Split": ...
    def to_bytes(self, version: int = 9, frame: str = "raw") -> bytes:
        """``frame``: ``"raw"`` (Java's own serialization) or ``"split-v1"``."""
    @property
    def kind(self) -> str: ...
    @property
    def row_count(self) -> int: ...
    @property
    def exact_row_count(self) -> Optional[int]: ...
    @property
    def raw_convertible(self) -> bool: ...
    @property
    def snapshot_id(self) -> Optional[int]: ...
    @property
    def bucket(self) -> Optional[int]: ...
    @property
    def partition(self) -> Optional[Dict[str, Any]]: ...
    @property
    def partition_bytes(self) -> Optional[bytes]: ...
    @property
    def files(self) -> List[Dict[str, Any]]: ...
    @property
    def file_size(self) -> int: ...

class Plan:
    """A planned scan."""

    @property
    def snapshot_id(self) -> Optional[int]: ...
    @property
    def splits(self) -> List[Split]: ...
    def __len__(self) -> int: ...

class Scan:
    """A checked scan of one table: plan it, or plan and read it."""

    def plan(self) -> Plan: ...
    def to_reader(self, batch_size: int = 8192, threads: Optional[int] = None, memory_budget: Union[int, str, None] = None) -> RecordBatchReader: ...
    def to_arrow(self, batch_size: int = 8192, threads: Optional[int] = None, memory_budget: Union[int, str, None] = None) -> Any:
        """A ``pyarrow.Table`` (needs pyarrow)."""
    def to_pandas(self, batch_size: int = 8192, threads: Optional[int] = None, memory_budget: Union[int, str, None] = None) -> Any:
        """A ``pandas.DataFrame`` (needs pyarrow and pandas)."""
    def read_options_bytes(self) -> bytes:
        """The read options as bytes for ``SplitReader(table_path, read_options=...)``."""
    @property
    def read_options(self) -> Dict[str, Any]: ...
    @property
    def schema(self) -> Schema: ...
    @property
    def table_path(self) -> str: ...
    @property
    def limit(self) -> Optional[int]: ...

class Table:
    """A Paimon table opened at its path; also a DataFusion table provider."""

    def __init__(self, path: str, options: Optional[Dict[str, str]] = None) -> None: ...
    @staticmethod
    def open(path: str, options: Optional[Dict[str, str]] = None) -> "Table": ...
    @property
    def path(self) -> str: ...
    @property
    def schema(self) -> Schema: ...
    @property
    def primary_keys(self) -> List[str]: ...
    @property
    def partition_keys(self) -> List[str]: ...
    @property
    def options(self) -> Dict[str, str]: ...
    def snapshots(self) -> List[Dict[str, Any]]: ...
    def tags(self) -> List[Dict[str, Any]]: ...
    def branches(self) -> List[str]: ...
    def schemas(self) -> List[Dict[str, Any]]: ...
    def scan(
        self,
        select: Optional[List[str]] = None,
        filter: Optional[str] = None,
        limit: Optional[int] = None,
        snapshot: Optional[int] = None,
        tag: Optional[str] = None,
        timestamp_ms: Optional[int] = None,
        incremental: Union[str, Tuple[Any, Any], None] = None,
        incremental_mode: Optional[str] = None,
        changes_since: Optional[int] = None,
        branch: Optional[str] = None,
        with_kind: bool = False,
    ) -> Scan: ...
    def new_write(
        self, row_kind_column: Optional[str] = None, threads: Optional[int] = None
    ) -> "TableWrite":
        """A writer of Arrow data into this table's files; nothing is visible until committed.
        ``threads`` encode the columns of Parquet files (None: all cores; 1 for one writer per
        core); the encoding is the same whatever the count (with more than one, where a file
        rolls at ``target-file-size`` is estimated)."""
    def new_commit(self, user: Optional[str] = None) -> "TableCommit":
        """A committer of commit-message bytes into this table as ``user``."""
    def write_arrow(
        self,
        data: Any,
        overwrite: bool = False,
        partition: Optional[Dict[str, Any]] = None,
        row_kind_column: Optional[str] = None,
        threads: Optional[int] = None,
    ) -> List[int]:
        """Writes and commits ``data`` in one step; returns the new snapshot ids (``threads``
        as in ``new_write``). Primary-key
        tables with deletion vectors, first-row or the ``lookup`` changelog producer that are not
        ``write-only`` also get the written buckets compacted by lookup (a COMPACT snapshot), as
        Java's writers do."""
    def compact_tasks(self, full: bool = False, partition: Optional[Dict[str, Any]] = None) -> List[bytes]:
        """The tasks ``compact`` would run, as bytes for workers elsewhere; commits nothing."""
    def run_compact_task(self, task: bytes, version: Optional[int] = None) -> bytes:
        """Runs one task of ``compact_tasks``; returns its commit-message bytes (not committed)."""
    def write_context(
        self, overwrite: bool = False, commit_user: Optional[str] = None, compact_after: Optional[bool] = None
    ) -> bytes:
        """The bytes a driver hands its write workers (``TableWrite.from_context``) and
        compaction workers (``run_compact_task``): schema, restored sequence numbers, hash index."""
    def compact(
        self,
        full: bool = False,
        partition: Optional[Dict[str, Any]] = None,
        threads: Optional[int] = None,
    ) -> List[int]:
        """Compacts as ``paimon compact`` (Java 1.4's pickers) and commits one COMPACT snapshot;
        returns the snapshot ids made (empty when nothing needed compacting)."""
    def create_tag(
        self, name: str, snapshot: Optional[int] = None, time_retained: Optional[str] = None
    ) -> int:
        """Tags ``snapshot`` (the latest by default) as Java's ``createTag``; returns its id."""
    def create_tag_from_timestamp(self, name: str, timestamp: int) -> int:
        """Tags the first snapshot committed at or after ``timestamp`` (epoch millis)."""
    def delete_tag(self, name: str) -> List[str]:
        """Deletes a tag with the files only it kept alive; returns those files."""
    def rename_tag(self, old: str, new: str) -> None:
        """Renames a tag."""
    def create_branch(
        self, name: str, tag: Optional[str] = None, snapshot: Optional[int] = None
    ) -> None:
        """Creates a branch: empty, or from a tag or a snapshot."""
    def delete_branch(self, name: str) -> None:
        """Deletes a branch."""
    def fast_forward(self, name: str) -> None:
        """Makes a branch's snapshots, schemas and tags this branch's."""
    def rollback_to(self, target: Union[int, str]) -> Dict[str, Any]:
        """Rolls back to a snapshot id or a tag, as Java's ``rollbackTo``."""
    def stream(
        self,
        consumer_id: Optional[str] = None,
        poll_interval: Optional[float] = None,
        since: Optional[int] = None,
        select: Optional[List[str]] = None,
        filter: Optional[str] = None,
        with_kind: bool = False,
    ) -> Iterator[Tuple[int, RecordBatchReader]]:
        """``(snapshot_id, reader)`` per new snapshot's changes; a consumer's position is saved
        once the next item is asked for; ``poll_interval`` waits for new snapshots."""
    def consumer(self, consumer_id: str) -> Optional[int]:
        """The next snapshot a streaming consumer reads (``None`` for a new one)."""
    def reset_consumer(self, consumer_id: str, next_snapshot: int) -> None:
        """Saves a consumer's next snapshot as Java's ``ConsumerManager`` writes it."""
    def delete_consumer(self, consumer_id: str) -> bool:
        """Removes a consumer; ``False`` when it did not exist."""
    def expire_snapshots(
        self,
        retain_max: Optional[int] = None,
        retain_min: Optional[int] = None,
        older_than: Optional[str] = None,
        max_deletes: Optional[int] = None,
        dry_run: bool = False,
    ) -> Dict[str, Any]:
        """Expires snapshots as Java's ``ExpireSnapshotsImpl``; returns ``{"expired": [ids],
        "earliest": id, "files": [paths]}`` (with ``dry_run``, what would go)."""
    def expire_partitions(
        self,
        expiration_time: Optional[str] = None,
        strategy: Optional[str] = None,
        timestamp_formatter: Optional[str] = None,
        timestamp_pattern: Optional[str] = None,
        max_expires: Optional[int] = None,
        dry_run: bool = False,
    ) -> Dict[str, Any]:
        """Drops partitions older than ``expiration_time`` as Java's ``PartitionExpire``;
        returns ``{"partitions": [{column: value}], "snapshots": [ids]}`` (with ``dry_run``,
        what would go)."""
    def create_global_index(self, column: str, index_type: str, options: Optional[Dict[str, str]] = None) -> Dict[str, Any]:
        """Builds a ``btree`` or ``bitmap`` global index over ``column`` (rows not yet indexed)
        and commits it: ``{"files", "rows", "row_ranges", "snapshots"}``."""
    def drop_global_index(self, column: str, index_type: str) -> Dict[str, Any]:
        """Drops the global index of ``index_type`` over ``column`` in one commit:
        ``{"files", "snapshots"}``."""
    def remove_orphan_files(self, older_than: str = "1 d", dry_run: bool = False) -> List[str]:
        """Deletes unreferenced files older than ``older_than``; returns their paths."""
    def __datafusion_table_provider__(self, session: Any) -> Any:
        """The latest snapshot as a ``datafusion_table_provider`` capsule (DataFusion FFI)."""

class TableWrite:
    """Writes Arrow data into one table's data files and hands out commit-message bytes."""

    @staticmethod
    def from_context(
        context: bytes,
        table: Union[str, "os.PathLike[str]", Table],
        row_kind_column: Optional[str] = None,
        threads: Optional[int] = None,
        options: Optional[Dict[str, str]] = None,
    ) -> "TableWrite":
        """A writer of ``table`` from ``Table.write_context()`` bytes alone: no metadata of the
        table is read. A context naming another table raises ``InvalidArgumentError``."""

    def write(self, data: Any) -> int:
        """Writes a pyarrow Table / RecordBatch / reader (or what ``pyarrow.table`` takes);
        columns matched by name and cast; returns the rows written."""
    def prepare_commit(self, version: Optional[int] = None) -> List[bytes]:
        """Closes open files; one Java ``CommitMessageSerializer`` message per bucket written."""
    def abort(self) -> None:
        """Deletes what was written and not handed out; the writer is unusable afterwards."""
    def __enter__(self) -> "TableWrite": ...
    def __exit__(self, exc_type: Any = None, exc: Any = None, tb: Any = None) -> bool: ...

class TableCommit:
    """Commits commit-message bytes (from any writer, any language) into snapshots."""

    @property
    def user(self) -> str: ...
    def commit(
        self,
        messages: Sequence[bytes],
        identifier: Optional[int] = None,
        version: Optional[int] = None,
    ) -> List[int]:
        """An APPEND snapshot (plus COMPACT for compaction results); returns the snapshot ids,
        empty when nothing was committed or ``identifier`` was committed before."""
    def overwrite(
        self,
        messages: Sequence[bytes],
        partition: Optional[Dict[str, Any]] = None,
        identifier: Optional[int] = None,
        version: Optional[int] = None,
    ) -> List[int]:
        """An OVERWRITE snapshot of ``partition``, the partitions written (dynamic overwrite,
        the default) or the whole table."""
    def abort(self, messages: Sequence[bytes], version: Optional[int] = None) -> int:
        """Deletes the files ``messages`` added, for messages that will never be committed
        (never pass committed ones); returns how many files were removed."""

class Catalog:
    """A catalog of tables: a Paimon warehouse (``<warehouse>/<db>.db/<table>``, also a
    DataFusion catalog), or the catalog Java's catalog options name (``options={"metastore":
    "rest", "uri": ..., "token.provider": "bear", "token": ..., "warehouse": ...}``)."""

    def __init__(
        self, warehouse: Optional[str] = None, options: Optional[Dict[str, str]] = None
    ) -> None: ...
    @property
    def warehouse(self) -> str: ...
    def list_databases(self) -> List[str]:
        """Database names, sorted."""
    def list_tables(self, database: str) -> List[str]:
        """The tables of ``database``, sorted."""
    def create_database(
        self, name: str, if_not_exists: bool = False, options: Optional[Dict[str, str]] = None
    ) -> None: ...
    def drop_database(self, name: str, if_exists: bool = False, cascade: bool = False) -> None: ...
    def drop_table(self, identifier: str, if_exists: bool = False) -> None: ...
    def rename_table(self, source: str, target: str, if_exists: bool = False) -> None:
        """Renames ``"db.a"`` to ``"db.b"`` (not in a filesystem warehouse)."""
    def create_table(
        self,
        identifier: str,
        schema: Any,
        primary_keys: Optional[List[str]] = None,
        partition_keys: Optional[List[str]] = None,
        options: Optional[Dict[str, str]] = None,
        comment: Optional[str] = None,
        if_not_exists: bool = False,
    ) -> Table:
        """Creates ``"db.table"`` with the columns of an Arrow schema (``pyarrow.Schema``)."""
    def get_table(self, identifier: str) -> Table:
        """Opens ``"db.table"``."""
    def __datafusion_catalog_provider__(self, session: Any) -> Any:
        """The warehouse as a ``datafusion_catalog_provider`` capsule (DataFusion FFI)."""

class SplitReader:
    """Reads splits of one table (the worker side)."""

    def __init__(
        self,
        table_path: str,
        select: Optional[List[str]] = None,
        filter: Optional[str] = None,
        batch_size: int = 8192,
        threads: Optional[int] = None,
        memory_budget: Union[int, str, None] = None,
        options: Optional[Dict[str, str]] = None,
        *,
        schema_id: Optional[int] = None,
        branch: Optional[str] = None,
        with_kind: bool = False,
        limit: Optional[int] = None,
        path_rewrites: Optional[Sequence[Tuple[str, str]]] = None,
        read_options: Optional[bytes] = None,
    ) -> None:
        """``read_options``: the bytes of ``Scan.read_options_bytes()`` from a planner, in place
        of ``select``, ``filter``, ``batch_size``, ``schema_id``, ``branch``, ``with_kind`` and
        ``limit`` (giving one of them beside it is an error)."""
    def read(self, split: Union[Split, bytes, Sequence[Union[Split, bytes]]]) -> RecordBatchReader: ...
    def read_async(
        self, split: Union[Split, bytes, Sequence[Union[Split, bytes]]]
    ) -> AsyncRecordBatchReader:
        """Reads like ``read``, for asyncio: ``async for batch in reader.read_async(split)``.
        Storage is read through async calls and batches are decoded as they are awaited (GIL
        released); no thread is started, and ``threads`` does not apply."""
    @property
    def schema(self) -> Schema: ...

def run_compact_task(
    context: bytes,
    task: bytes,
    table: Union[str, "os.PathLike[str]", Table],
    version: Optional[int] = None,
    options: Optional[Dict[str, str]] = None,
) -> bytes:
    """Runs one task of ``Table.compact_tasks`` on ``table`` with the schema of
    ``Table.write_context()`` bytes (no ``Table.open``); returns its commit-message bytes (not
    committed). A context naming another table raises ``InvalidArgumentError``."""
