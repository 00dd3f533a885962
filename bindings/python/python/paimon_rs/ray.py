"""Ray Data reads and writes of Paimon tables: one plan (or one commit) on the driver, split
bytes (or commit-message bytes) as what travels between it and the tasks.

    import paimon_rs.ray
    ds = paimon_rs.ray.read_paimon("wh/db.db/orders", filter="dt = DATE '2024-01-01'")
    paimon_rs.ray.write_paimon(ds, "wh/db.db/orders_copy")

``read_paimon`` plans once on the driver; ``read_splits`` takes splits (or their bytes) a
planner service already holds. Each Ray read task carries only the table path, the split
bytes and the read options, and reads them with ``paimon_rs.SplitReader`` in the worker.
``write_paimon`` is the reverse: the driver plans a write context once
(``Table.write_context``), each write task writes its blocks with
``paimon_rs.TableWrite.from_context`` (no metadata read in the worker) and returns
commit-message bytes; the driver commits them all in one
snapshot, so a failed write commits nothing. ``compact`` hands compaction out the same way:
the driver plans the tasks, each Ray task runs one task's bytes and returns its commit
message, and the driver commits them as one COMPACT snapshot.

Through a catalog (REST, JDBC, Hive), a table is named ``"db.table"`` with
``catalog_options`` (Java's catalog option names, as ``paimon_rs.Catalog(options=...)``):

    ds = paimon_rs.ray.read_paimon("db.orders", catalog_options={"metastore": "rest", ...})
    paimon_rs.ray.write_paimon(ds, "db.orders_copy", catalog_options={...})
    paimon_rs.ray.compact("db.orders", catalog_options={...})

The driver opens the table through the catalog, plans it (a table under query auth gets
splits carrying the catalog's row filters and column masks, which every task applies) and
commits through it (the REST server's commit, the JDBC or Hive lock). Tasks get the table's
path, split, commit-message or compaction-task bytes and the storage options, never the
catalog's token.
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

import pyarrow as pa
import ray
from ray.data import Dataset, read_datasource
from ray.data.block import BlockAccessor, BlockMetadata
from ray.data.datasource import Datasink, Datasource, ReadTask

from . import Catalog, InvalidArgumentError, Split, SplitReader, Table, TableWrite, run_compact_task
from .ray_filter import expression_columns, split_predicate

__all__ = ["PaimonDatasink", "PaimonDatasource", "compact", "read_paimon", "read_splits", "write_paimon"]


def _pack(sizes: Sequence[int], parallelism: int) -> List[List[int]]:
    """Split indexes packed into at most ``parallelism`` groups (never more groups than
    splits), largest split first into the currently smallest group, so groups end up
    close in bytes."""
    n = max(1, min(parallelism, len(sizes)))
    groups: List[List[int]] = [[] for _ in range(n)]
    totals = [0] * n
    for i in sorted(range(len(sizes)), key=lambda i: (-sizes[i], i)):
        g = min(range(n), key=lambda k: (totals[k], k))
        groups[g].append(i)
        totals[g] += max(sizes[i], 1)
    return [sorted(g) for g in groups if g]


def _open_table(path: str, options: Optional[Dict[str, str]], catalog_options: Optional[Dict[str, str]]) -> Table:
    """The table at ``path`` (a location) or, with ``catalog_options``, the table ``path``
    (``"db.table"``) of that catalog, opened on the driver."""
    if catalog_options is None:
        return Table.open(path, options=options)
    if options:
        raise InvalidArgumentError(
            f"{path}: options= and catalog_options= given: storage options go into catalog_options"
        )
    return Catalog(options=dict(catalog_options)).get_table(path)


def _read_task_fn(table_path: str, split_bytes: List[bytes], read_options: Dict[str, Any], residual):
    """The body of one read task; runs in a Ray worker. ``residual`` is the part of Ray's
    pushed predicate that the Paimon filter in ``read_options`` does not cover; columns it
    needs beyond the projection are read, used and dropped."""

    def read() -> Iterable[pa.Table]:
        opts = dict(read_options)
        out = opts.get("select")
        if residual is not None and out is not None:
            extra = [c for c in dict.fromkeys(expression_columns(residual)) if c not in out]
            opts["select"] = list(out) + extra
        reader = SplitReader(table_path, **opts)
        for batch_reader in (reader.read(b) for b in split_bytes):
            table = pa.table(batch_reader.read_all())
            if residual is not None:
                table = table.filter(residual.to_pyarrow())
                if out is not None:
                    table = table.select(list(out))
            yield table

    return read


class PaimonDatasource(Datasource):
    """A ``ray.data.Datasource`` over splits of one Paimon table.

    ``splits`` are ``paimon_rs.Split`` objects or split bytes; ``read_options`` are the
    keyword arguments of ``paimon_rs.SplitReader`` (``select``, ``filter``, ``schema_id``,
    ``branch``, ``with_kind``, ``options``, ``batch_size``, ``threads``, ``memory_budget``).
    Supports Ray's projection pushdown (columns become the reader's ``select``) and
    predicate pushdown: the conjuncts of a Ray expression that are column-versus-literal
    comparisons become the reader's Paimon ``filter`` (row groups and files skipped by their
    statistics, rows dropped in Rust); the rest is applied to each block in the read task.
    """

    def __init__(self, table_path: str, splits: Sequence[Union[Split, bytes]], read_options: Optional[Dict[str, Any]] = None):
        super().__init__()
        self._table_path = table_path
        decoded = [s if isinstance(s, Split) else Split.from_bytes(bytes(s)) for s in splits]
        self._splits = [s.to_bytes(frame="split-v1") for s in decoded]
        self._sizes = [s.file_size for s in decoded]
        filtered = bool(read_options and read_options.get("filter"))
        self._rows = [None if filtered else s.exact_row_count for s in decoded]
        self._read_options = dict(read_options or {})
        self._read_options.setdefault("threads", 1)
        self._projection_map = None
        self._schema = None
        self._count_column: Optional[str] = None

    def get_name(self) -> str:
        return "Paimon"

    def supports_projection_pushdown(self) -> bool:
        return True

    def supports_predicate_pushdown(self) -> bool:
        return True

    def estimate_inmemory_data_size(self) -> Optional[int]:
        """The splits' data-file bytes on storage (decoded data is usually larger)."""
        return sum(self._sizes)

    def _options(self) -> Dict[str, Any]:
        opts = dict(self._read_options)
        columns = self._get_data_columns()
        if columns is not None:
            base = opts.get("select")
            opts["select"] = [c for c in (base or columns) if c in columns] or [self._row_count_column()]
        return opts

    def _row_count_column(self) -> str:
        """The one column read for an empty projection (what Ray's ``count()`` pushes down when
        block metadata has no exact row count, as for merge reads of primary-key tables).

        Ray 2.60 loses the rows of blocks without columns (its ``BlockOutputBuffer`` keeps the
        rows of one such block at most, and counts 0 after a read of several), so an empty
        projection reads the cheapest column instead: a partition column (filled from the
        split's partition, nothing decoded), else a primary-key column (the merge reads the
        keys anyway), else the table's first column."""
        if self._count_column is None:
            opts = {k: self._read_options.get(k) for k in ("schema_id", "branch", "options")}
            names = [f.name for f in pa.schema(SplitReader(self._table_path, threads=1, **opts).schema)]
            table = Table.open(self._table_path, options=self._read_options.get("options"))
            keys = list(table.partition_keys) + list(table.primary_keys)
            self._count_column = next((k for k in keys if k in names), names[0])
        return self._count_column

    def _accepts(self, text: str) -> bool:
        """Whether the table takes ``text`` as a filter (checked on the driver, before any
        task runs: a refused conjunct is left to the residual)."""
        opts = {k: self._read_options.get(k) for k in ("schema_id", "branch", "options")}
        try:
            SplitReader(self._table_path, filter=text, threads=1, **opts)
        except InvalidArgumentError:
            return False
        return True

    def pushed_filter(self) -> Tuple[Optional[str], Any]:
        """The reader's filter with Ray's pushed predicate folded in, and the residual Ray
        expression the read tasks apply themselves (None when Paimon covers all of it)."""
        base = self._read_options.get("filter")
        predicate = self.get_current_predicate()
        if predicate is None:
            return base, None
        opts = {k: self._read_options.get(k) for k in ("schema_id", "branch", "options")}
        columns = SplitReader(self._table_path, threads=1, **opts).schema
        floats = [f.name for f in pa.schema(columns) if pa.types.is_floating(f.type)]
        pushed, residual = split_predicate(predicate, floats, self._accepts)
        terms = ([f"({base})"] if base else []) + pushed
        return (" AND ".join(terms) if terms else None), residual

    def schema(self) -> pa.Schema:
        """The Arrow schema of the rows read (after projection pushdown)."""
        opts = {k: v for k, v in self._options().items() if k not in ("threads", "memory_budget", "batch_size")}
        return pa.schema(SplitReader(self._table_path, **opts).schema)

    def get_read_tasks(self, parallelism: int, per_task_row_limit: Optional[int] = None, data_context=None) -> List[ReadTask]:
        if not self._splits:
            return []
        opts = self._options()
        schema = self.schema()
        predicate = self.get_current_predicate()
        opts["filter"], residual = self.pushed_filter()
        tasks = []
        for group in _pack(self._sizes, parallelism):
            rows = [self._rows[i] for i in group]
            exact = None if predicate is not None or any(r is None for r in rows) else sum(rows)
            meta = BlockMetadata(
                num_rows=exact,
                size_bytes=sum(self._sizes[i] for i in group),
                input_files=None,
                exec_stats=None,
            )
            fn = _read_task_fn(self._table_path, [self._splits[i] for i in group], opts, residual)
            tasks.append(ReadTask(fn, meta, schema=schema, per_task_row_limit=per_task_row_limit))
        return tasks


