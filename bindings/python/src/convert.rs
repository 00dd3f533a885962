//! Small conversions between Python values and the crates' types.

use std::collections::BTreeMap;

use pyo3::conversion::FromPyObjectOwned;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use serde_json::Value;

use crate::errors::{invalid, py};

/// A JSON value as the Python value `json.loads` would give.
pub fn json_to_py(py: Python<'_>, v: &Value) -> PyResult<Py<PyAny>> {
    Ok(match v {
        Value::Null => py.None(),
        Value::Bool(b) => b.into_pyobject(py)?.to_owned().into_any().unbind(),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.into_pyobject(py)?.into_any().unbind(),
            (None, Some(u)) => u.into_pyobject(py)?.into_any().unbind(),
            _ => n
                .as_f64()
                .unwrap_or(f64::NAN)
                .into_pyobject(py)?
                .into_any()
                .unbind(),
        },
        Value::String(s) => s.into_pyobject(py)?.into_any().unbind(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for i in items {
                list.append(json_to_py(py, i)?)?;
            }
            list.into_any().unbind()
        }
        Value::Object(m) => {
            let d = PyDict::new(py);
            for (k, x) in m {
                d.set_item(k, json_to_py(py, x)?)?;
            }
            d.into_any().unbind()
        }
    })
}

/// FileIO options from a Python dict of strings (values may be any object with `str()`).
pub fn options_map(options: Option<&Bound<'_, PyDict>>) -> PyResult<BTreeMap<String, String>> {
    let mut out = BTreeMap::new();
    if let Some(d) = options {
        for (k, v) in d.iter() {
            let key: String = k
                .extract()
                .map_err(|_| invalid(format!("options: key {k} is not a string")))?;
            let value = match v.extract::<bool>() {
                Ok(b) => b.to_string(),
                Err(_) => v.str()?.to_string(),
            };
            out.insert(key, value);
        }
    }
    Ok(out)
}

/// The FileIO for `path` with `options`.
pub fn file_io(path: &str, options: &BTreeMap<String, String>) -> PyResult<paimon_io::FileIORef> {
    py(paimon_io::file_io_with_options(path, options))
}

/// `path` without trailing slashes (the form every crate joins paths with).
pub fn table_location(path: &str) -> String {
    let t = path.trim_end_matches('/');
    if t.is_empty() {
        "/".into()
    } else {
        t.to_string()
    }
}

/// The threads to read with: `None` is every core.
pub fn threads(n: Option<usize>) -> PyResult<usize> {
    match n {
        Some(0) => Err(invalid("threads must be at least 1 (None: all cores)")),
        Some(n) => Ok(n),
        None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
    }
}

/// The argument `name` as a `T`, `None` when it is absent or `None`.
///
/// A value of the wrong type is a bad argument like any other, so it raises
/// `InvalidArgumentError` naming the argument, what it takes (`takes`) and what it got, where
/// pyo3's own extraction would raise a bare `TypeError` outside the `PaimonError` hierarchy.
pub fn arg<'py, T: FromPyObjectOwned<'py>>(
    v: Option<&Bound<'py, PyAny>>,
    name: &str,
    takes: &str,
) -> PyResult<Option<T>> {
    match v {
        None => Ok(None),
        Some(v) if v.is_none() => Ok(None),
        Some(v) => v.extract::<T>().map(Some).map_err(|_| {
            let ty = v
                .get_type()
                .name()
                .map_or_else(|_| "?".to_string(), |n| n.to_string());
            let mut shown = v.repr().map_or_else(|_| String::new(), |r| r.to_string());
            if shown.chars().count() > 60 {
                shown = shown.chars().take(57).collect::<String>() + "...";
            }
            invalid(format!("{name}: takes {takes}, got {ty} {shown}"))
        }),
    }
}

/// [`arg`] for an argument that may not be `None`.
pub fn required<'py, T: FromPyObjectOwned<'py>>(
    v: &Bound<'py, PyAny>,
    name: &str,
    takes: &str,
) -> PyResult<T> {
    arg(Some(v), name, takes)?.ok_or_else(|| invalid(format!("{name}: takes {takes}, got None")))
}

/// FileIO options from an `options` argument (a dict, or None).
pub fn options_arg(v: Option<&Bound<'_, PyAny>>) -> PyResult<BTreeMap<String, String>> {
    let d: Option<Bound<'_, PyDict>> = arg(v, "options", "a dict of strings")?;
    options_map(d.as_ref())
}

/// Readers' `batch_size` (`None`: 8192 rows).
pub fn batch_size(v: Option<&Bound<'_, PyAny>>) -> PyResult<usize> {
    match arg::<usize>(v, "batch_size", "a positive int")? {
        Some(0) => Err(invalid("batch_size must be at least 1")),
        Some(n) => Ok(n),
        None => Ok(8192),
    }
}

/// Readers' `threads` (`None`: every core).
pub fn threads_arg(v: Option<&Bound<'_, PyAny>>) -> PyResult<usize> {
    threads(arg(v, "threads", "a positive int or None")?)
}

/// The table a worker was told to write (`TableWrite.from_context`, `run_compact_task`): a
/// `Table` (its path and FileIO options) or a location (`str` / `os.PathLike`, no options).
pub fn expected_table_arg(
    v: &Bound<'_, PyAny>,
    name: &str,
) -> PyResult<(String, BTreeMap<String, String>)> {
    if let Ok(t) = v.cast::<crate::table::Table>() {
        let t = t.get();
        return Ok((t.table.path().to_string(), t.options.clone()));
    }
    Ok((table_location(&location_arg(v, name)?), BTreeMap::new()))
}

/// A table or warehouse location argument: a `str` or an `os.PathLike` (`pathlib.Path`).
pub fn location_arg(v: &Bound<'_, PyAny>, name: &str) -> PyResult<String> {
    if let Ok(s) = v.extract::<String>() {
        return Ok(s);
    }
    if v.hasattr("__fspath__").unwrap_or(false) {
        let p = v.py().import("os")?.call_method1("fspath", (v,))?;
        return required(&p, name, "a str or os.PathLike");
    }
    required(v, name, "a str or os.PathLike")
}
