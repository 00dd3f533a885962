//! `paimon_rs.Scan` (a configured scan: plan it, or plan and read it) and `paimon_rs.Plan`.

use std::collections::BTreeMap;
use std::sync::Arc;

use paimon_meta::scan::IncrementalScanMode;
use paimon_meta::{ScanBuilder, ScanChoice};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use crate::convert::threads_arg;
use crate::errors::{invalid, py as pyr, ToPyErr};
use crate::reader::{guard, memory_budget, RecordBatchReader, SplitReader};
use crate::split::Split;

/// The arguments of `Table.scan`.
#[derive(Debug, Default)]
pub struct ScanArgs {
    pub select: Option<Vec<String>>,
    pub filter: Option<String>,
    pub limit: Option<usize>,
    /// The snapshot selection, checked by [`Scan::new`].
    pub choice: ScanChoice,
    pub branch: Option<String>,
    pub with_kind: bool,
}

/// `incremental`: `"A,B"` or a pair `(A, B)` of snapshot ids or tag names.
pub fn incremental_arg(v: &Bound<'_, PyAny>) -> PyResult<(String, String)> {
    let pair = if let Ok(s) = v.extract::<String>() {
        s.split_once(',')
            .map(|(a, b)| (a.trim().to_string(), b.trim().to_string()))
    } else if let Ok((a, b)) = v.extract::<(Bound<'_, PyAny>, Bound<'_, PyAny>)>() {
        Some((a.str()?.to_string(), b.str()?.to_string()))
    } else {
        None
    };
    pair.filter(|(a, b)| !a.is_empty() && !b.is_empty())
        .ok_or_else(|| {
            invalid(format!(
                "incremental takes two snapshot ids or tags: \"A,B\" or (A, B), got {v}"
            ))
        })
}

/// `incremental_mode`: `auto`, `delta`, `changelog` or `diff`.
pub fn incremental_mode_arg(v: Option<&Bound<'_, PyAny>>) -> PyResult<Option<IncrementalScanMode>> {
    match crate::convert::arg::<String>(v, "incremental_mode", "a str")? {
        Some(m) => m
            .parse::<IncrementalScanMode>()
            .map(Some)
            .map_err(|e| invalid(format!("incremental_mode: {e}"))),
        None => Ok(None),
    }
}

/// A scan of one table with its snapshot choice, projection, filter and limit: the facade's
/// [`paimon_rs::TableScan`], opened when it was made (so every argument was checked then).
#[pyclass(module = "paimon_rs", frozen, skip_from_py_object)]
#[derive(Debug)]
pub struct Scan {
    table_scan: paimon_rs::TableScan,
    opened: paimon_rs::scan::OpenedScan,
    path: String,
    options: BTreeMap<String, String>,
    select: Option<Vec<String>>,
    filter_text: Option<String>,
    limit: Option<usize>,
    branch: Option<String>,
    with_kind: bool,
}

/// A facade scan error as the package raised it before the facade planned its scans: a filter
/// as paimon-spec's error, an unknown projected column as `select: ...`.
fn scan_error(e: paimon_rs::Error) -> PyErr {
    match e {
        paimon_rs::Error::Filter { source, .. } => source.to_py(),
        paimon_rs::Error::InvalidArgument { argument, reason } if argument == "with_projection" => {
            invalid(format!("select: {reason}"))
        }
        other => other.to_py(),
    }
}

impl Scan {
    /// Checks `a` and builds the scan of `table`.
    pub fn new(
        py: Python<'_>,
        table: &paimon_meta::Table,
        options: &BTreeMap<String, String>,
        a: ScanArgs,
    ) -> PyResult<Scan> {
        let mut table_scan = paimon_rs::Table::from_meta(table.clone())
            .scan()
            .with_choice(a.choice.clone())
            .with_row_kind(a.with_kind);
        if let Some(b) = &a.branch {
            table_scan = table_scan.with_branch(b.clone());
        }
        if let Some(cols) = &a.select {
            table_scan = table_scan.with_projection(cols.clone());
        }
        if let Some(f) = &a.filter {
            table_scan = table_scan.with_filter(f).map_err(scan_error)?;
        }
        if let Some(n) = a.limit {
            table_scan = table_scan.with_limit(n);
        }
        let opened = guard(|| py.detach(|| table_scan.open()).map_err(scan_error))?;
        Ok(Scan {
            table_scan,
            opened,
            path: table.path().to_string(),
            options: options.clone(),
            select: a.select,
            filter_text: a.filter,
            limit: a.limit,
            branch: a.branch,
            with_kind: a.with_kind,
        })
    }

    pub(crate) fn reader(
        &self,
        batch_size: usize,
        threads: usize,
        budget: Option<usize>,
    ) -> PyResult<SplitReader> {
        let io = crate::convert::file_io(&self.path, &self.options)?;
        let mut b = self
            .table_scan
            .reader_builder_on(Arc::clone(&io), &self.opened)
            .with_batch_size(batch_size)
            .with_parallelism(threads);
        if let Some(n) = budget {
            b = b.with_memory_budget(n);
        }
        Ok(SplitReader::from_parts(
            b.build(),
            io,
            self.path.clone(),
            self.branch.clone(),
        ))
    }

