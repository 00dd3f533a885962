//! `paimon_rs.Split`: one unit of work, as Java Paimon's serialized split bytes.

use paimon_spec::binary::json::datum_to_json;
use paimon_spec::types::DataField;
use paimon_split::{DataSplit, SplitEnvelope};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

use crate::convert::{arg, json_to_py, required};
use crate::errors::{invalid, py as pyr, UnsupportedError};

/// One split of a plan, or decoded from bytes any Java, C++ or Rust planner wrote
/// (`DataSplit` v1..v9 raw, `FallbackDataSplit`, the `SPLIT_V1` frame, Java object streams).
#[pyclass(module = "paimon_rs", frozen, from_py_object)]
#[derive(Debug, Clone)]
pub struct Split {
    pub(crate) split: paimon_split::Split,
    /// The table's partition columns, when the split came from a plan (to type `partition`).
    pub(crate) partition_fields: Option<Vec<DataField>>,
}

impl Split {
    fn data(&self) -> Option<&DataSplit> {
        self.split.data_split()
    }

    /// Rows of the data files, when that is exactly what a read returns: files that are read
    /// independently (raw-convertible), without deletion vectors and without "before" files.
    pub(crate) fn exact_rows(&self) -> Option<i64> {
        let d = self.data()?;
        let no_dv = d
            .data_deletion_files
            .as_ref()
            .is_none_or(|v| v.iter().all(Option::is_none));
        (d.raw_convertible && no_dv && d.before_files.is_empty() && !d.is_streaming)
            .then(|| d.row_count())
    }

    /// On-storage bytes of the split's data files.
    pub(crate) fn file_bytes(&self) -> i64 {
        self.data()
            .map_or(0, |d| d.data_files.iter().map(|f| f.file_size).sum())
    }
}

#[pymethods]
impl Split {
    /// Decodes split bytes of any kind paimon-rs reads.
    ///
    /// Raises `CorruptError` for bytes that are not a split, `UnsupportedError` for a split
    /// version or kind it does not read.
    #[staticmethod]
    fn from_bytes(py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<Split> {
        let owned: Vec<u8> = required(data, "data", "bytes")?;
        let decoded = pyr(py.detach(move || paimon_split::decode_any(&owned)))?;
        Ok(Split {
            split: decoded.split,
            partition_fields: None,
        })
    }

    /// The split as bytes: `frame="raw"` is Java's own `DataSplit.serialize` form (a fallback
    /// split adds its flag, an incremental split is a Java object stream), `"split-v1"` the
    /// cross-language `SPLIT_V1` frame. `version` is the `DataSplit` serializer version (1..9;
    /// 9 is Java Paimon 1.4's).
    #[pyo3(signature = (version=None, frame=None))]
    fn to_bytes<'py>(
        &self,
        py: Python<'py>,
        version: Option<Bound<'py, PyAny>>,
        frame: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let version: i32 = arg(version.as_ref(), "version", "an int (1..9)")?.unwrap_or(9);
        let frame: String = arg(frame.as_ref(), "frame", "\"raw\" or \"split-v1\"")?
            .unwrap_or_else(|| "raw".to_string());
        let envelope = match (frame.as_str(), &self.split) {
            ("split-v1", _) => SplitEnvelope::SplitV1,
            ("raw", paimon_split::Split::Data(_)) => SplitEnvelope::Raw,
            ("raw", paimon_split::Split::FallbackData { .. }) => SplitEnvelope::RawFallback,
            ("raw", paimon_split::Split::Incremental(_)) => SplitEnvelope::JavaObject,
            ("raw", other) => {
                return Err(UnsupportedError::new_err(format!(
                    "a {} split has no raw form; use frame=\"split-v1\"",
                    other.kind_name()
                )))
            }
            (f, _) => {
                return Err(invalid(format!(
                    "frame must be \"raw\" or \"split-v1\", got {f:?}"
                )))
            }
        };
        let bytes = pyr(paimon_split::encode_decoded(&self.split, envelope, version))?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// The kind of split: `data`, `fallback-data`, `incremental`, ...
    #[getter]
    fn kind(&self) -> &'static str {
        self.split.kind_name()
    }