def read_splits(
    path: str,
    splits_or_bytes: Sequence[Union[Split, bytes]],
    *,
    select: Optional[List[str]] = None,
    filter: Optional[str] = None,
    schema_id: Optional[int] = None,
    branch: Optional[str] = None,
    with_kind: bool = False,
    batch_size: int = 8192,
    threads: Optional[int] = 1,
    memory_budget=None,
    override_num_blocks: Optional[int] = None,
    concurrency: Optional[int] = None,
    ray_remote_args: Optional[Dict[str, Any]] = None,
    options: Optional[Dict[str, str]] = None,
) -> Dataset:
    """A Ray Dataset reading ``splits_or_bytes`` of the table at ``path``; the read options
    are those of ``paimon_rs.SplitReader`` (``threads`` per task, default 1: Ray runs tasks
    in parallel)."""
    read_options = dict(
        select=select,
        filter=filter,
        schema_id=schema_id,
        branch=branch,
        with_kind=with_kind,
        batch_size=batch_size,
        threads=threads,
        memory_budget=memory_budget,
        options=options,
    )
    source = PaimonDatasource(path, splits_or_bytes, read_options)
    kwargs: Dict[str, Any] = {"ray_remote_args": ray_remote_args or {}}
    if override_num_blocks is not None:
        kwargs["override_num_blocks"] = override_num_blocks
    if concurrency is not None:
        kwargs["concurrency"] = concurrency
    return read_datasource(source, **kwargs)