    /// The control-plane scan (selection and filter).
    pub(crate) fn builder(&self) -> &ScanBuilder {
        &self.opened.scan
    }

    fn planned(&self, py: Python<'_>) -> PyResult<paimon_meta::Plan> {
        guard(|| pyr(py.detach(|| self.opened.scan.plan())))
    }
}

#[pymethods]
impl Scan {
    /// Plans the scan into splits (reads metadata only).
    fn plan(&self, py: Python<'_>) -> PyResult<Plan> {
        let plan = self.planned(py)?;
        let fields = self.opened.schema.partition_fields();
        let splits = plan
            .wire_splits()
            .into_iter()
            .map(|split| Split {
                split,
                partition_fields: Some(fields.clone()),
            })
            .collect();
        Ok(Plan {
            snapshot_id: plan.snapshot_id,
            splits,
        })
    }

    /// Plans and reads; returns a `RecordBatchReader` (`__arrow_c_stream__`).
    #[pyo3(signature = (batch_size=None, threads=None, memory_budget=None))]
    fn to_reader(
        &self,
        py: Python<'_>,
        batch_size: Option<Bound<'_, PyAny>>,
        threads: Option<Bound<'_, PyAny>>,
        memory_budget: Option<Bound<'_, PyAny>>,
    ) -> PyResult<RecordBatchReader> {
        let reader = self.reader(
            crate::convert::batch_size(batch_size.as_ref())?,
            threads_arg(threads.as_ref())?,
            self::memory_budget(memory_budget.as_ref())?,
        )?;
        let plan = self.planned(py)?;
        reader.read_splits(py, plan.wire_splits())
    }

    /// Plans and reads into a `pyarrow.Table` (needs pyarrow); errors raise the typed
    /// paimon_rs exception.
    #[pyo3(signature = (batch_size=None, threads=None, memory_budget=None))]
    fn to_arrow<'py>(
        &self,
        py: Python<'py>,
        batch_size: Option<Bound<'py, PyAny>>,
        threads: Option<Bound<'py, PyAny>>,
        memory_budget: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let all = self
            .to_reader(py, batch_size, threads, memory_budget)?
            .read_all(py)?;
        py.import("pyarrow")?.call_method1("table", (all,))
    }

    /// Plans and reads into a `pandas.DataFrame` (needs pyarrow and pandas).
    #[pyo3(signature = (batch_size=None, threads=None, memory_budget=None))]
    fn to_pandas<'py>(
        &self,
        py: Python<'py>,
        batch_size: Option<Bound<'py, PyAny>>,
        threads: Option<Bound<'py, PyAny>>,
        memory_budget: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.to_arrow(py, batch_size, threads, memory_budget)?
            .call_method0("to_pandas")
    }

    /// What a worker needs besides the table path and the split bytes: keyword arguments of
    /// `SplitReader` (`select`, `filter`, `schema_id`, `branch`, `with_kind`, `options`).
    #[getter]
    fn read_options<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("select", self.select.clone())?;
        d.set_item("filter", self.filter_text.clone())?;
        d.set_item("schema_id", self.opened.schema.id)?;
        d.set_item("branch", self.branch.clone())?;
        d.set_item("with_kind", self.with_kind)?;
        d.set_item("options", self.options.clone())?;
        Ok(d)
    }

    /// The same as bytes (`paimon_split::read_options`, versioned JSON): a worker reads this
    /// scan's split bytes with `SplitReader(table_path, read_options=...)`.
    fn read_options_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let bytes = guard(|| pyr(py.detach(|| self.table_scan.read_options_bytes())))?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// The Arrow schema of the rows this scan returns.
    #[getter]
    fn schema(&self, py: Python<'_>) -> PyResult<crate::arrow_export::Schema> {
        let r = self.reader(1, 1, None)?;
        r.output_schema_of(py)
    }

    /// The table's location.
    #[getter]
    fn table_path(&self) -> &str {
        &self.path
    }

    /// The row limit, if any.
    #[getter]
    fn limit(&self) -> Option<usize> {
        self.limit
    }
}

/// A planned scan: the snapshot read and its splits.
#[pyclass(module = "paimon_rs", frozen, skip_from_py_object)]
#[derive(Debug)]
pub struct Plan {
    snapshot_id: Option<i64>,
    splits: Vec<Split>,
}

#[pymethods]
impl Plan {
    /// The snapshot planned (`None` for a table without snapshots); for `changes_since`, the
    /// latest snapshot looked at (pass it as the next N).
    #[getter]
    fn snapshot_id(&self) -> Option<i64> {
        self.snapshot_id
    }

    /// The splits, in plan order.
    #[getter]
    fn splits(&self) -> Vec<Split> {
        self.splits.clone()
    }

    fn __len__(&self) -> usize {
        self.splits.len()
    }

    fn __repr__(&self) -> String {
        format!(
            "paimon_rs.Plan(snapshot_id={:?}, splits={})",
            self.snapshot_id,
            self.splits.len()
        )
    }
}