    /// Rows of the data files (before merging, deletion vectors and filters).
    #[getter]
    fn row_count(&self) -> i64 {
        self.data().map_or(0, DataSplit::row_count)
    }

    /// `row_count` when a read returns exactly that many rows (raw-convertible files, no
    /// deletion vectors), else `None`.
    #[getter]
    fn exact_row_count(&self) -> Option<i64> {
        self.exact_rows()
    }

    /// Whether the files are read independently, without a merge.
    #[getter]
    fn raw_convertible(&self) -> bool {
        self.data().is_some_and(|d| d.raw_convertible)
    }

    /// The snapshot the split was planned from.
    #[getter]
    fn snapshot_id(&self) -> Option<i64> {
        self.data().map(|d| d.snapshot_id)
    }

    /// The bucket.
    #[getter]
    fn bucket(&self) -> Option<i32> {
        match &self.split {
            paimon_split::Split::Incremental(s) => Some(s.bucket),
            _ => self.data().map(|d| d.bucket),
        }
    }

    /// Partition values `{column: value}` (values in the oracle's JSON row encoding: dates
    /// as `YYYY-MM-DD` strings) for a planned split; `None` for a split decoded from bytes,
    /// whose partition types are the table's (see `partition_bytes`).
    #[getter]
    fn partition(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        let (Some(fields), Some(d)) = (&self.partition_fields, self.data()) else {
            return Ok(None);
        };
        let values =
            pyr(paimon_meta::scan::PartitionDecoder::new(fields.clone()).decode(&d.partition))?;
        let dict = PyDict::new(py);
        for (f, v) in fields.iter().zip(&values) {
            dict.set_item(&f.name, json_to_py(py, &datum_to_json(v, &f.data_type))?)?;
        }
        Ok(Some(dict.into_any().unbind()))
    }

    /// The serialized partition row (`[arity][BinaryRow]`, as in the split bytes).
    #[getter]
    fn partition_bytes<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyBytes>> {
        match &self.split {
            paimon_split::Split::Incremental(s) => Some(PyBytes::new(py, &s.partition)),
            _ => self.data().map(|d| PyBytes::new(py, &d.partition)),
        }
    }

    /// The data files: a list of dicts with `path`, `file_name`, `file_size`, `row_count`,
    /// `level`, `schema_id` and `deletion_file` (its path, or `None`).
    #[getter]
    fn files<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        let Some(d) = self.data() else {
            return Ok(list);
        };
        for (i, f) in d.data_files.iter().enumerate() {
            let dict = PyDict::new(py);
            dict.set_item("path", d.data_file_path(i))?;
            dict.set_item("file_name", &f.file_name)?;
            dict.set_item("file_size", f.file_size)?;
            dict.set_item("row_count", f.row_count)?;
            dict.set_item("level", f.level)?;
            dict.set_item("schema_id", f.schema_id)?;
            dict.set_item("deletion_file", d.deletion_file(i).map(|x| x.path.clone()))?;
            list.append(dict)?;
        }
        Ok(list)
    }

    /// Bytes of the data files on storage.
    #[getter]
    fn file_size(&self) -> i64 {
        self.file_bytes()
    }

    fn __repr__(&self) -> String {
        format!(
            "paimon_rs.Split(kind={}, bucket={:?}, files={}, row_count={})",
            self.kind(),
            self.bucket(),
            self.data().map_or(0, |d| d.data_files.len()),
            self.row_count()
        )
    }

    /// Pickles as its split-v1 bytes.
    fn __reduce__<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyBytes>,))> {
        let from_bytes = py.get_type::<Split>().getattr("from_bytes")?;
        let frame = "split-v1".into_pyobject(py)?.into_any();
        Ok((from_bytes, (self.to_bytes(py, None, Some(frame))?,)))
    }
}