def read_paimon(
    path: str,
    *,
    select: Optional[List[str]] = None,
    filter: Optional[str] = None,
    snapshot: Optional[int] = None,
    tag: Optional[str] = None,
    timestamp_ms: Optional[int] = None,
    incremental=None,
    incremental_mode: Optional[str] = None,
    changes_since: Optional[int] = None,
    branch: Optional[str] = None,
    with_kind: bool = False,
    batch_size: int = 8192,
    threads: Optional[int] = 1,
    memory_budget=None,
    override_num_blocks: Optional[int] = None,
    concurrency: Optional[int] = None,
    ray_remote_args: Optional[Dict[str, Any]] = None,
    options: Optional[Dict[str, str]] = None,
    catalog_options: Optional[Dict[str, str]] = None,
) -> Dataset:
    """A Ray Dataset of the table at ``path``: planned once here on the driver (scan
    arguments as in ``Table.scan``), read by Ray tasks that each get a group of split bytes.
    ``override_num_blocks`` caps the number of read tasks (never more than splits).

    With ``catalog_options`` (``paimon_rs.Catalog(options=...)``'s), ``path`` is the
    catalog's ``"db.table"``; the tasks get the table's storage options only."""
    table = _open_table(path, options, catalog_options)
    scan = table.scan(
        select=select,
        filter=filter,
        snapshot=snapshot,
        tag=tag,
        timestamp_ms=timestamp_ms,
        incremental=incremental,
        incremental_mode=incremental_mode,
        changes_since=changes_since,
        branch=branch,
        with_kind=with_kind,
    )
    ro = scan.read_options
    return read_splits(
        scan.table_path,
        scan.plan().splits,
        select=ro["select"],
        filter=ro["filter"],
        schema_id=ro["schema_id"],
        branch=ro["branch"],
        with_kind=ro["with_kind"],
        batch_size=batch_size,
        threads=threads,
        memory_budget=memory_budget,
        override_num_blocks=override_num_blocks,
        concurrency=concurrency,
        ray_remote_args=ray_remote_args,
        options=table.storage_options if catalog_options is not None else options,
    )


@ray.remote(num_cpus=0)
class _WrittenMessages:
    """The commit messages of a write's finished tasks, kept for the driver: when another task
    fails, Ray tells the driver only the error, and these are the files to delete."""

    def __init__(self):
        self._messages: List[bytes] = []

    def add(self, messages: List[bytes]) -> None:
        self._messages.extend(messages)

    def take(self) -> List[bytes]:
        messages, self._messages = self._messages, []
        return messages


class PaimonDatasink(Datasink):
    """A ``ray.data.Datasink`` into one Paimon table: each write task writes its blocks with a
    ``paimon_rs.TableWrite`` and returns the commit-message bytes; ``on_write_complete`` (on
    the driver) commits every task's messages in one snapshot with one ``TableCommit``, so the
    table changes only if every task succeeded. Each finished task also hands its messages to
    a small actor of the write; when a task fails, ``on_write_failed`` aborts them
    (``TableCommit.abort``), deleting the files the finished tasks wrote. A task still running
    when Ray reports the failure may leave its files as unreferenced orphans
    (``remove-orphan-files`` removes them), and nothing is deleted when the commit itself
    failed, whose outcome the driver cannot know.

    ``overwrite`` / ``partition`` are those of ``Table.write_arrow``; ``snapshot_ids`` holds the
    snapshots committed once the write is done. With ``catalog_options``, ``table_path`` is
    the catalog's ``"db.table"``: the driver plans and commits through the catalog (the REST
    server's commit, the JDBC or Hive lock), the tasks write with the table's storage options.
    """

    def __init__(
        self,
        table_path: str,
        *,
        overwrite: bool = False,
        partition: Optional[Dict[str, Any]] = None,
        row_kind_column: Optional[str] = None,
        options: Optional[Dict[str, str]] = None,
        catalog_options: Optional[Dict[str, str]] = None,
    ):
        if partition is not None and not overwrite:
            raise InvalidArgumentError("partition= only applies with overwrite=True")
        table = _open_table(table_path, options, catalog_options)
        # The driver's way back to the table for the commit: its name in the catalog, or
        # its path. Workers use only the path and the storage options.
        self._name = table_path
        self._catalog_options = dict(catalog_options) if catalog_options is not None else None
        self._table_path = table.path
        self._options = table.storage_options if catalog_options is not None else dict(options or {})
        self._overwrite = overwrite
        self._partition = dict(partition) if partition is not None else None
        self._row_kind_column = row_kind_column
        self.primary_keys = table.primary_keys
        # A dynamic-bucket table's buckets come from one assigner over its hash index (as in
        # Java, one writer at a time): its rows are written by a single task.
        self.dynamic_bucket = bool(table.primary_keys) and table.options.get("bucket", "-1").strip() == "-1"
        # The driver plans the write once; each task writes with these bytes alone (schema,
        # restored sequence numbers, hash index) and opens no metadata of the table. Nothing
        # compacts after this write, so tables that need it are refused by the workers.
        self._context = table.write_context(overwrite=overwrite, compact_after=False)
        self.snapshot_ids: List[int] = []
        self._written = _WrittenMessages.remote()
        self._committing = False

    def get_name(self) -> str:
        return "Paimon"

    def __getstate__(self):
        # Ray ships the sink to its write tasks: the catalog's options (its token) stay on the
        # driver, the tasks write with the table's path and storage options only.
        state = dict(self.__dict__)
        state["_catalog_options"] = None
        return state

    def _driver_table(self) -> Table:
        """The table as the driver commits to it: through the catalog when there is one."""
        if self._catalog_options is not None:
            return _open_table(self._name, None, self._catalog_options)
        return Table.open(self._table_path, options=self._options)

    def write(self, blocks: Iterable[Any], ctx) -> List[bytes]:
        # One writer per Ray task and core: the task encodes on its own thread.
        # The worker writes the sink's own table: a context naming another is refused.
        writer = TableWrite.from_context(
            self._context,
            self._table_path,
            row_kind_column=self._row_kind_column,
            threads=1,
            options=self._options,
        )
        try:
            for block in blocks:
                if BlockAccessor.for_block(block).num_rows() > 0:
                    writer.write(block)
            messages = writer.prepare_commit()
        except BaseException:
            writer.abort()
            raise
        ray.get(self._written.add.remote(messages))
        return messages

    def on_write_complete(self, write_result) -> None:
        messages = [m for r in write_result.write_returns for m in (r or [])]
        commit = self._driver_table().new_commit()
        self._committing = True
        if self._overwrite:
            self.snapshot_ids = commit.overwrite(messages, partition=self._partition)
        else:
            self.snapshot_ids = commit.commit(messages)
        ray.kill(self._written)

    def on_write_failed(self, error: Exception) -> None:
        try:
            if not self._committing:
                messages = ray.get(self._written.take.remote())
                if messages:
                    self._driver_table().new_commit().abort(messages)
        finally:
            ray.kill(self._written)


def write_paimon(
    ds: Dataset,
    path: str,
    *,
    overwrite: bool = False,
    partition: Optional[Dict[str, Any]] = None,
    row_kind_column: Optional[str] = None,
    num_blocks: Optional[int] = None,
    concurrency: Optional[int] = None,
    ray_remote_args: Optional[Dict[str, Any]] = None,
    options: Optional[Dict[str, str]] = None,
    catalog_options: Optional[Dict[str, str]] = None,
) -> List[int]:
    """Writes ``ds`` into the table at ``path`` (columns matched by name and cast) and commits
    it once on the driver; returns the ids of the snapshots made. ``overwrite`` /
    ``partition`` / ``row_kind_column`` as in ``Table.write_arrow``. With ``catalog_options``,
    ``path`` is the catalog's ``"db.table"`` and the commit goes through the catalog.

    A primary-key table's rows are first hash-shuffled by the primary key
    (``Dataset.repartition(num_blocks, keys=...)``, ``num_blocks`` defaulting to the cluster's
    CPUs), so all rows of one key are written by one
    task and merged there by the table's merge engine. Ray's shuffle does not keep the
    dataset's row order, so a dataset should hold one row per key (or carry a row-kind column
    whose changes do not depend on order). Append tables are written block by block where they
    are, without a shuffle. A dynamic-bucket primary-key table (``bucket = -1``) is written
    by one task (``num_blocks`` must then be 1 or unset): its buckets are assigned by one
    writer over the table's hash index, as Java's dynamic-bucket mode requires.
    """
    sink = PaimonDatasink(
        path,
        overwrite=overwrite,
        partition=partition,
        row_kind_column=row_kind_column,
        options=options,
        catalog_options=catalog_options,
    )
    if sink.dynamic_bucket:
        if num_blocks not in (None, 1):
            raise InvalidArgumentError(
                f"{path}: a dynamic-bucket table (bucket = -1) is written by one task, got num_blocks={num_blocks}"
            )
        num_blocks = 1
    if sink.primary_keys:
        if num_blocks is None:
            num_blocks = max(1, int(ray.cluster_resources().get("CPU", 1)))
        ds = ds.repartition(num_blocks, keys=list(sink.primary_keys))
    ds.write_datasink(sink, ray_remote_args=ray_remote_args, concurrency=concurrency)
    return list(sink.snapshot_ids)


@ray.remote
def _run_compact_task(context: bytes, table_path: str, options: Dict[str, str], task: bytes) -> bytes:
    """One compaction task in a worker on the table at ``table_path``: the table's schema
    comes from the driver's write context, so the worker opens no metadata of the table."""
    return run_compact_task(context, task, table_path, options=options)


def compact(
    path: str,
    *,
    full: bool = False,
    partition: Optional[Dict[str, Any]] = None,
    ray_remote_args: Optional[Dict[str, Any]] = None,
    options: Optional[Dict[str, str]] = None,
    catalog_options: Optional[Dict[str, str]] = None,
) -> List[int]:
    """Compacts the table at ``path`` on the Ray cluster, as ``Table.compact`` does in one
    process: the driver plans (``Table.compact_tasks``: one task per bucket, or per partition
    of an unaware-bucket table), one Ray task runs each task's bytes
    (``Table.run_compact_task``, in a worker) and returns its commit message, and the driver
    commits them all as one COMPACT snapshot, with Java's conflict checks. Returns the ids of
    the snapshots made (empty when nothing needed compacting). If a task fails nothing is
    committed, the files the finished tasks wrote are deleted (``TableCommit.abort``) and the
    task's error is raised.

    With ``catalog_options``, ``path`` is the catalog's ``"db.table"``: the driver plans
    through the catalog and commits through it (the REST server's commit, the JDBC or Hive
    lock); the tasks get the table's path, the task bytes and its storage options, never
    the catalog's token.
    """
    table = _open_table(path, options, catalog_options)
    tasks = table.compact_tasks(full=full, partition=partition)
    if not tasks:
        return []
    remote = _run_compact_task.options(**(ray_remote_args or {}))
    context = table.write_context()
    storage = table.storage_options if catalog_options is not None else dict(options or {})
    pending = [remote.remote(context, table.path, storage, t) for t in tasks]
    messages: List[bytes] = []
    failure: Optional[BaseException] = None
    # Every task is awaited, so no task still writes when the finished ones are aborted.
    while pending:
        done, pending = ray.wait(pending, num_returns=1)
        try:
            messages.append(ray.get(done[0]))
        except BaseException as e:  # noqa: BLE001 - re-raised below
            failure = failure or e
    commit = table.new_commit()
    if failure is not None:
        commit.abort(messages)
        raise failure
    return commit.commit(messages)
